"""Rate-limit readings: what a log says about an agent's limits, one reading per fact.

A reading is made from a `limit` record (Codex writes its figures; importers/codex/limits.py)
or from an `error` record whose text is an agent's own "limit reached" message (Claude Code's
"Claude AI usage limit reached|<unix time>", "5-hour limit reached · resets 3pm (Europe/London)";
Gemini CLI's "Your quota will reset after 2h1m13s", "Quota exceeded for quota metric ... per
day"; a provider's "Usage limit reached for 5 hour" Pi keeps). Those messages were already
kept as error records, so logs imported before this module existed give their readings too
(docs/decisions/0037-quota-meter.md). A message gives no share: its reading says so (`share`
False), and the meter shows it as a line, not a bar (ADR 0039).

Invariants: a reading is as of its record's `at`, and its reset time is worked out from that
moment only (the first such wall time after it), never from the time it is read. A message
that names no reset time gives a reading without one; nothing is guessed between events.
"""

from datetime import UTC, datetime, timedelta, tzinfo

import msgspec

from ..log import records
from ..log.redact_rules import Lazy

KEEP = 48  # readings kept per limit window per log: the burn rate needs the last hours only
WEEK, DAY, FIVE_HOURS = 10080, 1440, 300

# Compiled on first use (Lazy): every process that opens the store imports this module, and
# few of them read a limit message.
_EPOCH = Lazy(r"(?i)usage limit reached\|(\d{9,11})")
_CLAUDE = Lazy(
    r"(?i)(?P<what>(?:5-hour|weekly|opus weekly|sonnet weekly|session)\s+)?limit reached"
    r"|hit your limit|out of extra usage|usage limit reached"
)
_RESETS = Lazy(
    r"(?i)resets?(?: at)?\s+(?:(?P<day>mon|tue|wed|thu|fri|sat|sun)\w*\s+)?"
    r"(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm)\b(?:\s*\((?P<tz>[\w/+\-]+)\))?"
)
_GEMINI = Lazy(r"(?i)quota|exhausted your capacity|RESOURCE_EXHAUSTED")
_AFTER = Lazy(r"(?i)reset after\s+(?:(\d+)h)?\s*(?:(\d+)m)?\s*(?:(\d+)s)?")
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class Reading(msgspec.Struct, kw_only=True, array_like=True, gc=False):
    """One window's figures as of `at` (the last event that said them; `first` the first)."""

    origin: str
    name: str
    window: int  # minutes; 0 unknown
    used: float
    resets: str = ""
    at: str = ""
    first: str = ""
    reached: bool = False
    plan: str = ""
    share: bool = True  # the log gave the used share; False: a limit message (used up, no figure)


def of_record(origin: str, record) -> Reading | None:
    """The reading a record gives for a task whose log names `origin`, or None."""
    if isinstance(record, records.Limit):
        return Reading(
            origin=origin,
            name=record.name or origin,
            window=record.window_minutes,
            used=record.used_percent,
            resets=record.resets_at,
            at=record.at,
            first=record.at,
            reached=record.reached,
            plan=record.plan,
        )
    if isinstance(record, records.Error) and origin in _TEXT_RULES and record.at:
        return _TEXT_RULES[origin](origin, record.text[:400], record.at)
    return None


def keep(kept: list[Reading], reading: Reading) -> None:
    """Add a reading to a log's list: a repeat of the window's last figures moves its `at` on;
    a window keeps its last KEEP readings."""
    same = [
        x
        for x in kept
        if (x.origin, x.name, x.window) == (reading.origin, reading.name, reading.window)
    ]
    if same and (same[-1].used, same[-1].resets) == (reading.used, reading.resets):
        if reading.at > same[-1].at:
            same[-1].at = reading.at
        return
    kept.append(reading)
    if len(same) >= KEEP:
        kept.remove(same[0])


def claude_message(origin: str, text: str, at: str) -> Reading | None:
    """Claude Code's usage-limit notice: the limit is used up until the time it names."""
    found = _CLAUDE.search(text)
    if found is None:
        return None
    what = (found.group("what") or "").strip().lower()
    window = FIVE_HOURS if what in ("5-hour", "session") else WEEK if "weekly" in what else 0
    name = "claude" if "opus" not in what and "sonnet" not in what else what.split()[0]
    epoch = _EPOCH.search(text)
    resets = _from_epoch(int(epoch.group(1))) if epoch else _wall_time(text, at)
    return Reading(
        origin=origin, name=name, window=window, used=100.0, resets=resets, at=at, first=at,
        reached=True, share=False,
    )  # fmt: skip


def gemini_message(origin: str, text: str, at: str) -> Reading | None:
    """Gemini CLI's quota errors: used up; the reset after the wait it names, when it does."""
    if _GEMINI.search(text) is None:
        return None
    lower = text.lower()
    window = DAY if "per day" in lower or "daily" in lower else 0
    resets = ""
    wait = _AFTER.search(text)
    if wait and any(wait.groups()):
        h, m, s = (int(x or 0) for x in wait.groups())
        resets = _format(_parse(at) + timedelta(hours=h, minutes=m, seconds=s))
    return Reading(
        origin=origin, name="gemini", window=window, used=100.0, resets=resets, at=at, first=at,
        reached=True, share=False,
    )  # fmt: skip


_PROVIDER = Lazy(r"(?i)usage limit reached for (\d+) hours?")


def provider_message(origin: str, text: str, at: str) -> Reading | None:
    """A provider's usage-limit error as Pi keeps it ("429 Usage limit reached for 5 hour. Your
    limit will reset at 2026-06-10 09:05:49", Z.ai's): used up for the window it names. Its
    reset time names no zone, so none is guessed."""
    found = _PROVIDER.search(text)
    if found is None:
        return None
    return Reading(
        origin=origin, name=origin, window=int(found.group(1)) * 60, used=100.0, at=at, first=at,
        reached=True, share=False,
    )  # fmt: skip


_TEXT_RULES = {"claude-code": claude_message, "gemini-cli": gemini_message, "pi": provider_message}


def _wall_time(text: str, at: str) -> str:
    """ "resets 3pm (Europe/London)": the first such moment after the event, in that zone (the
    computer's own when none is named, as Claude Code prints the person's local time)."""
    found = _RESETS.search(text)
    if found is None:
        return ""
    zone: tzinfo | None = None
    if found.group("tz"):
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # a search need not load it

        try:
            zone = ZoneInfo(found.group("tz"))
        except (ZoneInfoNotFoundError, ValueError):
            zone = None
    hour = int(found.group("h")) % 12 + (12 if found.group("ap").lower() == "pm" else 0)
    minute = int(found.group("m") or 0)
    if hour > 23 or minute > 59:
        return ""
    when = _parse(at).astimezone(zone)  # None: the local zone
    moment = when.replace(hour=hour, minute=minute, second=0, microsecond=0)
    day = found.group("day")
    while moment <= when or (day and _DAYS[moment.weekday()] != day[:3].lower()):
        moment += timedelta(days=1)
    return _format(moment)


def _from_epoch(seconds: int) -> str:
    return _format(datetime.fromtimestamp(seconds, UTC))


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _format(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
