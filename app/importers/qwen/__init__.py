"""Qwen Code (QwenLM/qwen-code, a fork of Gemini CLI) as a registered agent: `~/.qwen/projects/`.

Each session is `projects/<cwd with every other character as ->/chats/<session id>.jsonl`,
appended to record by record (`records`); `QWEN_HOME` moves `~/.qwen`, `QWEN_RUNTIME_DIR` the
folder holding `projects`. The folder is the records' `cwd`, the title Qwen Code's own
(`custom_title`, from 0.15) else the first prompt. The Gemini-CLI-style prompt log
`tmp/<hash>/logs.json` holds only the prompts the chat file holds too: it is refused as a
session, said why (ADR 0053).
"""

import os
from pathlib import Path

import msgspec

from ..agent import Agent, Found, carry_of, first_line, home_of

_any = msgspec.json.Decoder().decode
KINDS = ("user", "assistant", "tool_result", "system")


class Qwen(Agent):
    name = "qwen"
    resume = "qwen --resume {id}"
    prefix = "qw-"

    def roots(self) -> list[Path]:
        runtime = os.environ.get("QWEN_RUNTIME_DIR")
        return [(Path(runtime) if runtime else home_of("QWEN_HOME", ".qwen")) / "projects"]

    def recognise(self, path: Path) -> Found | str:
        if path.suffix == ".json":
            return _json_verdict(path)
        first = first_line(path, self.label)
        if isinstance(first, str):
            return first
        if not _is_record(first):
            return "not a Qwen Code session (no chat record with a sessionId and Gemini parts)"
        return Found(self.task_id(first["sessionId"]), first["sessionId"])

    def parser(self, path: Path, found: Found, carry: msgspec.Raw | None):
        from . import records  # loaded by the first file it reads: listing the agents loads none

        return records.Parser(str(path), carry_of(carry, records.Carry))


def _is_record(line) -> bool:
    """A chat record: Claude Code's lines share most fields, but hold `content`, not `parts`."""
    if not isinstance(line, dict) or line.get("type") not in KINDS:
        return False
    if not isinstance(line.get("sessionId"), str) or not line["sessionId"] or "userType" in line:
        return False
    message = line.get("message")
    return isinstance(line.get("systemPayload"), dict) or (
        isinstance(message, dict) and isinstance(message.get("parts"), list)
    )


def _json_verdict(path: Path) -> str:
    try:
        data = _any(path.read_bytes())
    except (msgspec.DecodeError, OSError):
        return "not a Qwen Code session (not JSON lines)"
    if (
        isinstance(data, list)
        and data
        and all(
            isinstance(x, dict) and {"sessionId", "messageId", "message"} <= set(x) for x in data
        )
    ):
        return (
            "Qwen Code's prompt log (logs.json): the prompts it lists are read from the "
            "session's own chat file"
        )
    return "not a Qwen Code session (not JSON lines)"


AGENT = Qwen()
