"""The catalogue file's format, and the fast path of a listing that needs nothing else.

The catalogue (`<data>/catalogue.tsv`) is derived from the logs (see catalogue.py). It is text:
a header line naming the format, then one line per log, newest activity first:

    id  size  mtime_ns  last_at  archived(0/1)  state  row      (tab-separated)

`row` is the task as a list shows it, JSON with its state left empty. JSON escapes every
control character, so a row holds no tab or newline. The fold's state of each log, needed
only to fold on when a log grew, is kept apart in `catalogue.fold` (catalogue.py).
`state` is empty where it depends on when the list is made (an imported task is "running" for
a few minutes after its last activity).

This module imports only the standard library's lightest parts, so `nodwyn sessions --json`
on a current catalogue costs a read, a stat per log and a join, with no decoding library loaded.
"""

import os
import threading
from datetime import UTC, datetime, timedelta

HEADER = "nodwyn-catalogue 5\n"

FILE = "catalogue.tsv"
RUNNING_FOR = timedelta(minutes=5)

# Fields of a line, after the id.
SIZE, MTIME, LAST_AT, ARCHIVED, STATE, ROW = range(6)


def read(file: str | os.PathLike) -> dict[str, list[str]] | None:
    """The catalogue's lines by task id, in file order; None when missing, damaged or old."""
    try:
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    if not text.startswith(HEADER) or not text.endswith("\n"):
        return None
    entries = {}
    for line in text[len(HEADER) : -1].split("\n") if len(text) > len(HEADER) else ():
        fields = line.split("\t")
        if len(fields) != 7:
            return None
        entries[fields[0]] = fields[1:]
    return entries


def write(file: str | os.PathLike, entries: dict[str, list[str]]) -> None:
    """Write the catalogue atomically (a temporary file renamed into place)."""
    lines = [HEADER] + [task + "\t" + "\t".join(fields) + "\n" for task, fields in entries.items()]
    # one name per thread too: the API lists tasks from several request threads at once
    tmp = f"{os.fspath(file)}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write("".join(lines))
    os.replace(tmp, file)


def stats(sessions: str | os.PathLike) -> dict[str, os.stat_result]:
    """Every log's stat, by task id."""
    found = {}
    with os.scandir(sessions) as items:
        for item in items:
            if item.name.endswith(".jsonl"):
                try:
                    found[item.name[:-6]] = item.stat()
                except FileNotFoundError:
                    continue  # deleted between listing and stat
    return found


def current(entries: dict[str, list[str]], found: dict[str, os.stat_result]) -> bool:
    """Whether the catalogue speaks for exactly these logs, each unchanged since."""
    if entries.keys() != found.keys():
        return False
    for task, stat in found.items():
        fields = entries[task]
        if fields[MTIME] != str(stat.st_mtime_ns) or fields[SIZE] != str(stat.st_size):
            return False
    return True


def row_json(fields: list[str], since: str) -> str:
    """A line's row with its state filled in for a list made now (`since`: running_since())."""
    state = fields[STATE] or ("running" if fields[LAST_AT] > since else "closed")
    return fields[ROW].replace('"state":""', f'"state":"{state}"', 1)


def running_since() -> str:
    """The time before which an imported task counts as no longer running."""
    return (datetime.now(UTC) - RUNNING_FOR).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def select(entries: dict[str, list[str]], archived: bool | None) -> list[list[str]]:
    if archived is None:
        return list(entries.values())
    flag = "1" if archived else "0"
    return [fields for fields in entries.values() if fields[ARCHIVED] == flag]


def fast_json(root: str | os.PathLike, archived: bool | None) -> str | None:
    """The listing as a JSON array when the catalogue is current, else None (fold first)."""
    since = running_since()
    entries = read(os.path.join(root, FILE))
    if entries is None or not current(entries, stats(os.path.join(root, "sessions"))):
        return None
    return "[" + ",".join(row_json(fields, since) for fields in select(entries, archived)) + "]"
