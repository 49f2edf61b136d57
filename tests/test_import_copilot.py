"""GitHub Copilot CLI sessions imported as tasks: the real files of
../shared/corpus/other/copilot-cli and small sessions written here (FORMATS-AGENTS.md 5)."""

import json
import os
import shutil
from pathlib import Path

import pytest
from agents_corpus import again_changes_nothing, finds, halves_equal_whole, one, refused, shown
from importing import OLD, log_of
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.tasks.store import Store

XEFF = "XEFF09__dotfiles__3cc3555e-5462-44f9-95de-c67b1cb220b9__"
XEFF2 = "XEFF09__dotfiles__b87feda8-379e-4f8c-aa42-b4f7d12f253a__events.jsonl"
FLAT = "Tokisaki7-Dev__HAWZX-AI__99a32bf6-663e-4432-a172-dc2d03bf93d8.jsonl"


@pytest.fixture
def store() -> Store:
    return Store()


def laid_out(corpus: Path, tmp_path: Path, name: str) -> Path:
    """A real file where Copilot keeps it: session-state/<id>/events.jsonl (+ workspace.yaml),
    or session-state/<id>.jsonl for the flat layout."""
    source = corpus / "other" / "copilot-cli"
    state = tmp_path / ".copilot" / "session-state"
    session = name.split("__")[2].removesuffix(".jsonl")
    path = state / f"{session}.jsonl" if name == FLAT else state / session / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / name, path)
    yaml = source / name.replace("events.jsonl", "workspace.yaml")
    if yaml.exists() and yaml != source / name:
        shutil.copyfile(yaml, path.parent / "workspace.yaml")
    for file in path.parent.iterdir():
        os.utime(file, (OLD, OLD))
    return path


def events_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("name", [XEFF + "events.jsonl", XEFF2, FLAT])
def test_a_real_session_has_the_source_s_turns_title_and_folder(corpus, tmp_path, store, name):
    path = laid_out(corpus, tmp_path, name)
    task = one(store, "copilot", path)
    events = events_of(path)
    start = events[0]["data"]
    info = store.get(task)
    assert task == "cp-" + start["sessionId"] and info.origin == "copilot-cli"
    assert info.turns == sum(e["type"] == "user.message" for e in events)
    if name == FLAT:  # no context in the flat layout: the folder the person trusted
        assert info.project == r"C:\Users\endri\HAWZX\HAWZX-AI" and info.title == "leia"
    else:
        assert info.project == start["context"]["cwd"]
    if name.startswith(XEFF):
        assert info.title == "Initialize Project Setup"
    assert info.cost_usd is None  # Copilot bills premium requests, not tokens


@pytest.mark.parametrize("name", [XEFF + "events.jsonl", XEFF2, FLAT])
def test_a_real_session_imported_again_adds_nothing(corpus, tmp_path, store, name):
    path = laid_out(corpus, tmp_path, name)
    again_changes_nothing(store, "copilot", path, one(store, "copilot", path))


@pytest.mark.parametrize("name", [XEFF + "events.jsonl", FLAT])
def test_a_real_session_in_two_halves_gives_the_log_of_one_import(corpus, tmp_path, name):
    halves_equal_whole(tmp_path, "copilot", laid_out(corpus, tmp_path, name))


def test_calls_results_approvals_and_the_abort_of_a_real_session(corpus, tmp_path, store):
    path = laid_out(corpus, tmp_path, XEFF2)
    events = log_of(store, one(store, "copilot", path))
    calls = [c.id for e in events if isinstance(e, r.Reply) for c in e.calls]
    results = [e.call for e in events if isinstance(e, r.Result)]
    assert len(calls) == 32 and len(results) == 31 and set(results) <= set(calls)
    answers = [e for e in events if isinstance(e, r.ApprovalAnswer)]
    assert len(answers) == 4 and not all(a.allowed for a in answers)
    (end,) = [e for e in events if isinstance(e, r.TurnEnd)]
    assert end.status == "cancelled"
    assert any(e.thinking for e in events if isinstance(e, r.Reply))


def test_a_failed_tool_of_the_flat_layout_is_an_error(corpus, tmp_path, store):
    events = log_of(store, one(store, "copilot", laid_out(corpus, tmp_path, FLAT)))
    failed = [e for e in events if isinstance(e, r.Result) and e.error]
    assert [e.output for e in failed] == ["Path already exists"]


def test_a_real_session_is_found_by_search_and_shown_in_the_transcript(corpus, tmp_path, store):
    task = one(store, "copilot", laid_out(corpus, tmp_path, XEFF + "events.jsonl"))
    assert finds(store, task, "copilot instructions")
    assert {"message", "reply", "result", "approval.ask"} <= {e["kind"] for e in shown(store, task)}


def test_other_agents_logs_and_sidecars_are_refused_as_copilot_sessions(corpus, store):
    other = corpus / "other"
    for path in [
        other / "copilot-cli" / (XEFF + "workspace.yaml"),
        other / "gemini-cli" / "wingorithm__Vibe-Coding-Comparison-Project__logs.json",
        other / "diiviikk5__Xeus__gemini-session.jsonl",
        other / "pratikbuilds__trade_arena__codex-session.jsonl",
    ]:
        assert "not a Copilot CLI session" in refused(store, "copilot", path)


# -- sessions written here ---------------------------------------------------------------
ID = "c0ffee00-0000-4000-8000-000000000001"


def event(kind: str, n: int, **data) -> dict:
    at = f"2026-06-08T02:3{n // 10}:{n % 10}0.000Z"
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": at, "parentId": f"e{n - 1}"}


def session(*more: dict) -> list[dict]:
    start = {"sessionId": ID, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.60",
             "context": {"cwd": "/home/ana/pager", "branch": "main"}}  # fmt: skip
    return [event("session.start", 0, **start), *more]


def write(folder: Path, lines: list[dict], name: str = "", live: bool = False) -> Path:
    path = folder / ".copilot" / "session-state" / ID / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    if name:
        (path.parent / "workspace.yaml").write_text(f"id: {ID}\nname: {name}\nuser_named: false\n")
    for file in path.parent.iterdir():
        if not live:
            os.utime(file, (OLD, OLD))
    return path


def test_a_rename_in_workspace_yaml_gives_the_task_its_new_title(tmp_path, store):
    lines = session(event("user.message", 1, content="Fix the pager"))
    task = one(store, "copilot", write(tmp_path, lines, name="Pager fix"))
    assert store.get(task).title == "Pager fix"
    assert import_paths(
        store, "copilot", [write(tmp_path, lines, name="'Pager order fix'")]
    ).extended == [task]
    assert store.get(task).title == "Pager order fix"


def test_a_shell_s_exit_code_and_a_sub_agent_s_events_are_kept(tmp_path, store):
    ask = {"toolCallId": "t1", "name": "bash", "arguments": {"command": "go test"}}
    spawn = {"toolCallId": "t2", "name": "task", "arguments": {"prompt": "look"}}
    attached = [{"type": "file", "displayName": "pager.go"}]
    failed = {"content": "FAIL\n<exited with exit code 1>"}
    lines = session(
        event("user.message", 1, content="/fix the pager", attachments=attached),
        event("assistant.message", 2, messageId="m1", content="Testing.",
              toolRequests=[ask, spawn], outputTokens=30, model="gpt-5"),
        event("tool.execution_complete", 3, toolCallId="t1", success=True, result=failed),
        event("subagent.started", 4, toolCallId="t2", agentName="explore",
              agentDisplayName="Explore"),
        event("assistant.message", 5, messageId="m2", content="It sorts by id.",
              parentToolCallId="t2"),
        event("tool.execution_complete", 6, toolCallId="t2", success=True,
              result={"content": "by id"}),
        event("session.compaction_complete", 7, success=True,
              summaryContent="The pager sorts by id."),
        event("session.error", 8, errorType="quota", message="Rate limited"),
        event("session.shutdown", 9, shutdownType="routine"),
    )  # fmt: skip
    events = log_of(store, one(store, "copilot", write(tmp_path, lines)))
    message = next(e for e in events if isinstance(e, r.Message))
    assert message.command == "/fix" and message.attachments == [r.Attachment(name="pager.go")]
    shell = next(e for e in events if isinstance(e, r.Result) and e.call == "t1")
    assert shell.exit == 1 and shell.error and shell.tool == "bash"
    assert (
        next(e for e in events if isinstance(e, r.Reply) and e.text == "It sorts by id.").agent
        == "Explore"
    )
    assert [e.note for e in events if isinstance(e, r.ContextCompact)] == ["The pager sorts by id."]
    assert [e.text for e in events if isinstance(e, r.Error)] == ["Rate limited"]
    assert isinstance(events[-1], r.TurnEnd) and events[-1].status == "completed"


def test_while_copilot_writes_a_turn_it_is_not_ended(tmp_path, store):
    lines = session(event("user.message", 1, content="Fix the pager"))
    task = one(store, "copilot", write(tmp_path, lines, live=True))
    assert not any(isinstance(e, r.TurnEnd) for e in log_of(store, task))
    assert store.get(task).turns == 1


def test_the_legacy_history_session_state_json_is_refused_with_the_reason(tmp_path, store):
    path = tmp_path / ".copilot" / "history-session-state" / "session_1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"history": [{"role": "human", "content": "hi"}]}))
    assert "legacy history-session-state" in refused(store, "copilot", path)


def test_events_without_their_session_start_are_not_a_whole_session(tmp_path, store):
    path = write(tmp_path, session(event("user.message", 1, content="hi"))[1:])
    assert "without their session.start" in refused(store, "copilot", path)
