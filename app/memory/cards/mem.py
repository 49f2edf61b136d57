"""`sessions/<id>.mem`: the memory beside one log (cards, episodes, fold state, index mark).

Layout: the line `nodwyn-mem 6\n`, then frames. A frame is
`[u32 length][u32 crc32][msgpack Frame][u32 length][b"MEMF"]` (little-endian): the cards and
episodes the fold gained since the frame before (`base` is the fold's end it goes on from; -1
starts from nothing), the fold's state after them (the end of the log's last whole turn, with
that line's offset and crc32) and the index mark (how far the word index took this log). The
trailer lets a reader that needs only the latest state (the word index, on every refresh)
read the last frame alone.

Why frames: a whole-file rewrite per turn costs work in proportion to every card of the log
(foundations: task memory), so a new turn appends one frame, in proportion to the turn. A fresh
fold (a rebuild) and a compaction of many frames into one are written to a temporary file
renamed into place. Appends are single O_APPEND writes; a frame cut short by a crash, or one
whose crc does not match, ends the file for readers (the frames before it are a consistent,
older state: the fold simply goes on from there). A frame whose base is not where the frames
before it end was written by a process that raced another, and is skipped.

Invariants: derived, revocable, never the only copy of anything. Before folding on, the line a
fold or mark ends with is read back and checked against its crc: a match folds in only what
the log gained; a mismatch (log replaced, truncated, edited) starts again from the log's start.
A missing, damaged or other-format file counts as empty.
"""

import contextlib
import os
import struct
import zlib
from pathlib import Path

import msgspec
from msgspec import Struct

from ...errors import TaskNotFound, no_room, not_written
from ...log import logfile, tmpfiles
from . import frames as frames_rule
from .fold import Card, Episode, Fold, finish
from .fold import feed as feed_card
from .frames import HEADS_MAGIC, crc_of, holds  # noqa: F401 (crc_of, holds: read as mem.X)

MAGIC = b"nodwyn-mem 6\n"  # 3: cards carry tokens, model and unpriced (issue 24); 4: true
# outcomes and durations (ADR 0039); 5: parts, the tokens and cost by quarter hour (#35);
# 6: errors say what failed, each once (#48)
TRAILER = b"MEMF"
COMPACT_AFTER = 64  # frames; then the file is rewritten as one (amortised: 1/64 per turn)
_head = struct.Struct("<II")
_tail = struct.Struct("<I4s")


class Mark(Struct, kw_only=True):
    """How far the word index has taken one log."""

    index: str = ""  # the id of the index these documents went into
    end: int = 0
    line_start: int = -1
    line_crc: int = 0
    seq: int = 0  # the last seq indexed
    turn: int = 0  # first seq of the turn that line was in (0: none)
    turn_at: int = -1  # offset of that turn's first line
    calls: dict[str, str] = {}  # call id -> short description, for the turn under way


class Frame(Struct, kw_only=True):
    base: int  # the fold end this frame goes on from; -1: from nothing
    number: int  # frames since the last one with base -1
    fold: Fold  # cards and episodes gained, and the state after them
    mark: Mark


class Mem(Struct, kw_only=True):
    """A fold (all its cards, or only those gained, as the caller knows) and a mark."""

    fold: Fold = msgspec.field(default_factory=Fold)
    mark: Mark = msgspec.field(default_factory=Mark)
    frames: int = 0  # frames in the file this was read from (0: no file)
    restarted: bool = False  # the fold started again from the log's start (see checked)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Frame)
_encoder_json = msgspec.json.Encoder()


def path_of(log: Path) -> Path:
    return log.with_suffix(".mem")


def heads_path(log: Path) -> Path:
    """`<id>.heads`: the heads of the .mem's cards, for readers without msgspec (quick.py):
    the line HEADS_MAGIC, then one JSON line a frame (_heads_line)."""
    return log.with_suffix(".heads")


def _heads_line(base: int, number: int, fold: Fold) -> bytes:
    """One frame's heads as a JSON line, written beside the frame: [base, number, the fold's
    end, line start, line crc, [[first_seq, last_seq, at, asked, outcome, duration_ms]...]],
    applied by a reader as the frames are (counts) and checked against the log as they are."""
    heads = [(c.first_seq, c.last_seq, c.at, c.asked, c.outcome, c.duration_ms)
             for c in fold.cards]  # fmt: skip
    line = (base, number, fold.end, fold.line_start, fold.line_crc, heads)
    return _encoder_json.encode(line) + b"\n"


def _frame_bytes(frame: Frame) -> bytes:
    payload = _encoder.encode(frame)
    return (
        _head.pack(len(payload), zlib.crc32(payload)) + payload + _tail.pack(len(payload), TRAILER)
    )


def _frames(data: bytes, decoder=_decoder):
    """The whole, sound frames of a .mem's bytes, in order (as `decoder` decodes them: a
    reader may take fewer fields, see heads.py)."""
    if not data.startswith(MAGIC):
        return
    at = len(MAGIC)
    while at + _head.size <= len(data):
        length, crc = _head.unpack_from(data, at)
        payload = data[at + _head.size : at + _head.size + length]
        after = at + _head.size + length
        if len(payload) != length or zlib.crc32(payload) != crc:
            return
        if data[after : after + _tail.size] != _tail.pack(length, TRAILER):
            return
        try:
            yield decoder.decode(payload)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        at = after + _tail.size


def counts(frame, end: int, frames: int) -> bool:
    """frames.counts of a decoded frame."""
    return frames_rule.counts(frame.base, end, frames)


def _apply(mem: Mem, frame: Frame) -> None:
    fold = mem.fold
    if not counts(frame, fold.end, mem.frames):
        return
    if frame.base == -1:
        fold.cards, fold.episodes = [], []
    fold.cards += frame.fold.cards
    fold.episodes += frame.fold.episodes
    fold.end, fold.line_start = frame.fold.end, frame.fold.line_start
    fold.line_crc, fold.last_compact = frame.fold.line_crc, frame.fold.last_compact
    fold.saved_episodes = len(fold.episodes)
    mem.mark = frame.mark
    mem.frames = frame.number + 1


# .mem files this process read or wrote, by path: (size, mtime_ns) then, and their content,
# so a warm process decodes a .mem once and then only the frames it appends itself.
_seen: dict[Path, tuple[tuple[int, int], Mem]] = {}
SEEN = 64


def _stat(file: Path) -> tuple[int, int] | None:
    try:
        found = file.stat()
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns


def _remember(file: Path, mem: Mem) -> None:
    stat = _stat(file)
    if stat is None:
        _seen.pop(file, None)
        return
    if len(_seen) >= SEEN:
        _seen.clear()
    _seen[file] = (stat, mem)


def forget(log: Path) -> None:
    """Drop what this process keeps of a log's .mem (a writer that will not read it again, so
    its cards are not held in memory for nothing)."""
    _seen.pop(path_of(log), None)


def _copy(mem: Mem) -> Mem:
    fold = msgspec.structs.replace(mem.fold, cards=list(mem.fold.cards),
                                   episodes=list(mem.fold.episodes))  # fmt: skip
    return msgspec.structs.replace(mem, fold=fold)


def load(log: Path) -> Mem:
    """Every card and episode of the .mem beside a log, and its latest state (empty when the
    file is missing, damaged or of another format)."""
    file = path_of(log)
    known = _seen.get(file)
    if known is not None and known[0] == _stat(file):
        return _copy(known[1])
    mem = Mem()
    try:
        data = file.read_bytes()
    except OSError:
        return mem
    for frame in _frames(data):
        _apply(mem, frame)
    _remember(file, _copy(mem))
    return mem


def load_state(log: Path) -> Mem:
    """The latest state alone (no cards or episodes), read from the last frame when it is
    sound; else from all frames."""
    try:
        with open(path_of(log), "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size >= len(MAGIC) + _head.size + _tail.size:
                handle.seek(size - _tail.size)
                length, trailer = _tail.unpack(handle.read(_tail.size))
                start = size - _tail.size - length - _head.size
                if trailer == TRAILER and start >= len(MAGIC):
                    handle.seek(start)
                    frame = next(_frames(MAGIC + handle.read(size - start)), None)
                    if frame is not None:
                        return _state_of(frame)
    except OSError:
        return Mem()
    mem = load(log)
    mem.fold.cards, mem.fold.episodes = [], []
    return mem


def _state_of(frame: Frame) -> Mem:
    fold = frame.fold
    state = Fold(end=fold.end, line_start=fold.line_start, line_crc=fold.line_crc,
                 last_compact=fold.last_compact, native=fold.native)  # fmt: skip
    return Mem(fold=state, mark=frame.mark, frames=frame.number + 1)


def write(log: Path, mem: Mem) -> None:
    """A .mem of one frame holding all of `mem` (all its cards), renamed into place."""
    file = path_of(log)
    frame = Frame(base=-1, number=0, fold=mem.fold, mark=mem.mark)
    try:  # the .heads before the .mem: a reader checks it against the log
        tmpfiles.replace(heads_path(log), HEADS_MAGIC + _heads_line(-1, 0, mem.fold))
        tmpfiles.replace(file, MAGIC + _frame_bytes(frame))
    except FileNotFoundError:
        return  # the task was deleted meanwhile: nothing to keep (tmpfiles left nothing)
    whole = Mem(fold=mem.fold, mark=mem.mark, frames=1)
    _remember(file, _copy(whole))


def append(log: Path, base: Mem, gained: Mem) -> None:
    """Record what a fold gained on from `base` (a state read from this file): one frame
    appended, or the file written anew when there is none yet, the fold started again, or
    there are many frames, or a kill cut its last frame (made anew from the whole ones)."""
    torn = base.frames and not _ends(path_of(log), _tail.size, _is_tail)
    if base.frames == 0 or gained.restarted or base.frames >= COMPACT_AFTER or torn:
        if base.frames and not gained.restarted:
            whole = load(log)  # compaction: every frame read back, written as one
            if whole.fold.end == base.fold.end:
                whole.fold.cards += gained.fold.cards
                whole.fold.episodes += gained.fold.episodes
                gained = Mem(fold=_merged(whole.fold, gained.fold), mark=gained.mark)
            else:
                gained = Mem(fold=Fold(), mark=Mark())  # raced: start over next time
        write(log, gained)
        return
    frame = Frame(base=base.fold.end, number=base.frames, fold=gained.fold, mark=gained.mark)
    file = path_of(log)
    known, before = _seen.pop(file, None), _stat(file)
    if not _append_whole(file, _frame_bytes(frame)):
        return
    _append_heads(log, frame)
    if known is not None and known[0] == before:  # what we knew plus this frame
        _apply(known[1], frame)
        _remember(file, known[1])


def _append_heads(log: Path, frame: Frame) -> None:
    """The frame's heads appended to the log's .heads (one write, as the frame's); a .mem
    from before .heads files has its heads written whole first (write_heads), one a kill cut
    in a line is made anew from the .mem."""
    if not _ends(heads_path(log), 1, lambda end: end == b"\n"):
        with contextlib.suppress(FileNotFoundError):
            tmpfiles.replace(heads_path(log), HEADS_MAGIC + _heads_line(-1, 0, load(log).fold))
        return
    if not _append_whole(heads_path(log), _heads_line(frame.base, frame.number, frame.fold)):
        write_heads(log, load(log).fold)


def _ends(file: Path, size: int, whole) -> bool:
    """Whether the file's last `size` bytes pass `whole` (a missing file does: nothing to
    cut), so nothing is appended after what a killed append left half-written."""
    try:
        with open(file, "rb") as handle:
            if handle.seek(0, os.SEEK_END) < size:
                return False
            handle.seek(-size, os.SEEK_END)
            return whole(handle.read(size))
    except FileNotFoundError:
        return True


def _is_tail(end: bytes) -> bool:
    return _tail.unpack(end)[1] == TRAILER


def _append_whole(file: Path, data: bytes) -> bool:
    """Append `data` whole, or cut the file back to where it was (a full disk can take part
    of a write and say nothing): a reader never meets half a frame this process wrote. False
    when the file is not there."""
    try:
        fd = os.open(file, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return False
    try:
        size = os.fstat(fd).st_size
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        if no_room(exc):
            raise not_written(file.name, exc) from None
        raise
    finally:
        os.close(fd)
    return True


def write_heads(log: Path, fold) -> None:
    """A log's .heads made from a whole fold (its cards, end and last line) where there is
    none; created exclusively and written in one append, so a writer appending meanwhile
    either made it first (this one gives way) or appends after (its line is then skipped by
    counts, and a reader finds the heads up to this fold)."""
    if not fold.cards:
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(heads_path(log), flags, 0o644)
    except OSError:  # made meanwhile, or the folder is gone
        return
    try:
        os.write(fd, HEADS_MAGIC + _heads_line(-1, 0, fold))
    finally:
        os.close(fd)


def _merged(whole: Fold, gained: Fold) -> Fold:
    return Fold(
        cards=whole.cards, episodes=whole.episodes, end=gained.end,
        line_start=gained.line_start, line_crc=gained.line_crc,
        saved_episodes=len(whole.episodes), last_compact=gained.last_compact,
        native=gained.native,
    )  # fmt: skip


def checked(log: Path, mem: Mem, index_id: str | None) -> Mem:
    """A copy of `mem` to fold on from, with its fold (and, given an index id, its mark)
    started again where the log no longer holds their last line."""
    restarted = False
    with open(log, "rb") as handle:
        fold, mark = mem.fold, mem.mark
        if holds(handle, fold.line_start, fold.end, fold.line_crc):
            fold = msgspec.structs.replace(
                fold, cards=list(fold.cards), episodes=fold.episodes[: fold.saved_episodes]
            )
        else:
            fold, restarted = Fold(), True
        if index_id is not None and (
            mark.index != index_id or not holds(handle, mark.line_start, mark.end, mark.line_crc)
        ):
            mark = Mark(index=index_id)
    mark = msgspec.structs.replace(mark, calls=dict(mark.calls))
    return Mem(fold=fold, mark=mark, frames=mem.frames, restarted=restarted)


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
        last_compact=fold.last_compact,
        native=fold.native,
    )


def fold_log(log: Path, mem: Mem | None = None) -> tuple[Mem, list, list]:
    """Fold the log on from `mem` (a whole .mem, or Mem() for the whole log in memory):
    the savable Mem, every card and every episode."""
    mem = checked(log, mem if mem is not None else load(log), None)
    fold = mem.fold
    for start, end, record in logfile.read(log, fold.end):
        feed_card(fold, start, end, record)
    every, episodes = finish(fold), list(fold.episodes)
    saved = Mem(fold=settle(log, fold), mark=mem.mark, frames=mem.frames, restarted=mem.restarted)
    return saved, every, episodes


_cards: dict[Path, tuple[tuple, list[Card], list[Episode]]] = {}


def cards_of(log: Path) -> tuple[list[Card], list[Episode]]:
    """Every card (oldest first) and episode of a log, from its .mem folded on and saved."""
    try:
        stat = log.stat()
    except FileNotFoundError:
        raise TaskNotFound(f"no task {log.stem}") from None
    known = _cards.get(log)
    if known is not None and known[0] == (stat.st_size, stat.st_mtime_ns):
        return known[1], known[2]
    before = load(log)
    start = len(before.fold.cards), len(before.fold.episodes)
    after, every, episodes = fold_log(log, before)
    if after.restarted or not before.frames:
        write(log, after)
    elif after.fold.end != before.fold.end:
        gained = msgspec.structs.replace(
            after.fold,
            cards=after.fold.cards[start[0] :],
            episodes=after.fold.episodes[start[1] :],
        )
        append(log, before, Mem(fold=gained, mark=before.mark))
    if len(_cards) > 256:
        _cards.clear()
    if not every or every[-1].last_seq is not None:  # under way: it settles as time passes
        _cards[log] = ((stat.st_size, stat.st_mtime_ns), every, episodes)
    return every, episodes
