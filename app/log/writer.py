"""Appending to a task's log (`sessions/<id>.jsonl`), and the one rewrite of it.

Invariants:
- No byte of a log is ever removed or rewritten. Appending is the only write, with one
  exception: `rewrite()`, which scrub.py calls once when the redaction rules change, to take
  out secrets that older rules let through (ADR 0016). It holds the
  writer's lock, keeps every line (and so every seq) where it was, and swaps the whole file
  at once (a temporary file renamed over the log).
- Only a `Writer` appends, and it holds the log's exclusive lock (locks.py) while it lives;
  a second writer, in this process or another, is refused at once (TaskBusy), never waited for.
- A torn last line (a writer killed mid-line, or a write cut short by a full disk) is cut off
  by the next writer before it appends anything: the cut bytes are added to `<id>.torn`
  beside the log first (one line each), then the log is truncated to its last whole record,
  so a log never keeps a torn record and nothing that was whole is lost (ADR 0034). A write
  that fails in this process (no room) is cut back at once, the same way, less the keeping:
  its bytes were never a record.
- A new log appears whole with its first record or not at all (written aside, then linked).
"""

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import msgspec

from ..errors import NotALog, TaskBusy, TaskNotFound, no_room, not_written
from . import faults, journal, locks, logfile, records, tmpfiles
from .logfile import last_record
from .records import Known
from .redact import redact


class Writer:
    """The one appender of a log, holding its exclusive lock until `close()`. Given `root`
    (its data directory), each write is noted in that directory's change journal."""

    def __init__(
        self, path: Path, start: records.SessionStart | None = None, root: Path | None = None
    ):
        self.path = path
        self.root = root
        self.started: records.Event | None = None  # a new log's first record, as written
        self.last_line = 0  # bytes of the last line this writer wrote, its newline with it
        self.lengths: list[int] = []  # bytes of each line the last append wrote, newlines too
        if start is not None:
            self.started, self.last_line = _create(path, start)
            if root is not None:
                journal.note(root, path.stem)  # a log of one line is a change too
        flags = os.O_RDWR | os.O_APPEND | getattr(os, "O_BINARY", 0)
        try:
            self.fd = os.open(path, flags, 0o600)
        except FileNotFoundError:
            raise TaskNotFound(f"no task {path.stem}") from None
        except FileExistsError:
            raise TaskBusy(f"task {path.stem} exists already") from None
        try:
            locks.lock(self.fd)
        except OSError:
            os.close(self.fd)
            self.fd = -1
            raise TaskBusy(f"task {path.stem} is open in another process") from None
        if _replaced(self.fd, path):  # rewrite() swapped the file between open and lock
            os.close(self.fd)
            self.fd = -1
            self.__init__(path, root=root)
            return
        self.size = os.fstat(self.fd).st_size
        self.last_seq = 0
        self._find_end()

    @staticmethod
    @contextlib.contextmanager
    def locked(path: Path) -> Iterator[int]:
        """The log open at a descriptor, holding its writer's lock (TaskBusy if another holds
        it), without ending a torn last line."""
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            raise TaskNotFound(f"no task {path.stem}") from None
        try:
            locks.lock(fd)
        except OSError:
            os.close(fd)
            raise TaskBusy(f"task {path.stem} is open in another process") from None
        try:
            yield fd
        finally:
            with contextlib.suppress(OSError):
                locks.unlock(fd)
                os.close(fd)

    def _find_end(self) -> None:
        found = last_record(self.path)
        if found is None and self.size:
            self.close()
            raise NotALog(f"{self.path} holds no record")
        if found is not None:
            self.last_seq = found[1].seq
        end = _whole_end(self.fd, self.size)
        if end < self.size:
            try:
                self._cut_torn(end)
            except BaseException:
                self.close()
                raise
        tmpfiles.sweep(self.path.parent)  # the next writer of the folder: what a crash left

    def _cut_torn(self, end: int) -> None:
        """Keep the torn bytes after `end` in `<id>.torn`, then cut the log back to `end`."""
        os.lseek(self.fd, end, os.SEEK_SET)
        torn = os.read(self.fd, self.size - end)
        keep = torn_path(self.path)
        try:
            if not _ends_with(keep, torn + b"\n"):  # a cut stopped after keeping: kept once
                with open(keep, "ab") as handle:
                    handle.write(torn + b"\n")
                    handle.flush()
                    os.fsync(handle.fileno())
            os.ftruncate(self.fd, end)
        except OSError as exc:
            if no_room(exc):
                raise not_written(f"the torn end of {self.path.name} aside", exc) from None
            raise
        self.size = end

    def append(self, items: Iterable[Known]) -> list[Known]:
        """Append records, numbering them and stamping `at` where it is empty; redacted first.
        Returns the records as written (a redacted one as its line reads back)."""
        written, lines = [], []
        for record in items:
            self.last_seq += 1
            record = msgspec.structs.replace(
                record, seq=self.last_seq, at=record.at or records.now()
            )
            encoded = records.encode(record)
            line = redact(encoded.decode()).encode()
            lines.append(line)
            written.append(record if line == encoded else records.decode(line))
        if lines:
            self._write(b"\n".join(lines) + b"\n")
            self.last_line = len(lines[-1]) + 1
        self.lengths = [len(line) + 1 for line in lines]
        return written

    def _write(self, data: bytes) -> None:
        faults.point()  # test hook: stopped before this write, or in its middle
        faults.point(lambda: os.write(self.fd, data[: max(1, len(data) // 2)]))
        try:
            _write_all(self.fd, data)
        except OSError as exc:
            self._cut_back()
            if no_room(exc):
                raise not_written(f"task {self.path.stem}'s log", exc) from None
            raise
        self.size += len(data)
        if self.root is not None:
            journal.note(self.root, self.path.stem)

    def _cut_back(self) -> None:
        """Take off what a failed write left of its bytes (the next writer would, else)."""
        with contextlib.suppress(OSError):  # the disk failed again: the next writer cuts it
            os.ftruncate(self.fd, self.size)

    def sync(self) -> None:
        os.fsync(self.fd)

    def close(self) -> None:
        if self.fd >= 0:
            locks.unlock(self.fd)
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "fd", -1) >= 0:
            self.close()


def torn_path(path: Path) -> Path:
    """Where the torn ends cut from a log are kept, one line each."""
    return path.with_suffix(".torn")


def _write_all(fd: int, data: bytes) -> None:
    """All of `data`, however many writes it takes (a full disk can take part of one)."""
    view = memoryview(data)
    while view:
        done = os.write(fd, view)
        view = view[done:]


def _whole_end(fd: int, size: int) -> int:
    """Where the log's last whole line ends: after its last newline (0 if it has none)."""
    pos = size
    while pos > 0:
        step = min(logfile.CHUNK, pos)
        os.lseek(fd, pos - step, os.SEEK_SET)
        block = os.read(fd, step)
        at = block.rfind(b"\n")
        if at >= 0:
            return pos - step + at + 1
        pos -= step
    return 0


def _ends_with(file: Path, data: bytes) -> bool:
    try:
        with open(file, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size < len(data):
                return False
            handle.seek(size - len(data))
            return handle.read() == data
    except FileNotFoundError:
        return False


def _create(path: Path, start: records.SessionStart) -> tuple[records.Event, int]:
    """A new log appears whole with its first line, or not at all: the line is written to a
    hidden file beside it, which is then linked to the log's name (refused if it exists).
    Returns the record as written and its line's length."""
    record = msgspec.structs.replace(start, seq=1, at=start.at or records.now())
    encoded = records.encode(record)
    line = redact(encoded.decode()).encode() + b"\n"
    if line[:-1] != encoded:
        record = records.decode(line[:-1])
    tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
    try:
        faults.point()  # test hook: stopped before the first line, or in its middle
        faults.point(lambda: os.write(fd, line[: len(line) // 2]))
        _write_all(fd, line)
        os.close(fd)
        fd = -1
        faults.point()  # ... written aside, not yet the log
        os.link(tmp, path)
    except FileExistsError:
        raise TaskBusy(f"task {path.stem} exists already") from None
    except FileNotFoundError:
        raise TaskNotFound(f"no folder for task {path.stem}") from None
    except OSError as exc:
        if no_room(exc):
            raise not_written(f"task {path.stem}'s new log", exc) from None
        raise
    finally:
        if fd >= 0:
            os.close(fd)
        tmp.unlink(missing_ok=True)
    return record, len(line)


def _replaced(fd: int, path: Path) -> bool:
    """Whether `path` names another file than the one open at `fd` (rewrite() swapped it)."""
    try:
        return not os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def rewrite(path: Path, change: Callable[[bytes], bytes]) -> int:
    """Give each line of the log `change(line)` (without its newline), under the writer's lock,
    by a temporary file renamed over the log; the lines changed (0: the log is left as is).
    `change` must keep a line a line (no newline in what it gives back)."""
    with Writer.locked(path) as fd:
        with open(fd, "rb", closefd=False) as handle:
            handle.seek(0)
            data = handle.read()
        lines = data.split(b"\n")
        changed = [change(line) for line in lines]
        count = sum(1 for old, new in zip(lines, changed, strict=True) if old != new)
        if not count:
            return 0
        tmp = path.with_name(f".{path.name}.{os.getpid()}.rewrite")
        try:
            with open(tmp, "wb") as handle:
                handle.write(b"\n".join(changed))
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, 0o600)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            if no_room(exc):
                raise not_written(f"task {path.stem}'s scrubbed log", exc) from None
            raise
        if sys.platform == "win32":  # an open file cannot be replaced there: let go of it first
            locks.unlock(fd)
            os.close(fd)
        try:
            os.replace(tmp, path)
        except PermissionError:  # Windows: another process opened the log meanwhile
            tmp.unlink(missing_ok=True)
            raise TaskBusy(f"task {path.stem} is open in another process") from None
        _sync_folder(path.parent)
    return count


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX; Windows has no directory handles to sync)."""
    if sys.platform == "win32":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
