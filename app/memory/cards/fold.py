"""L1 turn cards and L2 episodes, folded from a log's records with no model call.

A turn runs from a main-agent `message` to the record before the next one. How it ended:
`turn.end`'s status (completed / failed / cancelled); "unfinished" when the next message
closed it without a `turn.end`; "interrupted" when a `session.resume` closed it. The last turn
of a log with no end is "under way" (its card has no last_seq) only while its agent still
writes it, else completed, interrupted or "no answer" by what the agent last said in it
(heading.ending, ADR 0039). A duration spans the agent's own records' times only. Records
after a resume and before the next message belong to no turn. An episode is a compaction's
note over the stretch since the compaction before it.

`Fold` is the state saved in `<id>.mem`: it is only ever saved between turns (at the end of
the last whole turn), so it holds finished cards and episodes and no half-built turn; the turn
under way is folded again from the log on every read, which costs work in proportion to it.
Folds keep the log's text as it is (it was redacted when written); `redacted()` redacts a card
again on its way out, so only what is shown pays for redaction.
"""

import msgspec
from msgspec import Struct

from ...log import records
from ...log.records import PlanItem, Usage
from ...log.redact import redact
from .heading import ASKED_HEAD, WORK, duration, ending, head, one_line  # noqa: F401 (cards.X)

ANSWER = 300  # characters of the answer kept on a card
LINE = 200  # characters of an error or command kept on a card
SHELLS = frozenset({"Bash", "bash", "shell", "exec_command", "local_shell", "run_command"})
WRITERS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file"})


class Command(Struct, frozen=True, kw_only=True):
    command: str
    exit: int | None = None
    error: bool = False


class Card(Struct, frozen=True, kw_only=True):
    """What one turn came to."""

    first_seq: int
    last_seq: int | None
    at: str
    head: str
    asked: str
    outcome: str  # completed/failed/cancelled/unfinished/interrupted/no answer/under way
    duration_ms: int | None = None
    cost_usd: float | None = None
    plan: list[PlanItem] = []
    files: list[str] = []
    commands: list[Command] = []
    errors: list[str] = []
    answer: str = ""
    tokens: Usage = (
        Usage()
    )  # the replies' usage summed (sub-agents' too), as the catalogue counts cost
    model: str = ""  # the main agent's last model
    unpriced: bool = False  # no price in the log for (part of) the turn: its cost is unknown


class Episode(Struct, frozen=True, kw_only=True):
    """A compaction's note (at `seq`) over first_seq..last_seq."""

    seq: int
    first_seq: int
    last_seq: int
    note: str


class Turn(Struct, kw_only=True):
    """A turn being folded (never saved: folds are saved between turns only)."""

    first_seq: int
    at: str
    asked: str
    last_seq: int = 0
    last_at: str = ""  # the agent's last record's time in the turn (heading.WORK), to its end
    status: str = ""
    duration_ms: int | None = None
    cost_usd: float | None = None
    plan: list[PlanItem] = []
    files: list[str] = []
    commands: list[Command] = []
    pending: dict[str, int] = {}  # call id -> index in commands
    errors: list[str] = []
    answer: str = ""
    tokens: Usage = Usage()
    model: str = ""
    unpriced: bool = False
    said: str = ""  # what the main agent last wrote: "answer", "work" ("" nothing: no answer)
    closed: bool = False  # a session.close came in it


class Fold(Struct, kw_only=True):
    """Cards and episodes up to `end`, the offset after the last whole turn's last line."""

    cards: list[Card] = []
    episodes: list[Episode] = []
    end: int = 0
    line_start: int = -1  # where the line ending at `end` starts (-1: nothing folded yet)
    line_crc: int = 0  # crc32 of that line, checked before folding on
    saved_episodes: int = 0  # episodes that lie before `end`
    last_compact: int = 0  # seq of the last compaction before `end` (0: none)
    turn: Turn | None = None  # only while folding; None whenever saved
    last_line: tuple[int, int] = (-1, 0)  # only while folding: (start, end) of the last line
    native: bool = False  # nodwyn's own task (its last turn is under way until it is closed)


def card(turn: Turn, outcome: str | None = None, native: bool = False) -> Card:
    """The card of a turn; outcome None means the turn is the log's last and may go on."""
    live = False if turn.closed else True if native else None
    last, outcome, ms = ending(turn.at, turn.last_seq, turn.last_at, turn.status,
                               turn.duration_ms, outcome, turn.said, live)  # fmt: skip
    return Card(
        first_seq=turn.first_seq,
        last_seq=last,
        at=turn.at,
        head=head(turn.first_seq, last, outcome, ms, turn.asked),
        asked=turn.asked,
        outcome=outcome,
        duration_ms=ms,
        cost_usd=turn.cost_usd,
        plan=turn.plan,
        files=turn.files,
        commands=turn.commands,
        errors=turn.errors,
        answer=one_line(turn.answer, ANSWER),
        tokens=turn.tokens,
        model=turn.model,
        unpriced=turn.unpriced or turn.cost_usd is None,  # no price in the log: cost unknown
    )


def redacted(card: Card) -> Card:
    """A card with its text redacted again, as it is shown (folds keep the log's text)."""
    asked = redact(card.asked)
    return msgspec.structs.replace(
        card,
        asked=asked,
        head=head(card.first_seq, card.last_seq, card.outcome, card.duration_ms, asked),
        plan=[PlanItem(text=redact(item.text), status=item.status) for item in card.plan],
        commands=[
            Command(command=redact(c.command), exit=c.exit, error=c.error) for c in card.commands
        ],
        errors=[redact(error) for error in card.errors],
        answer=redact(card.answer),
    )


def redacted_episode(episode: Episode) -> Episode:
    return msgspec.structs.replace(episode, note=redact(episode.note))


def feed(fold: Fold, start: int, end: int, record: records.Event) -> None:
    """Fold one record (whose line is start..end) into `fold`, in place."""
    main = getattr(record, "agent", None) is None
    if isinstance(record, records.Bookmark):  # a person's star on a turn: not the turn's work
        fold.last_line = (start, end)
        return
    if isinstance(record, records.Message) and main:
        if fold.turn is not None:
            fold.cards.append(card(fold.turn, "unfinished"))
            _checkpoint(fold)
        fold.turn = Turn(first_seq=record.seq, at=record.at, asked=record.text or record.command)
    elif isinstance(record, records.SessionResume) and fold.turn is not None:
        fold.cards.append(card(fold.turn, "interrupted"))
        fold.turn = None
        fold.last_line = (start, end)
        _checkpoint(fold)
    elif isinstance(record, records.ContextCompact):
        _episode(fold, record)
    elif isinstance(record, records.SessionStart):
        fold.native = record.origin.tool == "nodwyn"
    if fold.turn is not None:
        _turn(fold.turn, record, main)
    fold.last_line = (start, end)


def _checkpoint(fold: Fold) -> None:
    """Mark the last line fed as the end of the last whole turn (its crc is set by the caller)."""
    fold.line_start, fold.end = fold.last_line
    fold.line_crc = -1  # to be filled from the file by whoever saves the fold
    fold.saved_episodes = len(fold.episodes)
    if fold.episodes:
        fold.last_compact = fold.episodes[-1].seq


def _episode(fold: Fold, record: records.ContextCompact) -> None:
    before = fold.episodes[-1].seq if fold.episodes else fold.last_compact
    first = record.first_seq or before + 1
    last = record.last_seq or record.seq - 1
    fold.episodes.append(Episode(seq=record.seq, first_seq=first, last_seq=last, note=record.note))


def _turn(turn: Turn, record: records.Event, main: bool) -> None:
    turn.last_seq = record.seq
    if record.at and not turn.status and records.kind_of(record) in WORK:
        turn.last_at = record.at  # a name or a star given later is no part of its time
    if main and isinstance(record, records.Reply | records.Result | records.ApprovalAsk):
        answered = isinstance(record, records.Reply) and record.text.strip() and not record.calls
        turn.said = "answer" if answered else "work"
    match record:
        case records.SessionClose():
            turn.closed = True
        case records.TurnEnd():
            turn.status = record.status
            turn.duration_ms = record.duration_ms
            if record.cost_usd is not None:
                turn.cost_usd = record.cost_usd
                turn.unpriced = False
        case records.Reply():
            if record.cost_usd is not None and turn.status == "":
                turn.cost_usd = (turn.cost_usd or 0.0) + record.cost_usd
            elif record.usage is not None and turn.status == "":
                turn.unpriced = True
            if record.usage is not None:
                turn.tokens = _sum(turn.tokens, record.usage)
            if main and record.model:
                turn.model = record.model
            if main and record.text.strip():
                turn.answer = record.text[: 2 * ANSWER]  # cut and redacted on the card
            for call in record.calls:
                _call(turn, call)
        case records.Result():
            _result(turn, record)
        case records.Plan():
            turn.plan = list(record.items)
        case records.Error():
            turn.errors.append(one_line(record.text, LINE))


def _sum(a: Usage, b: Usage) -> Usage:
    return Usage(
        input=a.input + b.input,
        output=a.output + b.output,
        cache_read=a.cache_read + b.cache_read,
        cache_write=a.cache_write + b.cache_write,
    )


def call_input(value) -> dict:
    """A call's input as a dict (Codex gives a JSON string; other shapes give {})."""
    if isinstance(value, str):
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError:
            return {"input": value}
    return value if isinstance(value, dict) else {}


def command_of(value) -> str:
    data = call_input(value)
    command = data.get("command", data.get("cmd", ""))
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    return str(command)


def _call(turn: Turn, call: records.Call) -> None:
    if call.tool in SHELLS:
        turn.pending[call.id] = len(turn.commands)
        turn.commands.append(Command(command=one_line(command_of(call.input), LINE)))
    elif call.tool in WRITERS:
        path = call_input(call.input).get("file_path") or call_input(call.input).get("path")
        if isinstance(path, str) and path not in turn.files:
            turn.files.append(path)


def _result(turn: Turn, record: records.Result) -> None:
    for path in record.files:
        if path not in turn.files:
            turn.files.append(path)
    where = turn.pending.pop(record.call, None)
    if where is not None:
        command = turn.commands[where]
        turn.commands[where] = Command(
            command=command.command,
            exit=record.exit,
            error=record.error or bool(record.exit),
        )
    if record.error:
        first = next((line for line in record.output.splitlines() if line.strip()), "")
        turn.errors.append(one_line(f"{record.tool}: {first}", LINE))


def finish(fold: Fold) -> list[Card]:
    """Every card of the fold, the turn under way (if any) last."""
    if fold.turn is None:
        return list(fold.cards)
    return [*fold.cards, card(fold.turn, native=fold.native)]
