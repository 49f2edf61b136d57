"""Each agent's hook payloads read as one kind of event: the session, its new state, what it asks.

A hook's line (hook.py) names the agent, maybe the event (Copilot CLI's and Aider's payloads do
not), and carries the agent's own payload. `read()` turns it into an `Event` by a small function
per agent, chosen from one table. The states: ASKS (a permission, a question, an elicitation:
`what` says what it asks, e.g. "Bash: rm -rf build"), RUNNING (a prompt submitted, a tool at
work after an answer), TURN (the turn ended; the agent waits for the next prompt), ENDED (the
session ended: no state). A payload an agent documents but that says nothing of these gives
None. The fields each agent gives are in ADR 0046.
"""

import time

import msgspec

ASKS, RUNNING, TURN, ENDED = "needs an answer", "running", "your turn", "ended"
WHAT = 120  # characters of what an agent asks, as a row shows it


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One agent event: whose session, the state it puts the session in, and what it asks."""

    agent: str  # the agent's key: "claude", "codex", ...
    session: str = ""  # the agent's own session id ("" when its payload gives none)
    state: str
    what: str = ""
    cwd: str = ""
    pid: int = 0  # the agent's process: the state goes when it does
    at: float = 0.0


class Line(msgspec.Struct, kw_only=True):
    """What hook.py sends: the agent, the event it was installed for, the payload, when, who."""

    agent: str
    event: str = ""
    payload: object = None
    pid: int = 0
    at: float = 0.0
    cwd: str = ""  # the hook's working folder: the agent's, where its payload names none


def read(line: Line) -> Event | None:
    """The line's event, or None when it says nothing of a session's state."""
    payload = line.payload if isinstance(line.payload, dict) else {}
    agent = line.agent.removesuffix("-notify")
    reader = READERS.get(line.agent)
    if reader is None:
        return None
    found = reader(line.event, payload)
    if found is None:
        return None
    state, session, what = found
    cwd = _text(payload.get("cwd")) or _first(payload.get("workspace_roots")) or line.cwd
    at = line.at or time.time()  # a line that says no time is heard now
    return Event(
        agent=agent, session=session, state=state, what=_cut(what), cwd=cwd, pid=line.pid, at=at
    )


def asked(tool: str, given) -> str:
    """ "Bash: rm -rf build": a tool and the one input that says what it would do."""
    given = given if isinstance(given, dict) else {}
    for key in ("command", "file_path", "path", "url", "pattern", "query", "description"):
        value = given.get(key)
        if isinstance(value, str) and value.strip():
            return f"{tool}: {' '.join(value.split())}" if tool else value
    return tool


def _claude(event: str, p: dict):
    name = _text(p.get("hook_event_name")) or event
    session = _text(p.get("session_id"))
    if name == "Elicitation":
        return ASKS, session, _text(p.get("message")) or "a question from an MCP server"
    if name == "Notification":
        kind = _text(p.get("notification_type"))
        if kind in ("permission_prompt", "elicitation_dialog"):
            return ASKS, session, _text(p.get("message"))
        return (TURN, session, "") if kind == "idle_prompt" else None
    return _codex(event, p)  # the rest Claude Code and Codex name alike


# the events Claude Code, Codex and Gemini CLI name alike, and the state each puts a session in
_COMMON = {
    **dict.fromkeys(
        ("UserPromptSubmit", "PostToolUse", "ElicitationResult", "BeforeAgent", "AfterTool"),
        RUNNING,
    ),
    **dict.fromkeys(("Stop", "AfterAgent", "StopFailure"), TURN),
    "SessionEnd": ENDED,
}
_COPILOT = {
    "userPromptSubmitted": RUNNING,
    "postToolUse": RUNNING,
    "agentStop": TURN,
    "sessionEnd": ENDED,
}


def _common(name: str, session: str):
    failed = "the turn stopped on an error" if name == "StopFailure" else ""
    return _named(_COMMON, name, session, failed)


def _named(states: dict[str, str], name: str, session: str, what: str = ""):
    """The state an agent's table gives the event named `name`, or None when it has none."""
    return (states[name], session, what) if name in states else None


def _codex(event: str, p: dict):
    name = _text(p.get("hook_event_name")) or event
    session = _text(p.get("session_id"))
    if name == "PermissionRequest":
        return ASKS, session, asked(_text(p.get("tool_name")), p.get("tool_input"))
    return _common(name, session)


def _codex_notify(event: str, p: dict):
    if _text(p.get("type")) != "agent-turn-complete":
        return None
    return TURN, _text(p.get("thread-id")) or _text(p.get("session-id")), ""


def _gemini(event: str, p: dict):
    name = _text(p.get("hook_event_name")) or event
    session = _text(p.get("session_id"))
    if name == "Notification":
        if _text(p.get("notification_type")) != "ToolPermission":
            return None
        details = p.get("details") if isinstance(p.get("details"), dict) else {}
        what = _text(details.get("title")) or _text(p.get("message"))
        return ASKS, session, what
    return _common(name, session)


def _copilot(event: str, p: dict):
    session = _text(p.get("sessionId")) or _text(p.get("session_id"))
    if event == "notification":
        kind = _text(p.get("notificationType")) or _text(p.get("notification_type"))
        if kind in ("permission_prompt", "elicitation_dialog"):
            return ASKS, session, _text(p.get("message")) or _text(p.get("title"))
        return (TURN, session, "") if kind == "agent_idle" else None
    return _named(_COPILOT, event, session)


def _opencode(event: str, p: dict):
    kind = _text(p.get("type")) or event
    props = p.get("properties") if isinstance(p.get("properties"), dict) else {}
    session = _text(props.get("sessionID"))
    if kind in ("permission.asked", "permission.updated"):
        kind_of = _text(props.get("permission")) or _text(props.get("type"))
        patterns = props.get("patterns") if isinstance(props.get("patterns"), list) else []
        shown = " ".join(p for p in patterns if isinstance(p, str)) or _text(props.get("title"))
        return ASKS, session, f"{kind_of}: {shown}" if kind_of and shown else kind_of or shown
    if kind == "question.asked":
        questions = props.get("questions") if isinstance(props.get("questions"), list) else []
        first = questions[0] if questions and isinstance(questions[0], dict) else {}
        return ASKS, session, _text(first.get("question")) or "a question"
    if kind in ("permission.replied", "question.replied", "question.rejected"):
        return RUNNING, session, ""
    if kind == "session.status":
        status = props.get("status") if isinstance(props.get("status"), dict) else {}
        busy = _text(status.get("type")) in ("busy", "retry")
        return (RUNNING if busy else TURN), session, ""
    if kind == "session.idle":
        return TURN, session, ""
    return None


def _cursor(event: str, p: dict):
    name = _text(p.get("hook_event_name")) or event
    session = _text(p.get("conversation_id"))
    if name == "beforeSubmitPrompt":
        return RUNNING, session, ""
    if name == "stop":
        status = _text(p.get("status"))
        return TURN, session, "" if status in ("", "completed") else f"the turn {status}"
    return None


def _aider(event: str, p: dict):
    """Aider runs its notifications command, with nothing given, before every prompt and
    every confirmation alike: it waits for the person, which of the two it cannot say."""
    return TURN, "", "waits for you: a prompt or a confirmation"


READERS = {
    "claude": _claude,
    "codex": _codex,
    "codex-notify": _codex_notify,
    "gemini": _gemini,
    "copilot": _copilot,
    "opencode": _opencode,
    "cursor": _cursor,
    "aider": _aider,
}


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _first(value) -> str:
    return value[0] if isinstance(value, list) and value and isinstance(value[0], str) else ""


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= WHAT else text[: WHAT - 1] + "…"
