"""The desktop app: the API server, the background worker and a tray icon in one process, and
the window in a process of its own (window.py, driven through viewer.py).

`run()` is given the data directory's claim (a second launch asks the first to show its window
and exits, see instance.py), starts the API server on 127.0.0.1 and the worker in daemon
threads, opens the window on the server's page and puts an icon in the tray (tray.py). The
page's token reaches the window process through its stdin pipe only: never a command line, a
file or the environment (ADR 0006); the web view runs in private
mode, so no history of that URL is written to disk.

Invariants:
- closing the window ends its process, giving the web engine's memory back, while the
  `close_to_tray` setting is on and a tray icon is shown: the worker and the server go on,
  and Open makes the window again; otherwise, and on Quit, the app quits;
- quitting stops the worker first (it finishes the file in hand, so no log is left
  half-written), then the server, the tray and the window, and gives the data directory up;
- the window's size and position are kept in `<data>/window.json` and used at the next launch
  when they still fit on a screen.
"""

import json
import threading
from pathlib import Path

import msgspec

from .. import settings
from ..api import Server, Status
from ..background import instance
from ..background.worker import Worker
from ..importers import agents
from ..tasks.store import Store
from . import tray
from .viewer import Viewer

# The console focuses its search box on Ctrl+K from anywhere (UI.md); the direct focus after
# it covers a page that is still loading its scripts.
# the page's own navigation: the address says which task and event, popstate makes it read it
OPEN_TASK = (
    "var u = new URL(location.href); u.searchParams.set('task', %s);"
    "u.searchParams.delete('q'); u.searchParams.delete('view');"
    "var s = %s; if (s) u.searchParams.set('seq', s); else u.searchParams.delete('seq');"
    "history.pushState(null, '', u); window.dispatchEvent(new PopStateEvent('popstate'));"
)
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
        self.icon = None  # the tray's pystray.Icon, once tray.make_icon made it
        self.tray_shown = False
        self.quota = None  # the tray's quota lines (tray.Quota), once tray.make_icon made them
        self.answers = None  # the sessions asking (answers.Answers), once tray.make_icon made them
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

    def open_task(self, task: str, seq: int | None = None) -> None:
        """Show the window on a task, at its event `seq` (a notification's or the tray's
        click), once its page has loaded."""
        self.show()
        window = self.window
        if window is None:
            return
        script = OPEN_TASK % (json.dumps(task), json.dumps("" if seq is None else str(seq)))

        def when_loaded() -> None:
            if window.events.loaded.wait(30):
                window.run_js(script)

        threading.Thread(target=when_loaded, name="nodwyn-open-task", daemon=True).start()

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
        was, then stay in the tray while a tray icon is shown and `close_to_tray` is on. On
        Quit the place was kept before the window was destroyed (stop_work): what a window
        being destroyed says of itself then (GTK: its minimum size at 0,0) is not kept."""
        if self.quitting:
            return
        self.keep_geometry(geometry)
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
        """Take the icon away, once: a second stop of pystray's, or one after the tray's own
        loop ended, would wait for ever."""
        with self._tray_lock:
            icon, self.icon = self.icon, None
        if self.quota is not None:
            self.quota.stop()
        if icon is not None:  # a menu click runs in the tray's thread
            tray.stop(icon, in_tray_thread=threading.current_thread() is self.tray_thread)

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
            geometry = {
                "width": window.width,
                "height": window.height,
                "x": window.x,
                "y": window.y,
            }
        try:
            kept = msgspec.convert(geometry, Geometry)
        except (msgspec.ValidationError, TypeError):  # no window yet: keep what was kept
            return
        instance.write_private(geometry_path(self.store.root), msgspec.json.encode(kept))


def run(
    store: Store, claim: instance.Instance, self_check: Path | None = None, search: bool = False
) -> int:
    """The app until Quit, in a process that holds the data directory's claim."""
    from ..memory import index_process
    from ..memory.meaning import encoder

    encoder.keep_in_a_child()  # the sentence model comes and goes in a process of its own
    index_process.keep_in_a_child()  # and the word index's writer in another
    status = Status()
    server = Server(store, status=status).start()
    feed = server.app.feed
    app = App(store, server, Worker(store, status, noted=feed.stir, told=feed.tell))
    kept = msgspec.structs.asdict(load_geometry(store.root))
    app.window = Viewer(server.url, tray.TITLE, kept, app.closed)
    claim.serve(app.handle)
    app.worker.start()
    if app.worker.watching_the_data:  # the journal's notes arrive as notifications
        server.app.feed.watched()
    app.window.show()
    # The icon docks once the window is up: docking while Qt maps its window deadlocked
    # both against the tray manager's server grab (seen under Xvfb with trayer).
    events = app.window.events
    for _ in range(1200):  # up to a minute; a window that cannot open ends its process
        if events.shown.wait(0.05) or events.closed.is_set():
            break
    tray.start(app)
    if search:
        app.search()
    if self_check is not None:
        from .selfcheck import check

        threading.Thread(target=check, args=(app, self_check), daemon=True).start()
    app.quit_done.wait()
    app.window.destroy()
    app.stop_tray()
    return 0
