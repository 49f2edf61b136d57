"""The tray icon: its glyph for the panel it sits on, its menu, and starting and docking it.

The only module that imports `pystray`. pystray picks its backend as it loads, so the backend
is chosen here before the import: on Linux the xorg one, which needs no GTK, or `dummy` with no
X display (the person's own PYSTRAY_BACKEND wins). The menu's items call what the app offers
(app.App: show, search, toggle_following, quit); a desktop without a tray gets no icon, and
closing the window then quits. Above them, one line per agent whose logs hold rate limits
(quota.meter), also in the icon's tooltip; `Quota` keeps them current: after each
import, and once at the next moment a figure turns stale or reset, with no timer otherwise.
"""

import logging
import os
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path


def _environment() -> None:
    """Settings read when pystray loads, so set before the imports below."""
    if sys.platform.startswith("linux"):
        # Without an X display the xorg backend cannot even load: no tray then.
        os.environ.setdefault("PYSTRAY_BACKEND", "xorg" if os.environ.get("DISPLAY") else "dummy")


_environment()

import pystray  # noqa: E402
from PIL import Image  # noqa: E402

log = logging.getLogger("nodwyn.desktop")

TITLE = "nodwyn"
ICONS = Path(__file__).resolve().parent / "icons"  # package data: icons/tray's 64 px glyphs


def panel_is_dark() -> bool:
    """Whether the glyph sits on something dark, as far as can be told cheaply.

    pystray's xorg backend (X11 trays) has no transparency: it pastes the icon onto black, so
    there the white glyph is the one that shows, on any panel. Windows: the taskbar follows
    SystemUsesLightTheme (dark unless set). macOS: the menu bar follows AppleInterfaceStyle.
    Other Linux trays: GTK_THEME if set, else dark (GNOME's top bar, Xfce's and Cinnamon's
    default panels).
    """
    if icon_on_black():
        return True
    if sys.platform == "win32":
        import winreg

        key = r"Software\Microsoft\Windows\CurrentVersion\Themes\Personalize"
        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, key) as opened:
                return not winreg.QueryValueEx(opened, "SystemUsesLightTheme")[0]
        except OSError:
            return True
    if sys.platform == "darwin":
        import subprocess

        try:
            asked = ["defaults", "read", "-g", "AppleInterfaceStyle"]
            said = subprocess.run(asked, capture_output=True, text=True, timeout=2)
        except (OSError, subprocess.SubprocessError):
            return False
        return said.stdout.strip() == "Dark"
    theme = os.environ.get("GTK_THEME", "").lower()
    return not theme or "dark" in theme


def icon_on_black() -> bool:
    """Whether pystray's backend is the xorg one, which draws the icon on black."""
    return pystray.Icon.__module__ == "pystray._xorg"


def icon_file(dark_panel: bool) -> Path:
    """The shipped glyph for the panel: white on a dark one, dark on a light one."""
    return ICONS / f"nodwyn-tray-{'light' if dark_panel else 'dark'}-64.png"


def icon_image(dark_panel: bool | None = None) -> Image.Image:
    """The tray icon: the project's tray glyph (icons/tray), or a drawn one if it is missing."""
    file = icon_file(panel_is_dark() if dark_panel is None else dark_panel)
    try:
        with Image.open(file) as image:
            return image.convert("RGBA")
    except (OSError, ValueError):  # a damaged or trimmed install: still show something
        log.warning("tray icon %s missing or unreadable; drawing one", file)
        return drawn_icon()


def drawn_icon(size: int = 64) -> Image.Image:
    """A rounded square in the accent colour with a white 'n' (ImageDraw, and the font library
    it loads, only for this fallback)."""
    from PIL import ImageDraw

    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((2, 2, size - 3, size - 3), radius=size // 5, fill=(37, 99, 235))
    w = size // 9
    left, right, top, bottom = size * 0.3, size * 0.7, size * 0.32, size * 0.74
    draw.line((left, top, left, bottom), fill="white", width=w)
    draw.arc((left, top, right, top + (right - left)), 180, 360, fill="white", width=w)
    mid = top + (right - left) / 2
    draw.line((right, mid, right, bottom), fill="white", width=w)
    return image


def menu(app) -> pystray.Menu:
    def following(item) -> str:
        return "Resume following agent logs" if app.worker.paused else "Pause following agent logs"

    def opener(task: str):
        return lambda: app.open_task(task)

    def items() -> tuple:
        # shown, not clicked: the page's overview has the detail
        quota = [pystray.MenuItem(line, None, enabled=False) for line in app.quota.lines]
        asking = [
            pystray.MenuItem(f"Needs your answer: {words}", opener(task))
            for task, words in app.answers.lines()
        ]
        return (
            *asking,
            *([pystray.Menu.SEPARATOR] if asking else []),
            *quota,
            *([pystray.Menu.SEPARATOR] if quota else []),
            pystray.MenuItem("Open nodwyn", lambda: app.show(), default=True),
            pystray.MenuItem("Search…", lambda: app.search()),
            pystray.MenuItem(following, lambda: app.toggle_following()),
            pystray.Menu.SEPARATOR,
            pystray.MenuItem("Quit", lambda: app.quit()),
        )

    return pystray.Menu(items)


class Quota:
    """The quota meter's lines for the menu and the tooltip, read again when told to."""

    def __init__(self, app):
        self.app, self.lines = app, []
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def refresh(self) -> None:
        from ..usage.quota import meter, next_change

        try:
            found = meter(self.app.store)
        except (OSError, ValueError):  # a log being replaced: the next import tells again
            log.warning("quota meter not read", exc_info=True)
            return
        with self._lock:
            self.lines = [agent.line for agent in found.agents]
            icon = self.app.icon
            if icon is not None:
                icon.title = "\n".join([TITLE, *self.lines])
                if icon.visible:  # a docked icon's menu is built again (pystray's note)
                    icon.update_menu()
            self._schedule(next_change(found))

    def _schedule(self, when: datetime | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        if when is None:
            return
        wait = max((when - datetime.now(UTC)).total_seconds(), 1.0)
        self._timer = threading.Timer(wait + 1, self.refresh)
        self._timer.name, self._timer.daemon = "nodwyn-quota", True
        self._timer.start()

    def stop(self) -> None:
        with self._lock:
            self._schedule(None)


def make_icon(app) -> pystray.Icon:
    from .answers import Answers

    app.quota = Quota(app)
    app.answers = Answers(app, icon_image, TITLE)
    app.icon = pystray.Icon("nodwyn", icon_image(), TITLE, menu=menu(app))
    app.quota.refresh()
    app.worker.imported = app.quota.refresh
    app.server.app.board.subscribe(app.answers.heard)  # the badge, the menu, a notification
    return app.icon


def start(app) -> None:
    """Show the tray icon from a daemon thread; a platform without a tray just has none."""
    if not present():
        log.info("no system tray on this desktop: closing the window quits")
        return
    icon = make_icon(app)

    def setup(icon: pystray.Icon) -> None:
        show(icon)
        app.tray_shown = True

    def run() -> None:
        try:
            icon.run(setup=setup)
        except Exception:  # no tray on this desktop: closing the window quits instead
            log.warning("no tray icon on this desktop", exc_info=True)
            app.tray_shown = False

    app.tray_thread = threading.Thread(target=run, name="nodwyn-tray", daemon=True)
    app.tray_thread.start()


def show(icon: pystray.Icon, within: float = 10.0) -> None:
    """Show the icon once pystray's loop runs. pystray's X11 backend starts the setup callback
    before its loop has noted its own thread, which showing the icon from another thread reads
    (pystray 0.19.5, `_xorg`): shown that early, it raised AttributeError and the app had no
    tray icon (rarely, as the threads fell). Tried again until the loop runs, for `within` s."""
    end = time.monotonic() + within
    while True:
        try:
            icon.visible = True
            return
        except AttributeError:
            if time.monotonic() > end:
                raise
            time.sleep(0.02)


def stop(icon: pystray.Icon, in_tray_thread: bool) -> None:
    """Take the icon away. pystray's stop waits on the tray's own loop, so it is given a few
    seconds, from a thread of its own (not waited for from a menu click, which runs in that
    loop)."""
    stopping = threading.Thread(target=icon.stop, name="nodwyn-tray-stop", daemon=True)
    stopping.start()
    if not in_tray_thread:
        stopping.join(5)


def present() -> bool:
    """Whether the desktop has a tray to dock in (on X11: a system-tray manager runs)."""
    if os.environ.get("PYSTRAY_BACKEND") != "xorg" or not os.environ.get("DISPLAY"):
        return os.environ.get("PYSTRAY_BACKEND") != "dummy"
    from Xlib import X, display

    try:
        screen = display.Display()
    except Exception:  # no X server to ask
        return False
    try:
        atom = screen.intern_atom(f"_NET_SYSTEM_TRAY_S{screen.get_default_screen()}")
        return screen.get_selection_owner(atom) != X.NONE
    finally:
        screen.close()
