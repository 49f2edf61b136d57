"""Times and one-line texts from the agents' formats, as the log writes them.

The log's times are RFC 3339 UTC with milliseconds (`records.now()`); agents write epoch
milliseconds (OpenCode, Cursor) or local times without a zone (aider). A time aider wrote on
this computer is read in this computer's zone: the files are imported where they were made.
"""

from datetime import UTC, datetime


def at_ms(ms, fallback: str = "") -> str:
    """Milliseconds since the epoch as the log writes times; the fallback when it is none."""
    if isinstance(ms, bool) or not isinstance(ms, int | float) or ms <= 0:
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
    return " ".join(str(text or "").split())[:limit]
