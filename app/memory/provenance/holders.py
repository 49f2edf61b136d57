"""Who wrote this: the turns whose edits hold a pasted piece of code, or the turn
that wrote one line of a file, as a list that reads like search results.

Pasted code is matched line by line: each line's key (ledger.key) against the lines every
edit added, short lines (a brace, a blank) counting only beside a longer match of the same
edit. A turn ranks by how many of the pasted lines its edits hold (then the newest first); the
pasted lines it holds are marked. Failed edits never count.
"""

from pathlib import Path

from msgspec import Struct

from ...errors import BadInput
from . import blame as blaming
from . import ledgers
from .ledger import key

LIMIT = 20  # turns answered
MAX_LINES = 2_000  # pasted lines looked at


class Held(Struct, frozen=True, kw_only=True):
    origin: blaming.Origin
    path: str  # the file the edit wrote, as its log names it
    lines: list[int]  # the pasted lines (0-based) or the file's line (1-based) it holds


class Holders(Struct, frozen=True, kw_only=True):
    lines: list[str]  # what was asked about: the pasted lines, or the file's line
    turns: list[Held]
    file: str = ""


class Asked(Struct, frozen=True, kw_only=True):
    code: str = ""
    file: str = ""
    line: int = 0


_index: list = [None, {}]  # [the book it was made from, added line's key -> (task, edit)]


def _by_key(book) -> dict[int, list]:
    """Every added line's key -> the (task, edit) that added it, made once per book (a new
    book, made when a ledger changed, makes it anew)."""
    if _index[0] is book:
        return _index[1]
    made: dict[int, list] = {}
    for task, (_, held) in book.ledgers.items():
        for edit in held.edits:
            for hunk in edit.hunks if edit.ok else ():
                for mark, k in zip(hunk.marks, hunk.keys, strict=True):
                    if mark == "+":
                        made.setdefault(k, []).append((task, edit))
    _index[:] = [book, made]
    return made


def holders(store, asked: Asked) -> Holders:
    if asked.file:
        return _of_line(store, asked)
    lines = asked.code.splitlines()[:MAX_LINES]
    if not any(line.strip() for line in lines):
        raise BadInput("paste some code, or give a file and a line")
    book = ledgers.book(store)
    index = _by_key(book)
    hits: dict[tuple[str, int], dict] = {}
    for n, line in enumerate(lines):
        for task, edit in index.get(key(line), ()) if line.strip() else ():
            found = hits.setdefault((task, edit.turn), {"edit": edit, "lines": set()})
            found["lines"].add(n)
    kept = []
    for (task, _), found in hits.items():
        strong = {n for n in found["lines"] if len(" ".join(lines[n].split())) >= blaming.WEAK}
        near = {n for n in found["lines"] if n - 1 in strong or n + 1 in strong}
        if strong:
            kept.append((task, found["edit"], sorted(strong | near)))
    kept.sort(key=lambda item: item[1].at, reverse=True)  # the newest first among equals
    kept.sort(key=lambda item: -len(item[2]))
    turns = [
        Held(origin=blaming.origin_of(store, book, task, edit), path=edit.path, lines=held)
        for task, edit, held in kept[:LIMIT]
    ]
    return Holders(lines=lines, turns=turns)


def _of_line(store, asked: Asked) -> Holders:
    line = asked.line or 1
    done = blaming.blame(store, Path(asked.file).expanduser(), line, line)
    (shown,) = done.lines
    turns = []
    if shown.origin is not None:
        turns.append(Held(origin=done.origins[shown.origin], path=done.file, lines=[line]))
    return Holders(lines=[shown.text], turns=turns, file=done.file)
