"""Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) as nodwyn records.

Like the Claude parser, a fold over source lines with its memory in `Carry`, so a file
imported in two halves gives the same records as the file imported at once. Each source line
gives its records at once (Codex writes whole items), so nothing is held back.

Mapping: `session_meta` starts the session (machine run when its source is `exec`);
`user_message` events are the prompts (developer and environment-context messages are not);
assistant messages and reasoning are replies; function and custom tool calls are replies with
calls, their outputs results (exit code from the output's header or metadata); `update_plan`
is a plan; `apply_patch` names the files it writes; `token_count` is a usage-only reply priced
from the table, and its `rate_limits` are limit records (limits.py);
`task_complete` / `turn_aborted` end turns; `compacted` is a compaction note.
UI duplicates (`agent_message`, `exec_command_end`, ...) are skipped.
"""

import contextlib
import json
import re
from typing import Any

import msgspec
from msgspec import Struct

from ...log import records as r
from .. import names, prices, turns
from . import limits

ORIGIN = names.origin("codex")
_EXIT = re.compile(r"Process exited with code (-?\d+)")
_PATCHED = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M
)


class _Payload(Struct):
    type: Any = None
    id: Any = None
    cwd: Any = None
    cli_version: Any = None
    source: Any = None
    git: Any = None
    model: Any = None
    role: Any = None
    content: Any = None
    summary: Any = None
    name: Any = None
    arguments: Any = None
    input: Any = None
    call_id: Any = None
    output: Any = None
    action: Any = None
    message: Any = None
    images: Any = None
    info: Any = None
    duration_ms: Any = None
    reason: Any = None
    thread_name: Any = None
    replacement_history: Any = None
    rate_limits: Any = None


class _Line(Struct):
    type: str = ""
    timestamp: str | None = None
    payload: _Payload | None = None


_decode_line = msgspec.json.Decoder(_Line).decode


class Carry(turns.Carry, kw_only=True):
    total: list[int] = []  # the last token_count's running total, to drop repeats
    turn_open: bool = False
    turn_cost: float = 0.0
    turn_unknown: bool = False
    limits: dict[str, list] = {}  # window key -> [used, resets, at] of the last Limit written


def _at(stamp: str | None, fallback: str) -> str:
    from ..claude.lines import at_of

    return at_of(stamp, fallback)


def patched_files(patch: str) -> list[str]:
    """The files an apply_patch text adds, updates, deletes or moves to."""
    return [a or b for a, b in _PATCHED.findall(patch)]


def _texts(content: Any, kinds: tuple[str, ...]) -> str:
    if not isinstance(content, list):
        return content if isinstance(content, str) else ""
    return "\n".join(
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str)
    )


def output_of(output: Any) -> tuple[str, int | None]:
    """A call's output as the model read it, and its exit code when the output says."""
    if isinstance(output, dict):
        text, meta = output.get("content") or output.get("output") or "", output.get("metadata")
    elif isinstance(output, str) and output.startswith('{"output"'):
        try:
            data = json.loads(output)
        except ValueError:
            data = None
        if isinstance(data, dict):
            text, meta = data.get("output", ""), data.get("metadata")
        else:
            text, meta = output, None
    else:
        text, meta = (output if isinstance(output, str) else json.dumps(output)), None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    if code is None and isinstance(text, str):
        found = _EXIT.search(text, 0, 400)
        code = int(found.group(1)) if found else None
    return (text if isinstance(text, str) else json.dumps(text)), (
        code if isinstance(code, int) else None
    )


class Parser(turns.Fold):
    Carry, decode = Carry, _decode_line

    def __init__(self, source: str, carry: Carry | None = None, title: str = ""):
        super().__init__(source, carry)
        self.index_title = title

    def line(self, n: int, line: _Line, out: list) -> None:
        c, p = self.carry, line.payload
        if p is None:
            return
        at = _at(line.timestamp, c.last_at)
        if line.timestamp:
            c.last_at = at
        src = r.Src(line=n)
        kind = line.type
        if kind == "session_meta":
            if not c.started:
                self._start(p, at, src, out)
        elif not c.started:
            return
        elif kind == "turn_context":
            c.model = p.model if isinstance(p.model, str) else c.model
        elif kind == "response_item":
            self._item(p, at, src, out)
        elif kind == "event_msg":
            self._event(p, at, src, out)
        elif kind == "compacted":
            note = p.message if isinstance(p.message, str) and p.message else ""
            if not note:
                kept = len(p.replacement_history or ())
                note = f"Context compacted; the agent kept {kept} items of its history"
            out.append(r.ContextCompact(at=at, src=src, note=note))

    def finish(self, live: bool, out: list) -> None:
        if self.carry.started:
            self.kept_title(self.index_title, "session_index", out)

    def _start(self, p: _Payload, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        c.started, c.session = True, str(p.id or "")
        git = p.git if isinstance(p.git, dict) else {}
        source = p.source
        out.append(
            r.SessionStart(
                at=at,
                src=src,
                project=p.cwd if isinstance(p.cwd, str) else "",
                origin=r.Origin(
                    tool=ORIGIN, path=self.source, id=c.session, version=str(p.cli_version or "")
                ),
                branch=str(git.get("branch") or ""),
                machine=source == "exec" or isinstance(source, dict),
            )
        )
        if self.index_title:
            c.title = self.index_title
            out.append(
                r.SessionTitle(at=at, src=r.Src(id="session_index"), title=c.title, actor="agent")
            )

    def _item(self, p: _Payload, at: str, src: r.Src, out: list) -> None:
        c, kind = self.carry, p.type
        if kind == "message":
            if p.role == "assistant":
                text = _texts(p.content, ("output_text", "text"))
                out.append(r.Reply(at=at, src=src, text=text, model=c.model))
        elif kind == "reasoning":
            thinking = _texts(p.summary, ("summary_text",)) or _texts(
                p.content, ("reasoning_text", "text")
            )
            if thinking:
                out.append(r.Reply(at=at, src=src, thinking=thinking, model=c.model))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(p, at, src, out)
        elif kind == "web_search_call":
            call = r.Call(id=str(p.call_id or p.id or ""), tool="web_search", input=p.action)
            out.append(r.Reply(at=at, src=src, calls=[call], model=c.model))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call = str(p.call_id or "")
            text, code = output_of(p.output)
            out.append(self.result(at, src, call, text, code not in (None, 0), code))

    def _call(self, p: _Payload, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        call, tool = str(p.call_id or p.id or ""), str(p.name or p.type)
        args: Any = p.input if p.type == "custom_tool_call" else p.arguments
        if isinstance(args, str) and p.type == "function_call":
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        c.calls[call] = tool
        out.append(
            r.Reply(at=at, src=src, calls=[r.Call(id=call, tool=tool, input=args)], model=c.model)
        )
        patch = args if isinstance(args, str) else ""
        if isinstance(args, dict) and isinstance(args.get("command"), list):
            patch = "\n".join(x for x in args["command"] if isinstance(x, str))
        if "*** Begin Patch" in patch:
            c.files[call] = patched_files(patch)
        if tool == "update_plan" and isinstance(args, dict) and isinstance(args.get("plan"), list):
            items = [
                r.PlanItem(text=str(step.get("step", "")), status=str(step.get("status", "")))
                for step in args["plan"]
                if isinstance(step, dict)
            ]
            out.append(r.Plan(at=at, src=src, items=items))

    def _event(self, p: _Payload, at: str, src: r.Src, out: list) -> None:
        c, kind = self.carry, p.type
        if kind == "user_message":
            text = p.message if isinstance(p.message, str) else ""
            images = [r.Attachment(name="image") for _ in p.images or ()]
            c.turn_open, c.turn_cost, c.turn_unknown = True, 0.0, False
            out.append(r.Message(at=at, src=src, text=text, attachments=images))
        elif kind == "token_count":
            if isinstance(p.info, dict):
                self._tokens(p.info, at, src, out)
            if isinstance(p.rate_limits, dict):
                out.extend(limits.read(p.rate_limits, at, src, c.limits))
        elif kind in ("task_complete", "turn_aborted"):
            if not c.turn_open:
                return
            c.turn_open = False
            cost = None if c.turn_unknown or not c.turn_cost else round(c.turn_cost, 8)
            duration = p.duration_ms if isinstance(p.duration_ms, int) else None
            status = "completed" if kind == "task_complete" else "cancelled"
            out.append(
                r.TurnEnd(at=at, src=src, status=status, duration_ms=duration, cost_usd=cost)
            )
        elif kind in ("error", "stream_error") and isinstance(p.message, str):
            out.append(r.Error(at=at, src=src, text=p.message))
        elif kind == "thread_name_updated" and isinstance(p.thread_name, str) and p.thread_name:
            title = " ".join(p.thread_name.split())[:120]
            out.append(r.SessionTitle(at=at, src=src, title=title, actor="agent"))

    def _tokens(self, info: dict, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        if not isinstance(last, dict):
            return
        running = (
            [int(total.get(k) or 0) for k in ("input_tokens", "output_tokens")]
            if isinstance(total, dict)
            else []
        )
        if running and running == c.total:
            return  # the same count written again
        c.total = running
        cached = int(last.get("cached_input_tokens") or 0)
        usage = r.Usage(
            input=max(int(last.get("input_tokens") or 0) - cached, 0),
            output=int(last.get("output_tokens") or 0),
            cache_read=cached,
        )
        cost = prices.cost(c.model, usage, at)
        if cost is None:
            c.turn_unknown = True
        else:
            c.turn_cost += cost
        out.append(r.Reply(at=at, src=src, model=c.model, usage=usage, cost_usd=cost))
