"""`nodwyn app --self-check REPORT`: the running app looks at itself and writes what it saw.

The window test starts the real app in a subprocess under Xvfb; only the app itself can read
its page (the token never leaves the app and its window process), so it reports through this:
the tasks its sidebar lists, a screenshot of the screen, what each tray action did to the
window and the worker, the window's geometry and, when NODWYN_SELFCHECK_IDLE gives a number of
seconds, the app's idle memory and CPU with the window open and closed to the tray
(tests/bench/bench_idle.py). It then quits through the tray's Quit, as a person would. Each
step records its own failure and the check goes on, so one broken step never hangs the test.
Nothing here imports webview or pystray: it drives the app through `app.App`.
"""

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

SIDEBAR = (
    "Array.from(document.querySelectorAll('[data-task-list] [data-task]'))"
    ".map(e => [e.dataset.task, e.textContent.trim()])"
)
START = "document.querySelector('[data-empty=\"start\"]')?.textContent || null"
ACTIVE = "document.activeElement ? document.activeElement.getAttribute('aria-label') : null"
VISIBLE = "document.visibilityState"
# Where the check moves the window before it quits; the next launch should open there.
MOVED = {"x": 130, "y": 90, "width": 1000, "height": 640}


def js(window, expression: str):
    """The value of a page expression. run_js, not evaluate_js: the page's Content Security
    Policy forbids eval, which evaluate_js wraps every script in."""
    answer = window.run_js(f"JSON.stringify({expression})")
    return json.loads(answer) if isinstance(answer, str) and answer else answer


def wait_for(probe, timeout: float = 20.0, step: float = 0.2):
    """The first truthy value of probe() within timeout seconds, else the last value."""
    deadline = time.monotonic() + timeout
    value = probe()
    while not value and time.monotonic() < deadline:
        time.sleep(step)
        value = probe()
    return value


def check(app, report: Path) -> None:
    """Run every step, write `report` (JSON) and a screenshot beside it, then Quit."""
    window, seen = app.window, {"errors": {}}

    steps = report.with_suffix(".steps")  # the steps done so far: an app that ended early

    def step(name, action):
        try:
            seen[name] = action()
        except Exception:  # recorded for the test to show; the other steps still run
            seen["errors"][name] = traceback.format_exc()
        failed = seen["errors"].get(name, "").strip().splitlines()[-1:]  # the error's own line
        with open(steps, "a", encoding="utf-8") as file:  # says where it ended, and why
            file.write(f"{name} (failed: {failed[0]})\n" if failed else f"{name}\n")

    window.events.loaded.wait(60)
    step("geometry_at_start", lambda: settled(window))
    step("tray_shown", lambda: tray_shown(app))
    step("tasks", lambda: listed(app))
    step("start", lambda: js(window, START))  # the first-run pane, when there is no task
    step("progress", lambda: wait_for(lambda: app.worker.passes > 0, 30) and app.worker.passes)
    if app.tray_shown:  # paint the icon again at the size its tray gave it by now
        app.icon.icon = app.icon.icon
    step("window_libraries", lambda: drawing_libraries(window.pid()))
    step("openssl_later", openssl_later)
    step("close_hides", lambda: close_and_look(app))
    step("second_launch", lambda: second_launch(app))
    step("open_shows", lambda: tray(app, "Open nodwyn") or wait_for(lambda: look(window, True)))
    step("search_focuses", lambda: tray(app, "Search…") or wait_for(lambda: searching(window)))
    step("pause", lambda: tray(app, "Pause following agent logs") or app.worker.paused)
    step("resume", lambda: tray(app, "Resume following agent logs") or not app.worker.paused)
    step("moved", lambda: move(window))
    step("meaning", by_meaning)
    if float(os.environ.get("NODWYN_SELFCHECK_IDLE") or 0) > 0:
        from .idle import measure

        step("idle", lambda: measure(app, float(os.environ["NODWYN_SELFCHECK_IDLE"])))
    time.sleep(1.5)  # let the page and the tray manager finish painting before the photograph
    step("screenshot", lambda: photograph(report.with_suffix(".png")))
    report.write_text(json.dumps(seen, indent=1), encoding="utf-8")
    tray(app, "Quit")


def tray_shown(app) -> bool:
    """The tray icon, shown within 10 s; without it closing the window quits the app, which
    the steps after it would take for a failure of theirs."""
    if not wait_for(lambda: app.tray_shown, 10):
        from .tray import present

        raise RuntimeError(
            f"no tray icon after 10 s (a tray to dock in now: {present()}): closing the window "
            "will quit the app"
        )
    return True


def by_meaning() -> str:
    """The sentence model answers through its own process (a bundle starts it with its
    launcher): the kind of encoder that made a vector of a query, read as the bytes the
    process answers (any non-zero byte: a vector not all zeros), so the app needs no numpy."""
    from ..memory.meaning import encoder

    model = encoder.builtin()
    if model is None or not any(encoder.half_rows(model, ["a flaky pager test"])):
        raise RuntimeError(f"no vector of a query: {encoder.fallback()}")
    return type(model).__name__


def listed(app) -> list:
    """The sidebar once it shows what the worker's first pass left in the store. On a first run
    with no agent session that is an empty list beside the first-run pane: the answer, not a
    reason to wait on."""
    app.worker.wait_for_pass(0, 30)
    want = sorted(task.id for task in app.store.list(archived=None))

    def shown():
        tasks = js(app.window, SIDEBAR) or []
        settled = sorted(task for task, _ in tasks) == want
        if settled and not want:  # an empty list: settled once the first-run pane is complete
            settled = "Import a folder" in (js(app.window, START) or "")
        return (tasks,) if settled else None

    found = wait_for(shown)
    return found[0] if found else js(app.window, SIDEBAR)  # the test shows what was there


def geometry(window) -> dict:
    return {"x": window.x, "y": window.y, "width": window.width, "height": window.height}


def settled(window) -> dict:
    """Where the window is once it is shown and its toolkit has placed it: the same place
    read twice in a row, half a second apart, within 10 s. GTK may say the window's minimum
    size at 0,0 for a moment after its page loads, before the X server's answer to the asked
    place and size arrives."""
    window.events.shown.wait(10)
    last: dict = {}

    def same_again():
        now = geometry(window)
        found = now if now == last else None
        last.update(now)
        return found

    return wait_for(same_again, 10, 0.5) or last


def photograph(path: Path) -> str:
    """A screenshot of the whole screen, the check's last step: the image and its PNG encoder
    stay in the app's process, after its idle memory was measured."""
    from PIL import ImageGrab

    path.parent.mkdir(parents=True, exist_ok=True)
    ImageGrab.grab().save(path)
    return str(path)


# The web engines the window may show, and the OpenGL stack its process may load (Mesa's
# EGL and GLX, its DRI driver, LLVM under it), told by the files the process maps.
ENGINES = {"libwebkit2gtk": "gtk", "libQt6WebEngineCore": "qt"}
OPENGL = ("libLLVM", "_dri.so", "libEGL_mesa", "libGLX_mesa")


def drawing_libraries(pid: int | None) -> dict | None:
    """The window process's web engine and the OpenGL libraries it mapped (ADR 0060: the GTK
    window draws in software, so it should map none); None where /proc is not there."""
    maps = Path(f"/proc/{pid}/maps")
    if pid is None or not maps.exists():
        return None
    files = {line.split()[-1] for line in maps.read_text().splitlines() if "/" in line}
    names = sorted({Path(file).name for file in files})
    engine = next((kind for mark, kind in ENGINES.items() if any(mark in n for n in names)), None)
    return {"engine": engine, "opengl": [n for n in names if any(m in n for m in OPENGL)]}


def openssl_later() -> list | None:
    """The app's own process maps none of OpenSSL's libraries before an HTTPS request (wire.py
    loads them with the first); None where /proc is not there."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return None
    names = sorted({Path(line.split()[-1]).name for line in maps.read_text().splitlines()})
    found = [name for name in names if name.startswith(("libcrypto", "libssl"))]
    if found:
        raise RuntimeError(f"OpenSSL loaded before any HTTPS request: {', '.join(found)}")
    return found


def tray(app, text: str) -> None:
    """Click the tray menu item with this text (pystray runs its action)."""
    for item in app.icon.menu.items:
        if item.text == text:
            item(app.icon)
            return
    raise LookupError(f"no tray item {text!r}")


def look(window, visible: bool) -> bool:
    return (js(window, VISIBLE) == "visible") == visible


def close_and_look(app) -> bool:
    """The window's close button, as the window system sends it: the window closes and its
    process ends (the web engine released), while the app and its worker go on."""
    app.window.close()
    gone = wait_for(lambda: not app.window.alive, 10)
    return bool(gone) and not app.quitting and app.worker._thread.is_alive()


def second_launch(app) -> dict:
    """A second `nodwyn app` on this data directory, as a double click starts it, while the
    window is hidden: it should hand over and exit, and the window come back."""
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(app.store.root), "app"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return {
        "code": done.returncode,
        "said": done.stdout + done.stderr,
        "requests": list(app.requests),
        "window_back": bool(wait_for(lambda: app.window.alive and look(app.window, True), 10)),
        "windows_made": app.window.started,
    }


def searching(window) -> bool:
    return js(window, ACTIVE) == "Search"


def move(window) -> dict:
    window.move(MOVED["x"], MOVED["y"])
    window.resize(MOVED["width"], MOVED["height"])
    return wait_for(lambda: geometry(window) if geometry(window)["width"] == 1000 else None, 5)
