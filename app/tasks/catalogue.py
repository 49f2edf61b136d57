"""What the task list shows, folded from each log, and the derived catalogue that keeps it.

`Summary` is the fold of one log's records (title, project, archive flag, turns, ...) and
`TaskInfo` is what a list shows of it. The catalogue (`<data>/catalogue.jsonl`, format in
listing.py) keeps, per log, its size and modification time and the task's row already encoded
as JSON, so listing 10,000 tasks reads one file, stats 10,000 logs and prints a slice of it;
only changed logs are read. Each log's summary (with the offset and checksum of the last line
folded) is kept beside it in `catalogue.fold`.

Invariants: nothing lives only in the catalogue. It is rebuilt when missing, damaged or of
another format version; an entry whose log changed is folded on from where it stopped when the
log only grew (checked by the last folded line's checksum), and folded again from the start
otherwise.
"""

import contextlib
import errno
import os
import re
import zlib
from pathlib import Path

import msgspec

from ..errors import NotWritten, no_room
from ..log import logfile, records, tmpfiles
from ..usage import limits
from ..usage.limits import Reading
from . import listing
from .listing import MTIME, SIZE, running_since

TITLE_MAX = 120
# A person's name outranks the model's, which outranks the agent's or an import's.
RANK = {"person": 3, "model": 2, "agent": 1, "import": 1}
# A digest the person wrote is shown over the agent's and a provider's; among those, the
# latest is shown (ADR 0033). The list keeps the start of it; recall gives it whole.
DIGEST_RANK = {"person": 2, "agent": 1, "provider": 1}
DIGEST_SHOWN = 400


class Summary(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    """The fold of one log, as far as `end` (the offset after the last whole line read)."""

    project: str = ""
    origin: str = "nodwyn"  # the origin its log names (kept in place: array_like)
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
    turn_cost: float = 0.0  # replies' cost in the turn under way, until its end says the cost
    digest: str = ""  # the start of the digest shown (memory.summary, level digest)
    digest_by: str = ""  # agent / provider / person
    digest_at: str = ""
    limits: list[Reading] = []  # the rate-limit readings of this log (limits.py)
    closes: int = 0  # close summaries in the log (search reads a log's only where there are)
    no_price: str = ""  # a model whose tokens had no price (cost_unknown)
    ran_on: str = ""  # the id of the machine the task ran on (Origin.machine); "" = this one


class TaskInfo(msgspec.Struct, kw_only=True, gc=False):
    """One task as lists show it."""

    id: str
    title: str
    title_by: str  # person / model / agent / import / message
    project: str
    archived: bool
    state: str  # open / needs an answer / running / closed
    created: str
    last_activity: str
    turns: int
    origin: str
    machine: bool = False
    branch: str = ""
    model: str = ""
    cost_usd: float | None = None
    digest: str = ""  # the task's digest as shown (ADR 0033), its start
    digest_by: str = ""
    digest_at: str = ""
    closes: int = 0  # close summaries in the log (search reads a log's only where there are)
    cost_note: str = ""  # why cost_usd is None: "no usage in the log" / "no price for <model>"
    ran_on: str = ""  # the id of the machine the task ran on (app/machines); "" = this one


_json = msgspec.json.Encoder()
# The folds file is [FOLDS, {task: Summary}]; a summary folded by other rules (another FOLDS,
# or the bare dict of format 1) is not folded on from: every log is folded again.
FOLDS = 6  # 2: a turn's end gives the turn's cost; 3: rate-limit readings; 4: their `share`;
# 5: no_price (#35); 6: ran_on, the machine a task ran on (#43)
_folds = msgspec.msgpack.Decoder(tuple[int, dict[str, Summary]])
_folds_raw = msgspec.msgpack.Decoder(tuple[int, dict[str, msgspec.Raw]])
_summary = msgspec.msgpack.Decoder(Summary)
_info_decoder = msgspec.json.Decoder(TaskInfo)


def info(task: str, summary: Summary, since: str | None = None) -> TaskInfo:
    """A summary as the list shows it; `since` is running_since(), worked out once per list."""
    title, title_by = summary.title, summary.title_by
    if not title:
        title, title_by = summary.first_message or "(untitled)", "message"
    # What is priced is the task's cost (its cards' summed, as `usage` adds them); a model with
    # no price, or a log with no usage, is said beside it (cost_note).
    unknown = summary.cost_unknown or not summary.priced
    return TaskInfo(
        id=task,
        title=title,
        title_by=title_by,
        project=summary.project,
        archived=summary.archived,
        state=state(summary, since),
        created=summary.created,
        last_activity=summary.last_at,
        turns=summary.turns,
        origin=summary.origin,
        machine=summary.machine,
        branch=summary.branch,
        model=summary.model,
        cost_usd=round(summary.cost_usd, 6) if summary.priced else None,
        digest=summary.digest,
        digest_by=summary.digest_by,
        digest_at=summary.digest_at,
        closes=summary.closes,
        cost_note=cost_note(summary) if unknown else "",
        ran_on=summary.ran_on,
    )


def cost_note(summary: Summary) -> str:
    """Why a task has no cost: its log gives no usage, or a model has no price (issue 35)."""
    if summary.cost_unknown:
        return f"no price for {summary.no_price}"
    if summary.origin == "nodwyn" or not summary.turns:
        return ""
    return "no usage in the log"


def state(summary: Summary, since: str | None = None) -> str:
    """open / needs an answer / closed for nodwyn's own tasks; running / closed for imports."""
    if summary.origin != "nodwyn":
        # Times in logs are RFC 3339 UTC with milliseconds, so they compare as strings.
        return "running" if summary.last_at > (since or running_since()) else "closed"
    if summary.closed:
        return "closed"
    return "needs an answer" if summary.asks else "open"


def fold(summary: Summary, record: records.Event) -> None:
    """Fold one record into a summary (in place)."""
    summary.events += 1
    # Naming, archiving or starring a task is not activity in it: an old imported task that a person
    # archives stays where it was in the list, and closed.
    quiet = isinstance(
        record,
        records.SessionTitle | records.SessionArchive | records.Bookmark | records.Summary,
    )
    if record.at and record.at > summary.last_at and not quiet:
        summary.last_at = record.at
    match record:
        case records.SessionStart():
            summary.project = record.project
            summary.origin = record.origin.tool
            summary.source = record.origin.path
            summary.branch = record.branch
            summary.model = record.model
            summary.machine = record.machine
            summary.ran_on = record.origin.machine
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
            summary.turn_cost = 0.0
            if not summary.first_message:
                summary.first_message = first_sentence(record.text or record.command)
        case records.Reply():
            if record.model:
                summary.model = record.model
            if record.cost_usd is not None:
                summary.cost_usd += record.cost_usd
                summary.turn_cost += record.cost_usd
                summary.priced = True
            elif record.usage is not None:
                summary.cost_unknown = True
                summary.no_price = summary.no_price or record.model or "(no model)"
        case records.TurnEnd() if record.cost_usd is not None:
            # A turn's end says what the whole turn cost (as its card shows): it stands in
            # for the replies' sum, so the task's cost is the sum of its turns' costs.
            summary.cost_usd += record.cost_usd - summary.turn_cost
            summary.turn_cost = 0.0
            summary.priced = True
        case records.Summary() if record.level == "digest":
            _fold_digest(summary, record)
        case records.Summary() if record.level == "close":
            summary.closes += 1
        case records.Limit() | records.Error():
            reading = limits.of_record(summary.origin, record)
            if reading is not None:
                limits.keep(summary.limits, reading)
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


def _fold_digest(summary: Summary, record: records.Summary) -> None:
    if DIGEST_RANK.get(record.by, 1) < DIGEST_RANK.get(summary.digest_by, 0):
        return  # the person's digest stays shown until the person writes another
    from ..log.redact import redact  # only here: a listing from the catalogue imports no rules

    text = " ".join(redact(record.text).split())
    if len(text) > DIGEST_SHOWN:
        text = text[: DIGEST_SHOWN - 1].rstrip() + "…"
    summary.digest, summary.digest_by, summary.digest_at = text, record.by, record.at


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
    """The catalogue of one sessions folder (format in listing.py), current after `scan()`.

    Beside it, `catalogue.fold` keeps each log's Summary so a grown log is folded on from
    where it stopped. That file may lag the catalogue (a crash between the two writes): a
    summary is used only if the log still holds, unchanged, the last line it folded.
    """

    def __init__(self, sessions: Path, file: Path):
        self.sessions = sessions
        self.file = file
        self.folds_file = file.with_suffix(".fold")
        self.unsaved = ""  # why the last scan's catalogue could not be saved (used from memory)
        # summaries of logs folded by the process that wrote them (an import), up to the log's
        # end: the next scan takes each whose log still ends there instead of reading it again
        self.known: dict[str, Summary] = {}
        self.figures: dict[str, tuple] = {}  # their usage figures, kept by usage/figures.py

    def _keep(self, write, *args) -> None:
        """Save a derived file; a disk that cannot take it (full, read-only) leaves the scan's
        result in memory, said in `unsaved`: a listing never needs room."""
        try:
            write(*args)
        except OSError as exc:
            if not (no_room(exc) or exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)):
                raise
            self.unsaved = f"the task list could not be saved ({exc.strerror}): shown unsaved"
        except NotWritten as exc:
            self.unsaved = f"{exc}: the task list is shown unsaved"

    def scan(self) -> dict[str, list]:
        """Every log's catalogue entry (listing.py); only logs that changed are read."""
        old = listing.read(self.file) or {}
        found = listing.stats(self.sessions)
        if listing.current(old, found):
            if listing.stale(old, running_since()):
                self._keep(listing.write, self.file, old)  # a running row has gone quiet
            return old
        folds = self._load_folds()
        new, kept = {}, {}
        for task, stat in found.items():
            fields = old.get(task)
            summary = folds.get(task)
            if (
                fields is None
                or summary is None
                or (fields[MTIME], fields[SIZE]) != (stat.st_mtime_ns, stat.st_size)
            ):
                summary, fields = self._refresh(task, summary, stat)
            new[task], kept[task] = fields, summary
        self.known.clear()
        self.figures.clear()  # kept by whoever imported meanwhile, or read from the .mem later
        self.unsaved = ""
        self._keep(self._save_folds, kept)
        new = listing.in_order(new)
        self._keep(listing.write, self.file, new)
        return new

    def summary(self, task: str) -> Summary:
        """One log's summary, folded on from the kept copy where the log still holds its last
        folded line (so asking about a task costs the lines added since, not the whole log)."""
        path = self.sessions / f"{task}.jsonl"
        summary = self._load_folds([task]).get(task)
        if summary is not None and not _still_valid(path, summary, path.stat().st_size):
            summary = None
        return fold_log(path, summary)

    def summaries(self, tasks: list[str]) -> dict[str, Summary]:
        """Some logs' summaries, as `summary` gives each, the kept copies read once (a few
        tasks' titles without the stat of every log that `scan` makes, the other kept copies
        left undecoded); a gone log has none."""
        folds, found = self._load_folds(tasks), {}
        for task in tasks:
            path = self.sessions / f"{task}.jsonl"
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            summary = folds.get(task)
            if summary is not None and not _still_valid(path, summary, size):
                summary = None
            found[task] = fold_log(path, summary)
        return found

    def folded(self) -> dict[str, Summary]:
        """Every log's summary, current (what `scan` keeps beside the catalogue; a log the
        kept copy lacks, as after a change of FOLDS, is folded and the copy saved)."""
        found = self.scan()
        folds = self._load_folds()
        missing = [task for task in found if task not in folds]
        if missing:
            folds.update(self.summaries(missing))
            self._keep(self._save_folds, {t: folds[t] for t in found if t in folds})
        return {task: folds[task] for task in found if task in folds}

    def _refresh(self, task: str, summary: Summary | None, stat: os.stat_result):
        path = self.sessions / f"{task}.jsonl"
        known = self.known.pop(task, None)
        if known is not None and known.end == stat.st_size:
            summary = known  # its last line's checksum is taken by fold_log, from the log
        elif summary is not None and not _still_valid(path, summary, stat.st_size):
            summary = None
        summary = fold_log(path, summary)
        shown = info(task, summary)
        return summary, [
            stat.st_size,
            stat.st_mtime_ns,
            summary.last_at,
            summary.archived,
            shown.state if summary.origin == "nodwyn" else "",  # else it depends on the time
            _json.encode(shown).decode(),
        ]

    def _load_folds(self, only: list[str] | None = None) -> dict[str, Summary]:
        """The kept summaries; of `only` these tasks when given, the others never decoded
        (what a few tasks' summaries cost stays the same however many logs there are)."""
        try:
            data = self.folds_file.read_bytes()
            if only is None:
                version, folds = _folds.decode(data)
            else:
                version, kept = _folds_raw.decode(data)
                folds = {task: _summary.decode(kept[task]) for task in only if task in kept}
        except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
            return {}
        return folds if version == FOLDS else {}

    def _save_folds(self, folds: dict[str, Summary]) -> None:
        tmpfiles.sweep(self.folds_file.parent)  # the next writer of the folder: a crash's tmp
        with contextlib.suppress(PermissionError):  # Windows: being read; kept next time
            tmpfiles.replace(self.folds_file, msgspec.msgpack.encode((FOLDS, folds)))


def listed(fields: list, since: str) -> TaskInfo:
    """A catalogue line as the list shows it, its state worked out for now."""
    return _info_decoder.decode(listing.row_json(fields, since))
