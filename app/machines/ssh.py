"""The SSH machines of one archive: computers where no nodwyn runs, pulled over the system's ssh.

Each is kept in `<data>/machines/ssh.json`: a random machine id (16 hex digits, the id its
tasks' `Origin.machine` holds), the host as the person typed it (an alias of ~/.ssh/config, or
`[user@]hostname`), a name, the folders pulled per agent (`AGENT=PATH`, else the agents' own
places in the remote home, DEFAULTS), when it was last pulled and its last error in one line.
Its agents' raw files are mirrored under `<data>/machines/<id>/` (transfer.py), never
published; the mirror is imported with the normal importers (pull.py).

Invariants: a host is one word that ssh reads as a host and never as an option (no leading
`-`, no spaces, quotes or shell characters), so it can never reach a shell or ssh's options
unquoted; a folder may hold any character (it is passed as data, never as shell words); the
file is written whole and replaced, so a crash leaves the old list or the new one.
"""

import contextlib
import os
import re
import secrets
import shutil
import time
from pathlib import Path

import msgspec

from ..errors import BadInput, NodwynError
from ..log import locks, tmpfiles
from .names import clean_name

FOLDER = "machines"
FILE = "ssh.json"
WAIT = 10.0  # seconds a change of the list waits for another's to end
HOST = re.compile(r"[A-Za-z0-9_.%+@-]{1,255}")

# Where each agent keeps its sessions in a home folder (the agents' own `roots()` with no
# variable set: tests/test_ssh_machines.py holds the two alike). Aider writes into each
# repository and Cursor is an editor whose chats stay on the desktop: named with --folder only.
DEFAULTS: dict[str, tuple[str, ...]] = {
    "claude": (".claude/projects",),
    "codex": (".codex/sessions", ".codex/archived_sessions"),
    "gemini": (".gemini/tmp",),
    "copilot": (".copilot/session-state",),
    "opencode": (".local/share/opencode", ".local/share/kilo"),
    "antigravity": (".gemini/antigravity/brain", ".gemini/antigravity-cli/brain"),
    "pi": (".pi/agent/sessions",),
    "qwen": (".qwen/projects",),
    "continue": (".continue/sessions",),
}


class Host(msgspec.Struct, kw_only=True):
    """One SSH machine: where it is reached and what is pulled from it."""

    id: str
    host: str
    name: str
    folders: dict[str, list[str]] = {}  # agent -> remote folders; empty: DEFAULTS
    pulled: float = 0.0  # when a pull last copied from it (seconds since the epoch)
    error: str = ""  # the last pull's error in one line, "" after one that went well
    via: str = ""  # "rsync" or "sftp": how the last pull went

    def places(self) -> dict[str, list[str]]:
        """The remote folders pulled, per agent (the named ones, else the defaults)."""
        return self.folders or {agent: list(paths) for agent, paths in DEFAULTS.items()}


class Hosts(msgspec.Struct):
    hosts: list[Host] = []


def hosts(root: Path) -> list[Host]:
    """The SSH machines this data directory pulls, in the order they were added."""
    path = _file(root)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    try:
        return msgspec.json.decode(data, type=Hosts).hosts
    except msgspec.MsgspecError as exc:
        raise NodwynError(f"{path} is damaged ({exc}); mend or remove it by hand") from None


def find(root: Path, word: str) -> Host:
    """The SSH machine named `word` by its host, name or id."""
    for host in hosts(root):
        if word in (host.host, host.id) or word.casefold() == host.name.casefold():
            return host
    raise BadInput(f"no SSH machine {word!r}: add it with nodwyn machines add ssh {word}")


def by_id(root: Path, machine: str) -> Host | None:
    """The SSH machine whose id is `machine`, or None (this machine, or another kind)."""
    return next((h for h in hosts(root) if h.id == machine), None) if machine else None


def add(root: Path, host: str, folders: list[str] = (), name: str = "") -> Host:
    """Add an SSH machine (or change the folders and name of one already added)."""
    host = checked_host(host)
    named = parse_folders(folders)
    with _changing(root):
        return _add(root, host, named, name)


def _add(root: Path, host: str, named: dict[str, list[str]], name: str) -> Host:
    known = hosts(root)
    found = next((h for h in known if h.host == host), None)
    if found is None:
        found = Host(id=secrets.token_hex(8), host=host, name=clean_name(name or host))
        known.append(found)
    elif name:
        found.name = clean_name(name)
    if named:
        found.folders = named
    _save(root, known)
    return found


def noted(root: Path, machine: str, error: str, via: str = "") -> Host | None:
    """Keep how a pull of `machine` ended: its error in one line ("" when none) and, when it
    copied anything (`via`), the time."""
    with _changing(root):
        known = hosts(root)
        found = next((h for h in known if h.id == machine), None)
        if found is None:  # forgotten while it was pulled
            return None
        found.error = " ".join(error.split())[:300]
        if via:
            found.pulled = time.time()
        found.via = via or found.via
        _save(root, known)
        return found


def forget(root: Path, machine: str) -> None:
    """Forget an SSH machine: its entry and its mirror of raw files (its tasks are the
    caller's to remove; nothing on the machine is touched)."""
    with _changing(root):
        _save(root, [h for h in hosts(root) if h.id != machine])
    here = mirror(root, machine)
    for gone in (here, here.with_name(here.name + ".tmp")):
        shutil.rmtree(gone, ignore_errors=True)
    here.with_suffix(".lock").unlink(missing_ok=True)


def mirror(root: Path, machine: str) -> Path:
    """Where an SSH machine's raw agent files are mirrored (never published)."""
    return Path(root) / FOLDER / machine


def checked_host(host: str) -> str:
    """The host as typed, refused when ssh could read it as an option or a shell as words."""
    host = host.strip()
    if not host or host.startswith("-") or not HOST.fullmatch(host):
        raise BadInput(
            f"{host!r} is not a host ssh can be given: name a Host of ~/.ssh/config or "
            "[user@]hostname (letters, digits and . _ - + % @ only, not starting with -; "
            "an IPv6 address through a Host of ~/.ssh/config)"
        )
    return host


def parse_folders(folders) -> dict[str, list[str]]:
    """`AGENT=PATH` words as agent -> paths, in the order given; a bad word refused."""
    from ..importers import registry

    named: dict[str, list[str]] = {}
    for word in folders:
        agent, sep, path = word.partition("=")
        if not sep or not path.strip() or "\0" in path or "\n" in path:
            raise BadInput(f"--folder {word!r}: write AGENT=PATH, e.g. claude=~/.claude/projects")
        if ".." in path.split("/"):
            raise BadInput(f"--folder {word!r}: write the folder without .. in it")
        registry.get(agent.strip())  # an unknown agent is refused with the known ones
        named.setdefault(agent.strip(), []).append(path)
    return named


def _file(root: Path) -> Path:
    return Path(root) / FOLDER / FILE


def _changing(root: Path):
    """The list's lock, held while it is read and written again, so a pull's outcome and an
    add made at the same time (the worker, the page, the command line) both stay."""
    path = _file(root).with_suffix(".lock")
    return held(path, WAIT, f"{path} stayed locked {WAIT:.0f} s; try again")


class Busy(NodwynError):
    status = 409


@contextlib.contextmanager
def held(path: Path, wait: float, busy: str):
    """Hold the lock of the file `path` (made if missing), waiting up to `wait` seconds for
    another holder; Busy(`busy`) after that. The system drops it when the process ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                locks.lock(fd)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise Busy(busy) from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)


def _save(root: Path, known: list[Host]) -> None:
    path = _file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmpfiles.replace(path, msgspec.json.encode(Hosts(known)), FILE)
