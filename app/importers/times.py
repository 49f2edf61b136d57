"""Times in agents' sources, as nodwyn's logs write them (RFC 3339 UTC, milliseconds)."""

from datetime import datetime

from .claude_lines import at_of

__all__ = ["at_of", "ms_between"]


def ms_between(start: str, end: str) -> int | None:
    """Milliseconds from one stamp to a later one (0 when they go back); None if unreadable."""
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(int((b - a).total_seconds() * 1000), 0)
