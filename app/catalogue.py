"""What the task list shows, folded from each log, and the derived catalogue that keeps it.

`Summary` is the fold of one log's records (title, project, archive flag, turns, ...). The
catalogue (`<data>/catalogue.msgpack`) caches one summary per log together with the log's
size, modification time and the offset and checksum of the last line folded, so listing
10,000 tasks reads one file and stats 10,000 logs instead of reading them.

Invariants: nothing lives only in the catalogue. It is rebuilt when missing, damaged or of
another format version; an entry whose log changed is folded on from where it stopped when the
log only grew (checked by the last folded line's checksum), and folded again from the start
otherwise.
"""

import os
import re
import zlib
from pathlib import Path

import msgspec

from .log import logfile, records

FORMAT = 1
TITLE_MAX = 120
# A person's name outranks the model's, which outranks the agent's or an import's.
RANK = {"person": 3, "model": 2, "agent": 1, "import": 1}


class Summary(msgspec.Struct, kw_only=True):
    """The fold of one log, as far as `end` (the offset after the last whole line read)."""

    project: str = ""
    tool: str = "nodwyn"
    source: str = ""
    branch: str = ""
    model: str = ""
    machine: bool = False
    created: str = ""
    last_at: str = ""
    title: str = ""
    title_by: str = ""
    first_message: str = ""
    archived: bool = False
    closed: bool = False
    asks: list[str] = []
    turns: int = 0
    events: int = 0
    cost_usd: float = 0.0
    cost_unknown: bool = False
    priced: bool = False
    end: int = 0
    last_offset: int = -1
    last_crc: int = 0


class Entry(msgspec.Struct):
    size: int
    mtime_ns: int
    summary: Summary


class Catalogue(msgspec.Struct):
    format: int
    entries: dict[str, Entry]


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Catalogue)


def fold(summary: Summary, record: records.Event) -> None:
    """Fold one record into a summary (in place)."""
    summary.events += 1
    if record.at and record.at > summary.last_at:
        summary.last_at = record.at
    match record:
        case records.SessionStart():
            summary.project = record.project
            summary.tool = record.origin.tool
            summary.source = record.origin.path
            summary.branch = record.branch
            summary.model = record.model
            summary.machine = record.machine
            summary.created = record.at
        case records.SessionTitle():
            _fold_title(summary, record)
        case records.SessionArchive():
            summary.archived = record.archived
        case records.SessionClose():
            summary.closed = True
        case records.SessionResume():
            summary.closed = False
        case records.Message() if record.agent is None:
            summary.turns += 1
            if not summary.first_message:
                summary.first_message = first_sentence(record.text or record.command)
        case records.Reply():
            if record.model:
                summary.model = record.model
            if record.cost_usd is not None:
                summary.cost_usd += record.cost_usd
                summary.priced = True
            elif record.usage is not None:
                summary.cost_unknown = True
        case records.ApprovalAsk():
            summary.asks.append(record.call)
        case records.ApprovalAnswer():
            if record.call in summary.asks:
                summary.asks.remove(record.call)


def _fold_title(summary: Summary, record: records.SessionTitle) -> None:
    rank = RANK.get(record.actor, 1)
    if rank < RANK.get(summary.title_by, 0):
        return  # a lower actor never replaces a higher one's name
    if record.title:
        summary.title, summary.title_by = record.title, record.actor
    else:
        summary.title, summary.title_by = "", ""


def first_sentence(text: str) -> str:
    """The first sentence of a message, on one line, at most TITLE_MAX characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            break
    else:
        return ""
    sentence = re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0]
    if len(sentence) > TITLE_MAX:
        sentence = sentence[: TITLE_MAX - 1].rstrip() + "…"
    return sentence


def fold_log(path: Path, summary: Summary | None = None) -> Summary:
    """Fold a log from where `summary` stopped (or from the start)."""
    summary = summary or Summary()
    for offset, end, record in logfile.read(path, summary.end):
        fold(summary, record)
        summary.end, summary.last_offset = end, offset
    if summary.last_offset >= 0:
        summary.last_crc = _crc_at(path, summary.last_offset, summary.end)
    return summary


def _crc_at(path: Path, start: int, end: int) -> int:
    with open(path, "rb") as handle:
        handle.seek(start)
        return zlib.crc32(handle.read(end - start))


def _still_valid(path: Path, summary: Summary, size: int) -> bool:
    """Whether the log still holds the line the summary last folded, where it was."""
    if summary.last_offset < 0:
        return summary.end == 0
    if size < summary.end:
        return False
    return _crc_at(path, summary.last_offset, summary.end) == summary.last_crc


class Cache:
    """The catalogue file of one sessions folder, brought up to date on `scan()`."""

    def __init__(self, sessions: Path, file: Path):
        self.sessions = sessions
        self.file = file

    def load(self) -> dict[str, Entry]:
        try:
            catalogue = _decoder.decode(self.file.read_bytes())
        except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
            return {}
        return catalogue.entries if catalogue.format == FORMAT else {}

    def scan(self) -> dict[str, Summary]:
        """Every log's summary, folding only logs that changed since the catalogue was written."""
        old = self.load()
        new: dict[str, Entry] = {}
        changed = False
        with os.scandir(self.sessions) as found:
            for item in found:
                if not item.name.endswith(".jsonl"):
                    continue
                task = item.name[:-6]
                stat = item.stat()
                entry = old.get(task)
                if entry is None or (entry.size, entry.mtime_ns) != (
                    stat.st_size,
                    stat.st_mtime_ns,
                ):
                    entry = self._refresh(Path(item.path), entry, stat)
                    changed = True
                new[task] = entry
        if changed or len(new) != len(old):
            self.save(new)
        return {task: entry.summary for task, entry in new.items()}

    def _refresh(self, path: Path, entry: Entry | None, stat: os.stat_result) -> Entry:
        summary = None
        if entry is not None and _still_valid(path, entry.summary, stat.st_size):
            summary = entry.summary
        return Entry(stat.st_size, stat.st_mtime_ns, fold_log(path, summary))

    def save(self, entries: dict[str, Entry]) -> None:
        tmp = self.file.with_name(f".{self.file.name}.{os.getpid()}.tmp")
        tmp.write_bytes(_encoder.encode(Catalogue(FORMAT, entries)))
        os.replace(tmp, self.file)
