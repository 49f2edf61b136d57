"""A folded Gemini CLI session as nodwyn records (the map in ADR 0019).

Prompts are `user` messages with text that a person wrote: Gemini's injected context
(`<session_context>`, `<hook_context>`, workspace listings) is not one, a `<state_snapshot>`
is the note of a compression, and from v0.44 a `user` message made only of
`functionResponse` parts carries results. A `gemini` message is one reply: its text parts,
its thinking (`thought` parts, else the `thoughts` summaries), its calls (`functionCall`
parts and `toolCalls`, joined by id), its tokens priced from prices.json; each call's result
follows it once, from `toolCalls[].result` or a later `functionResponse`. `error` messages
are errors; an `info` "Request cancelled." cancels the turn; a compression note is a
compaction. Gemini writes no turn end: a turn ends at the next prompt, or at the end of a
session that is no longer being written. While it is, the last reply waits (Gemini writes it
again when its tokens and calls arrive).
"""

import json
import re
from collections.abc import Callable
from typing import Any

from ...log import records as r
from .. import prices, turns
from ..times import at_of, ms_between

CONTEXT = ("<session_context>", "<hook_context>", "- **Workspace Directories:**")
SNAPSHOT = "<state_snapshot>"
CANCELLED = "Request cancelled."
WRITES = {"write_file": "file_path", "replace": "file_path", "edit": "file_path"}
_EXIT = re.compile(r"Exit Code: (-?\d+)")

# agentId -> (file name, its messages) of a sub-agent's own file, or None
SubagentFinder = Callable[[str], tuple[str, list[dict]] | None]


def parts_of(content: Any) -> list[dict]:
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def prompt_text(message: dict) -> str:
    """What the person typed: the displayed text when Gemini kept it, else the text parts."""
    shown = message.get("displayContent")
    parts = parts_of(shown if shown else message.get("content"))
    return "\n".join(
        p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought")
    )


def is_prompt(message: dict) -> bool:
    """A message a person wrote (what the source counts as a turn)."""
    if message.get("type") != "user":
        return False
    text = prompt_text(message).lstrip()
    return bool(text) and not text.startswith((*CONTEXT, SNAPSHOT))


class Mapper:
    """Turns messages into records, in order; `agent` is set for a sub-agent's own file."""

    def __init__(self, agent: str | None = None, file: str | None = None, subagents=None):
        self.agent, self.file, self.subagents = agent, file, subagents
        self.out: list[r.Known] = []
        self.model = ""
        self.given: set[str] = set()  # call ids whose result was given
        self.tools: dict[str, str] = {}  # call id -> tool
        self.files: dict[str, list[str]] = {}
        self.turn: dict | None = None  # {"at", "cost", "unknown", "status", "last", "id"}
        self.last_at = ""

    def src(self, key: str) -> r.Src:
        return r.Src(id=key, file=self.file)

    def messages(self, messages: list[dict], live: bool) -> None:
        last = len(messages) - 1
        for index, message in enumerate(messages):
            if live and index == last and message.get("type") == "gemini":
                return  # Gemini writes it again with its tokens and calls
            self.message(message)

    def message(self, m: dict) -> None:
        kind = m.get("type")
        at = self.last_at = at_of(m.get("timestamp"), self.last_at)
        if self.turn is not None and at:
            self.turn["last"] = at
        if kind == "user":
            self._user(m, at)
        elif kind == "gemini":
            self._reply(m, at)
        elif kind == "error":
            text = m.get("content") if isinstance(m.get("content"), str) else prompt_text(m)
            self.emit(r.Error(at=at, src=self.src(m["id"]), agent=self.agent, text=text))
        elif kind == "info":
            self._info(m, at)

    def emit(self, record: r.Known) -> None:
        self.out.append(record)

    def _user(self, m: dict, at: str) -> None:
        for part in parts_of(m.get("content")):
            answer = part.get("functionResponse")
            if isinstance(answer, dict):
                self._result(answer, None, at)
        text = prompt_text(m)
        if text.lstrip().startswith(SNAPSHOT):
            note = r.ContextCompact(at=at, src=self.src(m["id"]), agent=self.agent, note=text)
            self.emit(note)
        elif is_prompt(m):
            self.end_turn()
            command = text.split()[0] if text.startswith("/") else ""
            self.emit(
                r.Message(
                    at=at, src=self.src(m["id"]), agent=self.agent, text=text, command=command
                )
            )
            if self.agent is None:
                self.turn = {
                    "at": at,
                    "cost": 0.0,
                    "unknown": False,
                    "status": "completed",
                    "last": at,
                    "id": m["id"],
                }

    def _info(self, m: dict, at: str) -> None:
        text = m.get("content") if isinstance(m.get("content"), str) else prompt_text(m)
        if text.strip() == CANCELLED and self.turn is not None:
            self.turn["status"] = "cancelled"
        elif "compress" in text.lower():
            self.emit(r.ContextCompact(at=at, src=self.src(m["id"]), agent=self.agent, note=text))

    def _reply(self, m: dict, at: str) -> None:
        text, thinking, calls = [], [], {}
        for part in parts_of(m.get("content")):
            if isinstance(part.get("text"), str):
                (thinking if part.get("thought") else text).append(part["text"])
            call = part.get("functionCall")
            if isinstance(call, dict) and call.get("name"):
                key = str(call.get("id") or f"{m['id']}/{len(calls)}")
                calls[key] = (str(call["name"]), call.get("args"), None)
        records = [x for x in m.get("toolCalls") or () if isinstance(x, dict) and x.get("name")]
        for call in records:
            calls[str(call.get("id") or f"{m['id']}/{len(calls)}")] = (
                str(call["name"]),
                call.get("args"),
                call,
            )
        if not thinking:
            thinking = [_thought(t) for t in m.get("thoughts") or () if isinstance(t, dict)]
        self.model = str(m.get("model") or self.model)
        usage = _usage(m.get("tokens"))
        cost = prices.cost(self.model, usage, at) if usage else None
        self._count(usage, cost)
        listed = [
            r.Call(id=key, tool=name, input=args) for key, (name, args, _record) in calls.items()
        ]
        self.emit(
            r.Reply(
                at=at,
                src=self.src(m["id"]),
                agent=self.agent,
                text="\n".join(filter(None, text)),
                thinking="\n\n".join(t for t in thinking if t),
                calls=listed,
                model=self.model,
                usage=usage,
                cost_usd=cost,
            )
        )
        for key, (name, args, record) in calls.items():
            self.tools[key] = name
            if isinstance(args, dict) and isinstance(args.get(WRITES.get(name, "")), str):
                self.files[key] = [args[WRITES[name]]]
            if record is not None and isinstance(record.get("agentId"), str):
                self._subagent(record["agentId"], name)
            if record is not None:
                for part in parts_of(record.get("result")):
                    if isinstance(part.get("functionResponse"), dict):
                        self._result(part["functionResponse"], record, at, key)

    def _count(self, usage: r.Usage | None, cost: float | None) -> None:
        turn = self.turn if self.agent is None else self.parent_turn
        if turn is None or usage is None:
            return
        if cost is None:
            turn["unknown"] = True
        else:
            turn["cost"] += cost

    parent_turn: dict | None = None

    def _result(self, answer: dict, record: dict | None, at: str, key: str | None = None) -> None:
        call = key or str(answer.get("id") or "")
        if not call or call in self.given:
            return
        self.given.add(call)
        response = answer.get("response")
        output, failed = output_of(response)
        status = (record or {}).get("status")
        code = exit_of(output)
        error = failed or status in ("error", "cancelled") or code not in (None, 0)
        files = self.files.pop(call, [])
        tool = self.tools.pop(call, "") or str(answer.get("name") or "")
        at, src = at_of((record or {}).get("timestamp"), at), self.src(f"result/{call}")
        self.emit(turns.result(at, src, call, tool, (output, error, code), files, self.agent))

    def _subagent(self, agent_id: str, name: str) -> None:
        found = self.subagents(agent_id) if self.subagents else None
        if found is None:
            return
        file, messages = found
        nested = Mapper(agent=agent_id, file=file)
        nested.parent_turn = self.turn
        nested.messages(messages, live=False)
        self.out.extend(nested.out)

    def end_turn(self) -> None:
        """The open turn ends at its last event: completed, or cancelled by the person."""
        turn, self.turn = self.turn, None
        if turn is None:
            return
        cost = None if turn["unknown"] or not turn["cost"] else round(turn["cost"], 8)
        self.emit(
            r.TurnEnd(
                at=turn["last"],
                src=self.src(f"end/{turn['id']}"),
                status=turn["status"],
                duration_ms=ms_between(turn["at"], turn["last"]),
                cost_usd=cost,
            )
        )


def _thought(thought: dict) -> str:
    subject, text = str(thought.get("subject") or ""), str(thought.get("description") or "")
    return f"**{subject}** {text}".strip() if subject else text


def _usage(tokens: Any) -> r.Usage | None:
    """Gemini counts cached tokens inside `input`, bills thinking as output, and the prompt of
    a tool it ran itself (`tool`, the API's toolUsePromptTokenCount) as input beside `input`."""
    if not isinstance(tokens, dict):
        return None
    number = {k: v if isinstance(v, int) else 0 for k, v in tokens.items()}
    cached = number.get("cached", 0)
    return r.Usage(
        input=max(number.get("input", 0) - cached, 0) + number.get("tool", 0),
        output=number.get("output", 0) + number.get("thoughts", 0),
        cache_read=cached,
    )


def output_of(response: Any) -> tuple[str, bool]:
    if isinstance(response, dict):
        if isinstance(response.get("error"), str):
            return response["error"], True
        if isinstance(response.get("output"), str):
            return response["output"], False
        return json.dumps(response, ensure_ascii=False), "error" in response
    return (response if isinstance(response, str) else json.dumps(response)), False


def exit_of(output: str) -> int | None:
    found = _EXIT.search(output[-400:]) if output else None
    return int(found.group(1)) if found else None
