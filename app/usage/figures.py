"""What the agents' turns cost and used, by day, week, month, project, model, agent or machine.

One function, `report`, makes the figures both the page's overview (GET /api/usage) and
`nodwyn usage` show, so the two never disagree. Every figure comes from the turn cards
(memory/cards/fold.py): a turn's cost is its card's `cost_usd` (the turn end's cost where the log
gives one, else its replies' summed), its tokens the card's `tokens`; a card marked `unpriced`
had tokens with no price, and is counted as "cost unknown" rather than as free. So the totals
are the sum of the cards' costs, row by row and overall, and a task's is the catalogue's.

Times: tokens and cost belong to the day (week from Monday, month) of each reply's own time in
this machine's time zone (a card's parts, by quarter hour), as ccusage dates each message; a
turn is counted on the day it started. `since` and `until` are such days, inclusive.
"""

import contextlib
import datetime as dt
from pathlib import Path

import msgspec
from msgspec import Struct, structs

from ..errors import BadInput, NotWritten, TaskNotFound
from ..log import tmpfiles
from ..memory.cards import mem as memfile

BY = ("day", "week", "month", "project", "model", "agent", "machine")
SPLITS = ("agent", "model", "project", "machine")
TOP = 10  # tasks listed as costing most


class Share(Struct, frozen=True, kw_only=True):
    """One part of a row: a task's, or an agent's, model's or project's."""

    key: str
    turns: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0


class Row(Struct, kw_only=True):
    """One day, week, month, project, model or agent."""

    key: str  # 2026-12-02 (a week: its Monday), 2026-12, a project folder, a model, an agent
    turns: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    tokens: int = 0  # the four summed, as ccusage's Total Tokens
    cost_usd: float = 0.0
    unpriced: int = 0  # turns that used tokens with no price in their log: cost unknown
    models: list[str] = []
    split: list[Share] = []  # by the `split` asked for, largest cost first
    tasks: list[Share] = []  # the tasks behind the row, largest cost first


class TopTask(Struct, frozen=True, kw_only=True):
    task: str
    title: str
    project: str
    agent: str
    turns: int
    tokens: int
    cost_usd: float
    unpriced: int


class Report(Struct, kw_only=True):
    by: str
    split: str
    since: str
    until: str
    rows: list[Row]
    total: Row
    top: list[TopTask]
    newest: str = ""  # the day of the newest turn of all, whatever since and until say


class _Figures(Struct, frozen=True, kw_only=True):
    """A turn's tokens and cost, as its card gives them."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost_usd: float = 0.0
    unpriced: bool = False


class _Turn(_Figures, frozen=True, kw_only=True):
    """A turn's start (turns=1, no figures) or its figures in one quarter hour (turns=0)."""

    task: str
    day: dt.date
    project: str
    model: str
    agent: str
    turns: int = 0
    machine: str = ""  # the name of the machine it ran on


def day_of(text: str, name: str) -> dt.date | None:
    """A day given as YYYY-MM-DD or YYYYMMDD (ccusage's form), or None for ""."""
    if not text:
        return None
    for form in ("%Y-%m-%d", "%Y%m%d"):
        try:
            return dt.datetime.strptime(text, form).date()
        except ValueError:
            continue
    raise BadInput(f"{name} is a day as YYYY-MM-DD or YYYYMMDD, not {text!r}")


def report(store, by: str = "day", split: str = "", since: str = "", until: str = "") -> Report:
    """The usage of every task's turns in [since, until], one row per `by`, newest or largest
    first, each row split by `split` (agent, model, project, machine, or "" for none)."""
    if by not in BY:
        raise BadInput(f"by is one of {', '.join(BY)}, not {by!r}")
    if split and split not in SPLITS:
        raise BadInput(f"split is one of {', '.join(SPLITS)}, not {split!r}")
    first, last = day_of(since, "since"), day_of(until, "until")
    infos = {info.id: info for info in store.list(archived=None)}
    every = _turns(store, infos)
    newest = max((t.day for t in every), default=None)
    turns = [
        t for t in every if (first is None or t.day >= first) and (last is None or t.day <= last)
    ]
    rows: dict[str, list[_Turn]] = {}
    for turn in turns:
        rows.setdefault(_key(turn, by), []).append(turn)
    made = [_row(key, group, split) for key, group in rows.items()]
    if by in ("day", "week", "month"):
        made.sort(key=lambda row: row.key)
    else:
        made.sort(key=lambda row: (-row.cost_usd, -row.tokens, row.key))
    total = _row("total", turns, split)
    total.tasks = []
    top = [_top(share, infos[share.key]) for share in _shares(turns, "task")[:TOP]]
    return Report(by=by, split=split, since=since, until=until, rows=made, total=total, top=top,
                  newest=newest.isoformat() if newest else "")  # fmt: skip


class _Used(_Figures, frozen=True, kw_only=True):
    """A card's start (turns=1) or one of its parts (its task's facts are added from the list)."""

    at: str
    model: str
    turns: int = 0


# Each log's cards as _Used, by the log's size and mtime: the overview asks for a report two or
# three times a draw, and folding every log on from its .mem again (its last turn, never saved
# while it may go on) took 0.7 s a report at 1,600 tasks (docs/decisions/0030's amendment).
_used: dict[Path, tuple[tuple[int, int], list[_Used]]] = {}


def keep(store) -> None:
    """Read every log's figures now (the background's start), so the first report reads only
    the logs that changed since. Read only (each log folded on from its .mem in memory, the
    .mem not written), so it takes no lock and no search waits for it."""
    _turns(store, {info.id: info for info in store.list(archived=None)}, saving=False)


# Figures of logs folded by the process that wrote them (an import), kept in the data directory
# by task with the log's size and mtime then, so a new process's first report reads no log whose
# figures are there (msgpack: [FORMAT, {task: [size, mtime_ns, [_Used...]]}]).
FILE = "usage.fold"
FORMAT = 1
_file = msgspec.msgpack.Decoder(tuple[int, dict[str, tuple[int, int, list[_Used]]]])
_read: dict[Path, tuple[tuple[int, int] | None, dict]] = {}  # the file, by its size and mtime


def remember(root: Path, found: dict[str, tuple[int, int, list[_Used]]]) -> None:
    """Keep these logs' figures (task: size, mtime_ns, figures) in the data directory's file."""
    kept = dict(_kept(root))
    kept.update(found)
    with contextlib.suppress(OSError, NotWritten):  # derived: the next report reads the logs
        tmpfiles.replace(root / FILE, msgspec.msgpack.encode((FORMAT, kept)))


def _kept(root: Path) -> dict[str, tuple[int, int, list[_Used]]]:
    file = root / FILE
    try:
        stat = file.stat()
    except OSError:
        return {}
    key = (stat.st_size, stat.st_mtime_ns)
    known = _read.get(file)
    if known is not None and known[0] == key:
        return known[1]
    try:
        version, kept = _file.decode(file.read_bytes())
    except (OSError, msgspec.MsgspecError):
        return {}
    kept = kept if version == FORMAT else {}
    _read[file] = (key, kept)
    return kept


def used_of(cards) -> list[_Used]:
    """A log's cards as figures: each card's start (the turn where it started), then its parts
    (its figures where each reply was written)."""
    used = []
    for card in cards:
        used.append(_Used(at=card.at, model=card.model, turns=1, unpriced=card.unpriced))
        used.extend(_Used(model=card.model, **structs.asdict(part)) for part in card.parts)
    return used


def _turns(store, infos, saving: bool = True) -> list[_Turn]:
    from .. import machines

    names = machines.names(store.root)
    found, seen = [], set()
    kept = _kept(store.root)
    for task, info in infos.items():
        log = store.log_path(task)
        try:
            used = _used_of(log, saving, kept.get(task))
        except (FileNotFoundError, TaskNotFound):  # deleted since the list was read
            continue
        seen.add(log)
        for card in used:
            found.append(_Turn(
                task=task, day=local_day(card.at), project=info.project,
                model=card.model or info.model or "(no model)", agent=info.origin,
                input=card.input, output=card.output, cache_read=card.cache_read,
                cache_write=card.cache_write, cost_usd=card.cost_usd, unpriced=card.unpriced,
                turns=card.turns, machine=names.get(info.ran_on, info.ran_on),
            ))  # fmt: skip
    for gone in _used.keys() - seen:  # tasks deleted: not kept for nothing
        _used.pop(gone, None)  # (the background may be reading them meanwhile)
    return found


def _used_of(log: Path, saving: bool, kept: tuple | None) -> list[_Used]:
    """A log's cards as _Used: as kept (`kept`, from the file) while the log is as it was
    then; else `saving`: what its .mem lacked saved there (memfile.cards_of, under the memory
    lock), else folded in memory alone (a .mem being written meanwhile is read up to its last
    whole frame, the rest folded from the log)."""
    stat = log.stat()
    key = (stat.st_size, stat.st_mtime_ns)
    known = _used.get(log)
    if known is not None and known[0] == key:
        return known[1]
    if kept is not None and (kept[0], kept[1]) == key:
        used = kept[2]
    else:
        used = used_of(memfile.cards_of(log)[0] if saving else memfile.fold_log(log)[1])
    _used[log] = (key, used)
    return used


def local_day(at: str) -> dt.date:
    try:
        return dt.datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone().date()
    except ValueError:
        return dt.date(1970, 1, 1)  # a card with no time: the oldest day, never lost


def _key(turn: _Turn, by: str) -> str:
    if by == "day":
        return turn.day.isoformat()
    if by == "week":
        return (turn.day - dt.timedelta(days=turn.day.weekday())).isoformat()
    if by == "month":
        return turn.day.strftime("%Y-%m")
    return getattr(turn, by)


def _row(key: str, group: list[_Turn], split: str) -> Row:
    row = Row(key=key, turns=sum(t.turns for t in group))
    for t in group:
        row.input += t.input
        row.output += t.output
        row.cache_read += t.cache_read
        row.cache_write += t.cache_write
        row.cost_usd += t.cost_usd
        row.unpriced += t.unpriced
    row.tokens = row.input + row.output + row.cache_read + row.cache_write
    row.cost_usd = round(row.cost_usd, 6)
    row.models = sorted({t.model for t in group})
    row.split = _shares(group, split) if split else []
    row.tasks = _shares(group, "task")
    return row


def _shares(group: list[_Turn], by: str) -> list[Share]:
    parts: dict[str, list[_Turn]] = {}
    for turn in group:
        parts.setdefault(getattr(turn, by), []).append(turn)
    shares = [
        Share(
            key=key,
            turns=sum(t.turns for t in turns),
            tokens=sum(t.input + t.output + t.cache_read + t.cache_write for t in turns),
            cost_usd=round(sum(t.cost_usd for t in turns), 6),
            unpriced=sum(t.unpriced for t in turns),
        )
        for key, turns in parts.items()
    ]
    return sorted(shares, key=lambda s: (-s.cost_usd, -s.tokens, s.key))


def _top(share: Share, info) -> TopTask:
    return TopTask(
        task=share.key, title=info.title, project=info.project, agent=info.origin,
        turns=share.turns, tokens=share.tokens, cost_usd=share.cost_usd, unpriced=share.unpriced,
    )  # fmt: skip
