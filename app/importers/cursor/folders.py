"""The folder a Cursor workspace database belongs to, for the tasks its chats become.

Cursor names it in `workspace.json` beside the database (`{"folder": "file:///…"}`). A
database copied without it (as the corpus's are, or a backup) still says where it was: the
launch configuration it last debugged (`debug.selectedroot`, `<folder>/.vscode/launch.json`)
and the files its editor opened (`history.entries`), whose deepest shared folder is the
project's. Only those two keys are read beside the chats (keys.py); a folder no deeper than a
home folder (`/home/ana`, `c:/Users/ana`) is no project's, and the tasks are left without one.
"""

import json
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlparse

LAUNCH = "/.vscode/launch.json"


def workspace_folder(folder: Path) -> str:
    """The folder a workspace database belongs to (`workspace.json`), "" when unknown."""
    try:
        data = json.loads((folder / "workspace.json").read_bytes())
    except (OSError, ValueError):
        return ""
    uri = data.get("folder") if isinstance(data, dict) else None
    return path_of(uri) if isinstance(uri, str) else ""


def folder_in(root: str, opened) -> str:
    """The folder the database itself names: `root` (debug.selectedroot) less its launch.json,
    else the deepest folder the opened files (history.entries) share; "" when neither does."""
    path = path_of(root)
    if path.endswith(LAUNCH):
        return path[: -len(LAUNCH)]
    files = [path_of(_resource(entry)) for entry in opened if isinstance(entry, dict)]
    folders = [posixpath.dirname(f) for f in files if f]
    if not folders:
        return ""
    try:
        shared = posixpath.commonpath(folders)
    except ValueError:  # a drive and a root, or two drives
        return ""
    return shared if _deep(shared) else ""


def _resource(entry: dict) -> str:
    editor = entry.get("editor")
    resource = editor.get("resource") if isinstance(editor, dict) else None
    return resource if isinstance(resource, str) else ""


def path_of(uri: str) -> str:
    """A file: URI as a path (`c:/Users/…` for a Windows drive), "" for any other URI."""
    if not uri.startswith("file://"):
        return ""
    path = unquote(urlparse(uri).path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///c:/Users/... on Windows
        path = path[1:]
    return path


def _deep(path: str) -> bool:
    """Deeper than a home folder: /home/ana/x, /Users/ana/x, c:/Users/ana/x (not /home/ana)."""
    parts = [p for p in path.split("/") if p]
    if parts and parts[0].endswith(":"):
        parts = parts[1:]
    return len(parts) > 2 or (len(parts) == 2 and parts[0] not in ("home", "Users", "root"))
