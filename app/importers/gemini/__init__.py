"""Gemini CLI (google-gemini/gemini-cli) as a registered agent: `~/.gemini/tmp/*/chats/`.

Sessions are `session-<time>-<id8>.json` (rewritten whole, up to v0.38) or `.jsonl`
(appended, with `$set` and `$rewindTo` lines, from v0.39); both are read whole and folded
(`fold`), so re-reading either never doubles a record (app/importers/whole.py). The project
folder comes from the project folder's `.project_root`, else `projects.json` (slug or
sha256 hash folders), else the workspace folder Gemini wrote into the session; sub-agents'
files (`chats/<parent session id>/<id>.jsonl`, `kind: subagent`) are read with their parent
and placed after the call that started them. Docs: ADR 0019.
"""

import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ...log import records as r
from .. import names
from ..agent import Agent, Found, Session, home_of, session_near_top
from ..times import at_of

if TYPE_CHECKING:  # the fold is imported by the first session read: listing the agents reads none
    from . import fold as folding

ORIGIN = names.origin("gemini")
_WORKSPACE = re.compile(
    r"(?:Workspace Directories:\*\*|workspace directories:)\s*\n\s*-\s+(.+)", re.I
)
_HEX64 = re.compile(r"[0-9a-f]{64}")


class Gemini(Agent):
    name = "gemini"
    resume = "gemini --resume {id}"
    prefix = "gm-"
    whole = True

    def roots(self) -> list[Path]:
        # GEMINI_CLI_HOME replaces the home folder `.gemini` is placed under (v0.25+)
        return [home_of("GEMINI_CLI_HOME") / ".gemini" / "tmp"]

    def sources(self, folder: Path):
        for path in folder.rglob("session-*.json*"):
            if path.suffix in (".json", ".jsonl") and not _is_subagent_file(path):
                yield path

    def companions(self, path: Path) -> list[Path]:
        return [path.parent.parent / ".project_root", *_subagent_files(path)]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        if _is_subagent_file(path):
            return "a Gemini CLI sub-agent's file: imported with the session that started it"
        # the parser is loaded by the first session it reads: listing the agents loads none
        from . import fold as folding
        from .mapping import is_prompt

        folded = folding.fold(path.read_bytes())
        if isinstance(folded, str):
            return folded
        meta = folded.meta
        if meta.get("kind") == "subagent":
            return "a Gemini CLI sub-agent's file: imported with the session that started it"
        if not any(is_prompt(m) for m in folded.messages):
            return (
                "no conversation in it (only Gemini CLI's session context, nothing a person wrote)"
            )
        session = str(meta["sessionId"])
        return [Session(Found(self.task_id(session), session), self.records(path, folded, live))]

    def peek(self, path: Path) -> list[Found] | None:
        """The session id near the top of the file (the first line of a `.jsonl`, an early
        key of a `.json`)."""
        return session_near_top(self, path)

    def records(self, path: Path, folded: "folding.Folded", live: bool) -> list[r.Known]:
        from .mapping import Mapper

        meta = folded.meta
        mapper = Mapper(subagents=_finder(path, str(meta["sessionId"])))
        mapper.messages(folded.messages, live)
        if not live:
            mapper.end_turn()
        first_at = next((x.at for x in mapper.out if x.at), "")
        start = r.SessionStart(
            at=_at(meta.get("startTime")) or first_at,
            src=r.Src(id="session"),
            project=project_of(path, folded),
            origin=r.Origin(tool=ORIGIN, path=str(path), id=str(meta["sessionId"])),
            model=next((x.model for x in mapper.out if isinstance(x, r.Reply) and x.model), ""),
        )
        out: list[r.Known] = [start]
        summary = meta.get("summary")
        if isinstance(summary, str) and summary.strip():
            title = " ".join(summary.split())[:120]
            out.append(
                r.SessionTitle(at=start.at, src=r.Src(id="summary"), title=title, actor="agent")
            )
        return out + mapper.out


def project_of(path: Path, folded: "folding.Folded") -> str:
    """The folder the session ran in: `.project_root`, `projects.json`, else the session's own
    workspace listing, else its `directories`."""
    from .mapping import parts_of

    chats = path.parent
    folder = chats.parent if chats.name == "chats" else None
    if folder is not None:
        try:
            root = (folder / ".project_root").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            root = ""
        if root:
            return root
        known = _projects(folder.parent.parent / "projects.json")
        for project, slug in known.items():
            if slug == folder.name or (
                _HEX64.fullmatch(folder.name) and _sha(project) == folder.name
            ):
                return project
    for message in folded.messages[:8]:
        for part in parts_of(message.get("content")):
            found = (
                _WORKSPACE.search(str(part.get("text") or ""))
                if message.get("type") in ("user", "info")
                else None
            )
            if found:
                return found.group(1).strip()
    directories = folded.meta.get("directories")
    if isinstance(directories, list) and directories and isinstance(directories[0], str):
        return directories[0]
    return ""


def _projects(file: Path) -> dict[str, str]:
    """`~/.gemini/projects.json`: {"projects": {path: slug}} (v0.29+)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {str(k): str(v) for k, v in projects.items()}


def _sha(project: str) -> str:
    return hashlib.sha256(project.encode()).hexdigest()


def _at(stamp) -> str:
    return at_of(stamp, "")


def _is_subagent_file(path: Path) -> bool:
    """`chats/<parent session id>/<id>.jsonl`: below a folder that is below `chats`."""
    return path.parent.parent.name == "chats"


def _subagent_files(path: Path) -> list[Path]:
    short = path.stem.rsplit("-", 1)[-1]
    if path.parent.name != "chats" or len(short) < 8:
        return []
    return sorted(
        p
        for folder in path.parent.glob(f"{short}*")
        if folder.is_dir()
        for p in folder.glob("*.jsonl")
    )


def _finder(path: Path, session: str):
    """How a session finds a sub-agent's file by its agent id (`chats/<session>/<id>.jsonl`)."""

    def find(agent_id: str):
        from . import fold as folding

        file = path.parent / session / f"{agent_id}.jsonl"
        if not file.is_file():
            return None
        folded = folding.fold(file.read_bytes())
        if isinstance(folded, str):
            return None
        return f"{session}/{file.name}", folded.messages

    return find


AGENT = Gemini()
