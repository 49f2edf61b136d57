"""The head of a hit's turn (its seqs, time, prompt, outcome and duration), as search shows it.

A finished turn's head is its card in the log's `.mem`, read with those fields alone, when the
log still has the line the `.mem`'s fold ended with (its crc32, as mem.checked checks it: a
finished card never changes while the log only grows) and the `.mem` is small (up to
HEADS_FROM_MEM bytes: its decoding costs in proportion to every turn of the log). No log is
stat'ed for it: a search after no change looks at no log (ADR 0013). Otherwise, and for the
turn under way, it is read from the turn's own lines, from its first line's offset (the index
stores it) to the line that ends the turn: only the lines that may end it (message,
session.resume, turn.end) are decoded whole, of the others just kind, seq and time, so the
work is in proportion to the turn. Either way the result equals what cards.feed folds for
those fields (the tests compare them over the real corpus). Reading the turn's lines was 1-6
ms of a new process's search on the corpus x8 (each found turn's bytes, 60 KB on average,
decoded), against 10-50 us per log for its `.mem`. A warm process keeps each head it showed,
keyed by the log's size and mtime as the index saw them, so it reads and redacts a turn once.
"""

import bisect
import os
from pathlib import Path

import msgspec
from msgspec import Struct

from ...log import records
from ...log.redact import redact
from . import mem as memfile
from .fold import Card, Turn
from .fold import card as card_of
from .headline import CLOSING, WORK, head_line, is_live


class Brief(Struct, frozen=True):
    """What of a record says where a turn ends; the rest of its line is skipped unread."""

    kind: str = ""
    seq: int = 0
    at: str = ""


class _Head(Struct, frozen=True):
    """The fields of a card that its head shows (a .mem's card, its other fields skipped)."""

    first_seq: int
    last_seq: int | None = None
    at: str = ""
    asked: str = ""
    outcome: str = ""
    duration_ms: int | None = None


class _Fold(Struct):
    cards: list[_Head] = []
    end: int = 0
    line_start: int = -1
    line_crc: int = 0


class _Frame(Struct):
    base: int
    number: int
    fold: _Fold


_brief = msgspec.json.Decoder(Brief)
_heads_decoder = msgspec.msgpack.Decoder(_Frame)
HEADS_FROM_MEM = 256 << 10  # bytes of a .mem up to which heads are read from it
_finished: dict[tuple, dict[int, _Head]] = {}  # (log, size, mtime) -> first seq -> head
# shown cards by (log, first seq, the log's size and mtime as the index saw them): a warm
# process folds and redacts each turn's head once, not once per search that finds it
_shown: dict[tuple, Card | None] = {}
SHOWN = 4096


def shown_card(handle, log: Path, state, task: str, offset: int, turn: int):
    """The card of a hit's turn as a hit shows it (prompt redacted), or None for an event
    outside any turn; see turn_card."""
    if turn <= 0:
        return None
    seen = state.tasks.get(task)
    key = (log, turn, seen.size, seen.mtime_ns) if seen is not None else None
    if key is not None and key in _shown:
        return _shown[key]
    card = finished_card(handle, log, seen, turn) if seen is not None else None
    if card is None:
        card = turn_card(handle, log, offset, turn)
    if card is not None:
        asked = redact(card.asked)  # the head repeats the start of it
        head = head_line(card.first_seq, card.last_seq, card.outcome, card.duration_ms, asked)
        card = msgspec.structs.replace(card, asked=asked, head=head)
    if key is not None and (card is None or card.last_seq is not None):  # under way: settles
        if len(_shown) >= SHOWN:
            _shown.clear()
        _shown[key] = card
    return card


def finished_card(handle, log: Path, seen, first_seq: int) -> Card | None:
    """The card of a finished turn from the log's `.mem`, with the fields a head shows and
    the others empty, as turn_card gives them; None when it is not to be had so (see the
    module's docstring). `handle`: the log, open."""
    key = (log, seen.size, seen.mtime_ns)
    heads = _finished.get(key)
    if heads is None:
        heads = _finished_heads(handle, memfile.path_of(log))
        if len(_finished) >= SHOWN:
            _finished.clear()
        _finished[key] = heads
    found = heads.get(first_seq)
    if found is None:
        return None
    head = head_line(found.first_seq, found.last_seq, found.outcome, found.duration_ms,
                        found.asked)  # fmt: skip
    return Card(
        first_seq=found.first_seq, last_seq=found.last_seq, at=found.at, head=head,
        asked=found.asked, outcome=found.outcome, duration_ms=found.duration_ms,
        unpriced=False,  # no cost read, as a card folded from the head's lines says it
    )  # fmt: skip


def _finished_heads(handle, file: Path) -> dict[int, _Head]:
    """The heads of the cards of a `.mem` by first seq, its frames applied as mem.load
    applies them (mem.counts); none when it is missing or large, or when the log (`handle`)
    no longer has the line its fold ended with (replaced or cut behind nodwyn's back: as
    mem.checked finds it, by that line's crc32)."""
    try:
        with open(file, "rb") as mem:
            data = mem.read(HEADS_FROM_MEM + 1)
    except OSError:
        return {}
    if len(data) > HEADS_FROM_MEM:
        return {}
    cards: list[_Head] = []
    fold, frames = _Fold(), 0
    for frame in memfile._frames(data, _heads_decoder):
        if not memfile.counts(frame, fold.end, frames):
            continue
        if frame.base == -1:
            cards = []
        cards += frame.fold.cards
        fold, frames = frame.fold, frame.number + 1
    if not cards or not memfile.holds(handle, fold.line_start, fold.end, fold.line_crc):
        return {}
    if not os.path.exists(memfile.heads_path(Path(handle.name))):  # a .mem from before them
        memfile.write_heads(Path(handle.name), _Fold(cards, fold.end, fold.line_start,
                                                     fold.line_crc))  # fmt: skip
    return {card.first_seq: card for card in cards}


def turn_card(handle, log: Path, offset: int, first_seq: int) -> Card | None:
    """The card of the turn whose first line is at `offset`, as far as a hit shows it: its
    seqs, time, prompt, outcome and duration (the rest left empty), the same as cards.feed
    folds them. Work in proportion to the turn: only lines that may end it are decoded whole,
    of the others just kind, seq and time (the whole .mem is not needed)."""
    handle.seek(offset)
    first = _whole(handle.readline())
    if not isinstance(first, records.Message) or first.agent is not None or first.seq != first_seq:
        return memfile_card(log, first_seq)  # the log moved under us
    turn = Turn(first_seq=first.seq, at=first.at, asked=first.text or first.command,
                        last_seq=first.seq, last_at=first.at)  # fmt: skip
    outcome = None  # the log ends inside the turn: under way, unless it has a turn.end
    for line in iter(handle.readline, b""):
        if not line.endswith(b"\n"):
            break  # a writer at work: readers skip a torn last line
        brief = _brief_of(line)
        if brief is None:
            continue
        ended = bool(turn.status)  # the agent's time stops at its turn's end, as in the fold
        if brief.kind in CLOSING:
            record = _whole(line)
            if record is None:
                continue
            if isinstance(record, records.Message) and record.agent is None:
                outcome = "unfinished"
                break
            if isinstance(record, records.SessionResume):
                outcome = "interrupted"
                break
            if isinstance(record, records.TurnEnd):
                turn.status, turn.duration_ms = record.status, record.duration_ms
        if brief.kind in WORK and brief.at and not ended:
            turn.last_at = brief.at
        turn.closed = turn.closed or brief.kind == "session.close"
        turn.last_seq = brief.seq
    if outcome is None and not turn.status and (turn.closed or not is_live(turn.last_at)):
        return memfile_card(log, first_seq)  # settled by what was said in it: the fold's work
    return card_of(turn, outcome)


def _whole(line: bytes) -> records.Event | None:
    line = line.rstrip(b"\n")
    if not line.strip():
        return None
    try:
        return records.decode(line)
    except records.Damaged:
        return None  # skipped, as logfile.read skips it


def _brief_of(line: bytes) -> Brief | None:
    """kind, seq and time of a line, as records.decode would give them; None: no record."""
    if not line.strip():
        return None
    try:
        brief = _brief.decode(line)
    except msgspec.ValidationError:  # not an object, or odd field types: decode it whole
        record = _whole(line)
        if record is None:
            return None
        return Brief(kind=records.kind_of(record), seq=record.seq, at=record.at)
    except msgspec.DecodeError:
        return None
    if not line.isascii():  # the fields skipped unread must be UTF-8 too, or the fold skips it
        try:
            line.decode()
        except UnicodeDecodeError:
            return None
    return brief if brief.seq >= 1 else None


def memfile_card(log: Path, first_seq: int) -> Card | None:
    """The card from the .mem (all of it decoded): when the log is not what the index saw."""
    cards = memfile.cards_of(log)[0]
    at = bisect.bisect_left(cards, first_seq, key=lambda card: card.first_seq)
    return cards[at] if at < len(cards) and cards[at].first_seq == first_seq else None
