"""A pull of an SSH machine: look at the far end, copy what grew into the mirror, import it.

The far end is looked at first (one ssh call: is rsync there, which folders exist), then each
folder that exists is copied (transfer.py: rsync if both ends have it, else sftp), then the
mirror is imported with the normal importers, every new task's start naming the machine's id
(`Origin.machine`); records are redacted as every import's are, when written. How it ended
is kept with the host (ssh.noted): the time, or the error in one line.

A folder the person named that is not there is an error; a default folder that is not there
is an agent not used on that machine, and only when none is there is it said.

One pull of a machine at a time: a second, from the worker or the command line, is refused
while the first holds the machine's lock file (the system drops it when a pull is killed).
"""

import shutil
import time
from pathlib import Path

from msgspec import Struct

from ..importers import registry
from ..importers.sync import import_paths
from . import remote, ssh, transfer
from .remote import Failed


class Pulled(Struct, kw_only=True):
    """What one pull did, for the command line, the page and the benchmark."""

    id: str
    name: str
    host: str
    via: str = ""  # "rsync" or "sftp"
    received: int = 0  # bytes that crossed to here (rsync's count; sftp: what the mirror grew)
    sent: int = 0
    size: int = 0  # bytes of the mirror after the pull
    created: int = 0
    extended: int = 0
    seconds: float = 0.0
    error: str = ""  # one line; "" when it went well


def pull_all(root: Path, store) -> list[Pulled]:
    """Pull every SSH machine in turn (a machine that fails leaves the others to go on)."""
    return [pull(root, store, host) for host in ssh.hosts(root)]


def pull(root: Path, store, host: ssh.Host) -> Pulled:
    """Pull one SSH machine now; the outcome is kept with it and returned."""
    began = time.monotonic()
    done = Pulled(id=host.id, name=host.name, host=host.host)
    try:
        with _locked(root, host):
            _pull(root, store, host, done)
    except Failed as exc:
        done.error = str(exc)
    except ssh.Busy as exc:
        done.error = str(exc)
        done.seconds = time.monotonic() - began
        return done  # the pull under way keeps its own outcome
    done.seconds = time.monotonic() - began
    ssh.noted(root, host.id, done.error, done.via)  # copied (`via`): pulled, if only in part
    return done


def _pull(root: Path, store, host: ssh.Host, done: Pulled) -> None:
    mirror = ssh.mirror(root, host.id)
    mirror.mkdir(parents=True, exist_ok=True)
    wanted = [(agent, folder) for agent, folders in host.places().items() for folder in folders]
    seen = remote.look(host.host, host.name, [folder for _, folder in wanted])
    found = [(a, f) for a, f in wanted if seen.kinds.get(f) != "missing"]
    errors = _missing(host, seen)
    transfer.clear_temporary(mirror)
    rsync = seen.rsync and shutil.which("rsync") is not None  # both ends need it
    copies = _copy(host, mirror, found, rsync)
    if rsync and copies and all(c.error for c in copies):  # an rsync there that cannot serve
        rsync, copies = False, _copy(host, mirror, found, False)
    done.via = "rsync" if rsync else "sftp"
    done.received = sum(c.received for c in copies)
    done.sent = sum(c.sent for c in copies)
    done.size = transfer.size_of(mirror)
    errors += [c.error for c in copies if c.error]
    for agent in dict.fromkeys(a for a, _ in found):
        slots = [transfer.slot(mirror, f) for a, f in found if a == agent]
        report = import_paths(store, agent, [p for p in slots if p.exists()], machine=host.id)
        done.created += len(report.created)
        done.extended += len(report.extended)
        if report.stopped:  # no room left: the next pull goes on from where this one stopped
            errors.append(f"{host.name}: {report.stopped}")
            break
    done.error = errors[0] if errors else ""


def _missing(host: ssh.Host, seen: remote.Look) -> list[str]:
    """The errors of the folders not there: each named one, or all the defaults."""
    gone = [f for f, kind in seen.kinds.items() if kind == "missing"]
    if host.folders and gone:
        return [
            f"{host.name}: no folder {remote.shown(gone[0])} there; check --folder "
            "(nodwyn machines add ssh HOST --folder AGENT=PATH)"
        ]
    if not host.folders and len(gone) == len(seen.kinds):
        return [
            f"{host.name}: no agent's sessions in the usual folders there; name them "
            f"with nodwyn machines add ssh {host.host} --folder AGENT=PATH"
        ]
    return []


def _copy(host: ssh.Host, mirror: Path, found, rsync: bool) -> list[transfer.Copied]:
    """Copy the folders found: by rsync, the appended ones and the rewritten ones apart (their
    modes differ), else all in one sftp session. A folder two agents read is copied once
    (rewritten whole if either agent rewrites it)."""
    whole: dict[str, bool] = {}
    for agent, folder in found:
        whole[folder] = whole.get(folder, False) or registry.get(agent).whole
    if not rsync:
        chosen = list(whole.items())
        return transfer.by_sftp(host.host, host.name, mirror, chosen) if chosen else []
    copies = []
    for kind in (False, True):
        chosen = [folder for folder, rewritten in whole.items() if rewritten == kind]
        if chosen:
            copies += transfer.by_rsync(host.host, host.name, mirror, chosen, kind)
    return copies


def _locked(root: Path, host: ssh.Host):
    """The machine's pull lock, or Busy at once when another pull holds it."""
    path = ssh.mirror(root, host.id).with_suffix(".lock")
    return ssh.held(path, 0, f"{host.name}: a pull is already under way")
