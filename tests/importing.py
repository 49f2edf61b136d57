"""Helpers shared by the importer tests: logs as data, sources made old, prompt rules by hand."""

import json
import os
import re
from pathlib import Path

from nodwyn.log import logfile, records
from nodwyn.tasks.store import Store

OLD = 1_600_000_000  # a source's mtime far in the past: not live, nothing held back


# -- hand-written Claude Code lines ------------------------------------------------------
SESSION = "11111111-2222-3333-4444-555555555555"
MODEL = "claude-sonnet-4-20250514"


def env(uuid, parent, ts, **extra) -> dict:
    base = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/ana/pager",
        "sessionId": SESSION,
        "version": "2.1.9",
        "gitBranch": "main",
        "uuid": uuid,
        "timestamp": f"2026-05-01T10:00:{ts:02d}.000Z",
    }
    return base | extra


def prompt(uuid, parent, ts, text, **extra) -> dict:
    return env(uuid, parent, ts, type="user", message={"role": "user", "content": text}, **extra)


def reply(uuid, parent, ts, msg, blocks, **extra) -> dict:
    usage = {"input_tokens": 10, "output_tokens": 20, "cache_read_input_tokens": 1000}
    message = {"id": msg, "role": "assistant", "model": MODEL, "content": blocks, "usage": usage}
    return env(uuid, parent, ts, type="assistant", message=message, **extra)


def result(uuid, parent, ts, call, text, tool_result=None, **extra) -> dict:
    block = {"type": "tool_result", "tool_use_id": call, "content": text}
    line = env(uuid, parent, ts, type="user", message={"role": "user", "content": [block]})
    return line | {"toolUseResult": tool_result or {"stdout": text}} | extra


def text(value):
    return {"type": "text", "text": value}


def use(call, name, **args):
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def session() -> list[dict]:
    return [
        {"type": "summary", "summary": "Pager order fix", "leafUuid": "u9"},
        prompt("u1", None, 1, "Fix the flaky TestPagerOrder"),
        reply("u2", "u1", 2, "m1", [text("Looking.")]),
        reply("u3", "u2", 3, "m1", [use("c1", "Edit", file_path="/home/ana/pager/order.go")]),
        result("u4", "u3", 4, "c1", "edited"),
        reply("u5", "u4", 5, "m2", [text("Fixed it.")]),
        env("u6", "u5", 6, type="system", subtype="turn_duration", durationMs=5000),
    ]


def write(path: Path, lines: list, tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines) + tail)
    return path


def age(path: Path) -> Path:
    os.utime(path, (OLD, OLD))
    return path


def imported_one(store: Store, agent: str, path: Path) -> str:
    """Import one source file that must become one task; that task's id."""
    from nodwyn.importers.sync import import_paths

    report = import_paths(store, agent, [path])
    assert not report.skipped, report.skipped
    (task,) = report.created + report.extended + report.unchanged
    return task


def log_of(store: Store, task: str) -> list:
    return [record for _offset, _end, record in logfile.read(store.log_path(task))]


def plain(store: Store, task: str) -> list[dict]:
    return [records.to_builtins(record) for record in log_of(store, task)]


def raw_lines(path: Path) -> list[dict]:
    """The source's lines as JSON objects (lines that are not are left out)."""
    found = []
    for line in path.read_bytes().split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


_CONTEXT = re.compile(r"<(system-reminder|ide_opened_file|ide_selection)>.*?</\1>", re.S)


def _words(content) -> tuple[str, bool]:
    """A user message's own words (context blocks removed) and whether it has an image."""
    if isinstance(content, str):
        return _CONTEXT.sub("", content).strip(), False
    texts, image = [], False
    for block in content or []:
        if block.get("type") == "text":
            texts.append(_CONTEXT.sub("", block.get("text", "")))
        elif block.get("type") in ("image", "document"):
            image = True
    return "\n".join(texts).strip(), image


def claude_prompts(path: Path) -> list[dict]:
    """The records of a Claude transcript that start turns, by FORMATS.md's rules, by hand."""
    lines = [x for x in raw_lines(path) if x.get("type") in ("user", "assistant", "system")]
    prompts = []
    for index, line in enumerate(lines):
        if line["type"] != "user" or line.get("isSidechain") or line.get("isMeta"):
            continue
        if line.get("isCompactSummary") or "toolUseResult" in line:
            continue
        content = (line.get("message") or {}).get("content")
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            continue
        text, image = _words(content)
        if text.startswith(("[Request interrupted", "<local-command-")):
            continue
        if "<command-name>" in text and _ran_locally(lines[index + 1 :]):
            continue
        if text or image:
            prompts.append(line)
    return prompts


def _ran_locally(after: list[dict]) -> bool:
    """Whether what follows a slash command is its local output (so it was no prompt)."""
    for line in after:
        content = (line.get("message") or {}).get("content")
        text, _image = _words(content) if line["type"] == "user" else ("", False)
        if line.get("isMeta") and text.startswith(("Caveat:", "<local-command-caveat>")):
            continue
        return text.startswith("<local-command-")
    return False


def codex_prompts(path: Path) -> list[dict]:
    return [
        x
        for x in raw_lines(path)
        if x.get("type") == "event_msg" and (x.get("payload") or {}).get("type") == "user_message"
    ]


def claude_answered(path: Path) -> int:
    """Turns whose last main-agent record before the next prompt (or the file's end) is a
    response of text only (all its parts, wherever they are in the file), no call, not cut at
    max_tokens: the rule for turn ends in logs that write none, counted by hand."""
    prompts = {(x.get("uuid"), x.get("timestamp")) for x in claude_prompts(path)}
    lines = raw_lines(path)
    parts: dict[str, list[dict]] = {}  # message id -> its main-agent parts
    for line in lines:
        if line.get("type") == "assistant" and not line.get("isSidechain"):
            parts.setdefault(line["message"].get("id"), []).append(line)
    count, last, started = 0, None, False  # last: the turn's latest main record
    for line in [*lines, None]:
        if line is None or (line.get("uuid"), line.get("timestamp")) in prompts:
            if started and last is not None and last["type"] == "assistant":
                count += _final(parts[last["message"].get("id")])
            last, started = None, True  # records before the first prompt are no turn
            continue
        if line.get("type") not in ("user", "assistant") or line.get("isSidechain"):
            continue
        if line.get("isMeta") or line.get("isCompactSummary"):
            continue
        words = _words((line.get("message") or {}).get("content"))[0]
        if line["type"] == "user" and ("<command-name>" in words or "<local-command-" in words):
            continue  # a command that ran locally: no word to or from the agent
        last = line
    return count


def _final(parts: list[dict]) -> bool:
    blocks = [b for x in parts for b in x["message"].get("content") or []]
    if any(isinstance(b, str) for b in blocks) or any(
        x["message"].get("model") == "<synthetic>" for x in parts
    ):
        return False
    stops = {x["message"].get("stop_reason") for x in parts} - {None}
    texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
    calls = [b for b in blocks if b.get("type") in ("tool_use", "server_tool_use")]
    return any(t.strip() for t in texts) and not calls and stops <= {"end_turn", "stop_sequence"}


# The tables of an opencode.db of v1.2 and later, only the columns the importer reads.
OPENCODE_TABLES = """
        create table if not exists session (id text primary key, project_id text, parent_id text,
          slug text, directory text, title text, version text, time_created integer,
          time_updated integer, model text, cost real);
        create table if not exists message (id text primary key, session_id text,
          time_created integer, time_updated integer, data text);
        create table if not exists part (id text primary key, message_id text, session_id text,
          time_created integer, time_updated integer, data text);
"""
