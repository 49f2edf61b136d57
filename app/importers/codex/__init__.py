"""Codex CLI as a registered agent: its session folders, which files are its, its fold.

The format itself is read by `parse`; the thread names Codex keeps apart, in
`session_index.jsonl`, come from `titles.codex_index_title`.
"""

from pathlib import Path

import msgspec

from .. import formats
from ..agent import Agent, Found, carry_of, home_of


class Codex(Agent):
    name = "codex"
    resume = "codex resume {id}"
    prefix = "cx-"
    limits = 1  # rate_limits read as limit records (limits.py)

    def roots(self) -> list[Path]:
        root = home_of("CODEX_HOME", ".codex")
        return [root / "sessions", root / "archived_sessions"]

    def recognise(self, path: Path) -> Found | str:
        return formats.recognise(path, self.name)

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None):
        # the parser is loaded by the first file it reads: listing the agents loads none
        from . import parse as codex
        from . import titles

        title = titles.codex_index_title(path, found.session)
        return codex.Parser(str(path), carry_of(carry, codex.Carry), title=title)


AGENT = Codex()
