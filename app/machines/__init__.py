"""The machines of one archive: this data directory's own identity, and the others it reads.

Each data directory has a machine id, random and kept in `<data>/machine.json` (a hostname
changes and two computers can share one), and a name a person can change, the hostname at
first. A task's machine is the one its agent ran on: `Origin.machine` in its `session.start`,
empty for this data directory's own machine (every log written before machines existed).

Invariants: the id never changes once written; a damaged or foreign `machine.json` is never
overwritten with a new id silently (it is read as far as it can be, else refused with a line
that says so), since a new id would make this machine's tasks another machine's.
"""

import re
from pathlib import Path

import msgspec

from ..errors import NodwynError
from ..log import tmpfiles
from .names import clean_name

FILE = "machine.json"
ID = re.compile(r"[0-9a-f]{16}")


class Machine(msgspec.Struct, kw_only=True):
    """A machine as the archive knows it: its id (16 hex digits) and the name people read."""

    id: str
    name: str


def this(root: Path) -> Machine:
    """This data directory's machine, made on first use (id random, name the hostname)."""
    path = Path(root) / FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        import secrets  # here, not above: every process with a store imports this module
        import socket

        machine = Machine(id=secrets.token_hex(8), name=clean_name(socket.gethostname()))
        tmpfiles.replace(path, msgspec.json.encode(machine), FILE)
        return machine
    try:
        machine = msgspec.json.decode(data, type=Machine)
    except msgspec.MsgspecError as exc:
        raise NodwynError(f"{path} is damaged ({exc}); mend or remove it by hand") from None
    if not ID.fullmatch(machine.id):
        raise NodwynError(f"{path} holds no machine id of 16 hex digits; mend it by hand")
    return machine


def rename(root: Path, name: str) -> Machine:
    """Give this machine a new name (its id stays)."""
    machine = this(root)
    machine.name = clean_name(name)
    if not machine.name:
        raise NodwynError("a machine's name cannot be empty")
    tmpfiles.replace(Path(root) / FILE, msgspec.json.encode(machine), FILE)
    return machine


# The other machines this archive knows, kept in `<data>/machines/known.json` ({id: Known}):
# written by whatever meets a machine (the shared folder's reader; an SSH pull), read by every
# list that names a task's machine. Derived from what was met: safe to lose (names come back
# at the next sync), except that a forgotten machine's mark is kept there.
KNOWN = "known.json"


class Known(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Another machine as this archive last met it."""

    name: str
    kind: str = "folder"  # folder (a shared folder's sub-folder) / ssh
    seen: str = ""  # when it last published (its own clock) or was last pulled
    error: str = ""  # the last error in one line, "" once a sync went well
    forgotten: bool = False  # its tasks left this archive; not read again until shared again
    tasks: int = 0  # tasks it says it has (its machine.json)
    kept_only: int = 0  # of those, tasks whose agent deleted its own file (nodwyn alone keeps)


_known = msgspec.json.Decoder(dict[str, Known])


def folder(root: Path) -> Path:
    """`<data>/machines/`, where what this archive knows of machines is kept (derived)."""
    path = Path(root) / "machines"
    path.mkdir(exist_ok=True)
    return path


def known(root: Path) -> dict[str, Known]:
    """The other machines met so far, by id (none when the file is missing or damaged)."""
    try:
        return _known.decode((folder(root) / KNOWN).read_bytes())
    except (FileNotFoundError, msgspec.MsgspecError):
        return {}


def remember(root: Path, machines: dict[str, Known]) -> None:
    """Keep the other machines as met (the whole table, written at once)."""
    tmpfiles.replace(folder(root) / KNOWN, msgspec.json.encode(machines), KNOWN)


# data directory -> the stamps of the files its machines' names were read from, and the names
_named: dict[str, tuple[tuple, dict[str, str]]] = {}


def names(root: Path) -> dict[str, str]:
    """The name to show for each machine id a task may carry ("" and this id: this machine).
    Read again only when a file they come from changed: a process that lists often (the MCP
    server's searches) reads them once per change."""
    from . import ssh

    files = (Path(root) / FILE, folder(root) / KNOWN, Path(root) / ssh.FOLDER / ssh.FILE)
    stamps = tuple(_stamp(file) for file in files)
    kept = _named.get(str(root))
    if kept is not None and kept[0] == stamps:
        return dict(kept[1])
    here = this(root)
    found = {machine_id: entry.name for machine_id, entry in known(root).items()}
    found.update(_ssh_names(root))
    found = {**found, "": here.name, here.id: here.name}
    if stamps[0] is None:  # machine.json made just now, by `this`
        stamps = (_stamp(files[0]), *stamps[1:])
    _named[str(root)] = (stamps, found)
    return dict(found)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, stat.st_ino


def _ssh_names(root: Path) -> dict[str, str]:
    """The SSH machines' names by id (none while their list is damaged: said where it is read)."""
    from . import ssh  # not at the top: ssh.py is only read where SSH machines are named

    try:
        return {host.id: host.name for host in ssh.hosts(root)}
    except NodwynError:
        return {}


def id_of(root: Path, name: str) -> str:
    """The id tasks carry for the machine named `name` (or given by its id): "" for this one."""
    here = this(root)
    if name in (here.id, here.name):
        return ""
    table = {machine: entry.name for machine, entry in known(root).items()} | _ssh_names(root)
    hits = [machine for machine, shown in table.items() if name in (machine, shown)]
    if len(hits) != 1:
        said = "no machine" if not hits else f"{len(hits)} machines"
        raise NodwynError(f"{said} named {name!r} (`nodwyn machines` lists them)")
    return hits[0]
