"""The background worker: imports the agents' sessions as they grow and keeps memory warm.

One daemon thread per app. Each pass reads the settings (so a change from the page counts at
the next pass), lists the `.jsonl` files under the default folders of every agent the person
follows and under the folders the person imported with "Import a folder…" (setting
`extra_folders`, followed until the person stops it in Settings), and imports those whose
size or modification time changed since the last pass, one file at a time, through the
importers. Then it folds memory for the changed logs, so that the next search finds the new
turns at once. Progress goes to the shared Status, which the page polls.

Passes are driven by filesystem notifications (watch.py): a change below a followed folder
wakes the worker, which looks at that folder alone, at most once a GAP; folders without
notifications (missing yet, network shares) are looked at every `interval`; every folder is
looked at again every RESCAN whatever the notifications said. A source imported while live
(changed within the importers' LIVE_FOR) is imported once more when it goes quiet, the worker
waking for that moment: its importer held its last reply back, and nothing else would make
the file change again. The first pass looks at every
folder and checks every log of the data directory (a change made while the app was closed).
The same watch calls `noted()` (the app's change feed) whenever the data directory's change
journal changes, by whichever process wrote it. The SSH machines are pulled every MACHINES
seconds (and at the start) in a thread of their own (machines/pulls.py); what a pull imports
reaches the page through that journal.

Invariants:
- the stop and pause flags are checked between files, never inside one: an import in flight
  finishes its file and closes its Writer, so Quit never leaves a half-written record;
- a file's signature is remembered only after its import returned, so a file cut short by a
  pause or stop is imported at the next pass;
- a task the person deleted stays deleted: the store's tombstone makes the importer skip it;
- nothing here raises out of the thread: an unexpected error is logged and the next pass
  tries again;
- a full disk (NotWritten from an import or the index) pauses following, said in the status
  line; the worker looks at the disk's free room every `interval` and goes on by itself once
  room was made (ROOM_MADE more free bytes than when it stopped), or at the next RESCAN.
"""

import logging
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from .. import memory, settings
from ..errors import NodwynError, NotWritten
from ..importers import agents, registry, sources
from ..importers.agents import session_files
from ..machines import pulls, ssh
from ..tasks.store import Store
from ..usage import figures as usage
from . import scrub

log = logging.getLogger("nodwyn.worker")
GAP = 1.0  # seconds between passes woken by notifications (an agent writes many lines a second)
RESCAN = 600.0  # seconds between looks at every folder, notified or not
MACHINES = 600.0  # seconds between pulls of the SSH machines (app/machines), and at the start
ROOM_MADE = 64 * 1024  # free bytes more than when the disk filled: room was made, go on
SHARE_EVERY = 15.0  # seconds between looks at the shared folder when nothing was imported


class Progress(Protocol):
    def set(self, phase: str, done: int, total: int, note: str | None = None) -> None: ...


class Stopped(Exception):
    """Raised inside a pass when the worker is asked to stop or pause; never leaves the thread."""


class Worker:
    """Follows the agents' folders in a daemon thread until stop()."""

    def __init__(
        self,
        store: Store,
        status: Progress | None = None,
        interval: float = 3.0,
        watch=True,
        noted: Callable[[], None] | None = None,
        told: Callable[[list[str]], None] | None = None,
    ):
        self.store = store
        self.status = status
        self.interval = interval
        self.passes = 0  # completed passes, for tests and the self-check
        self.rounds = 0  # times round the loop, a pass run or (paused) not: the same
        self.polled: list[Path] = []  # followed folders without notifications
        self.imported: Callable[[], None] | None = None  # told after a pass that imported
        # told the tasks of a live source that changed while their log did not (what the
        # source says without hooks may have: live/logs.py), so pages read the list again
        self.told = told
        self._seen: dict[tuple[str, Path], dict[Path, tuple[int, int]]] = {}
        self._stirred: set[Path] = set()  # folders notified since the last pass
        # sources imported while live, by (agent, folder, file): when they go quiet (time.time())
        self._quieting: dict[tuple[str, Path, Path], float] = {}
        self._all = True  # the next pass looks at every folder
        self._watch = None
        if watch:
            from .watch import Watch  # watchdog: only the app's worker needs it

            self._watch = Watch(store.root, store.sessions, self._stir, noted)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._paused = threading.Event()
        self._idle = threading.Condition()
        self._thread: threading.Thread | None = None
        self._full: tuple[int, float] | None = None  # (free bytes, when) at a full disk
        self._shared_at = -SHARE_EVERY  # when the shared folder was last synced (monotonic)
        self._machines = 0.0  # when (monotonic) the SSH machines are next pulled

    @property
    def full(self) -> bool:
        """Following paused because the disk had no room; it goes on once there is."""
        return self._full is not None

    @property
    def watching_the_data(self) -> bool:
        """Whether the data directory is watched (after start): then `noted()` is called
        at each change of its change journal, by any process."""
        return self._watch is not None and self._watch.watching_the_data

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    @property
    def stopping(self) -> bool:
        """Asked to stop: the file in hand is finished, no other begun."""
        return self._stop.is_set()

    def start(self) -> None:
        if self._watch is not None:
            self._watch.start()
        self._thread = threading.Thread(target=self._run, name="nodwyn-worker", daemon=True)
        self._thread.start()

    def pause(self) -> None:
        self._paused.set()
        self._report("paused", 0, 0)

    def resume(self) -> None:
        self._paused.clear()
        self.wake()

    def wake(self) -> None:
        """Run a pass over every folder now instead of at the end of the interval."""
        self._all = True
        self._wake.set()

    def _stir(self, folder: Path | None) -> None:
        """A notification: something changed below `folder`, or the settings (None), from
        watchdog's thread."""
        if folder is None:
            self._all = True
        else:
            self._stirred.add(folder)
        self._wake.set()

    def request_stop(self) -> None:
        """Ask the thread to stop after the file in hand, without waiting (any thread)."""
        self._stop.set()
        self._wake.set()

    def stop(self, timeout: float | None = None) -> bool:
        """Ask the thread to stop after the file in hand; True once it has ended."""
        self.request_stop()
        if self._watch is not None:
            self._watch.stop()
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def wait_for_pass(self, after: int, timeout: float) -> bool:
        """Block until more than `after` passes have completed (tests, self-check)."""
        with self._idle:
            return self._idle.wait_for(lambda: self.passes > after, timeout)

    def wait_for_round(self, after: int, timeout: float) -> bool:
        """Block until the loop has come round more than `after` times, paused or not: that a
        paused worker looked and did nothing is an event a test can wait for."""
        with self._idle:
            return self._idle.wait_for(lambda: self.rounds > after, timeout)

    def _run(self) -> None:
        rescan = time.monotonic() + RESCAN
        while not self._stop.is_set():
            began = time.monotonic()
            if not self._paused.is_set() and self._has_room():
                try:
                    self.run_pass()
                except Stopped:
                    pass
                except NotWritten as exc:  # the disk is full: paused until there is room
                    self._disk_full(str(exc))
                except Exception:  # keep following; the next pass tries again
                    log.exception("the background pass failed")
                    self._report("error", 0, 0)
                self._pull_machines()
            with self._idle:
                self.rounds += 1
                self._idle.notify_all()
            woken = self._wake.wait(self._timeout(rescan))
            self._wake.clear()
            if time.monotonic() >= rescan:
                self._all, rescan = True, time.monotonic() + RESCAN
            elif woken and not self._all:  # notified: let a burst of writes settle
                self._stop.wait(max(0.0, began + GAP - time.monotonic()))

    def _timeout(self, rescan: float) -> float:
        """How long to wait for a notification: until the polled folders' next look, or until
        a source imported while live goes quiet, whichever comes first."""
        until_rescan = max(0.0, rescan - time.monotonic())
        polling = self.polled or self._watch is None or self._full is not None
        until = min(until_rescan, max(0.0, self._machines - time.monotonic()))
        timeout = min(self.interval, until) if polling else until
        if self._quieting and self._full is None and not self._paused.is_set():
            quiet = min(self._quieting.values()) - time.time() + 0.01  # just past the window
            timeout = min(timeout, max(0.0, quiet))
        return timeout

    def _pull_machines(self) -> None:
        """Every MACHINES seconds, start pulling the SSH machines in a thread of their own
        (pulls.py), so that no far machine holds up following this one's folders."""
        if time.monotonic() < self._machines:
            return
        self._machines = time.monotonic() + MACHINES
        try:
            hosts = ssh.hosts(self.store.root)
        except NodwynError as exc:  # a damaged ssh.json: said, and tried again next time
            log.warning("%s", exc)
            return
        if hosts:
            pulls.in_background(self.store, hosts)

    def run_pass(self) -> bool:
        """One pass: import what changed, fold memory if anything did. True if anything did.
        The first pass first scrubs the logs if the redaction rules changed (scrub.py)."""
        first = self.passes == 0
        if first:
            self._scrub()
        folders = self._looked_at()
        changed = {(agent, folder): self._changed(agent, folder) for agent, folder in folders}
        self._add_quiet(changed)
        total = sum(len(files) for files in changed.values())
        done = 0
        for (agent, folder), files in changed.items():
            for file, signature in files:
                self._check()
                self._report("importing", done, total)
                unchanged = self._import(agent, file)
                self._seen[(agent, folder)][file] = signature
                if self._note_live(agent, folder, file) and unchanged and self.told is not None:
                    self.told(unchanged)  # its log the same, what the source says moved on
                done += 1
        total += self._share(everything=first or bool(total))
        if total or first:
            self._check()
            self._fold(full=first)
            if self.imported is not None:
                self.imported()  # the tray's quota meter reads what was imported
        self._report("", 0, 0)  # nothing under way: the page hides its progress
        with self._idle:
            self.passes += 1
            self._idle.notify_all()
        return bool(total)

    def _looked_at(self) -> list[tuple[str, Path]]:
        """The (agent, folder) pairs this pass looks at: every followed one after a wake, the
        first pass or a rescan; else those notified and those without notifications."""
        followed = [(agent, folder) for agent, paths in self._folders().items() for folder in paths]
        polled = set(self.polled)  # looked at now, also if watched from now on
        if self._watch is not None:
            self.polled = self._watch.follow([folder for _, folder in followed])
            polled.update(self.polled)
        everything, self._all = self._all or self._watch is None, False
        stirred, self._stirred = self._stirred, set()  # noted before the look: none missed
        for pair in [pair for pair in self._seen if pair not in followed]:
            del self._seen[pair]
        if everything:
            return followed
        return [pair for pair in followed if pair[1] in stirred or pair[1] in polled]

    def _folders(self) -> dict[str, list[Path]]:
        """Each agent's folders to follow now: its default ones if followed, and imported ones."""
        following = agents.followed(self.store.root)
        extra = settings.load(self.store.root).extra_folders
        folders = {}
        for agent in registry.agent_keys():
            folders[agent] = [*registry.get(agent).roots()] if agent in following else []
            folders[agent].extend(Path(folder) for folder in extra.get(agent, []))
        return {agent: paths for agent, paths in folders.items() if paths}

    def _changed(self, agent: str, folder: Path) -> list[tuple[Path, tuple[int, int]]]:
        current = session_files(agent, [folder])
        seen = self._seen.setdefault((agent, folder), {})
        for gone in [file for file in seen if file not in current]:
            del seen[gone]
        return sorted(
            ((file, sig) for file, sig in current.items() if seen.get(file) != sig),
            key=lambda item: item[1][1],  # oldest first: a session's parent before its child
        )

    def _share(self, everything: bool) -> int:
        """Publish this machine's part of the shared folder and read the other machines'
        (machines/exchange.py), when one is shared: after a pass that imported, else at most
        every SHARE_EVERY seconds. The tasks that came or changed."""
        from ..machines import exchange, share

        if share.configured(self.store.root) is None:
            return 0
        if not everything and time.monotonic() < self._shared_at + SHARE_EVERY:
            return 0
        self._check()
        self._shared_at = time.monotonic()
        try:
            report = exchange.sync(self.store)
        except NotWritten:
            raise
        except NodwynError as exc:  # the folder's disk is away: said, tried again later
            log.warning("shared folder: %s", exc)
            return 0
        for problem in report.problems:
            log.warning("shared folder: %s", problem)
        return sum(
            len(o.created) + len(o.extended) + len(o.deleted) for o in report.machines.values()
        )

    def _note_live(self, agent: str, folder: Path, file: Path) -> bool:
        """Remember a source imported while live: its importer may have held its last reply
        back, which only an import after the source went quiet writes (`_add_quiet`). True
        if it is live."""
        key = (agent, folder, file)
        self._quieting.pop(key, None)
        try:
            quiet = sources.quiet_at(file)
        except OSError:  # gone since: nothing more to read from it
            return False
        if quiet > time.time():
            self._quieting[key] = quiet
        return key in self._quieting

    def _add_quiet(self, changed: dict[tuple[str, Path], list]) -> None:
        """Add to this pass the sources imported while live that went quiet since, unchanged:
        imported again once, their held-back part is written. One no longer followed or gone
        is forgotten."""
        now = time.time()
        for key, quiet in list(self._quieting.items()):
            agent, folder, file = key
            seen = self._seen.get((agent, folder), {})
            if file not in seen:
                del self._quieting[key]
            elif quiet <= now:
                listed = changed.setdefault((agent, folder), [])
                if all(file != other for other, _ in listed):
                    listed.append((file, seen[file]))

    def _free(self) -> int:
        try:
            return shutil.disk_usage(self.store.root).free
        except OSError:
            return 0

    def _disk_full(self, reason: str) -> None:
        log.warning("following paused: %s", reason)
        self._full, self._all = (self._free(), time.monotonic()), True
        self._report("", 0, 0, f"Following paused: {reason}. It goes on when there is room.")

    def _has_room(self) -> bool:
        """Whether to run a pass: always, unless the disk filled and no room was made since."""
        if self._full is None:
            return True
        free, since = self._full
        if self._free() < free + ROOM_MADE and time.monotonic() - since < RESCAN:
            return False
        self._full = None
        self._report("", 0, 0, "Following goes on: there is room on the disk again.")
        return True

    def _import(self, agent: str, file: Path) -> list[str]:
        """Import one file; the tasks it left unchanged."""
        try:
            report = agents.import_file(self.store, agent, file)
        except NotWritten:
            raise  # the disk is full: the pass stops here, this file not taken as seen
        except NodwynError as exc:  # a bad file is reported and skipped, never fatal
            log.warning("could not import %s: %s", file, exc)
            return []
        if report.stopped:
            raise NotWritten(report.stopped)
        for skipped in report.skipped:
            log.info("skipped %s: %s", skipped.path, skipped.reason)
        for problem in report.problems:
            log.warning("line skipped %s", problem.message())
        return report.unchanged

    def _scrub(self) -> None:
        if not scrub.due(self.store.root):
            return
        self._check()
        shown = any(self.store.sessions.glob("*.jsonl"))  # a new data folder: nothing to say
        if shown:
            self._report("scrubbing", 0, 0)
        done = scrub.scrub(self.store)
        note = scrub.said(done) if done.logs or done.busy else None
        if note:
            log.warning("%s", note)  # the person's notice: in the worker's log and on the page
        if shown:
            self._report("", 0, 0, note)  # "paused" if the person paused meanwhile

    def _fold(self, full: bool) -> None:
        with memory.BUILDING:
            memory.refresh_words(self.store, self._progress("indexing"), full=full)
        if full:  # the overview's figures read once now, not by the page's first draw
            usage.keep(self.store)
        # task by task, so searches by meaning run meanwhile on what is encoded so far
        memory.encode(self.store, self._progress("encoding"), lock=memory.BUILDING)

    def _progress(self, phase: str) -> Callable[[int, int], None]:
        return lambda done, total: self._report(phase, done, total)

    def _check(self) -> None:
        if self._stop.is_set() or self._paused.is_set():
            raise Stopped

    def _report(self, phase: str, done: int, total: int, note: str | None = None) -> None:
        if self.status is not None:
            if not phase and self._paused.is_set():
                phase = "paused"
            self.status.set(phase, done, total, note)
