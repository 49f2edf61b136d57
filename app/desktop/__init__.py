"""The desktop app: the only part of nodwyn that imports `webview` and `pystray` (STYLE 2).

It sits above everything else (records <- log <- store / memory <- api / cli <- desktop) and
runs as two processes, so that closing the window to the tray gives the web engine back:
- the app's (app.py): the API server, the worker and the tray icon (tray.py, which alone
  imports pystray), with the window driven over a pipe (viewer.py);
- the window's (window.py, which alone imports webview, and on Linux gtk_window.py, which
  makes it with GTK and WebKit2GTK directly): `python -m nodwyn.desktop.window`, or the
  bundle's launcher with `--nodwyn-window`.
selfcheck.py (and idle.py, its idle figures) let the running app look at itself for the tests
and the package check.

Importing this package loads neither library: the window's process imports it on its way to
window.py, and must not pay for the tray.

May import: everything (the top floor of docs/ARCHITECTURE.md); nothing imports it but
`nodwyn app` (cli/agents.py).
"""

import sys


def main() -> None:
    """The gui-script `nodwyn-app` (what a double click runs): `nodwyn app` with its arguments."""
    from ..cli import main as cli_main

    sys.exit(cli_main(["app", *sys.argv[1:]]))
