"""The WSGI app and its threaded server on 127.0.0.1: the guard every request passes, the one
JSON error shape, and the server's thread.

Invariants (ADR 0005):
- Every request must carry a Host of `127.0.0.1:PORT` or `localhost:PORT` (PORT the one the
  server listens on), so a DNS-rebinding page cannot talk to it; every `/api/*` request must
  also carry the per-launch token in the `X-Nodwyn-Token` header, never in a cookie, so no
  other page in the person's browser can read or change anything. Otherwise: 403.
- Every error, including unknown routes and uncaught exceptions, is one JSON shape:
  `{"ok": false, "error": "...", "status": n}`. Every response is `Cache-Control: no-store`.
- A connection whose first byte is `{` is a request line from the command line or `nodwyn mcp`
  (background/running.py), answered by the same app as the GET it names with its token, so
  it passes the same guard; no browser's request starts so (ADR 0058).
- A body larger than MAX_BODY is refused (413) from its Content-Length before a byte of it is
  read; a client pausing longer than READ_TIMEOUT while it sends is dropped (408 mid-body), so
  it never holds a thread; BACKLOG connections wait to be accepted, not the default 5.
"""

import contextlib
import hmac
import io
import json
import queue
import secrets
import socket
import socketserver
import threading
import time
from urllib.parse import urlencode
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.util import setup_testing_defaults

import bottle
import msgspec

from ..background import running
from ..background.feed import Feed, Status
from ..errors import BadInput, NodwynError
from ..live.board import Board
from ..memory.words import opened
from ..tasks.store import Store
from .routes import routes

TOKEN_HEADER = running.TOKEN_HEADER
LOCAL_HOSTS = ("127.0.0.1", "localhost")
MAX_BODY = 1 << 20  # bytes: the largest body a route takes (settings, a path, a title)
READ_TIMEOUT = 15.0  # seconds a request may pause while sending its line, headers or body
BACKLOG = 128  # connections waiting to be accepted (socketserver's default 5 reset some)
KEPT = 8  # request threads kept waiting for the next request
bottle.BaseRequest.MEMFILE_MAX = MAX_BODY  # a body under the cap is read into memory, no temp file
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}


def _json(handler):
    """A handler whose Struct (or None) goes out as JSON and whose NodwynError is a status."""

    def call(**args):
        try:
            result = handler(**args)
        except NodwynError as exc:
            raise bottle.HTTPError(exc.status, str(exc)) from None
        if isinstance(result, str | bytes):
            return result  # the page and its files
        bottle.response.content_type = "application/json"
        return msgspec.json.encode(result)

    return call


def _error(err: bottle.HTTPError) -> bytes:
    status = err.status_code
    if status == 500 and err.exception is not None:
        message = f"internal error: {type(err.exception).__name__}: {err.exception}"
    elif status == 404 and str(err.body).startswith("Not found:"):
        message = f"no route {bottle.request.method} {bottle.request.path}"
    elif status == 405:
        message = f"{bottle.request.method} is not allowed on {bottle.request.path}"
    else:
        message = str(err.body)
    bottle.response.content_type = "application/json"
    bottle.response.headers.update(HEADERS)
    return msgspec.json.encode({"ok": False, "error": message, "status": status})


def _guard(token: str):
    """Refuse foreign Hosts everywhere and token-less /api/* requests (before routing)."""

    def check():
        environ = bottle.request.environ
        port = environ.get("SERVER_PORT", "")
        allowed = {f"{host}:{port}" for host in LOCAL_HOSTS}
        if environ.get("HTTP_HOST", "") not in allowed:
            raise bottle.HTTPError(403, "refused: this server answers only to 127.0.0.1")
        if bottle.request.path.startswith("/api/"):
            given = environ.get("HTTP_" + TOKEN_HEADER.upper().replace("-", "_"), "")
            if not hmac.compare_digest(given.encode(), token.encode()):
                raise bottle.HTTPError(403, f"refused: missing or wrong {TOKEN_HEADER}")
        _check_size(environ)

    return check


def _check_size(environ: dict) -> None:
    """Refuse a body too large for any route from its announced length, before reading it."""
    if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        raise bottle.HTTPError(411, "send the body with a Content-Length")
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise bottle.HTTPError(400, "Content-Length is not a number") from None
    if length > MAX_BODY:
        raise bottle.HTTPError(413, f"the body is larger than {MAX_BODY // 1024} KB")


def make_app(store: Store, token: str, status: Status | None = None) -> bottle.Bottle:
    """The WSGI app of one data directory, guarded by `token`."""
    if not token:
        raise BadInput("the API needs a token")
    status = status or Status()
    feed = Feed(store.sessions, status)
    board = Board(store)
    board.subscribe(lambda task, _live: feed.tell([task]))  # the page hears a state at once
    app = bottle.Bottle(catchall=True)
    app.feed, app.board = feed, board
    app.add_hook("before_request", _guard(token))
    app.add_hook("after_request", lambda: bottle.response.headers.update(HEADERS))
    app.default_error_handler = _error
    for method, path, handler in routes(store, token, feed, board):
        app.route(path, method, _json(handler))
    return app


class _Threaded(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a waiting change-feed request never holds the process open
    allow_reuse_address = False
    request_queue_size = BACKLOG
    read_timeout = READ_TIMEOUT

    def __init__(self, *args, **kwargs):
        self._pool = threading.Lock()  # the threads below, and whether the server closes
        self._idle: list = []  # the queues of kept request threads waiting for a request
        self._workers: list[threading.Thread] = []
        self._closing = False
        super().__init__(*args, **kwargs)  # closes the server when it cannot listen

    def process_request(self, request, client_address) -> None:
        """Each request in a thread kept for requests (a new thread a request slows a search's
        answer), or a new one when all are busy (a change feed waits in its own);
        KEPT of them wait once they are done, the others end."""
        with self._pool:
            waiting = self._idle.pop() if self._idle else None
            if waiting is None:
                waiting = queue.SimpleQueue()
                worker = threading.Thread(
                    target=self._serve_each, args=(waiting,), name="nodwyn-api-request", daemon=True
                )
                self._workers = [*(w for w in self._workers if w.is_alive()), worker]
                worker.start()
        waiting.put((request, client_address))

    def answering(self) -> int:
        """Requests being answered now (request threads not waiting for the next one)."""
        with self._pool:
            return sum(worker.is_alive() for worker in self._workers) - len(self._idle)

    def _serve_each(self, waiting) -> None:
        while (given := waiting.get()) is not None:
            self.process_request_thread(*given)
            with self._pool:
                if self._closing or len(self._idle) >= KEPT:
                    return
                self._idle.append(waiting)

    def server_close(self) -> None:
        """Close the socket, end the waiting threads and wait for those still answering."""
        with self._pool:
            self._closing = True
            for waiting in self._idle:
                waiting.put(None)
            self._idle, workers = [], list(self._workers)
        super().server_close()
        for worker in workers:
            worker.join()

    def serve_forever(self, poll_interval: float | None = None) -> None:
        """Waits on the socket with no timeout, so that at rest the thread sleeps (the base
        class looks twice a second); `shutdown` wakes it with connections of its own."""
        super().serve_forever(poll_interval)

    def shutdown(self) -> None:
        done = threading.Event()

        def wake() -> None:  # again and again: one that comes before the request is served
            while True:
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", self.server_port), timeout=1).close()
                if done.wait(0.05):
                    return

        threading.Thread(target=wake, name="nodwyn-api-wake", daemon=True).start()
        try:
            super().shutdown()
        finally:
            done.set()


class _Quiet(WSGIRequestHandler):
    def setup(self) -> None:
        self.timeout = self.server.read_timeout  # a stalled client frees its thread
        super().setup()

    def handle(self) -> None:
        """An HTTP request, or one asked as a JSON line (`{`: no HTTP request starts so)."""
        try:
            first = self.rfile.peek(1)[:1]
        except OSError:
            return  # it sent nothing before the read timeout: its thread is freed
        if first == b"{":
            self._answer_line()
        else:
            super().handle()

    def _answer_line(self) -> None:
        """`{"route": R, "params": {...}, "token": T}` on one line, as running.ask sends it,
        answered by the same app as `GET /api/R?params` with that token would be; with a
        `"body"` too (running.post), as `POST /api/R` of that JSON. The answer: the status on
        a line of its own, then the body; the connection then closes."""
        try:
            line = self.rfile.readline(MAX_BODY + 1)
        except OSError:
            return  # it stalled past the read timeout: its thread is freed, as for HTTP
        try:
            asked = json.loads(line)
            route, params, token = asked["route"], asked["params"], asked["token"]
            if not (isinstance(route, str) and isinstance(params, dict)):
                raise TypeError(route)
            query = urlencode(params)
            body = msgspec.json.encode(asked["body"]) if "body" in asked else None
        except (ValueError, KeyError, TypeError):
            fault = {"ok": False, "error": "a request line is a JSON object", "status": 400}
            self.wfile.write(b"400\n" + msgspec.json.encode(fault))
            return
        said = []
        answer = self.server.get_app()(
            self._environ(route, query, str(token), body),
            lambda status, *_: said.append(status),
        )
        try:
            body = b"".join(answer)
        finally:
            if hasattr(answer, "close"):
                answer.close()
        with contextlib.suppress(OSError):  # the asker left: nobody to answer
            self.wfile.write(said[0].split(" ", 1)[0].encode() + b"\n" + body)

    def _environ(self, route: str, query: str, token: str, body: bytes | None) -> dict:
        """The WSGI request a browser's `GET /api/<route>?<query>` (or, with a body, its POST
        of that JSON) with the token would be."""
        port = str(self.server.server_port)
        environ = {
            "REQUEST_METHOD": "GET" if body is None else "POST",
            "PATH_INFO": f"/api/{route}",
            "QUERY_STRING": query,
            "SERVER_PORT": port,
            "HTTP_HOST": f"127.0.0.1:{port}",
            "HTTP_" + TOKEN_HEADER.upper().replace("-", "_"): token,
        }
        if body is not None:
            environ.update(CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body)))
            environ["wsgi.input"] = io.BytesIO(body)
        setup_testing_defaults(environ)  # the rest of a WSGI request's keys, as wsgiref has them
        return environ

    def log_message(self, format, *args):  # noqa: A002 (the base class names it)
        pass  # the page polls; a line per request would bury anything worth reading


class Server:
    """The app on 127.0.0.1, in a daemon thread; `url` opens the page. While it runs, its
    address and token are in the data directory for the CLI and `nodwyn mcp` (running.py)."""

    def __init__(
        self,
        store: Store,
        port: int = 0,
        token: str | None = None,
        status: Status | None = None,
        read_timeout: float = READ_TIMEOUT,
        announce: bool = True,
    ):
        self.store = store
        self.announce = announce
        self.token = token or secrets.token_urlsafe(24)
        self.status = status or Status()
        self.app = make_app(store, self.token, self.status)
        opened.close_when_unused()  # at rest, nothing of it wakes (ADR 0028)
        self.used = time.monotonic()  # of the last request (the search service's idle end)
        try:
            self._server = make_server("127.0.0.1", port, self._served, _Threaded, _Quiet)
        except OSError as exc:
            raise BadInput(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
        self._server.read_timeout = read_timeout
        self.port = self._server.server_port
        self._thread: threading.Thread | None = None

    def answering(self) -> int:
        """Requests being answered now."""
        return self._server.answering()

    def _served(self, environ, start_response):
        self.used = time.monotonic()
        return self.app(environ, start_response)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?" + urlencode({"token": self.token})

    def start(self) -> "Server":
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="nodwyn-api", daemon=True
        )
        self._thread.start()
        self.app.board.start()  # the spool of hooks heard while no app ran, read once
        if self.announce:
            running.announce(self.store.root, self.port, self.token)
        return self

    def stop(self) -> None:
        if self.announce:
            running.withdraw(self.store.root, self.token)
        self.app.feed.close()
        self.app.board.close()
        if self._thread is not None:  # shutdown() waits for a serve_forever that must run
            self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
