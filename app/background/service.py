"""The search service: `nodwyn serve` with no window and no terminal, started by the first
search that needs the sentence model when no app runs, and ended by itself.

A search, recall or `nodwyn mcp` asks the process named in `<data>/api.json` (running.py).
When there is none and the search ranks by meaning, `start()` starts one, the way build
daemons and key agents are started by their first client: `nodwyn --data-dir DIR serve
--service`, detached from the terminal (its own process group: the terminal's Ctrl+C is not
its), its output discarded. It serves as `nodwyn serve` does (the same code, its address and
key in api.json) and encodes the tasks in the background, newest first. Later processes ask it.

Invariants:
- One at a time: starters take `<data>/service.lock` (an OS lock, dropped with its process)
  and start a service only when, holding it, they find no live api.json; the second waits,
  then finds the first's.
- It ends by itself (`Watch`, a look every CHECK seconds) when:
  - nothing asked it for `search_service_idle` seconds (a setting, 600) after its encoding
    ended (it stays while it encodes: the vectors are what it is for);
  - api.json is no longer its own: the app (or a `nodwyn serve`) started and announced
    itself, so the service hands its place over and ends;
  - the data directory is gone;
  - the person's session ends. POSIX: it stays in the session of the process that started
    it (no setsid), ends on SIGHUP, SIGTERM or SIGINT, and ends when the session's leader (the
    login shell or the desktop session's first process) is gone, which is how a log-out or
    a closed terminal shows. Windows: the system ends a logon session's processes at
    log-off; it is started with no console window (CREATE_NO_WINDOW).
- `--no-service`, the setting `search_service` (True) or NODWYN_SERVICE=0 keep a search in its
  own process (the model loaded there, as before).
"""

import os
import sys
import time

from . import running

LOCK = "service.lock"
START_WAIT = 30.0  # seconds a starter waits for the service's address (a loaded machine)
CHECK = 1.0  # seconds between the service's looks at its reasons to end


def wanted(root, refused: bool = False) -> bool:
    """Whether a search may start (or use) the service: not `--no-service`, not
    NODWYN_SERVICE=0, and the setting `search_service` on."""
    if refused or os.environ.get("NODWYN_SERVICE", "").strip() == "0":
        return False
    from .. import settings

    return settings.load(root).search_service


def live(root) -> bool:
    """Whether api.json names a process that is there (the app, a serve or a service)."""
    entry = running._read(root)
    return entry is not None and running.alive(entry["pid"])


def start(root) -> bool:
    """Make sure a service (or the app) serves `root`: start one unless one is there; True
    once one has announced itself, False when it could not be started."""
    try:
        fd = os.open(os.path.join(os.fspath(root), LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False  # a read-only data folder: no service can announce itself there either
    try:
        _lock(fd)
        if live(root):
            return True
        process = _spawn(root)
        deadline = time.monotonic() + START_WAIT
        while time.monotonic() < deadline:
            entry = running._read(root)
            if entry is not None and entry["pid"] == process.pid:
                return True
            if process.poll() is not None:
                return live(root)  # ended at once: another serves (or it could not start)
            time.sleep(0.02)
        return False
    finally:
        os.close(fd)  # the lock goes with it


def _lock(fd: int) -> None:
    """Wait for the starters' lock."""
    if os.name == "nt":
        import msvcrt

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for 10 s itself
                return
            except OSError:
                continue
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX)


def command(root) -> list[str]:
    """How the service is started: this Python's `-m nodwyn.cli`, or the bundle's launcher."""
    rest = ["--data-dir", os.fspath(root), "serve", "--service"]
    if getattr(sys, "frozen", False):
        return [sys.executable, "--nodwyn-cli", *rest]
    return [sys.executable, "-m", "nodwyn.cli", *rest]


def _spawn(root):
    import subprocess
    import threading

    if os.name == "nt":
        flags = subprocess.CREATE_NO_WINDOW | subprocess.CREATE_NEW_PROCESS_GROUP
        detached = {"creationflags": flags}
    else:
        detached = {"process_group": 0}  # in the session, not in the terminal's foreground
    process = subprocess.Popen(
        command(root),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **detached,
    )
    # a long-lived starter (`nodwyn mcp`) reaps it when it ends; a search ends first anyway
    threading.Thread(target=process.wait, name="nodwyn-service-reaper", daemon=True).start()
    return process


class Watch:
    """A service's reasons to end, looked at every CHECK seconds (`why()`: None, or why)."""

    def __init__(self, server, encoding):
        self.server, self.encoding = server, encoding
        self.root = os.fspath(server.store.root)
        sid = os.getsid(0) if hasattr(os, "getsid") else 0
        self.leader = sid if sid > 0 and running.alive(sid) and sid != os.getpid() else 0

    def why(self) -> str | None:
        from .. import settings

        if not os.path.isdir(self.root):
            return "its data directory is gone"
        entry = running._read(self.root)
        if entry is None or entry.get("token") != self.server.token:
            return "another nodwyn serves the data directory now"
        if self.leader and not running.alive(self.leader):
            return "the session it was started in has ended"
        if self.encoding.is_alive():
            return None
        idle = settings.load(self.server.store.root).search_service_idle
        if time.monotonic() - max(self.server.used, self.encoding.ended) > idle:
            return f"unused for {idle} s"
        return None


class Encoding:
    """The background's vectors for a serving process (`nodwyn serve`, the service): every
    task encoded, newest first, the progress in
    `status` (the page's status line, /api/status, `nodwyn status`). `overview`: a page is
    served (`nodwyn serve`, not the service its searches start), whose overview's figures are
    read first (usage.keep)."""

    def __init__(self, store, status, overview: bool = True):
        import threading

        self.store, self.status, self.overview = store, status, overview
        self.ended = time.monotonic()
        self.thread = threading.Thread(target=self._run, name="nodwyn-encoding", daemon=True)

    def start(self) -> "Encoding":
        self.thread.start()
        return self

    def is_alive(self) -> bool:
        return self.thread.is_alive()

    def _run(self) -> None:
        from .. import memory
        from ..usage import figures as usage

        def progress(phase):
            return lambda done, total: self.status.set(phase, done, total)

        try:  # the word index is a search's to bring up to date, as ever: not waited for
            if self.overview:  # the overview's figures read once, not by its first draw
                usage.keep(self.store)
            memory.encode(self.store, progress("encoding"), lock=memory.BUILDING)
        finally:
            self.status.set("")
            self.ended = time.monotonic()
