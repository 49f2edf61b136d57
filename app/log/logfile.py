"""One task's log on disk, `sessions/<id>.jsonl`, read: its records forward and back, the
last one, and a record by its seq. Appending is writer.py's.

Invariants:
- A record is whole when its line is ended by a newline. A torn last line (a writer killed
  mid-line, or a write cut short by a full disk) is skipped and reported by readers (the
  next writer cuts it off, writer.py).
- `<id>.idx` (offsets of each seq's line) is derived: checked on use, extended or rebuilt.
"""

import array
import os
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ..errors import TaskNotFound
from . import records
from .records import Event

CHUNK = 1 << 20
TORN = "torn last line (a writer stopped mid-line)"


class Problem(msgspec.Struct, frozen=True):
    """A line readers skipped, and why."""

    offset: int
    reason: str


def _open(path: Path):
    try:
        return open(path, "rb")  # noqa: SIM115 (the caller's `with` closes it)
    except FileNotFoundError:
        raise TaskNotFound(f"no log at {path}") from None


def lines(path: Path, start: int = 0) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, line, ended) of each line from byte `start`, without its newline; only the
    last line can be unended (ended False: a writer stopped mid-line, or has not ended it)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        offset, pending = start, []  # the pieces of a line not yet ended (joined once)
        while chunk := handle.read(CHUNK):
            if b"\n" not in chunk:
                pending.append(chunk)  # a long line: no copy per chunk
                continue
            parts = chunk.split(b"\n")
            if pending:
                parts[0] = b"".join([*pending, parts[0]])
            tail = parts.pop()
            pending = [tail] if tail else []
            for line in parts:
                yield offset, line, True
                offset += len(line) + 1
    if pending:
        yield offset, b"".join(pending), False


def read(
    path: Path, start: int = 0, problems: list[Problem] | None = None
) -> Iterator[tuple[int, int, Event]]:
    """Records from byte `start` on, as (offset, end, record); damaged lines go to `problems`."""
    if not path.exists():
        raise TaskNotFound(f"no log at {path}")
    for offset, line, ended in lines(path, start):
        if not ended:
            if problems is not None:
                problems.append(Problem(offset, TORN))
            break
        record = _decode(line, offset, problems)
        if record is not None:
            yield offset, offset + len(line) + 1, record


def read_back(path: Path, problems: list[Problem] | None = None) -> Iterator[tuple[int, Event]]:
    """Records from the end towards the start, as (offset, record)."""
    with _open(path) as handle:
        pos = handle.seek(0, os.SEEK_END)
        carry: list[bytes] = []  # the end of a line whose start lies before `pos`, reversed
        trailer = True  # the first part met is what follows the last newline
        while pos > 0:
            step = min(CHUNK, pos)
            pos -= step
            handle.seek(pos)
            block = handle.read(step)
            if pos > 0 and b"\n" not in block:
                carry.append(block)  # inside a long line: joined once, when its start is met
                continue
            parts = b"".join([block, *reversed(carry)]).split(b"\n")
            carry = []
            base = pos
            if pos > 0:
                carry = [parts.pop(0)]
                base += len(carry[0]) + 1
            starts = []
            for part in parts:
                starts.append(base)
                base += len(part) + 1
            for part, offset in zip(reversed(parts), reversed(starts), strict=True):
                if trailer:
                    trailer = False
                    if part and problems is not None:
                        problems.append(Problem(offset, TORN))
                    continue
                record = _decode(part, offset, problems)
                if record is not None:
                    yield offset, record


def _decode(line: bytes, offset: int, problems: list[Problem] | None) -> Event | None:
    if not line.strip():
        return None
    try:
        return records.decode(line)
    except records.Damaged as exc:
        if problems is not None:
            problems.append(Problem(offset, str(exc)))
        return None


def last_record(path: Path) -> tuple[int, Event] | None:
    """The last whole record of a log and its offset, or None for a log with none."""
    for found in read_back(path):
        return found
    return None


def seq_index_path(path: Path) -> Path:
    return path.with_suffix(".idx")


def offsets(path: Path) -> array.array:
    """Offsets of each seq's line (seq n at index n-1), from the derived `.idx`, made current.
    An array of machine integers: a log of a million records costs one read, not a million
    Python ints."""
    idx = seq_index_path(path)
    known = array.array("Q")
    try:
        raw = idx.read_bytes()
        if len(raw) % 8 == 0:
            known.frombytes(raw)
    except FileNotFoundError:
        pass
    start = 0
    if known:
        start = _end_of_seq(path, known[-1], len(known))
        if start is None:
            known, start = array.array("Q"), 0
    fresh = not known
    added = array.array("Q")
    for offset, _end, record in read(path, start):
        if record.seq != len(known) + len(added) + 1:
            continue  # a line out of order is not a seq of this log
        added.append(offset)
    if added or not idx.exists() or fresh:
        try:
            with open(idx, "wb" if fresh else "ab") as handle:
                handle.write(added.tobytes())
        except OSError:
            pass  # no room, or read-only: the offsets serve from memory; a torn .idx is redone
    known.extend(added)
    return known


def _end_of_seq(path: Path, offset: int, seq: int) -> int | None:
    """Where the line of `seq` at `offset` ends, or None if it is not there (index is stale)."""
    with open(path, "rb") as handle:
        if offset >= os.fstat(handle.fileno()).st_size:
            return None
        handle.seek(offset)
        line = handle.readline()
    if not line.endswith(b"\n"):
        return None
    try:
        record = records.decode(line[:-1])
    except records.Damaged:
        return None
    return offset + len(line) if record.seq == seq else None


def by_seq(path: Path, seq: int) -> Event:
    """The record with that seq, found through the offset index."""
    table = offsets(path)
    if not 1 <= seq <= len(table):
        raise TaskNotFound(f"no record {seq} in {path.stem} (it has {len(table)})")
    with open(path, "rb") as handle:
        handle.seek(table[seq - 1])
        return records.decode(handle.readline().rstrip(b"\n"))
