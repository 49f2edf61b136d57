"""The who-wrote MCP tool: which turn wrote lines A-B of a file, answered with that
turn's card, so an agent can recall why before it changes the code.

Under the leave of index-search (toolbox.py): a turn of the calling conversation is always
shown; a turn of an earlier task of the same project only while the person allows it for that
project; another project's turn never (counted, not named). Answers are framed and redacted
as index-search's are.
"""

from pathlib import Path

from ..errors import BadInput
from ..memory.provenance.blame import blame
from .answer import (
    Answer,
    allowed,
    framed,
    leave_refusal,
    refused,
    same_project,
)
from .answer import (
    recall_text as _recall_text,
)

TURNS = 4  # turns one answer shows whole, the most lines first


def who_wrote(toolbox, file: str = "", start: int = 1, end: int | None = None, meta=None) -> Answer:
    from .. import memory

    if not isinstance(file, str) or not file.strip():
        return refused("file is the path of the file (relative to the working folder)")
    if not _line(start) or (end is not None and not _line(end)):
        return refused("start and end are line numbers, 1 or more")
    task = toolbox.this_task(meta)
    project = toolbox.store.get(task).project
    path = Path(file).expanduser()
    try:
        done = blame(
            toolbox.store,
            path if path.is_absolute() else toolbox.cwd / path,
            start,
            end if end is not None else start,
        )
    except BadInput as exc:
        return refused(str(exc))
    counts: dict[int, int] = {}
    for line in done.lines:
        if line.origin is not None:
            counts[line.origin] = counts.get(line.origin, 0) + 1
    shown, hidden, refusal = [], 0, None
    for number in sorted(counts, key=lambda n: -counts[n]):
        origin = done.origins[number]
        if origin.task != task:
            other = toolbox.store.get(origin.task).project
            if not same_project(project, other):
                hidden += 1
                continue
            if not allowed(toolbox.store, project):
                refusal = leave_refusal(project)
                continue
        shown.append((origin, memory.recall(toolbox.store, origin.task, origin.turn_seq)))
    return _answer(done, shown[:TURNS], hidden, refusal, task)


def _line(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _answer(done, shown, hidden: int, refusal: str | None, own: str) -> Answer:
    lines = [
        f"{line.line}: {line.status}"
        + (
            f" · turn {done.origins[line.origin].turn} of {done.origins[line.origin].task}"
            if line.origin is not None
            else ""
        )
        for line in done.lines
    ]
    parts = ["lines:", *(f"  {line}" for line in lines)]
    for origin, found in shown:
        whose = "this conversation" if origin.task == own else f"earlier task {origin.task}"
        parts += [
            "",
            f"{whose} · {origin.agent} · {origin.model} · {origin.tool} at seq {origin.seq}",
            _recall_text(found),
        ]
    if hidden:
        parts.append(f"\n{hidden} turn(s) of another project: not shown here")
    if refusal and not shown:
        return refused(refusal)
    if refusal:
        parts.append(f"\n{refusal}")
    return Answer(text=framed("\n".join(parts)))
