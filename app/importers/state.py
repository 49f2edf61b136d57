"""A task's import state (`sessions/<id>.imp`) and the writes that go with it, shared by the
two ways a source is imported: lines appended (`sync`) and sources rewritten whole (`whole`).

`.imp` is derived and safe to delete (msgspec JSON, `FORMAT`): a state of another format is
read as none, so the source is read again and matched against the log by `src` (`key_of`).
It is written atomically after the log's append and names the log's last imported record as
it then stood, so an import stopped between the two is told on the next one
(docs/decisions/0015-import-that-cannot-double.md).
"""

from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from ..errors import TaskBusy
from ..log import faults, logfile, tmpfiles
from ..log import records as r
from ..log.writer import Writer
from ..memory.cards import mem as memfile
from ..memory.cards.fold import Fold, finish
from ..memory.cards.fold import feed as feed_card
from ..tasks.catalogue import RANK, Summary, fold, fold_log
from ..tasks.store import Store
from ..usage import figures

FORMAT = 1
BATCH = 2_000  # records an import appends at a time: it holds one batch, whatever the size
CARDS = 1_000  # turn cards a new log's import holds before it appends them to the .mem


class State(msgspec.Struct, kw_only=True):
    """The import state of one task (`<id>.imp`): derived, safe to delete."""

    format: int = FORMAT
    agent: str = msgspec.field(name="tool")  # the agent's key, stored under its older name
    source: str
    consumed: int = 0
    lines: int = 0
    opening: str = msgspec.field(default="", name="head")  # digest of the source's opening
    tail_start: int = 0
    tail: str = ""
    compact_from: int = 1
    carry: msgspec.Raw = msgspec.Raw(b"null")
    last: str = ""  # the src of the log's last imported record when this was saved
    whole: str = ""  # a source rewritten whole: the hash of what was read last
    limits: int = 0  # the agent's `limits` version the imported part was read with


_state_decoder = msgspec.json.Decoder(State)


def load(log: Path) -> State | None:
    try:
        state = _state_decoder.decode(log.with_suffix(".imp").read_bytes())
    except (OSError, msgspec.MsgspecError):
        return None
    return state if state.format == FORMAT else None


def save(log: Path, state: State, carry=None) -> None:
    """Write `.imp` atomically, naming the log's last imported record as it stands now."""
    state.carry = msgspec.Raw(msgspec.json.encode(carry))
    state.last = key_text(last_imported(log))
    path = log.with_suffix(".imp")
    faults.point()  # test hook: stopped after the append, before `.imp`
    tmpfiles.replace(path, _stopping_before_the_rename(msgspec.json.encode(state)), path.name)
    faults.point()  # ... after `.imp` (the import's last write)


def _stopping_before_the_rename(data: bytes) -> Iterator[bytes]:
    """`data`, with the test hook's stop after writing it aside, before the rename."""
    yield data
    faults.point()  # ... after writing `.imp`'s new copy, before it replaces the old


Key = tuple[str | None, int | None, str | None, str]


def key_of(record) -> Key | None:
    src = getattr(record, "src", None)
    return None if src is None else (src.file, src.line, src.id, r.kind_of(record))


def key_text(key: Key | None) -> str:
    return "" if key is None else msgspec.json.encode(key).decode()


def last_imported(log: Path) -> Key | None:
    """The src of the log's last imported record (records a person added carry none)."""
    for _offset, record in logfile.read_back(log):
        key = key_of(record)
        if key is not None:
            return key
    return None


def title_of(log: Path) -> tuple[str, str]:
    summary = fold_log(log)
    return summary.title, summary.title_by


class Appending:
    """An import's records appended to its log batch by batch, so an import holds one batch
    whatever the session's size. A title is appended only where no higher actor named the task
    and it is new; `title` is the task's name and who gave it, or a function giving them, asked
    at the first title met (it reads the whole log)."""

    def __init__(self, writer: Writer, state: State, title, new: bool = False):
        self.writer, self.state, self.title = writer, state, title
        self.count = 0  # records appended
        # a new log's folds kept up with each batch: the task list's, and its turn cards
        self.summary = Summary() if new and writer.started is not None else None
        self.cards, self.saved = Fold(), memfile.Mem()  # cards not yet in the .mem; its state
        self.used: list = []  # the usage figures of the cards in the .mem's frames
        if self.summary is not None:
            self._fold([writer.started], [writer.last_line])

    def kept(self) -> tuple[Summary, list | None] | None:
        """The list's fold of the log as far as written and its usage figures (None: not kept),
        for the catalogue and the usage file, once the cards not yet in the log's `.mem` are
        put there: none of them reads the log again."""
        summary, writer, cards = self.summary, self.writer, self.cards
        if summary is None:
            return None
        # replies after the last turn count in its card, which a frame may hold already
        in_frame = self.saved.frames and not cards.cards and cards.turn is None
        whole = not (cards.loose is not None and in_frame)
        before, every = self.used, finish(cards) if whole else None  # `before`: in frames
        self._save_cards()
        summary.end, summary.last_offset = writer.size, writer.size - writer.last_line
        return summary, None if every is None else before + figures.used_of(every)

    def _save_cards(self) -> None:
        """The whole turns' cards folded so far appended to the `.mem` as one frame, and let
        go: an import holds the cards of at most CARDS turns, whatever the session's size."""
        log, cards = self.writer.path, self.cards
        whole = memfile.settle(log, cards)
        memfile.append(log, self.saved, memfile.Mem(fold=whole))
        memfile.forget(log)
        state = Fold(end=whole.end, line_start=whole.line_start, line_crc=whole.line_crc,
                     last_compact=whole.last_compact, native=whole.native)  # fmt: skip
        self.saved = memfile.Mem(fold=state, frames=self.saved.frames + 1)
        self.used = self.used + figures.used_of(cards.cards)
        cards.cards, cards.episodes = [], cards.episodes[cards.saved_episodes :]
        cards.saved_episodes = 0

    def _fold(self, written: list, lengths: list[int]) -> None:
        end = self.writer.size - sum(lengths)
        for record, length in zip(written, lengths, strict=True):
            start, end = end, end + length
            fold(self.summary, record)
            feed_card(self.cards, start, end, record)

    def add(self, emitted) -> int:
        batch: list[r.Known] = []
        for record in emitted:
            if isinstance(record, r.SessionTitle):
                if callable(self.title):
                    self.title = self.title()
                current, by = self.title or ("", "")
                if record.title == current or RANK.get(record.actor, 1) < RANK.get(by, 0):
                    continue
                self.title = (record.title, record.actor)
            elif isinstance(record, r.ContextCompact):
                seq = self.writer.last_seq + len(batch) + 1
                record = msgspec.structs.replace(
                    record, first_seq=min(self.state.compact_from, seq - 1), last_seq=seq - 1
                )
                self.state.compact_from = seq + 1
            batch.append(record)
        written = self.writer.append(batch)
        if self.summary is not None:
            self._fold(written, self.writer.lengths)
            if len(self.cards.cards) >= CARDS:
                self._save_cards()
        self.count += len(batch)
        return len(batch)


def write(writer: Writer, emitted, state: State, title: tuple[str, str] | None) -> int:
    """Append the records at once (a source rewritten whole is read whole)."""
    return Appending(writer, state, title).add(emitted)


def guarded(store: Store, task: str, run: Callable[[], tuple[str, str]]) -> tuple[str, str]:
    """Run one task's import unless the person deleted the task; busy or vanished: skipped."""
    if store.was_deleted(task):
        return "skipped", f"task {task} was deleted in nodwyn: not imported again"
    try:
        return run()
    except TaskBusy:
        return "skipped", f"task {task} is open in another process; try again later"
    except FileNotFoundError:  # the agent removed its file while we read it: the task stays
        return "skipped", "the file went away while it was read"


def on_machine(start: r.SessionStart, machine: str) -> r.SessionStart:
    """The start with `machine` in its origin (as it was when `machine` is "")."""
    if not machine:
        return start
    return msgspec.structs.replace(
        start, origin=msgspec.structs.replace(start.origin, machine=machine)
    )
