"""Qwen Code sessions imported as tasks: the real chats of ../shared/corpus/more/qwen-code (0.5.0
and 0.9.1) held to a plain count of them (tests/plain_count_more.py), and small chats written
here (ADR 0053)."""

import json
import os
import shutil
from pathlib import Path

import plain_count_more as plain
import pytest
from agents_corpus import again_changes_nothing, finds, halves_equal_whole, one, refused, shown
from importing import OLD, log_of
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.reading import resume
from nodwyn.tasks.store import Store

OWNER = "Haniaimraxn__TODO-LIST__"
CHATS = {
    "5c7e5311-5ac2-4e52-a4c0-d938f6e98268": ("C--Users-haroon-traders", 6),
    "c85afb93-5dc4-4bb5-be6e-0f2771b8e976": ("D--Hackathon-Book", 9),
    "734553eb-442f-4bd2-8002-4cd9ecd958e3": ("D--Hack-TODO-LIST", 1),
}


@pytest.fixture
def store() -> Store:
    return Store()


def laid_out(corpus: Path, tmp_path: Path, session: str) -> Path:
    """A real chat where Qwen Code keeps it: projects/<sanitised cwd>/chats/<id>.jsonl."""
    path = tmp_path / ".qwen" / "projects" / CHATS[session][0] / "chats" / f"{session}.jsonl"
    path.parent.mkdir(parents=True)
    shutil.copyfile(corpus / "more" / "qwen-code" / f"{OWNER}{session}.jsonl", path)
    os.utime(path, (OLD, OLD))
    return path


@pytest.mark.corpus
@pytest.mark.parametrize("session", CHATS)
def test_a_real_chat_has_the_plain_counts_turns_folder_and_tokens(corpus, tmp_path, store, session):
    path = laid_out(corpus, tmp_path, session)
    task = one(store, "qwen", path)
    count, info, events = plain.qwen(path), store.get(task), log_of(store, task)
    assert task == "qw-" + session and info.origin == "qwen-code"
    assert (info.turns, info.project) == (count["turns"], count["folder"])
    assert info.turns == CHATS[session][1] and info.title == "hello"
    replies = [e for e in events if isinstance(e, r.Reply) and e.usage]
    for field in ("input", "output", "cache_read"):
        assert sum(getattr(x.usage, field) for x in replies) == count[field]
    assert count["input"] + count["output"] > 0
    assert info.cost_usd == 0.0  # the Qwen OAuth tier's coder-model is free


@pytest.mark.corpus
def test_slash_commands_read_as_typed_with_their_prompt_kept(corpus, tmp_path, store):
    task = one(store, "qwen", laid_out(corpus, tmp_path, "c85afb93-5dc4-4bb5-be6e-0f2771b8e976"))
    events = log_of(store, task)
    commands = [e for e in events if isinstance(e, r.Message) and e.command]
    assert [e.command for e in commands] == ["/sp.constitution", "/sp.specify", "/sp.plan",
                                             "/sp.tasks", "/sp.implement"]  # fmt: skip
    assert commands[0].attachments[0].text.startswith("---\ndescription: Create or update")
    calls = [c for e in events if isinstance(e, r.Reply) for c in e.calls]
    assert len(calls) == len([e for e in events if isinstance(e, r.Result)]) == 115
    assert store.get(task).branch == "master"
    plans = [e for e in events if isinstance(e, r.Plan)]
    assert plans and plans[0].items[0].text.startswith("Check if constitution template exists")
    assert finds(store, task, "Docusaurus constitution")
    assert {"message", "reply", "result"} <= {e["kind"] for e in shown(store, task)}
    assert resume.command(store, task).run == "qwen --resume c85afb93-5dc4-4bb5-be6e-0f2771b8e976"


@pytest.mark.corpus
def test_a_request_that_timed_out_is_an_error(corpus, tmp_path, store):
    events = log_of(store, one(store, "qwen", laid_out(corpus, tmp_path, next(iter(CHATS)))))
    assert [e.text for e in events if isinstance(e, r.Error)] == ["RequestTimeOut"]


@pytest.mark.corpus
@pytest.mark.parametrize("session", list(CHATS)[:2])
def test_a_real_chat_again_and_in_halves(corpus, tmp_path, store, session):
    path = laid_out(corpus, tmp_path, session)
    again_changes_nothing(store, "qwen", path, one(store, "qwen", path))
    halves_equal_whole(tmp_path / "h", "qwen", path)


@pytest.mark.corpus
def test_the_prompt_log_and_other_agents_files_are_refused_with_one_line(corpus, store):
    log = corpus / "more" / "qwen-code" / f"{OWNER}tmp-2cb59d2d__logs.json"
    assert refused(store, "qwen", log).startswith("Qwen Code's prompt log (logs.json)")
    other = corpus / "more" / "pi" / "marcpadz__dexter-v3__pi-session.jsonl"
    assert refused(store, "qwen", other).startswith("not a Qwen Code session")


# -- chats written here ------------------------------------------------------------------
SESSION = "qw-s-1"


def record(kind: str, n: int, **fields) -> dict:
    return {"uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None, "sessionId": SESSION,
            "timestamp": f"2026-06-08T02:3{n // 10}:{n % 10}0.000Z", "type": kind,
            "cwd": "/home/ana/pager", "version": "0.9.1", **fields}  # fmt: skip


def parts(*items: dict, role="user") -> dict:
    return {"message": {"role": role, "parts": list(items)}}


def telemetry(n: int, name="qwen-code.api_response", **event) -> dict:
    return record("system", n, subtype="ui_telemetry",
                  systemPayload={"uiEvent": {"event.name": name, **event}})  # fmt: skip


def write(folder: Path, records: list[dict], live: bool = False) -> Path:
    path = folder / ".qwen" / "projects" / "-home-ana-pager" / "chats" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(plain.jsonl(records))
    if not live:
        os.utime(path, (OLD, OLD))
    return path


EDIT = {"file_path": "/home/ana/pager/pager.go", "old_string": "a := 1", "new_string": "a := 2"}


def test_a_chat_s_thinking_edit_compression_title_and_lone_response(tmp_path, store):
    tokens = {
        "input_token_count": 1200,
        "cached_content_token_count": 200,
        "output_token_count": 40,
        "thoughts_token_count": 10,
        "model": "qwen3-coder-plus",
    }
    answer = {"id": "c1", "name": "edit", "response": {"output": "Edited pager.go"}}
    lines = [
        record("user", 0, **parts({"text": "Fix the pager"})),
        telemetry(1, **tokens),
        record("assistant", 2, model="qwen3-coder-plus",
               **parts({"text": "Look first.", "thought": True}, {"text": "Editing."},
                       {"functionCall": {"id": "c1", "name": "edit", "args": EDIT}}, role="model")),
        record("tool_result", 3, toolCallResult={"callId": "c1", "status": "success"},
               **parts({"functionResponse": answer})),
        telemetry(4, **tokens),
        record("system", 5, subtype="chat_compression", systemPayload={
            "info": {"originalTokenCount": 9000, "newTokenCount": 900},
            "compressedHistory": [{"role": "user", "parts": [{"text": "<state_snapshot>x"}]}]}),
        record("system", 6, subtype="custom_title",
               systemPayload={"customTitle": "Pager fix", "titleSource": "manual"}),
    ]  # fmt: skip
    task = one(store, "qwen", write(tmp_path, lines))
    events, info = log_of(store, task), store.get(task)
    assert (info.title, info.project, info.turns) == ("Pager fix", "/home/ana/pager", 1)
    first, lone = [e for e in events if isinstance(e, r.Reply)]
    assert (first.thinking, first.text, first.calls[0].tool) == ("Look first.", "Editing.", "edit")
    assert first.usage == lone.usage == r.Usage(input=1000, output=50, cache_read=200)
    assert not lone.text and not lone.calls  # a response no reply took keeps its tokens
    result = next(e for e in events if isinstance(e, r.Result))
    assert result.files == ["/home/ana/pager/pager.go"] and result.output == "Edited pager.go"
    assert [e.note for e in events if isinstance(e, r.ContextCompact)] == ["<state_snapshot>x"]


def test_a_notice_qwen_code_gave_the_model_is_not_a_person_s_turn(tmp_path, store):
    notice = record("user", 1, provenance="system", subtype="notification",
                    **parts({"text": "Background task finished"}))  # fmt: skip
    lines = [record("user", 0, provenance="real_user", **parts({"text": "Fix the pager"})), notice]
    task = one(store, "qwen", write(tmp_path, lines))
    assert store.get(task).turns == 1
    assert [e.text for e in log_of(store, task) if isinstance(e, r.Message)] == ["Fix the pager"]


def test_a_failed_tool_and_a_live_chat(tmp_path, store):
    answer = {"id": "c1", "name": "run_shell_command", "response": {"error": "denied"}}
    lines = [
        record("user", 0, **parts({"text": "ls"})),
        record("assistant", 1, model="m", **parts(
            {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}},
            role="model")),
        record("tool_result", 2, toolCallResult={"callId": "c1", "status": "error"},
               **parts({"functionResponse": answer})),
    ]  # fmt: skip
    task = one(store, "qwen", write(tmp_path, lines, live=True))
    events = log_of(store, task)
    (result,) = [e for e in events if isinstance(e, r.Result)]
    assert result.error and result.output == "denied"
    assert not any(isinstance(e, r.TurnEnd) for e in events)


def test_a_claude_code_line_is_not_taken_for_a_qwen_record(tmp_path, store):
    path = tmp_path / "claude.jsonl"
    line = {"type": "user", "sessionId": "s", "userType": "external", "cwd": "/x", "uuid": "u",
            "message": {"role": "user", "content": "hi"}}  # fmt: skip
    path.write_text(json.dumps(line) + "\n")
    assert refused(store, "qwen", path).startswith("not a Qwen Code session")
    assert not import_paths(store, "qwen", [tmp_path / "none"]).created
