"""Continue (the VS Code and JetBrains extension, and its `cn` CLI): one JSON file per session
in `~/.continue/sessions/<session id>.json` (`CONTINUE_GLOBAL_DIR` moves `~/.continue`), each
rewritten whole, and `sessions.json` beside them, the index Continue lists its history from:
`[{sessionId, title, dateCreated (ms, as text), workspaceDirectory, messageCount}]`.

The title is the index's (Continue names a session from its first exchange), else the
session's own; the folder the session's `workspaceDirectory`, a `file://` URI (`file:///c%3A/x`
on Windows) or, in older sessions, a path; the time its index entry's `dateCreated`, else
the file's modification time. The index is not a session: imported by hand it is refused,
naming the sessions it lists whose files are gone. Docs: ADR 0052.
"""

import json
import re
from pathlib import Path
from urllib.parse import unquote

import msgspec

from ...log import records as r
from ..agent import Agent, Found, Session, home_of, session_near_top, torn
from ..times import at_ms, one_line

INDEX = "sessions.json"
BIGGEST = 512 * 1024 * 1024
DEFAULT_TITLE = "New Session"
_any = msgspec.json.Decoder().decode


class Continue(Agent):
    name = "continue"
    prefix = "cn-"
    whole = True
    content = (".json",)
    # Continue's CLI reads the same sessions folder; --fork goes on from a session by its id
    resume = "cn --fork {id}"

    def roots(self) -> list[Path]:
        return [home_of("CONTINUE_GLOBAL_DIR", ".continue") / "sessions"]

    def sources(self, folder: Path):
        return (p for p in sorted(folder.rglob("*.json")) if p.name != INDEX)

    def peek(self, path: Path) -> list[Found] | None:
        return session_near_top(self, path)

    def read(self, path: Path, live: bool) -> list[Session] | str:
        size = path.stat().st_size
        if size > BIGGEST:
            return f"too big to read whole ({size >> 20} MB; nodwyn reads sessions up to {BIGGEST >> 20} MB)"  # noqa: E501
        try:
            data = _any(path.read_bytes())
        except msgspec.DecodeError as exc:
            return torn(exc, live)
        why = refusal(path, data)
        if why:
            return why
        # the parser is loaded by the first session it reads: listing the agents loads none
        from .mapping import is_prompt

        if not any(is_prompt(item) for item in data["history"]):
            return "no conversation in it (no message a person wrote)"
        session = str(data["sessionId"])
        records = self.records(path, data, live)
        return [Session(Found(self.task_id(session), session), records)]

    def records(self, path: Path, data: dict, live: bool) -> list[r.Known]:
        from .mapping import Mapper

        entry = index_entry(path.parent / INDEX, str(data["sessionId"]))
        at = at_ms(_number(entry.get("dateCreated")), "") or at_ms(int(path.stat().st_mtime * 1000))
        mapper = Mapper(at, str(data.get("chatModelTitle") or ""))
        mapper.items(data["history"], live)
        start = r.SessionStart(
            at=at,
            src=r.Src(id="session"),
            project=folder_of(
                str(entry.get("workspaceDirectory") or data.get("workspaceDirectory") or "")
            ),  # noqa: E501
            origin=r.Origin(tool=self.origin, path=str(path), id=str(data["sessionId"])),
            model=next((x.model for x in mapper.out if isinstance(x, r.Reply) and x.model), ""),
        )
        out: list[r.Known] = [start]
        title = one_line(str(entry.get("title") or data.get("title") or ""))
        if title and title != DEFAULT_TITLE:
            out.append(r.SessionTitle(at=at, src=r.Src(id="title"), title=title, actor="agent"))
        return out + mapper.out


def refusal(path: Path, data) -> str:
    """Why a JSON document is not a Continue session, or "" when it is one."""
    if isinstance(data, list) and all(isinstance(x, dict) and "sessionId" in x for x in data):
        gone = [
            str(x["sessionId"])
            for x in data
            if not (path.parent / f"{x['sessionId']}.json").exists()
        ]  # noqa: E501
        named = (
            f"; it names {len(gone)} session(s) whose file is gone: {', '.join(gone[:3])}"
            if gone
            else ""
        )  # noqa: E501
        return f"Continue's index of sessions (titles, read with each session){named}"
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("history"), list)
        or "sessionId" not in data
    ):  # noqa: E501
        if isinstance(data, dict) and ("models" in data or "mcpServers" in data):
            return "Continue's configuration, not a session"
        return "not a Continue session (no sessionId and history)"
    return ""


def index_entry(index: Path, session: str) -> dict:
    try:
        listed = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    for entry in listed if isinstance(listed, list) else ():
        if isinstance(entry, dict) and entry.get("sessionId") == session:
            return entry
    return {}


def folder_of(workspace: str) -> str:
    """A workspace URI as a folder: `file:///c%3A/www/hms` -> `c:\\www\\hms`,
    `file:///home/ana/x` -> `/home/ana/x`; a path stays as it is."""
    if not workspace.startswith("file://"):
        return workspace
    path = unquote(workspace[len("file://") :])
    if re.match(r"/[A-Za-z]:", path):
        return path[1:].replace("/", "\\")
    return path


def _number(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


AGENT = Continue()
