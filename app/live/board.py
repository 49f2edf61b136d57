"""The live state of each task, as the agents' hooks (and their logs) last said it.

One `Board` per serving process (the app, `nodwyn serve`). `note()` takes a hook's line (from
the API, or from the spool the hook wrote while no app ran: read once at start), finds the
task (the agent's prefix and its session id; by folder where an agent gives no id) and keeps
its state; each change is told to the listeners (the page's change feed, the tray).

Invariants: a state is never stuck after its agent stopped sending. It goes when its session
ends, when the agent's process is gone (its pid, where the hook could tell it), when a running
state hears nothing for LIVE_FOR seconds, and any other after QUIET seconds without a word (an
agent whose process could not be told); `sweep()` looks every SWEEP seconds. The spool is read
whole and removed before its lines are noted, so a line is never noted twice.
"""

import logging
import os
import threading
import time
from collections.abc import Callable

import msgspec

from ..background.running import alive
from ..errors import BadInput
from ..importers import agent as core
from ..importers import registry
from ..tasks.store import Store
from . import events
from .hook import SPOOL

log = logging.getLogger("nodwyn.live")
QUIET = 3600.0  # seconds a state of an agent whose process is not known outlives its last event
SWEEP = 2.0  # seconds between looks for states that expired
_LINE = msgspec.json.Decoder(events.Line)


class Live(msgspec.Struct, frozen=True, kw_only=True):
    """A task's live state: what the agent is doing, since when, and what it asks."""

    task: str
    agent: str
    state: str  # events.ASKS / RUNNING / TURN
    what: str = ""
    folder: str = ""
    since: float = 0.0  # when this state began
    at: float = 0.0  # the last event heard
    pid: int = 0
    source: str = "hook"  # or "log": said by the log without a hook (logs.py)


Listener = Callable[[str, Live | None], None]


class Board:
    """The tasks' live states in one process; thread-safe."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._states: dict[str, Live] = {}
        self._listeners: list[Listener] = []
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    def subscribe(self, listener: Listener) -> None:
        """Call `listener(task, live)` after each change (live None: the state went)."""
        self._listeners.append(listener)

    def start(self) -> "Board":
        """Read the spool the hooks wrote while no app ran, then sweep in a daemon thread."""
        for line in drain(self.store.root):
            self.take(line)
        self._thread = threading.Thread(target=self._sweeping, name="nodwyn-live", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()

    def take(self, data: bytes, strict: bool = False) -> Live | None:
        """A hook's line as it came (JSON); one that is not a line is BadInput if `strict`,
        else logged and dropped (a spool's torn line)."""
        try:
            line = _LINE.decode(data)
        except msgspec.MsgspecError as exc:
            if strict:
                raise BadInput(f"not a hook's event: {exc}") from None
            log.warning("a hook's line was not read: %s", exc)
            return None
        return self.note(line)

    def note(self, line: events.Line) -> Live | None:
        """The state the line puts its task in (None: it said nothing, or the state went)."""
        event = events.read(line)
        if event is None:
            return None
        task = self._task(event)
        if not task:
            return None
        with self._lock:
            before = self._states.get(task)
            if event.state == events.ENDED:
                self._states.pop(task, None)
                live = None
            else:
                same = before is not None and before.state == event.state
                live = Live(
                    task=task,
                    agent=event.agent,
                    state=event.state,
                    what=event.what,
                    folder=event.cwd or (before.folder if before else ""),
                    since=before.since if same else event.at,
                    at=event.at,
                    pid=event.pid or (before.pid if before else 0),
                )
                self._states[task] = live
        if live != before:
            self._tell(task, live)
        return live

    def states(self) -> list[Live]:
        """Every current state, those that need an answer first, then the newest."""
        self.sweep()
        with self._lock:
            found = list(self._states.values())
        return sorted(found, key=lambda s: (s.state != events.ASKS, -s.at))

    def of(self, task: str) -> Live | None:
        with self._lock:
            return self._states.get(task)

    def sweep(self, now: float | None = None) -> list[str]:
        """Drop the states whose agent stopped sending; the tasks whose state went."""
        now = time.time() if now is None else now
        with self._lock:
            gone = [task for task, live in self._states.items() if expired(live, now)]
            for task in gone:
                del self._states[task]
        for task in gone:
            self._tell(task, None)
        return gone

    def _sweeping(self) -> None:
        while not self._closed.wait(SWEEP):
            try:
                self.sweep()
            except Exception:  # keep sweeping; the next look tries again
                log.exception("sweeping the live states failed")

    def _tell(self, task: str, live: Live | None) -> None:
        for listener in list(self._listeners):
            try:
                listener(task, live)
            except Exception:  # one listener's fault never stops the others
                log.exception("a live state's listener failed")

    def _task(self, event: events.Event) -> str:
        """The task of the event's session, or the newest of its agent's in its folder."""
        try:
            agent = registry.get(event.agent)
        except Exception:  # an agent this build does not import
            return ""
        if event.session:
            return agent.task_id(event.session)
        if not event.cwd:
            return ""
        folder = os.path.realpath(event.cwd)
        mine = [
            info
            for info in self.store.list()
            if info.origin == agent.origin
            and os.path.realpath(info.project or "/nowhere") == folder
        ]
        return max(mine, key=lambda info: info.last_activity).id if mine else ""


def expired(live: Live, now: float) -> bool:
    """Whether the agent stopped sending: its process gone, or silent too long for its state."""
    if live.pid and not alive(live.pid):
        return True
    if live.state == events.RUNNING:
        return now - live.at > core.LIVE_FOR
    return now - live.at > (QUIET if not live.pid else 24 * QUIET)


def drain(root) -> list[bytes]:
    """The spool's lines, the spool removed (moved aside first, so a hook writing meanwhile
    starts a new one and no line is read twice)."""
    spool = os.path.join(os.fspath(root), SPOOL)
    taken = f"{spool}.{os.getpid()}.reading"
    try:
        os.replace(spool, taken)
    except FileNotFoundError:
        return []
    try:
        with open(taken, "rb") as handle:
            lines = [line for line in handle.read().split(b"\n") if line.strip()]
    finally:
        os.unlink(taken)
    return lines
