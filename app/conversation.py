"""Which task is "this conversation": the agent session that is calling nodwyn's MCP tools.

The rule (docs/decisions/0009-this-conversation.md), first match wins:
1. `NODWYN_SESSION` in the server's environment: a nodwyn task id, or the path of the agent's
   own session file. For scripts and for people who pin a server to one session.
2. A session id the agent sends with the call in `_meta` (Codex sends
   `x-codex-turn-metadata.session_id`; other clients `sessionId`, `threadId`, ...): the
   agent's session file with that id.
3. The agent's most recently written session file for the server's working directory (the
   agent starts the server there): Claude Code's `projects/<slug of the folder>/*.jsonl`,
   Codex's rollouts whose `session_meta.cwd` is the folder. The session making the call is
   being written as it calls, so it is the newest; two sessions of one agent running in one
   folder at once can be confused, which rule 1 or 2 avoids.

A session file found by rule 2 or 3 is imported on demand (`importers.sync.import_paths`),
so a search sees the turn under way. Nothing here writes anywhere but through the importer.
"""

import json
import os
import re
from pathlib import Path

from .errors import BadInput, NodwynError
from .store import Store, project_of

AGENTS = ("claude", "codex")
_CODEX_SCAN = 200  # newest rollouts whose first line is read when looking for the folder's session
_META_KEYS = ("sessionId", "session_id", "sessionID", "threadId", "thread_id")


class NoConversation(NodwynError):
    """The agent's own session could not be found."""

    status = 404


def claude_root() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def codex_root() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def agent_from_client(name: str) -> str | None:
    """The agent a client's `clientInfo.name` belongs to ("claude-code", "codex-mcp-client")."""
    name = (name or "").lower()
    return next((agent for agent in AGENTS if agent in name), None)


def session_id_from_meta(meta: dict | None) -> str | None:
    """A session id the client sent in a call's `_meta`, if any."""
    if not meta:
        return None
    codex = meta.get("x-codex-turn-metadata")
    if isinstance(codex, str):
        try:
            codex = json.loads(codex)
        except ValueError:
            codex = None
    for source in (codex, meta):
        if isinstance(source, dict):
            for key in _META_KEYS:
                value = source.get(key)
                if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_\-]{1,128}", value):
                    return value
    return None


def find_source(agent: str, cwd: Path, session_id: str | None = None) -> Path | None:
    """The agent's session file: by id when given, else the newest one of folder `cwd`."""
    if agent == "claude":
        projects = claude_root() / "projects"
        if session_id:
            return next(iter(sorted(projects.glob(f"*/{session_id}.jsonl"))), None)
        return _newest(
            path
            for path in (projects / claude_slug(cwd)).glob("*.jsonl")
            if not path.name.startswith("agent-")
        )
    if agent == "codex":
        files = _codex_files()
        if session_id:
            return next((path for path in files if path.stem.endswith(session_id)), None)
        files.sort(key=_mtime, reverse=True)
        return next((path for path in files[:_CODEX_SCAN] if _codex_cwd(path) == cwd), None)
    raise BadInput(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")


def claude_slug(folder: Path) -> str:
    """Claude Code's name for a project's folder: every non-alphanumeric character is '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(folder))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _newest(paths) -> Path | None:
    return max(paths, key=_mtime, default=None)


def _codex_files() -> list[Path]:
    root = codex_root()
    found: list[Path] = []
    for folder in (root / "sessions", root / "archived_sessions"):
        found.extend(folder.rglob("rollout-*.jsonl"))
    return found


def _codex_cwd(path: Path) -> Path | None:
    """The cwd in a rollout's first line (`session_meta`), or None."""
    try:
        with open(path, "rb") as handle:
            first = json.loads(handle.readline(1 << 20) or b"{}")
    except (OSError, ValueError):
        return None
    payload = first.get("payload") if isinstance(first, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return Path(project_of(cwd)) if isinstance(cwd, str) and cwd else None


def conversation(store: Store, agent: str | None, cwd: Path, meta: dict | None = None) -> str:
    """The task id of the calling session, its latest records imported first."""
    pinned = os.environ.get("NODWYN_SESSION", "").strip()
    if pinned and os.sep not in pinned and store.exists(pinned):
        return pinned
    session_id = session_id_from_meta(meta)
    if pinned:
        source, agent = Path(pinned).expanduser(), agent or _agent_of_file(Path(pinned))
    else:
        if agent is None and session_id and "x-codex-turn-metadata" in (meta or {}):
            agent = "codex"
        candidates = [agent] if agent else list(AGENTS)
        source = None
        for each in candidates:
            source = find_source(each, cwd, session_id)
            if source is not None:
                agent = each
                break
    if source is None or not source.is_file():
        raise NoConversation(
            f"nodwyn found no session of {agent or 'Claude Code or Codex'} for {cwd}"
            + (f" with id {session_id}" if session_id else "")
            + ": start nodwyn's MCP server from the agent (see `nodwyn mcp install`)"
        )
    return _import(store, "claude" if agent == "claude" else "codex", source)


def _agent_of_file(path: Path) -> str:
    return "codex" if path.name.startswith("rollout-") else "claude"


def _import(store: Store, tool: str, source: Path) -> str:
    from .importers import formats, sync  # the importer is needed only here

    report = sync.import_paths(store, tool, [source])
    tasks = [*report.created, *report.extended, *report.unchanged]
    if tasks:
        return tasks[0]
    # Not imported this time (its log busy in another process, say): the task it maps to, as
    # far as it was imported before, is still this conversation.
    found = formats.recognise(source, tool)
    if not isinstance(found, str) and store.exists(found.task):
        return found.task
    reasons = "; ".join(skip.reason for skip in report.skipped) or "no task came of it"
    raise NoConversation(f"nodwyn could not import this session ({source}): {reasons}")
