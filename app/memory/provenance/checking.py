"""Blame's answers checked against git: a line git dates to a commit made before an
edit was not written by that edit, however alike the text. Such a claim goes to the latest
earlier edit that added the same line, where one did before the commit, else to no session.
"""

import datetime as dt
from functools import lru_cache

from .ledger import Edit, key

SLACK = 120  # seconds: clocks of the log's machine and git's may differ by this much
WEAK = 3  # characters under which a line alone names no edit (blame.WEAK)


@lru_cache(maxsize=65_536)
def epoch(at: str) -> float:
    try:
        return dt.datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def dated(done: list, lines: list[str], edits: list[Edit], times: list[float | None]) -> None:
    """Take back, in place, each (status, edit) of `done` that git dates before its edit."""
    adders: dict[int, list[int]] | None = None
    for j, (status, number) in enumerate(done):
        committed = times[j]
        if number is None or committed is None:
            continue
        if epoch(edits[number].at) <= committed + SLACK:
            continue
        if adders is None:
            adders = _adders(edits)
        earlier = None
        if status == "session" and len(" ".join(lines[j].split())) >= WEAK:
            found = [
                n for n in adders.get(key(lines[j]), ()) if epoch(edits[n].at) <= committed + SLACK
            ]
            earlier = found[-1] if found else None
        done[j] = ("session", earlier) if earlier is not None else ("not from a session", None)


def _adders(edits: list[Edit]) -> dict[int, list[int]]:
    """Each added line's key -> the edits that added it, oldest first."""
    out: dict[int, list[int]] = {}
    for number, edit in enumerate(edits):
        for hunk in edit.hunks:
            for mark, k in zip(hunk.marks, hunk.keys, strict=True):
                if mark == "+" and (not out.get(k) or out[k][-1] != number):
                    out.setdefault(k, []).append(number)
    return out
