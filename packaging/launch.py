"""The bundle's entry point: what a double click on the packaged app runs.

The same as the `nodwyn-app` gui-script: `nodwyn app` with the launcher's arguments
(`--demo`, `--search`), so the package and a pip install behave alike; `--nodwyn-window`
runs the window's own process, which the app starts (nodwyn/desktop/viewer.py), and
`--nodwyn-model` the sentence model's (nodwyn/memory/meaning/model_process.py), `--nodwyn-index`
the word index's (nodwyn/memory/index_process.py), `--nodwyn-cli` the command line (the
search service a search starts, nodwyn/background/service.py).
"""

import os
import sys

# Set by PyInstaller's GTK run-time hooks to point into the bundle, which holds none of GTK:
# it is the system's (packaging/nodwyn.spec), found where the system keeps it.
GTK_PATHS = ("GI_TYPELIB_PATH", "GTK_DATA_PREFIX", "GTK_EXE_PREFIX", "GTK_PATH", "PANGO_LIBDIR",
             "PANGO_SYSCONFDIR", "GDK_PIXBUF_MODULE_FILE", "GIO_MODULE_DIR")  # fmt: skip


def system_gtk() -> None:
    """GTK, GLib and WebKitGTK read the system's own files, not the bundle's (it has none)."""
    inside = getattr(sys, "_MEIPASS", None)
    if not inside or not sys.platform.startswith("linux"):
        return
    for name in GTK_PATHS:
        if os.environ.get(name, "").startswith(inside):
            del os.environ[name]
    kept = [
        d for d in os.environ.get("XDG_DATA_DIRS", "").split(":") if d and not d.startswith(inside)
    ]
    if kept:
        os.environ["XDG_DATA_DIRS"] = ":".join(kept)
    else:
        os.environ.pop("XDG_DATA_DIRS", None)  # GLib's default: /usr/local/share:/usr/share


system_gtk()

if __name__ == "__main__":
    if sys.argv[1:2] == ["--nodwyn-window"]:  # the window's own process (nodwyn/desktop/viewer.py)
        del sys.argv[1]
        from nodwyn.desktop.window import main as window

        window()
    elif sys.argv[1:2] == ["--nodwyn-model"]:  # the sentence model's own process
        del sys.argv[1]
        from nodwyn.memory.meaning.model_process import main as model

        model()
    elif sys.argv[1:2] == ["--nodwyn-index"]:  # the word index's own process
        del sys.argv[1]
        from nodwyn.memory.index_process import main as index

        index()
    elif sys.argv[1:2] == ["--nodwyn-cli"]:  # the search service (nodwyn/background/service.py)
        del sys.argv[1]
        from nodwyn.cli import main as cli

        sys.exit(cli())
    else:
        from nodwyn.desktop import main

        main()
