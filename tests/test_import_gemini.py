"""Gemini CLI sessions imported as tasks: the real files of ../shared/corpus/other/gemini-cli
and small sessions written here in each of Gemini's shapes (FORMATS-AGENTS.md 1)."""

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from agents_corpus import again_changes_nothing, finds, halves_equal_whole, one, refused, shown
from importing import OLD, log_of
from nodwyn.importers import prices
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.tasks.store import Store

WINGORITHM = "wingorithm__Vibe-Coding-Comparison-Project__session-2026-04-25T08-46-c737eb36.jsonl"
EXPORT = "sharthak-sev__sat-test-app__my-session.json"
A2A = "AshmitSingh-Developer__Deploy-an-Agent-with-Agent-Development-Kit__session-2026-08-17T17-31-a2a-serv.jsonl"  # noqa: E501
PROMPT_LOG = "wingorithm__Vibe-Coding-Comparison-Project__logs.json"
CONTEXT = ("<session_context>", "<hook_context>", "- **Workspace Directories:**")


@pytest.fixture
def store() -> Store:
    return Store()


def copied(corpus: Path, tmp_path: Path, name: str) -> Path:
    copy = tmp_path / "src" / name
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(corpus / "other" / "gemini-cli" / name, copy)
    os.utime(copy, (OLD, OLD))
    return copy


def messages_of(path: Path) -> list[dict]:
    """The source's messages by an independent reading: the last copy of each id."""
    data = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(data)["messages"]
    found: dict[str, dict] = {}
    for line in data.splitlines():
        item = json.loads(line)
        for message in item.get("$set", {}).get("messages", [item] if "type" in item else []):
            found[message["id"]] = message
    return list(found.values())


def prompts_of(path: Path) -> list[str]:
    texts = []
    for m in messages_of(path):
        parts = m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]
        text = "\n".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
        if m["type"] == "user" and text.strip() and not text.lstrip().startswith(CONTEXT):
            texts.append(text)
    return texts


def priced(path: Path) -> float:
    total, model = 0.0, ""
    for m in messages_of(path):
        model = m.get("model") or model
        t = m.get("tokens")
        if m["type"] == "gemini" and t:
            usage = r.Usage(
                input=t["input"] - t["cached"],
                output=t["output"] + t["thoughts"],
                cache_read=t["cached"],
            )
            total += prices.cost(model, usage)
    return total


@pytest.mark.parametrize("name", [WINGORITHM, EXPORT])
def test_a_real_session_has_the_source_s_turns_title_folder_and_cost(corpus, tmp_path, store, name):
    path = copied(corpus, tmp_path, name)
    task = one(store, "gemini", path)
    info = store.get(task)
    meta = messages_of(path) and json.loads(
        path.read_text().splitlines()[0] if name.endswith("l") else path.read_text()
    )
    assert task == "gm-" + meta["sessionId"] and info.origin == "gemini-cli"
    assert info.turns == len(prompts_of(path))
    assert info.cost_usd == pytest.approx(priced(path), rel=1e-6)
    assert info.cost_usd > 1.0
    if name == EXPORT:
        assert info.title == meta["summary"]
        assert info.project == "/home/sev/Downloads/sat/sat-test-app"
    else:
        assert info.title.startswith("check connection to current git remote")
        assert info.project == r"C:\Beta-Project\Vibe Engineering\ticketing-VC"
    replies = [e for e in log_of(store, task) if isinstance(e, r.Reply)]
    assert {e.model for e in replies if e.model} >= {"gemini-3-flash-preview"} or name == EXPORT


@pytest.mark.parametrize("name", [WINGORITHM, EXPORT])
def test_a_real_session_imported_again_adds_nothing(corpus, tmp_path, store, name):
    path = copied(corpus, tmp_path, name)
    again_changes_nothing(store, "gemini", path, one(store, "gemini", path))


def test_the_real_jsonl_in_two_halves_gives_the_log_of_one_import(corpus, tmp_path):
    halves_equal_whole(tmp_path, "gemini", copied(corpus, tmp_path, WINGORITHM))


def test_every_call_of_the_real_jsonl_has_its_result_and_failed_commands_their_exit(
    corpus, tmp_path, store
):
    path = copied(corpus, tmp_path, WINGORITHM)
    events = log_of(store, one(store, "gemini", path))
    calls = [c.id for e in events if isinstance(e, r.Reply) for c in e.calls]
    results = [e for e in events if isinstance(e, r.Result)]
    assert len(calls) == 95 and sorted(calls) == sorted(e.call for e in results)
    assert {e.exit for e in results if e.tool == "run_shell_command"} >= {1}
    assert all(e.error for e in results if e.exit not in (None, 0))
    assert any(e.thinking for e in events if isinstance(e, r.Reply))


def test_a_real_session_is_found_by_search_and_shown_in_the_transcript(corpus, tmp_path, store):
    task = one(store, "gemini", copied(corpus, tmp_path, WINGORITHM))
    assert finds(store, task, "flyway migration versioning")
    kinds = {e["kind"] for e in shown(store, task)}
    assert {"message", "reply", "result", "turn.end"} <= kinds


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (A2A, "no conversation in it"),
        (PROMPT_LOG, "prompt log (logs.json), not a session"),
    ],
)
def test_gemini_files_that_are_no_conversation_are_refused_with_the_reason(
    corpus, tmp_path, store, name, reason
):
    assert reason in refused(store, "gemini", copied(corpus, tmp_path, name))
    assert store.list(archived=None) == []


def test_other_agents_logs_are_refused_as_gemini_sessions(corpus, store):
    for path in [
        corpus / "other" / "diiviikk5__Xeus__gemini-session.jsonl",  # Antigravity's
        corpus
        / "other"
        / "copilot-cli"
        / "Tokisaki7-Dev__HAWZX-AI__99a32bf6-663e-4432-a172-dc2d03bf93d8.jsonl",
        corpus / "other" / "pratikbuilds__trade_arena__claude-session.jsonl",
        corpus / "other" / "edobry__minsky__2025-04-27_20-17-minsky-task-workflow-rule-creation.md",
    ]:
        assert "not a Gemini CLI session" in refused(store, "gemini", path)


# -- sessions written here ---------------------------------------------------------------
SESSION = "5e55104e-0000-4000-8000-000000000001"


def meta(**extra) -> dict:
    return {
        "sessionId": SESSION, "projectHash": "ab" * 32, "startTime": "2026-05-01T10:00:00.000Z",
        "lastUpdated": "2026-05-01T10:00:00.000Z", "kind": "main", **extra,
    }  # fmt: skip


def user(n: int, text: str) -> dict:
    return {
        "id": f"u{n}",
        "timestamp": f"2026-05-01T10:0{n}:00.000Z",
        "type": "user",
        "content": [{"text": text}],
    }


def gemini(n: int, text: str, calls=(), tokens=None) -> dict:
    message = {
        "id": f"g{n}", "timestamp": f"2026-05-01T10:0{n}:30.000Z", "type": "gemini",
        "content": text, "model": "gemini-2.5-pro",
        "thoughts": [{"subject": "Planning", "description": "look first"}],
    }  # fmt: skip
    if tokens:
        message["tokens"] = {
            "input": 1000,
            "output": 100,
            "cached": 400,
            "thoughts": 50,
            "tool": 0,
            "total": 1150,
        }
    if calls:
        message["toolCalls"] = list(calls)
    return message


def shell(call: str, command: str, output: str) -> dict:
    response = {
        "functionResponse": {
            "id": call,
            "name": "run_shell_command",
            "response": {"output": output},
        }
    }
    return {
        "id": call, "name": "run_shell_command", "args": {"command": command}, "status": "success",
        "result": [response], "timestamp": "2026-05-01T10:00:40.000Z",
    }  # fmt: skip


def project_dir(home: Path, slug: str = "pager") -> Path:
    chats = home / ".gemini" / "tmp" / slug / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    return chats


def jsonl(path: Path, lines: list[dict], live: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    if not live:
        os.utime(path, (OLD, OLD))
    return path


def document(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc, indent=2))
    os.utime(path, (OLD, OLD))
    return path


def test_a_json_session_rewritten_whole_gains_only_its_new_turns(tmp_path, store):
    path = project_dir(tmp_path) / f"session-2026-05-01T10-00-{SESSION[:8]}.json"
    (path.parent.parent / ".project_root").write_text("/home/ana/pager\n")
    document(path, meta(messages=[user(1, "Fix the pager"), gemini(1, "Fixed.", tokens=True)]))
    task = one(store, "gemini", path)
    document(
        path,
        meta(
            messages=[
                user(1, "Fix the pager"),
                gemini(1, "Fixed.", tokens=True),
                user(2, "Now the tests"),
                gemini(2, "Done."),
            ]
        ),
    )  # noqa: E501
    assert import_paths(store, "gemini", [path]).extended == [task]
    texts = [e.text for e in log_of(store, task) if isinstance(e, r.Message | r.Reply)]
    assert texts == ["Fix the pager", "Fixed.", "Now the tests", "Done."]
    assert store.get(task).project == "/home/ana/pager" and store.get(task).turns == 2


def test_a_json_file_written_over_by_another_history_is_refused_and_the_task_kept(tmp_path, store):
    path = document(
        tmp_path / "session.json", meta(messages=[user(1, "Fix the pager"), gemini(1, "Fixed.")])
    )
    task = one(store, "gemini", path)
    before = store.log_path(task).read_bytes()
    document(path, meta(messages=[user(3, "Something else")]))
    assert "no longer holds" in import_paths(store, "gemini", [path]).skipped[0].reason
    assert store.log_path(task).read_bytes() == before


def test_jsonl_ids_written_again_set_lines_and_a_rewind_fold_as_gemini_does(tmp_path, store):
    path = project_dir(tmp_path) / f"session-2026-05-01T10-00-{SESSION[:8]}.jsonl"
    lines = [
        meta(), user(1, "Fix the pager"), gemini(1, "Looking."),
        gemini(1, "Looking.", calls=[shell("c1", "go test", "FAIL\nExit Code: 1")], tokens=True),
        {"$set": {"summary": "Pager order fix", "lastUpdated": "2026-05-01T10:01:00.000Z"}},
        user(2, "try again"), gemini(2, "Tried."), {"$rewindTo": "u2"},
        user(3, "Explain instead"), gemini(3, "It sorts by id."),
    ]  # fmt: skip
    task = one(store, "gemini", jsonl(path, lines))
    events = log_of(store, task)
    (result,) = [e for e in events if isinstance(e, r.Result)]
    assert result.exit == 1 and result.error and result.call == "c1"
    replies = [e for e in events if isinstance(e, r.Reply)]
    assert replies[0].usage == r.Usage(input=600, output=150, cache_read=400)
    assert replies[0].thinking == "**Planning** look first"
    assert [e.text for e in events if isinstance(e, r.Message)] == [
        "Fix the pager",
        "try again",
        "Explain instead",
    ]
    assert store.get(task).title == "Pager order fix"


def test_while_gemini_writes_a_reply_it_waits_for_its_tokens_and_calls(tmp_path, store):
    path = project_dir(tmp_path) / f"session-2026-05-01T10-00-{SESSION[:8]}.jsonl"
    task = one(
        store,
        "gemini",
        jsonl(path, [meta(), user(1, "Fix the pager"), gemini(1, "Looking.")], live=True),
    )
    assert [type(e) for e in log_of(store, task)] == [r.SessionStart, r.Message]
    call = shell("c1", "go test", "ok\nExit Code: 0")
    jsonl(
        path,
        [
            meta(),
            user(1, "Fix the pager"),
            gemini(1, "Looking."),
            gemini(1, "Looking.", calls=[call], tokens=True),
        ],
    )
    import_paths(store, "gemini", [path])
    kinds = [r.kind_of(e) for e in log_of(store, task)]
    assert kinds == ["session.start", "message", "reply", "result", "turn.end"]
    assert log_of(store, task)[2].usage is not None


def test_the_folder_of_a_hashed_project_comes_from_projects_json(tmp_path, store):
    root = "/home/ana/old-pager"
    digest = hashlib.sha256(root.encode()).hexdigest()
    chats = project_dir(tmp_path, digest)
    (tmp_path / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {root: "old-pager"}})
    )
    path = jsonl(
        chats / f"session-2026-05-01T10-00-{SESSION[:8]}.jsonl",
        [meta(), user(1, "hi"), gemini(1, "hello")],
    )
    assert store.get(one(store, "gemini", path)).project == root


def test_a_sub_agent_s_file_is_read_with_its_parent_after_the_call_that_started_it(tmp_path, store):
    chats = project_dir(tmp_path)
    path = chats / f"session-2026-05-01T10-00-{SESSION[:8]}.jsonl"
    ask = shell("c1", "", "the codebase sorts by id") | {
        "name": "codebase_investigator",
        "agentId": "sub1",
    }
    jsonl(
        path,
        [meta(), user(1, "Why the order?"), gemini(1, "Asking.", calls=[ask]), gemini(2, "By id.")],
    )
    sub = {**meta(kind="subagent"), "sessionId": "sub1"}
    jsonl(chats / SESSION / "sub1.jsonl", [sub, user(5, "Find the sort"), gemini(5, "sorts by id")])
    task = one(store, "gemini", path)
    events = log_of(store, task)
    assert [(r.kind_of(e), e.agent) for e in events[2:6]] == [
        ("reply", None), ("message", "sub1"), ("reply", "sub1"), ("result", None),
    ]  # fmt: skip
    assert store.get(task).turns == 1
    assert "sub-agent" in refused(store, "gemini", chats / SESSION / "sub1.jsonl")


def test_a_name_the_person_gave_is_not_replaced_by_gemini_s_summary(tmp_path, store):
    path = tmp_path / "session.json"
    task = one(
        store, "gemini", document(path, meta(summary="First summary", messages=[user(1, "hi")]))
    )
    store.rename(task, "My pager work")
    document(path, meta(summary="Second summary", messages=[user(1, "hi"), gemini(1, "hello")]))
    import_paths(store, "gemini", [path])
    assert store.get(task).title == "My pager work"


def test_a_secret_in_a_tool_s_output_is_redacted_in_the_log(tmp_path, store):
    call = shell(
        "c1", "env", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\nExit Code: 0"
    )
    path = document(
        tmp_path / "session.json",
        meta(messages=[user(1, "show env"), gemini(1, "Here.", calls=[call])]),
    )
    task = one(store, "gemini", path)
    assert b"sk-proj-abcdefghijklmnop" not in store.log_path(task).read_bytes()
    assert "[redacted]" in next(e.output for e in log_of(store, task) if isinstance(e, r.Result))


@pytest.mark.parametrize(
    "junk",
    [
        b"",
        b"\x00\x01binary",
        b"not json at all\n",
        b'{"sessionId": "x"}\n',
        b"[1, 2, 3]",
        b'{"history": []}',
    ],
)
def test_junk_is_refused_with_a_reason_and_never_a_task(tmp_path, store, junk):
    path = tmp_path / "session-junk.json"
    path.write_bytes(junk)
    assert refused(store, "gemini", path)
    assert store.list(archived=None) == []
