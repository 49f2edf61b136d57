"""Going on with a task's session in a terminal: the person's terminal, opened in the task's
folder, running the agent's own resume command (reading/resume.py), and left open at a shell
there when the agent ends.

Which terminal: the one chosen in Settings (`terminal`, a command line such as `kitty` or
`alacritty`), else `$TERMINAL`, else the desktop's own: x-terminal-emulator, gnome-terminal,
konsole or xterm on Linux (the first on PATH); Terminal on macOS, through osascript; Windows
Terminal (`wt`) or else a new cmd window on Windows. How a terminal is handed a command
differs: gnome-terminal takes it after `--`, kitty, foot and wezterm after their own words,
the others (xterm, konsole, x-terminal-emulator, alacritty and most) after `-e`, which is also
what a `$TERMINAL` not known here is given.

Before anything starts, what would make it fail is said in one line: no resume command (the
reason resume.py gives), a folder that no longer exists, an agent that is not installed (its
command not on PATH), no terminal found. A terminal that cannot start, or that ends at once
with an error (a wrong `$TERMINAL`), is said too; the copied command still works in any
terminal the person opens.

A task pulled from an SSH machine opens a terminal in the home folder running its `ssh -t HOST
'cd FOLDER && ...'` line (reading/resume.py): its folder and agent are the far end's to find.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from msgspec import Struct

from .. import settings
from ..errors import BadInput, NodwynError
from . import resume

LINUX = ("x-terminal-emulator", "gnome-terminal", "konsole", "xterm")
# how a terminal is handed the command to run: the words put before it (default: "-e")
BEFORE = {"gnome-terminal": ["--"], "kitty": [], "foot": [], "wezterm": ["start", "--"]}
QUICK_FAILURE = 0.5  # seconds: a terminal that ends with an error within this is reported


class NotOpened(NodwynError):
    """The task's session could not be opened in a terminal (the line says why)."""

    status = 409


class Opened(Struct, frozen=True, kw_only=True):
    task: str
    terminal: str  # the terminal's program, as started
    folder: str
    command: str  # the agent's command run there


def open_in_terminal(store, task: str) -> Opened:
    """Start the person's terminal in the task's folder running the agent's resume command."""
    found = resume.command(store, task)
    if not found.command:
        raise NotOpened(f"no resume command for {task}: {found.reason}")
    if found.host:  # the session's folder is on the SSH machine: ssh goes there
        return _over_ssh(store, task, found)
    if not found.folder or not Path(found.folder).is_dir():
        raise NotOpened(f"the task's folder {found.folder or '(none)'} no longer exists")
    agent = shlex.split(found.run)[0]
    if shutil.which(agent) is None:
        raise NotOpened(f"{agent} is not installed here: no {agent} command on PATH")
    argv = terminal_command(store.root, found.folder, found.run)
    _start(argv, found.folder)
    return Opened(task=task, terminal=argv[0], folder=found.folder, command=found.run)


def _over_ssh(store, task: str, found: resume.Resume) -> Opened:
    """Start the terminal in the home folder running ssh to the task's machine and folder."""
    if shutil.which("ssh") is None:
        raise NotOpened("ssh is not installed here: no ssh command on PATH")
    home = str(Path.home())
    argv = terminal_command(store.root, home, found.command)
    _start(argv, home)
    return Opened(task=task, terminal=argv[0], folder=found.folder, command=found.command)


def terminal_command(root: Path, folder: str, words: str) -> list[str]:
    """The command line that opens the terminal running `words` in `folder`."""
    chosen = settings.load(root).terminal or os.environ.get("TERMINAL", "")
    try:
        named = shlex.split(chosen, posix=os.name != "nt")
    except ValueError as exc:  # an unclosed quote in $TERMINAL
        raise NotOpened(f"the terminal {chosen!r} cannot be read: {exc}") from None
    if named:
        return _handed(named, folder, words)
    if sys.platform == "darwin":
        script = f"cd {shlex.quote(folder)} && {words}"
        quoted = script.replace("\\", "\\\\").replace('"', '\\"')
        return [
            "osascript",
            "-e",
            f'tell application "Terminal" to do script "{quoted}"',
            "-e",
            'tell application "Terminal" to activate',
        ]
    if os.name == "nt":
        if shutil.which("wt"):
            return ["wt", "-d", folder, "cmd", "/k", words]
        return ["cmd", "/c", "start", "", "cmd", "/k", words]
    for name in LINUX:
        if shutil.which(name):
            return _handed([name], folder, words)
    raise NotOpened(
        "no terminal found (none of " + ", ".join(LINUX) + " on PATH): set $TERMINAL or "
        "choose one in Settings > Terminal, or copy the command"
    )


def checked(line: str) -> str:
    """A terminal's command line for the setting, refused when it could not start (its program
    is not on PATH) or cannot be read; "" (automatic) as it is."""
    try:
        words = shlex.split(line.strip(), posix=os.name != "nt")
    except ValueError as exc:
        raise BadInput(f"the terminal's command line cannot be read: {exc}") from None
    if words and shutil.which(words[0]) is None:
        raise BadInput(f"no program named {words[0]} on PATH: name the terminal's own command")
    return line.strip()


def _handed(terminal: list[str], folder: str, words: str) -> list[str]:
    """The terminal's words, then the command, in the way that terminal takes one."""
    if os.name == "nt":
        return [*terminal, "cmd", "/k", words]
    name = Path(terminal[0]).name
    before = BEFORE.get(name, ["-e"])
    # the agent runs in the folder; when it ends, a shell stays open there
    script = f'cd {shlex.quote(folder)} && {words}; exec "${{SHELL:-sh}}"'
    return [*terminal, *before, "sh", "-c", script]


def _start(argv: list[str], folder: str) -> None:
    """Start the terminal on its own (it outlives nodwyn); one that ends at once with an
    error code is reported with its first line of complaint."""
    # its complaints go to a file, not a pipe: a terminal left running must never write into
    # a closed pipe (that would end it)
    with tempfile.TemporaryFile() as complaints:
        try:
            process = subprocess.Popen(
                argv,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=complaints,
                start_new_session=os.name != "nt",
            )
        except OSError as exc:
            raise NotOpened(f"the terminal {argv[0]} could not start: {exc.strerror}") from None
        try:
            code = process.wait(timeout=QUICK_FAILURE)
        except subprocess.TimeoutExpired:
            return  # still running: the terminal is open
        complaints.seek(0)
        said = complaints.read().decode("utf-8", "replace").strip().splitlines()
    if code != 0:
        why = f": {said[0][:200]}" if said else ""
        raise NotOpened(f"the terminal {argv[0]} ended at once (exit code {code}){why}")
