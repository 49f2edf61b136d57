"""nodwyn's server added to Codex's `config.toml` so that Codex reads it (ADR 0043).

TOML lets `mcp_servers` be written several ways: `[mcp_servers.NAME]` tables, one
`[mcp_servers]` table, dotted keys (`mcp_servers.other.command = "x"`) or one inline table
(`mcp_servers = { other = { ... } }`). A table appended at the end is valid TOML for the first
three, but re-declares the inline one (Codex then refuses the whole file). So each way of
writing nodwyn's entry is tried in turn and kept only when tomllib, the standard's own reader,
reads the result as the file as it was plus nodwyn's entry and nothing else:

1. `[mcp_servers.nodwyn]` appended at the end: every byte before it kept as it was;
2. the entry put into `mcp_servers` by tomlkit (an inline table stays inline and gets
   `nodwyn = { ... }`), or, where `mcp_servers` is an empty list or empty text, put in its
   place; tomlkit keeps the comments and layout of the rest.

`mcp_servers` that holds something else (a list of tables, a non-empty value) is refused, said
why: nodwyn would lose it. Nothing is written unless one way passed the check.
"""

import tomllib
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from ..errors import BadInput

NAME = "nodwyn"


def added(file: Path, text: str, entry: dict, table: str) -> str | None:
    """`text` (the file's) with `entry` as `mcp_servers.nodwyn` (`table`: its text as an
    appended table); None when the entry is there already. BadInput, said why, when no way
    of adding it passes the check."""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{file} is not valid TOML ({exc}); nothing was changed") from None
    servers = config.get("mcp_servers")
    if isinstance(servers, dict) and NAME in servers:
        return None
    if servers is not None and not isinstance(servers, dict) and servers not in ([], ""):
        kind = "a list" if isinstance(servers, list) else type(servers).__name__
        raise BadInput(
            f"{file}: mcp_servers is {kind} ({str(servers)[:60]}), not a table of servers, and "
            "nodwyn would lose what it holds; nothing was changed. Codex reads "
            "[mcp_servers.NAME] tables: make it one and run this again."
        )
    wanted = {**config, "mcp_servers": {**(servers or {}), NAME: entry}}
    gap = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    # the table appended as written; else (rarely) the file edited in place, parsed only then
    for make in (lambda: text + gap + table, lambda: _edited(text, entry)):
        candidate = make()
        if candidate is not None and _reads(candidate) == wanted:
            return candidate
    raise BadInput(
        f"{file}: nodwyn found no way to add [mcp_servers.{NAME}] that Codex would read with "
        "the rest unchanged; nothing was changed. Add the lines `nodwyn mcp install codex` "
        "prints by hand."
    )


def _reads(text: str) -> dict | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _edited(text: str, entry: dict) -> str | None:
    """The document with the entry put into `mcp_servers` by tomlkit (None: it cannot)."""
    try:
        document = tomlkit.parse(text)
        servers = document.get("mcp_servers")
        if isinstance(servers, tomlkit.items.InlineTable):
            servers[NAME] = _inline(entry)
        elif isinstance(servers, dict):  # a table, or tomlkit's view of one written in parts
            servers[NAME] = entry
        else:  # missing, or an empty list or text put aside
            servers = tomlkit.table(is_super_table=True)
            servers[NAME] = entry
            document["mcp_servers"] = servers
        return tomlkit.dumps(document)
    except (TOMLKitError, KeyError, TypeError, ValueError):
        return None


def _inline(value: dict):
    """A table written inline, its own tables inline too (TOML allows no other inside one)."""
    table = tomlkit.inline_table()
    for key, item in value.items():
        table[key] = _inline(item) if isinstance(item, dict) else item
    return table
