"""Frames over a child process's pipes: a 4-byte little-endian length, then that many bytes.
What the fold helper (sidecar.py), the sentence model's process (model_process.py) and the
word index's (index_process.py) speak with their parents; and how the app starts and ends the
last two (`command`, `close`, `Kept`)."""

import contextlib
import struct
import subprocess
import sys
import threading
import time

LENGTH = struct.Struct("<I")
STOP_WAIT = 5.0  # seconds a child is given to end at the end of its stdin, then killed


def send(stream, payload: bytes) -> None:
    stream.write(LENGTH.pack(len(payload)) + payload)
    stream.flush()


def receive(stream) -> bytes | None:
    """The next frame, or None at the end of the stream (or in the middle of a frame)."""
    head = stream.read(LENGTH.size)
    if len(head) < LENGTH.size:
        return None
    (size,) = LENGTH.unpack(head)
    payload = stream.read(size)
    return payload if len(payload) == size else None


def close(process: subprocess.Popen, wait: float) -> None:
    """End a child that ends at the end of its stdin: close it, then kill the child if it has
    not ended within `wait` seconds."""
    with contextlib.suppress(OSError):
        process.stdin.close()
    try:
        process.wait(wait)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def command(flag: str, module: str) -> list[str]:
    """How the app starts a child of its own: the bundle's launcher with `flag` (a frozen app
    has no `python -m`), else `python -m module`."""
    if getattr(sys, "frozen", False):
        return [sys.executable, flag]
    return [sys.executable, "-m", module]


class Kept:
    """What the app's handles on its children (the model's, the index's) share: the keeper
    that ends a child once unused (`_arm`), `stop` and `pid`, for a handle with `lock`,
    `changed` (a Condition on it), `keeper`, `process`, `wait`, `busy`, `used` and `end()`."""

    KEEPER = "nodwyn-keeper"  # the keeper thread's name

    def _arm(self) -> None:
        """End the child once `wait` seconds pass with no request (never if wait < 0), by
        one thread that sleeps until then (a threading.Timer per request would slow each
        search); the lock held."""
        if self.wait < 0 or self.process is None:
            return
        if self.keeper is None:
            self.keeper = threading.Thread(target=self._keep, name=self.KEEPER, daemon=True)
            self.keeper.start()
        else:
            self.changed.notify()

    def _keep(self) -> None:
        with self.lock:
            while self.keeper is threading.current_thread() and self.process is not None:
                left = self.used + self.wait - time.monotonic()
                if not self.busy and left <= 0.01:
                    self.end()
                    break
                self.changed.wait(None if self.busy else left)
            if self.keeper is threading.current_thread():
                self.keeper = None

    def stop(self) -> None:
        """End the child now (the app's exit); the next request starts another. A request
        still running after STOP_WAIT (a thread left at exit) has its child killed, which
        that request hears as the child's end."""
        if self.lock.acquire(timeout=STOP_WAIT):
            try:
                self.keeper = None
                self.changed.notify_all()
                self.end()
            finally:
                self.lock.release()
        elif (process := self.process) is not None:
            process.kill()

    @property
    def pid(self) -> int | None:
        """The running child's process id, or None while none runs."""
        process = self.process
        return process.pid if process is not None and process.poll() is None else None
