"""Writers of the fixture corpus's lines: Claude Code transcripts and Codex rollouts with their
envelopes filled in (used by tests/corpus_claude.py and tests/corpus_codex.py)."""

import json

SONNET = "claude-sonnet-4-20250514"
DEMO = "/path/to/Demo"
VSLA = "/home/kenth56/vsla"
GRANTS = "/home/ana/grants"


def dump(line) -> bytes:
    if isinstance(line, bytes):
        return line  # a line cut off mid-write
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class Claude:
    """One Claude Code transcript being written: envelopes filled in, uuids chained."""

    def __init__(self, session: str, cwd: str, version: str, day: str, **extra):
        self.session, self.cwd, self.version, self.day = session, cwd, version, day
        self.extra, self.lines, self.last, self.tick, self.count = extra, [], None, 0, 0

    def stamp(self) -> str:
        self.tick += 7
        minutes, seconds = divmod(self.tick, 60)
        return f"{self.day}T10:{minutes:02d}:{seconds:02d}.{self.tick % 1000:03d}Z"

    def chained(self, kind: str, side: bool = False, root: bool = False, **fields) -> dict:
        self.count += 1
        uuid = f"{self.session[:8]}-{self.count:04d}-4000-8000-{self.count:012d}"
        line = {
            "parentUuid": None if root else self.last,
            "isSidechain": side,
            "userType": "external",
            "cwd": fields.pop("cwd", self.cwd),
            "sessionId": self.session,
            "version": self.version,
            **self.extra,
            "type": kind,
            **fields,
            "uuid": uuid,
            "timestamp": self.stamp(),
        }
        self.lines.append(line)
        if not side:
            self.last = uuid
        return line

    def add(self, line: dict | bytes) -> None:
        self.lines.append(line)

    def prompt(self, content, **fields) -> dict:
        return self.chained("user", message={"role": "user", "content": content}, **fields)

    def reply(self, msg: str, *blocks: dict, side=False, model=SONNET, **fields) -> dict:
        usage = {
            "input_tokens": 12,
            "cache_creation_input_tokens": 340,
            "cache_read_input_tokens": 15200,
            "output_tokens": 180,
        }
        message = {
            "id": msg,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": list(blocks),
            "stop_reason": None,
            "usage": usage,
        }
        return self.chained(
            "assistant", side=side, message=message, requestId="req_" + msg, **fields
        )

    def result(self, call: str, output, structured, error=False, side=False) -> dict:
        block = {"tool_use_id": call, "type": "tool_result", "content": output}
        if error:
            block["is_error"] = True
        message = {"role": "user", "content": [block]}
        return self.chained("user", side=side, message=message, toolUseResult=structured)

    def system(self, subtype: str, **fields) -> dict:
        return self.chained("system", subtype=subtype, **fields)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def use(call: str, name: str, **args) -> dict:
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def thinking(value: str) -> dict:
    return {"type": "thinking", "thinking": value, "signature": "EqQBCkYIBxgCKkB" + "a" * 40}


def todos(*items: tuple[str, str]) -> list[dict]:
    return [
        {"content": what, "status": status, "activeForm": what + "…", "id": str(n)}
        for n, (what, status) in enumerate(items, 1)
    ]


def build_log(lines: int) -> str:
    """A build's output, long enough that a turn's outline is longer than recall shows."""
    steps = [
        f"   Compiling route {n:03d} /todos/filter/{n} ... done in {n % 9 + 1}ms"
        for n in range(lines)
    ]
    return "\n".join(["> demo@0.1.0 build", "> next build", *steps, "✓ Compiled successfully"])


class Codex:
    """One Codex rollout being written: each line stamped, in order."""

    def __init__(self, day: str):
        self.day, self.lines, self.tick = day, [], 0

    def add(self, kind: str, payload: dict) -> None:
        self.tick += 3
        minutes, seconds = divmod(self.tick, 60)
        stamp = f"{self.day}T15:{minutes:02d}:{seconds:02d}.{self.tick % 1000:03d}Z"
        self.lines.append({"timestamp": stamp, "type": kind, "payload": payload})

    def event(self, kind: str, **fields) -> None:
        self.add("event_msg", {"type": kind, **fields})

    def item(self, kind: str, **fields) -> None:
        self.add("response_item", {"type": kind, **fields})

    def said(self, role: str, words: str) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        self.item("message", role=role, content=[{"type": kind, "text": words}])

    def prompt(self, turn: str, words: str, model: str, first: bool = False) -> None:
        self.event("task_started", turn_id=turn, model_context_window=258400)
        if first:
            self.item(
                "message",
                role="developer",
                content=[
                    {
                        "type": "input_text",
                        "text": "<permissions instructions>sandboxed</permissions instructions>",
                    }
                ],
            )
            self.said(
                "user", "<environment_context>\n  <cwd>/home/ana/app</cwd>\n</environment_context>"
            )
        self.add(
            "turn_context",
            {
                "turn_id": turn,
                "cwd": "/home/ana/app",
                "model": model,
                "effort": "medium",
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write"},
            },
        )
        self.said("user", words)
        self.event("user_message", message=words, images=[], local_images=[], text_elements=[])

    def shell(self, call: str, command: str, output: str, code: int, name="exec_command") -> None:
        self.item("function_call", name=name, arguments=json.dumps({"cmd": command}), call_id=call)
        framed = (
            f"Chunk ID: {call[-4:]}\nWall time: 0.4 seconds\nProcess exited with code {code}\n"
            f"Original token count: 40\nOutput:\n{output}"
        )
        self.item("function_call_output", call_id=call, output=framed)
        self.event(
            "exec_command_end",
            call_id=call,
            command=["bash", "-lc", command],
            exit_code=code,
            aggregated_output=output,
            status="completed" if code == 0 else "failed",
        )

    def tokens(self, inputs: int, cached: int, output: int) -> None:
        last = {
            "input_tokens": inputs,
            "cached_input_tokens": cached,
            "output_tokens": output,
            "reasoning_output_tokens": 20,
            "total_tokens": inputs + output,
        }
        self.event(
            "token_count",
            info={
                "total_token_usage": last,
                "last_token_usage": last,
                "model_context_window": 258400,
            },
            rate_limits={"primary": {"used_percent": 4.0, "window_minutes": 300}},
        )

    def answer(self, turn: str, words: str) -> None:
        self.item(
            "message",
            role="assistant",
            content=[{"type": "output_text", "text": words}],
            phase="final_answer",
        )
        self.event("agent_message", message=words)
        self.event("task_complete", turn_id=turn, last_agent_message=words, duration_ms=30210)
