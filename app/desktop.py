"""The desktop app: the API server, the background worker and a tray icon in one process, and
the window in a process of its own (window.py, driven through viewer.py).

The only module that imports `pystray` (window.py alone imports `webview`). `run()` claims the
data directory (a second launch asks the first to show its window and exits, see
instance.py), starts the API server on 127.0.0.1 and the worker in daemon threads, opens the
window on the server's page and puts an icon in the tray. The page's token reaches the window
process through its stdin pipe only: never a command line, a file or the environment
(docs/decisions/0006-desktop-app.md); the web view runs in private mode, so no history of that
URL is written to disk.

Invariants:
- closing the window ends its process, giving the web engine's memory back, while the
  `close_to_tray` setting is on and a tray icon is shown: the worker and the server go on,
  and Open makes the window again; otherwise, and on Quit, the app quits;
- quitting stops the worker first (it finishes the file in hand, so no log is left
  half-written), then the server, the tray and the window, and gives the data directory up;
- the window's size and position are kept in `<data>/window.json` and used at the next launch
  when they still fit on a screen.
"""

import logging
import os
import sys
import threading
from pathlib import Path


def _environment() -> None:
    """Settings read when pystray loads, so set before the imports below.

    pystray picks its backend on import: on Linux the xorg one, which needs no GTK (the
    person's own PYSTRAY_BACKEND wins).
    """
    if sys.platform.startswith("linux"):
        # Without an X display the xorg backend cannot even load: no tray then.
        os.environ.setdefault("PYSTRAY_BACKEND", "xorg" if os.environ.get("DISPLAY") else "dummy")


_environment()

import msgspec  # noqa: E402
import pystray  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from . import agents, instance, settings  # noqa: E402
from .api import Server, Status  # noqa: E402
from .store import Store  # noqa: E402
from .viewer import Viewer  # noqa: E402
from .worker import Worker  # noqa: E402

log = logging.getLogger("nodwyn.desktop")

TITLE = "nodwyn"
# The console focuses its search box on Ctrl+K from anywhere (UI.md); the direct focus after
# it covers a page that is still loading its scripts.
FOCUS_SEARCH = (
    "document.dispatchEvent(new KeyboardEvent('keydown', "
    "{key: 'k', ctrlKey: true, bubbles: true, cancelable: true}));"
    "var box = document.querySelector('[data-search-input]');"
    "if (box && document.activeElement !== box) box.focus();"
)


class Geometry(msgspec.Struct, kw_only=True, frozen=True):
    """Where the window was and how big, as `window.json` keeps it."""

    width: int = 1100
    height: int = 720
    x: int | None = None
    y: int | None = None


def geometry_path(root: Path) -> Path:
    return root / "window.json"


def load_geometry(root: Path) -> Geometry:
    try:
        return msgspec.json.decode(geometry_path(root).read_bytes(), type=Geometry)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return Geometry()


class App:
    """What the tray, the window's close button and a second launch can ask of the app."""

    def __init__(self, store: Store, server: Server, worker: Worker):
        self.store = store
        self.server = server
        self.worker = worker
        self.window: Viewer | None = None  # the window, whether or not its process runs
        self.icon: pystray.Icon | None = None
        self.tray_shown = False
        self.quitting = False
        self.quit_done = threading.Event()
        self.requests: list[str] = []  # what later launches asked, oldest first
        self._tray_lock = threading.Lock()
        self.tray_thread: threading.Thread | None = None
        agents.QUITTING.clear()  # one app per process; tests make several in turn

    def show(self) -> None:
        """Open nodwyn: show the window (made again if it was closed to the tray) and bring it
        in front of the others."""
        if self.window is not None:
            self.window.show()
            self.window.restore()

    def search(self) -> None:
        """Search…: show the window with the search box focused (once its page has loaded,
        when the window is made again)."""
        self.show()
        window = self.window
        if window is None:
            return
        loaded = window.events.loaded
        if loaded.is_set():
            window.run_js(FOCUS_SEARCH)  # not evaluate_js: the page's CSP forbids eval
            return

        def when_loaded() -> None:
            if loaded.wait(30):
                window.run_js(FOCUS_SEARCH)

        threading.Thread(target=when_loaded, name="nodwyn-search", daemon=True).start()

    def toggle_following(self) -> None:
        """Pause following the agents' logs, or resume it."""
        if self.worker.paused:
            self.worker.resume()
        else:
            self.worker.pause()
        if self.icon is not None and self.icon.visible:
            self.icon.update_menu()  # the item's text says what a click will do next

    def handle(self, request: str) -> None:
        """A request from a second launch (instance.REQUESTS)."""
        self.requests.append(request)
        if request == "search":
            self.search()
        else:
            self.show()

    def closed(self, geometry: dict) -> None:
        """The window closed and its process ended (its close button, or Quit): keep where it
        was, then stay in the tray while a tray icon is shown and `close_to_tray` is on."""
        self.keep_geometry(geometry)
        if self.quitting:
            return
        if self.tray_shown and settings.load(self.store.root).close_to_tray:
            return  # the worker and the server go on; Open makes the window again
        self.quit()

    def quit(self) -> None:
        """Quit: stop the worker cleanly, then everything else, and end the process."""
        self.stop_work()
        if self.window is not None:
            self.window.destroy()  # webview.start() returns in the main thread
        self.stop_tray()

    def stop_tray(self) -> None:
        """Take the icon away, once. pystray's stop waits on the tray's own loop; a second
        stop, or one after that loop ended, would wait for ever, so it runs at most once and
        is given a few seconds."""
        with self._tray_lock:
            icon, self.icon = self.icon, None
        if icon is not None:
            stopping = threading.Thread(target=icon.stop, name="nodwyn-tray-stop", daemon=True)
            stopping.start()
            if threading.current_thread() is not self.tray_thread:  # a menu click runs there
                stopping.join(5)

    def stop_work(self) -> None:
        """Stop the worker and the server (once); the window goes after."""
        if self.quitting:
            return
        self.quitting = True
        self.keep_geometry()
        self.worker.stop(timeout=120)
        agents.stop_imports(timeout=120)  # one the page started finishes its file, no more
        self.server.stop()
        self.quit_done.set()

    def keep_geometry(self, geometry: dict | None = None) -> None:
        """Keep where the window is (or was, as `geometry` says) for the next launch."""
        window = self.window
        if geometry is None and window is not None:
            geometry = {"width": window.width, "height": window.height, "x": window.x,
                        "y": window.y}  # fmt: skip
        try:
            kept = msgspec.convert(geometry, Geometry)
        except (msgspec.ValidationError, TypeError):  # no window yet: keep what was kept
            return
        instance.write_private(geometry_path(self.store.root), msgspec.json.encode(kept))


TRAY_ICONS = Path(__file__).resolve().parent / "tray"  # package data: icons/tray's 64 px glyphs


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


def tray_icon_file(dark_panel: bool) -> Path:
    """The shipped glyph for the panel: white on a dark one, dark on a light one."""
    return TRAY_ICONS / f"nodwyn-tray-{'light' if dark_panel else 'dark'}-64.png"


def icon_image(dark_panel: bool | None = None) -> Image.Image:
    """The tray icon: the project's tray glyph (icons/tray), or a drawn one if it is missing."""
    file = tray_icon_file(panel_is_dark() if dark_panel is None else dark_panel)
    try:
        with Image.open(file) as image:
            return image.convert("RGBA")
    except (OSError, ValueError):  # a damaged or trimmed install: still show something
        log.warning("tray icon %s missing or unreadable; drawing one", file)
        return drawn_icon()


def drawn_icon(size: int = 64) -> Image.Image:
    """A rounded square in the accent colour with a white 'n'."""
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


def tray_menu(app: App) -> pystray.Menu:
    def following(item) -> str:
        return "Resume following agent logs" if app.worker.paused else "Pause following agent logs"

    return pystray.Menu(
        pystray.MenuItem("Open nodwyn", lambda: app.show(), default=True),
        pystray.MenuItem("Search…", lambda: app.search()),
        pystray.MenuItem(following, lambda: app.toggle_following()),
        pystray.Menu.SEPARATOR,
        pystray.MenuItem("Quit", lambda: app.quit()),
    )


def make_icon(app: App) -> pystray.Icon:
    app.icon = pystray.Icon("nodwyn", icon_image(), TITLE, menu=tray_menu(app))
    return app.icon


def start_tray(app: App) -> None:
    """Show the tray icon from a daemon thread; a platform without a tray just has none."""
    if not tray_present():
        log.info("no system tray on this desktop: closing the window quits")
        return
    icon = make_icon(app)

    def setup(icon: pystray.Icon) -> None:
        icon.visible = True
        app.tray_shown = True

    def run() -> None:
        try:
            icon.run(setup=setup)
        except Exception:  # no tray on this desktop: closing the window quits instead
            log.warning("no tray icon on this desktop", exc_info=True)
            app.tray_shown = False

    app.tray_thread = threading.Thread(target=run, name="nodwyn-tray", daemon=True)
    app.tray_thread.start()


def tray_present() -> bool:
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


def run(
    store: Store, claim: instance.Instance, self_check: Path | None = None, search: bool = False
) -> int:
    """The app until Quit, in a process that holds the data directory's claim."""
    status = Status()
    server = Server(store, status=status).start()
    app = App(store, server, Worker(store, status))
    kept = msgspec.structs.asdict(load_geometry(store.root))
    app.window = Viewer(server.url, TITLE, kept, app.closed)
    claim.serve(app.handle)
    app.worker.start()
    app.window.show()
    # The icon docks once the window is up: docking while Qt maps its window deadlocked
    # both against the tray manager's server grab (seen under Xvfb with trayer).
    events = app.window.events
    for _ in range(1200):  # up to a minute; a window that cannot open ends its process
        if events.shown.wait(0.05) or events.closed.is_set():
            break
    start_tray(app)
    if search:
        app.search()
    if self_check is not None:
        from .selfcheck import check

        threading.Thread(target=check, args=(app, self_check), daemon=True).start()
    app.quit_done.wait()
    app.window.destroy()
    app.stop_tray()
    return 0


def main() -> None:
    """The gui-script `nodwyn-app` (what a double click runs)."""
    from .cli import main as cli_main

    sys.exit(cli_main(["app", *sys.argv[1:]]))
