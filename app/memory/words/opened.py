"""The word index opened for reading: once a process, and closed once unused for a while in
a process that lives on (`close_when_unused`); read from a copy in the temporary folder where
the data folder is read-only (`ASIDE`). index.py opens its index here."""

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from . import tokens

if TYPE_CHECKING:  # tantivy is imported where an index is opened, not by a process's start
    import tantivy

KEEP_OPEN = 60.0  # seconds an index stays open after its last use, where close_when_unused
_open: dict[tuple[Path, str], "tantivy.Index"] = {}
_used = 0.0  # time.monotonic() of the last open_index
_closer: "_Closer | None" = None


def index(path: Path, key: tuple, schema: "tantivy.Schema") -> "tantivy.Index":
    """The index in `path` (`key`: its data folder and id), opened once per process and kept,
    or until unused for a while where `close_when_unused` was called."""
    global _used
    _used = time.monotonic()
    found = _open.get(key)
    if found is None:
        found = _opened(path, schema)
        for name, analyzer in tokens.analyzers():
            found.register_tokenizer(name, analyzer)
        _open[key] = found
        if _closer is not None:
            _closer.wake()
    return found


def reload(key: tuple) -> None:
    """Make this process's reader of the index `key` see the last commit now, where it holds
    that index open: another process (the app's index process) committed to it."""
    found = _open.get(key)
    if found is not None:
        found.reload()


ASIDE: dict[Path, str] = {}  # index folders read from a copy: a read-only data folder (said)


def _opened(path: Path, schema: "tantivy.Schema") -> "tantivy.Index":
    """The index in `path`. tantivy creates its lock files even to read, which a read-only
    data folder refuses: then it is read from a copy in the temporary folder (removed by the
    next such reading once this process has ended), and `ASIDE` says so."""
    import tantivy

    try:
        return tantivy.Index(schema, path=str(path), reuse=True)
    except ValueError as exc:
        if "Lockfile" not in str(exc):
            raise
    import shutil
    import tempfile

    temp = Path(tempfile.gettempdir())
    for left in temp.glob("nodwyn-index-*-*"):  # a process ends at once, without atexit
        if _left_by_the_dead(left):
            shutil.rmtree(left, ignore_errors=True)
    aside = tempfile.mkdtemp(prefix=f"nodwyn-index-{os.getpid()}-")
    shutil.copytree(path, aside, dirs_exist_ok=True)
    ASIDE[path] = aside
    return tantivy.Index(schema, path=aside, reuse=True)


def _left_by_the_dead(left: Path) -> bool:
    """Whether a copy of the index was left by a process that has ended (on Windows, where
    os.kill would end the process, by its age: a day)."""
    pid = left.name.split("-")[2]
    if os.name == "nt" or not pid.isdigit():
        return time.time() - left.stat().st_mtime > 86400
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # another user's process
    return False


def close_when_unused(seconds: float = KEEP_OPEN) -> None:
    """In a process that lives on (the app, `nodwyn serve`, `nodwyn mcp`), close the indexes
    once none was opened for `seconds`: an open tantivy index keeps a thread that looks at its
    `meta.json` twice a second, the last thing that woke the app at rest. The next search
    opens it again (under a millisecond once the process has opened it before; ADR 0028)."""
    global _closer
    if _closer is None:
        _closer = _Closer(seconds)


class _Closer:
    def __init__(self, seconds: float):
        import threading  # here: a search's start-up needs none of it

        self.seconds = seconds
        self.woken = threading.Condition()
        threading.Thread(target=self._run, name="nodwyn-index-closer", daemon=True).start()

    def wake(self) -> None:
        with self.woken:
            self.woken.notify()

    def _run(self) -> None:
        while True:
            with self.woken:
                if not _open:
                    self.woken.wait()  # until an index is opened
                    continue
                left = _used + self.seconds - time.monotonic()
                if left > 0:
                    self.woken.wait(left)
                    continue
                _open.clear()  # a search holding one goes on with it; the next opens anew
