"""The window as the app sees it: a process of its own (window.py), made when the window is
shown and gone when it closes, driven over a pipe.

`Viewer` offers what the app and its self-check ask of a window (show, run_js, geometry,
move, events) whether or not the window process is running: `show()` starts one when there
is none, the others do nothing (or give the last known geometry) while there is none.
`on_closed(geometry)` is called from the reader thread when the window closed (its close
button, or `close()`); the app then keeps the geometry and either stays in the tray or quits.
"""

import itertools
import json
import subprocess
import sys
import threading
from collections.abc import Callable

ANSWER_WITHIN = 10.0  # seconds to wait for the window process to answer a command


class Events:
    """The current window process's events (made anew with each process)."""

    def __init__(self):
        self.shown = threading.Event()
        self.loaded = threading.Event()
        self.closed = threading.Event()


def command() -> list[str]:
    """How to start the window process: the bundle's launcher knows a flag for it."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--nodwyn-window"]
    return [sys.executable, "-m", "nodwyn.desktop.window"]


class Viewer:
    def __init__(self, url: str, title: str, geometry: dict, on_closed: Callable[[dict], None]):
        self.url, self.title, self.on_closed = url, title, on_closed
        self.last = dict(geometry)  # where the window is, or was when it closed
        self.events = Events()
        self.started = 0  # window processes started, for the self-check
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._answers: dict[int, list] = {}
        self._answered = threading.Condition()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def show(self) -> None:
        """Show the window: start its process if there is none, else bring it forward."""
        with self._lock:
            if not self.alive:
                self._start()
                return
        self._send({"op": "show"})

    def restore(self) -> None:
        """Part of show(), which brings the window forward already."""

    def _start(self) -> None:
        self.events = Events()
        self._process = subprocess.Popen(
            command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.started += 1
        first = {"url": self.url, "title": self.title, **self.last}
        self._process.stdin.write(json.dumps(first) + "\n")
        self._process.stdin.flush()
        threading.Thread(
            target=self._read, args=(self._process, self.events), name="nodwyn-viewer", daemon=True
        ).start()

    def _read(self, process: subprocess.Popen, events: Events) -> None:
        geometry = None
        for line in process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "id" in message:
                with self._answered:
                    self._answers[message["id"]] = [message["value"]]
                    self._answered.notify_all()
            elif message.get("event") == "shown":
                events.shown.set()
            elif message.get("event") == "loaded":
                events.loaded.set()
            elif message.get("event") == "closed":
                geometry = message.get("geometry")
        process.wait()
        if geometry:
            self.last = geometry
        events.closed.set()
        self.on_closed(self.last)

    def _send(self, message: dict) -> None:
        process = self._process
        if process is None or process.poll() is not None:
            return
        try:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        except (OSError, ValueError):  # it ended meanwhile
            pass

    def _ask(self, message: dict):
        """A command's answer, or None when there is no window or it did not answer."""
        if not self.alive:
            return None
        number = next(self._ids)
        self._send({**message, "id": number})
        with self._answered:
            self._answered.wait_for(
                lambda: number in self._answers or not self.alive, ANSWER_WITHIN
            )
            answer = self._answers.pop(number, [None])[0]
        return None if isinstance(answer, dict) and "error" in answer else answer

    def run_js(self, script: str):
        return self._ask({"op": "run_js", "script": script})

    def geometry(self) -> dict:
        found = self._ask({"op": "geometry"})
        if found:
            self.last = found
        return self.last

    @property
    def x(self):
        return self.geometry()["x"]

    @property
    def y(self):
        return self.geometry()["y"]

    @property
    def width(self):
        return self.geometry()["width"]

    @property
    def height(self):
        return self.geometry()["height"]

    def move(self, x: int, y: int) -> None:
        self._ask({"op": "move", "x": x, "y": y})

    def resize(self, width: int, height: int) -> None:
        self._ask({"op": "resize", "width": width, "height": height})

    def close(self) -> None:
        """The window's close button: the window closes and its process ends."""
        self._send({"op": "close"})

    def destroy(self, timeout: float = 10.0) -> None:
        """Close the window and wait for its process to end (Quit)."""
        process = self._process
        if process is None:
            return
        self.close()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()

    def pid(self) -> int | None:
        return self._process.pid if self.alive else None
