"""Where each agent that speaks MCP keeps the session that calls nodwyn's tools: one finder per
agent, chosen from one table (`FINDERS`), each given the folder the agent works in and the
session id the agent sent (None when it sent none).

A finder names the source to import: the session's own file, or the database that holds it
(OpenCode's `opencode.db`, Cursor's `state.vscdb`), where the session is picked after the
import (`conversation`). Without an id, only a file still being written counts (changed in
the last `LIVE_FOR` seconds): the caller is writing its session as it calls, and an older
file is an earlier task, not this conversation (ADR 0035).

- Claude Code: `projects/<folder's slug>/<id>.jsonl`; Codex: rollouts whose `session_meta`
  names the folder (ADR 0009: the newest, written or not, as before).
- Gemini CLI: `~/.gemini/tmp/<project>/chats/session-*-<id8>.json(l)`, the project folder
  found as its importer finds it (`.project_root`, `projects.json`'s slug, the sha256 of the
  path).
- Copilot CLI: `session-state/<id>/events.jsonl`, the folder from `workspace.yaml`'s `cwd`
  (or the flat `<id>.jsonl`).
- OpenCode: the newest `opencode*.db`, else `storage/session/*/<id>.json`; it sends its
  session id with every call (`_meta.sessionID`).
- Cursor: the global `state.vscdb`, whose composers are placed in their folder by the
  workspace databases beside it.
- Qwen Code: `~/.qwen/projects/<the folder, each character not a letter or digit as ->/chats/
  <id>.jsonl`.
- Crush: the folder's own `.crush/crush.db` (every session of the project is in it).
- Cline: the task folder being written whose requests' environment details name the folder.
- Continue: `~/.continue/sessions/<id>.json` being written whose workspace is the folder.

Nothing here writes; files are only listed and their first bytes read.
"""

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import quote

from ..importers.agent import LIVE_FOR, home_of
from ..tasks.store import project_of

_CODEX_SCAN = 200  # newest rollouts whose first line is read when looking for the folder's session
_HEAD = 64 * 1024


def claude_root() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def codex_root() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def gemini_root() -> Path:
    return home_of("GEMINI_CLI_HOME") / ".gemini"


def copilot_root() -> Path:
    return home_of("COPILOT_HOME", ".copilot")


def opencode_root() -> Path:
    return home_of("XDG_DATA_HOME", ".local", "share") / "opencode"


def qwen_root() -> Path:
    """The folder holding Qwen Code's `projects` (`QWEN_RUNTIME_DIR`, else `QWEN_HOME`)."""
    runtime = os.environ.get("QWEN_RUNTIME_DIR")
    return Path(runtime) if runtime else home_of("QWEN_HOME", ".qwen")


def claude_slug(folder: Path) -> str:
    """Claude Code's name for a project's folder: every non-alphanumeric character is '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(folder))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _newest(paths: Iterable[Path]) -> Path | None:
    return max(paths, key=_mtime, default=None)


def _live(paths: Iterable[Path]) -> Path | None:
    """The newest of the files changed in the last LIVE_FOR seconds: the one being written."""
    since = time.time() - LIVE_FOR
    return _newest(path for path in paths if _mtime(path) > since)


def claude(cwd: Path, session: str | None) -> Path | None:
    projects = claude_root() / "projects"
    if session:
        return next(iter(sorted(projects.glob(f"*/{session}.jsonl"))), None)
    files = (projects / claude_slug(cwd)).glob("*.jsonl")
    return _newest(path for path in files if not path.name.startswith("agent-"))


def codex(cwd: Path, session: str | None) -> Path | None:
    root = codex_root()
    files = [p for f in ("sessions", "archived_sessions") for p in (root / f).rglob("rollout-*")]
    files = [path for path in files if path.suffix == ".jsonl"]
    if session:
        return next((path for path in files if path.stem.endswith(session)), None)
    files.sort(key=_mtime, reverse=True)
    return next((path for path in files[:_CODEX_SCAN] if _first_cwd(path) == cwd), None)


def _first_cwd(path: Path) -> Path | None:
    """The cwd in a rollout's first line (`session_meta`), or None."""
    try:
        with open(path, "rb") as handle:
            first = json.loads(handle.readline(1 << 20) or b"{}")
    except (OSError, ValueError):
        return None
    payload = first.get("payload") if isinstance(first, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return Path(project_of(cwd)) if isinstance(cwd, str) and cwd else None


def gemini(cwd: Path, session: str | None) -> Path | None:
    tmp = gemini_root() / "tmp"
    if session:
        found = tmp.glob(f"*/chats/session-*-{session[:8]}.json*")
        return _newest(path for path in found if path.suffix in (".json", ".jsonl"))
    chats = [folder / "chats" for folder in _gemini_projects(tmp, cwd)]
    files = (p for c in chats for p in c.glob("session-*.json*") if p.suffix in (".json", ".jsonl"))
    return _live(files)


def _gemini_projects(tmp: Path, cwd: Path) -> list[Path]:
    """The folders below `tmp` that Gemini CLI keeps `cwd`'s sessions in (its three ways)."""
    folder = str(cwd)
    found = [tmp / hashlib.sha256(folder.encode()).hexdigest()]
    try:
        known = json.loads((gemini_root() / "projects.json").read_text(encoding="utf-8"))
        slug = known["projects"][folder]
        found.append(tmp / str(slug))
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        pass
    for marker in tmp.glob("*/.project_root"):
        try:
            if marker.read_text(encoding="utf-8").strip() == folder:
                found.append(marker.parent)
        except (OSError, UnicodeDecodeError):
            continue
    return [path for path in dict.fromkeys(found) if path.is_dir()]


def copilot(cwd: Path, session: str | None) -> Path | None:
    state = copilot_root() / "session-state"
    if session:
        paths = (state / session / "events.jsonl", state / f"{session}.jsonl")
        return next((path for path in paths if path.is_file()), None)
    return _live(path for path in state.glob("*/events.jsonl") if _copilot_cwd(path) == cwd)


def _copilot_cwd(events: Path) -> Path | None:
    """The folder a session runs in: `workspace.yaml`'s cwd, else its session.start's."""
    try:
        text = (events.parent / "workspace.yaml").read_text(encoding="utf-8")
        found = re.search(r"^cwd:\s*['\"]?(.+?)['\"]?\s*$", text, re.M)
    except (OSError, UnicodeDecodeError):
        found = None
    if found:
        return Path(project_of(found.group(1)))
    try:
        with open(events, "rb") as handle:
            first = json.loads(handle.readline(_HEAD) or b"{}")
        context = first["data"]["context"]["cwd"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Path(project_of(context)) if isinstance(context, str) else None


def opencode(cwd: Path, session: str | None) -> Path | None:
    root = opencode_root()
    database = _newest(root.glob("opencode*.db"))
    if database is not None:
        return database  # every session is in it: picked after the import
    stored = root / "storage" / "session"
    if session:
        return next(iter(sorted(stored.glob(f"*/{session}.json"))), None)
    return _live(path for path in stored.glob("*/ses_*.json") if _opencode_dir(path) == cwd)


def _opencode_dir(info: Path) -> Path | None:
    try:
        directory = json.loads(info.read_bytes()).get("directory")
    except (OSError, ValueError, AttributeError):
        return None
    return Path(project_of(directory)) if isinstance(directory, str) and directory else None


def cursor(cwd: Path, session: str | None) -> Path | None:
    from ..importers.cursor import user_dir

    database = user_dir() / "globalStorage" / "state.vscdb"
    return database if database.is_file() else None


def qwen(cwd: Path, session: str | None) -> Path | None:
    projects = qwen_root() / "projects"
    if session:
        return _newest(projects.glob(f"*/chats/{session}.jsonl"))
    return _live((projects / re.sub(r"[^A-Za-z0-9]", "-", str(cwd)) / "chats").glob("*.jsonl"))


def crush(cwd: Path, session: str | None) -> Path | None:
    database = cwd / ".crush" / "crush.db"
    return database if database.is_file() else None


def cline(cwd: Path, session: str | None) -> Path | None:
    """The task being written whose requests name the folder (Cline sends no session id);
    else the one task being written."""
    from ..importers import registry

    agent = registry.get("cline")
    tasks = [p for root in agent.roots() if root.is_dir() for p in agent.sources(root)]
    if session:
        return next((p for p in tasks if p.parent.name == session), None)
    written = [p for p in tasks if _mtime(p) > time.time() - LIVE_FOR]
    named = [p for p in written if _names(p, cwd)]
    return _newest(named) or (written[0] if len(written) == 1 else None)


def _names(path: Path, cwd: Path) -> bool:
    """Whether a file's first bytes name the folder (as a JSON string or as text)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD).decode("utf-8", "replace")
    except OSError:
        return False
    return str(cwd) in head or json.dumps(str(cwd))[1:-1] in head


def continue_(cwd: Path, session: str | None) -> Path | None:
    """Continue's session file by id, else the one being written whose workspace is the folder."""
    folder = home_of("CONTINUE_GLOBAL_DIR", ".continue") / "sessions"
    if session:
        path = folder / f"{session}.json"
        return path if path.is_file() else None
    files = (p for p in folder.glob("*.json") if p.name != "sessions.json")
    return _live(p for p in files if _names(p, cwd) or _names(p, Path(quote(cwd.as_posix()))))


FINDERS: dict[str, Callable[[Path, str | None], Path | None]] = {
    "claude": claude,
    "codex": codex,
    "gemini": gemini,
    "copilot": copilot,
    "opencode": opencode,
    "cursor": cursor,
    "qwen": qwen,
    "crush": crush,
    "cline": cline,
    "continue": continue_,
}

# Sources holding many sessions: the caller's is chosen among their tasks after the import.
SHARED = {"opencode": (".db",), "cursor": (".vscdb",), "crush": (".db",)}


def is_shared(agent: str, source: Path) -> bool:
    return source.suffix in SHARED.get(agent, ())
