"""Publishing: this machine's tasks' logs, and the marks it made, into its own sub-folder.

A log is published by appending the whole lines it gained since the last pass to
`<share>/<id>/sessions/<task>.jsonl` (the logs are append-only, so only what grew is written
and crosses the engine); a published file that is not what was written (an engine replaced
or removed it) or a log rewritten here (scrub) is written again whole, by a temporary file
renamed over it. Tasks the reader brought from other machines are never published again.

Marks (`<share>/<id>/marks.jsonl`, one `Mark` a line, numbered from 1): a name or an archive
a person gave here to another machine's task (a record without `src` in its copy), and the
delete of one of this machine's own tasks (it was deleted here: its tombstone), after which
its published log is removed. Only this machine writes its sub-folder: one writer per file.
"""

import os
from pathlib import Path

import msgspec

from ..log import logfile, records
from ..tasks.store import Store
from . import Machine, ledger

CHUNK = 1 << 20


class Mark(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A change one machine made that every machine applies: a record for a task (a name, an
    archive), or the delete of a task of its own."""

    n: int  # 1, 2, 3, ... in the order this machine made them (its own order, not its clock)
    task: str
    record: records.Known | None = None
    deleted: bool = False


MARKED = (records.SessionTitle, records.SessionArchive)
_mark = msgspec.json.Encoder()


def publish(store: Store, share: Path, me: Machine, peers: set[str]) -> int:
    """Publish this machine's logs and marks; the number of files written."""
    own = share / me.id
    (own / "sessions").mkdir(parents=True, exist_ok=True)
    state_file = ledger.published_file(store.root)
    state = ledger.load(state_file, ledger.Published)
    read_here = ledger.from_share(store.root)
    folded = store.cache.folded()
    written = 0
    marks: list[Mark] = []
    for task, summary in folded.items():
        if task in read_here or summary.ran_on in peers:
            marks += _marks_of(store, task, state)
        elif _publish_log(store.log_path(task), own / "sessions" / f"{task}.jsonl", task, state):
            written += 1
    for task in [t for t in state.logs if t not in folded and store.was_deleted(t)]:
        marks.append(Mark(n=0, task=task, deleted=True))
        (own / "sessions" / f"{task}.jsonl").unlink(missing_ok=True)
        del state.logs[task]
        state.stamps.pop(task, None)
    if marks:
        _append(own / "marks.jsonl", marks, state)
        written += 1
    ledger.save(state_file, state)
    return written


def _marks_of(store: Store, task: str, state: ledger.Published) -> list[Mark]:
    """The names and archives a person gave here to another machine's task since last look."""
    path = store.log_path(task)
    if path.stat().st_size == state.looked.get(task, 0):
        return []  # nothing added since the last look
    found = []
    for _offset, end, record in logfile.read(path, state.looked.get(task, 0)):
        state.looked[task] = end
        if isinstance(record, MARKED) and record.src is None:
            found.append(Mark(n=0, task=task, record=record))
    return found


def _append(path: Path, marks: list[Mark], state: ledger.Published) -> None:
    """Number the marks on from the last one written and append them."""
    lines = []
    for mark in marks:
        state.marks += 1
        mark.n = state.marks
        lines.append(_mark.encode(mark))
    _end_torn(path)
    with open(path, "ab") as handle:
        handle.write(b"\n".join(lines) + b"\n")


def _end_torn(path: Path) -> None:
    """A marks file whose last line a crash cut is ended, so the next line starts whole."""
    try:
        with open(path, "rb") as handle:
            if not handle.seek(0, os.SEEK_END):
                return
            handle.seek(-1, os.SEEK_END)
            torn = handle.read(1) != b"\n"
    except FileNotFoundError:
        return
    if torn:
        with open(path, "ab") as out:
            out.write(b"\n")


def _publish_log(log: Path, target: Path, task: str, state: ledger.Published) -> bool:
    """Bring one published log up to its log's whole lines; True if anything was written."""
    stat = log.stat()
    if state.stamps.get(task) == (stat.st_size, stat.st_mtime_ns, _size(target)):
        return False  # neither the log nor what was published changed since
    written = _bring_up(log, target, task, state)
    state.stamps[task] = (stat.st_size, stat.st_mtime_ns, _size(target))
    return written


def _bring_up(log: Path, target: Path, task: str, state: ledger.Published) -> bool:
    end = whole_end(log)
    done, head = state.logs.get(task, (0, ""))
    if end == done and head == ledger.opening_digest(log, end) and _size(target) == done:
        return False
    if done and done <= end and head == ledger.opening_digest(log, done) and _size(target) == done:
        with open(log, "rb") as source, open(target, "ab") as out:
            source.seek(done)
            _copy(source, out, end - done)
    else:
        tmp = target.with_name(f".{target.name}.nodwyn-tmp")
        with open(log, "rb") as source, open(tmp, "wb") as out:
            _copy(source, out, end)
        os.replace(tmp, target)
    state.logs[task] = (end, ledger.opening_digest(log, end))
    return True


def _copy(source, out, length: int) -> None:
    while length > 0:
        chunk = source.read(min(CHUNK, length))
        if not chunk:
            break
        out.write(chunk)
        length -= len(chunk)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return -1


def whole_end(log: Path) -> int:
    """The offset after a log's last whole line (a torn last line is not published)."""
    with open(log, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        pos = size
        while pos > 0:
            step = min(CHUNK, pos)
            handle.seek(pos - step)
            block = handle.read(step)
            at = block.rfind(b"\n")
            if at >= 0:
                return pos - step + at + 1
            pos -= step
    return 0
