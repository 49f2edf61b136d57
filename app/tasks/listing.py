"""The catalogue file's format, and the fast path of a listing that needs nothing else.

The catalogue (`<data>/catalogue.jsonl`) is derived from the logs (see catalogue.py). Four
parts, each on its own line(s); JSON escapes every control character, so no value holds a
newline:

    line 1  {"nodwyn-catalogue":7,"running_from":T,"unarchived":N}
    line 2  "ID SIZE MTIME_NS" of every log, sorted, tab-separated: the stamps
    line 3  {ID: [last_at, archived, state]}, in the rows' order
    then    one row per log, as a list shows it (JSON): unarchived tasks, newest activity
            first, then archived ones, newest first; N is the unarchived rows' length in bytes

A row's `state` is as of writing. Where it depends on when the list is made (an imported task
is "running" for a few minutes after its last activity) `state` on line 3 is empty and
`running_from` is the oldest last activity among rows written as running: once running_since()
passes it, such a row must turn to "closed" and the fast path steps aside.

So `nodwyn sessions --json` on a current catalogue reads one file, stats every log, compares
one line of text with the stamps made from those stats, and prints a slice of the file as it
is: no per-task decoding. The fold's state of each log, needed only to fold on when a log grew,
is kept apart in `catalogue.fold` (catalogue.py).
"""

import os
import time

# json, contextlib and threading are imported where they are used: a listing from a current
# catalogue (fast_json) needs none of them, and a process that lists starts sooner without.

FILE = "catalogue.jsonl"
OLD_FILES = ("catalogue.tsv",)  # earlier formats' names, removed when a catalogue is written
VERSION = 7  # 7: rows say the machine a task ran on (ran_on)
PREFIX = f'{{"nodwyn-catalogue":{VERSION},'
RUNNING_FOR = 300  # seconds an imported task counts as running after its last activity

# Fields of an entry (the value of read()'s dict, by task id).
SIZE, MTIME, LAST_AT, ARCHIVED, STATE, ROW = range(6)


def read(file: str | os.PathLike) -> dict[str, list] | None:
    """The catalogue's entries by task id, in file order; None when missing, damaged or old."""
    data = _bytes(file)
    if data is None:
        return None
    import json

    try:
        lines = data[:-1].decode().split("\n")
        header, info = _header(lines[0].encode()), json.loads(lines[2])
        stamps = {}
        for stamp in lines[1].split("\t") if lines[1] else ():
            task, size, mtime = stamp.rsplit(" ", 2)
            stamps[task] = [int(size), int(mtime)]
        rows = lines[3:]
        if header["nodwyn-catalogue"] != VERSION or not len(rows) == len(info) == len(stamps):
            return None
        if not isinstance(header["unarchived"], int) or header["unarchived"] != sum(
            len(row.encode()) + 1
            for row, fields in zip(rows, info.values(), strict=True)
            if not fields[1]  # archived
        ):
            return None
        return {
            task: [*stamps[task], *fields, row]
            for (task, fields), row in zip(info.items(), rows, strict=True)
        }
    except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError):
        return None


def write(file: str | os.PathLike, entries: dict[str, list]) -> None:
    """Write the catalogue atomically (a temporary file renamed into place); entries in any
    order, each row's state worked out for now."""
    since = running_since()
    ordered = list(in_order(entries).items())
    rows = [row_json(fields, since).encode() for _task, fields in ordered]
    running = [f[LAST_AT] for _t, f in ordered if not f[STATE] and f[LAST_AT] > since]
    unarchived = sum(
        len(row) + 1 for row, (_t, f) in zip(rows, ordered, strict=True) if not f[ARCHIVED]
    )
    header = {
        "nodwyn-catalogue": VERSION,
        "running_from": _plain_time(min(running, default=None)),
        "unarchived": unarchived,
    }
    stamps = _stamp_line((task, f[SIZE], f[MTIME]) for task, f in ordered)
    info = {task: [f[LAST_AT], f[ARCHIVED], f[STATE]] for task, f in ordered}
    lines = [_dumps(header).encode(), stamps.encode(), _dumps(info).encode(), *rows]
    import contextlib
    import threading

    # one name per thread too: the API lists tasks from several request threads at once
    tmp = f"{os.fspath(file)}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(b"\n".join(lines) + b"\n")
        os.replace(tmp, file)
    except PermissionError:  # Windows: another process is reading it; a later list writes it
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    except BaseException:  # no room: nothing left behind, the caller says it is unsaved
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    for name in OLD_FILES:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(os.path.dirname(os.fspath(file)), name))


def in_order(entries: dict[str, list]) -> dict[str, list]:
    """Entries in the file's order: unarchived tasks, newest activity first, then archived ones."""
    return dict(sorted(entries.items(), key=_by_block, reverse=True))


def stats(sessions: str | os.PathLike) -> dict[str, os.stat_result]:
    """Every log's stat, by task id (a name with a tab or newline, or one that is not UTF-8, is
    no task's and is left out)."""
    return dict(_stat_each(sessions))


def stamps(sessions: str | os.PathLike) -> bytes:
    """Line 2 of a catalogue that speaks for the logs as they are now; each log's stat is let
    go once read (at thousands of logs, keeping them all was megabytes of fresh memory)."""
    found = ((task, stat.st_size, stat.st_mtime_ns) for task, stat in _stat_each(sessions))
    return _stamp_line(found).encode()


def _stat_each(sessions: str | os.PathLike):
    """(task id, stat) of every log. Where the system can, the folder is read by a descriptor,
    so that each log is stat'ed by its name in it rather than by its whole path."""
    fd = os.open(sessions, os.O_RDONLY) if os.scandir in os.supports_fd else None
    try:
        with os.scandir(sessions if fd is None else fd) as items:
            for item in items:
                name = item.name
                if not name.endswith(".jsonl") or "\t" in name or "\n" in name:
                    continue
                if not name.isascii() and not _utf8(name):
                    continue  # undecodable bytes in its name (os gave surrogates): no task's
                try:
                    yield name[:-6], item.stat()
                except FileNotFoundError:
                    continue  # deleted between listing and stat
    finally:
        if fd is not None:
            os.close(fd)


def _stamp_line(stamps) -> str:
    """(task, size, mtime_ns) of each log as line 2 holds them: "ID SIZE MTIME_NS", sorted,
    tab-separated."""
    return "\t".join(sorted(f"{task} {size} {mtime}" for task, size, mtime in stamps))


def current(entries: dict[str, list], found: dict[str, os.stat_result]) -> bool:
    """Whether the catalogue speaks for exactly these logs, each unchanged since."""
    if entries.keys() != found.keys():
        return False
    return all(
        entries[task][MTIME] == stat.st_mtime_ns and entries[task][SIZE] == stat.st_size
        for task, stat in found.items()
    )


def stale(entries: dict[str, list], since: str) -> bool:
    """Whether a row written as "running" has since gone quiet (its state must be rewritten)."""
    return any(
        not f[STATE] and f[LAST_AT] <= since and '"state":"running"' in f[ROW]
        for f in entries.values()
    )


def row_json(fields: list, since: str) -> str:
    """An entry's row with its state worked out for a list made now (`since`: running_since())."""
    row = fields[ROW]
    if fields[STATE]:
        return row  # a state that does not depend on the time is in the row as written
    now, was = ("running", "closed") if fields[LAST_AT] > since else ("closed", "running")
    return row.replace(f'"state":"{was}"', f'"state":"{now}"', 1)


def running_since() -> str:
    """The time before which an imported task counts as no longer running."""
    moment = time.time() - RUNNING_FOR  # as logs write times: RFC 3339 UTC, milliseconds
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{int(moment % 1 * 1000):03d}Z"
    )


def with_live(rows: str, live: dict[str, dict], guess=None) -> str:
    """A listing (a JSON array of rows) with each live task's state as its agent last said it
    ("needs an answer", "running", "your turn") and what it asks under `live`; `guess(task)`
    gives a running row's state from its log where no hook said one. Where the task list
    groups its rows by state, this is the one place a row's state is chosen."""
    if not live and (guess is None or '"state":"running"' not in rows):
        return rows
    import json

    listed = json.loads(rows)
    for row in listed:
        said = live.get(row.get("id"))
        if said is None and guess is not None and row.get("state") == "running":
            said = guess(row.get("id"))
        if said is not None and not row.get("archived"):
            row["state"], row["live"] = said["state"], said
    return _dumps(listed)


def parse_time(at: str):
    """A log's time as an aware datetime (an unreadable one: the earliest there is)."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def select(entries: dict[str, list], archived: bool | None) -> list[list]:
    """Entries, newest activity first; archived=None: archived and unarchived alike."""
    if archived is None:
        return [fields for _task, fields in sorted(entries.items(), key=_newest, reverse=True)]
    return [fields for fields in entries.values() if fields[ARCHIVED] == archived]


def of_machine(rows: list[dict], machine: str) -> list[dict]:
    """The rows of the tasks that ran on `machine` (its id; "" for this data directory's own)."""
    return [row for row in rows if row.get("ran_on", "") == machine]


def machine_names(rows: list[dict], root: str | os.PathLike) -> dict[str, str] | None:
    """The name of each machine the rows ran on, or None when they all ran on this one (a list
    names the machine only where the archive holds more than one)."""
    if not any(row.get("ran_on") for row in rows):
        return None
    from pathlib import Path

    from .. import machines

    return machines.names(Path(root))


def fast_json(root: str | os.PathLike, archived: bool | None) -> bytes | None:
    """The listing as a JSON array (UTF-8) when the catalogue is current and its states still
    hold, else None (the caller folds first). Bytes throughout: the rows are printed as read."""
    data = _bytes(os.path.join(root, FILE))
    if data is None:
        return None
    try:
        header_end = data.index(b"\n")
        stamps_end = data.index(b"\n", header_end + 1)
        rows_at = data.index(b"\n", stamps_end + 1) + 1
        header = _header(data[:header_end])
        split = rows_at + header["unarchived"]
        running_from = header["running_from"]
    except (ValueError, KeyError, TypeError):
        return None
    if running_from is not None and running_since() >= running_from:
        return None
    if memoryview(data)[header_end + 1 : stamps_end] != stamps(os.path.join(root, "sessions")):
        return None
    if archived is None and split < len(data):
        return _merged(data, stamps_end, rows_at)
    rows = memoryview(data)[split:-1] if archived else memoryview(data)[rows_at : split - 1]
    return b"".join((b"[", rows, b"]")).replace(b"\n", b",")  # no copy of the rows but these


def _merged(data: bytes, stamps_end: int, rows_at: int) -> bytes:
    """Archived and unarchived rows as one list, newest activity first."""
    import json

    info = json.loads(data[stamps_end + 1 : rows_at - 1])
    rows = data[rows_at:-1].split(b"\n")
    keys = [(fields[0], task) for task, fields in info.items()]
    order = sorted(range(len(rows)), key=keys.__getitem__, reverse=True)
    return b"[" + b",".join([rows[n] for n in order]) + b"]"


def _plain_time(at: str | None) -> str | None:
    """A time as the header may hold it. A log's odd time (a comma, a quote, not ASCII) becomes
    "", which every time passes: the fast path steps aside while that row is running."""
    if at is None or (at.isascii() and not any(c in at for c in ',"\\')):
        return at
    return ""


def _header(line: bytes) -> dict:
    """Line 1, read without a JSON parser: its shape is fixed (see above), its values are
    whole numbers, null, or times (no comma, no quote). ValueError when it is not that."""
    text = line.decode("ascii")
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError("not a catalogue header")
    header = {}
    for item in text[1:-1].split(","):
        key, _, value = item.partition(":")
        if value == "null":
            header[key.strip('"')] = None
        elif key == '"running_from"' and value.startswith('"') and value.endswith('"'):
            header[key.strip('"')] = value[1:-1]
        else:
            header[key.strip('"')] = int(value)
    return header


def _bytes(file: str | os.PathLike) -> bytes | None:
    try:
        with open(file, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    return data if data.startswith(PREFIX.encode()) and data.endswith(b"\n") else None


def _utf8(name: str) -> bool:
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def _newest(item: tuple[str, list]) -> tuple[str, str]:
    """Sort key, for reverse=True: newest activity first, then the greater id."""
    task, fields = item
    return fields[LAST_AT], task


def _by_block(item: tuple[str, list]) -> tuple[bool, str, str]:
    """Sort key, for reverse=True: unarchived before archived, then as _newest."""
    return (not item[1][ARCHIVED], *_newest(item))


def _dumps(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
