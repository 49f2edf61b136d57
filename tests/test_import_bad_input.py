"""Bad input, made many ways from good sessions of each agent of issue 18: cut anywhere,
bytes flipped, lines dropped, doubled or swapped, junk lines put in. Whatever the damage,
an import ends with a task or a one-line reason, never an exception, and every line of
every log it writes is a record (a fixed seed: a failure can be replayed)."""

import json
import os
import random

import pytest
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store

OLD = 1_600_000_000
SEED = 18


def gemini_lines() -> list[bytes]:
    meta = {"sessionId": "5e55104e-3", "projectHash": "ab", "startTime": "2026-05-01T10:00:00.000Z",
            "lastUpdated": "2026-05-01T10:00:00.000Z", "kind": "main"}  # fmt: skip
    answer = {"id": "c1", "name": "run_shell_command", "response": {"output": "a\nExit Code: 0"}}
    call = {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"},
            "status": "success", "result": [{"functionResponse": answer}]}  # fmt: skip
    lines = [
        meta,
        {"id": "u1", "timestamp": "2026-05-01T10:00:01.000Z", "type": "user",
         "content": [{"text": "hi"}]},
        {"id": "g1", "timestamp": "2026-05-01T10:00:02.000Z", "type": "gemini", "content": "hello",
         "toolCalls": [call], "tokens": {"input": 9, "output": 3, "cached": 0, "thoughts": 0}},
        {"$set": {"summary": "Greeting"}},
        {"$rewindTo": "g1"},
        {"id": "u2", "timestamp": "2026-05-01T10:00:03.000Z", "type": "user", "content": "again"},
    ]  # fmt: skip
    return [json.dumps(x).encode() for x in lines]


def copilot_lines() -> list[bytes]:
    def event(n, kind, **data):
        return {"type": kind, "data": data, "id": f"e{n}", "parentId": f"e{n - 1}",
                "timestamp": f"2026-06-08T02:30:0{n}.000Z"}  # fmt: skip

    lines = [
        event(0, "session.start", sessionId="c0ffee00-3", context={"cwd": "/home/ana"}),
        event(1, "user.message", content="hi"),
        event(2, "assistant.message", content="hello", outputTokens=4,
              toolRequests=[{"toolCallId": "t1", "name": "bash", "arguments": {"command": "ls"}}]),
        event(3, "tool.execution_complete", toolCallId="t1", success=False,
              error={"message": "no"}),
        event(4, "abort", reason="user_initiated"),
        event(5, "session.shutdown"),
    ]  # fmt: skip
    return [json.dumps(x).encode() for x in lines]


def antigravity_lines() -> list[bytes]:
    def step(n, source, kind, **fields):
        return {"step_index": n, "source": source, "type": kind, "status": "DONE",
                "created_at": f"2026-07-07T06:5{n}:00Z", **fields}  # fmt: skip

    args = {"CommandLine": '"ls"', "Cwd": '"/home/ana"'}
    lines = [
        step(0, "USER_EXPLICIT", "USER_INPUT", content="<USER_REQUEST>\nhi\n</USER_REQUEST>"),
        step(1, "MODEL", "PLANNER_RESPONSE", content="ok",
             tool_calls=[{"name": "run_command", "args": args}]),
        step(2, "MODEL", "RUN_COMMAND", content="Created At: x\nexit code: 1"),
        step(3, "SYSTEM", "CHECKPOINT", content="# Resuming from a compaction"),
        step(4, "SYSTEM", "ERROR_MESSAGE", error="overloaded", error_code=429),
    ]  # fmt: skip
    return [json.dumps(x).encode() for x in lines]


AGENTS = {
    "gemini": (gemini_lines, ".gemini/tmp/p/chats/session-2026-05-01T10-00-5e55104e.jsonl"),
    "copilot": (copilot_lines, ".copilot/session-state/c0ffee00-3/events.jsonl"),
    "antigravity": (
        antigravity_lines,
        "brain/0a0a0a0a-0000-4000-8000-000000000003/.system_generated/logs/transcript.jsonl",
    ),  # noqa: E501
}


def damaged(lines: list[bytes], rng: random.Random) -> bytes:
    data = b"\n".join(lines) + b"\n"
    how = rng.randrange(6)
    if how == 0:  # cut anywhere
        return data[: rng.randrange(len(data) + 1)]
    if how == 1:  # bytes flipped
        raw = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        return bytes(raw)
    picked = list(lines)
    if how == 2 and len(picked) > 1:  # a line dropped
        picked.pop(rng.randrange(len(picked)))
    elif how == 3:  # a line doubled
        at = rng.randrange(len(picked))
        picked.insert(at, picked[at])
    elif how == 4 and len(picked) > 1:  # two lines swapped
        a, b = rng.sample(range(len(picked)), 2)
        picked[a], picked[b] = picked[b], picked[a]
    else:  # junk put in
        junk = [b"not json", b"[]", b"{}", b'{"type": 3}', b"\xff\xfe", b'{"data": null}', b"null"]
        picked.insert(rng.randrange(len(picked) + 1), rng.choice(junk))
    return b"\n".join(picked) + b"\n"


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_damaged_sessions_give_a_task_or_a_reason_and_only_whole_records(agent, tmp_path):
    make, where = AGENTS[agent]
    rng = random.Random(f"{SEED}-{agent}")
    for round_ in range(60):
        os.environ["NODWYN_DATA_DIR"] = str(tmp_path / f"data{round_}")
        store = Store()
        path = tmp_path / f"src{round_}" / where
        path.parent.mkdir(parents=True)
        path.write_bytes(damaged(make(), rng))
        if rng.random() < 0.5:
            os.utime(path, (OLD, OLD))  # else fresh: live
        report = import_paths(store, agent, [path])
        again = import_paths(store, agent, [path])
        assert len(report.created) + len(report.skipped) == 1, (round_, report)
        assert not again.created and not again.extended, (round_, again)
        assert all(s.reason for s in report.skipped)
        for log in store.sessions.glob("*.jsonl"):
            for line in log.read_bytes().splitlines():
                records.decode(line)  # raises Damaged for a line that is no record


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_session_cut_at_every_line_then_whole_adds_up_to_the_whole(agent, tmp_path):
    make, where = AGENTS[agent]
    lines = make()
    os.environ["NODWYN_DATA_DIR"] = str(tmp_path / "whole")
    path = tmp_path / "src" / where
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    os.utime(path, (OLD, OLD))
    (task,) = import_paths(Store(), agent, [path]).created
    want = Store().log_path(task).read_bytes().count(b"\n")
    os.environ["NODWYN_DATA_DIR"] = str(tmp_path / "parts")
    for cut in range(1, len(lines) + 1):
        path.write_bytes(b"\n".join(lines[:cut]) + b"\n")  # fresh: still being written
        import_paths(Store(), agent, [path])
    os.utime(path, (OLD, OLD))
    import_paths(Store(), agent, [path])
    assert Store().log_path(task).read_bytes().count(b"\n") == want
