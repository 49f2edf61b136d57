"""The tasks of one data directory: create, list, name, archive, close and delete them.

Every change is a record appended to the task's log through its `Writer`, so a task open in
another process (its lock held) is refused at once with TaskBusy. Listing goes through the
derived catalogue. Deleting removes the log and every derived file beside it (`<id>.*`) and
leaves a tombstone so an importer does not bring the task back. Every change of a log, and its
removal, is noted in the data directory's change journal (log/journal.py).

State of a task: nodwyn's own tasks are "open", "needs an answer" (an approval asked and not
answered) or "closed" (after session.close). nodwyn did not run an imported session, so an
imported task is "running" while its log gained records in the last few minutes, else
"closed"; it never waits on nodwyn for an answer.
"""

import os
import re
import time
from pathlib import Path

from .. import machines, paths
from ..errors import BadInput, TaskBusy, TaskNotClosed, TaskNotFound
from ..log import journal, records
from ..log.redact import redact
from ..log.writer import Writer
from . import listing
from .catalogue import (
    TITLE_MAX,
    Cache,
    TaskInfo,
    info,
    listed,
    running_since,
)

NOTE = 500  # characters of a bookmark's note
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,127}")
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id() -> str:
    """A ULID: 48 bits of milliseconds and 80 random bits, in Crockford base32 (26 chars)."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def clean_title(title: str) -> str:
    """A name as stored: whitespace collapsed to one line; BadInput when too long."""
    title = " ".join(title.split())
    if len(title) > TITLE_MAX:
        raise BadInput(f"a name has at most {TITLE_MAX} characters (this one has {len(title)})")
    return title


class Store:
    """The tasks kept in one data directory."""

    def __init__(self, root: Path | str | None = None):
        self.root = paths.data_dir(root)
        self.sessions = paths.sessions_dir(self.root)
        self.cache = Cache(self.sessions, self.root / listing.FILE)
        self.tombstones = self.root / "deleted.txt"

    def log_path(self, task: str) -> Path:
        if not _ID.fullmatch(task or ""):
            raise BadInput(f"{task!r} is not a task id")
        return self.sessions / f"{task}.jsonl"

    def exists(self, task: str) -> bool:
        return self.log_path(task).exists()

    def create(self, start: records.SessionStart, task: str | None = None) -> Writer:
        """A new task's log with its first line; the returned writer holds its lock."""
        task = task or new_id()
        if self.was_deleted(task):
            raise BadInput(f"task {task} was deleted")
        return Writer(self.log_path(task), start=start, root=self.root)

    def writer(self, task: str) -> Writer:
        """The writer of an existing task (TaskBusy when another holds it)."""
        return Writer(self.log_path(task), root=self.root)

    def list(self, archived: bool | None = False) -> list[TaskInfo]:
        """Tasks, newest activity first; archived=None lists archived and unarchived alike."""
        since = running_since()
        return [listed(fields, since) for fields in listing.select(self.cache.scan(), archived)]

    def list_json(self, archived: bool | None = False) -> str:
        """The same list as a JSON array, joined from the catalogue's rows without decoding."""
        since = running_since()
        rows = [
            listing.row_json(fields, since)
            for fields in listing.select(self.cache.scan(), archived)
        ]
        return "[" + ",".join(rows) + "]"

    def get(self, task: str) -> TaskInfo:
        path = self.log_path(task)
        if not path.exists():
            raise TaskNotFound(f"no task {task}")
        return info(task, self.cache.summary(task))

    def rename(self, task: str, title: str, actor: str = "person") -> TaskInfo:
        """Name a task; an empty name takes the name back (the first message shows again)."""
        record = records.SessionTitle(title=clean_title(title), actor=actor)
        return self._append(task, record)

    def archive(self, task: str, archived: bool = True) -> TaskInfo:
        current = self.get(task)
        if current.state in ("open", "needs an answer"):
            verb = "archived" if archived else "unarchived"
            raise TaskNotClosed(f"task {task} is {current.state}: close it before it is {verb}")
        if current.archived == archived:
            return current
        return self._append(task, records.SessionArchive(archived=archived))

    def close(self, task: str) -> TaskInfo:
        current = self.get(task)
        if current.origin != "nodwyn" or current.state == "closed":
            return current
        return self._append(task, records.SessionClose())

    def resume(self, task: str) -> TaskInfo:
        current = self.get(task)
        if current.origin != "nodwyn" or current.state != "closed":
            return current
        return self._append(task, records.SessionResume())

    def star(self, task: str, turn: int, note: str = "", starred: bool = True):
        """Star (or unstar) the turn that starts at seq `turn`, kept as a record of the log."""
        from . import starred as starred_index

        starred_index.check_turn(self.log_path(task), task, turn)
        note = redact(" ".join(note.split())[:NOTE])
        info = self._append(task, records.Bookmark(turn=turn, note=note, starred=starred))
        return starred_index.noted(self, info, turn, note, starred)

    def delete(self, task: str) -> None:
        """Remove a closed task's log and every file derived from it; remember it was deleted."""
        current = self.get(task)
        if current.state in ("open", "needs an answer"):
            raise TaskNotClosed(f"task {task} is {current.state}: close it before deleting it")
        elsewhere = machines.known(self.root).get(current.ran_on)
        if elsewhere is not None and elsewhere.kind == "folder" and not elsewhere.forgotten:
            raise BadInput(
                f"task {task} ran on {elsewhere.name}: delete it there (it then leaves here too);"
                " a rename or an archive made here reaches it"
            )
        self.remove(task)

    def remove(self, task: str, tombstone: bool = True) -> None:
        """Take a task's log and derived files out of this archive (its tombstone keeps an
        importer or a shared folder from bringing it back; a forgotten machine's have none)."""
        with self.writer(task):  # refused while another process holds the log
            if tombstone:
                with open(self.tombstones, "a", encoding="utf-8") as handle:
                    handle.write(task + "\n")
            for path in self.sessions.glob(f"{task}.*"):
                path.unlink(missing_ok=True)
        journal.note(self.root, task)

    def was_deleted(self, task: str) -> bool:
        try:
            with open(self.tombstones, encoding="utf-8") as handle:
                return any(line.rstrip("\n") == task for line in handle)
        except FileNotFoundError:
            return False

    def _append(self, task: str, record: records.Known) -> TaskInfo:
        """Append one record of the person's to a task's log (refused while another process
        writes it)."""
        path = self.log_path(task)
        if not path.exists():
            raise TaskNotFound(f"no task {task}")
        try:
            with Writer(path, root=self.root) as writer:
                writer.append([record])
        except TaskBusy:
            raise TaskBusy(f"task {task} is open in another process") from None
        return self.get(task)


def project_of(path: str | os.PathLike) -> str:
    """A folder as tasks record it: absolute, without a trailing separator."""
    return os.path.abspath(os.fspath(path))
