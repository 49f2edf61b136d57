"""The only rows of a Cursor `state.vscdb` nodwyn reads: the chat and composer keys, and the
two that say where a workspace was (folders.py).

A `state.vscdb` is VS Code's key-value store (`ItemTable`, and `cursorDiskKV` in the global
one). Beside the chats it holds the person's login (`cursorAuth/accessToken`,
`cursorAuth/refreshToken`), settings and other extensions' state. Every query here names its
keys exactly (`ItemTable`) or by a fixed prefix range (`cursorDiskKV`), so no other row is
ever read into memory, let alone copied or indexed. The database is opened read-only
(`readonly`) and never copied.
"""

import json
import sqlite3
from pathlib import Path

from .. import readonly

CHAT_TABS = "workbench.panel.aichat.view.aichat.chatdata"  # Cursor up to about 0.4x
COMPOSERS = "composer.composerData"  # composers inline (2024) or their heads (2025+)
COMPOSER = "composerData:"  # cursorDiskKV, global: one composer's header
BUBBLE = "bubbleId:"  # cursorDiskKV, global: one message, `bubbleId:<composer>:<bubble>`
# Where a workspace database without its workspace.json was (folders.py): a file URI, a list.
DEBUGGED = "debug.selectedroot"  # `file:///<folder>/.vscode/launch.json`
OPENED = "history.entries"  # `[{"editor": {"resource": "file:///…"}}, …]`


class Refused(Exception):
    """Not a Cursor database this reader knows: the reason says why."""


class Chats:
    """The chat rows of one database, decoded: nothing else of it is held."""

    def __init__(self, path: Path):
        with open(path, "rb") as handle:
            if handle.read(16) != b"SQLite format 3\0":
                raise Refused("not a Cursor state database (not SQLite)")
        try:
            db = readonly.connect(path)
        except sqlite3.DatabaseError as exc:
            raise Refused(f"not a readable SQLite database ({exc})") from None
        try:
            names = set(readonly.tables(db))
            if "ItemTable" not in names:
                raise Refused("not a VS Code/Cursor state database (no ItemTable)")
            self.tabs = _item(db, CHAT_TABS)
            self.composers = _item(db, COMPOSERS)
            self.root = _text(db, DEBUGGED)
            self.opened = _item(db, OPENED) or []
            self.opened = self.opened if isinstance(self.opened, list) else []
            self.disk = _prefixed(db, COMPOSER) if "cursorDiskKV" in names else {}
            self.bubbles = _prefixed(db, BUBBLE) if "cursorDiskKV" in names else {}
        except sqlite3.DatabaseError as exc:
            raise Refused(f"the database could not be read ({exc})") from None
        finally:
            db.close()


def _item(db: sqlite3.Connection, key: str):
    row = db.execute("select value from ItemTable where key = ?", (key,)).fetchone()
    return _json(row[0]) if row else None


def _text(db: sqlite3.Connection, key: str) -> str:
    row = db.execute("select value from ItemTable where key = ?", (key,)).fetchone()
    value = row[0] if row else ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""


def _prefixed(db: sqlite3.Connection, prefix: str) -> dict[str, object]:
    """The rows of cursorDiskKV whose key starts with `prefix`, by an index range (no LIKE)."""
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    rows = db.execute(
        "select key, value from cursorDiskKV where key >= ? and key < ?", (prefix, end)
    )
    return {key[len(prefix) :]: _json(value) for key, value in rows}


def _json(value):
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    try:
        return json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None


def listed(composers) -> list[str]:
    """The composer ids a workspace database's composer key lists (its own or headers only)."""
    heads = composers.get("allComposers") if isinstance(composers, dict) else None
    return [c["composerId"] for c in heads or [] if isinstance(c, dict) and c.get("composerId")]
