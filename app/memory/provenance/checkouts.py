"""Whether a repository checked out under another folder name than a session's is that
session's project, told by git: the text the session's edits found in a file (an
edit's context and removed lines, a Write's lines) stands in a version of that file git holds.
A checkout of the same project under any name holds it; a repository that merely has the same
relative paths does not (its STATUS.md never held the session's lines), so it gets no claim.

Asked only where an edit's path is the file's inside the folders but the folder names differ
(the folder-name rule of blame.names answers the rest without git). One `git log` and one
`git cat-file --batch` per project and checkout, remembered while the ledgers stay the same.
"""

from pathlib import Path

from . import repository
from .ledger import Edit, key

VERSIONS = 200  # versions of a file looked through
SAMPLES = 8  # of a project's edits whose text is looked for
LEAST = 3  # lines a run of an edit's text needs, two of them not blank
BLANK = key("")

_known: list = [None, {}]  # [the book they are for, (project, base, top) -> bool]


def same(book, project: str, base: str, top: Path) -> bool:
    """Whether the repository holding the folder `top` holds, at the same path inside that
    folder as inside `base` (the project's folder or one above it), the text one of the
    project's edits found (or wrote) in a file."""
    if _known[0] is not book:
        _known[:] = [book, {}]
    asked = (project, base, top.as_posix())
    if asked not in _known[1]:
        edits = [
            edit
            for _, held in book.ledgers.values()
            if held.project == project
            for edit in held.edits
        ]
        _known[1][asked] = _holds(base, edits, top)
    return _known[1][asked]


def _runs(edit: Edit) -> list[list[int]]:
    """The edit's text as runs of line keys: what it found (context and removed), or what a
    Write wrote; runs too short or too blank to tell a file by are left out."""
    kept = "+ " if edit.op in ("write", "add") else "- "
    out = []
    for hunk in edit.hunks:
        run = [k for m, k in zip(hunk.marks, hunk.keys, strict=True) if m in kept]
        if len(run) >= LEAST and sum(k != BLANK for k in run) >= 2:
            out.append(run)
    return out


def _holds(base: str, edits: list[Edit], top: Path) -> bool:
    base = base.replace("\\", "/").rstrip("/") + "/"
    by_path: dict[str, list[list[int]]] = {}
    for edit in edits:
        if edit.ok and edit.path.startswith(base) and len(by_path) < SAMPLES:
            runs = _runs(edit)
            if runs:
                by_path.setdefault(edit.path[len(base) :], []).extend(runs)
    for inside, runs in by_path.items():
        for lines in _versions(top, inside):
            keys = [key(line) for line in lines]
            if any(_within(keys, run) for run in runs):
                return True
    return False


def _within(keys: list[int], run: list[int]) -> bool:
    size = len(run)
    return any(keys[at : at + size] == run for at, k in enumerate(keys) if k == run[0])


def _versions(top: Path, inside: str) -> list[list[str]]:
    """The file's versions git holds, newest first (`inside` relative to `top`, a folder of
    the repository)."""
    shas = repository.history(top, inside, VERSIONS)
    found = repository.blobs(top, [f"{sha}:./{inside}" for sha in shas])
    return [text.splitlines() for text in found if text is not None]
