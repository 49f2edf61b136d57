"""Which agent wrote a file, decided by its content, and the files that go with a session.

A file is a Claude Code transcript when its lines are Claude records (`type` user, assistant,
summary, ...) and one carries a `sessionId`; a Codex rollout when it has a `session_meta`
line; Qwen Code's chats, whose records look like Claude's but hold Gemini `parts`, are told
apart and sent to their own importer. Anything else (hook logs, hand-made summaries,
Markdown, binary junk, an empty file) gets a one-line reason and never becomes a task. Names
do not matter, except that Claude's `agent-*.jsonl` files belong to their session and are
read with it (claude/subagents.py finds them).
"""

import re
from pathlib import Path
from typing import Any

import msgspec

from .agent import Found, opening_of, whole_lines

PROBE = 256 * 1024  # bytes read to recognise a file
CLAUDE_TYPES = {
    "user",
    "assistant",
    "system",
    "summary",
    "ai-title",
    "custom-title",
    "last-prompt",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "progress",
    "permission-mode",
}
CHAINED = {"user", "assistant", "system", "attachment", "progress"}
CODEX_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


class _Meta(msgspec.Struct):
    id: Any = None


class _Probe(msgspec.Struct):
    type: Any = None
    sessionId: Any = None  # noqa: N815
    payload: msgspec.Raw = msgspec.Raw(b"null")
    message: msgspec.Raw = msgspec.Raw(b"null")
    systemPayload: msgspec.Raw = msgspec.Raw(b"null")  # noqa: N815


_probe = msgspec.json.Decoder(_Probe).decode
_meta = msgspec.json.Decoder(_Meta).decode
_any = msgspec.json.Decoder().decode


def is_json_object(line: bytes) -> bool:
    try:
        return isinstance(_any(line), dict)
    except (msgspec.MsgspecError, RecursionError):
        return False


def recognise(path: Path, tool: str) -> "Found | str":
    """The session a file holds, or why it is not one of `tool`'s sessions."""
    if tool == "claude" and path.name.startswith("agent-") and not orphan(path):
        return "a sub-agent's file: imported with the session that started it"
    opening = opening_of(path, PROBE)
    if isinstance(opening, str):
        return opening
    seen, session = _scan(whole_lines(opening, PROBE))
    if seen == "claude" and not session:  # summaries or snapshots first: look further
        with open(path, "rb") as handle:
            handle.seek(len(opening))
            for line in handle:
                seen, session = _scan([line.rstrip(b"\n")], seen)
                if session:
                    break
    if orphan(path) and isinstance(found := _verdict(path, tool, seen, session), Found):
        return Found(f"{found.task}-{_safe(path.stem)}", session)
    return _verdict(path, tool, seen, session)


def orphan(path: Path) -> bool:
    """Whether a file is a Claude Code sub-agent's (`<session>/subagents/agent-*.jsonl`) whose
    session's own file is absent: then it is a task of its own, so its tokens are counted."""
    folder = path.parent
    return (
        path.name.startswith("agent-")
        and folder.name == "subagents"
        and not (folder.parent.parent / f"{folder.parent.name}.jsonl").exists()
    )


def _scan(lines: list[bytes], seen: str = "") -> tuple[str, str]:
    for line in lines:
        if not line.strip():
            continue
        try:
            probe = _probe(line)
        except (msgspec.MsgspecError, RecursionError):
            continue
        kind = probe.type
        if not isinstance(kind, str):
            continue  # `type` as an object or a list: no record of either agent
        if _is_qwen(probe):
            return "qwen", ""
        if kind == "session_meta" and bytes(probe.payload) != b"null":
            try:
                found = _meta(probe.payload).id
            except msgspec.MsgspecError:
                found = None
            return "codex", str(found or "")
        if kind in CODEX_TYPES and bytes(probe.payload) != b"null":
            seen = seen or "codex-body"
        elif kind in CLAUDE_TYPES:
            seen = "claude"
            if kind in CHAINED and isinstance(probe.sessionId, str) and probe.sessionId:
                return "claude", probe.sessionId
    return seen, ""


def _is_qwen(probe: _Probe) -> bool:
    """Qwen Code's chat records share Claude Code's ids, but hold the Gemini API's `parts`
    (and `tool_result` and `systemPayload` records, which Claude has none of)."""
    if probe.type == "tool_result" or bytes(probe.systemPayload) != b"null":
        return True
    return b'"parts"' in bytes(probe.message)[:48]


def _verdict(path: Path, tool: str, seen: str, session: str) -> "Found | str":
    if seen == "qwen":
        return "a Qwen Code chat, not Claude Code's or Codex's (import it with: nodwyn import qwen)"
    if seen == "codex" and tool == "claude":
        return "a Codex session, not Claude Code's (import it with: nodwyn import codex)"
    if seen == "claude" and tool == "codex" and session:
        return "a Claude Code session, not Codex's (import it with: nodwyn import claude)"
    if seen == "codex-body":
        return "Codex records without their session_meta line: not a whole session"
    if tool == "codex" and seen == "codex":
        if not session:
            return "a Codex session_meta line without an id"
        return Found("cx-" + _safe(session), session)
    if tool == "claude" and seen == "claude":
        if not session:
            return "no conversation in it (only summaries, snapshots or other bookkeeping)"
        stem = path.stem
        own = stem if _UUID.fullmatch(stem) else session
        return Found("cc-" + _safe(own), session)
    return f"not a {'Claude Code' if tool == 'claude' else 'Codex'} session log"


def _safe(session: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-]", "-", session)[:120]
