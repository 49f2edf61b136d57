"""Helpers shared by the importer tests: logs as data, sources made old, prompt rules by hand."""

import json
import os
import re
from pathlib import Path

from nodwyn.log import logfile, records
from nodwyn.store import Store

OLD = 1_600_000_000  # a source's mtime far in the past: not live, nothing held back


def age(path: Path) -> Path:
    os.utime(path, (OLD, OLD))
    return path


def imported_one(store: Store, tool: str, path: Path) -> str:
    """Import one source file that must become one task; that task's id."""
    from nodwyn.importers.sync import import_paths

    report = import_paths(store, tool, [path])
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
