"""Starred turns: which turns of which tasks a person starred, with their notes.

The truth is the `bookmark` records in each task's log (store.star appends them; the latest
one of a turn counts), so a bookmark is part of the archive, exported and kept with the log.
`starred.json` in the data directory is derived from them so that the "Starred" list reads
one small file instead of every log: store.star updates it after appending, and it is made
again from the logs whenever it is missing, unreadable or of another format (deleting it is
always safe). A task deleted since is left out when the list is read.
"""

import json
import mmap
import os
import threading
from pathlib import Path

from msgspec import Struct

from ..errors import BadInput, TaskNotFound
from ..log import logfile, tmpfiles
from ..log import records as r

FILE = "starred.json"
FORMAT = 1
_MARK = b'"kind":"bookmark"'
_LOCK = threading.Lock()


class StarredTurn(Struct, frozen=True, kw_only=True):
    task: str
    turn: int
    note: str = ""
    at: str = ""  # when it was starred
    starred: bool = True
    title: str = ""
    project: str = ""
    asked: str = ""  # the first line of the turn's prompt


def check_turn(log: Path, task: str, turn: int) -> r.Message:
    """The prompt that starts turn `turn`, or BadInput when that seq is no prompt."""
    if not log.exists():
        raise TaskNotFound(f"no task {task}")
    table = logfile.offsets(log)
    if not 1 <= turn <= len(table):
        raise BadInput(f"task {task} has events 1 to {len(table)}, not {turn}")
    for _, _, record in logfile.read(log, table[turn - 1]):
        if isinstance(record, r.Message) and record.agent is None:
            return record
        break
    raise BadInput(f"event {turn} of task {task} is no person's prompt: a turn starts at one")


def noted(store, info, turn: int, note: str, starred: bool) -> StarredTurn:
    """Bring starred.json in step with a bookmark just appended to `info.id`'s log."""
    with _LOCK:
        turns = _load(store)
        entry = {"note": note, "at": _now()}
        task_turns = turns.setdefault(info.id, {})
        if starred:
            task_turns[str(turn)] = entry
        else:
            task_turns.pop(str(turn), None)
        _save(store.root, turns)
    return StarredTurn(
        task=info.id,
        turn=turn,
        note=note,
        at=entry["at"],
        starred=starred,
        title=info.title,
        project=info.project,
    )


def listing(store) -> list[StarredTurn]:
    """Every starred turn of the tasks still kept, the latest starred first."""
    with _LOCK:
        turns = _load(store)
    out = []
    for task, marked in turns.items():
        if not marked or not store.exists(task):
            continue
        info = store.get(task)
        for turn, entry in marked.items():
            asked = _asked(store.log_path(task), int(turn))
            out.append(
                StarredTurn(
                    task=task,
                    turn=int(turn),
                    note=entry.get("note", ""),
                    at=entry.get("at", ""),
                    title=info.title,
                    project=info.project,
                    asked=asked,
                )
            )
    return sorted(out, key=lambda item: item.at, reverse=True)


def of_task(store, task: str) -> dict[int, str]:
    """The starred turns of one task: {turn: note}."""
    with _LOCK:
        marked = _load(store).get(task, {})
    return {int(turn): entry.get("note", "") for turn, entry in marked.items()}


def rebuild(store) -> dict[str, dict]:
    """starred.json made again from the bookmark records of every log."""
    turns: dict[str, dict] = {}
    for log in sorted(Path(store.sessions).glob("*.jsonl")):
        try:
            if not _holds_a_bookmark(log):
                continue
            marked: dict[str, dict] = {}
            for _, _, record in logfile.read(log):
                if isinstance(record, r.Bookmark):
                    if record.starred:
                        marked[str(record.turn)] = {"note": record.note, "at": record.at}
                    else:
                        marked.pop(str(record.turn), None)
        except (OSError, TaskNotFound):
            continue  # deleted meanwhile, or unreadable: it has no starred turns to list
        if marked:
            turns[log.stem] = marked
    _save(store.root, turns)
    return turns


def _holds_a_bookmark(log: Path) -> bool:
    """Whether the log has a bookmark line, looked for in a map of the file (a log may be a
    gigabyte: it is not read into memory for this)."""
    with open(log, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return False
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            return view.find(_MARK) >= 0


def _load(store) -> dict[str, dict]:
    try:
        data = json.loads((Path(store.root) / FILE).read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("format") == FORMAT:
            return data["turns"]
    except (OSError, ValueError, KeyError):
        pass
    return rebuild(store)


def _save(root, turns: dict) -> None:
    data = json.dumps({"format": FORMAT, "turns": turns}).encode()
    tmpfiles.replace(Path(root) / FILE, data, "the starred turns")


def _asked(log: Path, turn: int) -> str:
    try:
        table = logfile.offsets(log)
        for _, _, record in logfile.read(log, table[turn - 1]):
            text = getattr(record, "text", "") or ""
            return " ".join(text.split())[:160]
    except (OSError, IndexError, TaskNotFound):
        pass
    return ""


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
