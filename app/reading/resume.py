"""The agent's own command that goes back to a task's session, in the session's folder.

`command(store, task)` answers with the command line to paste in a terminal, or with the
reason there is none: the agent has no way to resume a session by its id (Antigravity and
Cursor are editors: their conversations are opened inside them), or the agent's own log is
gone (it deleted the session, or this computer never had it: an imported folder), so the agent
would not find it. Each agent's command is a line of its own in the importers' registry
(`Agent.resume`, or `Agent.no_resume` saying why there is none); the folder is quoted for the
shell of this OS (POSIX sh, or cmd/PowerShell on Windows).

A task pulled from an SSH machine (app/machines/ssh.py) is resumed there: `ssh -t HOST 'cd
FOLDER && claude --resume ID'`, the remote part quoted for the far end's POSIX shell and then
as one word for this one, so no folder or id is ever read as shell words on either end.
"""

import os
import shlex
from pathlib import Path

import msgspec
from msgspec import Struct

from ..importers import registry
from ..log import logfile
from ..log import records as r
from ..machines import remote, ssh

NO_RESUME = {"nodwyn": "this task was made in nodwyn, not by an agent"}


class Resume(Struct, frozen=True, kw_only=True):
    task: str
    origin: str = msgspec.field(name="tool")  # what the task's log names as its source
    command: str = ""  # empty when there is none; `reason` says why
    reason: str = ""
    folder: str = ""
    run: str = ""  # the agent's command alone, to run in the folder (reading/terminal.py)
    host: str = ""  # the SSH host it runs on, when the task was pulled from one


def command(store, task: str) -> Resume:
    start = _start(store, task)
    origin = start.origin.tool if start else ""
    folder = start.project if start else ""
    if start is None:
        return Resume(task=task, origin="", reason="the task's log has no start record")
    agent = registry.by_origin(origin)
    template = agent.resume if agent else ""
    if not template:
        why = (agent.no_resume if agent else NO_RESUME.get(origin)) or (
            f"nodwyn knows no resume command for {origin or 'it'}"
        )
        return Resume(task=task, origin=origin, reason=why, folder=folder)
    host = ssh.by_id(store.root, start.origin.machine)
    if host is not None:
        if start.origin.path and not Path(start.origin.path).exists():  # the mirror follows
            return Resume(
                task=task,
                origin=origin,
                folder=start.project,
                reason=f"the agent's own log is gone from {host.name}",
            )
        return _over_ssh(task, origin, template, start, host.host)
    source = start.origin.path
    if source and not Path(source).exists():
        return Resume(
            task=task,
            origin=origin,
            folder=folder,
            reason=f"the agent's own log is gone ({source})",
        )
    words = template.format(id=_quote(start.origin.id)) if "{id}" in template else template
    line = f"cd {_quote(folder)} && {words}" if folder else words
    return Resume(task=task, origin=origin, command=line, folder=folder, run=words)


def _over_ssh(task: str, origin: str, template: str, start: r.SessionStart, host: str) -> Resume:
    """The command that resumes the session on the SSH machine it ran on."""
    words = template.format(id=shlex.quote(start.origin.id)) if "{id}" in template else template
    there = f"cd {shlex.quote(start.project)} && {words}" if start.project else words
    line = " ".join(["ssh", *map(_quote, remote.config_words()), "-t", "--", host, _quote(there)])
    return Resume(task=task, origin=origin, command=line, folder=start.project, run=line, host=host)


def _start(store, task: str) -> r.SessionStart | None:
    for _, _, record in logfile.read(store.log_path(task)):
        return record if isinstance(record, r.SessionStart) else None
    return None


def _quote(text: str) -> str:
    if os.name == "nt":
        return f'"{text}"' if any(c in text for c in " &()[]{}^=;!+,`~") else text
    return shlex.quote(text)
