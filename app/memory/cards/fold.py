"""L1 turn cards and L2 episodes, folded from a log's records with no model call.

A turn runs from a main-agent `message` to the record before the next one. How it ended:
`turn.end`'s status (completed / failed / cancelled); "unfinished" when the next message
closed it without a `turn.end`; "interrupted" when a `session.resume` closed it. The last turn
of a log with no end is "under way" (its card has no last_seq) only while its agent still
writes it, else completed, interrupted or "no answer" by what the agent last said in it
(headline.ending, ADR 0039). A duration spans the agent's own records' times only. Records
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
from . import failures
from .headline import ASKED_HEAD, WORK, duration, ending, head_line, one_line  # noqa: F401 (cards.X)

ANSWER = 300  # characters of the answer kept on a card
LINE = 200  # characters of an error or command kept on a card
SHELLS = frozenset({"Bash", "bash", "shell", "exec_command", "local_shell", "run_command"})
WRITERS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file"})


class Command(Struct, frozen=True, kw_only=True):
    command: str
    exit: int | None = None
    error: bool = False


class Part(Struct, frozen=True, kw_only=True, array_like=True):
    """A turn's tokens and cost in one quarter hour (UTC) of its replies' own times. Every time
    zone is a whole number of quarter hours off UTC, so any zone's day is a sum of parts: a
    turn that runs past midnight counts each reply on its own day (docs/decisions/0038)."""

    at: str  # the quarter hour's start: 2025-09-20T14:15Z
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost_usd: float = 0.0


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
    unpriced: bool = False  # tokens with no price for (part of) the turn: its cost is unknown
    parts: list[Part] = []  # tokens and cost by quarter hour; their costs sum to cost_usd
    no_price: str = ""  # a model whose tokens had no price (unpriced); none: "" (no usage: no cost)


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
    last_at: str = ""  # the agent's last record's time in the turn (headline.WORK), to its end
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
    no_price: str = ""
    spent: dict[str, list] = {}  # quarter hour -> [input, output, cache_read, cache_write, cost]
    replies_cost: float = 0.0  # the replies' cost since the turn's start or its end's cost


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
    loose: Turn | None = None  # only while folding: replies in no turn, given to the next card


def card(turn: Turn, outcome: str | None = None, native: bool = False) -> Card:
    """The card of a turn; outcome None means the turn is the log's last and may go on."""
    live = False if turn.closed else True if native else None
    last, outcome, ms = ending(turn.at, turn.last_seq, turn.last_at, turn.status,
                               turn.duration_ms, outcome, turn.said, live)  # fmt: skip
    return Card(
        first_seq=turn.first_seq,
        last_seq=last,
        at=turn.at,
        head=head_line(turn.first_seq, last, outcome, ms, turn.asked),
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
        unpriced=turn.unpriced,
        parts=_parts(turn),
        no_price=turn.no_price if turn.unpriced else "",
    )


def _parts(turn: Turn) -> list[Part]:
    """The turn's quarter hours; what its end's cost differs from its replies' goes to its
    last, so the parts' costs sum to the card's."""
    parts = [Part(at=at, input=i, output=o, cache_read=r, cache_write=w, cost_usd=c)
             for at, (i, o, r, w, c) in sorted(turn.spent.items())]  # fmt: skip
    rest = (turn.cost_usd or 0.0) - sum(part.cost_usd for part in parts)
    if parts and abs(rest) > 1e-12:
        last = parts[-1]
        parts[-1] = msgspec.structs.replace(last, cost_usd=last.cost_usd + rest)
    elif rest and not parts:
        parts = [Part(at=quarter(turn.last_at or turn.at), cost_usd=rest)]
    return parts


def quarter(at: str) -> str:
    """The start of the UTC quarter hour of an RFC 3339 UTC time (the log's): 14:23 -> 14:15."""
    try:
        return f"{at[:14]}{int(at[14:16]) // 15 * 15:02d}Z"
    except ValueError:
        return "1970-01-01T00:00Z"  # no time: the oldest day, never lost


def cost_words(card: Card) -> str:
    """A turn's cost as people read it: "$0.42", "no price for glm-9" (with what is priced
    before it where some is), or "no usage in the log" (issue 35)."""
    priced = f"${card.cost_usd:.2f}" if card.cost_usd is not None else ""
    if card.unpriced:
        return (
            f"{priced} + no price for {card.no_price}"
            if priced
            else f"no price for {card.no_price}"
        )
    return priced or "no usage in the log"


def redacted(card: Card) -> Card:
    """A card with its text redacted again, as it is shown (folds keep the log's text)."""
    asked = redact(card.asked)
    return msgspec.structs.replace(
        card,
        asked=asked,
        head=head_line(card.first_seq, card.last_seq, card.outcome, card.duration_ms, asked),
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
        if fold.loose is not None:  # replies after a resume: the work of the turn to come
            _merge(fold.turn, fold.loose)
            fold.loose = None
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
    elif isinstance(record, records.Reply | records.TurnEnd):
        if fold.loose is None:
            fold.loose = Turn(first_seq=record.seq, at=record.at, asked="")
        _spend(fold.loose, record)
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
    _spend(turn, record)
    match record:
        case records.SessionClose():
            turn.closed = True
        case records.TurnEnd():
            turn.status = record.status
            turn.duration_ms = record.duration_ms
        case records.Reply():
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
            failures.add(turn.errors, one_line(record.text, LINE))


def _spend(turn: Turn, record: records.Event) -> None:
    """A reply's tokens and cost into its quarter hour; a turn end that says the turn's cost
    stands for its replies' since the turn's start (catalogue.fold's rule, so a task's cost is
    its cards' summed)."""
    if isinstance(record, records.TurnEnd):
        if record.cost_usd is not None:
            _add(turn, record.at or turn.last_at, None, record.cost_usd - turn.replies_cost)
            turn.cost_usd = (turn.cost_usd or 0.0) + record.cost_usd - turn.replies_cost
            turn.replies_cost, turn.unpriced, turn.no_price = 0.0, False, ""
        return
    if not isinstance(record, records.Reply) or (record.usage is None and record.cost_usd is None):
        return
    if record.usage is not None:
        turn.tokens = _sum(turn.tokens, record.usage)
    if record.cost_usd is not None:
        turn.cost_usd = (turn.cost_usd or 0.0) + record.cost_usd
        turn.replies_cost += record.cost_usd
    else:
        turn.unpriced = True
        turn.no_price = turn.no_price or record.model or "(no model)"
    _add(turn, record.at or turn.last_at or turn.at, record.usage, record.cost_usd or 0.0)


def _add(turn: Turn, at: str, usage: Usage | None, cost: float) -> None:
    spent = turn.spent.setdefault(quarter(at), [0, 0, 0, 0, 0.0])
    if usage is not None:
        spent[0] += usage.input
        spent[1] += usage.output
        spent[2] += usage.cache_read
        spent[3] += usage.cache_write
    spent[4] += cost


def _merge(turn: Turn, loose: Turn) -> None:
    """Replies in no turn (after a resume) into a turn's figures."""
    turn.tokens = _sum(turn.tokens, loose.tokens)
    for at, (i, o, r, w, c) in loose.spent.items():
        spent = turn.spent.setdefault(at, [0, 0, 0, 0, 0.0])
        for n, value in enumerate((i, o, r, w, c)):
            spent[n] += value
    if loose.cost_usd is not None:
        turn.cost_usd = (turn.cost_usd or 0.0) + loose.cost_usd
    turn.unpriced = turn.unpriced or loose.unpriced
    turn.no_price = turn.no_price or loose.no_price


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
    if record.error or (where is not None and record.exit not in (None, 0)):
        failures.add(turn.errors, failures.said(record.tool, record.output, record.exit, LINE))


def finish(fold: Fold) -> list[Card]:
    """Every card of the fold, the turn under way (if any) last."""
    cards = list(fold.cards)
    if fold.turn is not None:
        cards.append(card(fold.turn, native=fold.native))
    if fold.loose is not None and cards:  # replies after the last turn: its card counts them
        cards[-1] = _with(cards[-1], fold.loose)
    return cards


def _with(done: Card, loose: Turn) -> Card:
    """A card with the replies that came after its turn added to its figures."""
    turn = Turn(first_seq=done.first_seq, at=done.at, asked="", tokens=done.tokens,
                cost_usd=done.cost_usd, unpriced=done.unpriced, no_price=done.no_price,
                spent={p.at: [p.input, p.output, p.cache_read, p.cache_write, p.cost_usd]
                       for p in done.parts})  # fmt: skip
    _merge(turn, loose)
    return msgspec.structs.replace(done, tokens=turn.tokens, cost_usd=turn.cost_usd,
                                   unpriced=turn.unpriced, no_price=turn.no_price,
                                   parts=_parts(turn))  # fmt: skip
