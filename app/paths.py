"""Where nodwyn keeps its data.

One function decides the data directory: an explicit argument, else the NODWYN_DATA_DIR
environment variable, else platformdirs' per-user data directory. Everything nodwyn writes
lives below it; nothing is written anywhere else.
"""

import os


def data_root(override: str | os.PathLike | None = None) -> str:
    """The data directory as a plain string (for paths that must start fast), created if missing."""
    path = resolved_root(override)
    os.makedirs(path, exist_ok=True)
    return path


def resolved_root(override: str | os.PathLike | None = None) -> str:
    """The data directory as a plain string, resolved, not created."""
    if override:
        path = os.fspath(override)
    elif os.environ.get("NODWYN_DATA_DIR"):
        path = os.environ["NODWYN_DATA_DIR"]
    else:
        import platformdirs  # only here: a data dir given by flag or environment never needs it

        path = platformdirs.user_data_dir("nodwyn", appauthor=False)
    return os.path.realpath(os.path.expanduser(path))


def data_dir(override: str | os.PathLike | None = None):
    """The data directory as a Path, created if missing."""
    from pathlib import Path

    return Path(data_root(override))


def sessions_dir(root):
    """The folder of task logs inside a data directory."""
    path = root / "sessions"
    path.mkdir(parents=True, exist_ok=True)
    return path


def frontend_dir():
    """The page's files (a Path): inside the installed package, or beside app/ in a checkout."""
    from pathlib import Path  # not at the top: the quick listing never needs it

    here = Path(__file__).resolve().parent
    for folder in (here / "frontend", here.parent / "frontend"):
        if (folder / "index.html").is_file():
            return folder
    raise FileNotFoundError("the page's files (frontend/index.html) are missing")
