"""The overview's whole-archive figures: how many tasks, turns and active days, what they cost
and how much of their input was read from a cache; turns by day and by weekday and hour (the
heatmaps); the tasks that cost most, ran longest and had most turns. Every figure comes from
the turn cards, as usage.figures' do, so the two agree; times are this machine's local time.
A heatmap cell and a top row name the tasks behind them, so the page can open them."""

import datetime as dt

from msgspec import Struct

from ..errors import TaskNotFound
from ..memory.cards import mem as memfile

TOP = 5  # tasks in each top list


class Cell(Struct, kw_only=True):
    """A day ("2026-07-02") or a weekday and hour ("0-14": Monday, 14:00) and its turns."""

    key: str
    turns: int = 0
    cost_usd: float = 0.0
    tasks: list[str] = []


class Ranked(Struct, frozen=True, kw_only=True):
    task: str
    title: str
    agent: str
    value: float


class Activity(Struct, kw_only=True):
    tasks: int = 0
    turns: int = 0
    active_days: int = 0
    first_day: str = ""
    last_day: str = ""
    cost_usd: float = 0.0
    input_tokens: int = 0  # input, cache reads and cache writes: what the models read in
    cache_read: int = 0
    days: list[Cell] = []
    hours: list[Cell] = []  # only the weekday-hours that had turns
    by_cost: list[Ranked] = []
    by_duration: list[Ranked] = []  # value: milliseconds
    by_turns: list[Ranked] = []


def activity(store) -> Activity:
    """The archive's activity over all its time (archived tasks too)."""
    out = Activity()
    days: dict[str, Cell] = {}
    hours: dict[str, Cell] = {}
    totals: list[tuple[object, float, int, int]] = []  # info, cost, duration, turns
    for info in store.list(archived=None):
        try:
            cards = memfile.cards_of(store.log_path(info.id))[0]
        except (FileNotFoundError, TaskNotFound):  # deleted since the list was read
            continue
        if not cards:
            continue
        out.tasks += 1
        cost = duration = 0
        for card in cards:
            when = _local(card.at)
            if when is None:
                continue
            spent = card.cost_usd or 0.0
            cost += spent
            duration += card.duration_ms or 0
            _count(days, when.date().isoformat(), info.id, spent)
            _count(hours, f"{when.weekday()}-{when.hour}", info.id, spent)
            out.turns += 1
            out.input_tokens += card.tokens.input + card.tokens.cache_read + card.tokens.cache_write
            out.cache_read += card.tokens.cache_read
        out.cost_usd += cost
        totals.append((info, cost, duration, len(cards)))
    out.days = sorted(days.values(), key=lambda cell: cell.key)
    out.hours = sorted(hours.values(), key=lambda cell: cell.key)
    out.active_days = len(out.days)
    if out.days:
        out.first_day, out.last_day = out.days[0].key, out.days[-1].key
    out.by_cost = _ranked(totals, 1)
    out.by_duration = _ranked(totals, 2)
    out.by_turns = _ranked(totals, 3)
    return out


def _local(at: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return None


def _count(cells: dict[str, Cell], key: str, task: str, cost: float) -> None:
    cell = cells.setdefault(key, Cell(key=key))
    cell.turns += 1
    cell.cost_usd += cost
    if task not in cell.tasks:
        cell.tasks.append(task)


def _ranked(totals: list, at: int) -> list[Ranked]:
    best = sorted((row for row in totals if row[at]), key=lambda row: -row[at])[:TOP]
    return [
        Ranked(task=row[0].id, title=row[0].title, agent=row[0].origin, value=row[at])
        for row in best
    ]
