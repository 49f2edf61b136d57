"""What the word index holds of each event, folded from a log: the fold of one log into documents
(`rows`), its `.mem` state and marks, in this process or in the helper process. An event's
document is a row: its words (`text_of`, never a task's title), the compound identifiers among
them cut into parts (tokens.compounds), its seq, the first seq of its turn and that turn's first
line's offset, its own line's offset and a heading (kind, sub-agent, the call a result
answers); an event's words are its first EVENT_TEXT characters, so one huge line costs a
bounded time and memory. Folding one log goes on from its `.mem` (checked against the log: see
mem.checked): the cards fold (cards.feed) from the end of the last whole turn, the documents
from the index's mark, both in one read of the log. This module neither writes files nor
touches the index, so any process can fold (sidecar.py) and only the indexing one writes
(index.py).
"""

from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct

from ...errors import TaskNotFound
from ...log import logfile, records
from ...log.redact import redact
from ..cards import mem as memfile
from ..cards.fold import call_input, command_of, one_line
from ..cards.fold import feed as feed_card
from . import tokens
from .matching import EVENT_TEXT, capped, strings  # noqa: F401 (EVENT_TEXT: read as documents.X)

CALL_TEXT = 80
WAITING = 256 << 10  # characters of rows that wait for their compounds to be found at once

# text, its compounds' parts (tokens.compounds), seq, turn, turn_at, offset, heading
Row = tuple[str, str, int, int, int, int, str]


def text_of(record: records.Event, tool_output: bool = True, clean: bool = True) -> str:
    """The words one event adds to the index (and that its snippets are cut from); redacted
    unless `clean` is False (the index: logs are redacted when written, and only tokens of
    this text are kept, never the text, while what is shown is redacted again)."""
    match record:
        case records.Message():
            parts = [record.command, record.text]
            for item in record.attachments:
                parts += [item.name, item.text]
        case records.Reply():
            parts = [record.text]
            for call in record.calls:
                parts += [call.tool, *strings(call_input(call.input))]
        case records.Result():
            parts = [record.output] if tool_output else []
        case records.Plan():
            parts = [item.text for item in record.items]
        case records.ContextCompact():
            parts = [record.note]
        case records.Error():
            parts = [record.text]
        case records.ApprovalAsk():
            parts = [record.tool, *strings(call_input(record.input))]
        case records.Bookmark():
            parts = [record.note] if record.starred else []
        case records.Summary():
            parts = [record.text]
        case records.Opaque():
            parts = strings({k: v for k, v in record.raw.items() if k not in ("kind", "at")})
        case _:
            return ""
    text = capped(parts)
    return redact(text) if clean else text


def describe(call: records.Call) -> str:
    """A call in a few words: its tool and the gist of its input."""
    data = call_input(call.input)
    gist = command_of(call.input)
    for key in ("file_path", "path", "pattern", "query", "url", "description", "prompt"):
        if not gist and isinstance(data.get(key), str):
            gist = data[key]
    gist = one_line(gist, CALL_TEXT) if gist else ""  # redacted when shown
    return f"{call.tool}: {gist}" if gist else call.tool


_TAGS = {cls: tag for tag, cls in records.KINDS.items()}


def kind(record: records.Event) -> str:
    """records.kind_of, without building a struct config per call (this runs per event)."""
    tag = _TAGS.get(type(record))
    return tag if tag is not None else records.kind_of(record)


def heading(record: records.Event, calls: dict[str, str]) -> str:
    """kind, the sub-agent, and for a result the call it answers."""
    parts = [kind(record)]
    agent = getattr(record, "agent", None)
    if agent:
        parts.append(f"agent {agent}")
    if isinstance(record, records.Result):
        parts.append(calls.get(record.call) or record.tool or "call")
    elif isinstance(record, records.Summary):
        parts.append("close summary" if record.level == "close" else record.level)
    elif isinstance(record, records.Reply) and record.calls:
        parts.append("calls " + ", ".join(call.tool for call in record.calls))
    return " · ".join([part for part in parts if part])


def mark_event(mark: memfile.Mark, start: int, record: records.Event) -> None:
    """Keep the mark's turn and calls in step with the log, as cards.feed does for turns."""
    if isinstance(record, records.Message) and record.agent is None:
        mark.turn, mark.turn_at, mark.calls = record.seq, start, {}
    elif isinstance(record, records.SessionResume):
        mark.turn, mark.turn_at, mark.calls = 0, -1, {}
    elif isinstance(record, records.Reply):
        for call in record.calls:
            mark.calls[call.id] = describe(call)


class Job(Struct, frozen=True, array_like=True):
    """One log to fold, with what folding it needs to know of the index's state."""

    task: str
    log: str
    index: str  # the index's id
    tool_output: bool
    known: bool  # the state has seen this task before
    problems: int  # lines before its mark that could not be read
    unread: int  # about how many bytes of the log are to be read (see `unread`)
    at_once: bool = False  # compounds of many events at once (tokens.compounds_of: numpy)


class Taken(Struct, kw_only=True):
    """What folding one log gave: the .mem state it started from and what it gained, the
    seq past which the task's documents are deleted first (-1: none), unreadable lines, and
    (from the helper process only) the documents, which this process streams instead."""

    task: str
    base: memfile.Mem
    gained: memfile.Mem
    drop: int = -1
    problems: int = 0
    rows: list[Row] = []
    gone: bool = False  # the log went away while it was read


def unread(state, task: str, size: int) -> int:
    """About how many bytes of a log of `size` a fold reads: what it gained since the state of
    the index (index.State) saw it, or all of it when it is new or shorter than then."""
    seen = state.tasks.get(task)
    return size - seen.size if seen is not None and size >= seen.size else size


def job_of(state, task: str, log: Path, size: int, at_once: bool = False) -> Job:
    """The job of folding `task`'s log, now `size` bytes, for the index of `state`."""
    seen = state.tasks.get(task)
    return Job(
        task,
        str(log),
        state.id,
        state.tool_output,
        seen is not None,
        seen.problems if seen else 0,
        unread(state, task, size),
        at_once,
    )


def start(job: Job) -> Taken:
    """The .mem's state for one log, checked against the log (no log read yet)."""
    log = Path(job.log)
    base = memfile.load_state(log)
    mem = memfile.checked(log, base, job.index)
    # Past the mark, the index may hold documents the state does not know of, for a known
    # task or a new one alike: a process that died between the index's commit and saving its
    # state and marks left them. They go before the log is folded on (all, from mark 0).
    return Taken(task=job.task, base=base, gained=mem, drop=mem.mark.seq)


def rows(job: Job, taken: Taken) -> Iterator[Row]:
    """Fold one log on from `taken` (see `start`): its documents, one per event with words;
    `taken` holds the .mem state gained and the problems once they are all read."""
    log, mem = Path(job.log), taken.gained
    fold, mark = mem.fold, mem.mark
    fold_from, mark_from = fold.end, mark.end
    problems: list[logfile.Problem] = []
    feed, waiting, size = feed_card, [], 0
    for begin, end, record in logfile.read(log, min(fold_from, mark_from), problems):
        if begin >= fold_from:
            feed(fold, begin, end, record)
        if begin < mark_from:
            continue
        mark_event(mark, begin, record)
        text = text_of(record, job.tool_output, clean=False)
        if text:
            turn, turn_at = _turn_of(log, record, mark)
            waiting.append(
                (text, "", record.seq, turn, turn_at, begin, heading(record, mark.calls))
            )
            size += len(text)
            if size >= WAITING:
                yield from _with_compounds(waiting, job.at_once)
                waiting, size = [], 0
        mark.line_start, mark.end, mark.seq = begin, end, record.seq
    yield from _with_compounds(waiting, job.at_once)
    if mark.end != mark_from:
        with open(log, "rb") as handle:
            mark.line_crc = memfile.crc_of(handle, mark.line_start, mark.end) or 0
    # a torn last line is a writer at work, not a damaged log: it is read once it is whole
    problems = [p for p in problems if p.offset >= mark_from and p.reason != logfile.TORN]
    # lines before the mark were counted before
    taken.problems = len(problems) + (job.problems if mark_from and job.known else 0)
    taken.gained = memfile.Mem(fold=memfile.settle(log, fold), mark=mark, restarted=mem.restarted)


def _with_compounds(waiting: list[Row], at_once: bool) -> list[Row]:
    """The rows with their compounds' parts: for all of them at once in a large refresh
    (tokens.compounds_of: the regex and its loop per text cost a first build a third of its
    CPU), else text by text."""
    texts = [row[0] for row in waiting]
    found = tokens.compounds_of(texts) if at_once else [tokens.compounds(text) for text in texts]
    return [(row[0], parts, *row[2:]) for row, parts in zip(waiting, found, strict=True)]


def _turn_of(log: Path, record: records.Event, mark: memfile.Mark) -> tuple[int, int]:
    """The turn an event's document belongs to: the one it stands in, except a bookmark's
    note, which is found as the starred turn's."""
    if isinstance(record, records.Bookmark) and record.turn >= 1:
        table = logfile.offsets(log)
        if record.turn <= len(table):
            return record.turn, table[record.turn - 1]
    return mark.turn, max(mark.turn_at, 0)


def fold(job: Job) -> Taken:
    """One log folded whole, its documents in `rows` (what the helper process does)."""
    try:
        taken = start(job)
        taken.rows = list(rows(job, taken))
    except (OSError, TaskNotFound):
        return Taken(task=job.task, base=memfile.Mem(), gained=memfile.Mem(), gone=True)
    return taken
