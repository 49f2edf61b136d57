"""The window: the system's web view on the app's page, in a process of its own.

The app (app.py, through viewer.py) starts this process when the window is to be shown,
and it ends when the window closes, so closing the window to the tray gives back the whole web
engine: its renderer processes and the libraries and caches loaded for it. Kept hidden in the
app's own process, they held about 360 MB (RSS, all processes) and pywebview cannot make a
window again in a process whose last window closed. Open starts the process again.

On Linux with WebKit2GTK the window is made with GTK directly (gtk_window.py); elsewhere, and
on Qt, through pywebview: the only module that imports `webview`. It runs as
`python -m nodwyn.desktop.window` (or the bundle's launcher with `--nodwyn-window`).
Protocol, JSON lines (viewer.py is the other end):
- stdin, first line: {"url", "title", "width", "height", "x", "y"}. The url carries the
  page's token, so it is never on a command line, in the environment or in a file (ADR 0006);
- stdin, then: {"op": "show" | "restore" | "close" | "run_js" | "geometry" | "move" |
  "resize", "id", ...}; "close" is the window's close button; the end of stdin (the app
  ended) closes the window too;
- stdout: {"event": "shown" | "loaded" | "closed", "geometry"} and {"id", "value"} answers.
"""

import glob
import json
import os
import sys
import threading

# What the Qt window is made with, each unless the person set it already (ADR 0028; measured
# idle with the window open under Xvfb, all of the window's processes, PSS):
QT_ENVIRONMENT = {
    # Qt Quick draws the page's frames with its software renderer, as Chromium composites
    # them in software anyway: without it, Qt Quick drew each through OpenGL (Mesa's llvmpipe
    # where there is no GPU), 2.9% of a core while a caret blinks, -35 MB.
    "QT_QUICK_BACKEND": "software",
    # no GLX on X11: nothing is drawn with OpenGL now, yet Qt's xcb plugin loaded Mesa and
    # LLVM for it, -38 MB.
    "QT_XCB_GL_INTEGRATION": "none",
}

# What the GTK window is made with, each unless the person set it already (ADR 0060):
GTK_ENVIRONMENT = {
    # WebKitGTK draws the page without its accelerated compositing: without a GPU that went
    # through OpenGL on Mesa's llvmpipe, and the web process held 188 MB PSS idle, not 120.
    "WEBKIT_DISABLE_COMPOSITING_MODE": "1",
    # JavaScriptCore runs the page's scripts in its interpreter, without its JIT compilers (as
    # Safari's Lockdown Mode does): the web process's RSS is about 23 MB smaller with the real
    # corpus's page, its list draws as fast, a transcript opens in 89 ms (median) against 69.
    "JSC_useJIT": "0",
}
# With the page drawn in software, the window's own process needs no OpenGL, yet it opened an
# EGL display (and with it Mesa and LLVM) for WebKit's DMA-BUF renderer, to find the GPU's
# render node, and GDK a GLX one: without the three, -20 MB PSS (ADR 0060).
SOFTWARE_ENVIRONMENT = {
    "WEBKIT_DISABLE_DMABUF_RENDERER": "1",
    "GDK_GL": "disable",
}


def engine() -> str:
    """The web view for Linux: the system's WebKit2GTK (gtk_window.py) where its bindings
    (the `gtk` extra) and typelibs (gir1.2-webkit2-4.1) are there, else Qt
    WebEngine (the `qt` extra), which weighs about five times as much (ADR 0060)."""
    try:
        import gi

        gi.require_version("Gtk", "3.0")
        try:
            gi.require_version("WebKit2", "4.1")
        except ValueError:
            gi.require_version("WebKit2", "4.0")
        from gi.repository import Gtk, WebKit2  # noqa: F401
    except (ImportError, ValueError):
        return "qt"
    return "gtk"


def _environment() -> None:
    """What the web view reads as it loads (as the app's process did when the window lived
    there); PYWEBVIEW_GUI, when the person set it, chooses the engine."""
    chosen = os.environ.get("PYWEBVIEW_GUI")
    if chosen == "gtk" or (sys.platform.startswith("linux") and not chosen):
        gtk_environment()  # before GTK loads, engine()'s look included: GDK reads it as it starts
    if sys.platform.startswith("linux") and not chosen:
        os.environ["PYWEBVIEW_GUI"] = engine()
    wanted = []
    if os.environ.get("PYWEBVIEW_GUI") == "qt":
        for name, value in QT_ENVIRONMENT.items():
            os.environ.setdefault(name, value)
        if sys.platform.startswith("linux"):
            # Chromium's second zygote, kept to fork unsandboxed helpers (a GPU or utility
            # process) that Qt WebEngine does not start here (its GPU and network run in the
            # window's process): without it such a helper is started from its file, -8 MB.
            wanted.append("--no-unsandboxed-zygote")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        wanted.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
    if wanted:
        os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = chromium_flags(
            os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", ""), wanted
        )


def gtk_environment() -> None:
    """GTK_ENVIRONMENT, and with the page drawn in software SOFTWARE_ENVIRONMENT and the render
    node, each unless the person set it (Qt, should it be the engine after all, reads none)."""
    for name, value in GTK_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    if os.environ["WEBKIT_DISABLE_COMPOSITING_MODE"] not in ("", "0"):
        software = {**SOFTWARE_ENVIRONMENT, "WEBKIT_WEB_RENDER_DEVICE_FILE": render_node()}
        for name, value in software.items():
            os.environ.setdefault(name, value)


def render_node() -> str:
    """The GPU's render node WebKit would find itself (the first), named so that it need not
    open EGL to look for it; "none" where there is none (Xvfb, a machine without a GPU), which
    WebKit's web process cannot open and so draws without, as it would have."""
    found = sorted(glob.glob("/dev/dri/renderD*"))
    return found[0] if found else "none"


def chromium_flags(given: str, wanted: list[str]) -> str:
    """The person's flags, then each wanted flag whose name they did not give (theirs win)."""
    names = {flag.split("=", 1)[0] for flag in given.split()}
    added = [flag for flag in wanted if flag.split("=", 1)[0] not in names]
    return " ".join([*given.split(), *added])


def steady_caret() -> None:
    """The caret of a text field stays lit instead of blinking: each blink made Chromium and
    Qt draw a frame, twice a second for as long as the field held the keyboard, the only
    work of an idle window (ADR 0028). GNOME stops blinking after 10 s; WCAG
    2.2.2 asks for blinking to stop within 5 s. On Qt made before pywebview makes its
    QApplication, which then uses this one; WebKitGTK reads GTK's own setting."""
    if os.environ.get("PYWEBVIEW_GUI") == "gtk":
        from gi.repository import Gtk

        settings = Gtk.Settings.get_default()  # None without a display: nothing to draw
        if settings is not None:
            settings.props.gtk_cursor_blink = False
        return
    if os.environ.get("PYWEBVIEW_GUI") != "qt":
        return
    from qtpy.QtWidgets import QApplication
    from webview.platforms import qt  # noqa: F401  QtWebEngine's modules before the QApplication

    application = QApplication.instance() or QApplication(sys.argv)
    application.setCursorFlashTime(0)


_environment()

_out = threading.Lock()


def say(message: dict) -> None:
    with _out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def geometry(window) -> dict:
    """Where pywebview's window is."""
    return {"x": window.x, "y": window.y, "width": window.width, "height": window.height}


def on_a_screen(asked: dict, screens: list) -> dict:
    """The asked place, or none (the default) when its corner is off every screen."""
    x, y = asked.get("x"), asked.get("y")
    if x is None or y is None:
        return asked
    for screen in screens:
        if screen.x <= x < screen.x + screen.width and screen.y <= y < screen.y + screen.height:
            return asked
    return {**asked, "x": None, "y": None}


def serve(window, where) -> None:
    """Carry out the app's commands on `window` (pywebview's, or gtk_window's, which has the
    same methods) until the app's end of the pipe closes; `where()` says the geometry."""
    for line in sys.stdin:
        try:
            command = json.loads(line)
        except ValueError:
            continue
        op, value = command.get("op"), None
        try:
            if op == "show":
                window.show()
                window.restore()
            elif op == "close":
                window.destroy()
            elif op == "run_js":
                value = window.run_js(command["script"])
            elif op == "geometry":
                value = where()
            elif op == "move":
                window.move(command["x"], command["y"])
            elif op == "resize":
                window.resize(command["width"], command["height"])
        except Exception as exc:  # a window going away mid-command: the app is told
            value = {"error": repr(exc)}
        if "id" in command:
            say({"id": command["id"], "value": value})
    window.destroy()  # the app has gone


def main() -> None:
    asked = json.loads(sys.stdin.readline())
    steady_caret()
    if os.environ.get("PYWEBVIEW_GUI") == "gtk":
        from . import gtk_window

        with gtk_window.storage() as folder:
            window = gtk_window.Window(on_a_screen(asked, gtk_window.screens()), say, folder)
            start(lambda: serve(window, window.geometry))
            last = window.run()
    else:
        last = pywebview_window(asked)
    say({"event": "closed", "geometry": last})


def start(serving) -> None:
    threading.Thread(target=serving, name="nodwyn-window", daemon=True).start()


def pywebview_window(asked: dict) -> dict | None:
    """The window through pywebview (macOS, Windows, Qt); where it was when it closed."""
    import webview

    asked = on_a_screen(asked, list(webview.screens or []))
    window = webview.create_window(
        asked.get("title", "nodwyn"),
        asked["url"],
        width=asked.get("width", 1100),
        height=asked.get("height", 720),
        x=asked.get("x"),
        y=asked.get("y"),
        min_size=(480, 360),
    )
    last = {"geometry": None}

    def closing() -> bool:
        last["geometry"] = geometry(window)
        return True

    window.events.shown += lambda: say({"event": "shown"})
    window.events.loaded += lambda: say({"event": "loaded"})
    window.events.closing += closing
    # An export is a download: the window asks where to save it (its own save dialog).
    webview.settings["ALLOW_DOWNLOADS"] = True
    # nothing of the page's is kept on disk (Qt's private mode keeps localStorage in memory)
    webview.start(lambda: start(lambda: serve(window, lambda: geometry(window))), private_mode=True)
    return last["geometry"]


if __name__ == "__main__":
    main()
