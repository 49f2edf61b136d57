"""The plain count of Pi, Qwen Code and Crush logs: the oracle their imports are held against
(tests/test_import_pi.py, test_import_qwen.py, test_import_crush.py).

Written from the formats alone (docs/decisions/0053-qwen-crush-pi.md), sharing nothing with the
importers. Each count is {turns, title, folder, input, output, cache_read, cache_write, cost}:
- Pi: a turn is each `message` entry whose role is `user`; the folder the header's `cwd`; the
  title the last `session_info` name, else "" (the first prompt is nodwyn's own fallback); the
  tokens each assistant message's `usage` (`input` leaves out the cache); the cost the sum of
  the `usage.cost.total` the log gives above 0.
- Qwen Code: a turn is each `user` record; the folder the records' `cwd`; the tokens each
  `qwen-code.api_response` telemetry event's (`input_token_count` holds the cached tokens,
  thoughts are output); no cost in the log.
- Crush: per session row, a turn is each `user` message; the title the session's `title`; the
  cost the row's `cost` (Crush adds each request's to it); no tokens: its `prompt_tokens` and
  `completion_tokens` are overwritten by each request (the last one's), so they are not a sum.
"""

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from plain_count import _lines


def _count(title="", folder="", turns=0) -> dict:
    return {"turns": turns, "title": title, "folder": folder, "input": 0, "output": 0,
            "cache_read": 0, "cache_write": 0, "cost": 0.0}  # fmt: skip


PI_FIELDS = (("input", "input"), ("output", "output"), ("cache_read", "cacheRead"),
             ("cache_write", "cacheWrite"))  # fmt: skip


def pi(path: Path) -> dict:
    found = _count()
    for entry in _lines(path):
        if entry.get("type") == "session":
            found["folder"] = entry.get("cwd", "")
        elif entry.get("type") == "session_info" and entry.get("name"):
            found["title"] = entry["name"]
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        found["turns"] += message.get("role") == "user"
        usage = message.get("usage") if message.get("role") == "assistant" else None
        if isinstance(usage, dict):
            for ours, theirs in PI_FIELDS:
                found[ours] += usage.get(theirs) or 0
            total = (usage.get("cost") or {}).get("total") or 0
            found["cost"] += total if total > 0 else 0
    return found


def qwen(path: Path) -> dict:
    found = _count()
    for record in _lines(path):
        found["folder"] = found["folder"] or record.get("cwd", "")
        found["turns"] += record.get("type") == "user"
        payload = record.get("systemPayload") or {}
        event = payload.get("uiEvent") if record.get("subtype") == "ui_telemetry" else None
        if isinstance(event, dict) and event.get("event.name") == "qwen-code.api_response":
            cached = event.get("cached_content_token_count") or 0
            found["input"] += (event.get("input_token_count") or 0) - cached
            found["cache_read"] += cached
            found["output"] += (event.get("output_token_count") or 0) + (
                event.get("thoughts_token_count") or 0
            )
    return found


def crush(db: Path) -> dict[str, dict]:
    """{session id: count} from a copy of the database and its WAL (SQLite reads the WAL)."""
    with tempfile.TemporaryDirectory() as folder:
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{db}{suffix}").exists():
                shutil.copyfile(f"{db}{suffix}", Path(folder) / f"crush.db{suffix}")
        connection = sqlite3.connect(Path(folder) / "crush.db")
        try:
            rows = connection.execute("select id, title, cost from sessions").fetchall()
            turns = dict(
                connection.execute(
                    "select session_id, count(*) from messages where role='user' group by 1"
                ).fetchall()
            )
        finally:
            connection.close()
    found = {}
    for sid, title, cost in rows:
        found[sid] = _count(title=title, turns=turns.get(sid, 0)) | {"cost": cost or 0.0}
    return found


def jsonl(entries: list[dict]) -> str:
    return "".join(json.dumps(e) + "\n" for e in entries)
