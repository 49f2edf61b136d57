"""`nodwyn blame FILE` and `nodwyn commit SHA`: the turn that wrote each line of
a file, and the turns that made a commit, from the logs checked against git where there is one.
A turn is named as people count a task's turns (its 1st, 2nd...: `nodwyn sessions`' count);
the record number is in --json only, beside it (turn_seq)."""

import re
import sys
from pathlib import Path

from .console import store

RANGE = re.compile(r"^(\d+)?,(\d+)?$|^(\d+)$")


def add_provenance(sub) -> None:
    cmd = sub.add_parser("blame", help="the turn that wrote each line of a file")
    cmd.add_argument("file")
    cmd.add_argument("-L", dest="lines", metavar="START,END", help="only these lines (1-based)")
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_blame)

    cmd = sub.add_parser("commit", help="the turn that made a commit")
    cmd.add_argument("sha")
    cmd.add_argument("-C", dest="folder", default=".", help="the repository (default: here)")
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_commit)


def line_range(text: str | None) -> tuple[int, int | None]:
    from ..errors import BadInput

    if not text:
        return 1, None
    found = RANGE.match(text.strip())
    if not found:
        raise BadInput(f"-L takes START,END (line numbers), not {text!r}")
    if found[3]:
        return int(found[3]), int(found[3])
    return int(found[1] or 1), int(found[2]) if found[2] else None


def cmd_blame(args) -> int:
    import msgspec

    from ..memory.provenance.blame import blame

    first, last = line_range(args.lines)
    done = blame(store(args), Path(args.file), first, last)
    if args.json:
        sys.stdout.write(msgspec.json.encode(done).decode() + "\n")
        return 0
    for line in blame_lines(done):
        print(line)
    return 0


def blame_lines(done) -> list[str]:
    """git blame's shape: who (task:turn, agent, day) then the line's number and its text;
    a run of lines from one turn names it once, in full, above the run."""
    out, before = [], None
    width = len(str(done.lines[-1].line)) if done.lines else 1
    for line in done.lines:
        origin = done.origins[line.origin] if line.origin is not None else None
        if origin is not None and line.origin != before:
            out.append(
                f"── {origin.task} {ordinal(origin.turn)} turn · {origin.agent} · "
                f"{origin.model} · {origin.at} · {origin.tool} · asked {origin.asked!r}"
            )
        before = line.origin
        who = "not from a session" if origin is None else f"{origin.task[:8]}:{origin.turn}"
        if line.status == "changed since":
            who += " changed since"
        elif line.status == "changed by":
            who = f"changed by {who}"
        out.append(f"{who:<28} {line.line:>{width}}) {line.text}")
    if not done.edits:
        out.append(f"(no session's edit names {done.file})")
    elif not done.git:
        out.append("(no git history for this file: the answer rests on the logs alone)")
    return out


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th... 11th, 12th, 13th, 21st."""
    if n < 1:
        return "a"
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


def cmd_commit(args) -> int:
    import msgspec

    from ..memory.provenance.commits import find

    folder = Path(args.folder)
    answer = find(
        store(args), args.sha, folder if (folder / ".git").exists() or _in_git(folder) else None
    )
    if args.json:
        sys.stdout.write(msgspec.json.encode(answer).decode() + "\n")
        return 0
    if not answer.found:
        print(f"{answer.sha}: no session's edit is among its lines.")
        return 1
    for found in answer.found:
        o = found.origin
        held = f"{found.lines} of its lines in " if found.lines else ""
        files = f" · {held}{', '.join(found.files)}" if found.files else ""
        print(
            f"{found.sha[:12]} · {o.task} {ordinal(o.turn)} turn ({found.how}) · {o.agent} · "
            f"{o.model} · {o.at} · asked {o.asked!r}{files}"
        )
    return 0


def _in_git(folder: Path) -> bool:
    return any((place / ".git").exists() for place in folder.resolve().parents)
