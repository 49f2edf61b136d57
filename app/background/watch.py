"""Folders followed by filesystem notifications (watchdog: inotify, FSEvents,
ReadDirectoryChangesW), so the idle app does no work until something changes.

What is watched:
- the agents' folders: a change below one calls `stirred(folder)` (the worker then looks at
  that folder alone);
- the data directory's `settings.json`: a change calls `stirred(None)` (the worker then reads
  the settings again and looks at every folder, one newly followed among them);
- the data directory's `sessions/`: a log changed by anyone (a person's editor, a restore,
  nodwyn itself) is noted in the change journal (log/journal.py), so the next search folds it;
- the data directory's `journal`: a note added by any process calls `noted()` (the app's
  change feed then tells its waiting pages, feed.py, instead of looking at the journal).

A folder where notifications are not to be had is left to polling and said so by `watch`
returning False: a folder that does not exist yet (watched once it does, see `retry`), or one on
a network file system (NFS, SMB, sshfs...: the kernel sees only this computer's own writes).
"""

import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

from ..log import journal

log = logging.getLogger("nodwyn.watch")

REMOTE = frozenset(
    ("nfs", "nfs4", "cifs", "smb", "smb3", "smbfs", "afs", "ceph", "glusterfs", "9p")
    + ("fuse.sshfs", "fuse.rclone", "davfs")
)


def remote(folder: Path) -> bool:
    """Whether a folder lies on a network file system (Linux: from /proc/self/mounts)."""
    if not sys.platform.startswith("linux"):
        return False  # FSEvents and ReadDirectoryChangesW report shares' changes too
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as handle:
            mounts = [line.split()[1:3] for line in handle if len(line.split()) > 2]
    except OSError:
        return False
    place = os.path.realpath(folder)
    best, kind = "", ""
    for point, fstype in mounts:
        point = point.replace("\\040", " ")
        inside = place == point or place.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best, kind = point, fstype
    return kind in REMOTE


class Watch:
    """One watchdog observer for the agents' folders and the data directory's logs."""

    def __init__(
        self,
        root: Path,
        sessions: Path,
        stirred: Callable[[Path | None], None],
        noted: Callable[[], None] | None = None,
    ):
        self.root, self.sessions, self.stirred, self.noted = root, sessions, stirred, noted
        self.watching_the_data = False  # whether the data directory itself is watched
        self._observer = Observer()
        self._watched: dict[Path, object] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        self._observer.start()
        self._schedule(self.sessions, _Logs(self.root), recursive=False)
        self.watching_the_data = self._schedule(
            self.root, _Root(self.stirred, self.noted), recursive=False
        )

    def stop(self) -> None:
        if self._observer.is_alive():
            self._observer.stop()
            self._observer.join(5)

    def follow(self, folders: list[Path]) -> list[Path]:
        """Watch these agents' folders (and no others); those left to polling."""
        wanted = set(folders)
        polled = []
        with self._lock:
            mine = (self.sessions, self.root)
            for folder in [f for f in self._watched if f not in mine and f not in wanted]:
                self._observer.unschedule(self._watched.pop(folder))
        for folder in folders:
            if folder not in self._watched and not self._schedule(
                folder, _Stir(folder, self.stirred), recursive=True
            ):
                polled.append(folder)
        return polled

    def _schedule(self, folder: Path, handler, recursive: bool) -> bool:
        try:
            if not folder.is_dir() or remote(folder):
                return False
            with self._lock:
                self._watched[folder] = self._observer.schedule(
                    handler, str(folder), recursive=recursive
                )
        except OSError as exc:  # inotify's watch limit, a folder removed meanwhile
            log.warning("cannot watch %s (polling it): %s", folder, exc)
            return False
        return True


class _Logs(FileSystemEventHandler):
    """Notes in the journal each task log that changed, appeared, went or moved."""

    def __init__(self, root: Path):
        self.root = root

    def on_any_event(self, event) -> None:
        if event.event_type in ("opened", "closed_no_write") or event.is_directory:
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            name = os.path.basename(os.fsdecode(path))
            if name.endswith(".jsonl"):
                journal.note(self.root, name[: -len(".jsonl")])


class _Stir(FileSystemEventHandler):
    """Tells the worker that something changed below one agent's folder."""

    def __init__(self, folder: Path, stirred: Callable[[Path], None]):
        self.folder, self.stirred = folder, stirred

    def on_any_event(self, event) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        self.stirred(self.folder)


class _Root(FileSystemEventHandler):
    """Tells the worker that the settings changed (written by the page, or by hand), and the
    change feed that the journal did (a note from any process)."""

    def __init__(self, stirred: Callable[[Path | None], None], noted: Callable[[], None] | None):
        self.stirred, self.noted = stirred, noted

    def on_any_event(self, event) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        names = {
            os.path.basename(os.fsdecode(name))
            for name in (event.src_path, getattr(event, "dest_path", ""))
        }
        if "settings.json" in names:
            self.stirred(None)
        if journal.NAME in names and self.noted is not None:
            self.noted()
