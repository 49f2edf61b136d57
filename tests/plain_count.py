"""The plain count of a folder of Claude Code or Codex logs, day by day: the oracle the usage
report is held against (tests/test_usage_corpus.py, tests/bench/bench_usage_vs_ccusage.py).

Written from the log formats alone, sharing nothing with the importers:
- Claude Code: each `assistant` message once by its message id and request id (where the line
  has one), over every file of the folder (a resumed session copies earlier messages into its
  new file); its last streamed line's `usage`; dated by its first line's time.
- Codex: each `token_count` event's `last_token_usage`, an event that repeats the running total
  of the one before it dropped; `cached_input_tokens` are cache reads and not input.
Days are this machine's local days, as the usage report's.
"""

import datetime as dt
import json
from pathlib import Path

FIELDS = ("input", "output", "cache_write", "cache_read")


def local_day(at: str) -> str:
    return dt.datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone().date().isoformat()


def _lines(path: Path):
    with path.open(encoding="utf-8", errors="replace") as file:
        for line in file:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value


def claude_messages(folders: list[Path]) -> dict[str, dict]:
    """Each message once: {key: {at, model, request, input, output, cache_write, cache_read}}."""
    found: dict[str, dict] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.jsonl")):
            for n, line in enumerate(_lines(path)):
                message = line.get("message")
                if line.get("type") != "assistant" or not isinstance(message, dict):
                    continue
                usage = message.get("usage")
                if not isinstance(usage, dict) or not line.get("timestamp"):
                    continue
                request = line.get("requestId") or ""
                key = f"{message.get('id') or f'{path}:{n}'}:{request}"
                first = found.get(key)
                found[key] = {
                    "at": first["at"] if first else line["timestamp"],
                    "model": message.get("model") or "",
                    "request": bool(request),
                    "input": usage.get("input_tokens") or 0,
                    "output": usage.get("output_tokens") or 0,
                    "cache_write": usage.get("cache_creation_input_tokens") or 0,
                    "cache_read": usage.get("cache_read_input_tokens") or 0,
                }
    return found


def codex_events(folders: list[Path]) -> list[dict]:
    """Each counted `token_count` event: [{at, input, output, cache_write, cache_read}]."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.jsonl")):
            before = None
            for line in _lines(path):
                payload = line.get("payload")
                if not isinstance(payload, dict) or payload.get("type") != "token_count":
                    continue
                info = payload.get("info") or {}
                last, total = info.get("last_token_usage"), info.get("total_token_usage")
                if not isinstance(last, dict) or not line.get("timestamp"):
                    continue
                running = (total or {}).get("input_tokens"), (total or {}).get("output_tokens")
                if total and running == before:
                    continue
                before = running
                cached = last.get("cached_input_tokens") or 0
                found.append({
                    "at": line["timestamp"],
                    "input": max((last.get("input_tokens") or 0) - cached, 0),
                    "output": last.get("output_tokens") or 0,
                    "cache_write": 0,
                    "cache_read": cached,
                })  # fmt: skip
    return found


def by_day(items) -> dict[str, dict[str, int]]:
    """The four fields summed per local day."""
    days: dict[str, dict[str, int]] = {}
    for item in items:
        day = days.setdefault(local_day(item["at"]), dict.fromkeys(FIELDS, 0))
        for field in FIELDS:
            day[field] += item[field]
    return dict(sorted(days.items()))


def days_of(claude: list[Path], codex: list[Path]) -> dict[str, dict[str, int]]:
    """The plain count of both agents' folders, summed per local day."""
    return by_day([*claude_messages(claude).values(), *codex_events(codex)])


def differing(ours: dict[str, dict[str, int]], plain: dict[str, dict[str, int]], share=0.005):
    """The (day, field, ours, plain) where ours is off the plain count by more than `share`."""
    off = []
    for day in sorted(ours.keys() | plain.keys()):
        for field in FIELDS:
            a, b = ours.get(day, {}).get(field, 0), plain.get(day, {}).get(field, 0)
            if abs(a - b) > share * max(b, 1):
                off.append((day, field, a, b))
    return off
