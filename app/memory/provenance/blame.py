"""Which turn wrote each line of a file (issue 25): the file's edits, from every log, replayed
in time order over line keys, then the result set against the file as it is now.

Replay: a Write (or apply_patch's Add) sets the file's lines, each from that edit; an update's
hunk is found in the lines so far by its old lines (context and removed) and replaced by its
new ones, a context line keeping its origin, an added line taking the edit's. A hunk that is
not found (the file was changed by hand, or no Write was seen first) is left unplaced. The
replayed lines are then matched to the file's own by difflib: a line in an equal run is the
edit's that put it there; a line in a replaced run is "changed since" (the edit that wrote the
line it replaced shown), unless some edit of the file added exactly it; an inserted line is
that latest edit's, or "not from a session". Failed edits never count. ADR 0032 says where
this is blind.

Paths: an edit names the file on its own machine. It is the file asked about when the path is
the same, or when its path inside its log's folder is the file's path inside the project here
(that folder of the same name, or the known folder or git root holding the file). Moves
(`git mv`, `mv`, apply_patch's `Move to`) carry the history of the old path over.
"""

import difflib
from pathlib import Path

from msgspec import Struct

from ...errors import BadInput
from . import ledgers
from .ledger import Edit, key

WEAK = 3  # characters (white space collapsed) under which a line is matched only beside others
DEPTH = 4  # moves followed back


class Origin(Struct, frozen=True, kw_only=True):
    """The turn one edit was made in."""

    task: str
    turn: int
    seq: int
    at: str
    agent: str
    model: str
    asked: str
    tool: str
    title: str = ""


class Line(Struct, frozen=True, kw_only=True):
    line: int
    status: str  # "session" / "changed since" / "not from a session"
    origin: int | None = None  # index into Blame.origins
    text: str = ""


class Blame(Struct, frozen=True, kw_only=True):
    file: str
    lines: list[Line]
    origins: list[Origin]
    edits: int  # edits of the file found (failed ones left out)


class Target(Struct, frozen=True):
    path: str  # absolute, with "/"
    roots: tuple[str, ...]  # folders the file's project may be: known ones, its git root


def target_of(path: Path, projects: list[str]) -> Target:
    path = path.resolve()
    text = path.as_posix()
    roots = [p for p in projects if text.startswith(p.rstrip("/") + "/")]
    for place in path.parents:
        if (place / ".git").exists():
            roots.append(place.as_posix())
            break
    return Target(path=text, roots=tuple(dict.fromkeys(roots)))


def names(edit_path: str, project: str, target: Target) -> bool:
    """Whether an edit's path (on its log's machine, `project` its folder) is the target."""
    if edit_path == target.path:
        return True
    base = project.replace("\\", "/").rstrip("/")
    if not base or not edit_path.startswith(base + "/"):
        return False
    inside = edit_path[len(base) + 1 :]
    if not target.path.endswith("/" + inside):
        return False
    here = target.path[: -len(inside) - 1]
    return here in target.roots or ledgers.name_of(here) == ledgers.name_of(base)


def history(book, target: Target) -> list[tuple[str, Edit]]:
    """The edits of the target, and of the paths it was moved from before the move, oldest
    first."""
    found, wanted = [], [(target, None)]
    for _ in range(DEPTH):
        following = []
        for want, before in wanted:
            name = ledgers.name_of(want.path)
            for task, edit in book.edits.get(name, ()):
                project = book.ledgers[task][1].project
                if names(edit.path, project, want) and (before is None or edit.at <= before):
                    found.append((task, edit))
            for task, move in book.moves.get(name, ()):
                project = book.ledgers[task][1].project
                if names(move.dst, project, want) and (before is None or move.at <= before):
                    source = Target(path=move.src, roots=(project,))
                    following.append((source, move.at))
        wanted = following
        if not wanted:
            break
    found = list({(task, e.seq, e.call, e.path): (task, e) for task, e in found}.values())
    return sorted(found, key=lambda pair: (pair[1].at, pair[0], pair[1].seq))


def _find(state: list[int], old: list[int], start: int = 0) -> int:
    first, size, at = old[0], len(old), start
    while True:
        try:
            at = state.index(first, at)
        except ValueError:
            return -1
        if state[at : at + size] == old:
            return at
        at += 1


def _apply(state: list[int], origins: list[int], hunk, number: int) -> bool:
    old = [k for m, k in zip(hunk.marks, hunk.keys, strict=True) if m != "+"]
    if not old:
        return False
    at = _find(state, old)
    if at < 0:
        return False
    keys, made, i = [], [], at
    for mark, k in zip(hunk.marks, hunk.keys, strict=True):
        if mark == " ":
            keys.append(k)
            made.append(origins[i])
            i += 1
        elif mark == "-":
            i += 1
        else:
            keys.append(k)
            made.append(number)
    state[at:i], origins[at:i] = keys, made
    return True


def replay(edits: list[Edit]) -> tuple[list[int], list[int]]:
    """The file's line keys as the edits leave it, and the edit (index) each line is from."""
    state: list[int] | None = None
    origins: list[int] = []
    for number, edit in enumerate(edits):
        if edit.op in ("write", "add"):
            state = [k for h in edit.hunks for m, k in zip(h.marks, h.keys, strict=True)
                     if m != "-"]  # fmt: skip
            origins = [number] * len(state)
        elif edit.op == "delete":
            state, origins = [], []
        elif state is not None:
            for hunk in edit.hunks:
                placed = _apply(state, origins, hunk, number)
                while placed and edit.every:
                    placed = _apply(state, origins, hunk, number)
    return state or [], origins


def attribute(lines: list[str], edits: list[Edit]) -> list[tuple[str, int | None]]:
    """(status, edit index) for each line of the file as it is."""
    keys = [key(line) for line in lines]
    state, origins = replay(edits)
    added: dict[int, int] = {}  # key -> the latest edit that added it
    for number, edit in enumerate(edits):
        for hunk in edit.hunks:
            for mark, k in zip(hunk.marks, hunk.keys, strict=True):
                if mark == "+":
                    added[k] = number
    out: list[tuple[str, int | None]] = [("not from a session", None)] * len(lines)
    matcher = difflib.SequenceMatcher(None, state, keys, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            if op == "equal":
                out[j] = ("session", origins[i1 + j - j1])
            elif keys[j] in added and len(" ".join(lines[j].split())) >= WEAK:
                out[j] = ("session", added[keys[j]])
            elif op == "replace":
                out[j] = ("changed since", origins[min(i1 + j - j1, i2 - 1)])
    _weak_lines(lines, keys, added, out)
    return out


def _weak_lines(lines, keys, added, out) -> None:
    """A short line (a brace, a blank) no replay placed is an edit's where a line beside it is
    that edit's: alone it would match half the edits of the file."""
    for j, (status, _) in enumerate(out):
        if status != "not from a session" or keys[j] not in added:
            continue
        number = added[keys[j]]
        near = {out[j - 1][1] if j else None, out[j + 1][1] if j + 1 < len(out) else None}
        if number in near:
            out[j] = ("session", number)


def blame(store, path: Path, first: int = 1, last: int | None = None) -> Blame:
    """Who wrote lines first..last (1-based, inclusive) of the file at `path`."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise BadInput(f"no file {path}") from None
    except IsADirectoryError:
        raise BadInput(f"{path} is a folder: blame takes a file") from None
    lines = text.splitlines()
    last = len(lines) if last is None else min(last, len(lines))
    if first < 1 or (lines and first > last):
        raise BadInput(f"lines {first},{last} are not in {path} ({len(lines)} lines)")
    book = ledgers.book(store)
    projects = sorted({held.project for _, held in book.ledgers.values() if held.project})
    found = [(task, edit) for task, edit in history(book, target_of(path, projects)) if edit.ok]
    done = attribute(lines, [edit for _, edit in found])
    shown, origins, out = {}, [], []
    for n in range(first - 1, last):
        status, number = done[n]
        where = None
        if number is not None:
            where = shown.get(number)
            if where is None:
                where = shown[number] = len(origins)
                origins.append(origin_of(store, book, *found[number]))
        out.append(Line(line=n + 1, status=status, origin=where, text=lines[n]))
    return Blame(file=str(path), lines=out, origins=origins, edits=len(found))


def _titles(store) -> dict:
    """Task titles as the word index last saw them (no log read: a task's own title would
    fold its whole log)."""
    from ..words import index

    state = index.load_state(store.root, shared=True)
    return {task: seen.title for task, seen in state.tasks.items()} if state else {}


def origin_of(store, book, task: str, edit: Edit) -> Origin:
    held = book.ledgers[task][1]
    turn = next((t for t in reversed(held.turns) if t.seq == edit.turn), None)
    title = _titles(store).get(task, "")
    return Origin(
        task=task, turn=edit.turn, seq=edit.seq, at=edit.at, agent=held.agent,
        model=edit.model or held.model, asked=turn.asked if turn else "", tool=edit.tool,
        title=title,
    )  # fmt: skip
