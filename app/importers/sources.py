"""Finding an agent's sources: the files below folders, and what tells that one changed.

A file named by a person is looked at whatever its name. Below a folder the agent follows,
only the files the agent names as possible sessions are; below a folder a person names for an
import, the other files of the agent's types (`Agent.content`) are read too, by their content,
since people keep copies under names of their own (`copy1.jsonl`): a session's task id comes
from what the file holds, so a copy and the original are one task whichever comes first (but
aider's, whose ids hold the history's own path: ADR 0023). A source's signature is the size
and modification time of the file and of its companions (the title file beside it, its
sub-agents' files, a database's write-ahead log), so that a change to any of them imports the
session again.
"""

import logging
import os
import time
from pathlib import Path

from .. import paths
from . import agent as agent_module
from .agent import Agent

log = logging.getLogger("nodwyn.importers")

Signature = tuple[int, int]


PASSED = frozenset(("node_modules", "__pycache__"))  # never sessions, often thousands of files


def walk(
    agent: Agent, paths: list[Path], explicit: bool
) -> tuple[list[Path], list[Path], list[Path]]:
    """(files to look at, paths named that do not exist, those of the files read by their
    content: not named as the agent names its sessions, below a folder named), in a stable
    order."""
    files, missing, renamed = [], [], []
    for path in paths:
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            named = sorted(p for p in agent.sources(path) if p.is_file())
            more = by_content(agent, path, set(named)) if explicit else []
            files.extend(named + more)
            renamed.extend(more)
        elif explicit:
            missing.append(path)
    return files, missing, renamed


def by_content(agent: Agent, folder: Path, named: set[Path]) -> list[Path]:
    """The files of the agent's types below `folder` that it does not name as sessions (nor as
    a session's companion); hidden folders and PASSED's are not walked into (a project's .venv
    alone holds thousands of files), nor nodwyn's own data folder."""
    companions = {other for path in named for other in agent.companions(path)}
    own = paths.resolved_root()  # nodwyn's own logs are no agent's copies, whatever their type
    found = []
    for top, folders, names in os.walk(folder):
        if os.path.realpath(top) == own:
            continue
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in PASSED)
        for name in names:
            path = Path(top, name)
            if path.suffix in agent.content and path not in named and path not in companions:
                found.append(path)
    return sorted(p for p in found if p.is_file())


def signature(agent: Agent, file: Path) -> Signature:
    """(total size, latest mtime in ns) of a source and its companions; OSError if it went."""
    stat = file.stat()
    size, mtime = stat.st_size, stat.st_mtime_ns
    for other in agent.companions(file):
        try:
            more = other.stat()
        except OSError:  # a companion that is not there (yet) changes nothing
            continue
        size, mtime = size + more.st_size, max(mtime, more.st_mtime_ns)
    return size, mtime


def files(agent: Agent, folders: list[Path]) -> dict[Path, Signature]:
    """Each possible source below the folders (or a file named itself) with its signature."""
    found: dict[Path, Signature] = {}
    for folder in folders:
        try:
            listed = (
                [folder] if folder.is_file() else agent.sources(folder) if folder.is_dir() else []
            )
            for file in listed:
                try:
                    found[file] = signature(agent, file)
                except OSError:  # removed between listing and stat
                    continue
        except OSError as exc:  # unreadable, unmounted or removed while walked: others count
            log.warning("cannot read %s: %s", folder, exc)
    return found


def is_live(path: Path) -> bool:
    """Whether the agent changed the source in the last minutes (it may still be writing)."""
    return quiet_at(path) > time.time()


def quiet_at(path: Path) -> float:
    """When the source stops being live if nothing writes to it again (a time.time() clock):
    what an importer held back then is final. The window is read at each call, so a test
    may narrow `agent.LIVE_FOR`."""
    return path.stat().st_mtime + agent_module.LIVE_FOR
