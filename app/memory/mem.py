"""`sessions/<id>.mem`: the memory beside one log (cards, episodes, fold state, index mark).

Layout: one msgpack `Mem` document. `fold` holds the cards and episodes up to the end of the
log's last whole turn, with that line's offset and crc32; `mark` says how far the word index
has taken this log (the index's id, the offset after the last indexed line, that line's crc32,
the turn it was in and the calls of that turn, for result headings).

Invariants: derived, revocable, never the only copy of anything. Before folding on, the line a
fold or mark ends with is read back and checked against its crc: a match folds in only what
the log gained; a mismatch (log replaced, truncated, edited) starts again from the log's start.
A missing, damaged or other-format file counts as empty. Written to a temporary file that is
renamed into place, so a reader never sees half a file.
"""

import os
import zlib
from pathlib import Path

import msgspec
from msgspec import Struct

from ..errors import TaskNotFound
from ..log import logfile
from . import cards as cardmod
from .cards import Fold

FORMAT = 1


class Mark(Struct, kw_only=True):
    """How far the word index has taken one log."""

    index: str = ""  # the id of the index these documents went into
    end: int = 0
    line_start: int = -1
    line_crc: int = 0
    seq: int = 0  # the last seq indexed
    turn: int = 0  # first seq of the turn that line was in (0: none)
    calls: dict[str, str] = {}  # call id -> short description, for the turn under way


class Mem(Struct, kw_only=True):
    format: int = FORMAT
    fold: Fold = msgspec.field(default_factory=Fold)
    mark: Mark = msgspec.field(default_factory=Mark)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Mem)


def path_of(log: Path) -> Path:
    return log.with_suffix(".mem")


def load(log: Path) -> Mem:
    """The .mem beside a log, or an empty one when it is missing, damaged or of another format."""
    try:
        mem = _decoder.decode(path_of(log).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return Mem()
    return mem if mem.format == FORMAT else Mem()


def save(log: Path, mem: Mem) -> None:
    file = path_of(log)
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(_encoder.encode(mem))
        os.replace(tmp, file)
    except FileNotFoundError:
        tmp.unlink(missing_ok=True)  # the task was deleted meanwhile: nothing to keep


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


def checked(log: Path, mem: Mem, index_id: str | None) -> Mem:
    """`mem` with its fold and mark reset where the log no longer holds their last line."""
    with open(log, "rb") as handle:
        fold, mark = mem.fold, mem.mark
        if not holds(handle, fold.line_start, fold.end, fold.line_crc):
            fold = Fold()
        fold.cards = fold.cards[:]  # the caller folds on in place
        fold.episodes = fold.episodes[: fold.saved_episodes]
        if index_id is not None and (
            mark.index != index_id or not holds(handle, mark.line_start, mark.end, mark.line_crc)
        ):
            mark = Mark(index=index_id)
    return Mem(fold=fold, mark=mark)


def settle(log: Path, fold: Fold) -> Fold:
    """The savable part of a fold: up to its last whole turn, with that line's crc filled in."""
    if fold.line_crc == -1:
        with open(log, "rb") as handle:
            fold.line_crc = crc_of(handle, fold.line_start, fold.end) or 0
    return Fold(
        cards=fold.cards,
        episodes=fold.episodes[: fold.saved_episodes],
        end=fold.end,
        line_start=fold.line_start,
        line_crc=fold.line_crc,
        saved_episodes=fold.saved_episodes,
    )


def fold_log(log: Path, mem: Mem | None = None) -> tuple[Mem, list, list]:
    """Fold the log on from `mem`: the savable Mem, every card and every episode."""
    mem = checked(log, mem or load(log), None)
    fold = mem.fold
    for start, end, record in logfile.read(log, fold.end):
        cardmod.feed(fold, start, end, record)
    every, episodes = cardmod.finish(fold), list(fold.episodes)
    return Mem(fold=settle(log, fold), mark=mem.mark), every, episodes


_cards: dict[Path, tuple[int, int, list[cardmod.Card], list[cardmod.Episode]]] = {}


def cards_of(log: Path) -> tuple[list[cardmod.Card], list[cardmod.Episode]]:
    """Every card (oldest first) and episode of a log, from its .mem folded on and saved."""
    try:
        stat = log.stat()
    except FileNotFoundError:
        raise TaskNotFound(f"no task {log.stem}") from None
    known = _cards.get(log)
    if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
        return known[2], known[3]
    before = load(log)
    was = (before.fold.end, before.fold.line_crc)
    after, every, episodes = fold_log(log, before)
    if (after.fold.end, after.fold.line_crc) != was:
        save(log, after)
    if len(_cards) > 256:
        _cards.clear()
    _cards[log] = (stat.st_size, stat.st_mtime_ns, every, episodes)
    return every, episodes
