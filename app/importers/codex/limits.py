"""Codex's rate limits, from the `rate_limits` of its `token_count` events, as limit records.

Codex writes `{limit_id, primary, secondary, plan_type, rate_limit_reached_type}` on every
token count; each of `primary` and `secondary` is `{used_percent, window_minutes, resets_at}`
(resets_at in Unix seconds), or null. Which of the two is the five-hour window is not fixed
(a plan without one has the week as `primary`), so a window is named by its length, not by its
slot. A window is written when its figures change, and again when the last one written is more
than REPEAT_AFTER old, so a figure's "as of" is never further than that from the last event
that said it (the log does not fill with a copy per model response).
"""

from datetime import UTC, datetime
from typing import Any

from ...log import records as r

REPEAT_AFTER = 300  # seconds
SLOTS = ("primary", "secondary")


def read(limits: dict, at: str, src: r.Src, last: dict[str, list]) -> list[r.Limit]:
    """The windows of one `rate_limits` object that are new since `last` (updated in place)."""
    name = limits.get("limit_id") if isinstance(limits.get("limit_id"), str) else "codex"
    plan = limits.get("plan_type") if isinstance(limits.get("plan_type"), str) else ""
    reached = bool(limits.get("rate_limit_reached_type"))
    found = []
    for slot in SLOTS:
        window = limits.get(slot)
        used = _number(window.get("used_percent")) if isinstance(window, dict) else None
        if used is None:
            continue
        minutes = _number(window.get("window_minutes"))
        resets = _stamp(window.get("resets_at"))
        key = f"{name}/{slot}"
        said = [used, resets, at]
        if _same(last.get(key), said):
            continue
        last[key] = said
        found.append(
            r.Limit(
                at=at,
                src=r.Src(line=src.line, id=slot),
                name=name,
                window_minutes=int(minutes or 0),
                used_percent=float(used),
                resets_at=resets,
                plan=plan,
                reached=reached and used >= 100,
            )
        )
    return found


def _same(before: list | None, now: list) -> bool:
    if before is None or before[:2] != now[:2]:
        return False
    return _seconds(now[2]) - _seconds(before[2]) < REPEAT_AFTER


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _stamp(value: Any) -> str:
    """Unix seconds as the log writes times; "" for anything else."""
    seconds = _number(value)
    if seconds is None or not 0 < seconds < 4e10:
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _seconds(stamp: str) -> float:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
