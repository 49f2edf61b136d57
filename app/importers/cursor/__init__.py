"""Cursor (the IDE): the chats and composers kept in its `state.vscdb` databases.

Where: `<User>/globalStorage/state.vscdb` (composers since about 0.4x) and
`<User>/workspaceStorage/<hash>/state.vscdb` (one per opened folder, named by the
`workspace.json` beside it), `<User>` being `~/Library/Application Support/Cursor/User` on
macOS, `$XDG_CONFIG_HOME/Cursor/User` (`~/.config/…`) on Linux, `%APPDATA%\\Cursor\\User` on
Windows. Only the chat keys are read (`keys`): the same databases hold the person's login
tokens, which nodwyn never reads, copies or indexes. Cursor rewrites these databases in
place, so they are read whole; each bubble's id makes a re-import add only what is new.
"""

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent import Agent, Found, Session

if TYPE_CHECKING:  # imported by the first database read: listing the agents reads none
    from . import keys

NAME = "state.vscdb"


def user_dir() -> Path:
    """Cursor's User folder on this OS; `CURSOR_USER_DIR` moves it (Cursor itself has only a
    command-line flag for it; the variable is the one claude-code-history-viewer reads)."""
    if os.environ.get("CURSOR_USER_DIR"):
        return Path(os.environ["CURSOR_USER_DIR"])
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Cursor" / "User"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Cursor" / "User"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Cursor" / "User"


class Cursor(Agent):
    name = "cursor"
    no_resume = "Cursor opens its chats inside the editor, not from a command"
    prefix = "cu-"
    content = (".vscdb",)  # a copy of a state.vscdb
    whole = True

    def roots(self) -> list[Path]:
        return [user_dir() / "globalStorage", user_dir() / "workspaceStorage"]

    def sources(self, folder: Path):
        return (p for p in folder.rglob(NAME) if p.is_file())

    def companions(self, path: Path) -> list[Path]:
        return [path.with_name(NAME + "-wal"), path.with_name("workspace.json")]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        # the parser (and SQLite) is loaded by the first database it reads: listing the
        # agents loads none
        from . import keys, mapping
        from .folders import folder_in, workspace_folder

        try:
            chats = keys.Chats(path)
        except keys.Refused as exc:
            return str(exc)
        folder = workspace_folder(path.parent) or folder_in(chats.root, chats.opened)
        found = mapping.tabs(chats.tabs, folder, str(path))
        found += mapping.inline(chats.composers, folder, str(path))
        if chats.disk:
            found += mapping.global_composers(chats.disk, chats.bubbles, _folders(path), str(path))
        if not found:
            return _why_none(chats)
        return [Session(Found(self.task_id(sid), sid), records) for sid, records in found]


def _why_none(chats: "keys.Chats") -> str:
    listed = (
        (chats.composers or {}).get("allComposers") if isinstance(chats.composers, dict) else None
    )
    if listed:
        chats = f"{len(listed)} chat{'s' if len(listed) != 1 else ''}"
        return (
            f"a Cursor workspace's list of {chats}: the chats themselves are in Cursor's global "
            "state.vscdb (User/globalStorage), and are imported from there"
        )
    return "no Cursor chat or composer in it"


def _folders(global_db: Path) -> dict[str, str]:
    """composer id -> folder, from the workspace databases that list the composer's header
    (each one's folder by workspace.json, else by what the database names: folders.py)."""
    from . import keys
    from .folders import folder_in, workspace_folder

    user = global_db.parent.parent
    out: dict[str, str] = {}
    for db in sorted((user / "workspaceStorage").glob(f"*/{NAME}")):
        try:
            chats = keys.Chats(db)
        except keys.Refused:
            continue
        folder = workspace_folder(db.parent) or folder_in(chats.root, chats.opened)
        for cid in keys.listed(chats.composers) if folder else ():
            out.setdefault(cid, folder)
    return out


AGENT = Cursor()
