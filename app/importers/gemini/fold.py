"""A Gemini CLI session file folded into its metadata and its messages, whatever its version.

Three shapes (ADR 0019, FORMATS-AGENTS.md 1):
- `.json` up to v0.38 and `/export-session` files: one ConversationRecord, rewritten whole;
- `.jsonl` from v0.39: a metadata line, then message lines (an id written again replaces its
  earlier copy in place), `{"$set": {...}}` patches (`messages` replaces the list) and
  `{"$rewindTo": id}` (that message and all after it are taken back).

nodwyn's logs never lose what was imported, so the fold keeps every message ever written,
in the order first written, with its latest copy: a `$set.messages` list updates the
messages it names and adds the new ones after; a rewind marks the messages it took back
(`rewound`), which stay. A file none of whose lines is Gemini's is refused with the reason.
"""

from typing import Any

import msgspec

from ..agent import PROBE, blank_or_binary

_any = msgspec.json.Decoder().decode
SESSION_KEYS = ("sessionId", "projectHash", "startTime")


class Folded(msgspec.Struct, kw_only=True):
    meta: dict  # sessionId, projectHash, startTime, lastUpdated, summary, directories, kind
    messages: list[dict]  # every message ever written, in first-written order, latest copy
    rewound: set[str] = set()  # ids a /rewind took back (kept, not the current history)
    starts: int = 1  # metadata lines met (an a2a-server file holds several sessions' lines)


def fold(data: bytes) -> Folded | str:
    """The session a file holds, or why it is not a Gemini CLI session."""
    reason = blank_or_binary(data[:PROBE])
    if reason:
        return reason
    whole = _whole_document(data.lstrip())
    if whole is not None:
        return whole
    return _lines(data)


def _whole_document(data: bytes) -> "Folded | str | None":
    """A ConversationRecord written whole (`.json`), or None when the file is not one JSON."""
    if not data.startswith((b"{", b"[")):
        return None
    try:
        doc = _any(data)
    except msgspec.DecodeError:
        return None
    if isinstance(doc, list):
        if doc and all(isinstance(x, dict) and "messageId" in x for x in doc):
            return "Gemini CLI's prompt log (logs.json), not a session (its prompts are in them)"
        return "a JSON list, not a Gemini CLI session"
    if not isinstance(doc, dict) or not _is_meta(doc) or not isinstance(doc.get("messages"), list):
        if isinstance(doc, dict) and isinstance(doc.get("history"), list):
            return "a Gemini CLI checkpoint (/chat save): raw API history, not a session"
        return "not a Gemini CLI session (no sessionId, startTime and messages)"
    meta = {k: v for k, v in doc.items() if k != "messages"}
    messages = [m for m in doc["messages"] if _is_message(m)]
    return Folded(meta=meta, messages=_unique(messages))


def _lines(data: bytes) -> Folded | str:
    meta: dict | None = None
    order: dict[str, dict] = {}
    rewound: set[str] = set()
    starts = 0
    lines = data.split(b"\n")
    if lines and lines[-1].strip() and not _is_object(lines[-1]):
        lines.pop()  # a torn last line: the agent is writing it
    for raw in lines:
        if not raw.strip():
            continue
        try:
            line = _any(raw)
        except msgspec.DecodeError:
            continue  # a bad line is skipped; the rest is read
        if not isinstance(line, dict):
            continue
        if meta is None or ("$set" not in line and "$rewindTo" not in line and _is_meta(line)):
            if not _is_meta(line):
                return "not a Gemini CLI session (its first line is not a session's metadata)"
            meta = {**(meta or {}), **line}
            starts += 1
        elif isinstance(line.get("$set"), dict):
            _apply_set(meta, order, line["$set"])
        elif isinstance(line.get("$rewindTo"), str):
            rewound |= _after(order, line["$rewindTo"])
        elif _is_message(line):
            _put(order, line)
    if meta is None:
        return "not a Gemini CLI session (no metadata line)"
    return Folded(meta=meta, messages=list(order.values()), rewound=rewound, starts=starts)


def _apply_set(meta: dict, order: dict[str, dict], patch: dict) -> None:
    for key, value in patch.items():
        if key == "messages" and isinstance(value, list):
            for message in value:
                if _is_message(message):
                    _put(order, message)
        elif key != "messages":
            meta[key] = value


def _put(order: dict[str, dict], message: dict) -> None:
    """The latest copy of a message, in the place its first copy took."""
    order[message["id"]] = message


def _after(order: dict[str, dict], first: str) -> set[str]:
    ids = list(order)
    return set(ids[ids.index(first) :]) if first in order else set()


def _unique(messages: list[dict]) -> list[dict]:
    order: dict[str, dict] = {}
    for message in messages:
        _put(order, message)
    return list(order.values())


def _is_meta(line: dict) -> bool:
    return isinstance(line.get("sessionId"), str) and all(k in line for k in SESSION_KEYS)


def _is_message(line: Any) -> bool:
    return (
        isinstance(line, dict)
        and isinstance(line.get("id"), str)
        and isinstance(line.get("type"), str)
        and "content" in line
    )


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(_any(raw), dict)
    except msgspec.DecodeError:
        return False
