"""The plain count of Gemini CLI, Copilot CLI, OpenCode and Aider logs, day by day: the oracle
the usage report is held against for the agents besides Claude Code and Codex
(tests/test_usage_counting_agents.py; tests/plain_count.py holds those two).

Written from the formats alone (../shared/FORMATS-AGENTS.md), sharing nothing with the importers.
Each item is {at, input, output, cache_write, cache_read, cost}; `at` an ISO time (UTC, or local
without a zone for Aider, whose file gives local times only), `cost` the log's own or None.
Thinking is output, as every provider bills it; input never holds the cached tokens.
- Gemini CLI: each `gemini` message once by its id over the file (JSONL re-appends an id as its
  tokens arrive; `$set.messages` writes the list again), the last copy's `tokens`, dated by the
  first copy's time; `input` holds `cached`, `thoughts` are output, `tool` is prompt (input).
- Copilot CLI: each `assistant.message` once by its `messageId`, its `outputTokens`, at its time;
  the input and cache tokens only in `session.shutdown`'s `tokenDetails`, at the shutdown's time.
- OpenCode: each request once by its id: an assistant message's `step-finish` parts, else the
  message; their `tokens` (`reasoning` is output) and `cost`, dated by the message's
  `time.created` (ms); from the SQLite `message` and `part` tables or an export's JSON.
- Aider: each `> Tokens: … sent, … received.` line (`k`/`M` as written, the only precision
  the file gives; "sent" is the whole prompt, its cache hits and writes in it, as aider's
  base_coder adds them), its `Cost: $x message` where there is one; dated by the prompt before it
  (its time the `.aider.input.history` entry with its text, the run's header before the first).
"""

import datetime as dt
import json
import re
import shutil
import sqlite3
import tempfile
from pathlib import Path

from plain_count import FIELDS, _lines, by_day


def _item(at: str, input=0, output=0, cache_write=0, cache_read=0, cost=None) -> dict:
    return {"at": at, "input": input, "output": output, "cache_write": cache_write,
            "cache_read": cache_read, "cost": cost}  # fmt: skip


# -- Gemini CLI ---------------------------------------------------------------------------
def _gemini_messages(path: Path):
    if path.suffix == ".json":
        whole = json.loads(path.read_text("utf-8", "replace"))
        yield from whole.get("messages") or () if isinstance(whole, dict) else ()
        return
    for line in _lines(path):
        if isinstance(line.get("$set"), dict):
            yield from line["$set"].get("messages") or ()
        elif "id" in line and "type" in line:
            yield line


def gemini(folder: Path) -> list[dict]:
    found = []
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.jsonl")]):
        seen: dict[str, dict] = {}
        for m in _gemini_messages(path):
            if not isinstance(m, dict) or m.get("type") != "gemini":
                continue
            t = m.get("tokens")
            if not isinstance(t, dict) or not m.get("timestamp"):
                continue
            first = seen.get(m.get("id"))
            cached = t.get("cached") or 0
            seen[m.get("id")] = _item(
                first["at"] if first else m["timestamp"],
                input=(t.get("input") or 0) - cached + (t.get("tool") or 0),
                output=(t.get("output") or 0) + (t.get("thoughts") or 0),
                cache_read=cached,
            )
        found.extend(seen.values())
    return found


# -- Copilot CLI --------------------------------------------------------------------------
def copilot(folder: Path) -> list[dict]:
    found = []
    for path in sorted(folder.glob("*.jsonl")):
        seen: dict[str, dict] = {}
        for event in _lines(path):
            data, kind = event.get("data") or {}, event.get("type")
            if kind == "assistant.message" and data.get("outputTokens"):
                seen[data.get("messageId")] = _item(event["timestamp"], output=data["outputTokens"])
            elif kind == "session.shutdown":
                details = data.get("tokenDetails") or {}
                count = {k: (v or {}).get("tokenCount") or 0 for k, v in details.items()}
                seen[event.get("id")] = _item(
                    event["timestamp"],
                    input=count.get("input", 0),
                    cache_read=count.get("cache_read", 0),
                    cache_write=count.get("cache_write", 0),
                )
        found.extend(seen.values())
    return found


# -- OpenCode -----------------------------------------------------------------------------
def _opencode_item(at: str, holder: dict) -> dict:
    t, cache = holder.get("tokens") or {}, (holder.get("tokens") or {}).get("cache") or {}
    return _item(
        at,
        input=t.get("input") or 0,
        output=(t.get("output") or 0) + (t.get("reasoning") or 0),
        cache_write=cache.get("write") or 0,
        cache_read=cache.get("read") or 0,
        cost=holder.get("cost"),
    )


def _opencode_database(path: Path):
    """Read from a copy (with its -wal): SQLite writes a -shm beside a WAL database it opens,
    even read-only, and the corpus is never written."""
    with tempfile.TemporaryDirectory() as folder:
        for file in (path, path.with_name(path.name + "-wal")):
            if file.is_file():
                shutil.copyfile(file, Path(folder) / file.name)
        db = sqlite3.connect(Path(folder) / path.name)
        try:
            parts: dict[str, dict] = {}
            for pid, mid, data in db.execute("select id, message_id, data from part"):
                part = json.loads(data)
                if part.get("type") == "step-finish":
                    parts.setdefault(mid, {})[pid] = part
            rows = db.execute("select id, data from message").fetchall()
        finally:
            db.close()
    for mid, data in rows:
        yield mid, json.loads(data), parts.get(mid, {})


def _opencode_messages(path: Path):
    """(message id, message, its step-finish parts by id) of a database or an export."""
    if path.suffix == ".db":
        yield from _opencode_database(path)
        return
    whole = json.loads(path.read_text("utf-8", "replace"))
    for m in whole.get("messages") or ():
        info = m.get("info") or {}
        steps = {p.get("id"): p for p in m.get("parts") or () if p.get("type") == "step-finish"}
        yield info.get("id"), info, steps


def opencode(folder: Path) -> list[dict]:
    """Each request once: a message's step-finish parts by their ids (OpenCode sets the
    message's tokens to each step's in turn and adds up its cost), else the message."""
    seen: dict[str, dict] = {}
    for path in sorted([*folder.glob("*.db"), *folder.glob("*.json")]):
        for mid, message, steps in _opencode_messages(path):
            if message.get("role") != "assistant" or not isinstance(message.get("tokens"), dict):
                continue
            ms = (message.get("time") or {}).get("created") or 0
            at = dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat()
            for key, holder in (steps or {mid: message}).items():
                seen[key] = _opencode_item(at, holder)
    return list(seen.values())


# -- Aider --------------------------------------------------------------------------------
_STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_TOKENS = re.compile(r"^> Tokens: (.*?) received\.?(?: +Cost: \$([\d.]+) message)?")
_COUNT = re.compile(r"([\d.]+)([kM]?) (sent|cache write|cache hit|received)")
_ENTRY = re.compile(r"^# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")


def _number(text: str, unit: str) -> int:
    return round(float(text) * {"k": 1_000, "M": 1_000_000}.get(unit, 1))


def _entries(path: Path) -> list[tuple[str, str]]:
    """(local time, text) of each `.aider.input.history` entry."""
    out: list[tuple[str, list[str]]] = []
    if path.is_file():
        for line in path.read_text("utf-8", "replace").splitlines():
            if stamp := _ENTRY.match(line):
                out.append((stamp.group(1).replace(" ", "T"), []))
            elif line.startswith("+") and out:
                out[-1][1].append(line[1:])
    return [(at, "\n".join(lines).strip()) for at, lines in out]


def aider(folder: Path) -> list[dict]:
    found = []
    for path in sorted(folder.glob("*.aider.chat.history.md")):
        entries = _entries(path.with_name(path.name.replace("chat.history.md", "input.history")))
        at, prompt, taken = "", [], 0
        for line in [*path.read_text("utf-8", "replace").splitlines(), ""]:
            if started := _STARTED.match(line):
                at, prompt = started.group(1).replace(" ", "T"), []
            elif line.startswith("#### "):
                prompt.append(line[5:].rstrip())
                continue
            if prompt:  # the prompt's lines ended: its time is its entry's
                words = "\n".join(prompt).strip()
                for n in range(taken, len(entries)):
                    if entries[n][1] == words and entries[n][0] >= at:
                        at, taken = entries[n][0], n + 1
                        break
                prompt = []
            if tokens := _TOKENS.match(line):
                counts = _COUNT.findall(tokens.group(1) + " received")
                seen = {what: _number(n, unit) for n, unit, what in counts}
                cost = float(tokens.group(2)) if tokens.group(2) else None
                hit, write = seen.get("cache hit", 0), seen.get("cache write", 0)
                found.append(_item(at, input=seen.get("sent", 0) - hit - write, cache_read=hit,
                                   output=seen.get("received", 0), cache_write=write,
                                   cost=cost))  # fmt: skip
    return found


AGENTS = {"gemini": gemini, "copilot": copilot, "opencode": opencode, "aider": aider}


def days_of(agent: str, folder: Path) -> dict[str, dict[str, int]]:
    """The plain count of one agent's folder, its four fields summed per local day."""
    return by_day(AGENTS[agent](folder))


def costs_by_day(agent: str, folder: Path) -> dict[str, float]:
    """The log's own cost summed per local day, where it gives one."""
    days: dict[str, float] = {}
    for item in AGENTS[agent](folder):
        if item["cost"] is not None:
            day = next(iter(by_day([item | dict.fromkeys(FIELDS, 0)])))
            days[day] = days.get(day, 0.0) + item["cost"]
    return days
