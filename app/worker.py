"""The background worker: imports the agents' sessions as they grow and keeps memory warm.

One daemon thread per app. Each pass reads the settings (so a change from the page counts at
the next pass), lists the `.jsonl` files under the default folders of every agent the person
follows and under the folders the person imported with "Import a folder…" (setting
`extra_folders`, followed until the person stops it in Settings), and imports those whose
size or modification time changed since the last pass, one file at a time, through the
importers. Then it folds memory for the changed logs, so that the next search finds the new
turns at once. Progress goes to the shared Status, which the page polls.

Invariants:
- the stop and pause flags are checked between files, never inside one: an import in flight
  finishes its file and closes its Writer, so Quit never leaves a half-written record;
- a file's signature is remembered only after its import returned, so a file cut short by a
  pause or stop is imported at the next pass;
- a task the person deleted stays deleted: the store's tombstone makes the importer skip it;
- nothing here raises out of the thread: an unexpected error is logged and the next pass
  tries again.
"""

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from . import agents, memory, settings
from .agents import session_files
from .errors import NodwynError
from .importers.sync import default_paths
from .store import Store

log = logging.getLogger("nodwyn.worker")


class Progress(Protocol):
    def set(self, phase: str, done: int, total: int) -> None: ...


class Stopped(Exception):
    """Raised inside a pass when the worker is asked to stop or pause; never leaves the thread."""


class Worker:
    """Follows the agents' folders in a daemon thread until stop()."""

    def __init__(self, store: Store, status: Progress | None = None, interval: float = 3.0):
        self.store = store
        self.status = status
        self.interval = interval
        self.passes = 0  # completed passes, for tests and the self-check
        self._seen: dict[str, dict[Path, tuple[int, int]]] = {tool: {} for tool in agents.TOOLS}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._paused = threading.Event()
        self._idle = threading.Condition()
        self._thread: threading.Thread | None = None

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="nodwyn-worker", daemon=True)
        self._thread.start()

    def pause(self) -> None:
        self._paused.set()
        self._report("paused", 0, 0)

    def resume(self) -> None:
        self._paused.clear()
        self.wake()

    def wake(self) -> None:
        """Run a pass now instead of at the end of the interval."""
        self._wake.set()

    def request_stop(self) -> None:
        """Ask the thread to stop after the file in hand, without waiting (any thread)."""
        self._stop.set()
        self._wake.set()

    def stop(self, timeout: float | None = None) -> bool:
        """Ask the thread to stop after the file in hand; True once it has ended."""
        self.request_stop()
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def wait_for_pass(self, after: int, timeout: float) -> bool:
        """Block until more than `after` passes have completed (tests, self-check)."""
        with self._idle:
            return self._idle.wait_for(lambda: self.passes > after, timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._paused.is_set():
                try:
                    self.run_pass()
                except Stopped:
                    pass
                except Exception:  # keep following; the next pass tries again
                    log.exception("the background pass failed")
                    self._report("error", 0, 0)
            self._wake.wait(self.interval)
            self._wake.clear()

    def run_pass(self) -> bool:
        """One pass: import what changed, fold memory if anything did. True if anything did."""
        changed = {tool: self._changed(tool, paths) for tool, paths in self._folders().items()}
        total = sum(len(files) for files in changed.values())
        done = 0
        for tool, files in changed.items():
            for file, signature in files:
                self._check()
                self._report("importing", done, total)
                self._import(tool, file)
                self._seen[tool][file] = signature
                done += 1
        if total or self.passes == 0:
            self._check()
            self._fold()
        self._report("", 0, 0)  # nothing under way: the page hides its progress
        with self._idle:
            self.passes += 1
            self._idle.notify_all()
        return bool(total)

    def _folders(self) -> dict[str, list[Path]]:
        """Each agent's folders to follow now: its default ones if followed, and imported ones."""
        following = agents.followed(self.store.root)
        extra = settings.load(self.store.root).extra_folders
        folders = {}
        for tool in agents.TOOLS:
            folders[tool] = [*default_paths(tool)] if tool in following else []
            folders[tool].extend(Path(folder) for folder in extra.get(tool, []))
        return {tool: paths for tool, paths in folders.items() if paths}

    def _changed(self, tool: str, folders: list[Path]) -> list[tuple[Path, tuple[int, int]]]:
        current = session_files(folders)
        seen = self._seen[tool]
        for gone in [file for file in seen if file not in current]:
            del seen[gone]
        return sorted(
            ((file, sig) for file, sig in current.items() if seen.get(file) != sig),
            key=lambda item: item[1][1],  # oldest first: a session's parent before its child
        )

    def _import(self, tool: str, file: Path) -> None:
        try:
            report = agents.import_file(self.store, tool, file)
        except NodwynError as exc:  # a bad file is reported and skipped, never fatal
            log.warning("could not import %s: %s", file, exc)
            return
        for skipped in report.skipped:
            log.info("skipped %s: %s", skipped.path, skipped.reason)
        for problem in report.problems:
            log.warning("line skipped %s", problem.message())

    def _fold(self) -> None:
        with memory.BUILDING:
            memory.refresh(self.store, self._progress("indexing"))

    def _progress(self, phase: str) -> Callable[[int, int], None]:
        return lambda done, total: self._report(phase, done, total)

    def _check(self) -> None:
        if self._stop.is_set() or self._paused.is_set():
            raise Stopped

    def _report(self, phase: str, done: int, total: int) -> None:
        if self.status is not None:
            if not phase and self._paused.is_set():
                phase = "paused"
            self.status.set(phase, done, total)
