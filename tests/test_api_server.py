"""The API server on real loopback sockets (#14 rows 8-9): a burst of connections is queued,
not reset; a body too large is refused from its announced length; a client that stalls frees
its thread. Every wait here has a deadline."""

import json
import os
import socket
import threading
import time
import urllib.request

import pytest
from nodwyn.api import BACKLOG, MAX_BODY, Server
from nodwyn.tasks.store import Store


@pytest.fixture
def server(data_dir):
    running = Server(Store(data_dir), read_timeout=1.0).start()
    yield running
    running.stop()


def raw(server: Server, head: str, body: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(head.replace("\n", "\r\n").encode() + body)
    return sock


def answer_of(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (10 s at most)."""
    got = b""
    while chunk := sock.recv(65536):
        got += chunk
    return got


def request_head(server: Server, method: str, path: str, length: int) -> str:
    return (
        f"{method} {path} HTTP/1.1\nHost: 127.0.0.1:{server.port}\n"
        f"X-Nodwyn-Token: {server.token}\nContent-Type: application/json\n"
        f"Content-Length: {length}\n\n"
    )


def test_a_burst_of_connections_waits_in_the_backlog_until_the_server_accepts(data_dir):
    listening = Server(Store(data_dir))  # listening, not yet accepting
    clients = []
    try:
        for _ in range(100):
            sock = socket.socket()
            clients.append(sock)
            sock.settimeout(0.5)
            sock.connect(("127.0.0.1", listening.port))  # times out once the backlog is full
        assert BACKLOG >= 100 and len(clients) == 100
        listening.start()
        head = f"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:{listening.port}\r\n"
        deadline = time.monotonic() + 10  # for all of them together
        for sock in clients:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            sock.sendall(f"{head}X-Nodwyn-Token: {listening.token}\r\n\r\n".encode())
        for sock in clients:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            assert answer_of(sock).startswith(b"HTTP/1.0 200")
    finally:
        for sock in clients:
            sock.close()
        listening.stop()


def test_fifteen_hundred_requests_fifty_at_once_are_all_answered(server):
    url = f"http://127.0.0.1:{server.port}/api/status"
    failures: list[str] = []

    def client() -> None:
        for _ in range(30):
            request = urllib.request.Request(url, headers={"X-Nodwyn-Token": server.token})
            try:
                with urllib.request.urlopen(request, timeout=20) as response:
                    assert response.status == 200
            except OSError as exc:
                failures.append(repr(exc))

    threads = [threading.Thread(target=client) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []


def test_a_huge_body_is_refused_from_its_length_before_it_is_read(server):
    began = time.monotonic()
    sock = raw(server, request_head(server, "POST", "/api/import", 200 * 1024 * 1024))
    got = answer_of(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.0 413")
    assert b'"status":413' in got and b"larger than 1024 KB" in got
    assert time.monotonic() - began < 5


def test_a_body_at_the_cap_is_read_and_answered(server):
    body = b'{"tool": "claude", "path": "relative"}'.ljust(MAX_BODY)
    sock = raw(server, request_head(server, "POST", "/api/import", len(body)), body)
    got = answer_of(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.0 400") and b"full path" in got


def test_a_chunked_body_is_refused(server):
    head = request_head(server, "POST", "/api/import", 0).replace(
        "Content-Length: 0", "Transfer-Encoding: chunked"
    )
    sock = raw(server, head)
    got = answer_of(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.0 411")


def test_a_body_that_stops_after_three_bytes_frees_its_thread_with_a_408(server):
    began = time.monotonic()
    sock = raw(server, request_head(server, "POST", "/api/import", 5000), b'{"t')
    got = answer_of(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.0 408") and b"did not arrive in time" in got
    assert time.monotonic() - began < 8
    assert _serving_threads(server) == 0


def test_headers_that_never_end_free_their_thread(server):
    began = time.monotonic()
    sock = raw(server, f"GET /api/status HTTP/1.1\nHost: 127.0.0.1:{server.port}\n")
    assert answer_of(sock) == b""  # closed without an answer, once the read timed out
    sock.close()
    assert time.monotonic() - began < 8
    assert _serving_threads(server) == 0


def _serving_threads(server: Server) -> int:
    """Requests still being answered: their threads not back waiting for the next request."""
    deadline = time.monotonic() + 5
    while True:
        answering = server.answering()
        if not answering or time.monotonic() > deadline:
            return answering
        time.sleep(0.02)


def test_requests_one_after_another_are_answered_by_the_threads_kept(server):
    def status() -> None:
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/status",
                                         headers={"X-Nodwyn-Token": server.token})  # fmt: skip
        with urllib.request.urlopen(request, timeout=20) as response:
            assert response.status == 200

    status()
    assert _serving_threads(server) == 0
    kept = {t.ident for t in threading.enumerate() if t.name == "nodwyn-api-request"}
    assert len(kept) == 1  # the thread that answered waits for the next request
    for _ in range(20):
        status()
    assert _serving_threads(server) == 0
    now = {t.ident for t in threading.enumerate() if t.name == "nodwyn-api-request"}
    assert kept <= now and len(now) <= 2  # a request sent as the last one ends may take another


def test_a_waiting_request_keeps_its_thread_and_the_next_gets_another(server):
    sock = raw(server, request_head(server, "POST", "/api/import", 5000), b'{"t')  # stalls
    try:
        assert answering_settles_at(server, 1)
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/status",
                                         headers={"X-Nodwyn-Token": server.token})  # fmt: skip
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200  # answered while the first still waits for its body
        assert answering_settles_at(server, 1)  # the stalled one, still in its own thread
    finally:
        sock.close()
    assert _serving_threads(server) == 0


def answering_settles_at(server: Server, count: int) -> bool:
    """Whether the requests being answered come to `count` within 0.8 s (under the stalled
    request's 1 s read timeout)."""
    deadline = time.monotonic() + 0.8
    while server.answering() != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def wake_ups(thread: threading.Thread) -> int:
    with open(f"/proc/self/task/{thread.native_id}/status") as file:
        status = file.read()
    return int(status.split("voluntary_ctxt_switches:")[1].split()[0])


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="counts a thread's wake-ups")
def test_the_server_sleeps_until_a_request_comes_and_still_stops_at_once(data_dir):
    server = Server(Store(data_dir)).start()
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/api/status", headers={"X-Nodwyn-Token": server.token}
        )
        with urllib.request.urlopen(request, timeout=5) as response:  # a request wakes it
            assert response.status == 200
        before = wake_ups(server._thread)
        time.sleep(2)  # a server that looked twice a second would wake 4 times in this
        assert wake_ups(server._thread) - before <= 1
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 1
        assert not server._thread.is_alive()
    finally:
        server.stop()


def asked_as_a_line(server: Server, line: bytes) -> tuple[bytes, bytes]:
    """The status line and the body the server answers to one request line."""
    sock = raw(server, "")
    with sock:
        sock.sendall(line)
        status, _, body = answer_of(sock).partition(b"\n")
    return status, body


def test_a_request_line_is_answered_as_the_same_get_with_its_token_would_be(server):
    """What `running.ask` sends: the same answer as the GET, and the same refusals."""
    get = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/api/search?q=pager&limit=3",
        headers={"X-Nodwyn-Token": server.token},
    )
    with urllib.request.urlopen(get, timeout=10) as page:
        expected = page.read()
    asked = {"route": "search", "params": {"q": "pager", "limit": 3}, "token": server.token}
    assert asked_as_a_line(server, json.dumps(asked).encode() + b"\n") == (b"200", expected)
    status, body = asked_as_a_line(server, json.dumps({**asked, "token": "old"}).encode() + b"\n")
    assert (status, json.loads(body)["error"]) == (
        b"403",
        "refused: missing or wrong X-Nodwyn-Token",
    )
    status, body = asked_as_a_line(server, b'{"route": "search"}\n')
    assert (status, json.loads(body)["status"]) == (b"400", 400)
    status, body = asked_as_a_line(
        server, json.dumps({**asked, "route": "nowhere"}).encode() + b"\n"
    )
    assert (status, json.loads(body)["error"]) == (b"404", "no route GET /api/nowhere")


def test_a_request_line_that_stops_halfway_frees_its_thread(server):
    sock = raw(server, "")
    with sock:
        sock.sendall(b'{"route": "search", "par')  # and nothing more: no newline
        assert answer_of(sock) == b""  # closed once the read timeout passed, no answer
    assert _serving_threads(server) == 0
