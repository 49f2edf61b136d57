"""OpenCode (sst/opencode, now anomalyco/opencode): its database, its older files, its exports.

Where it keeps them: `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode` on Linux, macOS and
Windows alike, as the `xdg-basedir` package places it): `opencode.db` (and
`opencode-<channel>.db`) from v1.2, the `storage/` tree before it. Kilo Code's newer releases
(its CLI and the extension built on it, a fork of OpenCode) keep the same tables in
`$XDG_DATA_HOME/kilo/kilo.db`, read here too (ADR 0053).
`opencode export` writes a session as one JSON document, which is read too. Each source is
re-read whole (the agent rewrites it); records carry the agent's message and part ids, so a
re-import adds only what is new. A database is only ever opened read-only and never copied
(`stores`).
"""

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent import Agent, Found, Session, home_of

if TYPE_CHECKING:  # imported by the first source read: listing the agents reads none
    from . import stores

SQLITE = b"SQLite format 3\0"


class OpenCode(Agent):
    name = "opencode"
    resume = "opencode --session {id}"
    prefix = "oc-"
    content = (".json", ".db")
    whole = True

    def roots(self) -> list[Path]:
        data = home_of("XDG_DATA_HOME", ".local", "share")
        return [data / "opencode", data / "kilo"]

    def sources(self, folder: Path):
        found = sorted(folder.glob("opencode*.db")) + sorted(folder.glob("kilo*.db"))
        found += sorted(folder.glob("storage/session/*/ses_*.json"))
        if not found:  # a folder named by a person: its databases and exports anywhere below
            found = sorted(folder.rglob("opencode*.db")) + sorted(folder.rglob("kilo*.db"))
            found += sorted(folder.rglob("*.json"))
        return iter(found)

    def companions(self, path: Path) -> list[Path]:
        if path.suffix == ".db":  # the write-ahead log holds what is not yet in the file
            return [path.with_name(path.name + "-wal")]
        # the stores (and SQLite) are loaded by the first source found: listing the agents
        # loads none
        from . import stores

        root = stores.storage_root(path)
        if root is None:
            return []
        messages = sorted((root / "message" / path.stem).glob("*.json"))
        return [
            root / "message" / path.stem,
            *messages,
            *(root / "part" / m.stem for m in messages),
        ]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        from . import mapping, stores

        now_ms = int(time.time() * 1000) if live else 0
        try:
            with open(path, "rb") as handle:
                opening = handle.read(16)
            if opening == SQLITE:
                found = mapping.sessions(stores.from_db(path), str(path), now_ms)
            else:
                found = _json(path, now_ms)
        except stores.Refused as exc:
            return str(exc)
        if isinstance(found, str):
            return found
        return [Session(Found(self.task_id(sid), sid), records) for sid, records in found]


def _json(path: Path, now_ms: int) -> list[tuple[str, list]] | str:
    from . import mapping, stores

    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError):
        return "not an OpenCode session (neither its database nor a JSON file)"
    if stores.is_export(data):
        return mapping.sessions([stores.from_export(data)], str(path), now_ms)
    if _is_session_info(data) and stores.storage_root(path) is not None:
        parent = data.get("parentID")
        if parent and (path.parent / f"{parent}.json").is_file():
            return "a sub-agent's session: imported with the session that started it"
        convs = [stores.from_storage(path, data), *_children(path, data["id"])]
        return mapping.sessions(convs, str(path), now_ms)
    return "not an OpenCode session (no session info with a ses_ id and its messages)"


def _is_session_info(data) -> bool:
    return isinstance(data, dict) and str(data.get("id", "")).startswith("ses_")


def _children(path: Path, parent: str) -> list["stores.Conv"]:
    """A stored session's sub-agent sessions: files in the same project folder naming it."""
    from . import stores

    kids = []
    for file in sorted(path.parent.glob("ses_*.json")):
        if file == path:
            continue
        try:
            info = json.loads(file.read_bytes())
        except (OSError, ValueError):
            continue
        if _is_session_info(info) and info.get("parentID") == parent:
            kids.append(stores.from_storage(file, info))
    return kids


AGENT = OpenCode()
