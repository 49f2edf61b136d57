"""The real app: `nodwyn app --demo` in a subprocess under Xvfb, with a system tray (trayer).

pywebview opens its window once per process, so the app runs as a subprocess. It checks
itself through its page (`--self-check REPORT`, app/desktop/selfcheck.py): the sidebar's demo tasks,
what each tray item did to the window and the worker, what a second `nodwyn app` launched
while the window was hidden did (single instance, two real processes), where the window was;
it photographs the screen with PIL.ImageGrab into test-artifacts/, then quits through the
tray's Quit. A later launch checks that the window opens where the first one was left.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nodwyn.desktop import selfcheck
from PIL import Image
from test_worker import ClaudeSession

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
# pystray's xorg backend draws the icon on black, so the tray shows the shipped white glyph
# (icons/tray/nodwyn-tray-light-*.png) whatever the panel, not the drawn blue fallback.
GLYPH = (255, 255, 255)
FALLBACK = (37, 99, 235)
SCREEN = "1280x800x24"
TRAY = "trayer --edge top --align right --widthtype pixel --width 64 --heighttype pixel --height 32"

# The app looks for a tray once, as it starts (tray.present): one that came up later would make
# closing the window quit the app. So the app starts once trayer holds the tray's selection.
TRAY_UP = (
    "import time; from nodwyn.desktop.tray import present; end = time.monotonic() + 60\n"
    "while not present() and time.monotonic() < end: time.sleep(0.02)\n"
    "raise SystemExit(not present())"
)

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Xvfb and trayer exist on Linux only"
)


@pytest.fixture(scope="module", autouse=True)
def tools():
    for tool in ("xvfb-run", "trayer"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: .ci/run installs it (apt-get install xvfb trayer)")


def run_app(report: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """The app under a fresh Xvfb with a tray, until its self-check quits it."""
    env = {
        **os.environ,
        "NODWYN_DATA_DIR": str(tmp_path / "data"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu",
        "PYSTRAY_BACKEND": "xorg",
        "GTK_THEME": "Adwaita",  # a light theme: the xorg tray still takes the white glyph
    }
    script = (
        f"{TRAY} 2>/dev/null & tray=$!; {sys.executable} -c '{TRAY_UP}' "
        "|| echo 'no tray: trayer held no system tray selection after 60 s' >&2; "
        f"{sys.executable} -m nodwyn.cli app {' '.join(args)} --self-check {report}; code=$?; "
        "kill $tray; exit $code"
    )
    return subprocess.run(
        ["xvfb-run", "-a", "-s", f"-screen 0 {SCREEN}", "bash", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def has_colour(image: Image.Image, box: tuple[int, int, int, int], colour, slack=12) -> bool:
    colours = image.convert("RGB").crop(box).getcolors(1 << 20)
    return any(
        all(abs(a - b) <= slack for a, b in zip(pixel, colour, strict=True)) for _, pixel in colours
    )


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """The demo twice in one data directory: the second opens where the first was left."""
    tmp = tmp_path_factory.mktemp("window")
    report, again = tmp / "app-window.json", tmp / "app-window-again.json"
    return run_app(report, tmp, "--demo"), report, run_app(again, tmp, "--demo"), again


def test_a_first_run_imports_the_agents_sessions_it_finds(tmp_path):
    ClaudeSession(tmp_path).turn("Make the kestrel feed idempotent", "Made it so.")
    report = tmp_path / "app-first-run.json"
    done = run_app(report, tmp_path)
    tasks = dict(seen(report, done)["tasks"])
    assert list(tasks) == [f"cc-{ClaudeSession.last_id}"]
    assert "kestrel" in next(iter(tasks.values()))


def test_a_first_run_without_agents_says_where_it_looked_and_offers_an_import(tmp_path):
    report = tmp_path / "app-first-run-empty.json"
    done = run_app(report, tmp_path)
    found = seen(report, done)
    assert found["tasks"] == []
    assert "found none" in found["start"]
    assert str(tmp_path / "claude" / "projects") in found["start"]
    assert str(tmp_path / "codex" / "sessions") in found["start"]
    assert "Import a folder…" in found["start"]


def seen(report: Path, done: subprocess.CompletedProcess) -> dict:
    steps = report.with_suffix(".steps")
    done_steps = steps.read_text() if steps.exists() else "none\n"
    tray = [line for line in done.stderr.splitlines() if "tray" in line.lower() or "dock" in line]
    assert report.exists(), (
        f"no self-check report (exit {done.returncode}); steps done:\n{done_steps}"
        f"what the app said of the tray:\n{chr(10).join(tray[-20:])}\n"
        f"the app said:\n{done.stderr[-3000:]}"
    )
    picture = report.with_suffix(".png")
    if picture.exists():  # kept for people to look at; the report stays in tmp
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copyfile(picture, ARTIFACTS / picture.name)
    found = json.loads(report.read_text())
    assert found["errors"] == {}, found["errors"]
    return found


def test_the_app_quits_through_its_tray_and_ends_the_process(first_run):
    done, report, *_ = first_run
    seen(report, done)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_window_shows_the_demo_tasks_in_its_sidebar(first_run):
    done, report, *_ = first_run
    tasks = dict(seen(report, done)["tasks"])
    assert "demo-pager-limit" in tasks
    assert "--limit flag" in tasks["demo-pager-limit"]
    assert len(tasks) >= 8


def test_the_screen_shows_the_window_and_the_tray_icon(first_run):
    done, report, *_ = first_run
    picture = Path(seen(report, done)["screenshot"])
    image = Image.open(picture)
    assert image.size == (1280, 800)
    width, height = image.size
    tray = (width - 64, 0, width, 32)
    assert has_colour(image, tray, GLYPH, slack=6), "no tray icon at the top right"
    assert not has_colour(image, tray, FALLBACK), "the tray shows the drawn icon, not the shipped"
    assert len(image.convert("RGB").crop((200, 150, 900, 600)).getcolors(1 << 20)) > 20, "blank"


def test_each_tray_item_does_what_it_says_to_the_real_window(first_run):
    done, report, *_ = first_run
    found = seen(report, done)
    assert found["tray_shown"] is True
    assert found["close_hides"] is True  # the close button ended the window, the app ran on
    assert found["open_shows"] is True
    assert found["search_focuses"] is True
    assert found["pause"] is True and found["resume"] is True
    assert found["progress"] >= 1  # the worker made a pass


def test_a_second_launch_brings_the_hidden_window_back_and_exits(first_run):
    done, report, *_ = first_run
    second = seen(report, done)["second_launch"]
    assert second["code"] == 0, second["said"]
    assert "already running" in second["said"]
    assert second["requests"] == ["show"]
    assert second["window_back"] is True


def test_the_window_opens_where_it_was_left(first_run):
    done, report, done_again, again = first_run
    assert seen(report, done)["moved"] == selfcheck.MOVED
    assert seen(again, done_again)["geometry_at_start"] == selfcheck.MOVED


def test_closing_to_the_tray_ends_the_window_process_and_it_is_made_again_when_asked(first_run):
    done, report, *_ = first_run
    found = seen(report, done)
    assert found["close_hides"] is True  # its process ended: the web engine is released
    assert found["second_launch"]["windows_made"] == 2  # made again for the second launch
    assert found["second_launch"]["window_back"] is True  # and its page answers
    assert found["search_focuses"] is True  # the window made again is the whole window
    assert found["meaning"] == "Child"  # the sentence model answers from its own process
    if sys.platform.startswith("linux"):
        assert found["openssl_later"] == []  # no HTTPS asked: OpenSSL not loaded (wire.py)


def test_the_gtk_window_process_draws_without_opengl(first_run):
    """With the page drawn in software, the GTK window's own process loads no Mesa or LLVM (they
    were a third of its memory); WebKit's web process still opens EGL, which it requires."""
    done, report, *_ = first_run
    found = seen(report, done)["window_libraries"]
    if found["engine"] != "gtk":
        pytest.skip(f"the window is {found['engine']}, not WebKitGTK")
    assert found["opengl"] == []


SOFTWARE = ("WEBKIT_DISABLE_DMABUF_RENDERER", "GDK_GL", "WEBKIT_WEB_RENDER_DEVICE_FILE")
SET = (*SOFTWARE, "JSC_useJIT")
WINDOW_ENVIRONMENT = (
    "import json, os, nodwyn.desktop.window; "
    f"print(json.dumps({{n: os.environ.get(n) for n in {SET!r}}}))"
)


def window_environment(**given: str) -> dict:
    """What the GTK window's process sets for itself, given the person's own variables."""
    env = {key: value for key, value in os.environ.items() if key not in SET}
    env.pop("WEBKIT_DISABLE_COMPOSITING_MODE", None)
    env = {**env, "PYWEBVIEW_GUI": "gtk", **given}
    done = subprocess.run([sys.executable, "-c", WINDOW_ENVIRONMENT], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_the_gtk_window_leaves_opengl_off_where_the_person_did_not_ask_for_it():
    found = window_environment(GDK_GL="gles")
    assert found["GDK_GL"] == "gles"  # the person's own setting wins
    assert found["WEBKIT_DISABLE_DMABUF_RENDERER"] == "1"
    assert found["WEBKIT_WEB_RENDER_DEVICE_FILE"]  # a node, or "none": never an EGL look-up
    composited = window_environment(WEBKIT_DISABLE_COMPOSITING_MODE="0")
    opengl = {name: composited[name] for name in SOFTWARE}
    assert opengl == dict.fromkeys(SOFTWARE)  # compositing asked for: OpenGL left as it was


def test_the_gtk_window_runs_the_page_without_the_jit_unless_the_person_asked_for_it():
    assert window_environment()["JSC_useJIT"] == "0"
    assert window_environment(JSC_useJIT="1")["JSC_useJIT"] == "1"  # the person's own wins
