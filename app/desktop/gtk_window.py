"""The window on Linux: a GTK window around one WebKit2GTK web view, made with PyGObject.

window.py uses it when the engine is GTK, in place of pywebview, whose GTK backend made the
same window but brought its HTTP server, ssl and objects of its own into the window's process
(ADR 0060). GTK runs in the main thread; the app's commands come in on window.py's stdin
thread and reach GTK through its main loop (`Window.call`), each waiting for its answer with a
deadline. Nothing the page does is kept after the window: its storage lives in a temporary
folder of the window's own, removed as it ends, and WebKitGTK writes no history.
"""

import contextlib
import gc
import glob
import json
import os
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from gi.repository import Gdk, GLib, Gtk, WebKit2  # versions required by window.engine()

ANSWER_WITHIN = 10.0  # seconds a command waits for GTK's main loop (viewer.py waits as long)
MIN_SIZE = (480, 360)
# The WM_CLASS: the .desktop file's StartupWMClass, by which docks show its icon. (An icon of
# the window's own would load GTK's icon theme into the process: 1.4 MB.)
NAME = "nodwyn-app"
# The right-click menu keeps what edits and copies; going back, reloading, opening a link or
# an image in another window or saving it, and the inspector have no place in an app's window.
# fmt: off
MENU_KEPT_NAMES = (
    "COPY", "CUT", "PASTE", "PASTE_AS_PLAIN_TEXT", "DELETE", "SELECT_ALL", "INSERT_EMOJI",
    "UNICODE", "INPUT_METHODS", "COPY_LINK_TO_CLIPBOARD", "COPY_IMAGE_TO_CLIPBOARD",
    "COPY_IMAGE_URL_TO_CLIPBOARD", "SPELLING_GUESS", "NO_GUESSES_FOUND", "IGNORE_SPELLING",
    "LEARN_SPELLING", "IGNORE_GRAMMAR",
)
# fmt: on
MENU_KEPT = {getattr(WebKit2.ContextMenuAction, name) for name in MENU_KEPT_NAMES}
OUTSIDE = ("http:", "https:", "mailto:")  # what a link opened outside the app may be
INSIDE = ("about:", "blob:", "data:")  # what the page itself makes (a blob: saves an export)


class Window:
    """The GTK window on the page at `url`, placed as `asked` says; `say` tells the app."""

    def __init__(self, asked: dict, say: Callable[[dict], None], folder: str):
        self.say, self.last, self.ended = say, None, False
        self.saving: Gtk.FileChooserNative | None = None  # the save dialog while it is open
        self.origin = origin(asked["url"])
        GLib.set_prgname(NAME)
        Gdk.set_program_class(NAME)
        self.window = Gtk.Window(title=asked.get("title", "nodwyn"))
        self.window.set_size_request(*MIN_SIZE)
        self.window.resize(asked.get("width", 1100), asked.get("height", 720))
        if asked.get("x") is None or asked.get("y") is None:
            self.window.set_position(Gtk.WindowPosition.CENTER)
        else:
            self.window.move(asked["x"], asked["y"])
        self.view = web_view(folder)
        self.view.connect("load-changed", self._load_changed)
        self.view.connect("decide-policy", self._decide_policy)
        self.view.connect("context-menu", lambda view, menu, *_: trimmed(menu))
        self.view.get_context().connect("download-started", self._download_started)
        self.window.add(self.view)
        self.window.connect("map-event", self._mapped)
        self.window.connect("delete-event", self._closing)
        self.window.connect("destroy", self._destroyed)
        self.view.load_uri(asked["url"])

    def run(self) -> dict | None:
        """Show the window and run GTK until it closes; where it was when it closed. Then the
        web view goes, and with it WebKit's web and network processes, which would otherwise
        write the page's storage again into its folder after that is removed."""
        self.window.show_all()
        Gtk.main()
        self.view = self.window = None
        gc.collect()  # the view, its context and data manager: WebKit ends its processes
        context, end = GLib.MainContext.default(), time.monotonic() + ANSWER_WITHIN
        while helpers() and time.monotonic() < end:
            context.iteration(False)
            time.sleep(0.02)
        return self.last

    # What the app asks (window.serve), from its stdin thread.

    def show(self) -> None:
        self.call(lambda: self.window.show_all())

    def restore(self) -> None:
        self.call(self._restore)

    def destroy(self) -> None:
        """The close button, as the window system sends it; an open save dialog, which would
        hold the window open, answers Cancel first (the app is quitting)."""
        self.call(self._close)

    def geometry(self) -> dict:
        return self.call(self._geometry)

    def move(self, x: int, y: int) -> None:
        self.call(lambda: self.window.move(x, y))

    def resize(self, width: int, height: int) -> None:
        self.call(lambda: self.window.resize(width, height))

    def run_js(self, script: str):
        """The script's value as JSON-able Python (None, bool, float, str, or a list or dict for
        an object); a script that throws raises GLib.Error."""

        def evaluate(done) -> None:
            def finished(view, result) -> None:
                try:
                    done(js_value(view, result))
                except Exception as exc:  # the script threw: the caller's to raise
                    done(exc)

            self.view.evaluate_javascript(script, -1, None, None, None, finished)

        return self.call(evaluate, waits=True)

    def call(self, work: Callable, waits: bool = False):
        """Run `work` in GTK's main loop and give its value, or raise what it raised; with
        `waits`, work is given a `done(value)` to call when its value comes later. From
        another thread this waits on an event; in the main loop itself it runs the loop until
        the value comes, so a caller there never waits for itself. Either within the
        deadline."""
        if self.ended:
            raise RuntimeError("the window has closed")
        answer = Answer()

        def start() -> bool:
            try:
                work(answer.give) if waits else answer.give(work())
            except Exception as exc:  # the caller's to raise, in its own thread
                answer.give(exc)
            return False

        if threading.current_thread() is threading.main_thread():
            start()
            answer.wait_in_loop(ANSWER_WITHIN)
        else:
            GLib.idle_add(start)
            answer.ready.wait(ANSWER_WITHIN)
        return answer.value()

    # GTK's signals, in the main loop.

    def _geometry(self) -> dict:
        (x, y), (width, height) = self.window.get_position(), self.window.get_size()
        return {"x": x, "y": y, "width": width, "height": height}

    def _mapped(self, *_) -> bool:
        self.say({"event": "shown"})
        return False

    def _close(self) -> None:
        if self.saving is not None:
            self.saving.hide()
        self.window.close()

    def _restore(self) -> None:
        self.window.deiconify()
        self.window.present()

    def _closing(self, *_) -> bool:
        self.last = self._geometry()
        return False  # GTK destroys the window

    def _destroyed(self, *_) -> None:
        self.ended = True
        Gtk.main_quit()

    def _load_changed(self, view, event) -> None:
        if event == WebKit2.LoadEvent.FINISHED:
            self.say({"event": "loaded"})

    def _decide_policy(self, view, decision, kind) -> bool:
        """The window stays on the app's page: a link to another window or another site (the
        page's own go to sites outside the app) opens in the person's browser, and a file
        dropped on the window is not opened in its place. Everything else is WebKit's to
        decide (a response that is an attachment downloads)."""
        if kind == WebKit2.PolicyDecisionType.RESPONSE:
            return False
        uri = decision.get_navigation_action().get_request().get_uri()
        new_window = kind == WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION
        if not new_window and (origin(uri) == self.origin or uri.startswith(INSIDE)):
            return False
        if uri.startswith(OUTSIDE):
            import webbrowser  # its look for a browser only when a link leaves the app

            webbrowser.open(uri)
        decision.ignore()
        return True

    def _download_started(self, context, download) -> None:
        download.connect("decide-destination", self._save_as)

    def _save_as(self, download, suggested: str) -> bool:
        """An export is a download: the window asks where to save it, and saving nowhere
        cancels it."""
        self.saving = save_dialog(self.window, suggested)
        answer = self.saving.run()
        chosen = self.saving.get_filename() if answer == Gtk.ResponseType.ACCEPT else None
        self.saving.destroy()
        self.saving = None
        if chosen is None:
            download.cancel()
        else:
            download.set_allow_overwrite(True)  # the dialog asked before replacing a file
            download.set_destination(GLib.filename_to_uri(chosen))
        return True


def web_view(folder: str) -> WebKit2.WebView:
    """The web view, its data (localStorage, caches) in `folder`: WebKitGTK's ephemeral mode
    gives the page no localStorage at all, and the page reads it as it loads."""
    data = WebKit2.WebsiteDataManager(
        base_data_directory=os.path.join(folder, "data"),
        base_cache_directory=os.path.join(folder, "cache"),
    )
    view = WebKit2.WebView(web_context=WebKit2.WebContext.new_with_website_data_manager(data))
    settings = view.get_settings()
    settings.props.enable_developer_extras = False
    settings.props.javascript_can_access_clipboard = True  # the page's Copy buttons
    return view


def save_dialog(parent: Gtk.Window, suggested: str) -> Gtk.FileChooserNative:
    """The dialog that asks where to save a file suggested as `suggested`: GTK's own, or the
    desktop's through its portal; in the Downloads folder, else the home folder."""
    dialog = Gtk.FileChooserNative.new("Save As", parent, Gtk.FileChooserAction.SAVE, None, None)
    dialog.set_do_overwrite_confirmation(True)
    folder = GLib.get_user_special_dir(GLib.UserDirectory.DIRECTORY_DOWNLOAD)
    dialog.set_current_folder(folder or GLib.get_home_dir())
    dialog.set_current_name(suggested)
    return dialog


def trimmed(menu: WebKit2.ContextMenu) -> bool:
    """The right-click menu with only the kept items; True (no menu at all) when none is."""
    for item in list(menu.get_items()):
        if item.get_stock_action() not in MENU_KEPT and not item.is_separator():
            menu.remove(item)
    items = menu.get_items()
    while items and items[0].is_separator():
        menu.remove(items.pop(0))
    while items and items[-1].is_separator():
        menu.remove(items.pop())
    return not items


def js_value(view: WebKit2.WebView, result):
    """A script's value as pywebview gave it: None, bool, float, str, or parsed JSON."""
    value = view.evaluate_javascript_finish(result)
    if value is None or value.is_null() or value.is_undefined():
        return None
    if value.is_boolean():
        return value.to_boolean()
    if value.is_number():
        return value.to_double()
    if value.is_string():
        return value.to_string()
    return json.loads(value.to_json(0))


def origin(uri: str) -> tuple[str, str]:
    """A URI's scheme and host with its port."""
    parts = urllib.parse.urlsplit(uri)
    return parts.scheme, parts.netloc


def helpers() -> list[str]:
    """The window's child processes (WebKit's) still running, from /proc."""
    found = []
    for listed in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        with contextlib.suppress(OSError):
            found += Path(listed).read_text().split()
    return [pid for pid in found if running(pid)]


def running(pid: str) -> bool:
    """Whether the process runs still (not ended and waiting to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def screens() -> list:
    """The monitors' rectangles (x, y, width, height), for window.on_a_screen."""
    display = Gdk.Display.get_default()
    if display is None:
        return []
    return [display.get_monitor(n).get_geometry() for n in range(display.get_n_monitors())]


class Answer:
    """A value given once from GTK's main loop to whoever waits for it."""

    def __init__(self):
        self.ready = threading.Event()
        self._value = None

    def give(self, value) -> None:
        if not self.ready.is_set():
            self._value = value
            self.ready.set()

    def wait_in_loop(self, seconds: float) -> None:
        """Run GTK's main loop until the value comes or `seconds` pass."""
        context, end = GLib.MainContext.default(), time.monotonic() + seconds
        woken = []  # a source that wakes the loop at the deadline, so iteration never outwaits
        wake = GLib.timeout_add(int(seconds * 1000), lambda: woken.append(True))  # once
        while not self.ready.is_set() and time.monotonic() < end:
            context.iteration(True)
        if not woken:
            GLib.source_remove(wake)

    def value(self):
        if not self.ready.is_set():
            raise TimeoutError(f"GTK's main loop did not answer within {ANSWER_WITHIN:.0f} s")
        if isinstance(self._value, BaseException):
            raise self._value
        return self._value


def storage() -> tempfile.TemporaryDirectory:
    """The window's own folder for the page's data, removed as the window ends."""
    return tempfile.TemporaryDirectory(prefix="nodwyn-webview-", ignore_cleanup_errors=True)
