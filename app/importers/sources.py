"""Finding an agent's sources: the files below folders, and what tells that one changed.

A file named by a person is looked at whatever its name; below a folder only the files the
agent names as possible sessions are. A source's signature is the size and modification time
of the file and of its companions (the title file beside it, its sub-agents' files, a
database's write-ahead log), so that a change to any of them imports the session again.
"""

import logging
import time
from pathlib import Path

from .agent import LIVE_FOR, Agent

log = logging.getLogger("nodwyn.importers")

Signature = tuple[int, int]


def walk(agent: Agent, paths: list[Path], explicit: bool) -> tuple[list[Path], list[Path]]:
    """(files to look at, paths named that do not exist): files in a stable order."""
    files, missing = [], []
    for path in paths:
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(sorted(p for p in agent.sources(path) if p.is_file()))
        elif explicit:
            missing.append(path)
    return files, missing


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
    return path.stat().st_mtime > time.time() - LIVE_FOR
