"""The shared folder: which one this data directory uses, its layout, and what a name in it is.

The folder is one the person already syncs (Syncthing, Dropbox, iCloud Drive, OneDrive,
Nextcloud, a network share). Each machine writes only its own sub-folder, named by its id:

    <share>/<machine id>/machine.json          {id, name, seen, tasks, kept_only}
    <share>/<machine id>/sessions/<task>.jsonl  its tasks' logs, appended as they grow
    <share>/<machine id>/marks.jsonl            renames, archives and deletes it made

Everything in the folder is input like any file: a name is a task's only when it is one plain
file named as a task id with `.jsonl`; links, `..`, other machines' ids claimed, the engines'
temporary files and conflict copies are each told apart here, never followed or imported.
"""

import os
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ..errors import BadInput
from ..log import tmpfiles
from . import ID, folder, known, remember

CONFIG = "share.json"
CHUNK = 1 << 20
TASK = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,127}\.jsonl")
# Temporary files the engines write beside a file before renaming it over it; and our own.
TEMPORARY = re.compile(
    r"(^\.syncthing\..*\.tmp$)|(^~syncthing~.*\.tmp$)|(\.tmp$)|(^\.~)|(^~\$)"
    r"|(\.partial$)|(\.part$)|(^\.dropbox)|(\.icloud$)|(^\.sync_)|(\.~tmp$)|(\.nodwyn-tmp$)"
    r"|(^\..+\.~[0-9a-f]+$)"  # Nextcloud's and ownCloud's download in progress
)
# Conflict copies: Syncthing, Dropbox ("(... conflicted copy ...)"), Nextcloud/ownCloud
# ("(conflicted copy ...)", "_conflict-"), OneDrive ("-<computer>" is not told apart from a
# name; its "(1)" copies are not task names either), Resilio (".Conflict").
CONFLICT = re.compile(
    r"\.sync-conflict-|conflicted copy|_conflict-|\(conflict|\.conflict\b", re.IGNORECASE
)


class Config(msgspec.Struct, kw_only=True):
    folder: str


def configured(root: Path) -> Path | None:
    """The shared folder this data directory publishes to and reads, or None."""
    try:
        config = msgspec.json.decode((folder(root) / CONFIG).read_bytes(), type=Config)
    except (FileNotFoundError, msgspec.MsgspecError):
        return None
    return Path(config.folder) if config.folder else None


def choose(root: Path, path: str | os.PathLike) -> Path:
    """Share through `path` from now on (made if missing); BadInput when it cannot be."""
    chosen = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
    data = Path(os.path.abspath(root))
    if chosen == data or data in chosen.parents or chosen in data.parents:
        raise BadInput(f"{chosen} is inside the data directory (or holds it): choose another")
    if chosen.exists() and not chosen.is_dir():
        raise BadInput(f"{chosen} is a file, not a folder: choose a folder")
    try:
        chosen.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"{chosen} cannot be made ({exc.strerror}): choose another") from None
    tmpfiles.replace(folder(root) / CONFIG, msgspec.json.encode(Config(folder=str(chosen))))
    table = known(root)
    for entry in table.values():
        entry.forgotten = False  # shared again: every machine there is read again
    remember(root, table)
    return chosen


def stop(root: Path) -> None:
    """Share no more (nothing in the folder is touched)."""
    (folder(root) / CONFIG).unlink(missing_ok=True)


def kind_of(name: str) -> str:
    """What a name in a machine's `sessions/` is: task, temporary, conflict or foreign."""
    if CONFLICT.search(name):
        return "conflict"
    if TEMPORARY.search(name):
        return "temporary"
    return "task" if TASK.fullmatch(name) else "foreign"


def machine_dirs(share: Path) -> list[tuple[str, Path, str]]:
    """(id, path, why not) of each sub-folder of the share; `why not` is "" for one that may
    be read (named as an id, a real folder, not a link)."""
    found = []
    try:
        entries = sorted(os.scandir(share), key=lambda e: e.name)
    except FileNotFoundError:
        return []
    for entry in entries:
        if kind_of(entry.name) in ("temporary",) or entry.name.startswith("."):
            continue  # an engine's own files (.stfolder, .dropbox.cache, ...)
        why = ""
        if entry.is_symlink():
            why = "a link, not a folder: never followed"
        elif not entry.is_dir():
            continue
        elif CONFLICT.search(entry.name):
            why = "a conflict copy of a machine's folder: not read"
        elif not ID.fullmatch(entry.name):
            why = "not named as a machine id (16 hex digits): not read"
        found.append((entry.name, Path(entry.path), why))
    return found


def plain_file(path: Path) -> bool:
    """Whether `path` is a regular file and no link (a link could lead out of the folder)."""
    try:
        return path.lstat().st_mode & 0o170000 == 0o100000
    except OSError:
        return False


def whole_lines(file: Path, start: int, longest: int) -> Iterator[tuple[int, int, bytes | None]]:
    """(offset, end, line) of each whole line of a file read from the folder, from `start`; a
    line over `longest` bytes comes as None, passed over without being held in memory; an
    unended last line (a sync half done) is not given: it waits for the next pass."""
    with open(file, "rb") as handle:
        handle.seek(start)
        pos = line_start = start
        pending: list[bytes] = []
        held, skipping = 0, False
        while chunk := handle.read(CHUNK):
            at = 0
            while True:
                nl = chunk.find(b"\n", at)
                if not skipping:
                    piece = chunk[at : nl if nl >= 0 else len(chunk)]
                    pending.append(piece)
                    held += len(piece)
                    skipping = held > longest
                    pending = [] if skipping else pending
                if nl < 0:
                    break
                end = pos + nl + 1
                yield line_start, end, None if skipping else b"".join(pending)
                line_start, pending, held, skipping = end, [], 0, False
                at = nl + 1
            pos += len(chunk)
