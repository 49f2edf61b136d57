"""One running app per data directory: a second launch hands its wish to the first and exits.

The first process takes an exclusive lock on `<data>/app.lock` and holds it for its life; the
operating system drops the lock when the process ends, however it ends, so a crash never
leaves a stale claim. It listens on a loopback TCP port (the same code on Linux, macOS and
Windows) and writes the port and a fresh per-launch secret to `<data>/app.json`, readable by
its owner only. A later process that finds the lock taken reads that file, connects, sends
the secret and a request ("show" or "search"), and gets "ok" once the first process has
acted. A connection without the secret is closed unanswered, so other users of the machine
cannot drive the window. See ADR 0006.
"""

import hmac
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from ..errors import NodwynError

REQUESTS = ("show", "search")


class Handoff(msgspec.Struct, kw_only=True, frozen=True):
    """What app.json holds: where the running app listens and the secret it expects."""

    pid: int
    port: int
    secret: str


class NotAnswered(NodwynError):
    """Another nodwyn holds the data directory but did not answer."""

    status = 503


def lock_path(root: Path) -> Path:
    return root / "app.lock"


def handoff_path(root: Path) -> Path:
    return root / "app.json"


if os.name == "nt":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True


class Instance:
    """The claim of the first process: its lock, its listening socket and its secret."""

    def __init__(self, root: Path, fd: int):
        self.root = root
        self._fd = fd
        self.secret = secrets.token_urlsafe(32)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(4)
        self.port = self._sock.getsockname()[1]
        self._handler: Callable[[str], None] | None = None
        self._closed = threading.Event()
        write_private(
            handoff_path(root),
            msgspec.json.encode(Handoff(pid=os.getpid(), port=self.port, secret=self.secret)),
        )

    def serve(self, handler: Callable[[str], None]) -> None:
        """Answer later launches in a daemon thread; `handler(request)` does what they ask."""
        self._handler = handler
        threading.Thread(target=self._accept, name="nodwyn-instance", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(2)
        try:
            line = _read_line(conn)
        except OSError:
            return
        secret, _, request = line.partition(" ")
        if not hmac.compare_digest(secret.encode(), self.secret.encode()):
            return
        if request not in REQUESTS or self._handler is None:
            conn.sendall(b"no\n")
            return
        self._handler(request)
        conn.sendall(b"ok\n")

    def close(self) -> None:
        """Give the claim up: stop listening, remove app.json, release the lock."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._sock.close()
        try:
            current = msgspec.json.decode(handoff_path(self.root).read_bytes(), type=Handoff)
            if current.secret == self.secret:
                handoff_path(self.root).unlink()
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass
        os.close(self._fd)


def claim(root: Path) -> Instance | None:
    """This process's claim on the data directory, or None when another process holds it."""
    fd = os.open(lock_path(root), os.O_RDWR | os.O_CREAT, 0o600)
    if not _try_lock(fd):
        os.close(fd)
        return None
    return Instance(root, fd)


def ask(root: Path, request: str, wait: float = 10.0) -> None:
    """Ask the running app to do `request`; NotAnswered when it cannot be reached in `wait` s.

    The file may not be written yet when the first process has only just taken the lock, so
    this retries for a while before it gives up.
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            handoff = msgspec.json.decode(handoff_path(root).read_bytes(), type=Handoff)
            with socket.create_connection(("127.0.0.1", handoff.port), timeout=wait) as conn:
                conn.sendall(f"{handoff.secret} {request}\n".encode())
                if _read_line(conn) == "ok":
                    return
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass
        if time.monotonic() > deadline:
            raise NotAnswered(
                f"another nodwyn is running on {root} but does not answer; "
                "close it (or end its process) and try again"
            )
        time.sleep(0.2)


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read, replacing any earlier one whole."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.replace(tmp, path)


def _read_line(conn: socket.socket, limit: int = 256) -> str:
    data = b""
    while b"\n" not in data and len(data) < limit:
        chunk = conn.recv(limit)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode("ascii", "replace")
