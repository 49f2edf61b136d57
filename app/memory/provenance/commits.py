"""Which turn made a commit (issue 25), found two ways, each answer saying which:

- "commit line": a tool output of the turn shows the commit, `[main 0afe44b] message` as
  `git commit` prints it (and where a `git log` of the same turn shows the whole hash, that);
- "files and time": no output names it, so the repository is read (`git show --name-only`)
  for the commit's time and files, and the turns whose successful edits touched those files
  and that began before the commit, within DAYS of it, rank by files shared, then nearness.
"""

import re
import subprocess
from pathlib import Path

from msgspec import Struct

from ...errors import BadInput
from . import blame as blaming
from . import ledgers
from .ledger import Commit

DAYS = 2  # a turn's edits count towards a commit made within this long after
SHA = re.compile(r"^[0-9a-fA-F]{4,40}$")


class Found(Struct, frozen=True, kw_only=True):
    origin: blaming.Origin
    how: str  # "commit line" / "files and time"
    sha: str  # as the log or the repository gives it
    message: str = ""
    files: list[str] = []  # the commit's files the turn edited (files and time)


class Answer(Struct, frozen=True, kw_only=True):
    sha: str
    found: list[Found]
    files: list[str] = []  # the commit's files, where the repository was read


def by_line(book, sha: str) -> list[tuple[str, Commit]]:
    sha = sha.lower()
    out = []
    for task, (_, held) in book.ledgers.items():
        for commit in held.commits:
            full = commit.full or commit.sha
            if full.startswith(sha) or (len(sha) >= 7 and sha.startswith(commit.sha)):
                out.append((task, commit))
    return out


def shown(folder: Path, sha: str) -> tuple[str, str, list[str]] | None:
    """(whole hash, ISO time, files) of a commit of the repository holding `folder`."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "show", "--name-only", "--format=%H%n%cI", sha, "--"],
            capture_output=True, text=True, timeout=20, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    return lines[0], lines[1], lines[2:]


def find(store, sha: str, folder: Path | None = None) -> Answer:
    """The turns that made commit `sha` (of the repository at `folder`, where given)."""
    if not SHA.match(sha or ""):
        raise BadInput(f"{sha!r} is no commit hash (4 to 40 hex digits)")
    book = ledgers.book(store)
    repo = shown(folder, sha) if folder is not None else None
    whole = repo[0] if repo else sha
    found = [
        Found(
            origin=blaming.origin_of(store, book, task, _as_edit(c)),
            how="commit line",
            sha=c.full or c.sha,
            message=c.message,
        )  # fmt: skip
        for task, c in by_line(book, whole)
    ]
    if not found and repo is not None:
        found = _by_files(store, book, folder, repo)
    return Answer(sha=whole, found=found, files=repo[2] if repo else [])


def _as_edit(commit: Commit):
    from .ledger import Edit

    return Edit(seq=commit.seq, turn=commit.turn, at=commit.at, call="", tool="git commit",
                path="", op="", hunks=[])  # fmt: skip


def _by_files(store, book, folder: Path, repo) -> list[Found]:
    import datetime as dt

    _, when, files = repo
    made = dt.datetime.fromisoformat(when).astimezone(dt.UTC)
    top = _top(folder)
    turns: dict[tuple[str, int], tuple[object, set[str]]] = {}
    projects = sorted({held.project for _, held in book.ledgers.values() if held.project})
    for name in files:
        target = blaming.target_of(top / name, projects)
        for task, edit in blaming.history(book, target):
            if not edit.ok or not edit.at:
                continue
            at = dt.datetime.fromisoformat(edit.at.replace("Z", "+00:00"))
            if not (made - dt.timedelta(days=DAYS) <= at <= made):
                continue
            held = turns.setdefault((task, edit.turn), (edit, set()))
            held[1].add(name)
    ranked = sorted(turns.items(), key=lambda item: (-len(item[1][1]), _gap(made, item[1][0].at)))
    return [
        Found(
            origin=blaming.origin_of(store, book, task, edit),
            how="files and time",
            sha=repo[0],
            files=sorted(names),
        )  # fmt: skip
        for (task, _), (edit, names) in ranked[:5]
    ]


def _gap(made, at: str) -> float:
    import datetime as dt

    return (made - dt.datetime.fromisoformat(at.replace("Z", "+00:00"))).total_seconds()


def _top(folder: Path) -> Path:
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    return Path(done.stdout.strip()) if done.returncode == 0 else folder
