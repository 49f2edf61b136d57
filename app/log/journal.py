"""The change journal: `<data>/journal`, where every writer of a data directory notes the task
whose log it changed, so a reader (the word index) looks at those logs only, not at every log.

Format: a first line `nodwyn-journal 1 <generation>` (16 random hex digits, new whenever the
journal is started anew), then one line per change: the task's id. A line is one `write` to a
file opened for appending, so notes of several processes never interleave; a reader takes only
lines ended by a newline, so a note being written is read at the next look.

Invariants:
- A note is written after the change it tells of (the log's bytes, or its removal), and the
  journal is opened for each note, never kept open: a reader that has read a note finds the
  change, and one that has not yet will read the note later.
- A reader remembers (generation, offset). A journal of another generation (started anew, or
  removed) or holding a line that is not a task id (a torn note after a crash of the machine)
  means "anything may have changed": the reader checks every log once, then goes on from there.
- Bounded: a note that takes the journal past LIMIT bytes starts it anew (a new generation),
  which costs every reader one full check. Notes written meanwhile into the old file are lost
  with it, but their changes were made before the new generation began, so the full check
  that any reader makes on meeting it finds them.
- The journal is a hint, derived like everything but the logs: losing it costs a full check.
"""

import os
import re

NAME = "journal"
MAGIC = b"nodwyn-journal 1 "
LIMIT = 1 << 20  # about 35,000 notes
# A reader checks every log at least this often, notes or none: a log changed behind nodwyn's
# back (by hand, by a program that notes nothing) is seen within it.
FULL_EVERY_NS = 10 * 60 * 1_000_000_000
_HEAD = len(MAGIC) + 16 + 1
_TASK = re.compile(rb"[A-Za-z0-9][A-Za-z0-9_\-]{0,127}")
_BINARY = getattr(os, "O_BINARY", 0)


def path_of(root: os.PathLike) -> os.PathLike:
    return root / NAME


def note(root: os.PathLike, task: str) -> None:
    """Say that `task`'s log changed (call it after the change is on disk)."""
    file = path_of(root)
    line = task.encode() + b"\n"
    try:
        fd = os.open(file, os.O_WRONLY | os.O_APPEND | _BINARY)
    except FileNotFoundError:
        start(file)
        return  # a new generation: every reader checks every log, this one's too
    except OSError:
        return  # an unwritable journal: readers fall back on their periodic full check
    try:
        os.write(fd, line)
        end = os.lseek(fd, 0, os.SEEK_CUR)
    finally:
        os.close(fd)
    if end > LIMIT:
        start(file)


def start(file: os.PathLike) -> None:
    """Begin a new generation (an empty journal with a new first line)."""
    tmp = file.with_name(f".{NAME}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(MAGIC + os.urandom(8).hex().encode() + b"\n")
        os.replace(tmp, file)
    except OSError:  # Windows: another process has the journal open; the next note tries
        tmp.unlink(missing_ok=True)


def quiet(root: str, generation: str, offset: int) -> bool:
    """Whether nothing was noted after `offset` in the journal of `generation` (as `since`
    finds no task and no reason to check every log): for a reader without pathlib."""
    try:
        with open(os.path.join(root, NAME), "rb") as handle:
            head = handle.read(_HEAD)
            if head != MAGIC + generation.encode() + b"\n" or offset < _HEAD:
                return False
            handle.seek(offset)
            return b"\n" not in handle.read()
    except OSError:
        return False


def stamp(root: os.PathLike) -> tuple[int, int, int] | None:
    """What changes whenever a note is added or a generation begins (one stat)."""
    try:
        found = os.stat(path_of(root))
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def since(root: os.PathLike, generation: str, offset: int) -> tuple[str, int, set[str] | None]:
    """(generation, end, tasks noted after `offset`) of the journal now; tasks is None when
    the reader must check every log: the journal is missing (it is started then), of another
    generation than `generation`, or holds a line that is not a task's id."""
    if not path_of(root).exists():
        start(path_of(root))
    try:
        with open(path_of(root), "rb") as handle:
            head = handle.read(_HEAD)
            if len(head) != _HEAD or not head.startswith(MAGIC) or head[-1:] != b"\n":
                return "", 0, None
            current = head[len(MAGIC) : -1].decode("ascii", "replace")
            trusted = current == generation and offset >= _HEAD
            handle.seek(offset if trusted else _HEAD)
            tail = handle.read()
    except OSError:
        return "", 0, None
    whole = tail.rfind(b"\n") + 1  # a note being written is read next time
    if not trusted:  # every log is to be looked at: so every note so far is taken in
        return current, _HEAD + whole, None
    tasks = set()
    for line in tail[:whole].splitlines():
        if not _TASK.fullmatch(line):
            return current, offset + whole, None
        tasks.add(line.decode("ascii"))
    return current, offset + whole, tasks
