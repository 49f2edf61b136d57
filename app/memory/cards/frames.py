"""How a `.mem`'s frames, and the `.heads` lines written beside them, apply one after another,
and the check of the line a fold ended with against the log (mem.py, heads.py)."""

import zlib

HEADS_MAGIC = b"nodwyn-heads 2\n"  # the first line of a .heads (its format; 2: ADR 0039)


def counts(base: int, end: int, frames: int) -> bool:
    """Whether a frame going on from `base` goes on the frames applied before it (`frames` of
    them, their fold ending at `end`): one with base -1 starts again; one whose base is not
    that end was written by a raced writer, from a fold that is not this one, and is skipped."""
    return base == -1 or (base == end and frames > 0)


def crc_of(handle, start: int, end: int) -> int | None:
    """crc32 of bytes start..end of an open log, or None when the log is shorter."""
    handle.seek(start)
    data = handle.read(end - start)
    return zlib.crc32(data) if len(data) == end - start else None


def holds(handle, start: int, end: int, crc: int) -> bool:
    """Whether the log still has, at start..end, the line whose crc32 is `crc`."""
    if start < 0:
        return end == 0
    return crc_of(handle, start, end) == crc
