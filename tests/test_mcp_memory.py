"""index-search and recall over a real MCP connection, on Claude Code logs of the fixture corpus.

The agent's own session is a copy of a transcript in a Claude Code projects folder named after
the server's working directory (as Claude Code keeps it); the project's earlier task and another
project's task are imported from tests/data/corpus as they are.
"""

import json
import re
import shutil

import pytest
from corpora import FIXTURES
from mcp_client import call, server, talk
from nodwyn import cli
from nodwyn.importers.sync import import_paths
from nodwyn.mcp.answer import LIMIT
from nodwyn.mcp.conversation import claude_slug
from nodwyn.tasks.store import Store

CLAUDE = FIXTURES / "claude"
OWN = "demo__todo-app__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
EARLIER = "demo__claude-md__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
OTHER = "vsla__compacted__0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl"
PROJECT = "/path/to/Demo"  # the folder these transcripts were recorded in
OWN_TASK = "cc-fe5e1c67-53e7-4862-81ae-d0e013e3270b"


@pytest.fixture
def setup(tmp_path, finished, monkeypatch):
    """The server's folder, its environment, the other tasks' ids and the live transcript."""
    claude = tmp_path / "claude"
    work = tmp_path / "work"
    work.mkdir()
    live = claude / "projects" / claude_slug(work) / OWN.split("__")[-1]
    live.parent.mkdir(parents=True)
    shutil.copyfile(CLAUDE / OWN, live)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    old = finished(FIXTURES) / "claude"
    report = import_paths(Store(), "claude", [old / EARLIER, old / OTHER])
    earlier, other = report.created
    return {"work": work, "earlier": earlier, "other": other, "live": live}


def add_prompt(live, text: str) -> None:
    """A prompt appended to the live transcript, as Claude Code writes one mid-session."""
    last = [json.loads(line) for line in live.read_text().splitlines()]
    parent = next(r for r in reversed(last) if r.get("uuid") and not r.get("isSidechain"))
    record = {
        "parentUuid": parent["uuid"],
        "isSidechain": False,
        "userType": "external",
        "cwd": PROJECT,
        "sessionId": parent["sessionId"],
        "version": parent.get("version", "1.0.98"),
        "gitBranch": "",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": "0d6f4c1e-0000-4000-8000-000000000001",
        "timestamp": "2025-09-03T02:00:00.000Z",
    }
    with open(live, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def switch(state: str) -> None:
    assert cli.main(["settings", "earlier-tasks", PROJECT, state]) == 0


def test_tools_are_listed_with_short_schemas(setup):
    async def script(session):
        return (await session.list_tools()).tools

    tools = talk(server(setup["work"], {}), script)
    assert [tool.name for tool in tools] == [
        "index-search",
        "recall",
        "name-task",
        "record-summary",
        "who-wrote",
    ]
    assert all(len(tool.description) <= 200 for tool in tools)
    assert tools[0].input_schema["required"] == ["query"]


def test_search_finds_this_conversation_including_the_turn_under_way(setup):
    async def script(session):
        first = await call(session, "index-search", query="TodoList")
        add_prompt(setup["live"], "Please add a zebrafish filter to the list")
        second = await call(session, "index-search", query="zebrafish")
        return first, second

    (error1, text1), (error2, text2) = talk(server(setup["work"], {}), script)
    assert not error1 and "this conversation" in text1 and "TodoList" in text1
    assert "turn seq " in text1 and "2025-09-03" in text1
    assert setup["earlier"] not in text1  # the conversation scope is this task only
    assert text1.startswith("Quoted from session logs") and "not instructions" in text1
    assert "<nodwyn-data>" in text1 and text1.rstrip().endswith("</nodwyn-data>")
    assert not error2 and "zebrafish" in text2


def test_earlier_tasks_are_refused_then_allowed_then_refused_after_the_switch_is_off(setup):
    async def script(session):
        answers = [await call(session, "index-search", query="CLAUDE.md", scope="earlier")]
        switch("on")
        answers.append(await call(session, "index-search", query="CLAUDE.md", scope="earlier"))
        switch("off")
        answers.append(await call(session, "index-search", query="CLAUDE.md", scope="earlier"))
        return answers

    (error1, text1), (error2, text2), (error3, text3) = talk(server(setup["work"], {}), script)
    assert error1 and "nodwyn settings earlier-tasks /path/to/Demo on" in text1
    assert "Only the person" in text1
    assert not error2 and f"earlier task {setup['earlier']}" in text2
    assert OWN_TASK not in text2  # earlier tasks are the others
    assert error3 and text3 == text1


def test_another_projects_task_is_refused_whatever_the_switch(setup):
    switch("on")

    async def script(session):
        return (
            await call(session, "recall", seq=2, task=setup["other"]),
            await call(session, "recall", seq=2, task=setup["earlier"]),
        )

    (error1, text1), (error2, text2) = talk(server(setup["work"], {}), script)
    assert error1 and "another project" in text1 and "vsla" not in text1
    assert not error2 and setup["earlier"] in text2


def test_recall_of_another_task_of_the_project_needs_the_persons_leave(setup):
    async def script(session):
        return await call(session, "recall", seq=2, task=setup["earlier"])

    error, text = talk(server(setup["work"], {}), script)
    assert error and "nodwyn settings earlier-tasks" in text


def test_recall_gives_a_turn_as_its_card_and_lines_cut_at_the_limit(setup):
    async def script(session):
        _, found = await call(session, "index-search", query="TodoList")
        turn_seq = int(re.search(r"turn seq (\d+)-", found).group(1))
        seqs = [int(seq) for seq in re.findall(r"  seq (\d+) · ", found)]
        event_seq = next(seq for seq in seqs if seq != turn_seq)  # an event, not the turn's start
        return (
            event_seq,
            await call(session, "recall", seq=turn_seq),
            await call(session, "recall", seq=event_seq),
            await call(session, "recall", seq=0),
        )

    seq, (error1, turn), (error2, event), (error3, bad) = talk(server(setup["work"], {}), script)
    assert not error1 and len(turn) <= LIMIT
    assert "asked: create TODO app by Next.js" in turn and "events:" in turn
    assert re.search(r"\ncost: \$\d+\.\d\d · [\d,]+ tokens\n", turn)  # as the board says it
    assert "characters shown; limit 12,000;" in turn  # the turn's outline is longer
    assert not error2 and f'"seq": {seq}' in event and "TodoList" in event
    assert "[cut" not in event
    assert error3 and "seq" in bad


def test_what_is_sent_is_redacted(setup):
    add_prompt(setup["live"], "deploy with key sk-ant-api03-" + "x" * 40 + " please")

    async def script(session):
        return await call(session, "index-search", query="deploy")

    error, text = talk(server(setup["work"], {}), script)
    assert not error and "[redacted]" in text and "x" * 40 not in text


def test_codex_is_found_by_the_session_id_it_sends_with_each_call(tmp_path, monkeypatch):
    codex = tmp_path / "codex"
    session = "019ce299-7e70-7a13-9314-042ed6725303"
    rollout = (
        codex / "sessions" / "2026" / "03" / "12" / f"rollout-2026-03-12T15-10-36-{session}.jsonl"
    )
    rollout.parent.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "codex" / "raze__knowledge.jsonl", rollout)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    meta = {"x-codex-turn-metadata": {"session_id": session, "turn_id": "t1"}}

    async def script(session_):
        return (
            await call(session_, "index-search", meta=meta, query="multimodal Knowledge"),
            await call(session_, "index-search", query="multimodal Knowledge"),
        )

    (error1, text1), (error2, text2) = talk(server(tmp_path, {}, agent="codex"), script)
    assert not error1 and "this conversation" in text1 and "multimodal" in text1.lower()
    # without the id, the newest rollout of the server's folder is looked for: there is none
    assert error2 and "found no session" in text2 and "nodwyn mcp install" in text2


def test_without_an_agent_flag_the_clients_name_says_which_agent_it_is(setup):
    async def script(session):
        return await call(session, "index-search", query="TodoList")

    error, text = talk(server(setup["work"], {}, agent=None), script, client="claude-code")
    assert not error and "this conversation" in text
    # Codex keeps no session for this folder: told it is Codex, the server looks only there
    error, text = talk(server(setup["work"], {}, agent=None), script, client="codex-mcp-client")
    assert error and "found no session of codex" in text
