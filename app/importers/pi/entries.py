"""Pi's (badlogic/pi-mono) session entries as nodwyn records: a fold over its JSONL lines.

The first line is the header `{type: "session", version, id, timestamp, cwd}`; every other
line an entry `{type, id, parentId, timestamp, ...}` of a tree (a branch made with `/tree`
appends children of an earlier entry; every branch is kept here, in the file's order). The
map (ADR 0053): a `message` entry holds a user prompt, an
assistant reply (`text`, `thinking` and `toolCall` blocks, its `model`, `usage` with the
log's own `cost`, `stopReason`, `errorMessage`), a `toolResult`, or a person's `!` shell run
(`bashExecution`); a `compaction` and a `branch_summary` are episodes (context.compact with the
summary); `session_info` names the session. The header's `timestamp` is when the file was last
headed (a resumed or forked session is re-headed): the session starts at its first entry.
"""

from typing import Any

import msgspec
from msgspec import Struct

from ...log import records as r
from .. import names, prices, turns
from ..times import at_ms, at_of, one_line

ORIGIN = names.origin("pi")
WRITES = {"edit": "path", "write": "path"}


class _Line(Struct):
    type: str = ""
    id: Any = None
    timestamp: Any = None
    message: Any = None
    cwd: Any = None
    version: Any = None
    summary: Any = None
    name: Any = None
    provider: Any = None
    modelId: Any = None  # noqa: N815
    tokensBefore: Any = None  # noqa: N815


_decode = msgspec.json.Decoder(_Line).decode


class Carry(turns.Carry, kw_only=True):
    turn: turns.Turn = msgspec.field(default_factory=turns.Turn)
    cwd: str = ""
    headed: str = ""  # the header's timestamp
    first_at: str = ""  # the first entry's


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _blocks(content: Any) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _joined(content: Any, kind: str = "text", field: str = "text") -> str:
    return "\n\n".join(
        _text(b.get(field)) for b in _blocks(content) if b.get("type") == kind and b.get(field)
    )


class Parser(turns.Fold):
    Carry, decode = Carry, _decode

    def line(self, n: int, line: _Line, out: list) -> None:
        c = self.carry
        if line.type == "session":
            if not c.session:
                c.session, c.cwd = _text(line.id), _text(line.cwd)
                c.headed = at_of(line.timestamp, "")
            return
        at = c.last_at = at_of(line.timestamp, c.last_at)
        c.first_at = c.first_at or at
        src = r.Src(line=n, id=line.id if isinstance(line.id, str) else None)
        if line.type == "model_change":
            c.model = _text(line.modelId) or c.model
            return
        handler = _HANDLERS.get(line.type)
        if handler is None or not c.session:
            return
        if not c.started:
            self._start(out)
        handler(self, line, at, src, out)

    def finish(self, live: bool, out: list) -> None:
        if not live:
            self.carry.turn.end(self.carry.last_at, "completed", out)

    def _start(self, out: list) -> None:
        c = self.carry
        c.started = True
        first = min((x for x in (c.first_at, c.headed) if x), default="")
        out.append(
            r.SessionStart(
                at=first,
                src=r.Src(line=1, id="session"),
                project=c.cwd,
                origin=r.Origin(tool=ORIGIN, path=self.source, id=c.session),
                model=c.model,
            )
        )

    def _message(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        m = line.message if isinstance(line.message, dict) else {}
        at = at_ms(m.get("timestamp"), at) if not line.timestamp else at
        handler = _ROLES.get(_text(m.get("role")))
        if handler is not None:
            handler(self, m, at, src, out)

    def _user(self, m: dict, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        text = _joined(m.get("content"))
        images = [b for b in _blocks(m.get("content")) if b.get("type") == "image"]
        c.turn.end(at, "completed", out)
        c.turn.start(at, src.id or str(src.line))
        command = text.split()[0] if text.startswith("/") and text.split() else ""
        names = [r.Attachment(name=_text(b.get("mimeType")) or "image") for b in images]
        out.append(r.Message(at=at, src=src, text=text, attachments=names, command=command))

    def _assistant(self, m: dict, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        model = _text(m.get("model")) or c.model
        calls = []
        for block in _blocks(m.get("content")):
            if block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                call, tool, args = block["id"], _text(block.get("name")), block.get("arguments")
                c.calls[call] = tool
                if isinstance(args, dict) and isinstance(args.get(WRITES.get(tool, "")), str):
                    c.files[call] = [args[WRITES[tool]]]
                calls.append(r.Call(id=call, tool=tool, input=args))
        usage, cost = self._usage(m, model, at)
        text, thinking = (
            _joined(m.get("content")),
            _joined(m.get("content"), "thinking", "thinking"),
        )
        if text or thinking or calls or usage:
            out.append(turns.reply(at, src, (text, thinking, calls), model, usage, cost))
        stop, error = _text(m.get("stopReason")), _text(m.get("errorMessage"))
        if stop == "error" or (error and stop != "aborted"):
            eid = f"{src.id or src.line}/error"
            out.append(r.Error(at=at, src=r.Src(line=src.line, id=eid), text=error or "error"))
        elif stop == "aborted":
            c.turn.end(at, "cancelled", out)

    def _usage(self, m: dict, model: str, at: str) -> tuple[r.Usage | None, float | None]:
        """The reply's tokens (Pi's `input` leaves out the cache's) and cost: the log's own
        where it gives one above 0, else priced (a provider Pi knows no price of writes 0)."""
        u = m.get("usage") if isinstance(m.get("usage"), dict) else {}
        usage = r.Usage(
            input=_count(u.get("input")),
            output=_count(u.get("output")),
            cache_read=_count(u.get("cacheRead")),
            cache_write=_count(u.get("cacheWrite")),
        )
        if usage == r.Usage():
            return None, None
        spent = u.get("cost") if isinstance(u.get("cost"), dict) else {}
        total = spent.get("total")
        cost = total if isinstance(total, int | float) and total > 0 else None
        if cost is None:
            cost = prices.cost(model, usage, at)
        self.carry.turn.spend(cost)
        return usage, None if cost is None else round(float(cost), 8)

    def _result(self, m: dict, at: str, src: r.Src, out: list) -> None:
        call, failed = _text(m.get("toolCallId")), m.get("isError") is True
        output, tool = _joined(m.get("content")), _text(m.get("toolName"))
        out.append(self.result(at, src, call, output, failed, tool=tool))

    def _shell(self, m: dict, at: str, src: r.Src, out: list) -> None:
        """A person's `!command`: a shell call of its own and its output."""
        call = f"{src.id or src.line}/bash"
        code = m.get("exitCode") if isinstance(m.get("exitCode"), int) else None
        asked = r.Call(id=call, tool="bash", input={"command": _text(m.get("command"))})
        out.append(r.Reply(at=at, src=r.Src(line=src.line, id=f"{call}/call"), calls=[asked]))
        out.append(
            r.Result(
                at=at,
                src=src,
                call=call,
                tool="bash",
                output=_text(m.get("output")),
                error=code not in (None, 0) or m.get("cancelled") is True,
                exit=code,
            )
        )

    def _compaction(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        note = _text(line.summary) or "Context compacted"
        if line.type == "branch_summary":
            note = "Branch left: " + note
        out.append(r.ContextCompact(at=at, src=src, note=note))

    def _named(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        title = one_line(_text(line.name))
        if title:
            out.append(r.SessionTitle(at=at, src=src, title=title, actor="agent"))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


_HANDLERS = {
    "message": Parser._message,
    "compaction": Parser._compaction,
    "branch_summary": Parser._compaction,
    "session_info": Parser._named,
}
_ROLES = {
    "user": Parser._user,
    "assistant": Parser._assistant,
    "toolResult": Parser._result,
    "bashExecution": Parser._shell,
}
