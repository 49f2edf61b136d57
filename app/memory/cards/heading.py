"""A turn's head line (its seqs, outcome, duration and prompt) and the one-line text it is made
of: the part of a card that a search shows, kept apart from cards.py so that a new process
searching by words (quick.py) shows it without msgspec."""

from datetime import datetime

ASKED_HEAD = 60  # characters of the prompt in a head line
# kinds that close a turn or say how it ended: decoded whole, exactly as the fold decodes them
CLOSING = frozenset(("message", "session.resume", "turn.end"))


def one_line(text: str, limit: int) -> str:
    """The text on one line (runs of white space as one space, terminal escapes removed: a
    colour code on a card reads as `[31m` noise), cut to `limit` characters."""
    if "\x1b" in text:  # ansi.has_escapes, its module imported only then (a regex to compile)
        from ...reading import ansi

        text = ansi.plain(text if len(text) <= 8 * limit else text[: 8 * limit])
    if len(text) > 4 * limit:  # a long text (a pasted log): only its start is looked at
        head = " ".join(text[: 4 * limit].split())
        if head.rfind(" ") >= limit:  # the word the cut may have split lies past the limit
            return head[: limit - 1].rstrip() + "…"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def duration(ms: int) -> str:
    """A duration as a head line shows it: 850ms, 6s, 2m 5s, 1h 3m."""
    if ms < 1000:
        return f"{ms}ms"
    seconds = round(ms / 1000)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60}m"


def head(card_first: int, last: int | None, outcome: str, ms: int | None, asked: str) -> str:
    if last is None:
        return f"turn seq {card_first}-, not finished"
    parts = [f"turn seq {card_first}-{last}", outcome]
    if ms is not None:
        parts.append(duration(ms))
    parts.append(f'asked "{one_line(asked, ASKED_HEAD)}"')
    return " · ".join(parts)


def ending(at: str, last_seq: int, last_at: str, status: str, ms: int | None,
           outcome: str | None) -> tuple[int | None, str, int | None]:  # fmt: skip
    """(last seq, outcome, duration in ms) of a turn begun at `at` whose last line so far
    is `last_seq` at `last_at`, ended with `status` (a turn.end's; "" without one) or, as its
    fold found, `outcome` (None: the turn is the log's last and may go on: under way)."""
    under_way = outcome is None and not status
    outcome = status or outcome or "under way"
    last = None if under_way else last_seq
    if ms is None and not under_way:
        ms = _millis(at, last_at)
    return last, outcome, ms


def _millis(first: str, last: str) -> int | None:
    try:
        start = datetime.fromisoformat(first.replace("Z", "+00:00"))
        end = datetime.fromisoformat(last.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, round((end - start).total_seconds() * 1000))
