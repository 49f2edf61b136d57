"""Qwen Code's chat records as nodwyn records: a fold over its JSONL lines.

Each line is one `ChatRecord` (QwenLM/qwen-code's chatRecordingService): `{uuid, parentUuid,
sessionId, timestamp, type, cwd, version, gitBranch, ...}` with `type` one of `user`,
`assistant`, `tool_result` or `system` (its `subtype` says which). The map
(ADR 0053): a `user` record is a prompt (Gemini API `parts`); a
`slash_command` invocation before it gives what the person typed, the expanded prompt kept as
its attachment; an `assistant` record is a reply (`text` parts, `thought` parts as thinking,
`functionCall` parts as calls, its `model`); a `tool_result` record is a call's result
(`functionResponse`, `toolCallResult.status`); a `ui_telemetry` record's
`qwen-code.api_response` gives the tokens of the reply that follows it (a response without a
reply keeps its tokens on a reply of its own), `qwen-code.api_error` is an error;
`chat_compression` is a compaction, `custom_title` names the session.
"""

from typing import Any

import msgspec
from msgspec import Struct

from ...log import records as r
from .. import names, prices, turns
from ..gemini.mapping import WRITES, exit_of, output_of, parts_of
from ..times import at_of, one_line

ORIGIN = names.origin("qwen")
RESPONSE, ERROR = "qwen-code.api_response", "qwen-code.api_error"
NOT_A_PERSON = ("notification", "cron", "background_task_completed", "agent_launch_prompt")


class _Line(Struct):
    type: str = ""
    subtype: Any = None
    uuid: Any = None
    sessionId: Any = None  # noqa: N815
    timestamp: Any = None
    cwd: Any = None
    version: Any = None
    gitBranch: Any = None  # noqa: N815
    model: Any = None
    message: Any = None
    systemPayload: Any = None  # noqa: N815
    toolCallResult: Any = None  # noqa: N815
    provenance: Any = None  # newer versions: "real_user" for a person's words


_decode = msgspec.json.Decoder(_Line).decode


class Carry(turns.Carry, kw_only=True):
    turn: turns.Turn = msgspec.field(default_factory=turns.Turn)
    command: str = ""  # the slash command a person typed, waiting for its prompt
    pending: r.Usage | None = None  # the tokens of a response whose reply has not come
    pending_at: str = ""
    pending_id: str = ""
    pending_model: str = ""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _parts(record: _Line) -> list[dict]:
    message = record.message if isinstance(record.message, dict) else {}
    return parts_of(message.get("parts"))


class Parser(turns.Fold):
    Carry, decode = Carry, _decode

    def line(self, n: int, line: _Line, out: list) -> None:
        c = self.carry
        at = c.last_at = at_of(line.timestamp, c.last_at)
        src = r.Src(line=n, id=line.uuid if isinstance(line.uuid, str) else None)
        if not c.started:
            self._start(line, at, src, out)
        kind = line.subtype if line.type == "system" else line.type
        if kind not in ("slash_command", "user"):
            c.command = ""
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, line, at, src, out)

    def finish(self, live: bool, out: list) -> None:
        if not live:
            self._unspent(out)
            self.carry.turn.end(self.carry.last_at, "completed", out)

    def _start(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        c.started, c.session = True, _text(line.sessionId)
        origin = r.Origin(tool=ORIGIN, path=self.source, id=c.session, version=_text(line.version))
        out.append(
            r.SessionStart(
                at=at,
                src=r.Src(line=src.line, id="session"),
                project=_text(line.cwd),
                origin=origin,
                branch=_text(line.gitBranch),
            )
        )

    def _user(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        if line.provenance not in (None, "real_user") or line.subtype in NOT_A_PERSON:
            return  # a notice Qwen Code put in the model's input, no prompt of a person's
        c = self.carry
        text = "\n".join(_text(p.get("text")) for p in _parts(line) if not p.get("thought"))
        if not text.strip():
            return
        self._unspent(out)
        c.turn.end(at, "completed", out)
        c.turn.start(at, src.id or str(src.line))
        expanded: list[r.Attachment] = []
        if c.command:  # the person typed the command; the model read the prompt it expands to
            expanded = [r.Attachment(name="prompt of " + c.command.split()[0], text=text)]
            text, c.command = c.command, ""
        command = text.split()[0] if text.startswith("/") and text.split() else ""
        out.append(r.Message(at=at, src=src, text=text, command=command, attachments=expanded))

    def _slash(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        payload = line.systemPayload if isinstance(line.systemPayload, dict) else {}
        if payload.get("phase") == "invocation":
            self.carry.command = _text(payload.get("rawCommand")).strip()

    def _assistant(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        c.model = _text(line.model) or c.model
        text, thinking, calls = [], [], []
        for part in _parts(line):
            if isinstance(part.get("text"), str):
                (thinking if part.get("thought") else text).append(part["text"])
            call = part.get("functionCall")
            if isinstance(call, dict) and call.get("name"):
                key, tool, args = (
                    str(call.get("id") or f"{src.id}/{len(calls)}"),
                    call["name"],
                    call.get("args"),
                )
                c.calls[key] = str(tool)
                if isinstance(args, dict) and isinstance(args.get(WRITES.get(tool, "")), str):
                    c.files[key] = [args[WRITES[tool]]]
                calls.append(r.Call(id=key, tool=str(tool), input=args))
        usage, c.pending = c.pending, None
        cost = self._cost(c.model, usage, at)
        out.append(
            r.Reply(
                at=at,
                src=src,
                text="\n".join(filter(None, text)),
                thinking="\n\n".join(filter(None, thinking)),
                calls=calls,
                model=c.model,
                usage=usage,
                cost_usd=cost,
            )
        )
        for call in calls:
            if call.tool == "todo_write" and isinstance(call.input, dict):
                out.append(_plan(call, at, src))

    def _cost(self, model: str, usage: r.Usage | None, at: str) -> float | None:
        if usage is None:
            return None
        cost = prices.cost(model, usage, at)
        self.carry.turn.spend(cost)
        return cost

    def _result(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        status = line.toolCallResult if isinstance(line.toolCallResult, dict) else {}
        for part in _parts(line):
            answer = part.get("functionResponse")
            if not isinstance(answer, dict):
                continue
            call = str(answer.get("id") or status.get("callId") or "")
            output, failed = output_of(answer.get("response"))
            code = exit_of(output)
            error = (
                failed or status.get("status") in ("error", "cancelled") or code not in (None, 0)
            )
            key = r.Src(line=src.line, id=f"{src.id}/{call}")
            tool = _text(answer.get("name"))
            out.append(self.result(at, key, call, output, error, code, tool=tool))

    def _telemetry(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        payload = line.systemPayload if isinstance(line.systemPayload, dict) else {}
        event = payload.get("uiEvent") if isinstance(payload.get("uiEvent"), dict) else {}
        name = event.get("event.name")
        if name == ERROR:
            text = _text(event.get("error")) or _text(event.get("error_type")) or "API error"
            out.append(r.Error(at=at, src=src, text=text))
        elif name == RESPONSE:
            self._unspent(out)
            c = self.carry
            c.pending, c.pending_at, c.pending_id = _usage(event), at, src.id or str(src.line)
            c.pending_model = _text(event.get("model")) or c.model

    def _unspent(self, out: list) -> None:
        """A response's tokens that no reply took: a reply of their own, so none is lost."""
        c = self.carry
        usage, c.pending = c.pending, None
        if usage is not None:
            cost = self._cost(c.pending_model, usage, c.pending_at)
            out.append(
                r.Reply(
                    at=c.pending_at,
                    src=r.Src(id=f"{c.pending_id}/usage"),
                    model=c.pending_model,
                    usage=usage,
                    cost_usd=cost,
                )
            )

    def _compressed(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        payload = line.systemPayload if isinstance(line.systemPayload, dict) else {}
        note = ""
        for content in payload.get("compressedHistory") or ():
            if isinstance(content, dict) and content.get("role") == "user":
                note = "\n".join(_text(p.get("text")) for p in parts_of(content.get("parts")))
                break
        info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
        if not note.strip():
            before, after = info.get("originalTokenCount"), info.get("newTokenCount")
            note = (
                f"Context compressed ({before} to {after} tokens)"
                if before
                else "Context compressed"
            )
        out.append(r.ContextCompact(at=at, src=src, note=note))

    def _titled(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        payload = line.systemPayload if isinstance(line.systemPayload, dict) else {}
        title = one_line(_text(payload.get("customTitle")))
        if title:
            out.append(r.SessionTitle(at=at, src=src, title=title, actor="agent"))


def _plan(call: r.Call, at: str, src: r.Src) -> r.Plan:
    """`todo_write`'s list as the task's plan (Qwen Code's todos: content and status)."""
    todos = [t for t in call.input.get("todos") or () if isinstance(t, dict)]
    items = [
        r.PlanItem(text=str(t.get("content", "")), status=str(t.get("status", "pending")))
        for t in todos
    ]
    return r.Plan(at=at, src=r.Src(line=src.line, id=f"{src.id}/plan/{call.id}"), items=items)


def _usage(event: dict) -> r.Usage | None:
    """Qwen Code counts the cached tokens inside `input_token_count`; thinking is output."""
    n = {k: v if isinstance(v, int) and v > 0 else 0 for k, v in event.items()}
    cached = n.get("cached_content_token_count", 0)
    usage = r.Usage(
        input=max(n.get("input_token_count", 0) - cached, 0),
        output=n.get("output_token_count", 0) + n.get("thoughts_token_count", 0),
        cache_read=cached,
    )
    return None if usage == r.Usage() else usage


_HANDLERS = {
    "user": Parser._user,
    "assistant": Parser._assistant,
    "tool_result": Parser._result,
    "slash_command": Parser._slash,
    "ui_telemetry": Parser._telemetry,
    "chat_compression": Parser._compressed,
    "custom_title": Parser._titled,
}
