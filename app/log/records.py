"""The records of a task log: one tagged union of msgspec Structs, tagged by `kind`.

Invariants (ADR 0001):
- every record has `seq` (1, 2, 3, ... with no gaps) and `at` (RFC 3339 UTC, milliseconds);
  the writer assigns both, so code that makes a record leaves them at their defaults;
- `agent` names the sub-agent that produced a record (None for the main agent); `src` says
  where an imported record came from;
- schema evolution: a new field gets a default and goes last; a field's type never changes;
  a line of a kind this version does not know is kept as an `Opaque` event, never an error.
"""

from datetime import UTC, datetime
from typing import Any

import msgspec
from msgspec import Struct


class Src(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Where an imported record came from: the source's line number and/or record id."""

    line: int | None = None
    id: str | None = None
    file: str | None = None


class Origin(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Which tool made a task, and where its source lives."""

    tool: str
    path: str = ""
    id: str = ""
    version: str = ""
    machine: str = ""  # the id of the machine it ran on (app/machines); "" = this data directory's


class Attachment(Struct, frozen=True, kw_only=True, omit_defaults=True):
    name: str
    text: str = ""


class Call(Struct, frozen=True, kw_only=True, omit_defaults=True):
    id: str
    tool: str
    input: Any = None


class Usage(Struct, frozen=True, kw_only=True, omit_defaults=True):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


class PlanItem(Struct, frozen=True, kw_only=True, omit_defaults=True):
    text: str
    status: str = "pending"


class Record(Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="kind"):
    """Fields every record carries."""

    seq: int = 0
    at: str = ""
    agent: str | None = None
    src: Src | None = None


class SessionStart(Record, tag="session.start"):
    """First line of every log."""

    project: str
    origin: Origin
    model: str = ""
    branch: str = ""
    machine: bool = False  # a run no person typed into (codex exec, claude -p, sdk)


class SessionTitle(Record, tag="session.title"):
    """A name for the task; empty takes a name back."""

    title: str = ""
    actor: str = "person"


class SessionArchive(Record, tag="session.archive"):
    archived: bool = True


class SessionClose(Record, tag="session.close"):
    pass


class SessionResume(Record, tag="session.resume"):
    pass


class Message(Record, tag="message"):
    """A person's prompt: starts a turn."""

    text: str = ""
    attachments: list[Attachment] = []
    command: str = ""


class Reply(Record, tag="reply"):
    """The model's output."""

    text: str = ""
    thinking: str = ""
    calls: list[Call] = []
    model: str = ""
    usage: Usage | None = None
    cost_usd: float | None = None


class Result(Record, tag="result"):
    """A call's result as the model read it."""

    call: str = ""
    tool: str = ""
    output: str = ""
    error: bool = False
    exit: int | None = None
    files: list[str] = []  # files this call wrote


class Plan(Record, tag="plan"):
    items: list[PlanItem] = []


class ApprovalAsk(Record, tag="approval.ask"):
    call: str = ""
    tool: str = ""
    input: Any = None


class ApprovalAnswer(Record, tag="approval.answer"):
    call: str = ""
    allowed: bool = False


class TurnEnd(Record, tag="turn.end"):
    status: str = "completed"
    duration_ms: int | None = None
    cost_usd: float | None = None


class ContextCompact(Record, tag="context.compact"):
    """A compaction: its note over the stretch first_seq..last_seq."""

    note: str = ""
    first_seq: int = 0
    last_seq: int = 0


class Error(Record, tag="error"):
    """An API or agent error outside a call's result."""

    text: str = ""


class Limit(Record, tag="limit"):
    """One rate-limit window as the agent reported it at `at` (ADR 0037): how much
    of it was used and when it starts over. A fact as of that event, never carried forward."""

    name: str = ""  # the agent's limit id ("codex"), or the agent's name when it gives none
    window_minutes: int = 0  # 0: the agent did not say how long the window is
    used_percent: float = 0.0
    resets_at: str = ""  # RFC 3339 UTC; "" when the agent did not say
    plan: str = ""
    reached: bool = False  # the agent refused work until the reset


class Bookmark(Record, tag="bookmark"):
    """A person starred (or unstarred) the turn that starts at seq `turn`, with a note; the
    latest one of a turn counts."""

    turn: int = 0
    note: str = ""
    starred: bool = True


class Summary(Record, tag="memory.summary"):
    """A summary of seqs first_seq..last_seq (ADR 0033): level `close` for a chat or an episode
    that ended (L2), `digest` for the task's rolling digest (L3: the latest one is shown, the
    earlier ones stay). `by` says who wrote it: the task's own agent over MCP (`model` is the
    agent's name), a provider the person chose (`provider` and its `model`), or the person."""

    text: str = ""
    level: str = "digest"
    first_seq: int = 0
    last_seq: int = 0
    turns: int = 0  # turns (a person's prompts) in first_seq..last_seq
    by: str = "agent"
    provider: str = ""
    model: str = ""


class Opaque(Struct, frozen=True, kw_only=True):
    """A line of a kind this version does not know (or whose fields do not fit): kept whole."""

    seq: int
    at: str
    kind: str
    raw: dict
    agent: str | None = None


Known = (
    SessionStart
    | SessionTitle
    | SessionArchive
    | SessionClose
    | SessionResume
    | Message
    | Reply
    | Result
    | Plan
    | ApprovalAsk
    | ApprovalAnswer
    | TurnEnd
    | ContextCompact
    | Error
    | Bookmark
    | Summary
    | Limit
)
Event = Known | Opaque

KINDS = {cls.__struct_config__.tag: cls for cls in Known.__args__}

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Known)
_raw_decoder = msgspec.json.Decoder(dict)


class Damaged(Exception):
    """A line that is not a JSON object with a seq: skipped and reported by readers."""


def encode(record: Known) -> bytes:
    """One record as JSON, without the newline."""
    return _encoder.encode(record)


def decode(line: bytes) -> Event:
    """One line (without its newline) as a record; raises Damaged for a line that is no record."""
    try:
        record = _decoder.decode(line)
    except msgspec.ValidationError:
        record = None
    except msgspec.DecodeError as exc:
        raise Damaged(f"not JSON: {exc}") from None
    if record is not None:
        if record.seq < 1:
            raise Damaged("no seq")
        return record
    try:
        raw = _raw_decoder.decode(line)
    except msgspec.MsgspecError as exc:
        raise Damaged(f"not a JSON object: {exc}") from None
    seq = raw.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise Damaged("no seq")
    agent = raw.get("agent")
    return Opaque(
        seq=seq,
        at=str(raw.get("at", "")),
        kind=str(raw.get("kind", "")),
        raw=raw,
        agent=agent if isinstance(agent, str) else None,
    )


def now() -> str:
    """The current time as the log writes it: RFC 3339, UTC, milliseconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def kind_of(record: Event) -> str:
    return record.kind if isinstance(record, Opaque) else record.__struct_config__.tag


def to_builtins(record: Event) -> dict:
    """A record as plain data, with its kind, for JSON edges."""
    if isinstance(record, Opaque):
        return dict(record.raw)
    data = msgspec.to_builtins(record)
    data["kind"] = kind_of(record)
    return data
