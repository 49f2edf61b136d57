"""Each machine of the archive in words: last seen, tasks, size, tasks nodwyn alone keeps, last
error; and forgetting one.

The rows are made by one function per kind of machine (`KINDS`): this one, the machines of the
shared folder, and the machines pulled over SSH, whose function plugs in beside them.
"""

import os
from pathlib import Path

import msgspec

from ..errors import BadInput
from ..importers.times import at_ms
from ..tasks.store import Store
from . import known, ledger, remember, ssh, this


class Row(msgspec.Struct, kw_only=True):
    """One machine as `nodwyn machines` and Settings > Machines show it."""

    id: str
    name: str
    kind: str  # this / folder / ssh
    last_seen: str = ""  # its own clock's time of its last publish (this machine: "")
    tasks: int = 0  # its tasks in this archive
    size: int = 0  # bytes of their logs here
    kept_only: int = 0  # of its tasks, those whose agent deleted its own file
    error: str = ""  # the last error in one line
    forgotten: bool = False


def own_counts(store: Store) -> tuple[int, int]:
    """This machine's tasks, and how many of them only nodwyn still keeps."""
    read_here = ledger.from_share(store.root)
    tasks = kept = 0
    for task, summary in store.cache.folded().items():
        if summary.ran_on or task in read_here:
            continue
        tasks += 1
        kept += bool(summary.source) and not os.path.exists(summary.source)
    return tasks, kept


def _by_machine(store: Store) -> dict[str, tuple[int, int]]:
    """(tasks, bytes of logs) in this archive by the machine they ran on."""
    found: dict[str, tuple[int, int]] = {}
    for task, summary in store.cache.folded().items():
        try:
            size = store.log_path(task).stat().st_size
        except FileNotFoundError:
            continue
        tasks, total = found.get(summary.ran_on, (0, 0))
        found[summary.ran_on] = (tasks + 1, total + size)
    return found


def this_rows(store: Store, counts: dict) -> list[Row]:
    me = this(store.root)
    tasks, size = counts.get("", (0, 0))
    _own, kept = own_counts(store)
    return [Row(id=me.id, name=me.name, kind="this", tasks=tasks, size=size, kept_only=kept)]


def folder_rows(store: Store, counts: dict) -> list[Row]:
    rows = []
    for machine, entry in known(store.root).items():
        if entry.kind != "folder":
            continue
        tasks, size = counts.get(machine, (0, 0))
        rows.append(
            Row(
                id=machine,
                name=entry.name,
                kind="folder",
                last_seen=entry.seen,
                tasks=tasks,
                size=size,
                kept_only=entry.kept_only,
                error=entry.error,
                forgotten=entry.forgotten,
            )
        )
    return rows


def ssh_rows(store: Store, counts: dict) -> list[Row]:
    """The machines pulled over SSH, seen when a pull last copied from them."""
    rows = []
    for host in ssh.hosts(store.root):
        tasks, size = counts.get(host.id, (0, 0))
        seen = at_ms(host.pulled * 1000)
        rows.append(
            Row(
                id=host.id,
                name=host.name,
                kind="ssh",
                last_seen=seen,
                tasks=tasks,
                size=size,
                error=host.error,
            )
        )
    return rows


# One function per kind of machine.
KINDS = [this_rows, folder_rows, ssh_rows]


def rows(store: Store) -> list[Row]:
    """Every machine of this archive, this one first."""
    counts = _by_machine(store)
    return [row for kind in KINDS for row in kind(store, counts)]


def find(root: Path, name: str) -> str:
    """The id of another machine named `name` (or given by its id or the start of it)."""
    table = known(root)
    hits = [m for m, e in table.items() if name in (m, e.name)] or [
        m for m in table if len(name) >= 4 and m.startswith(name)
    ]
    if not hits:
        raise BadInput(f"no other machine named {name!r} (`nodwyn machines` lists them)")
    if len(hits) > 1:
        raise BadInput(f"{len(hits)} machines are named {name!r}: give its id")
    return hits[0]


def forget(store: Store, name: str) -> tuple[str, int]:
    """Take a machine's tasks out of this archive and read its folder no more (nothing of it,
    or in the shared folder, is touched); (its name, tasks removed)."""
    host = _ssh_host(store.root, name)
    machine = host.id if host is not None else find(store.root, name)
    table = known(store.root)
    removed = 0
    for task, summary in store.cache.folded().items():
        if summary.ran_on == machine:
            store.remove(task, tombstone=False)
            removed += 1
    if host is not None:  # its list entry and its mirror go; nothing on the machine is touched
        ssh.forget(store.root, machine)
        return host.name, removed
    table[machine].forgotten = True
    remember(store.root, table)
    ledger.peer_file(store.root, machine).unlink(missing_ok=True)
    return table[machine].name, removed


def _ssh_host(root: Path, name: str):
    """The SSH machine named `name` (by its host, name or id), else None."""
    try:
        return ssh.find(root, name)
    except BadInput:
        return None
