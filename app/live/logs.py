"""What a live session's own log says without hooks, in honest words.

Read from the end of the agent's source (Claude Code's and Codex's, whose lines say it): a
Codex turn completed or aborted (its `task_complete` / `turn_aborted` events) and a Claude
Code turn that ended (`turn_duration`) are "your turn"; an AskUserQuestion, a plan to approve
(ExitPlanMode) or Codex's request_user_input with no answer yet "needs an answer"; a tool call
without its result for LONG seconds is "waiting or running", since a log cannot tell a call
that runs from one waiting for a permission (Codex writes no approval request at all). Only
tasks the list calls running (written in the last minutes) are read, each from its last TAIL
bytes; a hook's state always wins over the log's.
"""

import json
import os
import time
from datetime import datetime
from pathlib import Path

from ..importers import registry
from ..log import logfile
from ..log import records as r
from ..tasks.store import Store
from . import events
from .board import Live

LONG = 60.0  # seconds a call may wait for its result before the log says "waiting or running"
TAIL = 256 * 1024  # bytes of a source's end read
WAITING = "waiting or running"
ASKING = {
    "AskUserQuestion": "question",
    "ExitPlanMode": "approve the plan",
    "request_user_input": "question",
}


def said(store: Store, task: str, now: float | None = None) -> Live | None:
    """The state the task's source ends in, or None where its log says nothing plain."""
    try:
        start = next(logfile.read(store.log_path(task)))[2]
    except (OSError, StopIteration):
        return None
    if not isinstance(start, r.SessionStart) or start.origin is None:
        return None
    reader = READERS.get(start.origin.tool)
    if reader is None or not start.origin.path:
        return None
    lines = tail(Path(start.origin.path))
    found = reader(lines, time.time() if now is None else now)
    if found is None:
        return None
    state, what = found
    known = registry.by_origin(start.origin.tool)
    agent = known.name if known is not None else ""
    return Live(task=task, agent=agent, state=state, what=what, folder=start.project, source="log")


def tail(path: Path) -> list[dict]:
    """The source's last whole JSON lines, as objects (others skipped)."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TAIL))
            data = handle.read()
    except OSError:
        return []
    parts = data.split(b"\n")
    if size > TAIL:
        parts = parts[1:]  # the first is a line cut in two
    found = []
    for part in parts:
        try:
            value = json.loads(part)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _claude(lines: list[dict], now: float):
    answered: set[str] = set()
    for line in reversed(lines):
        kind = line.get("type")
        if kind == "system" and line.get("subtype") in ("turn_duration", "stop_hook_summary"):
            return events.TURN, ""
        content = (line.get("message") or {}).get("content")
        blocks = content if isinstance(content, list) else []
        if kind == "user":
            results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            answered.update(str(b.get("tool_use_id")) for b in results)
            if isinstance(content, str) or not results:
                return events.RUNNING, ""  # a prompt: the agent works on it
        elif kind == "assistant":
            calls = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
            for call in reversed(calls):
                if str(call.get("id")) not in answered:
                    return _open(str(call.get("name") or ""), call.get("input"), line, now)
            if calls or any(isinstance(b, dict) and b.get("type") == "text" for b in blocks):
                return events.RUNNING, ""
    return None


def _codex(lines: list[dict], now: float):
    answered: set[str] = set()
    for line in reversed(lines):
        kind, payload = line.get("type"), line.get("payload") or {}
        what = payload.get("type") if isinstance(payload, dict) else None
        if kind == "event_msg" and what == "task_complete":
            return events.TURN, ""
        if kind == "event_msg" and what == "turn_aborted":
            return events.TURN, "the turn was interrupted"
        if kind == "event_msg" and what == "user_message":
            return events.RUNNING, ""
        if kind == "response_item" and what in ("function_call_output", "custom_tool_call_output"):
            answered.add(str(payload.get("call_id")))
        elif (
            kind == "response_item"
            and what in ("function_call", "custom_tool_call")
            and str(payload.get("call_id")) not in answered
        ):
            return _open(str(payload.get("name") or ""), _arguments(payload), line, now)
    return None


def _arguments(payload: dict):
    given = payload.get("arguments") or payload.get("input")
    try:
        return json.loads(given) if isinstance(given, str) else given
    except ValueError:
        return {}


def _open(name: str, given, line: dict, now: float):
    """A call without its result: a question asked, or a call long waiting."""
    if name in ASKING:
        return events.ASKS, _question(name, given)
    age = now - _time(line.get("timestamp"))
    return (WAITING, events.asked(name, given)) if age > LONG else (events.RUNNING, "")


def _question(name: str, given) -> str:
    given = given if isinstance(given, dict) else {}
    questions = given.get("questions")
    if isinstance(questions, list) and questions and isinstance(questions[0], dict):
        return str(questions[0].get("question") or "a question")
    return ASKING[name] if ASKING[name] != "question" else "a question"


def _time(at) -> float:
    try:
        return datetime.fromisoformat(str(at).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


READERS = {"claude-code": _claude, "codex": _codex}


def states(store: Store, board) -> list[Live]:
    """Every live state: the hooks', then the logs' of running tasks no hook spoke of."""
    found = board.states()
    heard = {live.task for live in found}
    for info in store.list():
        if info.state == "running" and info.id not in heard:
            live = said(store, info.id)
            found += [live] if live is not None else []
    return sorted(found, key=lambda s: s.state != events.ASKS)
