"""Which turn wrote each line of a file: the file's edits, from every log,
replayed in time order over line keys, set against the file as it is, and checked with git.

Replay: a Write (or apply_patch's Add) sets the file's lines; a line it repeats unchanged keeps
the edit that put it there, as git blame keeps a line's commit. An update's hunk is found in
the lines so far by its old lines (context and removed) and replaced by its new ones. Where no
Write was seen, the lines git dates before the first edit are the text it starts from (the
file as the session saw it, as far as it survives). The replayed lines are matched to the
file's own by difflib: an equal run keeps the edit that wrote each line; a line in a replaced
run is "changed since" that edit. A hunk the replay could not place is looked for where it
stands in the file (`anchored`): never by one short or common line alone. A line changed inside
is "changed by" its edit (fragments.py). Failed edits never count. ADR 0040 has the figures.

Git (repository.py, checking.py): one `git blame -w` gives each line's commit time and the
paths the file had; a claim on a line committed before its edit is taken back; at a checkout
whose lines are all committed, no edit made after the newest of those commits is replayed;
the file's former paths bring their edits. Without git the answer rests on the logs alone and
says so.

Paths: an edit names the file on its own machine. It is the file asked about when the path is
the same, or when its path inside its log's folder (or one up to UP folders above it) is the
file's path inside a folder of the same name here. Moves (`git mv`, `mv`, apply_patch's `Move
to`) carry the history of the old path over.
"""

import difflib
import stat
from pathlib import Path

from msgspec import Struct

from ...errors import BadInput
from . import checking, checkouts, fragments, ledgers, repository, versions
from .ledger import Edit, key

NONE = -1  # a replayed line no edit wrote
LONE = 12  # characters a line alone needs to be matched by its text
WEAK = 3  # characters (white space collapsed) under which a line is matched only beside others
DEPTH = 4  # moves followed back
UP = 3  # folders above a log's folder its edits' paths may be inside
LIMIT = 8_000_000  # bytes: a larger file is refused (a source file is far smaller)


class Origin(Struct, frozen=True, kw_only=True):
    """The turn one edit was made in."""

    task: str
    turn: int  # the task's 1st, 2nd... turn, as `nodwyn sessions` counts them
    turn_seq: int  # the record number of the turn's prompt
    seq: int
    at: str
    agent: str
    model: str
    asked: str
    tool: str
    title: str = ""


class Line(Struct, frozen=True, kw_only=True):
    line: int
    status: str  # "session" / "changed by" / "changed since" / "not from a session"
    origin: int | None = None  # index into Blame.origins
    text: str = ""


class Blame(Struct, frozen=True, kw_only=True):
    file: str
    lines: list[Line]
    origins: list[Origin]
    edits: int  # edits of the file found (failed ones left out)
    git: bool = False  # whether git dated the lines (else the answer rests on the logs alone)


class Target(Struct, frozen=True):
    path: str  # absolute, with "/"
    roots: tuple[str, ...]  # the known project folders holding the file


def target_of(path: Path, projects: list[str]) -> Target:
    path = path.resolve()
    text = path.as_posix()
    roots = [p for p in projects if text.startswith(p.rstrip("/") + "/")]
    return Target(path=text, roots=tuple(dict.fromkeys(roots)))


def names(edit_path: str, project: str, target: Target, book=None) -> bool:
    """Whether an edit's path (on its log's machine, `project` its folder) is the target: the
    same path, or the same path inside a folder of the same name as the log's folder or one
    above it (a session started in `vsla/build` edits `vsla/src/x.c`), or inside a folder of
    another name whose git history holds the text the project's edits found there (a checkout
    under another name: checkouts.py, where `book` is given). A repository elsewhere that
    merely holds the same relative path is another project."""
    if edit_path == target.path:
        return True
    base = project.replace("\\", "/").rstrip("/")
    for _ in range(UP):
        if not base:
            return False
        if edit_path.startswith(base + "/"):
            inside = edit_path[len(base) + 1 :]
            if target.path.endswith("/" + inside):
                here = target.path[: -len(inside) - 1]
                if ledgers.name_of(here) == ledgers.name_of(base):
                    return True
                return book is not None and checkouts.same(book, project, base, Path(here))
        base = base.rsplit("/", 1)[0] if "/" in base else ""
    return False


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
                if names(edit.path, project, want, book) and (before is None or edit.at <= before):
                    found.append((task, edit))
            for task, move in book.moves.get(name, ()):
                project = book.ledgers[task][1].project
                if names(move.dst, project, want, book) and (before is None or move.at <= before):
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


def replay(edits: list[Edit], base: list[int] | None = None) -> tuple[list[int], list[int]]:
    """The file's line keys as the edits leave it, and the edit (index) each line is from
    (NONE: a line of `base`, the file as git dates it before the first edit). A Write that
    repeats a line unchanged leaves it the edit that put it there, as git blame does."""
    state: list[int] | None = list(base) if base else None
    origins: list[int] = [NONE] * len(state or ())
    for number, edit in enumerate(edits):
        if edit.op in ("write", "add"):
            keys = [k for h in edit.hunks for m, k in zip(h.marks, h.keys, strict=True) if m != "-"]
            origins = _kept(state or [], origins, keys, number)
            state = keys
        elif edit.op == "delete":
            state, origins = [], []
        elif state is not None:
            for hunk in edit.hunks:
                placed = _apply(state, origins, hunk, number)
                while placed and edit.every:
                    placed = _apply(state, origins, hunk, number)
    return state or [], origins


def _kept(state: list[int], origins: list[int], keys: list[int], number: int) -> list[int]:
    made = [number] * len(keys)
    if not state:
        return made
    matcher = difflib.SequenceMatcher(None, state, keys, autojunk=False)
    for op, i1, _, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            made[j1:j2] = origins[i1 : i1 + j2 - j1]
    return made


def attribute(lines: list[str], edits: list[Edit], base=None) -> list[tuple[str, int | None]]:
    """(status, edit index) for each line of the file as it is."""
    keys = [key(line) for line in lines]
    state, origins = replay(edits, base)
    found = anchored(lines, keys, edits)
    out: list[tuple[str, int | None]] = [("not from a session", None)] * len(lines)
    matcher = difflib.SequenceMatcher(None, state, keys, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            if op == "equal" and origins[i1 + j - j1] != NONE:
                out[j] = ("session", origins[i1 + j - j1])
            elif op == "equal":
                continue
            elif j in found:
                out[j] = ("session", found[j])
            elif op == "replace" and origins[min(i1 + j - j1, i2 - 1)] != NONE:
                out[j] = ("changed since", origins[min(i1 + j - j1, i2 - 1)])
    return out


def anchored(lines: list[str], keys: list[int], edits: list[Edit]) -> dict[int, int]:
    """Lines of the file an edit's hunk put there, found where the replay could not place the
    hunk: the hunk's lines as it left them (context and added) standing together in the file,
    else each run of its added lines found once in the file, else one added line whose text is
    long enough and found once. A line matched by its text alone, anywhere, is not enough: a
    `return 0;` an edit added is not every `return 0;` of the file. The latest edit wins."""
    where: dict[int, list[int]] = {}
    for j, k in enumerate(keys):
        where.setdefault(k, []).append(j)
    out: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(keys)  # indexed once: each hunk is set against it
    for number, edit in enumerate(edits):
        for hunk in edit.hunks:
            new = [(m, k) for m, k in zip(hunk.marks, hunk.keys, strict=True) if m != "-"]
            if "+" not in hunk.marks:
                continue
            at = _once(keys, where, [k for _, k in new]) if len(new) > 1 else -1
            if at >= 0:
                out.update({at + i: number for i, (m, _) in enumerate(new) if m == "+"})
                continue
            blocks = _blocks(matcher, [k for _, k in new])
            strong = [_strong(lines, keys, where, b, size) for _, b, size in blocks]
            for n, (a, b, size) in enumerate(blocks):
                if strong[n] or (any(strong[:n]) and any(strong[n + 1 :])):
                    out.update({b + i: number for i in range(size) if new[a + i][0] == "+"})
    return out


def _strong(lines: list[str], keys: list[int], where: dict, at: int, size: int) -> bool:
    """Whether a run of the file found in a hunk names it alone: three lines or more with one
    long line, or long lines each found once in the file. A weaker run counts only between two
    strong ones of the same hunk."""
    long = [j for j in range(at, at + size) if _long(lines[j])]
    return bool(long) and (size > 2 or all(len(where[keys[j]]) == 1 for j in long))


def _long(line: str) -> bool:
    return len(" ".join(line.split())) >= LONE


def _blocks(matcher, new: list[int]) -> list[tuple[int, int, int]]:
    """Runs of the hunk's lines found in the same order in the file (difflib's matching
    blocks: hunk line, file line, length)."""
    matcher.set_seq1(new)
    return [block for block in matcher.get_matching_blocks() if block.size]


def _once(keys: list[int], where: dict[int, list[int]], run: list[int]) -> int:
    """Where `run` stands in `keys` when it stands there exactly once, else -1."""
    found = [j for j in where.get(run[0], ()) if keys[j : j + len(run)] == run]
    return found[0] if len(found) == 1 else -1


def read(path: Path) -> list[str]:
    """The file's lines; anything but a text file up to LIMIT refused in one line, by what
    `stat` and its first bytes say, before it is read."""
    try:
        seen = path.stat()
    except FileNotFoundError:
        raise BadInput(f"no file {path}") from None
    except OSError as exc:
        raise BadInput(f"{path} cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(seen.st_mode):
        raise BadInput(f"{path} is a folder: blame takes a file")
    if not stat.S_ISREG(seen.st_mode):
        raise BadInput(f"{path} is not a regular file (a device, a pipe or a socket)")
    if seen.st_size > LIMIT:
        raise BadInput(
            f"{path} is {seen.st_size / 1e6:.0f} MB: blame reads files up to "
            f"{LIMIT // 1_000_000} MB"
        )
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
            if _binary(head):
                raise BadInput(f"{path} is a binary file: blame takes text")
            data = head + handle.read(LIMIT)
    except OSError as exc:
        raise BadInput(f"{path} cannot be read: {exc.strerror}") from None
    return data.decode("utf-8", errors="replace").splitlines()


def _binary(head: bytes) -> bool:
    """A NUL, or more than one byte in a hundred that is no UTF-8 text (a PDF, an image)."""
    if b"\0" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    return text.count("\ufffd") > max(len(text) // 100, 1)


def blame(store, path: Path, first: int = 1, last: int | None = None) -> Blame:
    """Who wrote lines first..last (1-based, inclusive) of the file at `path`."""
    lines = read(path)
    last = len(lines) if last is None else min(last, len(lines))
    if first < 1 or (lines and first > last):
        raise BadInput(f"lines {first},{last} are not in {path} ({len(lines)} lines)")
    book = ledgers.book(store)
    projects = sorted({held.project for _, held in book.ledgers.values() if held.project})
    dates = repository.dated(path.resolve())
    if dates is not None and len(dates.times) != len(lines):
        dates = None
    found = edits_of(book, path, projects, dates)
    done = _answer(store, found, lines, dates)
    if dates is not None and found:
        versions.carried(
            path.resolve(),
            dates,
            lines,
            done,
            found,
            lambda then, at: _answer(store, found, then, at),
        )
        checking.dated(done, lines, [edit for _, edit in found], dates.times)
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
    return Blame(
        file=str(path), lines=out, origins=origins, edits=len(found), git=dates is not None
    )


def _answer(store, found: list[tuple[str, Edit]], lines: list[str], dates) -> list:
    """(status, edit index) for each of `lines`, checked against git where `dates` is given."""
    edits = [edit for _, edit in found]
    done = attribute(lines, edits, _base(lines, edits, dates))
    if dates is not None:
        checking.dated(done, lines, edits, dates.times)
        fragments.changed(store, found, lines, [key(line) for line in lines], done, dates.times)
    return done


def edits_of(book, path: Path, projects: list[str], dates) -> list[tuple[str, Edit]]:
    """The file's successful edits, and those of the paths git says it had, oldest first;
    where every line is committed, none made after the newest of those commits (an older
    checkout is not blamed on edits it does not hold)."""
    target = target_of(path, projects)
    targets = [target]
    if dates is not None and dates.top:
        top = Path(dates.top)
        targets += [target_of(top / name, projects) for name in dates.paths]
    found = {}
    for each in dict.fromkeys(targets):
        for task, edit in history(book, each):
            if edit.ok:
                found[(task, edit.seq, edit.call, edit.path)] = (task, edit)
    ordered = sorted(found.values(), key=lambda pair: (pair[1].at, pair[0], pair[1].seq))
    if dates is None or not dates.times or None in dates.times:
        return ordered
    cutoff = max(dates.times) + checking.SLACK
    return [(task, edit) for task, edit in ordered if checking.epoch(edit.at) <= cutoff]


def _base(lines: list[str], edits: list[Edit], dates) -> list[int] | None:
    """The lines git dates before the file's first edit (it saw them), where that edit does
    not write the whole file: the text its hunks are found in."""
    if dates is None or not edits or edits[0].op in ("write", "add"):
        return None
    first = checking.epoch(edits[0].at) - checking.SLACK
    return [
        key(line)
        for line, at in zip(lines, dates.times, strict=True)
        if at is not None and at < first
    ]


def _titles(store) -> dict:
    """Task titles as the word index last saw them (no log read: a task's own title would
    fold its whole log)."""
    from ..words import index

    state = index.load_state(store.root, shared=True)
    return {task: seen.title for task, seen in state.tasks.items()} if state else {}


def origin_of(store, book, task: str, edit: Edit) -> Origin:
    held = book.ledgers[task][1]
    number = next((n for n, t in enumerate(held.turns) if t.seq == edit.turn), -1)
    turn = held.turns[number] if number >= 0 else None
    title = _titles(store).get(task, "")
    return Origin(
        task=task,
        turn=number + 1,
        turn_seq=edit.turn,
        seq=edit.seq,
        at=edit.at,
        agent=held.agent,
        model=edit.model or held.model,
        asked=turn.asked if turn else "",
        tool=edit.tool,
        title=title,
    )
