"""Pi (badlogic/pi-mono's coding agent) as a registered agent: `~/.pi/agent/sessions/`.

Each session is `sessions/--<cwd with / as ->--/<time>_<uuid>.jsonl`, appended to line by
line (`entries`); `PI_CODING_AGENT_DIR` moves `~/.pi/agent`. The folder is the header's `cwd`
(the folder name loses which `-` was a `/`), the title Pi's own session name where one was
given (`/name`), else the first prompt. Pi resumes a session by its file or id
(`pi --session`); it speaks no MCP (ADR 0053).
"""

from pathlib import Path

import msgspec

from ..agent import Agent, Found, carry_of, first_line, home_of


class Pi(Agent):
    name = "pi"
    resume = "pi --session {id}"
    prefix = "pi-"
    content = (".jsonl",)

    def roots(self) -> list[Path]:
        return [home_of("PI_CODING_AGENT_DIR", ".pi", "agent") / "sessions"]

    def recognise(self, path: Path) -> Found | str:
        header = first_line(path, self.label)
        if isinstance(header, str):
            return header
        if not isinstance(header, dict) or header.get("type") != "session":
            return "not a Pi session (no session header on its first line)"
        session, cwd = header.get("id"), header.get("cwd")
        if not isinstance(session, str) or not session or not isinstance(cwd, str):
            return "a Pi session header without its id or cwd"
        return Found(self.task_id(session), session)

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None):
        from . import entries  # loaded by the first file it reads: listing the agents loads none

        return entries.Parser(str(path), carry_of(carry, entries.Carry))


AGENT = Pi()
