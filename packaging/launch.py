"""The bundle's entry point: what a double click on the packaged app runs.

The same as the `nodwyn-app` gui-script: `nodwyn app` with the launcher's arguments
(`--demo`, `--search`), so the package and a pip install behave alike; `--nodwyn-window`
runs the window's own process, which the app starts (nodwyn/desktop/viewer.py), and
`--nodwyn-model` the sentence model's (nodwyn/memory/meaning/model_process.py), `--nodwyn-cli` the
command line (the search service a search starts, nodwyn/background/service.py).
"""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["--nodwyn-window"]:  # the window's own process (nodwyn/desktop/viewer.py)
        del sys.argv[1]
        from nodwyn.desktop.window import main as window

        window()
    elif sys.argv[1:2] == ["--nodwyn-model"]:  # the sentence model's own process
        del sys.argv[1]
        from nodwyn.memory.meaning.model_process import main as model

        model()
    elif sys.argv[1:2] == ["--nodwyn-cli"]:  # the search service (nodwyn/background/service.py)
        del sys.argv[1]
        from nodwyn.cli import main as cli

        sys.exit(cli())
    else:
        from nodwyn.desktop import main

        main()
