"""Reading memory back: cards and episodes of a task, one event (recall), a window (context).

Everything returned is redacted again on the way out (a pattern added since a line was written
still hides its secret), and text too long to read is cut, with the cut said (`"cut": true`).
"""

from msgspec import Struct, structs

from ..errors import BadInput, TaskNotFound
from ..log import logfile, records
from ..log.redact import redact
from .cards import mem as memfile
from .cards.fold import Card, Episode, one_line, redacted, redacted_episode
from .words.documents import describe, heading, text_of

RECALL_TEXT = 8_000  # characters of one string field recall returns whole
WINDOW_TEXT = 20_000  # characters of one string field in a context window
AROUND = 40  # events before and after a seq, by default
PAGE = 500  # the most events either side of a seq
LINE = 140  # characters of one line of a turn's outline


class Recall(Struct, frozen=True, kw_only=True):
    task: str
    seq: int
    event: dict | None
    card: Card | None = None
    lines: list[str] = []


class Window(Struct, frozen=True, kw_only=True):
    task: str
    events: list[dict]
    first_seq: int
    last_seq: int
    has_earlier: bool
    has_later: bool
    total: int


def _log(store, task: str):
    log = store.log_path(task)
    if not log.exists():
        raise TaskNotFound(f"no task {task}")
    return log


def turn_cards(store, task: str) -> list[Card]:
    """Every turn's card, oldest first (the turn under way last)."""
    return [redacted(card) for card in memfile.cards_of(_log(store, task))[0]]


def episodes(store, task: str) -> list[Episode]:
    """Every compaction's note, oldest first."""
    return [redacted_episode(e) for e in memfile.cards_of(_log(store, task))[1]]


def plain(record: records.Event, limit: int) -> dict:
    """A record as plain data, redacted, each string cut to `limit` characters."""
    cut = False

    def clean(value):
        nonlocal cut
        if isinstance(value, str):
            value = redact(value)
            if len(value) > limit:
                cut = True
                return value[:limit] + "…"
            return value
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        if isinstance(value, list):
            return [clean(item) for item in value]
        return value

    data = clean(records.to_builtins(record))
    if cut:
        data["cut"] = True
    return data


def recall(store, task: str, seq: int) -> Recall:
    """One event back whole; for a turn's first message also its card and one line per event."""
    log = _log(store, task)
    record = logfile.by_seq(log, seq)
    event = plain(record, RECALL_TEXT)
    if not isinstance(record, records.Message) or record.agent is not None:
        return Recall(task=task, seq=seq, event=event)
    card = next((c for c in turn_cards(store, task) if c.first_seq == seq), None)
    if card is None:
        return Recall(task=task, seq=seq, event=event)
    return Recall(task=task, seq=seq, event=event, card=card, lines=outline(log, card))


def cut(found: Recall, start: int | None, count: int | None) -> Recall:
    """The recall with only `count` of its outline's lines from `start` (all when None), as
    `nodwyn memory recall --json` pages them."""
    if start is None:
        return found
    end = start + count if count is not None else len(found.lines)
    return structs.replace(found, lines=found.lines[start:end])


def outline(log, card: Card) -> list[str]:
    """One line per event of a turn: seq, heading, the start of its text."""
    table = logfile.offsets(log)
    last = card.last_seq or len(table)
    calls: dict[str, str] = {}
    lines = []
    for _, _, record in logfile.read(log, table[card.first_seq - 1]):
        if record.seq > last:
            break
        if isinstance(record, records.Reply):
            calls.update({call.id: describe(call) for call in record.calls})
        text = one_line(text_of(record, clean=False), LINE)
        line = f"{record.seq} {heading(record, calls)}"
        lines.append(redact(f"{line}: {text}" if text else line))
    return lines


def context(
    store, task: str, seq: int | None = None, *, before: int = AROUND, after: int = AROUND
) -> Window:
    """At most `before` events before seq and `after` after (each capped at 500);
    seq None means the log's last 81 events."""
    if before < 0 or after < 0:
        raise BadInput("before and after count events: 0 or more")
    before, after = min(before, PAGE), min(after, PAGE)
    log = _log(store, task)
    table = logfile.offsets(log)
    total = len(table)
    if seq is None:
        seq, before, after = total, 2 * AROUND, 0
    elif not 1 <= seq <= max(total, 1):
        raise BadInput(f"task {task} has events 1 to {total}, not {seq}")
    if total == 0:
        return Window(
            task=task,
            events=[],
            first_seq=0,
            last_seq=0,
            has_earlier=False,
            has_later=False,
            total=0,
        )
    first, last = max(1, seq - before), min(total, seq + after)
    events = []
    for _, _, record in logfile.read(log, table[first - 1]):
        if record.seq > last:
            break
        if record.seq >= first:
            events.append(plain(record, WINDOW_TEXT))
    return Window(
        task=task,
        events=events,
        first_seq=first,
        last_seq=last,
        has_earlier=first > 1,
        has_later=last < total,
        total=total,
    )
