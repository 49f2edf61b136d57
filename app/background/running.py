"""The running app's address, and the light clients that ask it to search and tell it events.

A process that serves the local API (`nodwyn app`, `nodwyn serve`) writes `<data>/api.json`:
its pid, port and per-launch token, readable by the person only (0600; on Windows the data
directory is in the person's own profile, which other users cannot read). It removes the file
when it stops or exits. `nodwyn memory search|recall` and `nodwyn mcp` read it and ask that
process, so one model is loaded once and a new process pays only Python's start and one
request: one JSON line on a socket, which the app's server answers as the API's GET
(http.client would bring the email package and ssl to every search's start, ADR 0058).
`ask()` answers None when no app is there, and the caller searches in-process.

A file left by a crash is known quickly: its pid is gone (POSIX), or nothing listens on its
port (refused at once on loopback), or the port now belongs to another launch, whose token
differs (403). None of these waits for a timeout: `ask()` raises Stale, saying which, and the
caller searches in-process; a file whose process is gone is removed on the way. See
ADR 0005 (its amendment).

`post()` hands an agent hook's line to the app the same way, as the API's POST: a hook must
never slow its agent (ADR 0064).
"""

import json
import os

FILE = "api.json"
CONNECT = 0.5  # seconds to reach a live app on loopback (a dead port refuses at once)
ANSWER = 30.0  # seconds a live app may take to answer (the first search by meaning loads a model)
TOKEN_HEADER = "X-Nodwyn-Token"


def path(root) -> str:
    return os.path.join(os.fspath(root), FILE)


def announce(root, port: int, token: str) -> None:
    """Say where this process serves the API of `root`; withdrawn at exit, however it exits
    short of a crash."""
    import atexit
    from pathlib import Path

    from .instance import write_private

    entry = {"pid": os.getpid(), "port": port, "token": token}
    try:
        write_private(Path(path(root)), json.dumps(entry).encode())
    except OSError:
        return  # a data directory that cannot be written: clients search in-process
    atexit.register(withdraw, root, token)


def withdraw(root, token: str) -> None:
    """Remove the address file if it is still this server's (a later launch may own it)."""
    from contextlib import suppress

    entry = _read(root)
    if entry is not None and entry.get("token") == token:
        with suppress(OSError):
            os.unlink(path(root))


def _read(root) -> dict | None:
    try:
        with open(path(root), "rb") as file:
            return _entry(file.read())
    except OSError:
        return None


def _entry(data: bytes) -> dict | None:
    """An address file's pid, port and token; None when it does not hold them."""
    try:
        entry = json.loads(data)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    fields = (entry.get("pid"), entry.get("port"), entry.get("token"))
    if not (isinstance(fields[0], int) and isinstance(fields[1], int)):
        return None
    return entry if isinstance(fields[2], str) else None


def alive(pid: int) -> bool:
    """Whether a process of that pid exists (always True where that cannot be asked cheaply:
    on Windows, os.kill would end the process)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Refused(Exception):
    """The running app answered with an error of its own: (status, message)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Stale(Exception):
    """An address file is there but no app of it answers (why, in words): search in-process."""


def ask(root, route: str, params: dict) -> bytes | None:
    """The body of the running app's answer to `GET /api/<route>?params`; None when no app
    has announced itself for `root` (no file), so the caller searches in-process. Raises
    Stale when the file is there but its app does not answer as it (gone, or the port
    another's), the file removed when its process is gone; Refused when the app refuses
    the request itself (a bad task id, bad input)."""
    try:
        with open(path(root), "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Stale(f"{FILE} cannot be read ({exc.strerror})") from None
    entry = _entry(data)
    if entry is None:
        raise Stale(f"{FILE} is not an app's address")
    if not alive(entry["pid"]):
        withdraw(root, entry["token"])
        raise Stale(f"the app that wrote {FILE} has ended (process {entry['pid']} is gone)")
    status, body = _get(entry["port"], entry["token"], route, params)
    if status == 200:
        return body
    if status == 0 or (status >= 500 and not body.startswith(b"{")):
        raise Stale(f"the app in {FILE} does not answer on port {entry['port']}")
    if status == 403:
        raise Stale(f"port {entry['port']} of {FILE} is another app's or launch's")
    try:
        message = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        raise Stale(f"the app in {FILE} gave an answer that is not its own") from None
    raise Refused(status, message)


def _get(port: int, token: str, route: str, params: dict) -> tuple[int, bytes]:
    """(status, body) of the app's answer to `GET /api/<route>?params` on 127.0.0.1; (0, b"")
    when nothing answers as the app would."""
    given = {name: value for name, value in params.items() if value is not None}
    asked = {"route": route, "params": given, "token": token}
    return _line(port, json.dumps(asked).encode(), CONNECT, ANSWER)


def post(root, route: str, body: bytes, connect: float, answer: float) -> bool:
    """Whether the running app of `root` took `body` (one line of JSON) as `POST /api/<route>`
    with a 200 within the times given; False when no app has announced itself or none
    answers."""
    entry = _read(root)
    if entry is None:
        return False
    asked = json.dumps({"route": route, "params": {}, "token": entry["token"]}).encode()
    line = asked[:-1] + b', "body": ' + body + b"}"  # the body as it is, not decoded here
    return _line(entry["port"], line, connect, answer)[0] == 200


def _line(port: int, line: bytes, connect: float, answer: float) -> tuple[int, bytes]:
    """Ask the app on 127.0.0.1:`port` one request line (api/server.py answers it as the API's
    request would be: the status on a line of its own, then the body); (0, b"") when nothing
    answers as the app would. The C module `_socket` alone: `socket`'s import would cost an
    agent's hook more than the rest of its work."""
    import _socket

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    parts = []
    try:
        sock.settimeout(connect)
        sock.connect(("127.0.0.1", port))  # numeric: no host name to encode or look up
        sock.settimeout(answer)
        sock.sendall(line + b"\n")
        while part := sock.recv(1 << 16):
            parts.append(part)
    except OSError:
        return 0, b""
    finally:
        sock.close()
    status, _, body = b"".join(parts).partition(b"\n")
    return (int(status), body) if status.isdigit() else (0, b"")
