"""The pulls of SSH machines under way in this process, and the list the page shows of them.

The app pulls in threads of its own (on its schedule, and on "Pull now"), so the page and the
worker never wait for a far machine; a machine already being pulled here is not pulled twice at
once (and one pulled by another process is refused by its lock, pull.py).
"""

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from msgspec import Struct

from . import pull, remote, ssh, sshconfig

log = logging.getLogger("nodwyn.machines")
_PULLING: set[str] = set()  # ids of the machines being pulled by this process
_GUARD = threading.Lock()


class Shown(Struct, kw_only=True):
    """An SSH machine as Settings lists it."""

    id: str
    host: str
    name: str
    folders: dict[str, list[str]]  # agent -> remote folders (as people write them)
    named: bool  # the folders were named by the person (else the agents' own places)
    pulled: float
    error: str
    via: str
    pulling: bool


class Listing(Struct, kw_only=True):
    machines: list[Shown]
    offered: list[str]  # the hosts of the person's ssh config not added yet


def listing(root: Path) -> Listing:
    """The SSH machines, and the hosts of ~/.ssh/config that could be added."""
    with _GUARD:
        pulling = set(_PULLING)
    hosts = ssh.hosts(root)
    shown = [
        Shown(
            id=h.id,
            host=h.host,
            name=h.name,
            named=bool(h.folders),
            pulled=h.pulled,
            error=h.error,
            via=h.via,
            pulling=h.id in pulling,
            folders={a: [remote.shown(f) for f in fs] for a, fs in h.places().items()},
        )
        for h in hosts
    ]
    added = {h.host for h in hosts}
    return Listing(machines=shown, offered=[h for h in sshconfig.offered() if h not in added])


def in_background(store, hosts: list[ssh.Host], after: Callable[[], None] | None = None) -> int:
    """Pull `hosts` one after another in a thread of their own (those not being pulled here
    already), calling `after` when each ends; how many were started."""
    with _GUARD:
        chosen = [h for h in hosts if h.id not in _PULLING]
        _PULLING.update(h.id for h in chosen)
    if chosen:
        threading.Thread(
            target=_pull, args=(store, chosen, after), name="nodwyn-ssh-pull", daemon=True
        ).start()
    return len(chosen)


def _pull(store, hosts: list[ssh.Host], after: Callable[[], None] | None) -> None:
    for host in hosts:
        try:
            done = pull.pull(store.root, store, host)
            if done.error:
                log.warning("%s", done.error)
        except Exception:  # noqa: BLE001 (the next machine and the next pull go on)
            log.exception("pulling %s failed", host.name)
        finally:
            with _GUARD:
                _PULLING.discard(host.id)
        if after is not None:
            after()


def pulling() -> bool:
    """Whether a pull started here is under way."""
    with _GUARD:
        return bool(_PULLING)
