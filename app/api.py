"""The local HTTP API and the page, served by a threaded server on 127.0.0.1.

The only module that imports bottle. Every route sits in `routes()`; each decodes its input,
calls one core function (store or memory) and returns a Struct, sent as JSON.

Invariants (docs/decisions/0005-api-token.md):
- Every request must carry a Host of `127.0.0.1:PORT` or `localhost:PORT` (PORT the one the
  server listens on), so a DNS-rebinding page cannot talk to it; every `/api/*` request must
  also carry the per-launch token in the `X-Nodwyn-Token` header, never in a cookie, so no
  other page in the person's browser can read or change anything. Otherwise: 403.
- The page `/` is given only to a request whose `?token=` is the token; it carries the token
  to its scripts in a meta tag.
- Every error, including unknown routes and uncaught exceptions, is one JSON shape:
  `{"ok": false, "error": "...", "status": n}`. Every response is `Cache-Control: no-store`.
- A body larger than MAX_BODY is refused (413) from its Content-Length before a byte of it is
  read; a client pausing longer than READ_TIMEOUT while it sends is dropped (408 mid-body), so
  it never holds a thread; BACKLOG connections wait to be accepted, not the default 5.
"""

import hmac
import secrets
import socketserver
import threading
from html import escape
from pathlib import Path
from typing import Literal
from urllib.parse import urlencode
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import bottle
import msgspec

from . import agents, memory, paths, running, settings, starred
from .errors import BadInput, NodwynError, TaskNotFound
from .feed import Changes, Feed, Progress, Status
from .memory.providers import Provider
from .memory.recall import cut
from .memory.search import search as words_only
from .reading import export as reading_export
from .reading import resume, shown
from .store import Store

__all__ = ["Changes", "Progress", "Server", "Status", "make_app", "routes"]

TOKEN_HEADER = running.TOKEN_HEADER
LOCAL_HOSTS = ("127.0.0.1", "localhost")
LONG_POLL = 25.0  # seconds a change-feed request waits before answering "nothing new"
MAX_BODY = 1 << 20  # bytes: the largest body a route takes (settings, a path, a title)
READ_TIMEOUT = 15.0  # seconds a request may pause while sending its line, headers or body
BACKLOG = 128  # connections waiting to be accepted (socketserver's default 5 reset some)
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
EXPORT_TYPES = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8"}
TYPES = {
    ".html": "text/html",
    ".css": "text/css",
    ".js": "text/javascript",
    ".svg": "image/svg+xml",
}


def frontend_dir() -> Path:
    return paths.frontend_dir()


class TaskList(msgspec.Struct, frozen=True):
    tasks: msgspec.Raw  # list[TaskInfo], joined as JSON from the catalogue's ready rows


class Cards(msgspec.Struct, frozen=True):
    cards: list


class Done(msgspec.Struct, frozen=True):
    ok: bool = True


class Title(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    title: str


class ImportFolder(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tool: str
    path: str


class SettingsChange(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The settings the page changes (Settings > Search); a field left out is kept."""

    follow_claude: bool | None = None
    follow_codex: bool | None = None
    search_tool_output: bool | None = None
    show_machine_runs: bool | None = None
    close_to_tray: bool | None = None
    search_mode: Literal["words", "meaning", "both"] | None = None  # issue 8
    # issue 8: where vectors come from; a provider is checked (address, model) before it is
    # kept. The key is write-only: it is kept apart (settings.set_embeddings_key), "" forgets
    # it, and an address changed without a new key forgets the old one (it was for that server).
    embeddings: Literal["builtin", "ollama", "openai"] | None = None
    embeddings_url: str | None = None
    embeddings_model: str | None = None
    embeddings_key: str | None = None
    # issue 9: project folder -> whether agents may search its earlier tasks; merged into the
    # switches already set (false turns a switch off).
    earlier_tasks: dict[str, bool] | None = None
    # issue 6: agent -> the imported folders the worker follows (the whole list; the page
    # sends it without a folder to stop following that one)
    extra_folders: dict[str, list[str]] | None = None
    # issue 18: agent -> followed, for the agents after Claude Code and Codex; merged into
    # the switches already set
    follow: dict[str, bool] | None = None


class Archived(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    archived: bool


class Star(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    starred: bool = True
    note: str = ""


class StarredList(msgspec.Struct, frozen=True):
    turns: list


class TaskStars(msgspec.Struct, frozen=True):
    turns: dict[int, str]  # turn -> note


def _body(kind):
    try:
        return msgspec.json.decode(bottle.request.body.read(), type=kind)
    except msgspec.MsgspecError as exc:
        raise BadInput(f"the request body is not what this route takes: {exc}") from None
    except TimeoutError:
        raise bottle.HTTPError(408, "the request's body did not arrive in time") from None


def _query_int(name: str, default: int | None = None) -> int | None:
    value = bottle.request.query.get(name, "")
    if value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise BadInput(f"{name} must be a whole number, not {value!r}") from None


def routes(store: Store, token: str, feed: Feed) -> list[tuple[str, str, object]]:
    """Every route: (method, path, handler). One table, so one test can walk it."""
    # Memory builds and saves its derived files (.mem, the word index) on first use; two
    # threads doing that at once saw a half-built index, so they take turns (with the
    # desktop worker too).
    memory_lock = memory.BUILDING

    def page():
        given = bottle.request.query.get("token", "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise bottle.HTTPError(403, "open the address that nodwyn printed: it carries the key")
        html = (frontend_dir() / "index.html").read_text(encoding="utf-8")
        bottle.response.content_type = "text/html; charset=utf-8"
        return html.replace("{{token}}", escape(token, quote=True))

    def asset(path):
        root = frontend_dir()
        file = (root / path).resolve()
        if root not in file.parents or not file.is_file() or file.suffix not in TYPES:
            raise bottle.HTTPError(404, f"no file {path}")
        bottle.response.content_type = TYPES[file.suffix] + "; charset=utf-8"
        return file.read_bytes()

    def changed(result):
        feed.poke()  # pages hear of a change made here without waiting for the next look
        return result

    def tasks():
        return TaskList(msgspec.Raw(store.list_json(archived=None).encode()))

    def rename(task):
        return changed(store.rename(task, _body(Title).title))

    def archive(task):
        return changed(store.archive(task, _body(Archived).archived))

    def delete(task):
        store.delete(task)
        return changed(Done())

    def cards(task):
        if not store.exists(task):
            raise TaskNotFound(f"no task {task}")
        with memory_lock:
            return Cards(memory.cards(store, task))

    def context(task):
        if not store.exists(task):
            raise TaskNotFound(f"no task {task}")
        seq, before, after = _query_int("seq"), _query_int("before", 40), _query_int("after", 40)
        with memory_lock:
            return shown.window(store, task, seq, before, after)

    def search():
        query = bottle.request.query
        words, scope = query.get("q", ""), query.get("scope", "all")
        task, project = query.get("task") or None, query.get("project") or None
        limit = _query_int("limit", 50)
        mode = query.get("mode") or None  # words|meaning|both; none: the setting decides
        if mode is not None and mode not in memory.MODES:
            raise BadInput(f"mode is one of {', '.join(memory.MODES)}, not {mode!r}")
        if feed.status.snapshot().phase in ("importing", "indexing"):
            # The desktop worker is importing and folds memory after: search what is indexed
            # now rather than wait seconds for that work (decision 0006).
            found = words_only(
                store, words, scope=scope, task=task, project=project, limit=limit, fresh=False
            )
            return memory.FusedResults(**msgspec.structs.asdict(found), mode="words")
        # while the worker encodes, search what is encoded so far (it encodes newest first)
        budget = 0.0 if feed.status.snapshot().phase == "encoding" else None
        with memory_lock:
            return memory.search(store, words, scope=scope, task=task, project=project,
                                 limit=limit, mode=mode, budget=budget)  # fmt: skip

    def recall():
        """One event back whole (the CLI's and agents' recall, issue 13); `start` and `count`
        cut its outline's lines as `nodwyn memory recall --json` does."""
        task, seq = bottle.request.query.get("task", ""), _query_int("seq")
        if not task or seq is None:
            raise BadInput("recall takes task and seq")
        with memory_lock:
            found = memory.recall(store, task, seq)
        return cut(found, _query_int("start"), _query_int("count"))

    def changes():
        return feed.wait(_query_int("since", 0), min(LONG_POLL, _wait_seconds()))

    def import_folder():
        given = _body(ImportFolder)
        started = agents.import_folder(store, given.tool, given.path, feed.status.set)
        # followed from now on, as the agents' own folders are (the worker's next pass)
        settings.follow_folder(store.root, given.tool, str(Path(given.path.strip()).expanduser()))
        return changed(started)

    def export(task):
        fmt, turn = bottle.request.query.get("format", "html"), _query_int("turn")
        with memory_lock:
            text = reading_export.export(store, task, fmt, turn)
        name = reading_export.file_name(store, task, fmt, turn)
        bottle.response.content_type = EXPORT_TYPES[fmt]
        bottle.response.set_header("Content-Disposition", f'attachment; filename="{name}"')
        return text.encode("utf-8")

    def star(task, seq):
        if not seq.isdigit():
            raise BadInput(f"a turn is the seq of its prompt, a whole number, not {seq!r}")
        given = _body(Star)
        return changed(store.star(task, int(seq), given.note, given.starred))

    def change_settings():
        return changed(_change_settings(store.root, _body(SettingsChange)))

    return [
        ("GET", "/", page),
        ("GET", "/static/<path:path>", asset),
        ("GET", "/api/tasks", tasks),
        ("GET", "/api/tasks/<task>", store.get),
        ("POST", "/api/tasks/<task>/title", rename),
        ("POST", "/api/tasks/<task>/archive", archive),
        ("DELETE", "/api/tasks/<task>", delete),
        ("GET", "/api/tasks/<task>/cards", cards),
        ("GET", "/api/tasks/<task>/context", context),
        ("GET", "/api/tasks/<task>/export", export),
        ("GET", "/api/tasks/<task>/resume", lambda task: resume.command(store, task)),
        ("GET", "/api/tasks/<task>/starred", lambda task: TaskStars(starred.of_task(store, task))),
        ("POST", "/api/tasks/<task>/turns/<seq>/star", star),
        ("GET", "/api/starred", lambda: StarredList(starred.listing(store))),
        ("GET", "/api/search", search),
        ("GET", "/api/recall", recall),
        ("GET", "/api/status", feed.status.snapshot),
        ("GET", "/api/changes", changes),
        ("GET", "/api/places", lambda: agents.places(store.root)),
        ("POST", "/api/import", import_folder),
        ("GET", "/api/settings", lambda: _settings_shown(store.root)),
        ("POST", "/api/settings", change_settings),
    ]


def _settings_shown(root: Path) -> dict:
    """The settings as the page reads them: the API key never, only whether one is set."""
    shown = msgspec.structs.asdict(settings.load(root))
    shown["embeddings_key_set"] = settings.key_path(root).exists()  # read only to be sent
    return shown


def _change_settings(root: Path, change: SettingsChange) -> dict:
    given = msgspec.structs.asdict(change)
    key = given.pop("embeddings_key")
    before = settings.load(root)
    if given["earlier_tasks"] is not None:
        switches = dict(before.earlier_tasks)
        for folder, allowed in given["earlier_tasks"].items():
            switches.pop(folder, None)
            if allowed:
                switches[folder] = True
        given["earlier_tasks"] = switches
    if given["follow"] is not None:
        unknown = set(given["follow"]) - set(agents.tools())
        if unknown:
            raise BadInput(f"no agent named {', '.join(sorted(unknown))}")
        given["follow"] = {**before.follow, **given["follow"]}
    given = {name: value for name, value in given.items() if value is not None}
    if "extra_folders" in given:
        for tool, folders in given["extra_folders"].items():
            if tool not in agents.tools() or not all(Path(each).is_absolute() for each in folders):
                raise BadInput(f"extra folders are full paths for {', '.join(agents.tools())}")
        given["extra_folders"] = {tool: on for tool, on in given["extra_folders"].items() if on}
    after = msgspec.structs.replace(before, **given)
    if after.embeddings != "builtin":
        # refuses a kind, address or model that could not work, before anything is kept
        Provider(after.embeddings, after.embeddings_url, after.embeddings_model)
    if key is not None:
        settings.set_embeddings_key(root, key)  # first: a key it refuses changes nothing
    elif after.embeddings_url != before.embeddings_url:
        settings.set_embeddings_key(root, "")
    settings.update(root, **given)
    return _settings_shown(root)


def _wait_seconds() -> float:
    value = _query_int("wait", int(LONG_POLL))
    if value < 0:
        raise BadInput("wait must not be negative")
    return float(value)


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
    app = bottle.Bottle(catchall=True)
    app.feed = feed
    app.add_hook("before_request", _guard(token))
    app.add_hook("after_request", lambda: bottle.response.headers.update(HEADERS))
    app.default_error_handler = _error
    for method, path, handler in routes(store, token, feed):
        app.route(path, method, _json(handler))
    return app


class _Threaded(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a waiting change-feed request never holds the process open
    allow_reuse_address = False
    request_queue_size = BACKLOG
    read_timeout = READ_TIMEOUT


class _Quiet(WSGIRequestHandler):
    def setup(self) -> None:
        self.timeout = self.server.read_timeout  # a stalled client frees its thread
        super().setup()

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
        try:
            self._server = make_server("127.0.0.1", port, self.app, _Threaded, _Quiet)
        except OSError as exc:
            raise BadInput(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
        self._server.read_timeout = read_timeout
        self.port = self._server.server_port
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?" + urlencode({"token": self.token})

    def start(self) -> "Server":
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="nodwyn-api", daemon=True
        )
        self._thread.start()
        if self.announce:
            running.announce(self.store.root, self.port, self.token)
        return self

    def stop(self) -> None:
        if self.announce:
            running.withdraw(self.store.root, self.token)
        self.app.feed.close()
        if self._thread is not None:  # shutdown() waits for a serve_forever that must run
            self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
