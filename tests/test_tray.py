"""The tray menu with pystray's `dummy` backend: each item does what it says.

The app is real (its API server on a free port, its worker following temporary agent
folders); only the window (a process of its own, see desktop/viewer.py) is replaced by a
stand-in that records what the app asked of it (tests/test_window.py runs the real one).
"""

import os
import threading
import time

os.environ["PYSTRAY_BACKEND"] = "dummy"  # before pystray loads (through nodwyn.desktop.tray)

import subprocess  # noqa: E402
import sys  # noqa: E402
import tomllib  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from pathlib import Path  # noqa: E402

import msgspec  # noqa: E402
import pystray  # noqa: E402
import pytest  # noqa: E402
from nodwyn import settings  # noqa: E402
from nodwyn.api import Server, Status  # noqa: E402
from nodwyn.background.worker import Worker  # noqa: E402
from nodwyn.desktop import tray  # noqa: E402
from nodwyn.desktop.app import FOCUS_SEARCH, App, Geometry, geometry_path  # noqa: E402
from nodwyn.desktop.viewer import Events  # noqa: E402
from nodwyn.tasks.store import Store  # noqa: E402
from PIL import Image  # noqa: E402


class StandInWindow:
    """Records the calls the app makes on its window (viewer.Viewer), whose page has loaded."""

    def __init__(self):
        self.calls: list[str] = []
        self.scripts: list[str] = []
        self.width, self.height, self.x, self.y = 900, 600, 40, 30
        self.events = Events()
        self.events.loaded.set()

    def show(self):
        self.calls.append("show")

    def restore(self):
        self.calls.append("restore")

    def hide(self):
        self.calls.append("hide")

    def destroy(self):
        self.calls.append("destroy")

    def run_js(self, script):
        self.scripts.append(script)


@pytest.fixture
def app(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    store = Store(data_dir)
    status = Status()
    app = App(store, Server(store, status=status).start(), Worker(store, status, 0.2))
    app.window = StandInWindow()
    tray.make_icon(app)
    app.tray_shown = True  # as once the icon is docked
    app.worker.start()
    yield app
    app.stop_work()


def click(app, text: str) -> None:
    for item in app.icon.menu.items:
        if item.text == text:
            item(app.icon)
            return
    raise AssertionError(f"no tray item {text!r} in {[i.text for i in app.icon.menu.items]}")


def answers(server) -> bool:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/api/status", headers={"X-Nodwyn-Token": server.token}
    )
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError):
        return False


def test_the_tests_run_pystrays_dummy_backend(app):
    assert type(app.icon).__module__ == "pystray._base"
    assert isinstance(app.icon, pystray.Icon)


def test_the_menu_offers_open_search_pause_and_quit(app):
    texts = [item.text for item in app.icon.menu.items if item is not pystray.Menu.SEPARATOR]
    assert texts == ["Open nodwyn", "Search…", "Pause following agent logs", "Quit"]
    assert app.icon.menu.items[0].default  # a click on the icon opens the window


def test_open_shows_the_window_in_front(app):
    click(app, "Open nodwyn")
    assert app.window.calls == ["show", "restore"]


def test_search_shows_the_window_and_focuses_the_search_box(app):
    click(app, "Search…")
    assert app.window.calls == ["show", "restore"]
    assert app.window.scripts == [FOCUS_SEARCH]
    assert "[data-search-input]" in FOCUS_SEARCH


def test_pause_stops_following_and_the_item_then_offers_resume(app):
    click(app, "Pause following agent logs")
    assert app.worker.paused
    assert app.server.status.snapshot().phase == "paused"
    click(app, "Resume following agent logs")
    assert not app.worker.paused
    assert [i.text for i in app.icon.menu.items][2] == "Pause following agent logs"


def test_quit_stops_the_worker_and_the_server_and_closes_the_window(app):
    assert answers(app.server)
    click(app, "Quit")
    assert app.quitting
    assert not app.worker._thread.is_alive()
    assert not answers(app.server)
    assert app.window.calls[-1] == "destroy"


PLACE = {"width": 900, "height": 600, "x": 40, "y": 30}


def test_closing_the_window_keeps_the_app_in_the_tray_and_its_place(app, data_dir):
    app.closed(PLACE)  # the window's process ended: its web engine is gone
    assert not app.quitting and app.worker._thread.is_alive()
    assert answers(app.server)
    kept = msgspec.json.decode(geometry_path(data_dir).read_bytes(), type=Geometry)
    assert kept == Geometry(**PLACE)
    click(app, "Open nodwyn")
    assert app.window.calls == ["show", "restore"]  # made again


def test_closing_quits_when_the_setting_says_so(app, data_dir):
    settings.update(data_dir, close_to_tray=False)
    app.closed(PLACE)
    assert app.quitting and not app.worker._thread.is_alive()


def test_closing_quits_when_there_is_no_tray(app):
    app.tray_shown = False
    app.closed(PLACE)
    assert app.quitting


def test_search_on_a_window_being_made_focuses_the_box_once_its_page_loads(app):
    app.window.events = Events()  # a window process just started: nothing loaded yet
    click(app, "Search…")
    assert app.window.scripts == []
    app.window.events.loaded.set()
    deadline = time.monotonic() + 5
    while not app.window.scripts and time.monotonic() < deadline:
        time.sleep(0.02)
    assert app.window.scripts == [FOCUS_SEARCH]


def test_a_second_launch_asking_for_search_focuses_it(app):
    app.handle("search")
    assert app.window.scripts == [FOCUS_SEARCH]
    app.handle("show")
    assert app.window.calls == ["show", "restore", "show", "restore"]


def test_a_kept_place_off_every_screen_is_not_used():
    class Screen:
        x, y, width, height = 0, 0, 1280, 800

    from nodwyn.desktop import window

    inside = {"width": 800, "height": 600, "x": 100, "y": 100}
    outside = {"width": 800, "height": 600, "x": 3000, "y": 100}
    assert window.on_a_screen(inside, [Screen()]) == inside
    assert window.on_a_screen(outside, [Screen()]) == {**outside, "x": None, "y": None}


ICONS = Path(__file__).resolve().parents[1] / "icons" / "tray"


def pixels(image) -> bytes:
    return image.convert("RGBA").tobytes()


@pytest.mark.parametrize(("dark_panel", "glyph"), [(True, "light"), (False, "dark")])
def test_the_tray_shows_the_shipped_glyph_for_the_panel(app, monkeypatch, dark_panel, glyph):
    monkeypatch.setattr(tray, "panel_is_dark", lambda: dark_panel)
    icon = tray.make_icon(app)
    assert isinstance(icon, pystray._dummy.Icon)  # the dummy backend, as the module says
    shipped = tray.icon_file(dark_panel)
    assert shipped.name == f"nodwyn-tray-{glyph}-64.png"
    with Image.open(ICONS / shipped.name) as made:  # what icons/build.py makes
        assert pixels(icon.icon) == pixels(made)
    assert pixels(icon.icon) != pixels(tray.drawn_icon())


def test_the_package_ships_the_tray_glyphs_as_made_and_declares_them():
    for name in ("nodwyn-tray-light-64.png", "nodwyn-tray-dark-64.png"):
        assert (tray.ICONS / name).read_bytes() == (ICONS / name).read_bytes()
    project = tomllib.loads((ICONS.parents[1] / "pyproject.toml").read_text())
    assert "icons/*.png" in project["tool"]["setuptools"]["package-data"]["nodwyn.desktop"]


def test_a_missing_tray_glyph_falls_back_to_a_drawn_icon(monkeypatch, tmp_path):
    monkeypatch.setattr(tray, "ICONS", tmp_path)
    image = tray.icon_image(dark_panel=True)
    assert pixels(image) == pixels(tray.drawn_icon())
    assert image.getpixel((32, 6))[3] == 255 and image.getpixel((0, 0))[3] == 0


def test_the_glyph_follows_the_gtk_theme_unless_the_tray_draws_on_black(monkeypatch):
    if sys.platform in ("win32", "darwin"):
        pytest.skip("there the OS's own setting decides")
    assert not tray.icon_on_black()  # the dummy backend here
    monkeypatch.setenv("GTK_THEME", "Adwaita")
    assert tray.panel_is_dark() is False
    monkeypatch.setenv("GTK_THEME", "Adwaita:dark")
    assert tray.panel_is_dark() is True
    monkeypatch.delenv("GTK_THEME")
    assert tray.panel_is_dark() is True  # most Linux panels are dark
    monkeypatch.setenv("GTK_THEME", "Adwaita")
    monkeypatch.setattr(tray, "icon_on_black", lambda: True)  # as pystray's xorg tray
    assert tray.panel_is_dark() is True


class HeldAtTheThirdFile:
    """Where the worker reports its progress (to the app's own Status, passed on): as it
    starts its third file it waits until Quit has asked it to stop, so Quit lands mid-import
    however fast the machine."""

    def __init__(self, app):
        self.app, self.status, self.reached = app, app.worker.status, threading.Event()

    def set(self, phase: str, done: int, total: int, note: str | None = None) -> None:
        self.status.set(phase, done, total, note)
        if phase == "importing" and done == 2 and not self.reached.is_set():
            self.reached.set()
            deadline = time.monotonic() + 30
            while not self.app.worker.stopping and time.monotonic() < deadline:
                time.sleep(0.005)


def test_quit_during_an_import_leaves_every_log_whole(app, tmp_path):
    from nodwyn.log import locks, logfile
    from test_worker import ClaudeSession

    app.worker.pause()  # write the sessions first, then let the worker at them
    for n in range(30):
        session = ClaudeSession(tmp_path)
        for turn in range(20):
            session.turn(f"Step {turn} of job {n}: " + "words " * 40, "ok " * 60)
    held = app.worker.status = HeldAtTheThirdFile(app)
    app.worker.resume()
    assert held.reached.wait(30), "the import never got going"
    click(app, "Quit")
    assert not app.worker._thread.is_alive()
    logs = sorted(app.store.sessions.glob("*.jsonl"))
    assert len(logs) == 3  # two imported, the one in hand finished, none of the other 27
    for log in logs:
        problems: list = []
        records = [record for _, _, record in logfile.read(log, problems=problems)]
        assert problems == [] and log.read_bytes().endswith(b"\n"), log.name
        assert [record.seq for record in records] == list(range(1, len(records) + 1))
        assert not locks.is_locked(log)


def test_only_the_desktop_package_imports_pystray_and_webview():
    import re

    import nodwyn

    app_dir = Path(nodwyn.__file__).parent

    def importers(name: str) -> list[str]:
        return sorted(
            path.relative_to(app_dir).as_posix()
            for path in app_dir.rglob("*.py")
            if re.search(rf"^\s*(import|from) {name}\b", path.read_text(), re.M)
        )

    for library in ("pystray", "webview"):
        found = importers(library)
        assert found, f"no module imports {library}: the check looks in the wrong place"
        assert all(path.startswith("desktop/") for path in found), (library, found)


def test_loading_the_desktop_package_loads_neither_library():
    """The window's process imports the package on its way to window.py: no tray for it."""
    code = "import sys, nodwyn.desktop; print(sorted({'pystray', 'webview'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_menu_and_tooltip_show_each_agents_quota_line_as_the_meter_does(app, tmp_path):
    from datetime import UTC, datetime, timedelta

    from nodwyn.usage import quota
    from test_quota import rollout

    assert app.quota.lines == []  # no limits in the logs: no line, the menu as before
    folder = tmp_path / "codex" / "sessions" / "2026" / "12" / "02"  # followed by the worker
    rollout(folder / "r.jsonl", [(0, 20, 3), (20, 27, 4)], datetime.now(UTC) - timedelta(hours=1))
    for _ in range(20):  # the worker's passes, each awaited: it imports, then tells the tray
        if app.quota.lines:
            break
        assert app.worker.wait_for_pass(app.worker.passes, timeout=30)
    (line,) = [agent.line for agent in quota.meter(app.store).agents]
    assert line.startswith("Codex: 5 h 27% · week 4% · resets ")
    items = [item for item in app.icon.menu.items if item is not pystray.Menu.SEPARATOR]
    assert [item.text for item in items][:2] == [line, "Open nodwyn"]
    assert not items[0].enabled
    assert app.icon.title == f"nodwyn\n{line}"
    click(app, "Open nodwyn")  # the items below still do what they say
    assert app.window.calls == ["show", "restore"]


# Shown before pystray's X11 loop runs: the order in which its setup callback could reach the
# icon (the loop notes its own thread only after it lets setup go), under a real X server.
EARLY_SHOW = """
import os, threading, time
os.environ["PYSTRAY_BACKEND"] = "xorg"
import pystray
from PIL import Image
from nodwyn.desktop import tray
icon = pystray.Icon("nodwyn-test", Image.new("RGBA", (16, 16), (0, 0, 0, 255)), "test")
seen = {}
def early():
    try:
        tray.show(icon)
        seen["visible"] = icon.visible
    except Exception as exc:
        seen["error"] = repr(exc)
shower = threading.Thread(target=early)
shower.start()
time.sleep(0.2)  # the show's first try is made before the loop starts
threading.Thread(target=icon.run, daemon=True).start()
shower.join(15)
print(seen, flush=True)
os._exit(0)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pystray's X11 backend")
def test_the_icon_shown_before_pystrays_loop_runs_is_shown_once_it_does(tmp_path):
    script = tmp_path / "early.py"
    script.write_text(EARLY_SHOW)
    tray_then_script = (
        "trayer --edge top --widthtype pixel --width 64 --heighttype pixel --height 32 "
        f"2>/dev/null & sleep 1; {sys.executable} {script}; code=$?; kill %1; exit $code"
    )
    done = subprocess.run(
        ["xvfb-run", "-a", "bash", "-c", tray_then_script],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "{'visible': True}", done.stdout
