"""`sessions/<id>.vec`: a vector for each turn's card and each compaction note of one log.

Layout: one msgpack `Vec` document: the encoder's id, the log length it has seen (`end`) with
the crc32 of the 64 bytes before it, and one `Entry` per text (kind "card" or "note", its seq,
the turn it belongs to, the crc32 of the text encoded) with the vectors as float16 rows.

A card's text is what the turn came to: the name of the task's folder (the last part of its
path), the prompt (first ASKED characters), the start of the answer, the names of the files
written, the commands run and the errors met (tools/eval_search.py: the folder and the errors
took `both` on action questions from MRR@5 0.923 to 0.973; ADR 0010). A note's turn is the turn the
compaction happened in (0 - seq when it happened outside any turn, as the word index does).

Invariants: derived and revocable like `.mem` (deleted with the task, since the store removes
`<id>.*`); folded on incrementally: only texts whose crc changed (new turns, the turn under way)
are encoded again, so a fold and a full rebuild give the same vectors; a change of encoder or
format, or a damaged file, starts again. Written to a temporary file that is renamed into place.
Folding works on the rows' bytes (the model's process turns them into float16,
model_process.py), so the process that keeps the .vec files up to date needs no numpy.
The stack of all of them (stack.py, saved_stack.py) is derived from the .vec files in turn;
encoding.py brings every task's .vec up to date.
"""

import bisect
import contextlib
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from msgspec import Struct

from ...errors import TaskNotFound
from ...log import tmpfiles
from .models import half_rows
from .saved_stack import (  # noqa: F401 (read as vectors.X)
    STACK_MAGIC,
    Rows,
    StackEntry,
    StackHeader,
    drop_stale_stack,
    load_stack,
    save_stack,
    stack_path,
)

if TYPE_CHECKING:  # numpy is imported by a search: folding and saving rows work on bytes
    import numpy as np

FORMAT = 1
ASKED = 600  # characters of the prompt encoded (pasted logs add noise, not meaning)
COMMANDS = 5
COMMAND = 80
ERRORS = 5
ERROR = 200  # characters of an error encoded
TAIL = 64  # bytes before `end` whose crc says the log is still the one seen


class Entry(Struct, array_like=True, frozen=True):
    kind: str
    seq: int
    turn: int
    crc: int


class Vec(Struct, kw_only=True):
    format: int = FORMAT
    model: str = ""
    dims: int = 0
    end: int = 0
    tail_crc: int = 0
    entries: list[Entry] = []
    vectors: bytes = b""

    def matrix(self) -> "np.ndarray":
        import numpy as np

        if not self.entries:
            return np.zeros((0, self.dims), dtype=np.float32)
        return np.frombuffer(self.vectors, dtype=np.float16).reshape(len(self.entries), -1)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Vec)


def path_of(log: Path) -> Path:
    return log.with_suffix(".vec")


def load(log: Path) -> Vec:
    """The .vec beside a log, or an empty one when missing, damaged or of another format."""
    try:
        vec = _decoder.decode(path_of(log).read_bytes())
        if vec.format == FORMAT and len(vec.vectors) == 2 * vec.dims * len(vec.entries):
            return vec
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        pass
    return Vec()


def save(log: Path, vec: Vec) -> None:
    with contextlib.suppress(FileNotFoundError):  # the task was deleted meanwhile
        tmpfiles.replace(path_of(log), _encoder.encode(vec))


def card_text(card, folder: str = "") -> str:
    files = " ".join("/".join(Path(name).parts[-2:]) for name in card.files)
    commands = "\n".join(c.command[:COMMAND] for c in card.commands[:COMMANDS])
    errors = "\n".join(error[:ERROR] for error in card.errors[:ERRORS])
    parts = (folder, card.asked[:ASKED], card.answer, files, commands, errors)
    return "\n".join(part for part in parts if part)


def texts_of(cards, episodes, project: str = "") -> list[tuple[str, int, int, str]]:
    """(kind, seq, turn, text) of every card and note, in log order; a card's text starts with
    the name of the task's folder."""
    from ..words import tokens  # here: the model's process, which only reads rows, needs none

    folder = tokens.folder_name(project)
    out = [("card", c.first_seq, c.first_seq, card_text(c, folder)) for c in cards]
    firsts = [card.first_seq for card in cards]
    for episode in episodes:
        at = bisect.bisect_right(firsts, episode.seq) - 1
        inside = at >= 0 and (cards[at].last_seq is None or cards[at].last_seq >= episode.seq)
        out.append(("note", episode.seq, firsts[at] if inside else -episode.seq, episode.note))
    return out


def summary_texts(log: Path, cards) -> list[tuple[str, int, int, str]]:
    """(kind "summary", seq, turn, text) of each summary and digest (ADR 0033): a turn is
    found by what the agent or the provider wrote of it, as by its card. Its turn: the one it
    was written in; a provider's, written after the task, the last turn it covers."""
    from ..cards import summaries

    firsts = [card.first_seq for card in cards]
    out = []
    for record in summaries.of_log(log):
        seq = record.seq if record.by == "agent" else record.last_seq
        at = bisect.bisect_right(firsts, seq) - 1
        out.append(("summary", record.seq, firsts[at] if at >= 0 else -record.seq, record.text))
    return out


def project_of(log: Path) -> str:
    """The project folder of a log's task: its first line's (a session.start)."""
    from ...log import logfile, records

    with contextlib.closing(logfile.read(log)) as found:
        first = next(found, None)
    start = first[2] if first else None
    return start.project if isinstance(start, records.SessionStart) else ""


def _tail_crc(log: Path, end: int) -> int:
    with open(log, "rb") as handle:
        handle.seek(max(0, end - TAIL))
        return zlib.crc32(handle.read(min(end, TAIL)))


def fresh(log: Path, vec: Vec, model: str) -> bool:
    """Whether the .vec already holds everything the log says, for this encoder."""
    if vec.model != model:
        return False
    try:
        return log.stat().st_size == vec.end and _tail_crc(log, vec.end) == vec.tail_crc
    except OSError:
        return False


def update(log: Path, encoder, vec: Vec | None = None, lock=None) -> Vec:
    """The log's vectors, folded on from its .vec (saved when anything changed); TaskNotFound
    when the log is gone, even when it goes while its texts are encoded (`nodwyn delete`).
    `lock` (memory.BUILDING), if given, is held while the cards are read (that may write the
    .mem), not while they are encoded."""
    try:
        return _update(log, encoder, vec, lock or contextlib.nullcontext())
    except FileNotFoundError:
        raise TaskNotFound(f"no task {log.stem}") from None


def _update(log: Path, encoder, vec: Vec | None, lock) -> Vec:
    from ..cards import mem as memfile  # here: the model's process reads rows alone

    vec = vec or load(log)
    if fresh(log, vec, encoder.id):
        return vec
    with lock:
        end = log.stat().st_size
        cards, episodes = memfile.cards_of(log)
    texts = texts_of(cards, episodes, project_of(log)) + summary_texts(log, cards)
    keep = vec.model == encoder.id
    known = {(e.kind, e.seq, e.crc): row for row, e in enumerate(vec.entries)} if keep else {}
    width = 2 * vec.dims  # bytes of a float16 row
    entries, rows, missing = [], [], []
    for kind, seq, turn, text in texts:
        crc = zlib.crc32(text.encode())
        entries.append(Entry(kind, seq, turn, crc))
        row = known.get((kind, seq, crc))
        rows.append(None if row is None else vec.vectors[row * width : (row + 1) * width])
        if row is None:
            missing.append(len(rows) - 1)
    if missing:
        made = half_rows(encoder, [texts[at][3] for at in missing])
        size = len(made) // len(missing)
        for number, at in enumerate(missing):
            rows[at] = made[number * size : (number + 1) * size]
    dims = len(rows[0]) // 2 if rows else (vec.dims if keep else 0)
    out = Vec(
        model=encoder.id,
        dims=dims,
        end=end,
        tail_crc=_tail_crc(log, end),
        entries=entries,
        vectors=b"".join(rows),
    )
    save(log, out)
    _cache.pop(log, None)  # a search reads the new rows
    _made[0] += 1
    return out


_cache: dict[Path, tuple] = {}  # log -> (key, turns, float16 rows), numpy arrays
CACHED = 1 << 17  # logs whose vectors a process keeps (every log of any real data directory)


def searchable(
    log: Path, model: str, seen: tuple[int, int] | None = None
) -> "tuple[np.ndarray, np.ndarray, bool] | None":
    """(turn of each row, rows, whether they hold all the log has) of a log's vectors made so
    far by the encoder `model` (its id), or None: none yet. Nothing is encoded here: a search
    uses what the background has made. `seen` is the log's (size, mtime_ns) when
    the caller has just looked (saves a stat)."""
    if seen is None:
        try:
            stat = log.stat()
        except OSError:
            return None
        seen = (stat.st_size, stat.st_mtime_ns)
    key = (model, *seen)
    known = _cache.get(log)
    if known is not None and known[0] == key:
        return known[1], known[2], True
    vec = load(log)
    if vec.model != model:
        return None
    import numpy as np

    turns = np.array([entry.turn for entry in vec.entries], dtype=np.int64)
    matrix = vec.matrix()  # float16 as stored (the stack of all logs adds int8 codes)
    if len(_cache) > CACHED:
        _cache.clear()
    whole = vec.end == seen[0]
    _cache[log] = (key if whole else (model, -1, 0), turns, matrix)
    return turns, matrix, whole


_made = [0]  # vectors saved by this process so far (a search's stack is made again after one)


def made() -> int:
    """How many times this process has saved a log's vectors: a stack made before the last
    of them is out of date."""
    return _made[0]


def keep(log: Path, turns: "np.ndarray", matrix: "np.ndarray") -> None:
    """Point a log's cached vectors at other arrays holding the same values (rows of a stack
    of all logs), so a process holds each vector once."""
    known = _cache.get(log)
    if known is not None:
        _cache[log] = (known[0], turns, matrix)


def newest_first(logs) -> list[Path]:
    """Logs by the time they last changed, newest first (a log gone meanwhile last)."""

    def changed(log: Path) -> int:
        try:
            return log.stat().st_mtime_ns
        except OSError:
            return 0

    return sorted(logs, key=lambda log: (-changed(log), log.name))
