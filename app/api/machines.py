"""The routes of Settings > Machines: the machines of the archive, the shared folder, syncing
now, this machine's name, forgetting another (each calls one function of machines/)."""

import msgspec

from ..machines import exchange, rename, share, status, this
from ..tasks.store import Store


class Machines(msgspec.Struct, frozen=True):
    """What Settings > Machines shows: the shared folder and every machine, this one first."""

    folder: str
    this: str  # this machine's id
    machines: list[status.Row]
    problems: list[str] = []  # of the sync just made, one line each


class Folder(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    folder: str


class Name(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str


def shown(store: Store, problems: list[str] | None = None) -> Machines:
    folder = share.configured(store.root)
    return Machines(
        folder=str(folder or ""),
        this=this(store.root).id,
        machines=status.rows(store),
        problems=problems or [],
    )


def synced(store: Store) -> Machines:
    """Publish and read the shared folder now, then the machines as they stand."""
    report = exchange.sync(store)
    return shown(store, report.problems)


def shared(store: Store, body: Folder) -> Machines:
    share.choose(store.root, body.folder)
    return synced(store)


def renamed(store: Store, body: Name) -> Machines:
    rename(store.root, body.name)
    return synced(store) if share.configured(store.root) else shown(store)


def forgotten(store: Store, machine: str) -> Machines:
    status.forget(store, machine)
    return shown(store)
