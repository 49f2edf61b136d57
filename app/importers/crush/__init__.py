"""Crush (charmbracelet/crush) as a registered agent: each project's `.crush/crush.db`.

Crush keeps a SQLite database (WAL mode: most rows may still be in `crush.db-wal`) in a data
folder per project, `<project>/.crush/` unless its config moves it; the projects it has run in
are listed in `projects.json` beside its global data (`$CRUSH_GLOBAL_DATA`, else
`$XDG_DATA_HOME/crush`, else `~/.local/share/crush`, `%LOCALAPPDATA%\\crush` on Windows), and
those data folders are followed. The database is opened read-only (`readonly`): neither it
nor its WAL is written. Each top-level session row is a task: its title Crush's own, its
folder the project holding `.crush`; sub-agents' sessions are read with their parent (Crush
adds their cost to the parent's), their own cost left out (ADR 0053).
"""

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent import LIVE_FOR, Agent, Found, Session, home_of
from ..times import at_ms, one_line

if TYPE_CHECKING:  # imported by the first database read: listing the agents reads none
    from . import mapping

SQLITE = b"SQLite format 3\0"
NEEDS = {"sessions": {"id", "title", "prompt_tokens"}, "messages": {"session_id", "parts"}}


class Crush(Agent):
    name = "crush"
    resume = "crush --session {id}"
    prefix = "cr-"
    content = (".db",)
    whole = True

    def roots(self) -> list[Path]:
        """Crush's global data folder (its list of projects: Crush is here when it exists), and
        the data folder of each project it lists."""
        return [global_data(), *(Path(p) for p in _projects(global_data() / "projects.json"))]

    def sources(self, folder: Path):
        if folder == global_data():
            return iter(())  # its settings and list of projects; no database
        found = sorted(folder.glob("crush.db")) or sorted(folder.glob(".crush/crush.db"))
        return iter(found or sorted(folder.rglob("crush.db")))

    def companions(self, path: Path) -> list[Path]:
        return [path.with_name(path.name + "-wal")]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        # SQLite is loaded by the first database it reads: listing the agents loads none
        import sqlite3

        from .. import readonly

        with open(path, "rb") as handle:
            if handle.read(16) != SQLITE:
                return "not a Crush database (not SQLite)"
        try:
            db = readonly.connect(path)
        except sqlite3.DatabaseError as exc:
            return f"not a Crush database ({exc})"
        try:
            verdict = _verdict(readonly.tables(db))
            if verdict:
                return verdict
            db.row_factory = sqlite3.Row
            sessions = [dict(x) for x in db.execute("select * from sessions order by created_at")]
            rows = [
                dict(x) for x in db.execute("select * from messages order by created_at, rowid")
            ]
        finally:
            db.close()
        return self._sessions(path, sessions, rows, live)

    def _sessions(self, path: Path, sessions, rows, live: bool) -> list[Session]:
        by_session: dict[str, list[dict]] = {}
        for row in rows:
            by_session.setdefault(row["session_id"], []).append(row)
        known = {s["id"] for s in sessions}
        found = []
        for session in sessions:
            if session.get("parent_session_id") in known:
                continue  # a sub-agent's: read with its parent
            children = [s for s in sessions if s.get("parent_session_id") == session["id"]]
            records = _records(path, session, children, by_session, live)
            if len(records) > 1:
                found.append(Session(Found(self.task_id(session["id"]), session["id"]), records))
        return found


def global_data() -> Path:
    if os.environ.get("CRUSH_GLOBAL_DATA"):
        return Path(os.environ["CRUSH_GLOBAL_DATA"])
    if os.name == "nt" and not os.environ.get("XDG_DATA_HOME"):
        return Path(os.environ.get("LOCALAPPDATA") or home_of("", "AppData", "Local")) / "crush"
    return home_of("XDG_DATA_HOME", ".local", "share") / "crush"


def _projects(file: Path) -> list[str]:
    """The data folders of the projects Crush has run in (`projects.json`)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    listed = data.get("projects") if isinstance(data, dict) else None
    return [
        str(p.get("data_dir") or Path(p["path"]) / ".crush")
        for p in listed or ()
        if isinstance(p, dict) and isinstance(p.get("path"), str)
    ]


def _verdict(tables: dict[str, set[str]]) -> str:
    if all(columns <= tables.get(name, set()) for name, columns in NEEDS.items()):
        return ""
    if set(tables) - {"sqlite_sequence"} == {"goose_db_version"}:
        return (
            "a goose_db_version table alone: the goose migration library's, not a Crush "
            "database (nor Block's Goose agent)"
        )
    return "not a Crush database (no sessions and messages tables of Crush's)"


def _records(path: Path, session: dict, children, by_session, live: bool) -> list:
    from . import mapping

    updated = mapping.ms(session.get("updated_at"))
    written = live or time.time() * 1000 - updated < LIVE_FOR * 1000
    main = mapping.Mapper()
    _fold(main, by_session.get(session["id"], []), written)
    calls = [c for x in main.out if isinstance(x, mapping.r.Reply) for c in x.calls]
    for child in children:
        nested = mapping.Mapper(agent=one_line(child.get("title") or "sub-agent", 60))
        _fold(nested, by_session.get(child["id"], []), written)
        _place(main.out, nested.out, str(child["id"]).rsplit("$$", 1)[-1])
    last_at = at_ms(updated, "") or next((x.at for x in reversed(main.out)), "")
    if not written:
        main.end_turn()
        main.cost(session, last_at)
    start = mapping.r.SessionStart(
        at=at_ms(mapping.ms(session.get("created_at")), ""),
        src=mapping.r.Src(id="session"),
        project=_folder(path) or mapping.folder_of(calls),
        origin=mapping.r.Origin(tool=mapping.ORIGIN, path=str(path), id=session["id"]),
        model=main.model,
    )
    title = one_line(session.get("title") or "")
    named = (
        [
            mapping.r.SessionTitle(
                at=start.at, src=mapping.r.Src(id="title"), title=title, actor="agent"
            )
        ]
        if title
        else []
    )
    return [start, *named, *main.out]


def _fold(mapper: "mapping.Mapper", rows: list[dict], written: bool) -> None:
    """The session's messages in order; while it is written, an answer without its `finish`
    part is still streaming (Crush rewrites it in place) and waits, with all after it."""
    from . import mapping

    for row in rows:
        if written and row["role"] == "assistant" and not mapping.finished(row):
            return
        mapper.message(row)


def _place(out: list, nested: list, call: str) -> None:
    """A sub-agent's records after the result of the call that started it (else its call)."""
    from . import mapping

    spots = [i for i, x in enumerate(out) if isinstance(x, mapping.r.Result) and x.call == call]
    spots = spots or [
        i
        for i, x in enumerate(out)
        if isinstance(x, mapping.r.Reply) and any(c.id == call for c in x.calls)
    ]
    at = spots[0] + 1 if spots else len(out)
    out[at:at] = nested


def _folder(path: Path) -> str:
    """The project holding `.crush`, or the one `projects.json` names for this data folder."""
    if path.parent.name == ".crush":
        return str(path.parent.parent)
    try:
        data = json.loads((global_data() / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    for project in data.get("projects") or () if isinstance(data, dict) else ():
        if isinstance(project, dict) and project.get("data_dir") == str(path.parent):
            return str(project.get("path") or "")
    return ""


AGENT = Crush()
