"""Reading the other machines' sub-folders of the shared folder, a source never written.

Each published log is read as the importers read an append-only source: only whole lines after
the bytes already read (a line cut mid-way by a half-finished sync waits for its end), with
hashes of the file's start and of the last line read, so a file replaced under the reader (an
engine renames its temporary copy over it) is read again from the start. Its records go into
this archive's log of the same task id, through the store's writer:

- the first record names the machine it ran on (`Origin.machine`, the folder's id where the
  log left it empty); a log that claims to have run here or on another sharing machine is
  refused;
- a record gets a `src` if it had none (`@<machine>`, its seq there), so every record of the
  log has a key (importers/state.py `key_of`); where a log of that id is not a plain copy of
  this folder's (the same agent session reached another way, here or by SSH, or a file read
  again), only records whose key the log lacks are appended: a session is one task, its
  requests counted once;
- a line longer than MAX_LINE is skipped and reported without being held in memory.

Then the folder's marks are applied (marks.py). Temporary files are passed over, conflict
copies and anything not a task's log reported, never imported.
"""

import os
from pathlib import Path

import msgspec

from ..errors import TaskBusy, TaskNotFound
from ..log import logfile, records
from ..tasks.store import Store
from . import ledger, share, this
from .ledger import Peer, Read

MAX_LINE = 64 << 20  # bytes: a longer line is no record nodwyn writes


class Outcome(msgspec.Struct, kw_only=True):
    """What one pass over another machine's folder did."""

    created: list[str] = []
    extended: list[str] = []
    deleted: list[str] = []
    problems: list[str] = []  # one line each: a name refused, a line skipped
    standing: str = ""  # names refused that are still there, in one line (shown as its error)


def read_machine(store: Store, path: Path, machine: str, sharing: set[str]) -> Outcome:
    """Read one other machine's folder into this archive (`sharing`: every machine id that has
    a sub-folder, this one's included)."""
    from . import marks

    state_file = ledger.peer_file(store.root, machine)
    peer = ledger.load(state_file, Peer)
    outcome = Outcome()
    sessions = path / "sessions"
    names = _names(sessions)
    try:  # what was read is kept however the pass ends (a full disk stops it)
        for name in names:
            kind = share.kind_of(name)
            if kind == "temporary":
                continue
            if kind != "task":
                _refuse(peer, outcome, name, _why(kind))
                continue
            file = sessions / name
            if not share.plain_file(file):
                _refuse(peer, outcome, name, "a link or not a plain file: never followed")
                continue
            _read_log(store, file, name[:-6], machine, sharing, peer, outcome)
        marks.apply(store, path / "marks.jsonl", machine, peer, outcome)
    finally:  # a name refused and gone since is no longer said
        present = set(names)
        peer.refused = {name: why for name, why in peer.refused.items() if name in present}
        ledger.save(state_file, peer)
    if peer.refused:
        name, why = next(iter(peer.refused.items()))
        more = f" (and {len(peer.refused) - 1} more)" if len(peer.refused) > 1 else ""
        outcome.standing = f"{name}: {why}{more}"
    return outcome


def _why(kind: str) -> str:
    if kind == "conflict":
        return "a conflict copy made by the sync engine: not imported (the machine's own log is)"
    return "not a task's log (a task id with .jsonl): not imported"


def _names(sessions: Path) -> list[str]:
    try:
        return sorted(os.listdir(sessions))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _refuse(peer: Peer, outcome: Outcome, name: str, why: str) -> None:
    """Report a refused name the first time it is met (the folder is read every pass)."""
    if peer.refused.get(name) != why:
        peer.refused[name] = why
        outcome.problems.append(f"{name}: {why}")


def _read_log(store, file, task, machine, sharing, peer, outcome) -> None:
    read = peer.logs.get(task)
    stat = file.stat()
    if read is not None and read.stamp == (stat.st_size, stat.st_mtime_ns):
        return  # as it was when read to its end
    fresh = read is None or not ledger.same_prefix(file, read)
    if read is not None and not fresh and os.path.getsize(file) == read.consumed:
        return  # unchanged
    if store.was_deleted(task):
        return  # deleted here (or by its machine's mark): never brought back
    if read is None:
        start = Read()
    else:  # a copy: `read` stays as it was unless the records are written
        start = (
            Read(created=read.created, high=read.high) if fresh else msgspec.structs.replace(read)
        )
    emitted, problems = _records(file, start, machine, sharing)
    if emitted is None:
        _refuse(peer, outcome, f"{task}.jsonl", problems[0])
        return
    # its machine's seqs only grow: what is at or under the highest written is here already
    # (a file replaced by a shorter copy, read again, then grown back)
    high = max((r.seq for r in emitted), default=start.high)
    emitted = [r for r in emitted if r.seq > start.high or isinstance(r, records.SessionStart)]
    outcome.problems += [f"{task}: {p}" for p in problems]
    try:
        moved = start.created and start.last != _last_key(store.log_path(task))
        dedupe = fresh or not start.created or moved
        made = _write(store, task, emitted, start.created, dedupe=dedupe)
    except TaskBusy:
        return  # open in another process here: read again next pass
    if made not in ("", "created", "extended"):
        _refuse(peer, outcome, f"{task}.jsonl", made)
        return
    start.created = start.created or made == "created"
    start.last = _last_key(store.log_path(task))
    start.high = max(start.high, high)
    start.stamp = (stat.st_size, stat.st_mtime_ns) if start.consumed == stat.st_size else (0, 0)
    peer.logs[task] = start
    if made:
        getattr(outcome, made).append(task)


def _last_key(log: Path) -> str:
    """The key of a log's last record as text ("" for none): where the log stood when this
    folder was last read into it. A log that moved past it since (a pass stopped after its
    append, before its state was kept) is matched by key, so nothing is appended twice."""
    from ..importers.state import key_of, key_text

    try:
        found = logfile.last_record(log)
    except (FileNotFoundError, TaskNotFound):
        return ""
    if found is None:
        return ""
    return key_text(key_of(found[1])) or f"seq {found[1].seq}"


def _records(file: Path, read: Read, machine: str, sharing: set[str]):
    """The records after what was read (`read` moved on), each marked as read from `machine`;
    (None, [why]) for a log that claims another machine's task."""
    out: list[records.Known] = []
    problems: list[str] = []
    for offset, end, line in share.whole_lines(file, read.consumed, MAX_LINE):
        read.tail_start, read.consumed = offset, end
        if line is None:
            problems.append(f"line at byte {offset} skipped: longer than {MAX_LINE >> 20} MB")
            continue
        try:
            record = records.decode(line)
        except records.Damaged as exc:
            problems.append(f"line at byte {offset} skipped: {exc}")
            continue
        if isinstance(record, records.SessionStart):
            claimed = record.origin.machine
            if claimed and claimed in sharing:
                return None, [f"claims to have run on machine {claimed}: not imported"]
            origin = msgspec.structs.replace(record.origin, machine=claimed or machine)
            record = msgspec.structs.replace(record, origin=origin)
        if isinstance(record, records.Opaque):
            problems.append(f"a record of kind {record.kind!r} this version cannot keep")
        else:
            out.append(_keyed(record, machine))
    if read.consumed:
        read.opening = ledger.opening_digest(file, read.consumed)
        with open(file, "rb") as handle:
            handle.seek(read.tail_start)
            read.tail = ledger.digest(handle.read(read.consumed - read.tail_start))
    return out, problems


def _keyed(record: records.Known, machine: str) -> records.Known:
    if record.src is not None:
        return record
    return msgspec.structs.replace(record, src=records.Src(file=f"@{machine}", line=record.seq))


def _write(store: Store, task: str, emitted: list, created: bool, dedupe: bool) -> str:
    """Append the records to the task's log (made if new); "created", "extended", "" (nothing
    new) or, for a log here of another kind, why it is not merged."""
    if not emitted:
        return ""
    if not store.log_path(task).exists():
        if not isinstance(emitted[0], records.SessionStart):
            return ""  # its first line has not arrived whole yet
        with store.create(emitted[0], task=task) as writer:
            writer.append(_new(store.root, writer.path, emitted[1:]))
        return "created"
    with store.writer(task) as writer:
        if isinstance(emitted[0], records.SessionStart) and not created:
            why = _unmergeable(writer.path, emitted[0])
            if why:
                return why
        fresh = _new(store.root, writer.path, emitted) if dedupe else emitted
        fresh = [r for r in fresh if not isinstance(r, records.SessionStart)]
        writer.append(fresh)
    return "extended" if fresh else ""


def _unmergeable(log: Path, start: records.SessionStart) -> str:
    """Why a log here of the same id is not the same agent session (so is never merged)."""
    first = next(logfile.read(log), None)
    tool = first[2].origin.tool if first and isinstance(first[2], records.SessionStart) else ""
    if tool == "nodwyn" or tool != start.origin.tool:
        return "a task of this id here is another one: not merged into it"
    return ""


def _new(root: Path, log: Path, emitted: list) -> list:
    """The records whose key the log lacks; a record made here (no src) is keyed as this
    machine's, as other machines key it when they read it (`@<id>`, its seq)."""
    from ..importers.state import key_of

    mine = f"@{this(root).id}"
    keys = set()
    for _offset, _end, record in logfile.read(log):
        keys.add(key_of(record) or (mine, record.seq, None, records.kind_of(record)))
    return [record for record in emitted if key_of(record) not in keys]
