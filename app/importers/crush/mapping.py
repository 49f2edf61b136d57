"""Crush's rows as nodwyn records: one session row and its messages' parts.

A message (`messages`: role `user`, `assistant` or `tool`, `parts` a JSON list of
`{type, data}`, `model`, `provider`, times in seconds or milliseconds) holds `text`,
`reasoning` (thinking), `tool_call` (`input` a JSON string), `tool_result` and `finish`
(`reason`: end_turn, tool_use, canceled, error, permission_denied, ...). Crush keeps a cost only
per session (`cost`, the sum of its requests'; its token columns hold the last request's): it
becomes one reply of its own once the session is no longer written, and no token is counted
(ADR 0053).
"""

import json
import os
from typing import Any

from ...log import records as r
from .. import names, prices, turns
from ..times import at_ms

ORIGIN = names.origin("crush")
WRITES = {"edit": "file_path", "write": "file_path", "multiedit": "file_path"}
STATUS = {"canceled": "cancelled", "error": "failed"}


def ms(value: Any) -> int:
    """Crush writes seconds though its schema says milliseconds: both are read."""
    if not isinstance(value, int | float) or value <= 0:
        return 0
    return int(value * 1000) if value < 100_000_000_000 else int(value)


def parts_of(raw: Any) -> list[dict]:
    try:
        parts = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        return []
    return [p for p in parts if isinstance(p, dict) and isinstance(p.get("data"), dict)]


def finished(row: dict) -> bool:
    return any(p["type"] == "finish" for p in parts_of(row["parts"]))


class Mapper:
    """One session's records, in order; `agent` names a sub-agent's session."""

    def __init__(self, agent: str | None = None):
        self.agent = agent
        self.out: list[r.Known] = []
        self.tools: dict[str, str] = {}
        self.files: dict[str, list[str]] = {}
        self.turn: dict | None = None
        self.model = ""

    def message(self, row: dict) -> None:
        at = at_ms(ms(row["created_at"]), "")
        parts = parts_of(row["parts"])
        handler = {"user": self._user, "assistant": self._reply, "tool": self._results}
        if row["role"] in handler:
            handler[row["role"]](row, parts, at)
        finish = next((p["data"] for p in parts if p["type"] == "finish"), {})
        reason = finish.get("reason")
        if row["role"] == "assistant" and reason == "error":
            text = str(finish.get("message") or finish.get("details") or "error")
            self.out.append(r.Error(at=at, src=r.Src(id=f"{row['id']}/error"), text=text))
        if self.turn is not None and reason in STATUS:
            self.turn["status"] = STATUS[reason]
        if self.turn is not None and at:
            self.turn["last"] = at_ms(ms(finish.get("time")), at)

    def _user(self, row: dict, parts: list[dict], at: str) -> None:
        self.end_turn()
        text = "\n".join(str(p["data"].get("text") or "") for p in parts if p["type"] == "text")
        files = [
            r.Attachment(name=str(p["data"].get("path") or p["data"].get("Path") or "file"))
            for p in parts
            if p["type"] in ("binary", "image_url")
        ]
        self.out.append(
            r.Message(
                at=at, src=r.Src(id=row["id"]), agent=self.agent, text=text, attachments=files
            )
        )
        if self.agent is None:
            self.turn = {"at": at, "last": at, "status": "completed", "id": row["id"]}

    def _reply(self, row: dict, parts: list[dict], at: str) -> None:
        self.model = str(row.get("model") or self.model)
        text = "\n".join(str(p["data"].get("text") or "") for p in parts if p["type"] == "text")
        thinking = "\n\n".join(
            str(p["data"].get("thinking") or "") for p in parts if p["type"] == "reasoning"
        )
        calls = []
        for part in (p["data"] for p in parts if p["type"] == "tool_call"):
            call, tool, given = (
                str(part.get("id") or ""),
                str(part.get("name") or ""),
                part.get("input"),
            )
            try:
                args = json.loads(given) if isinstance(given, str) and given else given
            except ValueError:
                args = given
            self.tools[call] = tool
            if isinstance(args, dict) and isinstance(args.get(WRITES.get(tool, "")), str):
                self.files[call] = [args[WRITES[tool]]]
            calls.append(r.Call(id=call, tool=tool, input=args))
        if text or thinking or calls:
            self.out.append(
                r.Reply(
                    at=at,
                    src=r.Src(id=row["id"]),
                    agent=self.agent,
                    text=text,
                    thinking=thinking,
                    calls=calls,
                    model=self.model,
                )
            )

    def _results(self, row: dict, parts: list[dict], at: str) -> None:
        for part in (p["data"] for p in parts if p["type"] == "tool_result"):
            call = str(part.get("tool_call_id") or "")
            error = part.get("is_error") is True
            files = self.files.pop(call, [])
            self.out.append(
                r.Result(
                    at=at,
                    src=r.Src(id=f"{row['id']}/{call}"),
                    agent=self.agent,
                    call=call,
                    tool=self.tools.pop(call, "") or str(part.get("name") or ""),
                    output=str(part.get("content") or ""),
                    error=error,
                    files=[] if error else files,
                )
            )

    def cost(self, session: dict, at: str) -> None:
        """The session's cost, on a reply of its own: Crush adds each request's cost to the
        session's `cost`, but its `prompt_tokens` and `completion_tokens` are the last
        request's alone (how full the context is), so no token is counted from them. A cost of
        0 is a cost only for a model offered free; else it is unknown (Crush knew no price)."""
        given = session.get("cost")
        if isinstance(given, int | float) and given > 0:
            cost = float(given)
        elif prices.free(self.model):
            cost = 0.0
        else:
            return
        self.out.append(
            r.Reply(
                at=at,
                src=r.Src(id=f"cost/{session['id']}"),
                agent=self.agent,
                model=self.model,
                cost_usd=round(cost, 8),
            )
        )

    def end_turn(self) -> None:
        turn, self.turn = self.turn, None
        if turn is None:
            return
        self.out.append(turns.ended(turn, turn["id"]))


def folder_of(calls: list[r.Call]) -> str:
    """Where the session ran when no `.crush` folder says: the folder its calls' absolute paths
    have in common (`ls`'s `path`, the edits' `file_path`)."""
    paths = []
    for call in calls:
        args = call.input if isinstance(call.input, dict) else {}
        for key in ("path", "file_path"):
            value = args.get(key)
            if isinstance(value, str) and (value.startswith("/") or value[1:3] == ":\\"):
                paths.append(value if call.tool == "ls" else os.path.dirname(value))
    return os.path.commonpath(paths) if paths else ""
