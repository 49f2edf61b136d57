"""The hook command nodwyn installs, and how its entries are told from the person's own."""

import json
import os
import shlex
import sys

from .. import paths

MARK = "nodwyn.live.hook"  # in every command nodwyn installs: how remove knows its own
FROZEN_MARK = "--nodwyn-cli hook"  # the packaged app's launcher runs the same hook


def command(agent: str, event: str = "") -> list[str]:
    """The hook command for `agent` (and the event, where the payload does not name it), with
    absolute paths and the data directory."""
    root = paths.resolved_root()
    tail = [agent, *([event] if event else []), "--data-dir", root]
    if getattr(sys, "frozen", False):
        return [sys.executable, "--nodwyn-cli", "hook", *tail]
    return [sys.executable, "-m", MARK, *tail]


def shell(words: list[str]) -> str:
    """A command line as this system's shell reads it back into the same words."""
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline(words)
    return shlex.join(words)


def ours(value) -> bool:
    """Whether a hook entry (any JSON value, or text) runs nodwyn's hook command."""
    text = value if isinstance(value, str) else json.dumps(value)
    return MARK in text or FROZEN_MARK in text
