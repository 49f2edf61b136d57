"""OpenCode's three stores read into one shape: a session's info and its messages with parts.

- `opencode.db` (v1.2+): SQLite, opened read-only and never copied (`readonly`): the same
  file holds the person's account tokens (`account`, `control_account`), so only `session`,
  `message` and `part` are ever queried.
  The schema is told from `sqlite_master`; one this reader does not know (2.x's
  `session_message` with rows, the Go "OpenCode" that is now Crush) is refused whole.
- `storage/` (before 1.2): `session/<project>/<id>.json`, `message/<session>/<id>.json`,
  `part/<message>/<id>.json`, each a JSON object with its ids inline.
- `opencode export` output: `{info, messages: [{info, parts}]}`.

Every message and part comes out as a plain dict with its `id` (and a part's `messageID`), in
the order the agent made them (ids are time-ordered; rows also by `time_created`).
"""

import json
import sqlite3
from pathlib import Path

import msgspec

from .. import readonly
from ..loose import objects, shaped

DB_TABLES = {"session", "message", "part"}
KNOWN_DB = {
    "session": {"id", "parent_id", "directory", "title", "version", "time_created"},
    "message": {"id", "session_id", "time_created", "data"},
    "part": {"id", "message_id", "session_id", "time_created", "data"},
}


TIMES = {"created": int, "updated": int, "completed": int, "start": int, "end": int}
TOKENS = {"input": int, "output": int, "reasoning": int, "cache": {"read": int, "write": int}}
SESSION = {
    "id": str,
    "parentID": str,
    "directory": str,
    "title": str,
    "version": str,
    "agent": str,
    "time": TIMES,
    "model": {"id": str, "modelID": str},
}
MESSAGE = {
    "id": str,
    "role": str,
    "modelID": str,
    "finish": str,
    "time": TIMES,
    "tokens": TOKENS,
    "cost": float,
    "error": {"name": str, "data": {"message": str}},
}
PART = {
    "id": str,
    "type": str,
    "text": str,
    "filename": str,
    "url": str,
    "callID": str,
    "tool": str,
    "time": TIMES,
    "tokens": TOKENS,
    "cost": float,
    "state": {
        "status": str,
        "time": TIMES,
        "metadata": {"sessionId": str},
    },
}


class Conv(msgspec.Struct, kw_only=True):
    """One OpenCode session: its info (ids inline) and its messages, each with its parts."""

    info: dict
    messages: list[tuple[dict, list[dict]]]


def conv(info, messages) -> Conv:
    """A session with every object given the shape the mapping reads (`loose`)."""
    kept = [
        (shaped(m, MESSAGE), [shaped(p, PART) for p in objects(parts)])
        for m, parts in messages
        if isinstance(m, dict)
    ]
    return Conv(info=shaped(info, SESSION), messages=kept)


class Refused(Exception):
    """A store this reader does not know: the reason says which and why."""


def check_schema(tables: dict[str, set[str]], db: sqlite3.Connection) -> None:
    """Refuse a database whose conversation tables are not the v1.2+ ones this reader knows."""
    if {"sessions", "messages"} <= set(tables) and "part" not in tables:
        raise Refused("the Go OpenCode (now Charm Crush) database, not sst/opencode's")
    missing = [name for name, cols in KNOWN_DB.items() if not cols <= tables.get(name, set())]
    if missing:
        if "session_message" in tables or "session_v2" in tables:
            raise Refused("an OpenCode 2.x database (session_message): not known to this nodwyn")
        raise Refused(f"not an OpenCode database this nodwyn knows (no {', '.join(missing)})")
    if "session_message" in tables:
        (moved,) = db.execute("select count(*) from session_message").fetchone()
        (kept,) = db.execute("select count(*) from message").fetchone()
        if moved and not kept:
            raise Refused("an OpenCode 2.x database (its messages in session_message)")


def from_db(path: Path) -> list[Conv]:
    try:
        db = readonly.connect(path)
    except sqlite3.DatabaseError as exc:
        raise Refused(f"not a readable SQLite database ({exc})") from None
    try:
        check_schema(readonly.tables(db), db)
        return _db_sessions(db)
    except sqlite3.DatabaseError as exc:
        raise Refused(f"the database could not be read ({exc})") from None
    finally:
        db.close()


def _db_sessions(db: sqlite3.Connection) -> list[Conv]:
    db.row_factory = sqlite3.Row
    cols = {row[1] for row in db.execute("pragma table_info(session)")}
    extra = [c for c in ("model", "agent", "cost", "time_updated", "time_archived") if c in cols]
    picked = ", ".join(["id", "parent_id", "directory", "title", "version", "time_created", *extra])
    parts: dict[str, list[dict]] = {}
    for row in db.execute("select id, message_id, data from part order by time_created, id"):
        parts.setdefault(row["message_id"], []).append(_data(row["data"], id=row["id"]))
    messages: dict[str, list[tuple[dict, list[dict]]]] = {}
    query = "select id, session_id, data from message order by time_created, id"
    for row in db.execute(query):
        info = _data(row["data"], id=row["id"], sessionID=row["session_id"])
        messages.setdefault(row["session_id"], []).append((info, parts.get(row["id"], [])))
    out = []
    for row in db.execute(f"select {picked} from session order by time_created, id"):
        info = {key: row[key] for key in row.keys()}  # noqa: SIM118 (sqlite3.Row)
        info["parentID"] = info.pop("parent_id")
        info["time"] = {"created": info.pop("time_created"), "updated": info.pop("time_updated", 0)}
        if isinstance(info.get("model"), str):
            info["model"] = _data(info["model"])
        out.append(conv(info, messages.get(info["id"], [])))
    return out


def _data(text, **ids) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except ValueError:
        value = None
    return (value if isinstance(value, dict) else {}) | ids


def from_export(data: dict) -> Conv:
    messages = [(m.get("info"), m.get("parts")) for m in objects(data.get("messages"))]
    return conv(data["info"], messages)


def is_export(data) -> bool:
    info = data.get("info") if isinstance(data, dict) else None
    return (
        isinstance(info, dict)
        and str(info.get("id", "")).startswith("ses_")
        and isinstance(data.get("messages"), list)
    )


def storage_root(session_file: Path) -> Path | None:
    """`storage/` for a `storage/session/<project>/<id>.json` file, if that is where it is."""
    parents = session_file.parents
    if len(parents) >= 3 and parents[1].name == "session":
        return parents[2]
    return None


def from_storage(session_file: Path, info: dict) -> Conv:
    """A session of the file tree before 1.2: its messages and parts from their folders."""
    root = storage_root(session_file)
    messages = []
    if root is not None:
        for file in sorted((root / "message" / info["id"]).glob("*.json")):
            message = _json_file(file)
            if message is None:
                continue
            message.setdefault("id", file.stem)
            if not isinstance(message["id"], str):
                message["id"] = file.stem
            parts = [_json_file(p) for p in sorted((root / "part" / file.stem).glob("*.json"))]
            messages.append((message, [p for p in parts if p is not None]))
    found = conv(info, messages)
    found.messages.sort(key=lambda m: (m[0]["time"]["created"], m[0]["id"]))
    return found


def _json_file(path: Path) -> dict | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
