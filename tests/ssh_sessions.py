"""Claude Code sessions written for the SSH machines' tests and benchmark: a session of any
number of turns in a folder of any name, and one more turn appended to a session, in the
layout FORMATS.md describes (a user line, then the assistant's reply with its usage)."""

import json
import os
import uuid
from pathlib import Path

import corpus_maker
from conftest import LONG_AGO


def turn(session: str, cwd: str, n: int, words: str = "") -> bytes:
    """One turn: the person's line and the assistant's reply, as JSON lines."""
    ask, reply = (
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session}/{n}/ask")),
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session}/{n}/reply")),
    )
    stamp = f"2025-09-03T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
              "version": "1.0.98", "gitBranch": "", "timestamp": stamp}  # fmt: skip
    user = {**common, "parentUuid": None, "type": "user", "uuid": ask,
            "message": {"role": "user", "content": f"step {n}: {words or 'go on'}"}}  # fmt: skip
    said = {"id": f"msg_{n:06d}", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-20250514", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": f"Done with step {n}. {words}"}],
            "usage": {"input_tokens": 12, "output_tokens": 40}}  # fmt: skip
    assistant = {**common, "parentUuid": ask, "type": "assistant", "uuid": reply,
                 "message": said, "requestId": f"req_{n:06d}"}  # fmt: skip
    return (json.dumps(user) + "\n" + json.dumps(assistant) + "\n").encode()


def session(folder: Path, cwd: str, turns: int, words: str = "") -> Path:
    """A finished session of `turns` turns in `folder` (dated long ago)."""
    name = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{folder}/{cwd}/{turns}"))
    path = folder / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(turn(name, cwd, n, words) for n in range(turns)))
    os.utime(path, (LONG_AGO, LONG_AGO))
    return path


def grow(path: Path, words: str = "one turn more") -> int:
    """Append one turn to a session written by `session`; the bytes appended."""
    lines = path.read_bytes().splitlines()
    first = json.loads(lines[0])
    more = turn(first["sessionId"], first["cwd"], len(lines) // 2, words)
    with open(path, "ab") as handle:
        handle.write(more)
    os.utime(path, (LONG_AGO + 60, LONG_AGO + 60))
    return len(more)


def fixture_corpus(into: Path) -> dict[str, Path]:
    """The fixture corpus's Claude Code and Codex files written into `into` (dated long ago):
    agent -> its folder."""
    for name, data in corpus_maker.files().items():
        if name.startswith(("claude/", "codex/")):
            path = into / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in [into, *into.rglob("*")]:
        os.utime(path, (LONG_AGO, LONG_AGO))
    return {"claude": into / "claude", "codex": into / "codex"}
