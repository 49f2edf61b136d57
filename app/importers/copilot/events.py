"""GitHub Copilot CLI's `events.jsonl` as nodwyn records: a fold over its events.

Each line is `{type, data, id, timestamp, parentId}` (github/copilot-sdk's generated
session-events schema; only the fields read are declared). The map
(ADR 0020): `session.start` starts the session (cwd and branch from
its `context`); `user.message` is a prompt (`content` as typed, a slash command kept
literal; the `<current_datetime>` old files glued on is cut); `assistant.message` a reply
with its `toolRequests` as calls, `reasoningText` as thinking, `outputTokens` as usage;
`tool.execution_complete` a result (failure and exit code where the output says);
`permission.*` an approval asked and answered; `abort` cancels the turn;
`session.compaction_complete` (and a truncation that dropped messages) a compaction;
`session.error` an error; `session.shutdown` the run's input and cache tokens. Events inside
a sub-agent (`parentToolCallId`, `agentId`) carry the sub-agent's name from its
`subagent.started`. Copilot writes no end of a person's turn:
it ends at the next prompt, an abort, `session.shutdown`, or the end of a file no longer
written. Copilot bills premium requests, not tokens, so no dollar cost is made up.
"""

import re
from typing import Any

import msgspec
from msgspec import Struct

from ...log import records as r
from .. import names, turns
from ..times import at_of

ORIGIN = names.origin("copilot")
_DATETIME = re.compile(r"\s*<current_datetime>[^<]*</current_datetime>\s*$")
_EXIT = re.compile(r"exit(?:ed with)? code:? (-?\d+)", re.I)
WRITES = {"create": "path", "edit": "path", "str_replace_editor": "path", "write": "path"}


class _Line(Struct):
    type: str = ""
    data: dict = {}
    id: Any = None
    timestamp: Any = None
    agentId: Any = None  # noqa: N815


_decode = msgspec.json.Decoder(_Line).decode


class Carry(turns.Carry, kw_only=True):
    turn: turns.Turn = msgspec.field(default_factory=turns.Turn)
    agents: dict[str, str] = {}  # a sub-agent's call id -> its name


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class Parser(turns.Fold):
    Carry, decode = Carry, _decode

    def __init__(self, source: str, carry: Carry | None = None, title: str = "", cwd: str = ""):
        super().__init__(source, carry)
        self.workspace_title = title
        self.workspace_cwd = cwd

    def line(self, n: int, line: _Line, out: list) -> None:
        c = self.carry
        at = c.last_at = at_of(line.timestamp, c.last_at)
        src = r.Src(line=n, id=line.id if isinstance(line.id, str) else None)
        if line.type == "session.start":
            if not c.started:
                self._start(line.data, at, src, out)
            return
        if not c.started:
            return
        handler = _HANDLERS.get(line.type)
        if handler is not None:
            handler(self, line, at, src, out)

    def finish(self, live: bool, out: list) -> None:
        c = self.carry
        if c.started:
            self.kept_title(self.workspace_title, "workspace.yaml", out)
        if not live:
            self.carry.turn.end(c.last_at, "completed", out)

    def agent_of(self, line: _Line) -> str | None:
        parent = line.data.get("parentToolCallId")
        if isinstance(parent, str) and parent:
            return self.carry.agents.get(parent, parent)
        return line.agentId if isinstance(line.agentId, str) and line.agentId else None

    def _start(self, data: dict, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        c.started, c.session = True, _text(data.get("sessionId"))
        context = data.get("context") if isinstance(data.get("context"), dict) else {}
        c.model = _text(data.get("selectedModel"))
        version = _text(data.get("copilotVersion"))
        out.append(
            r.SessionStart(
                at=at,
                src=src,
                project=_text(context.get("cwd")) or self.workspace_cwd,
                origin=r.Origin(tool=ORIGIN, path=self.source, id=c.session, version=version),
                model=c.model,
                branch=_text(context.get("branch")),
            )
        )
        self.kept_title(self.workspace_title, "workspace.yaml", out)

    def _user(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        data, agent = line.data, self.agent_of(line)
        text = _DATETIME.sub("", _text(data.get("content")))
        names = [
            r.Attachment(name=str(a.get("displayName") or a.get("path") or a.get("type") or "file"))
            for a in data.get("attachments") or ()
            if isinstance(a, dict)
        ]
        command = text.split()[0] if text.startswith("/") and text.split() else ""
        if agent is None:
            self.carry.turn.end(at, "completed", out)
            c = self.carry
            c.turn.start(at, src.id or str(src.line))
        out.append(
            r.Message(at=at, src=src, agent=agent, text=text, attachments=names, command=command)
        )

    def _assistant(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        data, c = line.data, self.carry
        c.model = _text(data.get("model")) or c.model
        calls = []
        for ask in data.get("toolRequests") or ():
            if isinstance(ask, dict) and isinstance(ask.get("toolCallId"), str):
                call, tool = ask["toolCallId"], _text(ask.get("name"))
                c.calls[call] = tool
                args = ask.get("arguments")
                if isinstance(args, dict) and isinstance(args.get(WRITES.get(tool, "")), str):
                    c.files[call] = [args[WRITES[tool]]]
                calls.append(r.Call(id=call, tool=tool, input=args))
        tokens = data.get("outputTokens")
        usage = r.Usage(output=tokens) if isinstance(tokens, int) and tokens > 0 else None
        text, thinking = _text(data.get("content")), _text(data.get("reasoningText"))
        if text or thinking or calls or usage:
            out.append(
                self._reply(line, at, src, text=text, thinking=thinking, calls=calls, usage=usage)
            )

    def _reasoning(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        thinking = _text(line.data.get("content"))
        if thinking:
            out.append(self._reply(line, at, src, thinking=thinking))

    def _reply(self, line: _Line, at: str, src: r.Src, **said) -> r.Reply:
        """A reply of the line's agent (a sub-agent's or the main one's), with the model now."""
        return r.Reply(at=at, src=src, agent=self.agent_of(line), model=self.carry.model, **said)

    def _started(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        """A tool run the model did not ask for (the person's `!` command): a call of its own."""
        data, c = line.data, self.carry
        call = _text(data.get("toolCallId"))
        if call and call not in c.calls:
            c.calls[call] = _text(data.get("toolName"))
            asked = r.Call(id=call, tool=c.calls[call], input=data.get("arguments"))
            out.append(self._reply(line, at, src, calls=[asked]))

    def _complete(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        data = line.data
        call = _text(data.get("toolCallId"))
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        output = _text(result.get("content")) or _text(error.get("message"))
        found = _EXIT.search(output[-300:]) if output else None
        code = int(found.group(1)) if found else None
        failed = data.get("success") is False or bool(error) or code not in (None, 0)
        out.append(self.result(at, src, call, output, failed, code, agent=self.agent_of(line)))

    def _asked(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        ask = line.data.get("permissionRequest")
        if isinstance(ask, dict):
            call = _text(ask.get("toolCallId"))
            tool = self.carry.calls.get(call) or _text(ask.get("kind"))
            out.append(
                r.ApprovalAsk(
                    at=at, src=src, agent=self.agent_of(line), call=call, tool=tool, input=ask
                )
            )

    def _answered(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        result = line.data.get("result") if isinstance(line.data.get("result"), dict) else {}
        kind = _text(result.get("kind"))
        call = _text(line.data.get("toolCallId"))
        out.append(
            r.ApprovalAnswer(
                at=at,
                src=src,
                agent=self.agent_of(line),
                call=call,
                allowed=kind.startswith("approved"),
            )
        )

    def _subagent(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        call = _text(line.data.get("toolCallId"))
        if call:
            name = line.data.get("agentDisplayName") or line.data.get("agentName") or call
            self.carry.agents[call] = str(name)

    def _compacted(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        data = line.data
        if line.type == "session.truncation":
            dropped = data.get("messagesRemovedDuringTruncation")
            if not isinstance(dropped, int) or dropped <= 0:
                return
            tokens = data.get("tokensRemovedDuringTruncation", 0)
            note = f"Context truncated: {dropped} messages removed ({tokens} tokens)"
        elif data.get("success") is False:
            return
        else:
            note = _text(data.get("summaryContent")) or "Context compacted"
        out.append(r.ContextCompact(at=at, src=src, agent=self.agent_of(line), note=note))

    def _error(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        text = _text(line.data.get("message")) or _text(line.data.get("errorType"))
        out.append(r.Error(at=at, src=src, agent=self.agent_of(line), text=text))

    def _abort(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        self.carry.turn.end(at, "cancelled", out)

    def _shutdown(self, line: _Line, at: str, src: r.Src, out: list) -> None:
        """The input and cache tokens are written only here, for the whole run (the per-call
        `assistant.usage` is never persisted): a usage-only reply per model, its output left
        out (each `assistant.message` counted its own)."""
        for model, usage in _run_usage(line.data, self.carry.model):
            sid = f"{src.id or src.line}/usage/{model}"
            out.append(r.Reply(at=at, src=r.Src(line=src.line, id=sid), model=model, usage=usage))
        self.carry.turn.end(at, "completed", out)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def _run_usage(data: dict, model: str) -> list[tuple[str, r.Usage]]:
    """(model, usage) of a run's input and cache tokens: `modelMetrics` per model (its
    `inputTokens` hold the cache's), else `tokenDetails` for the run, as the model last used."""
    found = []
    metrics = data.get("modelMetrics") if isinstance(data.get("modelMetrics"), dict) else {}
    for name, metric in metrics.items():
        use = metric.get("usage") if isinstance(metric, dict) else None
        if isinstance(use, dict):
            read, write = _count(use.get("cacheReadTokens")), _count(use.get("cacheWriteTokens"))
            sent = max(_count(use.get("inputTokens")) - read - write, 0)
            found.append((str(name), r.Usage(input=sent, cache_read=read, cache_write=write)))
    details = data.get("tokenDetails") if isinstance(data.get("tokenDetails"), dict) else {}
    if not found and details:
        n = {k: _count(v.get("tokenCount")) for k, v in details.items() if isinstance(v, dict)}
        usage = r.Usage(
            input=n.get("input", 0),
            cache_read=n.get("cache_read", 0),
            cache_write=n.get("cache_write", 0),
        )
        found.append((model, usage))
    return [(name, usage) for name, usage in found if usage != r.Usage()]


_HANDLERS = {
    "user.message": Parser._user,
    "assistant.message": Parser._assistant,
    "assistant.reasoning": Parser._reasoning,
    "tool.execution_start": Parser._started,
    "tool.execution_complete": Parser._complete,
    "permission.requested": Parser._asked,
    "permission.completed": Parser._answered,
    "subagent.started": Parser._subagent,
    "session.compaction_complete": Parser._compacted,
    "session.truncation": Parser._compacted,
    "session.error": Parser._error,
    "abort": Parser._abort,
    "session.shutdown": Parser._shutdown,
}
