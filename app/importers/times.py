"""Times in agents' sources, as nodwyn's logs write them (RFC 3339 UTC, milliseconds)."""

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
