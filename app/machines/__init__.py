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
import secrets
import socket
from pathlib import Path

import msgspec

from ..errors import NodwynError
from ..log import tmpfiles

FILE = "machine.json"
NAME_MAX = 64
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


def clean_name(name: str) -> str:
    """A name on one line, without control characters, at most NAME_MAX characters."""
    text = " ".join("".join(c if c.isprintable() else " " for c in name).split())
    return text[:NAME_MAX]
