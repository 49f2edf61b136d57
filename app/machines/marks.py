"""Applying another machine's marks (publish.py's `Mark`): its names, archives and deletes.

A name or an archive reaches the task whichever machine it ran on; it is appended to the
task's log here as that machine's record (`src` `@<machine>`, `mark:<n>`), once. A mark for a
task not here yet waits in the reader's state until its log arrives. A delete is applied only
when the task is that machine's own (its log here was read from its folder, or it ran there):
a mark that would delete another machine's task is reported and ignored. A task leaves this
archive only by such a record, never because a file went missing.
"""

from pathlib import Path

import msgspec

from ..errors import TaskBusy
from ..log import records
from ..tasks.catalogue import TITLE_MAX
from ..tasks.store import Store
from . import share
from .ledger import Peer
from .publish import Mark

_decoder = msgspec.json.Decoder(Mark)
LONGEST = 256 << 10  # bytes: a mark holds a name or an archive flag, never more


def apply(store: Store, path: Path, machine: str, peer: Peer, outcome) -> None:
    """Apply the marks added to `path` since the last pass, and those still waiting."""
    waiting = [_decoder.decode(raw) for raw in peer.waiting]
    fresh = list(_read(path, peer, outcome))
    peer.waiting = []
    for mark in waiting + fresh:
        if store.was_deleted(mark.task):
            continue
        if mark.deleted:
            _delete(store, mark, machine, peer, outcome)
        elif not store.log_path(mark.task).exists():
            peer.waiting.append(msgspec.json.encode(mark))
        else:
            try:
                _record(store, mark, machine)
            except TaskBusy:
                peer.waiting.append(msgspec.json.encode(mark))


def _read(path: Path, peer: Peer, outcome):
    """The whole lines after `peer.marks` as marks (a line cut by a half sync waits; a line
    longer than any mark is passed over unread)."""
    if not share.plain_file(path):
        return
    for offset, end, line in share.whole_lines(path, peer.marks, LONGEST):
        peer.marks = end
        try:
            if line is None:
                raise msgspec.DecodeError(f"longer than {LONGEST >> 10} KB")
            yield _decoder.decode(line)
        except msgspec.MsgspecError as exc:
            outcome.problems.append(f"marks.jsonl: the line at byte {offset} skipped ({exc})")


def _record(store: Store, mark: Mark, machine: str) -> None:
    """Append a mark's record to the task's log unless it is there already."""
    if not isinstance(mark.record, records.SessionTitle | records.SessionArchive):
        return
    src = records.Src(file=f"@{machine}", id=f"mark:{mark.n}")
    record = mark.record
    if isinstance(record, records.SessionTitle):  # one line, as long as a name may be
        record = msgspec.structs.replace(record, title=" ".join(record.title.split())[:TITLE_MAX])
    with store.writer(mark.task) as writer:
        from ..log import logfile

        if any(getattr(r, "src", None) == src for _o, _e, r in logfile.read(writer.path)):
            return
        writer.append([msgspec.structs.replace(record, src=src, seq=0)])


def _delete(store: Store, mark: Mark, machine: str, peer: Peer, outcome) -> None:
    task = mark.task
    if store.log_path(task).exists():
        theirs = store.cache.summary(task).ran_on == machine
    else:  # a task not read yet: theirs if their folder held its log
        theirs = task in peer.logs
    if not theirs:
        outcome.problems.append(
            f"marks.jsonl: would delete task {task}, which is not that machine's: ignored"
        )
        return
    try:
        store.remove(task)
    except TaskBusy:
        peer.waiting.append(msgspec.json.encode(mark))
        return
    peer.logs.pop(task, None)
    outcome.deleted.append(task)
