"""The tray's part in the live states: a badge with the number of sessions that need your
answer, a menu line for each that opens its task, and a desktop notification naming the
agent, the folder and what it asks, which opens the task at its last event when clicked.

Fed by the server's live board (live/board.py: its listeners run on the thread that heard the
hook). A notification is sent once as a session starts asking, never again for the same
question, and not at all when the person turned them off (setting `notify_answers`). Where
the desktop has `notify-send` (libnotify) it is asked with an "Open" action and waited for in
a thread of its own, so a click opens the task; elsewhere pystray's own notification says it
(a click on it opens nothing: the tray's menu line does).
"""

import logging
import shutil
import subprocess
import threading
from pathlib import Path

from PIL import Image

from .. import settings
from ..importers import registry
from ..live.events import ASKS
from ..log import logfile

log = logging.getLogger("nodwyn.desktop")
NOTIFY_SEND = "notify-send"  # libnotify's command (a test names a stand-in of its own)
AMBER = (217, 119, 6, 255)


class Answers:
    """The sessions that need an answer now, as the tray shows them."""

    def __init__(self, app, glyph, title: str):
        self.app, self.glyph, self.title = app, glyph, title  # the tray's icon and name
        self.asking: dict[str, object] = {}  # task -> its live state
        self._lock = threading.Lock()

    def heard(self, task: str, live) -> None:
        """A task's live state changed (a board listener)."""
        with self._lock:
            was = self.asking.get(task)
            if live is not None and live.state == ASKS:
                self.asking[task] = live
            else:
                self.asking.pop(task, None)
            fresh = (
                live is not None and live.state == ASKS and (was is None or was.what != live.what)
            )
        self.redraw()
        if fresh and settings.load(self.app.store.root).notify_answers:
            self.notify(task, live)

    def lines(self) -> list[tuple[str, str]]:
        """(task, the menu's words) of each session asking, newest first."""
        with self._lock:
            found = sorted(self.asking.items(), key=lambda item: -item[1].at)
        return [(task, said(live)) for task, live in found]

    def redraw(self) -> None:
        icon = self.app.icon
        if icon is None:
            return
        count = len(self.asking)
        icon.icon = badge(self.glyph(), count)
        waiting = (
            f"{count} session{'s' if count > 1 else ''} need{'s' if count == 1 else ''} your answer"
        )
        icon.title = "\n".join([self.title, *([waiting] if count else []), *self.app.quota.lines])
        if icon.visible:
            icon.update_menu()

    def notify(self, task: str, live) -> None:
        title, body = "Needs your answer", said(live)
        command = shutil.which(NOTIFY_SEND)
        if command is None:
            icon = self.app.icon
            if icon is not None and getattr(icon, "HAS_NOTIFICATION", False):
                icon.notify(body, title)
            return
        asked = [command, "--app-name=nodwyn", "--action=open=Open", "--wait", title, body]
        threading.Thread(
            target=self._wait, args=(asked, task), name="nodwyn-notify", daemon=True
        ).start()

    def _wait(self, asked: list[str], task: str) -> None:
        try:
            done = subprocess.run(asked, capture_output=True, text=True, timeout=3600)
        except (OSError, subprocess.SubprocessError) as exc:
            log.info("no desktop notification: %s", exc)
            return
        if done.stdout.strip() in ("open", "default"):
            self.app.open_task(task, last_seq(self.app.store, task))


def said(live) -> str:
    """ "Claude Code in pager: Bash: rm -rf build": the agent, the folder and what it asks."""
    try:
        label = registry.get(live.agent).label
    except Exception:  # an agent this build does not name
        label = live.agent
    folder = Path(live.folder).name if live.folder else ""
    where = f" in {folder}" if folder else ""
    return f"{label}{where}: {live.what or 'needs your answer'}"


def last_seq(store, task: str) -> int | None:
    """The seq of the task's last event, where the page opens it."""
    try:
        found = logfile.last_record(store.log_path(task))
    except OSError:
        return None
    return None if found is None else found[1].seq


def badge(image: Image.Image, count: int) -> Image.Image:
    """The tray glyph with an amber dot and the count in its top right corner (none at 0)."""
    if count <= 0:
        return image
    from PIL import ImageDraw  # and its fonts: loaded when a session first asks

    image = image.copy()
    size = image.width
    draw = ImageDraw.Draw(image)
    r = size * 0.24
    box = (size - 2 * r - 1, 1, size - 1, 2 * r + 1)
    draw.ellipse(box, fill=AMBER, outline=(255, 255, 255, 255), width=max(1, size // 32))
    text = str(count) if count < 10 else "9+"
    left, top, right, bottom = draw.textbbox((0, 0), text)
    at = (box[0] + r - (right - left) / 2 - left, box[1] + r - (bottom - top) / 2 - top)
    draw.text(at, text, fill=(255, 255, 255, 255))
    return image
