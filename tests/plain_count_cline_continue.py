"""The plain count of a Cline task folder and of a Continue session file: the oracle the
importers are held to (tests/test_import_cline.py, tests/test_import_continue.py).

Written from the formats alone (docs/decisions/0052-cline-and-continue.md), sharing nothing
with the importers: regular expressions and sums over the files as they are.
- Cline, ui_messages.json: a turn is the task (the first message) and each `user_feedback`;
  the folder is the first "Current Working Directory (…)" of an `api_req_started`; tokens and
  cost are the sums of every `api_req_started`'s tokensIn, tokensOut, cacheReads, cacheWrites
  and cost.
- Cline, api_conversation_history.json alone: a turn is each `<task>`, `<feedback>`,
  `<answer>` and `<user_message>` a user message holds; tokens the sums of `metrics.tokens`
  (prompt is input, cached is counted as cache reads).
- Continue: a turn is each `user` message with words; the title and folder the session's own
  (its index entry's title first); no tokens where no message has `usage`.
"""

import json
import re
from pathlib import Path
from urllib.parse import unquote

FOLDER = re.compile(r"Current Working Directory \((.+?)\) Files")
NAMES = {"input": "tokensIn", "output": "tokensOut", "cache_read": "cacheReads",
         "cache_write": "cacheWrites"}  # fmt: skip
SAID = re.compile(r"<(task|feedback|answer|user_message)>")


def cline(folder: Path) -> dict:
    ui = folder / "ui_messages.json"
    if ui.exists():
        return _cline_ui(json.loads(ui.read_text(encoding="utf-8")))
    return _cline_api(json.loads((folder / "api_conversation_history.json").read_text("utf-8")))


def _sums() -> dict:
    return {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0, "cost": 0.0}


def _cline_ui(messages: list) -> dict:
    found = {"turns": 1, "folder": "", **_sums()}
    for m in messages:
        found["turns"] += m.get("say") == "user_feedback"
        if m.get("say") != "api_req_started":
            continue
        info = json.loads(m["text"])
        where = FOLDER.search(info.get("request", ""))
        found["folder"] = found["folder"] or (where.group(1) if where else "")
        for ours, theirs in NAMES.items():
            found[ours] += info.get(theirs) or 0
        found["cost"] += info.get("cost") or 0
    return found


def _cline_api(messages: list) -> dict:
    found = {"turns": 0, "folder": "", **_sums(), "cost": None}
    for m in messages:
        texts = [b.get("text", "") for b in m["content"] if b.get("type") == "text"]
        if m["role"] == "user":
            found["turns"] += sum(len(SAID.findall(t)) for t in texts)
            where = next((FOLDER.search(t) for t in texts if FOLDER.search(t)), None)
            found["folder"] = found["folder"] or (where.group(1) if where else "")
        tokens = (m.get("metrics") or {}).get("tokens") or {}
        found["input"] += tokens.get("prompt") or 0
        found["output"] += tokens.get("completion") or 0
        found["cache_read"] += tokens.get("cached") or 0
    return found


def folder_of_uri(uri: str) -> str:
    """`file:///c%3A/x` -> `c:\\x`; `file:///home/x` -> `/home/x`; a plain path as it is."""
    if not uri.startswith("file://"):
        return uri
    path = unquote(uri[len("file://") :])
    return path[1:].replace("/", "\\") if re.match(r"/[A-Za-z]:", path) else path


def continue_session(path: Path, index: list | None = None) -> dict:
    session = json.loads(path.read_text(encoding="utf-8"))
    entry = next((e for e in index or () if e.get("sessionId") == session["sessionId"]), {})
    turns = 0
    usage = _sums()
    counted = False
    for item in session["history"]:
        message = item["message"]
        content = message.get("content")
        words = content if isinstance(content, str) else "".join(
            p.get("text", "") for p in content if isinstance(p, dict))  # fmt: skip
        turns += message["role"] == "user" and bool(words.strip())
        if isinstance(message.get("usage"), dict):
            counted = True
            usage["input"] += message["usage"].get("promptTokens") or 0
            usage["output"] += message["usage"].get("completionTokens") or 0
    return {
        "turns": turns,
        "title": entry.get("title") or session.get("title") or "",
        "folder": folder_of_uri(entry.get("workspaceDirectory") or session["workspaceDirectory"]),
        "usage": usage if counted else None,
        "calls": sum(len(i["message"].get("toolCalls") or ()) for i in session["history"]),
    }
