"""Files written whole or not at all: a temporary file beside the target, renamed over it.

Every derived file (`.imp`, `.mem`, `.heads`, `.vec`, the vector stack, the word index's state,
the catalogue and its folds, settings) is written to a hidden file beside it named
`.<name>.<pid>.<thread>.tmp` and renamed over it, so a reader after any kill sees the last
complete version or the new one, never half of one.

Invariants:
- a temporary file whose write or rename failed is removed before the error goes on;
- one left by a process that died (kill -9, a crash of the machine) is removed by the next
  writer of that folder (`sweep`): its process is gone (POSIX), or it is a day old;
- a write that found no room (ENOSPC, EDQUOT, EIO) raises NotWritten naming the file, the
  one line a person reads; the file it would have replaced is left as it was.
"""

import _thread  # threading's get_ident, without threading's import (a search's start)
import contextlib
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from ..errors import no_room, not_written
from .redact_rules import Lazy

# Every temporary name nodwyn has used: `.x.<pid>.tmp`, `x.<pid>.<thread>.tmp`, `.x.<pid>.new`
# (a log's first line), `.x.<pid>.rewrite` (scrub.py's rewrite of a log).
_LEFT = Lazy(r"\.?.+?\.(\d+)(?:\.\d+)?\.(?:tmp|new|rewrite)")  # compiled when a sweep needs it
OLD = 24 * 3600  # seconds after which a temporary file is taken as left, whoever made it
_swept: set[str] = set()


def name_for(path: Path) -> Path:
    """The temporary file for `path`, one per process and thread."""
    return path.with_name(f".{path.name}.{os.getpid()}.{_thread.get_ident()}.tmp")


def replace(path: Path, data: bytes | Iterable[bytes], what: str | None = None) -> None:
    """Write `data` to `path` whole, by a temporary file renamed over it; NotWritten when the
    disk has no room (nothing left behind, `path` as it was). `what` names it for a person."""
    tmp = name_for(path)
    try:
        with open(tmp, "wb") as handle:
            for chunk in [data] if isinstance(data, bytes | bytearray | memoryview) else data:
                handle.write(chunk)
        os.replace(tmp, path)
    except BaseException as exc:
        _remove(tmp)
        if no_room(exc):
            raise not_written(what or str(path), exc) from None
        raise


def _remove(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def sweep(folder: Path) -> int:
    """Remove the temporary files a dead process left in `folder` (once per process and
    folder: a writer calls it before its first write there); how many were removed."""
    key = os.fspath(folder)
    if key in _swept:
        return 0
    _swept.add(key)
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        found = _LEFT.fullmatch(entry.name)
        if found is None or not _left(int(found.group(1)), entry):
            continue
        try:
            os.unlink(entry.path)
            removed += 1
        except OSError:
            pass  # another writer removed it first, or the folder is read-only
    return removed


def _left(pid: int, entry: os.DirEntry) -> bool:
    """Whether the process that made this temporary file can no longer finish it."""
    try:
        if time.time() - entry.stat(follow_symlinks=False).st_mtime > OLD:
            return True
    except OSError:
        return False
    if sys.platform == "win32" or pid == os.getpid():
        return False  # Windows: os.kill would end the process; ours: a thread may be writing
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # alive, another user's
    return False
