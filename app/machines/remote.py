"""Talking to an SSH machine through the system's own ssh: the options every call carries, a
look at the far end before a pull, and ssh's complaints said in one line with what to do.

The person's ssh is used as it is (their ~/.ssh/config, keys, agent, ProxyJump and known
hosts; `NODWYN_SSH_CONFIG` names another config file, as `ssh -F` does), with BatchMode (never
a password prompt), a connect timeout and keep-alives added. Host keys are checked as the
person has it: a config saying `StrictHostKeyChecking no` is raised to `accept-new`, so a
changed key is refused whatever it says.

Every remote command is one string the far end's shell reads: its words are shlex-quoted
here, so a folder named with quotes, `;` or `$(...)` reaches the far end as one word.
"""

import os
import posixpath
import shlex
import subprocess
from pathlib import PurePosixPath

from msgspec import Struct

CONNECT = 10  # seconds ssh waits for the connection
ALIVE = ("-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4")
CONFIG = "NODWYN_SSH_CONFIG"
MARK = "nodwyn-look"  # what the look prints first: lines before it come from the far end's rc files

# The far end's look: whether rsync is there, then what each folder named after it is.
LOOK = (
    f"echo {MARK}; if command -v rsync >/dev/null 2>&1; then echo rsync; else echo none; fi; "
    'for f in "$@"; do if [ -d "$f" ]; then echo dir; elif [ -e "$f" ]; then echo file; '
    "else echo missing; fi; done"
)


class Failed(Exception):
    """A call to the far end failed; the text is one line that says what to do."""


class Look(Struct, frozen=True):
    rsync: bool  # the far end has rsync on its PATH
    kinds: dict[str, str]  # remote folder -> "dir", "file" or "missing"


def config_words() -> list[str]:
    """`-F FILE` when NODWYN_SSH_CONFIG names the ssh config to use, else nothing."""
    chosen = os.environ.get(CONFIG, "")
    return ["-F", chosen] if chosen else []


def options(host: str) -> list[str]:
    """The options every ssh, rsync and sftp call to `host` carries."""
    words = [*config_words(), "-o", "BatchMode=yes", "-o", f"ConnectTimeout={CONNECT}", *ALIVE]
    if _strictness(host) in ("false", "no", "off"):
        words += ["-o", "StrictHostKeyChecking=accept-new"]
    return words


def _strictness(host: str) -> str:
    """The host's StrictHostKeyChecking as the person's config gives it (`ssh -G`)."""
    try:
        done = subprocess.run(
            ["ssh", *config_words(), "-G", "--", host],
            capture_output=True,
            text=True,
            timeout=CONNECT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "stricthostkeychecking":
            return value.strip().lower()
    return ""


def remote_path(path: str) -> str:
    """A folder as the far end's tools take it: `~/x` as `x` (relative to the remote home,
    where ssh, rsync and sftp start), one starting with `-` as `./-x` (never read as an
    option), anything else as written."""
    if path == "~" or path.startswith("~/"):
        path = path[2:].lstrip("/") or "."
    path = posixpath.normpath(path)
    return "./" + path if path.startswith("-") else path


def shown(path: str) -> str:
    """A remote folder as people write it: relative ones under `~/`."""
    return path if path.startswith(("/", "~")) else str(PurePosixPath("~", path))


def look(host: str, name: str, folders: list[str]) -> Look:
    """Whether the far end has rsync, and what each of `folders` (as people write them) is
    there."""
    there = " ".join(shlex.quote(remote_path(f)) for f in folders)
    script = f"sh -c {shlex.quote(LOOK)} sh {there}"
    done = run(["ssh", *options(host), "--", host, script], name, host)
    lines = done.stdout.splitlines()
    if MARK not in lines:
        raise Failed(f"{name}: the far end's shell did not run the look ({_last(done.stderr)})")
    said = lines[lines.index(MARK) + 1 :]
    if len(said) != len(folders) + 1:
        raise Failed(f"{name}: the far end answered the look in a way not understood")
    return Look(said[0] == "rsync", dict(zip(folders, said[1:], strict=True)))


def run(argv: list[str], name: str, host: str, timeout: float = 3600, **kw):
    """Run an ssh, rsync or sftp command; Failed (one line) when ssh could not get through."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            **{"stdin": subprocess.DEVNULL, **kw},
        )
    except FileNotFoundError:
        raise Failed(f"{argv[0]} is not installed here: install OpenSSH's client") from None
    except subprocess.TimeoutExpired:
        raise Failed(f"{name}: no answer within {timeout:.0f} s; is it reachable?") from None
    if done.returncode == 255 or (argv[0] != "ssh" and _ssh_said(done.stderr)):
        raise Failed(said(done.stderr, name, host))
    return done


def _ssh_said(text: str) -> bool:
    return any(words in text for words, _ in SAYINGS)


# What ssh says -> what people read (after "NAME: "); {host} is the host as typed.
SAYINGS = [
    ("REMOTE HOST IDENTIFICATION HAS CHANGED", "host key changed; run ssh {host} once to check it"),
    (
        "Host key verification failed",
        "host key not known yet; run ssh {host} once to check and accept it",
    ),
    (
        "Connection refused",
        "connection refused; is sshd running there, on the port ~/.ssh/config says?",
    ),
    ("Could not resolve hostname", "no such host; check its name or its Host in ~/.ssh/config"),
    (
        "Permission denied",
        "permission denied; add your key there (ssh-copy-id {host}) or load it in ssh-agent",
    ),
    ("timed out", "no answer in time; is it on and reachable?"),
    ("No route to host", "no route to it; is it on this network (or its VPN up)?"),
    ("Network is unreachable", "the network is unreachable from here"),
    ("Connection closed", "the connection was closed by the far end; try ssh {host}"),
]


def said(stderr: str, name: str, host: str) -> str:
    """ssh's complaint as one line that says what to do."""
    for words, line in SAYINGS:
        if words in stderr:
            return f"{name}: {line.format(host=host)}"
    return f"{name}: {_last(stderr) or 'ssh failed'}; try ssh {host}"


def _last(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""
