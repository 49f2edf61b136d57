"""A turn's head line (its seqs, outcome, duration and prompt) and the one-line text it is made
of: the part of a card that a search shows, kept apart from fold.py."""

import time
from datetime import datetime

from ...tasks.listing import RUNNING_FOR as LIVE_FOR  # the task list's "running" (ADR 0039)

ASKED_HEAD = 60  # characters of the prompt in a head line
# kinds that close a turn or say how it ended: decoded whole, exactly as the fold decodes them
CLOSING = frozenset(("message", "session.resume", "turn.end"))
# the agent's own records: their times make a turn's duration and say it is still written;
# nodwyn's (a name, an archive, a star, a summary, a close) come later and are no part of it
WORK = frozenset(("message", "reply", "result", "plan", "approval.ask", "approval.answer",
                  "turn.end", "context.compact", "error", "limit"))  # fmt: skip
SETTLED = {"answer": "completed", "": "no answer"}  # what the agent last said -> the outcome


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


def head_line(card_first: int, last: int | None, outcome: str, ms: int | None, asked: str) -> str:
    if last is None:
        return f'turn seq {card_first}- · under way · asked "{one_line(asked, ASKED_HEAD)}"'
    parts = [f"turn seq {card_first}-{last}", outcome]
    if ms:
        parts.append(duration(ms))
    parts.append(f'asked "{one_line(asked, ASKED_HEAD)}"')
    return " · ".join(parts)


def numbered(head: str, number: int, turns: int) -> str:
    """A head line with its turn as people count them ("turn 3 of 9 · completed · ...") where
    it names the turn's records ("turn seq 40-52"): for a page or a file a person reads."""
    first, sep, rest = head.partition(" · ")
    if not first.startswith("turn seq "):
        return head
    return f"turn {number} of {turns}{sep}{rest}"


def is_live(worked_at: str, now: float | None = None) -> bool:
    """Whether the agent wrote in the turn within the last LIVE_FOR seconds (the task list's
    "running"): only then may a turn without an end still be going (ADR 0039)."""
    try:
        moment = datetime.fromisoformat(worked_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    return moment > (time.time() if now is None else now) - LIVE_FOR


def ending(at: str, last_seq: int, worked_at: str, status: str, ms: int | None,
           outcome: str | None, said: str = "", live: bool | None = None,
           now: float | None = None) -> tuple[int | None, str, int | None]:  # fmt: skip
    """(last seq, outcome, duration in ms) of a turn begun at `at` whose last line so far is
    `last_seq`, whose agent last wrote at `worked_at`, ended with `status` (a turn.end's; ""
    without one) or, as its fold found, `outcome` (None: the log's last turn, with no end).
    Such a turn is under way when `live` says so (True: nodwyn's own task, not closed; False:
    closed) or, with `live` None, while its agent wrote in it lately (is_live); else it is
    settled by what the agent last `said` in it: "answer" completed, "" no answer, anything
    else interrupted (ADR 0039). A duration is the agent's
    own (a turn.end's) or the span of the agent's record times; none under way, and none
    where the log gives the turn one time (a span of 0)."""
    if not status and outcome is None:
        if live or (live is None and is_live(worked_at, now)):
            return None, "under way", None
        outcome = SETTLED.get(said, "interrupted")
    outcome = status or outcome or "interrupted"
    if ms is None:
        ms = _millis(at, worked_at)
    return last_seq, outcome, ms or None


def _millis(first: str, last: str) -> int | None:
    try:
        start = datetime.fromisoformat(first.replace("Z", "+00:00"))
        end = datetime.fromisoformat(last.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, round((end - start).total_seconds() * 1000))
