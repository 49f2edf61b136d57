"""Sessions of Gemini CLI, Copilot CLI, OpenCode and Cursor written here in each agent's own
layout (FORMATS-AGENTS.md; the same shapes as the importers' tests), for the MCP tests of
issue 29: one conversation under way (its files changed now) and one earlier task.

Each writer takes the agents' home (tests/conftest.py's `agents_home`, where the agents'
variables point), the project's folder, a session id and the prompt, and returns the path
it wrote; `live=False` dates the files long ago, as a session that ended.
"""

import json
import os
import sqlite3
import time
from pathlib import Path

from importing import OLD, OPENCODE_TABLES


def _age(paths, live: bool) -> None:
    for path in paths:
        if not live:
            os.utime(path, (OLD, OLD))


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(at))


def gemini(home: Path, folder: Path, session: str, prompt: str, live=True) -> Path:
    """`~/.gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl` (v0.39+): the session's
    metadata line, then its messages; `.project_root` names the folder."""
    at = time.time() if live else OLD
    project = home / ".gemini" / "tmp" / folder.name
    (project / "chats").mkdir(parents=True, exist_ok=True)
    (project / ".project_root").write_text(str(folder))
    meta = {"sessionId": session, "projectHash": "ab" * 32, "startTime": _iso(at),
            "lastUpdated": _iso(at), "kind": "main"}  # fmt: skip
    asked = {"id": f"u-{session[:4]}", "timestamp": _iso(at), "type": "user",
             "content": [{"text": prompt}]}  # fmt: skip
    answer = {"id": f"g-{session[:4]}", "timestamp": _iso(at + 1), "type": "gemini",
              "content": f"Looking into it: {prompt}", "model": "gemini-2.5-pro"}  # fmt: skip
    path = project / "chats" / f"session-{time.strftime('%Y-%m-%dT%H-%M')}-{session[:8]}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in (meta, asked, answer)))
    _age([path, project / ".project_root"], live)
    return path


def copilot(home: Path, folder: Path, session: str, prompt: str, live=True) -> Path:
    """`~/.copilot/session-state/<id>/events.jsonl` with `workspace.yaml` beside it."""
    at = time.time() if live else OLD

    def event(kind: str, n: int, **data) -> dict:
        return {"type": kind, "data": data, "id": f"e{n}", "timestamp": _iso(at + n),
                "parentId": f"e{n - 1}"}  # fmt: skip

    start = {"sessionId": session, "version": 1, "producer": "copilot-agent",
             "copilotVersion": "1.0.60", "context": {"cwd": str(folder)}}  # fmt: skip
    lines = [
        event("session.start", 0, **start),
        event("user.message", 1, content=prompt),
        event("assistant.message", 2, messageId="m1", content=f"Looking into it: {prompt}"),
    ]
    path = home / ".copilot" / "session-state" / session / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (path.parent / "workspace.yaml").write_text(f"id: {session}\ncwd: {folder}\n")
    _age([path, path.parent / "workspace.yaml"], live)
    return path


def opencode(home: Path, folder: Path, sessions: dict[str, tuple[str, bool]]) -> Path:
    """`~/.local/share/opencode/opencode.db` (v1.2+ tables, only the columns read): each
    session id with its prompt and whether it is being written now."""
    path = home / ".local" / "share" / "opencode" / "opencode.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(OPENCODE_TABLES)
    model = json.dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"})
    for n, (sid, (prompt, live)) in enumerate(sessions.items()):
        ms = int((time.time() if live else OLD + n) * 1000)
        db.execute(
            "insert or replace into session values (?, 'p1', null, 'calm-fox', ?, ?, '1.16.0',"
            " ?, ?, ?, 0.0)",
            (sid, str(folder), prompt[:40], ms, ms + 900, model),
        )
        asked = {"role": "user", "time": {"created": ms, "completed": ms + 1}}
        answer = {"role": "assistant", "time": {"created": ms + 100, "completed": ms + 900},
                  "modelID": "claude-sonnet-4-5", "providerID": "anthropic"}  # fmt: skip
        texts = [(f"msg_{sid}_1", asked, prompt), (f"msg_{sid}_2", answer, f"On it: {prompt}")]
        for mid, info, words in texts:
            created = info["time"]["created"]
            db.execute("insert into message values (?, ?, ?, ?, ?)",
                       (mid, sid, created, created, json.dumps(info)))  # fmt: skip
            part = json.dumps({"type": "text", "text": words})
            db.execute("insert into part values (?, ?, ?, ?, ?, ?)",
                       ("prt_" + mid, mid, sid, created, created, part))  # fmt: skip
    db.commit()
    db.close()
    return path


def cursor(user: Path, folder: Path, composers: dict[str, tuple[str, bool]]) -> Path:
    """Cursor's User folder: the global `state.vscdb` holding each composer and its bubbles,
    and a workspace database whose `workspace.json` names `folder` and lists their headers."""
    (user / "globalStorage").mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(user / "globalStorage" / "state.vscdb")
    db.executescript(
        "create table if not exists ItemTable (key text unique, value blob);"
        "create table if not exists cursorDiskKV (key text unique, value blob);"
    )
    for n, (cid, (prompt, live)) in enumerate(composers.items()):
        ms = int((time.time() if live else OLD + n) * 1000)
        bubbles = [
            {"bubbleId": f"{cid[:4]}-1", "type": 1, "text": prompt, "createdAt": ms},
            {"bubbleId": f"{cid[:4]}-2", "type": 2, "text": f"On it: {prompt}",
             "createdAt": ms + 500},
        ]  # fmt: skip
        head = {"_v": 9, "name": prompt[:40], "createdAt": ms, "lastUpdatedAt": ms + 500,
                "status": "completed",
                "fullConversationHeadersOnly": [
                    {"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles]}  # fmt: skip
        db.execute("insert or replace into cursorDiskKV values (?, ?)",
                   (f"composerData:{cid}", json.dumps(head)))  # fmt: skip
        for b in bubbles:
            db.execute("insert or replace into cursorDiskKV values (?, ?)",
                       (f"bubbleId:{cid}:{b['bubbleId']}", json.dumps(b)))  # fmt: skip
    db.commit()
    db.close()
    space = user / "workspaceStorage" / "9f3a"
    space.mkdir(parents=True, exist_ok=True)
    (space / "workspace.json").write_text(json.dumps({"folder": folder.as_uri()}))
    db = sqlite3.connect(space / "state.vscdb")
    db.execute("create table if not exists ItemTable (key text unique, value blob)")
    heads = {"allComposers": [{"type": "head", "composerId": cid} for cid in composers]}
    db.execute("insert or replace into ItemTable values ('composer.composerData', ?)",
               (json.dumps(heads),))  # fmt: skip
    db.commit()
    db.close()
    return user / "globalStorage" / "state.vscdb"
