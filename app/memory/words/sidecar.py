"""A helper process that folds logs into documents while this process indexes them.

A first build is CPU-bound in Python (decoding lines, folding cards and marks, picking out
compounds), and one process runs Python on one core. For a refresh with much to read
(index.HELP_FROM), `Helper` starts one more Python process and hands it logs to fold with
`documents.fold`, the very function this process folds with, so documents and `.mem` contents
are the same whichever process folded a log. Both take logs from one `Shared` list, this
process from the front and the helper from the back, so both stay busy to the end whatever the
sizes.

Invariants: only this process writes the index, every `.mem` and the index's state; the helper
reads logs and `.mem` files and sends back what it folded. Given the data directory, it first
lists the tasks (Store.list), which brings the catalogue up to date as any process listing
tasks may (the CLI and the app do, side by side): on a first build that reads every log. A
helper that cannot start, or dies, gives its logs back to the list and this process folds them:
the helper only ever saves time. Logs with more than HELPER_LOG bytes to read stay here, where
their documents stream into the index instead of crossing the pipe whole; results waiting to be
added are bounded (WAITING), so memory is.

Protocol: frames of msgpack (pipes.py), jobs on the helper's stdin and results on its stdout;
the end of its stdin ends it.
"""

import collections
import contextlib
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import msgspec

from ..pipes import receive, send
from . import documents

HELPER_LOG = 16 << 20  # bytes to read; logs with more are folded by this process only
IN_FLIGHT = 2  # jobs sent ahead, so the helper never waits for the next one
WAITING = 2  # folded logs waiting for this process to add them
CHILD = "from nodwyn.memory.words import sidecar; sidecar.main()"


class Shared:
    """Logs to fold: this process takes from the front, the helper from the back."""

    def __init__(self, jobs: list):
        # logs too big for the helper first: one at the back would leave it nothing to take
        big = [job for job in jobs if job.unread > HELPER_LOG]
        self._jobs = collections.deque(big + [job for job in jobs if job.unread <= HELPER_LOG])
        self._lock = threading.Lock()

    def front(self):
        with self._lock:
            return self._jobs.popleft() if self._jobs else None

    def back(self):
        with self._lock:
            if self._jobs and self._jobs[-1].unread <= HELPER_LOG:
                return self._jobs.pop()
            return None

    def give_back(self, job) -> None:
        with self._lock:
            self._jobs.append(job)


class Helper:
    """The helper process and the thread in this process that talks to it."""

    def __init__(self, shared: Shared, root: Path | None = None):
        self._shared = shared
        self._root = root
        self._decoder = msgspec.msgpack.Decoder(documents.Taken)
        self._results: queue.Queue = queue.Queue(WAITING)
        self._process: subprocess.Popen | None = None
        self._stopping = False
        self._ended = False  # `rest` has seen the helper's end
        self._thread = threading.Thread(target=self._run, name="nodwyn-fold-helper", daemon=True)
        self._thread.start()

    @staticmethod
    def possible() -> bool:
        """Whether this machine has a second core to give a helper, and a Python to run it."""
        return (_cores() or 1) >= 2 and not getattr(sys, "frozen", False)

    @classmethod
    def maybe(cls, shared: Shared, root: Path | None) -> "Helper | None":
        """A helper for the data directory `root` when one is worth it (root given) and
        `possible`."""
        return cls(shared, root) if root is not None and cls.possible() else None

    def ready(self) -> list:
        """(job, Taken) of the logs the helper has folded so far."""
        out = []
        while True:
            try:
                item = self._results.get_nowait()
            except queue.Empty:
                return out
            if item is not None:
                out.append(item)
            else:
                self._results.put(None)  # the end stays the end for `rest`
                return out

    def rest(self):
        """(job, Taken) of each log still to come, waiting for the helper to finish."""
        while (item := self._results.get()) is not None:
            yield item
        self._ended = True

    def stop(self) -> None:
        """End the helper and its thread: at once when this process stops early (the helper
        is killed), else once the helper has read the end of its input."""
        self._stopping = True
        while self._thread.is_alive():
            process = self._process
            if not self._ended and process is not None and process.poll() is None:
                process.kill()
            with contextlib.suppress(queue.Empty):
                self._results.get(timeout=0.05)  # unblock a thread waiting to put
        process = self._process
        if process is not None:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()

    def _run(self) -> None:
        sent: collections.deque = collections.deque()
        try:
            root = [str(self._root)] if self._root is not None else []
            self._process = subprocess.Popen(
                [sys.executable, "-c", CHILD, *root], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
            pipe_in, pipe_out = self._process.stdin, self._process.stdout
            while not self._stopping:
                while len(sent) < IN_FLIGHT and (job := self._shared.back()) is not None:
                    send(pipe_in, msgspec.msgpack.encode(job))
                    sent.append(job)
                if not sent:
                    break
                data = receive(pipe_out)
                if data is None:
                    break  # the helper died: its jobs are given back below
                self._results.put((sent.popleft(), self._decoder.decode(data)))
        except (OSError, ValueError, msgspec.DecodeError):
            pass
        finally:
            for job in sent:
                self._shared.give_back(job)
            if self._process is not None and self._process.stdin:
                with contextlib.suppress(OSError):
                    self._process.stdin.close()
            self._results.put(None)


def _cores() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def main() -> None:
    """The helper's loop: fold each job read from stdin, write what it gave to stdout. Given a
    data directory, it first brings that directory's task list (the catalogue) up to date,
    which the indexing process reads when it commits: on a first build that is a read of
    every log, better done on this core."""
    if len(sys.argv) > 1:
        from ...errors import NodwynError
        from ...tasks.store import Store

        with contextlib.suppress(OSError, NodwynError):
            Store(Path(sys.argv[1])).list(archived=None)
    decoder = msgspec.msgpack.Decoder(documents.Job)
    encoder = msgspec.msgpack.Encoder()
    pipe_in, pipe_out = sys.stdin.buffer, sys.stdout.buffer
    while (data := receive(pipe_in)) is not None:
        send(pipe_out, encoder.encode(documents.fold(decoder.decode(data))))
