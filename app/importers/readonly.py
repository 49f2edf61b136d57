"""Agents' SQLite databases, opened so that nothing is ever written to them or copied.

While the agent runs, its database has a write-ahead log (`-wal`, `-shm` beside it): `mode=ro`
reads alongside the agent and sees what that log holds. Without a `-wal` file (the agent is
not running, the log was checkpointed) the database is opened `immutable=1`: read as it
stands, with no locking, and nothing is created beside it (`mode=ro` on a WAL database would
create the `-wal` and `-shm` files in the agent's folder). When `mode=ro` cannot open it (a
folder nodwyn may not write, a file the agent locks on Windows) `immutable=1` is used too;
what is still in the log then comes in on a later import. Copying the file first (with `-wal`
and `-shm`) was refused: OpenCode's and Cursor's databases also hold the person's login
tokens, and a copy would put them in a second place.
"""

import sqlite3
from pathlib import Path


def connect(path: Path) -> sqlite3.Connection:
    """The database opened read-only; raises sqlite3.DatabaseError if it is none."""
    uri = path.resolve().as_uri()
    if path.with_name(path.name + "-wal").exists():
        try:
            return _opened(f"{uri}?mode=ro")
        except sqlite3.OperationalError:
            pass
    return _opened(f"{uri}?mode=ro&immutable=1")


def _opened(uri: str) -> sqlite3.Connection:
    db = sqlite3.connect(uri, uri=True)
    try:
        db.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def tables(db: sqlite3.Connection) -> dict[str, set[str]]:
    """Each table's name and its columns, as the schema says (no row is read)."""
    names = [row[0] for row in db.execute("select name from sqlite_master where type='table'")]
    return {n: {row[1] for row in db.execute(f'pragma table_info("{n}")')} for n in names}
