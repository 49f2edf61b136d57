"""Claude Code as a registered agent: where it keeps sessions, which files are its, its fold.

The format itself is read by `parse` (with `lines`, `replies` and `context`); this module
only plugs it into the registry. Sub-agents' `agent-*.jsonl`
files are read with the session that started them, through `subagents.subagent_finder`.
"""

from pathlib import Path

import msgspec

from .. import formats
from ..agent import Agent, Found, carry_of, home_of


class Claude(Agent):
    name = "claude"
    resume = "claude --resume {id}"
    prefix = "cc-"

    def roots(self) -> list[Path]:
        return [home_of("CLAUDE_CONFIG_DIR", ".claude") / "projects"]

    def recognise(self, path: Path) -> Found | str:
        return formats.recognise(path, self.name)

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None):
        # the parser is loaded by the first file it reads: listing the agents loads none
        from . import parse as claude
        from . import subagents

        finder = subagents.subagent_finder(path, found.session)
        return claude.Parser(
            str(path), carry_of(carry, claude.Carry), subagents=finder, alone=formats.orphan(path)
        )


AGENT = Claude()
