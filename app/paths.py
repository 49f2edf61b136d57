"""Where nodwyn keeps its data.

One function decides the data directory: an explicit argument, else the NODWYN_DATA_DIR
environment variable, else platformdirs' per-user data directory. Everything nodwyn writes
lives below it; nothing is written anywhere else.
"""

import os
from pathlib import Path

import platformdirs


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The data directory, created if missing."""
    if override:
        path = Path(override)
    elif os.environ.get("NODWYN_DATA_DIR"):
        path = Path(os.environ["NODWYN_DATA_DIR"])
    else:
        path = Path(platformdirs.user_data_dir("nodwyn", appauthor=False))
    path = path.expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def sessions_dir(root: Path) -> Path:
    """The folder of task logs inside a data directory."""
    path = root / "sessions"
    path.mkdir(parents=True, exist_ok=True)
    return path
