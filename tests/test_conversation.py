"""Finding "this conversation": the agent's own session file, from what the agent tells nodwyn."""

import json
import os
import time

import pytest
from nodwyn.mcp.conversation import (
    agent_from_client,
    claude_slug,
    find_source,
    session_id_from_meta,
)


def touch(path, text="{}\n", age=0.0):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    moment = time.time() - age
    os.utime(path, (moment, moment))
    return path


@pytest.fixture
def homes(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return tmp_path


def test_claude_code_names_a_projects_folder_by_its_path_with_dashes():
    assert claude_slug("/home/kenth56/vsla") == "-home-kenth56-vsla"
    assert claude_slug("/a/b.c_d") == "-a-b-c-d"


def test_the_newest_claude_session_of_the_servers_folder_is_this_conversation(homes):
    folder = homes / "claude" / "projects" / claude_slug(homes / "work")
    touch(folder / "old.jsonl", age=300)
    newest = touch(folder / "new.jsonl", age=5)
    touch(folder / "agent-1234.jsonl")  # a sub-agent's file, written last, is not the session
    touch(homes / "claude" / "projects" / claude_slug(homes / "other") / "x.jsonl")
    assert find_source("claude", homes / "work") == newest


def test_a_session_id_picks_that_session_whatever_the_folder(homes):
    wanted = touch(homes / "claude" / "projects" / "-elsewhere" / "abc-123.jsonl", age=100)
    touch(homes / "claude" / "projects" / claude_slug(homes / "work") / "zzz.jsonl")
    assert find_source("claude", homes / "work", "abc-123") == wanted
    assert find_source("claude", homes / "work", "nope") is None


def test_the_newest_codex_rollout_started_in_the_servers_folder_is_this_conversation(homes):
    def rollout(name, cwd, age):
        meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": name, "cwd": cwd}}
        day = homes / "codex" / "sessions" / "2026" / "11" / "29"
        return touch(day / f"rollout-2026-11-29T10-00-00-{name}.jsonl", json.dumps(meta), age)

    rollout("aaa", str(homes / "work"), 200)
    mine = rollout("bbb", str(homes / "work"), 50)
    rollout("ccc", str(homes / "elsewhere"), 1)
    assert find_source("codex", homes / "work") == mine
    assert find_source("codex", homes / "work", "aaa").name.endswith("-aaa.jsonl")
    assert find_source("codex", homes / "nowhere") is None


def test_a_session_id_is_read_from_what_codex_and_other_clients_send():
    turn = {"session_id": "019b-63ce", "thread_id": "019b-0000"}
    assert session_id_from_meta({"x-codex-turn-metadata": turn}) == "019b-63ce"
    assert session_id_from_meta({"x-codex-turn-metadata": json.dumps(turn)}) == "019b-63ce"
    assert session_id_from_meta({"sessionID": "ses_1", "progressToken": 3}) == "ses_1"
    assert session_id_from_meta({"sessionId": "../../etc/passwd"}) is None
    assert session_id_from_meta({"progressToken": 3}) is None
    assert session_id_from_meta(None) is None


def test_the_agent_is_known_by_the_clients_name():
    assert agent_from_client("claude-code") == "claude"
    assert agent_from_client("codex-mcp-client") == "codex"
    assert agent_from_client("inspector") is None
