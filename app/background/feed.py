"""What changed, for pages that wait to hear it: a progress holder and a change feed.

`Status` is the progress of long work (importing, indexing) that a background worker sets and
pages read. `Feed` notices which tasks changed by looking at the logs' sizes and modification
times (a `scandir`, at most once per `interval` however many pages wait, and at most 1/20 of
the time at 10,000 logs), and numbers each change: a page asks "what changed since version N"
and gets task ids, never content. While the change journal (log/journal.py) is as it was at
the last look, no writer has changed a log, so the look is skipped (one stat instead of one a
log) for up to FULL_EVERY seconds; a log changed behind nodwyn's back is noted in the journal
by the desktop app's watcher, and found by the next full look otherwise.

Where that watcher also watches the data directory (`watched()`), the journal's notes arrive
as notifications (`stir()`): a waiting page then does no look at all until one comes, a
change is told by the API or the progress moves (`poke()`), or its wait ends; the full look
runs every WATCHED_FULL_EVERY seconds instead, as a backstop (a lost notification).

Invariants: versions only grow; a task id is reported for any change of its log, including
its deletion; a progress change moves the version too, so a waiting page hears about it.
"""

import threading
import time
from pathlib import Path

import msgspec

from ..log import journal
from ..tasks import listing

FULL_EVERY = 30.0  # seconds between looks at every log while the journal says nothing changed
WATCHED_FULL_EVERY = 300.0  # the same while the journal's changes arrive as notifications


class Progress(msgspec.Struct, frozen=True, kw_only=True):
    """The long work under way: phase "" means nothing is running."""

    phase: str = ""
    done: int = 0
    total: int = 0
    note: str = ""  # what the last import the person started did (kept until the next one)
    left: float = -1.0  # seconds the encoding has left, by its pace so far (-1: not known)


class Status:
    """Thread-safe progress that the worker updates and the page reads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._progress = Progress()
        self._listeners: list = []
        self._pace = (time.monotonic(), 0)  # when the encoding's pace is counted from, and done
        self._last = time.monotonic()

    def set(self, phase: str, done: int = 0, total: int = 0, note: str | None = None) -> None:
        """Set the progress; `note` None keeps the last import's note."""
        with self._lock:
            note = self._progress.note if note is None else note
            left = self._left(phase, done, total)
            self._progress = Progress(phase=phase, done=done, total=total, note=note, left=left)
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def _left(self, phase: str, done: int, total: int) -> float:
        """Seconds the encoding has left at its pace since it began or the first task it
        had to encode (tasks encoded before are passed over at once), lock held."""
        now = time.monotonic()
        before = self._progress
        if phase != "encoding" or before.phase != "encoding" or done < before.done:
            self._pace, self._last = (now, done), now
            return -1.0
        if done == before.done + 1 and now - self._last < 0.005:  # passed over (encoded
            self._pace = (self._pace[0] + now - self._last, self._pace[1] + 1)  # before)
        self._last = now
        began, first = self._pace
        if done <= first or now <= began:
            return -1.0
        return (now - began) / (done - first) * (total - done)

    def clear(self) -> None:
        self.set("")

    def snapshot(self) -> Progress:
        with self._lock:
            return self._progress

    def subscribe(self, listener) -> None:
        """Call `listener()` after every change (the feed wakes its waiting pages)."""
        with self._lock:
            self._listeners.append(listener)


class Changes(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to "what changed since version N"."""

    version: int
    tasks: list[str]
    progress: Progress


class Feed:
    """Numbers the changes of the logs in one sessions folder and of a Status."""

    def __init__(self, sessions: Path, status: Status, interval: float = 0.5):
        self.sessions = sessions
        self.status = status
        self.interval = interval
        self.version = 0
        self._every = interval
        self._journal = journal.stamp(sessions.parent)
        self._seen: dict[str, tuple[int, int]] = self._stat()
        self._full = time.monotonic()
        self._changed_at: dict[str, int] = {}
        self._scanned = time.monotonic()
        self._watched = False  # the journal's changes arrive as stir() (watched())
        self._stirred = False  # a notification came since the last look
        self._closed = False
        self._cond = threading.Condition()
        status.subscribe(self.poke)

    def _stat(self) -> dict[str, tuple[int, int]]:
        try:
            found = listing.stats(self.sessions)
        except FileNotFoundError:
            return {}
        return {task: (stat.st_size, stat.st_mtime_ns) for task, stat in found.items()}

    def _scan(self) -> None:
        """Compare the logs with the last look; number what changed (lock held)."""
        began = time.monotonic()
        self._stirred = False
        stamp = journal.stamp(self.sessions.parent)
        if stamp is not None and stamp == self._journal and began - self._full < self._full_every():
            self._scanned = began  # no note since the last look: no writer changed a log
            return
        self._journal, self._full = stamp, began
        now = self._stat()
        # a look at 10,000 logs costs tens of ms: look at most 1/20 of the time (<= 5% of a core)
        self._every = max(self.interval, (time.monotonic() - began) * 20)
        changed = {
            task for task in now.keys() | self._seen.keys() if now.get(task) != self._seen.get(task)
        }
        self._seen, self._scanned = now, time.monotonic()
        if changed:
            self.version += 1
            for task in changed:
                self._changed_at[task] = self.version

    def watched(self) -> None:
        """The data directory is watched from now on (watch.py): each change of the journal
        calls stir(), so a waiting page stops looking at the journal every `interval`."""
        with self._cond:
            self._watched = True

    def stir(self) -> None:
        """A notification that the journal changed (from watchdog's thread). Only wakes the
        waiting pages, which look at most once an `_every` however many notes come."""
        with self._cond:
            self._stirred = True
            self._cond.notify_all()

    def poke(self) -> None:
        """Look again now and wake waiting pages (after a change made through the API)."""
        with self._cond:
            self._scan()
            self.version += 1
            self._cond.notify_all()

    def tell(self, tasks: list[str]) -> None:
        """Tasks changed in a way no log shows (a live state): number the change and wake the
        waiting pages, without a look at the logs."""
        with self._cond:
            self.version += 1
            for task in tasks:
                self._changed_at[task] = self.version
            self._cond.notify_all()

    def since(self, version: int) -> Changes:
        with self._cond:
            return self._answer(version)

    def _answer(self, version: int) -> Changes:
        tasks = sorted(task for task, at in self._changed_at.items() if at > version)
        return Changes(version=self.version, tasks=tasks, progress=self.status.snapshot())

    def wait(self, version: int, timeout: float) -> Changes:
        """Changes after `version`, waiting up to `timeout` seconds for one to happen."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._closed:
                if self._due():
                    self._scan()
                if self.version > version or version > self.version:
                    break  # a version from before a restart counts as "changed"
                now = time.monotonic()
                left = deadline - now
                if left <= 0:
                    break
                if self._watched and not self._stirred:
                    self._cond.wait(left)  # until stir(), poke(), close() or the end
                else:
                    self._cond.wait(min(left, max(0.0, self._every - (now - self._scanned))))
            return self._answer(version)

    def _due(self) -> bool:
        """Whether to look now (lock held): at most once an `_every`; while watched, only
        after a notification or when the full look is due."""
        now = time.monotonic()
        if now - self._scanned < self._every:
            return False
        return not self._watched or self._stirred or now - self._full >= self._full_every()

    def _full_every(self) -> float:
        """Seconds between looks at every log while the journal says nothing changed."""
        return WATCHED_FULL_EVERY if self._watched else FULL_EVERY

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
