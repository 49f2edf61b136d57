"""The quota meter: each agent's rate-limit windows as its logs last said them, for a glance.

One core function, `meter`, that the CLI (`nodwyn quota`), the API (`GET /api/quota`) and the
tray all show, so they agree. It reads the readings the catalogue folds from every log
(limits.py), takes each window's latest, and says of it, against the time now:
- reset: its reset time has passed, so the figure is of a window that is over;
- stale: it is older than its window ("last seen 6 h ago"), so the agent may have used more;
- current: otherwise; with a burn rate when the window's readings over the last BURN_HOURS
  rose, and when at that rate the window would be used up (if before its reset).
A limit message (Claude Code's, Gemini CLI's) gives no share: its window has no bar and reads
"limit hit 14:03, resets 19:00" (ADR 0039). An agent whose logs hold no readings is not in the
meter. Nothing is guessed between events:
every figure is one an agent wrote, with the time it wrote it (docs/decisions/0037).
"""

from datetime import UTC, datetime, timedelta

import msgspec

from ..importers.names import label_of_origin
from ..tasks.store import Store
from .limits import DAY, FIVE_HOURS, WEEK, Reading

BURN_HOURS = 3.0
MIN_SPAN = 600  # seconds between two readings for a burn rate to mean anything
SAME_RESET = 900  # seconds: reset times this close are one window (Codex's jitter by seconds)
NAMES = {FIVE_HOURS: "5 h", DAY: "day", WEEK: "week"}


class Window(msgspec.Struct, kw_only=True):
    name: str  # the agent's limit id ("codex")
    label: str  # "5 h", "week", "day", "limit"
    window_minutes: int
    used_percent: float
    resets_at: str
    as_of: str  # the event the figures came from (the last that said them)
    state: str  # current / stale / reset
    reached: bool
    plan: str
    text: str  # "27%", "27% · last seen 6 h ago", "reset"
    burn_per_hour: float | None = None  # percentage points an hour, over the last hours
    runs_out_at: str = ""  # at that rate, before the reset; "" when it lasts to the reset
    share: bool = True  # the log gave the used share; False: a limit message, shown as a line


class AgentQuota(msgspec.Struct, kw_only=True):
    origin: str = msgspec.field(name="tool")  # what its logs name ("claude-code"), as sent
    label: str
    line: str  # "Codex: 5 h 27% · week 4% · resets 14:08"
    windows: list[Window]


class Meter(msgspec.Struct, kw_only=True):
    now: str
    agents: list[AgentQuota]


def meter(store: Store, now: datetime | None = None) -> Meter:
    """Every agent's windows whose logs hold limits, as of the time now."""
    now = now or datetime.now(UTC)
    groups: dict[tuple[str, str, int], list[Reading]] = {}
    for summary in store.cache.folded().values():
        for reading in summary.limits:
            groups.setdefault((reading.origin, reading.name, reading.window), []).append(reading)
    origins: dict[str, list[Window]] = {}
    for key in sorted(groups):
        origins.setdefault(key[0], []).append(window_of(groups[key], now))
    agents = [_agent(origin, windows, now) for origin, windows in origins.items()]
    return Meter(now=_stamp(now), agents=sorted(agents, key=lambda a: a.label))


def window_of(readings: list[Reading], now: datetime) -> Window:
    """One window from its readings (from any number of logs): the latest said, and how."""
    readings = sorted(readings, key=lambda x: (x.at, x.first))
    last = readings[-1]
    label = NAMES.get(last.window) or _minutes(last.window)
    if last.name not in (last.origin, _default_name(last.origin)):
        label = f"{last.name} {label}"
    age = (now - _parse(last.at)).total_seconds()
    span = (last.window or FIVE_HOURS) * 60
    if not last.share:
        state, text = _hit(last, age > span, now)
    elif last.resets and _parse(last.resets) <= now:
        state, text = "reset", "reset"
    elif age > span:
        state, text = "stale", f"{_percent(last.used)} · last seen {_ago(age)} ago"
    else:
        state, text = "current", _percent(last.used) + (" · limit reached" if last.reached else "")
    window = Window(
        name=last.name, label=label, window_minutes=last.window, used_percent=last.used,
        resets_at=last.resets, as_of=last.at, state=state, reached=last.reached,
        plan=last.plan, text=text, share=last.share,
    )  # fmt: skip
    if state == "current" and last.share:
        _burn(window, readings, last)
    return window


def _hit(last: Reading, old: bool, now: datetime) -> tuple[str, str]:
    """(state, text) of a limit message, which gives no share: when the limit was hit and
    when it resets, "limit hit 14:03, resets 19:00" (ADR 0039)."""
    text = f"limit hit {clock(last.at, now)}"
    if not last.resets:
        return ("stale" if old else "current"), text
    if _parse(last.resets) <= now:
        return "reset", f"{text}, reset {clock(last.resets, now)}"
    return "current", f"{text}, resets {clock(last.resets, now)}"


def _burn(window: Window, readings: list[Reading], last: Reading) -> None:
    """The rise over the last BURN_HOURS of this window's period, and where it leads."""
    since = _parse(last.at) - timedelta(hours=BURN_HOURS)
    period = [x for x in readings if _parse(x.at) >= since and _one_period(x, last)]
    base = min(period, key=lambda x: x.first)
    seconds = (_parse(last.first) - _parse(base.first)).total_seconds()
    if seconds < MIN_SPAN or last.used <= base.used:
        return
    rate = (last.used - base.used) / (seconds / 3600)
    window.burn_per_hour = round(rate, 2)
    out = _parse(last.at) + timedelta(hours=max(100 - last.used, 0) / rate)
    if not last.resets or out < _parse(last.resets):
        window.runs_out_at = _stamp(out)


def _one_period(reading: Reading, last: Reading) -> bool:
    if not (reading.resets and last.resets):
        return reading.resets == last.resets
    return abs((_parse(reading.resets) - _parse(last.resets)).total_seconds()) <= SAME_RESET


def _agent(origin: str, windows: list[Window], now: datetime) -> AgentQuota:
    label = label_of_origin(origin)
    windows.sort(key=lambda w: (w.window_minutes or FIVE_HOURS, w.label))
    parts = [w.text if w.label == "limit" else f"{w.label} {w.text}" for w in windows]
    coming = [w.resets_at for w in windows if w.state == "current" and w.resets_at and w.share]
    if coming:
        parts.append(f"resets {clock(min(coming), now)}")
    return AgentQuota(
        origin=origin, label=label, line=f"{label}: " + " · ".join(parts), windows=windows
    )


def next_change(found: Meter) -> datetime | None:
    """The next moment a window of the meter turns stale or reset, without a new reading."""
    moments = []
    for agent in found.agents:
        for w in agent.windows:
            if w.state != "reset" and w.resets_at:
                moments.append(_parse(w.resets_at))
            if w.state == "current":
                moments.append(_parse(w.as_of) + timedelta(minutes=w.window_minutes or FIVE_HOURS))
    return min(moments, default=None)


def clock(stamp: str, now: datetime) -> str:
    """A time as a person reads it here: "14:08" today, "Thu 14:08" within a week, else a date."""
    moment, today = _parse(stamp).astimezone(), now.astimezone()
    if moment.date() == today.date():
        return moment.strftime("%H:%M")
    if abs((moment - today).days) < 6:
        return moment.strftime("%a %H:%M")
    if moment.year != today.year:
        return moment.strftime("%d %b %Y %H:%M")
    return moment.strftime("%d %b %H:%M")


def _default_name(origin: str) -> str:
    return origin.split("-")[0]  # "claude-code" -> "claude", "gemini-cli" -> "gemini"


def _minutes(minutes: int) -> str:
    if not minutes:
        return "limit"
    return f"{minutes // 60} h" if minutes % 60 == 0 else f"{minutes} min"


def _percent(used: float) -> str:
    return f"{used:.0f}%" if used == int(used) else f"{used:.1f}%"


def _ago(seconds: float) -> str:
    if seconds < 3600:
        return f"{max(int(seconds // 60), 1)} min"
    if seconds < 48 * 3600:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
