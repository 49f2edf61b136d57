"""The hosts the person's ssh config names, offered in Settings when adding an SSH machine.

Read from ~/.ssh/config (or the file NODWYN_SSH_CONFIG names): every `Host` line's names,
patterns with wildcards or negations left out (they name no one machine), and names nodwyn
would refuse (ssh.checked_host), following `Include`
lines (relative to ~/.ssh, with globs, nested at most DEPTH deep, a file read once). A file
that cannot be read gives no hosts, never an error: the offer is a convenience.
"""

import glob
import os
import re
import shlex
from pathlib import Path

from . import remote, ssh

DEPTH = 16  # ssh's own limit on nested Includes
LINE = re.compile(r"([^\s=]+)\s*=?\s*(.*)")


def offered() -> list[str]:
    """The hosts named in the ssh config, in the order written, each once."""
    chosen = os.environ.get(remote.CONFIG, "")
    found: dict[str, None] = {}
    _read(Path(chosen) if chosen else Path.home() / ".ssh" / "config", found, set(), 0)
    return list(found)


def _read(path: Path, found: dict[str, None], seen: set[str], depth: int) -> None:
    key = os.path.realpath(path)
    if depth > DEPTH or key in seen:
        return
    seen.add(key)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        words = _words(line)
        if not words:
            continue
        keyword = words[0].lower()
        if keyword == "host":
            found.update(dict.fromkeys(w for w in words[1:] if _one_host(w)))
        elif keyword == "include":
            for pattern in words[1:]:
                for name in _included(pattern):
                    _read(Path(name), found, seen, depth + 1)


def _one_host(word: str) -> bool:
    """A name of one machine that nodwyn can hand ssh (no pattern, nothing a shell reads)."""
    return (
        not any(c in word for c in "*?!")
        and not word.startswith("-")
        and bool(ssh.HOST.fullmatch(word))
    )


def _words(line: str) -> list[str]:
    """A config line's words: `Key value`, `Key=value`, quoted values, comments left out."""
    text = line.strip()
    if not text or text.startswith("#"):
        return []
    first, rest = LINE.match(text).groups()
    try:
        return [first, *shlex.split(rest, comments=True)]
    except ValueError:  # an unclosed quote: the line is passed over, as ssh would refuse it
        return []


def _included(pattern: str) -> list[str]:
    """The files an Include names: `~` expanded, relative to ~/.ssh, globs in sorted order."""
    path = os.path.expanduser(pattern)
    if not os.path.isabs(path):
        path = str(Path.home() / ".ssh" / path)
    return sorted(glob.glob(path))
