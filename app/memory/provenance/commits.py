"""Which turn made a commit, found two ways, each answer saying which:

- "commit line": a tool output of the turn shows the commit, `[main 0afe44b] message` as
  `git commit` prints it (and where a `git log` of the same turn shows the whole hash, that);
- "lines": no output names it, so the commit's own diff against its parent is read
  and each line it added goes to the latest successful edit made before the commit that added
  that line to that file (or to the path it was renamed from), however long before; turns rank
  by the lines they hold. None: "no session's edit is among its lines".
"""

import re
from pathlib import Path

from msgspec import Struct

from ...errors import BadInput
from . import blame as blaming
from . import checking, ledgers, repository
from .ledger import Commit, key

LEAST = 2  # of a commit's added lines a turn's edits must hold to be named
SHA = re.compile(r"^[0-9a-fA-F]{4,40}$")


class Found(Struct, frozen=True, kw_only=True):
    origin: blaming.Origin
    how: str  # "commit line" / "files and time"
    sha: str  # as the log or the repository gives it
    message: str = ""
    files: list[str] = []  # the commit's files holding lines the turn's edits added
    lines: int = 0  # how many of the commit's added lines they are


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


def find(store, sha: str, folder: Path | None = None) -> Answer:
    """The turns that made commit `sha` (of the repository at `folder`, where given)."""
    if not SHA.match(sha or ""):
        raise BadInput(f"{sha!r} is no commit hash (4 to 40 hex digits)")
    book = ledgers.book(store)
    diff = repository.added(folder, sha) if folder is not None else None
    if folder is not None and diff is None:
        raise BadInput(f"no commit {sha} in the repository at {folder}")
    whole = diff.sha if diff else sha
    found = [
        Found(
            origin=blaming.origin_of(store, book, task, _as_edit(c)),
            how="commit line",
            sha=c.full or c.sha,
            message=c.message,
        )
        for task, c in by_line(book, whole)
    ]
    if not found and diff is not None:
        found = _by_lines(store, book, folder, diff)
    return Answer(sha=whole, found=found, files=sorted(diff.lines) if diff else [])


def _as_edit(commit: Commit):
    from .ledger import Edit

    return Edit(
        seq=commit.seq,
        turn=commit.turn,
        at=commit.at,
        call="",
        tool="git commit",
        path="",
        op="",
        hunks=[],
    )


def _by_lines(store, book, folder: Path, diff) -> list[Found]:
    """The turns whose edits added the commit's added lines: each line (one an edit alone
    names: blame.LONE characters or more) goes to the latest successful edit of its file made
    before the commit that added it; a turn is named when it holds LEAST of them."""
    top = repository.top_of(folder) or folder
    projects = sorted({held.project for _, held in book.ledgers.values() if held.project})
    held: dict[tuple[str, int], list] = {}
    for name, added in diff.lines.items():
        paths = [name, diff.before[name]] if name in diff.before else [name]
        edits = []
        for path in paths:
            target = blaming.target_of(top / path, projects)
            edits += [
                (t, e)
                for t, e in blaming.history(book, target)
                if e.ok and checking.epoch(e.at) <= diff.at + checking.SLACK
            ]
        edits.sort(key=lambda pair: pair[1].at)
        latest = {}
        for task, edit in edits:
            for hunk in edit.hunks:
                latest.update(
                    {
                        k: (task, edit)
                        for m, k in zip(hunk.marks, hunk.keys, strict=True)
                        if m == "+"
                    }
                )
        for line in added:
            if blaming._long(line) and key(line) in latest:
                task, edit = latest[key(line)]
                held.setdefault((task, edit.turn), [edit, set(), 0])
                held[(task, edit.turn)][1].add(name)
                held[(task, edit.turn)][2] += 1
    ranked = sorted(held.items(), key=lambda item: -item[1][2])
    return [
        Found(
            origin=blaming.origin_of(store, book, task, edit),
            how="lines",
            sha=diff.sha,
            files=sorted(names),
            lines=count,
        )
        for (task, _), (edit, names, count) in ranked
        if count >= LEAST
    ]
