"""The agent's own command that goes back to a task's session, in the session's folder.

`command(store, task)` answers with the command line to paste in a terminal, or with the
reason there is none: the agent has no way to resume a session by its id (Antigravity and
Cursor are editors: their conversations are opened inside them), or the agent's own log is
gone (it deleted the session, or this computer never had it: an imported folder), so the agent
would not find it. One line per agent in `COMMANDS`; the folder is quoted for the shell of
this OS (POSIX sh, or cmd/PowerShell on Windows).
"""

import os
import shlex
from pathlib import Path

from msgspec import Struct

from ..log import logfile
from ..log import records as r

# origin.tool -> the words after `cd <folder> &&`, {id} being the agent's session id
COMMANDS = {
    "claude-code": "claude --resume {id}",
    "codex": "codex resume {id}",
    "gemini-cli": "gemini --resume {id}",
    "copilot-cli": "copilot --resume {id}",
    "opencode": "opencode --session {id}",
    "aider": "aider --restore-chat-history",  # aider reads the folder's own chat history
}
NO_RESUME = {
    "antigravity": "Antigravity resumes a conversation from its own Agent Manager, not from a "
    "command",
    "cursor": "Cursor opens its chats inside the editor, not from a command",
    "nodwyn": "this task was made in nodwyn, not by an agent",
}


class Resume(Struct, frozen=True, kw_only=True):
    task: str
    tool: str
    command: str = ""  # empty when there is none; `reason` says why
    reason: str = ""
    folder: str = ""


def command(store, task: str) -> Resume:
    start = _start(store, task)
    tool = start.origin.tool if start else ""
    folder = start.project if start else ""
    if start is None:
        return Resume(task=task, tool="", reason="the task's log has no start record")
    template = COMMANDS.get(_known(tool))
    if template is None:
        why = NO_RESUME.get(_known(tool), f"nodwyn knows no resume command for {tool or 'it'}")
        return Resume(task=task, tool=tool, reason=why, folder=folder)
    source = start.origin.path
    if source and not Path(source).exists():
        return Resume(task=task, tool=tool, folder=folder,
                      reason=f"the agent's own log is gone ({source})")  # fmt: skip
    words = template.format(id=_quote(start.origin.id)) if "{id}" in template else template
    line = f"cd {_quote(folder)} && {words}" if folder else words
    return Resume(task=task, tool=tool, command=line, folder=folder)


def _known(tool: str) -> str:
    """The table's name for an origin tool ("claude" and "claude-code" alike)."""
    for name in (*COMMANDS, *NO_RESUME):
        if tool == name or tool == name.split("-")[0]:
            return name
    return tool


def _start(store, task: str) -> r.SessionStart | None:
    for _, _, record in logfile.read(store.log_path(task)):
        return record if isinstance(record, r.SessionStart) else None
    return None


def _quote(text: str) -> str:
    if os.name == "nt":
        return f'"{text}"' if any(c in text for c in " &()[]{}^=;!+,`~") else text
    return shlex.quote(text)
