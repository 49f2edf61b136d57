"""The bundle's entry point: what a double click on the packaged app runs.

The same as the `nodwyn-app` gui-script: `nodwyn app` with the launcher's arguments
(`--demo`, `--search`), so the package and a pip install behave alike.
"""

from nodwyn.desktop import main

if __name__ == "__main__":
    main()
