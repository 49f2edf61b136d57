"""One pass over the shared folder: publish this machine's part, then read every other one.

Run by `nodwyn machines sync`, by the app's worker on its passes and by `nodwyn serve
--follow`. The other machines met are remembered in `<data>/machines/known.json` with what
their `machine.json` says (name, last seen by their own clock, tasks) and the last error in
one line; a forgotten machine is passed over until the person shares with it again.
"""

import os
import threading
import time
from pathlib import Path

import msgspec

from ..errors import NodwynError, TaskBusy
from ..log import locks
from ..tasks.store import Store
from . import Known, folder, known, remember, share, this
from .peers import Outcome, read_machine
from .publish import publish

CARD = "machine.json"


class Card(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What a machine says of itself in its sub-folder."""

    id: str
    name: str
    seen: str = ""  # when it last published, by its own clock (shown, never compared)
    tasks: int = 0
    kept_only: int = 0


class Report(msgspec.Struct, kw_only=True):
    folder: str = ""
    published: int = 0
    machines: dict[str, Outcome] = {}
    problems: list[str] = []  # one line each


# One pass at a time in this process: the worker's and a page's "Sync now" write one state.
_passing = threading.Lock()


def sync(store: Store) -> Report:
    """Publish and read the shared folder once; a machine's problems are said in the report
    and as its last error, never raised. One pass at a time per data directory, across
    processes (the lock of `<data>/machines/pass.lock`): a second is refused at once."""
    with _passing:
        fd = os.open(folder(store.root) / "pass.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                locks.lock(fd)
            except OSError:
                raise TaskBusy(
                    "another nodwyn is syncing the shared folder; try again soon"
                ) from None
            return _sync(store)
        finally:
            os.close(fd)  # the lock goes with it


def _sync(store: Store) -> Report:
    shared = share.configured(store.root)
    if shared is None:
        raise NodwynError("no shared folder: choose one with `nodwyn machines share FOLDER`")
    if not shared.is_dir():
        raise NodwynError(f"the shared folder {shared} is missing: is its disk or engine there?")
    me = this(store.root)
    report = Report(folder=str(shared))
    dirs = share.machine_dirs(shared)
    sharing = {me.id} | {machine for machine, _path, why in dirs if not why}
    table = known(store.root)
    report.published = publish(store, shared, me, sharing - {me.id})
    _card(store, shared, me)
    for machine, path, why in dirs:
        if machine == me.id:
            continue
        if why:
            report.problems.append(f"{path.name}: {why}")
            continue
        _read(store, path, machine, sharing, table, report)
    remember(store.root, table)
    return report


def _read(store, path: Path, machine: str, sharing, table: dict[str, Known], report) -> None:
    entry = table.get(machine)
    if entry is not None and entry.forgotten:
        return
    try:
        card = msgspec.json.decode((path / CARD).read_bytes(), type=Card)
    except FileNotFoundError:
        return  # its first pass has not synced whole yet
    except msgspec.MsgspecError as exc:
        report.problems.append(f"{machine}/{CARD}: unreadable ({exc}); its folder is not read")
        return
    if card.id != machine:
        report.problems.append(f"{machine}: its {CARD} claims to be machine {card.id}: not read")
        return
    entry = entry or Known(name=card.name)
    entry.name, entry.seen, entry.kind = card.name, card.seen, "folder"
    entry.tasks, entry.kept_only = card.tasks, card.kept_only
    outcome = read_machine(store, path, machine, sharing)
    entry.error = outcome.problems[-1] if outcome.problems else outcome.standing
    table[machine] = entry
    report.machines[machine] = outcome
    report.problems += [f"{card.name}: {p}" for p in outcome.problems]


def _card(store: Store, folder: Path, me) -> None:
    """This machine's machine.json, written when what it says changed (the time excepted,
    unless an hour passed, so an idle machine does not make its engine sync every pass)."""
    from . import status

    path = folder / me.id / CARD
    tasks, kept_only = status.own_counts(store)
    card = Card(id=me.id, name=me.name, tasks=tasks, kept_only=kept_only)
    try:
        old = msgspec.json.decode(path.read_bytes(), type=Card)
    except (FileNotFoundError, msgspec.MsgspecError):
        old = None
    now = time.time()
    same = old is not None and msgspec.structs.replace(old, seen="") == card
    if same and now - path.stat().st_mtime < 3600:
        return
    card.seen = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
    tmp = path.with_name(f".{CARD}.nodwyn-tmp")
    tmp.write_bytes(msgspec.json.encode(card))
    tmp.replace(path)
