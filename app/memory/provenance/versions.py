"""Lines carried from the version the sessions left. A file changed by hand after its
last edits was first committed as the sessions left it; blamed at that commit, the answer is
carried to the file as it is by a line diff, as git blame carries a line through versions: a
line the diff keeps unchanged (a blank line too) keeps the turn it had there, where the answer
for the file as it is names no session. The replay alone cannot do this: it knows only the
lines the edits touched, so a file rewritten around them loses the short lines between.

Costs three git calls (log, show, blame at that commit), and only for a file with lines
committed after its last edit.
"""

import difflib
from collections.abc import Callable
from pathlib import Path

from . import checking, repository
from .ledger import Edit, key

CLAIMS = ("session", "changed by")


def carried(
    path: Path,
    dates,
    lines: list[str],
    done: list,
    found: list[tuple[str, Edit]],
    answer: Callable[[list[str], object], list],
) -> None:
    """Give, in place, each line of `done` that names no session the turn the same line had in
    the file's first commit after its last edit; `answer(lines, dates)` blames that version."""
    last = checking.epoch(found[-1][1].at)
    if not dates.top or all(t is not None and t <= last + checking.SLACK for t in dates.times):
        return  # the file is as the sessions' last commit of it left it
    top = Path(dates.top)
    try:
        inside = path.relative_to(top).as_posix()
    except ValueError:
        return
    then = repository.version_after(top, inside, last - checking.SLACK)
    if then is None or then.lines == lines:
        return
    at = repository.dated_at(top, then.sha, then.path)
    if at is None or len(at.times) != len(then.lines):
        return
    before = answer(then.lines, at)
    keys = [key(line) for line in lines]
    matcher = difflib.SequenceMatcher(
        None, [key(line) for line in then.lines], keys, autojunk=False
    )
    for op, i1, _, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            continue
        for n in range(j2 - j1):
            if done[j1 + n][0] == "not from a session" and before[i1 + n][0] in CLAIMS:
                done[j1 + n] = before[i1 + n]
