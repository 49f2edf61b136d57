"""The GTK window's process (window.py with gtk_window.py) on its own, under a fresh Xvfb, driven
over its pipe as the app drives it (viewer.py), on pages a test server on 127.0.0.1 gives.

What the app's self-check cannot see from its side: that the process never loads pywebview,
that the page's localStorage lasts while the window does and is gone with it, and that a
download asks where to save it (GTK's save dialog, answered with the keyboard through XTEST,
as a person would).
"""

import http.server
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from nodwyn.desktop import window as window_module

pytestmark = pytest.mark.skipif(
    window_module.engine() != "gtk", reason="the window is WebKitGTK only where its typelibs are"
)

COUNTER = (
    b"<!doctype html><title>counter</title><p id=n></p><script>"
    b"var n = +(localStorage.getItem('opened') || 0) + 1;"
    b"localStorage.setItem('opened', String(n)); document.getElementById('n').textContent = n;"
    b"</script>"
)
SAVE = (
    "var a = document.createElement('a');"
    "a.href = URL.createObjectURL(new Blob(['# kestrel\\n'], {type: 'text/markdown'}));"
    "a.download = 'kestrel.md'; document.body.append(a); a.click(); a.remove(); true"
)
# The window's process as the app starts it, saying at its end which modules it had loaded.
PROBE = (
    "import atexit, json, runpy, sys\n"
    "atexit.register(lambda: print(json.dumps({'event': 'modules', 'names': sorted(sys.modules)}),"
    " flush=True))\n"
    "runpy.run_module('nodwyn.desktop.window', run_name='__main__')\n"
)


@pytest.fixture(scope="module")
def display():
    """A fresh Xvfb; its display name once it is ready to take clients."""
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    number = server.stdout.readline().strip()  # written once the server listens
    assert number.isdigit(), "Xvfb gave no display"
    yield f":{number}"
    server.terminate()
    server.wait(10)
    server.stdout.close()


@pytest.fixture(scope="module")
def site():
    """The page that counts its openings in localStorage, on 127.0.0.1."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(COUNTER)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


class WindowProcess:
    """The window's process and its pipe: the app's end of window.py's protocol."""

    def __init__(self, display: str, url: str, home: Path, **given: str):
        env = {**os.environ, "DISPLAY": display, "HOME": str(home), "TMPDIR": str(home), **given}
        env.pop("PYWEBVIEW_GUI", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.process = subprocess.Popen([sys.executable, "-c", PROBE], env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
        self.said: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = {"url": url, "title": "nodwyn", "width": 900, "height": 600, "x": 40, "y": 30}
        self.send(first)
        self.ids = iter(range(1, 1000))

    def _read(self) -> None:
        with self.process.stdout:
            for line in self.process.stdout:
                self.said.put(json.loads(line))
        self.said.put(None)  # the process ended

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def next(self, wanted, within: float = 30.0) -> dict:
        """The next message `wanted(message)` accepts, within the deadline."""
        end = time.monotonic() + within
        while (left := end - time.monotonic()) > 0:
            message = self.said.get(timeout=left)
            assert message is not None, "the window's process ended"
            if wanted(message):
                return message
        raise TimeoutError("no such message")

    def event(self, name: str) -> dict:
        return self.next(lambda message: message.get("event") == name)

    def ask(self, op: str, **given):
        number = next(self.ids)
        self.send({"op": op, "id": number, **given})
        return self.next(lambda message: message.get("id") == number)["value"]

    def end(self) -> list[dict]:
        """Close its stdin, as an app that ended does; what it said until it ended."""
        self.process.stdin.close()
        try:
            code = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("the window's process did not end within 30 s") from None
        assert code == 0
        said = []
        while (message := self.said.get(timeout=5)) is not None:
            said.append(message)
        return said


def test_the_gtk_window_process_never_loads_pywebview(display, site, tmp_path):
    window = WindowProcess(display, site, tmp_path)
    window.event("loaded")
    assert window.ask("run_js", script="document.title") == "counter"
    said = window.end()
    closed = next(message for message in said if message.get("event") == "closed")
    assert closed["geometry"]["width"] == 900
    names = next(message for message in said if message.get("event") == "modules")["names"]
    assert "gi.repository.WebKit2" in names  # the probe saw the window's own modules
    # pywebview and its HTTP server (ssl comes with PyGObject's asyncio support either way)
    assert [name for name in names if name.split(".")[0] in ("webview", "bottle")] == []


def test_run_js_gives_the_values_pywebview_gave_and_a_throw_as_an_error(display, site, tmp_path):
    window = WindowProcess(display, site, tmp_path)
    window.event("loaded")
    assert window.ask("run_js", script="JSON.stringify({a: [1, 'b']})") == '{"a":[1,"b"]}'
    assert window.ask("run_js", script="({a: [1, 'b']})") == {"a": [1, "b"]}
    assert window.ask("run_js", script="1 + 1") == 2.0
    assert window.ask("run_js", script="undefined") is None
    assert window.ask("run_js", script="document.hidden") is False
    thrown = window.ask("run_js", script="throw new Error('kestrel')")
    assert "kestrel" in thrown["error"]
    assert window.ask("run_js", script="'still here'") == "still here"
    window.end()


def test_local_storage_lasts_through_a_reload_and_is_gone_with_the_window(display, site, tmp_path):
    window = WindowProcess(display, site, tmp_path)
    window.event("loaded")
    assert window.ask("run_js", script="localStorage.getItem('opened')") == "1"
    window.ask("run_js", script="location.reload()")
    window.event("loaded")
    assert window.ask("run_js", script="localStorage.getItem('opened')") == "2"
    assert list(tmp_path.glob("nodwyn-webview-*")), "the page's storage is not in its folder"
    window.end()
    assert list(tmp_path.glob("nodwyn-webview-*")) == []  # removed as the window ended
    again = WindowProcess(display, site, tmp_path)
    again.event("loaded")
    assert again.ask("run_js", script="localStorage.getItem('opened')") == "1"
    again.end()


def answer_save_dialog(display: str, key: str, within: float = 20.0) -> None:
    """Press `key` in the save dialog once it is on the screen (the keyboard given to it), as
    a person would, through XTEST."""
    from Xlib import XK, X
    from Xlib import display as xdisplay
    from Xlib.ext import xtest

    screen = xdisplay.Display(display)
    try:
        dialog = wait_for(lambda: next(iter(save_dialogs(screen)), None), within)
        assert dialog is not None, "no save dialog on the screen"
        dialog.set_input_focus(X.RevertToParent, X.CurrentTime)
        code = screen.keysym_to_keycode(XK.string_to_keysym(key))
        xtest.fake_input(screen, X.KeyPress, code)
        xtest.fake_input(screen, X.KeyRelease, code)
        screen.sync()
    finally:
        screen.close()


def save_dialog_shown(display: str) -> bool:
    from Xlib import display as xdisplay

    screen = xdisplay.Display(display)
    try:
        return bool(save_dialogs(screen))
    finally:
        screen.close()


def save_dialogs(screen) -> list:
    """The top-level windows shown on the screen under the save dialog's title."""
    shown = 2  # X.IsViewable
    children = screen.screen().root.query_tree().children
    return [
        c
        for c in children
        if c.get_wm_name() == "Save As" and c.get_attributes().map_state == shown
    ]


def wait_for(probe, within: float = 20.0):
    end = time.monotonic() + within
    while not (found := probe()) and time.monotonic() < end:
        time.sleep(0.1)
    return found


def test_a_download_asks_where_to_save_it_and_saves_it_there(display, site, tmp_path):
    window = WindowProcess(display, site, tmp_path)  # home: the dialog opens there
    window.event("loaded")
    assert window.ask("run_js", script=SAVE) is True
    answer_save_dialog(display, "Return")  # the suggested name, in the folder shown
    saved = tmp_path / "kestrel.md"
    assert wait_for(lambda: saved.exists() and saved.read_text() == "# kestrel\n")
    window.end()


def test_a_download_saved_nowhere_is_not_written(display, site, tmp_path):
    window = WindowProcess(display, site, tmp_path)
    window.event("loaded")
    assert window.ask("run_js", script=SAVE) is True
    answer_save_dialog(display, "Escape")
    assert window.ask("run_js", script="'answers after the dialog'") == "answers after the dialog"
    window.end()
    assert list(tmp_path.glob("kestrel*")) == []


# A caller inside GTK's main loop (a signal's handler) asking the window for a script's value and
# its place: it must get them without waiting for itself.
IN_THE_LOOP = """
import json, sys, tempfile
from nodwyn.desktop import window
from nodwyn.desktop import gtk_window
from gi.repository import GLib

def probe():
    found = {"title": shown.run_js("document.title"), "geometry": shown.geometry()}
    print(json.dumps(found), flush=True)
    shown.destroy()
    return False

def said(message):
    if message.get("event") == "loaded":
        GLib.idle_add(probe)

asked = {"url": sys.argv[1], "title": "nodwyn", "width": 700, "height": 500, "x": 10, "y": 20}
with tempfile.TemporaryDirectory() as folder:
    shown = gtk_window.Window(asked, said, folder)
    shown.run()
"""


def test_run_js_from_within_gtks_main_loop_answers_without_waiting_for_itself(display, site):
    env = {**os.environ, "DISPLAY": display}
    env.pop("PYWEBVIEW_GUI", None)
    done = subprocess.run([sys.executable, "-c", IN_THE_LOOP, site], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == {
        "title": "counter",
        "geometry": {"x": 10, "y": 20, "width": 700, "height": 500},
    }


ELSEWHERE = (
    "var a = document.createElement('a'); a.href = 'https://example.invalid/kestrel';"
    "a.target = '_blank'; document.body.append(a); a.click(); a.remove();"
    "location.href = 'https://example.invalid/pager'; true"
)


def test_quitting_while_the_save_dialog_is_open_ends_the_window(display, site, tmp_path):
    window = WindowProcess(display, site, tmp_path)
    window.event("loaded")
    assert window.ask("run_js", script=SAVE) is True
    assert wait_for(lambda: save_dialog_shown(display)), "no save dialog on the screen"
    window.send({"op": "close"})  # the tray's Quit closes the window
    said = window.end()
    assert [message["event"] for message in said if "event" in message] == ["closed", "modules"]
    assert list(tmp_path.glob("kestrel*")) == []


def test_links_to_other_sites_open_in_the_browser_and_the_window_stays(display, site, tmp_path):
    opened = tmp_path / "opened"
    browser = f"sh -c 'echo \"$0\" >> {opened}' %s"  # the person's browser, as $BROWSER names it
    window = WindowProcess(display, site, tmp_path, BROWSER=browser)
    window.event("loaded")
    assert window.ask("run_js", script=ELSEWHERE) is True
    wanted = ["https://example.invalid/kestrel", "https://example.invalid/pager"]
    assert wait_for(lambda: opened.exists() and opened.read_text().split() == wanted)
    assert window.ask("run_js", script="location.href") == site
    assert window.ask("run_js", script="document.title") == "counter"
    window.end()


def menu(*actions):
    """A right-click menu as WebKit makes it: its stock items, None for a separator."""
    from gi.repository import WebKit2

    made = WebKit2.ContextMenu.new()
    for action in actions:
        if action is None:
            made.append(WebKit2.ContextMenuItem.new_separator())
        else:
            made.append(WebKit2.ContextMenuItem.new_from_stock_action(action))
    return made


def test_the_right_click_menu_keeps_editing_and_copying_only():
    from gi.repository import WebKit2
    from nodwyn.desktop import gtk_window

    act = WebKit2.ContextMenuAction
    link = menu(act.OPEN_LINK, act.OPEN_LINK_IN_NEW_WINDOW, act.DOWNLOAD_LINK_TO_DISK,
                act.COPY_LINK_TO_CLIPBOARD, None, act.INSPECT_ELEMENT)  # fmt: skip
    assert gtk_window.trimmed(link) is False  # a menu is shown
    assert [item.get_stock_action() for item in link.get_items()] == [act.COPY_LINK_TO_CLIPBOARD]
    field = menu(act.CUT, act.COPY, act.PASTE, None, act.SELECT_ALL, None, act.RELOAD)
    gtk_window.trimmed(field)
    kept = [item.get_stock_action() for item in field.get_items()]
    assert kept == [act.CUT, act.COPY, act.PASTE, act.NO_ACTION, act.SELECT_ALL]  # one separator
    page = menu(act.GO_BACK, act.GO_FORWARD, act.STOP, act.RELOAD, None, act.INSPECT_ELEMENT)
    assert gtk_window.trimmed(page) is True  # nothing left: no menu at all
