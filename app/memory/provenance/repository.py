"""What git knows of a file and a commit: when each line of the file was committed
and under which paths, and which lines a commit added. Blame and commit answers are checked
against these, so that no turn is named for a line git dates before the turn's edit.

One `git blame -w --porcelain` per question (white space ignored, as the line keys do; whole-
file renames followed, as git blame does by default), quick enough for files of a few
thousand lines (ADR 0040).
No git, a file outside a repository, or one git does not track: None, and the answer rests on
the logs alone.
"""

import subprocess
from pathlib import Path

from msgspec import Struct

TIMEOUT = 20  # seconds for one git command
UNCOMMITTED = "0" * 40


class Dated(Struct, frozen=True, kw_only=True):
    """git blame of one file: each line's commit time (None: not committed yet), and the
    paths the file had in the commits its lines come from."""

    times: list[float | None]
    paths: list[str]  # relative to the repository's top, the newest first
    top: str


class Added(Struct, frozen=True, kw_only=True):
    """One commit's diff against its first parent."""

    sha: str
    at: float  # committer time
    lines: dict[str, list[str]]  # path -> the lines it added that its parent's file lacked
    before: dict[str, str]  # path -> its path in the parent (renames)


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, timeout=TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def dated(path: Path) -> Dated | None:
    """git blame -w of the file as it is in the work tree (uncommitted lines included)."""
    out = _git(path.parent, "blame", "-w", "--porcelain", "--", path.name)
    top = next((place for place in path.parents if (place / ".git").exists()), None)
    return _dated(out, top) if out is not None else None


def dated_at(top: Path, rev: str, path: str) -> Dated | None:
    """git blame -w of the file as commit `rev` holds it (`path` its path there)."""
    out = _git(top, "blame", "-w", "--porcelain", rev, "--", path)
    return _dated(out, top) if out is not None else None


def _dated(out: str, top: Path | None) -> Dated:
    times: dict[str, float | None] = {}
    paths: list[str] = []
    found: list[float | None] = []
    commit = ""
    for line in out.splitlines():
        if line.startswith("\t"):
            found.append(times.get(commit))
            continue
        head = line.split(" ", 1)
        if len(head[0]) == 40 and head[0].isalnum() and len(line.split(" ")) >= 3:
            commit = head[0]
            times.setdefault(commit, None)
        elif head[0] == "committer-time" and commit != UNCOMMITTED:
            times[commit] = float(head[1])
        elif head[0] == "filename" and head[1] not in paths:
            paths.append(head[1])
    return Dated(times=found, paths=paths, top=top.as_posix() if top else "")


class Version(Struct, frozen=True, kw_only=True):
    """The file as one commit holds it."""

    sha: str
    path: str  # relative to the repository's top, at that commit
    lines: list[str]


def version_after(top: Path, path: str, since: float) -> Version | None:
    """The file at the oldest commit made at or after `since` that changed it (renames
    followed): the version the sessions' last edits were committed in."""
    out = _git(top, "log", "--follow", "--format=%x00%H %ct", "--name-only", "--", path)
    found = None
    for entry in (out or "").split("\0")[1:]:
        head, _, names = entry.partition("\n")
        sha, _, at = head.partition(" ")
        name = names.strip().split("\n")[-1] if names.strip() else ""
        if not at or float(at) < since:
            break  # newest first: the ones older than `since` follow
        found = (sha, name)
    if found is None or not found[1]:
        return None
    text = _git(top, "show", f"{found[0]}:{found[1]}")
    if text is None:
        return None
    return Version(sha=found[0], path=found[1], lines=text.splitlines())


def history(folder: Path, inside: str, most: int) -> list[str]:
    """The hashes of the newest `most` commits that changed `inside` (relative to `folder`)."""
    return (_git(folder, "log", f"-{most}", "--format=%H", "--", inside) or "").split()


def added(folder: Path, sha: str) -> Added | None:
    """The lines commit `sha` added to each file, against its first parent (-M: renames)."""
    show = ["show", "-M", "-U0", "--no-color", "--no-ext-diff", "--format=%H%n%ct%n%P", sha, "--"]
    out = _git(folder, *show)
    if out is None:  # a clone lacking some blobs (partial, shallow): the files it has, each
        names = (_git(folder, "show", "--name-only", "--format=", sha, "--") or "").split("\n")
        parts = [_git(folder, *show, name) for name in names if name]
        head = _git(folder, "log", "-1", "--format=%H%n%ct%n%P", sha, "--")
        kept = [part.split("\n", 3)[3] for part in parts if part and part.count("\n") >= 3]
        out = head.rstrip("\n") + "\n" + "".join(kept) if head else None
    if out is None:
        return None
    head = out.split("\n", 3)
    if len(head) < 3:
        return None
    whole, at, parents = head[0], float(head[1]), head[2].split()
    lines: dict[str, list[str]] = {}
    before: dict[str, str] = {}
    path, source = None, None
    for line in head[3].splitlines() if len(head) > 3 else ():
        if line.startswith("--- "):
            source = line[6:] if line.startswith("--- a/") else None
        elif line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
            if path is not None and source is not None:
                before[path] = source
        elif line.startswith("+") and path is not None:
            lines.setdefault(path, []).append(line[1:])
    if parents:
        held = _held(folder, parents[0], [before.get(path, path) for path in lines])
        lines = {
            path: [
                line
                for line in kept
                if " ".join(line.split()) not in held.get(before.get(path, path), ())
            ]
            for path, kept in lines.items()
        }
    return Added(sha=whole, at=at, lines=lines, before=before)


def _held(folder: Path, rev: str, paths: list[str]) -> dict[str, set[str]]:
    """The lines (white space collapsed) of each file at `rev`."""
    found = blobs(folder, [f"{rev}:{path}" for path in paths])
    return {
        path: {" ".join(line.split()) for line in text.splitlines()}
        for path, text in zip(paths, found, strict=True)
        if text is not None
    }


def blobs(folder: Path, names: list[str]) -> list[str | None]:
    """The text of each blob named (`rev:path`), None where git has none: one `git cat-file
    --batch`."""
    asked = "".join(f"{name}\n" for name in names).encode()
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "cat-file", "--batch"],
            input=asked,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return [None] * len(names)
    data, at, out = done.stdout, 0, []
    for _ in names:
        end = data.find(b"\n", at)
        if end < 0:
            break
        head, at = data[at:end].split(), end + 1
        text = None
        if len(head) == 3 and head[1] == b"blob":
            size = int(head[2])
            text = data[at : at + size].decode("utf-8", "replace")
            at += size + 1
        out.append(text)
    return out + [None] * (len(names) - len(out))


def top_of(folder: Path) -> Path | None:
    out = _git(folder, "rev-parse", "--show-toplevel")
    return Path(out.strip()) if out else None
