"""Which logs changed since the word index last saw them: from the change journal (the logs
its notes name, one stat each), or by a full check (one stat per log).

The index's state remembers where in the journal it got to (generation and offset) and when
the last full check ran. A search reads the journal from there; a search after no change at all
costs one stat of the journal and no per-log work. A full check runs when the journal cannot be
trusted (another generation, a torn note: see log/journal.py), when the caller asks for one (the
desktop app's first pass after it starts, so a log changed while nodwyn was not running is
found) and at most FULL_EVERY_NS after the last one otherwise, so a log changed behind nodwyn's
back with no app watching (a restore, an editor) is found within that time.
"""

import os
import time
from pathlib import Path

from msgspec import Struct

from ...log import journal
from ...log.journal import FULL_EVERY_NS

SETTLED_NS = 3_000_000_000  # the coarsest clock of a folder's mtime (FAT: 2 s), and then some


class Stamp(Struct, frozen=True, gc=False):
    """A log's size and mtime as a look found them: all a refresh keeps of its stat, for
    every changed log until it is folded (a first build holds one per task)."""

    size: int
    mtime_ns: int


class Found(Struct, kw_only=True):
    changed: dict[str, Stamp]  # task -> its log's size and mtime now
    gone: list[str]  # tasks of the state whose log is gone
    generation: str  # the journal's, and where in it this look got to
    offset: int
    full: bool  # whether every log was looked at


_checked_here: dict[Path, int] = {}  # data dir -> when this process last checked every log


def find(store, state, full: bool = False) -> Found:
    """The logs changed since `state` saw them, and the tasks whose log is gone."""
    root = store.root
    generation, offset, noted = journal.since(root, state.journal, state.journal_at)
    if full or noted is None or due(state, root):
        changed, gone = stale(store.sessions, state)
        _checked_here[root] = time.time_ns()
        return Found(changed=changed, gone=gone, generation=generation, offset=offset, full=True)
    changed, gone = {}, []
    for task in sorted(noted):
        try:
            stat = os.stat(store.sessions / f"{task}.jsonl")
        except FileNotFoundError:
            if task in state.tasks:
                gone.append(task)
            continue
        seen = state.tasks.get(task)
        if seen is None or (seen.size, seen.mtime_ns) != (stat.st_size, stat.st_mtime_ns):
            changed[task] = Stamp(stat.st_size, stat.st_mtime_ns)
    return Found(changed=changed, gone=gone, generation=generation, offset=offset, full=False)


def due(state, root: Path) -> bool:
    """Whether the periodic full check is due for the index of `state`."""
    last = max(state.checked_ns, _checked_here.get(root, 0))
    return time.time_ns() - last > FULL_EVERY_NS


_stamps: list = [None, {}]  # the state they were made from, file name -> (size, mtime)


def stale(sessions: Path, state) -> tuple[dict[str, Stamp], list[str]]:
    """The full check: logs changed since the state saw them (with their stamp), and tasks
    whose log is gone. One stat per log, and as little Python per log as we can."""
    if _stamps[0] is not state or len(_stamps[1]) != len(state.tasks):
        _stamps[:] = [state, {f"{t}.jsonl": (s.size, s.mtime_ns) for t, s in state.tasks.items()}]
    stamps = _stamps[1]
    folder, logs, changed = str(sessions), [], {}
    for name in _logs(sessions):
        try:
            stat = os.stat(f"{folder}/{name}")
        except FileNotFoundError:
            continue  # removed since the folder was listed
        logs.append(name)
        stamp = (stat.st_size, stat.st_mtime_ns)
        if stamps.get(name) != stamp:
            changed[name[:-6]] = Stamp(*stamp)
    gone = []
    if len(logs) - sum(1 for name in changed if name not in state.tasks) != len(state.tasks):
        present = {name[:-6] for name in logs}
        gone = [task for task in state.tasks if task not in present]
    return changed, gone


_listing: list = [None, []]  # (folder, its mtime) when listed, and the logs' names then


def _logs(sessions: Path) -> list[str]:
    """The log files' names in the folder, listed again only when the folder changed: adding,
    removing or renaming a file changes its mtime (at 1M events a listing of the folder, four
    files a task, cost as much as the stat of every log). A listing made within SETTLED_NS of
    the folder's mtime is not kept: a change in the same tick of its clock can leave it as is."""
    mtime = os.stat(sessions).st_mtime_ns
    if _listing[0] == (sessions, mtime):
        return _listing[1]
    names = [name for name in os.listdir(sessions) if name.endswith(".jsonl") and _task_name(name)]
    settled = time.time_ns() - mtime > SETTLED_NS
    _listing[:] = [(sessions, mtime) if settled else None, names]
    return names


def _task_name(name: str) -> bool:
    """Whether a file's name can be a task's: not one with undecodable bytes (the os gives
    them as surrogates, which neither the index nor JSON can hold)."""
    if name.isascii():
        return True
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True
