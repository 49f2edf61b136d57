"""Times in agents' sources, as nodwyn's logs write them (RFC 3339 UTC, milliseconds).

Agents write ISO 8601 (Gemini, Copilot, Claude), epoch milliseconds (OpenCode, Cursor) or
local times without a zone (aider). A time aider wrote on this computer is read in this
computer's zone: the files are imported where they were made."""

from datetime import UTC, datetime


def at_of(stamp, fallback: str) -> str:
    """A source's ISO 8601 time as the log writes it; the fallback when absent or unreadable."""
    if not isinstance(stamp, str) or not stamp:
        return fallback
    if len(stamp) == 24 and stamp[-1] == "Z" and stamp[19] == ".":
        return stamp
    moment = _parse(stamp)
    if moment is None:
        return fallback
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def ms_between(start: str, end: str) -> int | None:
    """Milliseconds from one stamp to a later one (0 when they go back); None if unreadable."""
    a, b = _parse(start), _parse(end)
    if a is None or b is None:
        return None
    return max(int((b - a).total_seconds() * 1000), 0)


def _parse(stamp: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def at_ms(ms, fallback: str = "") -> str:
    """Milliseconds since the epoch as the log writes times; the fallback when it is none."""
    if isinstance(ms, bool) or not isinstance(ms, int | float) or not 0 < ms < 1e15:
        return fallback
    try:
        moment = datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return fallback
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def at_local(stamp: datetime) -> str:
    """A time written without a zone by a program on this computer, as UTC."""
    return stamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def one_line(text: str, limit: int = 120) -> str:
    """A title's text on one line, cut to `limit` characters."""
    return " ".join(str(text or "").split())[:limit]
