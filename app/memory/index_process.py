"""The word index brought up to date in a process of its own, for the app and `nodwyn serve`.

Refreshing the index in the app's process left tantivy's library in it for as long as it ran
(its relocations and the code the writer ran stay mapped). So a long-running process, after
keep_in_a_child(), sends each refresh to a child started on the first, which ends once no
refresh came for `keep_alive` seconds (NODWYN_INDEX_KEEP_ALIVE, else the sentence model's
NODWYN_MODEL_KEEP_ALIVE, else 300) and at the end of its stdin, so it never outlives the app;
a one-shot command refreshes in itself. The child is then the index's one writer: the app
reads the index (a search) after reloading what the child committed.

The two talk in frames (pipes.py): the parent asks what to bring up to date (b"w" the words:
every .mem, the index and the ledgers; b"i" the index alone, before a search), then b"f" every
log or b"c" the changed ones; the child answers b"P" and "done total" as logs are folded, then
b"D", or b"E" and {"error": the exception's class, "message"}. A child that cannot start or
ends mid-refresh raises Gone (the worker logs it and its next pass tries again; a search
refreshes in its own process instead); what a refresh cut short leaves, the next completes
with nothing added twice (the .mem marks, words/index.py).
"""

import atexit
import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import NodwynError, NotWritten
from .pipes import STOP_WAIT, Kept, close, command, receive, send

log = logging.getLogger("nodwyn.memory")
KEEP_ALIVE = 300.0  # seconds, unless NODWYN_INDEX_KEEP_ALIVE or NODWYN_MODEL_KEEP_ALIVE say
WORDS, INDEX = b"w", b"i"  # what is brought up to date: the words, or the index alone
FULL, CHANGED = b"f", b"c"  # every log looked at, or those the change journal names
PROGRESS, DONE, FAILED = b"P", b"D", b"E"


class Gone(NodwynError):
    """The index's process could not be started, or ended before it answered."""


def keep_alive() -> float:
    """Seconds the child stays after its last refresh: NODWYN_INDEX_KEEP_ALIVE, else the
    model's NODWYN_MODEL_KEEP_ALIVE (one setting for both of the app's helpers), else 300."""
    for name in ("NODWYN_INDEX_KEEP_ALIVE", "NODWYN_MODEL_KEEP_ALIVE"):
        said = os.environ.get(name, "").strip()
        with contextlib.suppress(ValueError):
            return float(said)
    return KEEP_ALIVE


_kept = [False]  # keep_in_a_child() was called
_children: dict[Path, "Child"] = {}
_making = threading.Lock()


def keep_in_a_child() -> None:
    """Refresh the word index in a child process from now on: what the app and `nodwyn
    serve` choose, so that their process never holds tantivy's writer (nor, at rest, tantivy)."""
    _kept[0] = True


def child_of(root: Path) -> "Child":
    """This process's child for the data folder `root` (made on first use, started on the
    first refresh)."""
    with _making:
        found = _children.get(root)
        if found is None:
            found = _children[root] = Child(root)
        return found


def refresh_words(store, progress: Callable[[int, int], None] | None, full: bool) -> None:
    """Bring every .mem, the word index and the ledgers up to date with the logs: in the
    child after keep_in_a_child() (raises Gone when it cannot), else here."""
    if _kept[0]:
        child_of(store.root).refresh(WORDS, full, progress)
    else:
        words_here(store, progress, full)


def words_here(store, progress, full: bool) -> None:
    from .provenance import ledgers
    from .words import index

    index.refresh(store, progress, full)
    ledgers.refresh(store)  # the lines each edit added, kept beside each .mem


def refreshed(store):
    """The index's state brought up to date with the logs, for a search: by the child after
    keep_in_a_child() (not asked when the change journal said nothing since its last
    refresh), else, or when the child cannot answer, here."""
    from .words import index as wordindex

    if not _kept[0]:
        return wordindex.refresh(store)
    child = child_of(store.root)
    state = child.quiet()
    if state is not None:
        return state
    try:
        state = child.refresh(INDEX, False)
    except Gone as exc:
        log.warning("%s: the search brings the index up to date itself", exc)
        return wordindex.refresh(store)
    return state if state is not None else wordindex.refresh(store)


class Child(Kept):
    """Refreshes of one data folder's word index run by a child process, one at a time,
    from any thread; the child ends once unused for `wait` seconds (never if wait < 0)."""

    KEEPER = "nodwyn-index-keeper"

    def __init__(self, root: Path, wait: float | None = None):
        self.root, self.wait = root, keep_alive() if wait is None else wait
        self.process: subprocess.Popen | None = None
        self.asking = threading.Lock()  # one refresh at a time
        self.lock = threading.Lock()  # the child's start and end, `busy` and `used`
        self.changed = threading.Condition(self.lock)  # a refresh ended, or the child stops
        self.busy, self.used = False, 0.0  # a refresh under way; time.monotonic() of the last
        self.keeper: threading.Thread | None = None  # ends the child once unused for `wait`
        self.starts = 0  # children started so far
        self.seen: tuple | None = None  # (journal stamp, state) of the last refresh
        atexit.register(self.stop)

    def refresh(self, what: bytes, full: bool, progress=None):
        """Bring `what` (WORDS or INDEX) up to date in the child, started if none runs,
        `progress(done, total)` told as it folds; the index's state after it. Raises Gone
        when the child cannot start or ends first, NotWritten or NodwynError as it failed."""
        from ..log import journal

        with self.asking:
            stamp = journal.stamp(self.root)
            process = self._begin()
            try:
                said = self._answer(process, what + (FULL if full else CHANGED), progress)
            except BaseException:  # frames left unread (a progress that raised): no use now
                self._drop(process)
                raise
            finally:
                with self.lock:
                    self.busy, self.used = False, time.monotonic()
                    self._arm()
            if said is None:
                self._drop(process)
                raise Gone("the word index's process ended in the middle of a refresh")
            if said[:1] == FAILED:
                raise failure(json.loads(said[1:]))
            return self._after(stamp)

    def _begin(self) -> subprocess.Popen:
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self.end()
                self.starts += 1
                try:  # stderr is the app's: what the child logs goes where the app's does
                    self.process = subprocess.Popen(
                        [*child_command(), str(self.root)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                    )
                except OSError as exc:
                    raise Gone(f"the word index's process could not be started: {exc}") from exc
            self.busy = True
            return self.process

    @staticmethod
    def _answer(process: subprocess.Popen, request: bytes, progress) -> bytes | None:
        """The child's last frame for `request` (DONE or FAILED), None if it ended first."""
        try:
            send(process.stdin, request)
            while (said := receive(process.stdout)) is not None:
                if said[:1] != PROGRESS:
                    return said
                if progress is not None:
                    done, total = said[1:].split()
                    progress(int(done), int(total))
        except (OSError, ValueError):  # a broken pipe: it died
            pass
        return None

    def _after(self, stamp):
        """The index's state the child left, its last commit seen by this process's reader."""
        from .words import opened, state

        found = state.load_state(self.root, shared=True)
        if found is not None:
            opened.reload((self.root, found.id))
        self.seen = (stamp, found)
        return found

    def quiet(self):
        """The index's state when nothing asks for a refresh since the child's last one (the
        change journal the same, no full check due, the same settings), else None."""
        from .. import settings
        from ..log import journal
        from .words import changes, state

        if self.seen is None or not self.seen[0]:
            return None
        found = state.load_state(self.root, shared=True)
        if found is None or found is not self.seen[1] or journal.stamp(self.root) != self.seen[0]:
            return None
        if changes.due(found, self.root):
            return None
        return found if found.tool_output == settings.load(self.root).search_tool_output else None

    def _drop(self, process: subprocess.Popen) -> None:
        with self.lock:
            if self.process is process:
                self.end()

    def end(self) -> None:
        """Close the child's stdin (it ends there, after the refresh in hand), and kill it if
        it has not ended within STOP_WAIT (the lock held)."""
        process, self.process = self.process, None
        if process is None:
            return
        close(process, STOP_WAIT)
        with contextlib.suppress(OSError):
            process.stdout.close()


def failure(said: dict) -> NodwynError:
    """The error a child's FAILED frame stands for: a full disk stays NotWritten (the worker
    pauses following on it), anything else a NodwynError naming the child."""
    if said.get("error") == "NotWritten":
        return NotWritten(said.get("message", ""))
    return NodwynError(f"the word index's process: {said.get('error')}: {said.get('message')}")


def serve(root: Path, given, answer) -> None:
    """The child: each refresh asked on `given`, answered on `answer`, until `given` ends."""
    from ..tasks.store import Store
    from .words import index

    store = Store(root)

    def progress(done: int, total: int) -> None:
        send(answer, PROGRESS + f"{done} {total}".encode())

    while (asked := receive(given)) is not None:
        full = asked[1:2] == FULL
        try:
            if asked[:1] == WORDS:
                words_here(store, progress, full)
            else:
                index.refresh(store, progress, full)
            said = DONE
        except Exception as exc:  # noqa: BLE001  told to the parent, whatever it was
            why = {"error": type(exc).__name__, "message": str(exc)[:500]}
            said = FAILED + json.dumps(why).encode("utf-8")
        try:
            send(answer, said)
        except OSError:  # the parent is gone
            return


def child_command() -> list[str]:
    """How the app starts the child: the bundle's launcher with `--nodwyn-index` (a frozen
    app has no `python -m`), else this module."""
    return command("--nodwyn-index", "nodwyn.memory.index_process")


def main() -> None:
    """The child: `python -m nodwyn.memory.index_process DATA_FOLDER`, or the bundle's
    launcher. Its frames go to what was its stdout; anything printed goes to stderr."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C ends the app, which ends this
    answer = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(Path(sys.argv[1]), sys.stdin.buffer, answer)


if __name__ == "__main__":
    main()
