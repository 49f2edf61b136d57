"""Which task is "this conversation": the agent session that is calling nodwyn's MCP tools.

The rule (ADR 0009 and ADR 0035), first match wins:
1. `NODWYN_SESSION` in the server's environment: a nodwyn task id, or the path of the agent's
   own session file. For scripts and for people who pin a server to one session.
2. A session id the agent sends with the call in `_meta` (Codex sends
   `x-codex-turn-metadata.session_id`, OpenCode `sessionID`; other clients `sessionId`,
   `threadId`, ...): the agent's session with that id.
3. The agent's session of the server's folder that is being written (`live_sessions`: where
   each agent keeps it). The session making the call is being written as it calls; two
   sessions of one agent running in one folder at once can be confused, which 1 or 2 avoids.

When none is found, this conversation is not known yet (`NotKnownYet`): the tools say so,
and earlier tasks of the folder's project are still searched where the person allows it.
A session found by rule 2 or 3 is imported on demand (`importers.sync.import_paths`), so a
search sees the turn under way. Nothing here writes anywhere but through the importer.
"""

import json
import os
import re
import time
from datetime import datetime
from pathlib import Path

from ..errors import BadInput, NodwynError
from ..importers import names
from ..tasks.store import Store
from . import live_sessions
from .live_sessions import claude_root, claude_slug, codex_root  # noqa: F401 (their names)

AGENTS = tuple(live_sessions.FINDERS)  # the agents that speak MCP, in the registry's order
_META_KEYS = ("sessionId", "session_id", "sessionID", "threadId", "thread_id")


class NoConversation(NodwynError):
    """The agent's own session could not be found."""

    status = 404


class NotKnownYet(NoConversation):
    """No session of the agent is being written in the server's folder: earlier tasks only."""


def agent_from_client(name: str) -> str | None:
    """The agent a client's `clientInfo.name` belongs to ("claude-code", "codex-mcp-client",
    "gemini-cli-mcp-client", "opencode", "cursor-vscode", "github-copilot-developer")."""
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
    """The agent's session source: by id when given, else the folder's session being written."""
    finder = live_sessions.FINDERS.get(agent)
    if finder is None:
        raise BadInput(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
    return finder(cwd, session_id)


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
        # not told which agent: those whose sessions are files (a database is imported only
        # for the agent that names itself)
        candidates = [agent] if agent else [a for a in AGENTS if a not in live_sessions.SHARED]
        source = None
        for each in candidates:
            source = find_source(each, cwd, session_id)
            if source is not None:
                agent = each
                break
    if source is None or not source.is_file():
        raise not_known(agent, cwd, session_id)
    return _import(store, agent, source, cwd, session_id)


def not_known(agent: str | None, cwd: Path, session_id: str | None) -> NotKnownYet:
    whose = f"{agent} ({names.label(agent)})" if agent in names.AGENTS else "any agent"
    install = f"nodwyn mcp install {agent or 'AGENT'}"
    return NotKnownYet(
        f"this conversation is not known yet: earlier tasks only. nodwyn found no session of "
        f"{whose} being written for {cwd}"
        + (f" with id {session_id}" if session_id else "")
        + f": start nodwyn's MCP server from the agent (see `{install}`)"
    )


def _agent_of_file(path: Path) -> str:
    return "codex" if path.name.startswith("rollout-") else "claude"


def _import(store: Store, agent: str, source: Path, cwd: Path, session_id: str | None) -> str:
    from ..importers import registry, sync  # the importer is needed only here

    report = sync.import_paths(store, agent, [source])
    tasks = [*report.created, *report.extended, *report.unchanged]
    if live_sessions.is_shared(agent, source):
        return _chosen(store, agent, tasks, cwd, session_id)
    if tasks:
        return tasks[0]
    # Not imported this time (its log busy in another process, say): the task it maps to, as
    # far as it was imported before, is still this conversation.
    importer = registry.get(agent)
    found = importer.peek(source) if importer.whole else [importer.recognise(source)]
    task = next((f.task for f in found or () if not isinstance(f, str)), None)
    if task and store.exists(task):
        return task
    reasons = "; ".join(skip.reason for skip in report.skipped) or "no task came of it"
    raise NoConversation(f"nodwyn could not import this session ({source}): {reasons}")


def _chosen(store: Store, agent: str, tasks: list[str], cwd: Path, session: str | None) -> str:
    """The caller's task among a database's: by its id, else the folder's task last written
    in the last LIVE_FOR seconds."""
    from ..importers import registry
    from ..importers.agent import LIVE_FOR

    if session:
        task = registry.get(agent).task_id(session)
        if store.exists(task):
            return task
        raise not_known(agent, cwd, session)
    folder = str(cwd)
    infos = [store.get(task) for task in tasks if store.exists(task)]
    mine = [info for info in infos if info.project == folder]
    newest = max(mine, key=lambda info: info.last_activity, default=None)
    if newest is None or _age(newest.last_activity) > LIVE_FOR:
        raise not_known(agent, cwd, None)
    return newest.id


def _age(at: str) -> float:
    """Seconds since an ISO time ("2026-05-01T10:00:00.000Z"); unreadable: very old."""
    try:
        return time.time() - datetime.fromisoformat(at).timestamp()
    except ValueError:
        return float("inf")
