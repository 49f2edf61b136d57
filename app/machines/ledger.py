"""What this data directory remembers of the shared folder: derived, safe to lose.

`<data>/machines/published.json` says how far each of this machine's logs was published and how
far its copies of other machines' tasks were looked at for marks; `<data>/machines/read-<id>.json`
says how far each of another machine's published logs was read, with hashes of the start of the
file and of the last line read (as the importers' `.imp` keeps them), so a file replaced under
the reader is told from one that grew. Lost or damaged, either is rebuilt by reading again: the
records already in a log are known by their `src`, so nothing is written twice.
"""

import hashlib
from pathlib import Path

import msgspec

from ..log import tmpfiles
from . import folder

HEAD = 4096  # bytes of a file's start whose hash is kept


class Read(msgspec.Struct, kw_only=True):
    """How far one published log of another machine was read."""

    consumed: int = 0  # bytes of whole lines read
    opening: str = msgspec.field(default="", name="head")  # digest of min(HEAD, consumed) bytes
    tail_start: int = 0
    tail: str = ""  # hash of the last line read
    created: bool = False  # the reader made this task's log here (so it is never published)
    stamp: tuple[int, int] = (0, 0)  # the file's size and mtime_ns when last read to its end
    last: str = ""  # the key of the log's last record then (peers._last_key)
    high: int = 0  # the highest seq of the file's records written here (its machine's order)


class Peer(msgspec.Struct, kw_only=True):
    """How far another machine's folder was read."""

    logs: dict[str, Read] = {}
    marks: int = 0  # bytes of its marks.jsonl applied
    refused: dict[str, str] = {}  # a name in its folder -> why it was not read (reported once)
    waiting: list[bytes] = []  # marks (JSON) for tasks whose log has not arrived yet


class Published(msgspec.Struct, kw_only=True):
    """How far this machine's own logs went into its sub-folder."""

    logs: dict[str, tuple[int, str]] = {}  # task -> (bytes published, hash of their head)
    stamps: dict[str, tuple[int, int, int]] = {}  # task -> its log's size, mtime_ns, and the
    # published file's size, when last published: all three unchanged, nothing is read
    looked: dict[str, int] = {}  # a copy of another machine's task -> bytes looked at for marks
    marks: int = 0  # marks written (the next one is marks + 1)


def load(path: Path, kind: type):
    try:
        return msgspec.json.decode(path.read_bytes(), type=kind)
    except (FileNotFoundError, msgspec.MsgspecError):
        return kind()


def save(path: Path, value) -> None:
    tmpfiles.replace(path, msgspec.json.encode(value), path.name)


def peer_file(root: Path, machine: str) -> Path:
    return folder(root) / f"read-{machine}.json"


def published_file(root: Path) -> Path:
    return folder(root) / "published.json"


def from_share(root: Path) -> dict[str, str]:
    """Every task whose log the reader made here, by the id of the machine it was read from."""
    found = {}
    for path in sorted(folder(root).glob("read-*.json")):
        peer = load(path, Peer)
        machine = path.stem[len("read-") :]
        found.update({task: machine for task, read in peer.logs.items() if read.created})
    return found


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def opening_digest(path: Path, size: int) -> str:
    """The digest of a file's opening: its first min(HEAD, size) bytes."""
    with open(path, "rb") as handle:
        return digest(handle.read(min(HEAD, size)))


def same_prefix(path: Path, read: Read) -> bool:
    """Whether a published file still starts with what was read of it (else it was replaced)."""
    try:
        with open(path, "rb") as handle:
            if handle.seek(0, 2) < read.consumed:
                return False
            handle.seek(0)
            if digest(handle.read(min(HEAD, read.consumed))) != read.opening:
                return False
            handle.seek(read.tail_start)
            return digest(handle.read(read.consumed - read.tail_start)) == read.tail
    except OSError:
        return False
