"""Copying an SSH machine's agent folders into its mirror: rsync where both ends have it, else
the system's sftp in batch mode.

Each remote folder lands in the mirror under its own path: `<mirror>/home/<path>` for one in
the remote home, `<mirror>/root/<path>` for one named from the root, the same way for both
engines; rsync takes every folder of one kind (appended or rewritten) in one call, sftp every
folder in one session, since each connection runs the far end's shell start-up again.

Only what grew crosses: the agents that append to their logs (Claude Code, Codex, ...) are
copied with rsync's `--append-verify` (the bytes past the mirror's end, then the whole file's
checksum checked, and the file sent again if it differs), or sftp's `get -a` (resume); those
that rewrite a file whole (Gemini CLI's JSON, OpenCode's database) with rsync's delta
transfer, or sftp's whole copy. Names travel as data: rsync's `--secluded-args` (`-s`) sends
them over its protocol, not to the far end's shell, and sftp's batch lines escape them for
sftp's own reader.

A pull killed at any point loses nothing and doubles nothing: an appended file is a prefix
of the remote one, which the next pull completes (and checks); a whole copy is written in a
temporary folder beside the mirror (`<mirror>.tmp`, emptied before each pull) and renamed over.
"""

import os
import re
import shlex
import shutil
from pathlib import Path

from msgspec import Struct

from . import remote
from .remote import Failed

# The kinds of files some agent reads (the others, an OpenCode snapshot's git objects, stay).
KINDS = (
    "*.jsonl",
    "*.json",
    "*.db",
    "*.db-wal",
    "*.yaml",
    "*.pb",
    "*.md",
    "*.vscdb",
    "*.vscdb-wal",
    ".project_root",
    ".aider.input.history",
)
FILTER = ["--include=*/", *(f"--include={kind}" for kind in KINDS), "--exclude=*", "-m"]
RECEIVED = re.compile(r"Total bytes received: ([\d,.]+)")
SENT = re.compile(r"Total bytes sent: ([\d,.]+)")


class Copied(Struct, kw_only=True):
    """What one copy did: the folders it took, bytes that crossed (both ways), an error."""

    folders: list[str]
    received: int = 0
    sent: int = 0
    error: str = ""


def slot(mirror: Path, folder: str) -> Path:
    """Where a remote folder lands in the mirror: its own path below `home/` (relative to the
    remote home) or `root/` (absolute), so the mirror reads as the far end's folders do."""
    path = remote.remote_path(folder)
    if path.startswith("/"):
        return mirror / "root" / path.lstrip("/")
    return mirror / "home" if path == "." else mirror / "home" / path


def temporary(mirror: Path) -> Path:
    """The folder rsync writes whole copies in before renaming them (same file system)."""
    return mirror.with_name(mirror.name + ".tmp")


def by_rsync(host: str, name: str, mirror: Path, folders: list[str], whole: bool) -> list[Copied]:
    """Copy remote folders into their slots with rsync (only what grew): one call for those
    under the remote home, one for those named from the root, each recreating the folders'
    paths (`--relative`) below its part of the mirror."""
    rsh = " ".join(shlex.quote(word) for word in ["ssh", *remote.options(host)])
    mode = [f"--temp-dir={temporary(mirror)}"] if whole else ["--append-verify"]
    copies = []
    for base, chosen in _by_base(folders).items():
        (mirror / base).mkdir(parents=True, exist_ok=True)
        sources = [f"{host}:{remote.remote_path(f)}" for f in chosen]
        argv = [
            "rsync",
            "-rtRz",
            "-s",
            "--delete",
            "--stats",
            *FILTER,
            *mode,
            "-e",
            rsh,
            *sources,
            f"{mirror / base}/",
        ]
        done = remote.run(argv, name, host, env={**os.environ, "LC_ALL": "C"})
        copied = Copied(folders=chosen)
        copied.received, copied.sent = _number(RECEIVED, done.stdout), _number(SENT, done.stdout)
        if done.returncode not in (0, 24):  # 24: a file vanished while read (the agent's doing)
            shown = ", ".join(remote.shown(f) for f in chosen)
            copied.error = f"{name}: rsync could not copy {shown}: {_last(done.stderr)}"
        copies.append(copied)
    return copies


def _by_base(folders: list[str]) -> dict[str, list[str]]:
    """The folders under the remote home ("home") and those named from the root ("root")."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        absolute = remote.remote_path(folder).startswith("/")
        found.setdefault("root" if absolute else "home", []).append(folder)
    return found


def by_sftp(host: str, name: str, mirror: Path, folders: list[tuple[str, bool]]) -> list[Copied]:
    """Copy remote folders (folder, whole) into their slots with one sftp session."""
    batch, copies, before = [], [], {}
    for folder, whole in folders:
        place = slot(mirror, folder)
        place.parent.mkdir(parents=True, exist_ok=True)
        flags = "-R -p" if whole else "-R -p -a"
        there = remote.remote_path(folder)
        here = place.parent.relative_to(mirror).as_posix()
        batch.append(f"-get {flags} {sftp_quoted(there)} {sftp_quoted(here)}")
        before[folder] = size_of(place)
        copies.append(Copied(folders=[folder]))
    argv = ["sftp", "-b", "-", *remote.options(host), "--", host]
    done = remote.run(argv, name, host, input="\n".join(batch) + "\n", cwd=mirror, stdin=None)
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    for copied in copies:
        folder = copied.folders[0]
        copied.received = max(size_of(slot(mirror, folder)) - before[folder], 0)
        copied.error = f"{name}: sftp: {errors[0][:200]}" if errors and done.returncode else ""
    return copies


def sftp_quoted(path: str) -> str:
    """A path as one word of an sftp batch line: every ASCII character but letters, digits and
    `/._-` after a backslash, which sftp's reader takes as that character itself (and its remote
    glob as no pattern)."""
    return "".join(
        "\\" + c if c.isascii() and not (c.isalnum() or c in "/._-") else c for c in path
    )


def clear_temporary(mirror: Path) -> None:
    """Empty the temporary folder (a pull killed mid-copy leaves its file there)."""
    shutil.rmtree(temporary(mirror), ignore_errors=True)
    temporary(mirror).mkdir(parents=True, exist_ok=True)


def size_of(folder: Path) -> int:
    """Bytes of the files below `folder`."""
    total = 0
    for top, _folders, names in os.walk(folder):
        for name in names:
            try:
                total += os.stat(os.path.join(top, name), follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def _number(pattern: re.Pattern, text: str) -> int:
    found = pattern.search(text)
    return int(re.sub(r"[,.]", "", found.group(1))) if found else 0


def _last(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "it ended with an error"


__all__ = ["Copied", "Failed", "by_rsync", "by_sftp", "slot"]
