"""Continue sessions imported as tasks: the real files of ../shared/corpus/more/continue, laid
out in ~/.continue/sessions, and small sessions written here
(docs/decisions/0052-cline-and-continue.md)."""

import hashlib
import json
import os
import shutil
from pathlib import Path

import plain_count_cline_continue as plain
import pytest
from agents_corpus import (
    again_changes_nothing,
    finds,
    one,
    refused,
    shown,
    store_in,
    torn_refused_and_kept,
)
from importing import OLD, log_of
from importing import plain as plain_log
from nodwyn.importers import registry
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.reading import resume
from nodwyn.tasks.store import Store

HMS = "toamedbd-code__hms__"
AGENT_MODE = "02044b99-f94b-4df0-a981-3b26d054b6b0"
ONE = "edec72bd-c9a6-447d-9ea8-15a3858576f4"
CHAT_2024 = "a19b6a94-670c-4f96-9678-2c055a1a83a9"
REAL = {AGENT_MODE: HMS, ONE: HMS, CHAT_2024: "oleg121203__Developer__"}


@pytest.fixture
def store() -> Store:
    return Store()


def laid_out(corpus: Path, home: Path) -> Path:
    """The real sessions and the index where Continue keeps them."""
    folder = home / ".continue" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    source = corpus / "more" / "continue"
    for session, owner in REAL.items():
        shutil.copyfile(source / f"{owner}{session}.json", folder / f"{session}.json")
    shutil.copyfile(source / f"{HMS}sessions.json", folder / "sessions.json")
    for file in folder.iterdir():
        os.utime(file, (OLD, OLD))
    return folder


@pytest.mark.parametrize("session", REAL)
def test_a_real_session_has_the_plain_counts_turns_title_and_folder(
    corpus, agents_home, store, session
):
    folder = laid_out(corpus, agents_home)
    index = json.loads((folder / "sessions.json").read_text())
    counted = plain.continue_session(folder / f"{session}.json", index)
    task = one(store, "continue", folder / f"{session}.json")
    info = store.get(task)
    assert task == "cn-" + session and info.origin == "continue"
    assert (info.turns, info.title, info.project) == (
        counted["turns"],
        counted["title"],
        counted["folder"],
    )
    calls = [c for e in log_of(store, task) if isinstance(e, r.Reply) for c in e.calls]
    assert len(calls) == counted["calls"]
    assert counted["usage"] is None and info.cost_usd is None  # no usage in these logs


def test_the_followed_folder_imports_every_session_and_passes_the_index_over(
    corpus, agents_home, store
):
    laid_out(corpus, agents_home)
    report = import_paths(store, "continue", registry.get("continue").roots())
    assert sorted(report.created) == sorted("cn-" + s for s in REAL)
    assert all("index of sessions" in skipped.reason for skipped in report.skipped)


def test_the_index_given_by_hand_says_which_sessions_it_names_are_gone(corpus, agents_home, store):
    folder = laid_out(corpus, agents_home)
    report = import_paths(store, "continue", [folder])
    assert len(report.created) == 3
    (index,) = report.skipped
    assert "index of sessions" in index.reason and "bb3a4dae-7552-4c74-884b-2d828648ccfc" in (
        index.reason
    )


@pytest.mark.parametrize("session", REAL)
def test_a_real_session_imported_again_adds_nothing(corpus, agents_home, store, session):
    path = laid_out(corpus, agents_home) / f"{session}.json"
    again_changes_nothing(store, "continue", path, one(store, "continue", path))


def test_a_real_session_read_half_written_then_whole_gives_the_log_of_one_import(
    corpus, agents_home, tmp_path
):
    path = laid_out(corpus, agents_home) / f"{AGENT_MODE}.json"
    whole = path.read_bytes()
    session = json.loads(whole)
    task = one(store_in(tmp_path / "once"), "continue", path)
    halves = store_in(tmp_path / "halves")
    path.write_text(json.dumps({**session, "history": session["history"][:25]}))
    import_paths(halves, "continue", [path])
    path.write_bytes(whole)
    os.utime(path, (OLD, OLD))
    import_paths(halves, "continue", [path])
    assert plain_log(halves, task) == plain_log(store_in(tmp_path / "once"), task)


def test_the_agent_mode_session_keeps_thinking_calls_and_the_cancelled_call(
    corpus, agents_home, store
):
    path = laid_out(corpus, agents_home) / f"{AGENT_MODE}.json"
    task = one(store, "continue", path)
    events = log_of(store, task)
    said = [i["message"] for i in json.loads(path.read_text())["history"]]
    thought = [m["content"] for m in said if m["role"] == "thinking" and m["content"].strip()]
    thinking = "\n\n".join(e.thinking for e in events if isinstance(e, r.Reply) and e.thinking)
    assert thought and all(t in thinking for t in thought)
    results = [e for e in events if isinstance(e, r.Result)]
    assert len(results) == 20 and [e.output for e in results if e.error] == [
        "the call was canceled (Continue kept no output)"
    ]
    assert finds(store, task, "cleanup report") and any(
        e["kind"] == "result" for e in shown(store, task)
    )


def test_continue_resumes_a_session_by_forking_it_in_its_cli(corpus, agents_home, store):
    task = one(store, "continue", laid_out(corpus, agents_home) / f"{ONE}.json")
    said = resume.command(store, task)
    assert said.run == f"cn --fork {ONE}"


# -- sessions written here ---------------------------------------------------------------
ID = "c0ffee00-0000-4000-8000-000000000002"


def session_file(home: Path, history: list, **more) -> Path:
    path = home / ".continue" / "sessions" / f"{ID}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"sessionId": ID, "title": "Pager", "workspaceDirectory": "file:///home/ana/pager",
            "history": history, **more}  # fmt: skip
    path.write_text(json.dumps(data))
    os.utime(path, (OLD, OLD))
    return path


def item(role: str, content="", **more) -> dict:
    """One history item; its message id made of what it holds, so two are never one."""
    key = f"{role}-{hashlib.sha1(json.dumps([content, more]).encode()).hexdigest()[:8]}"
    return {"message": {"role": role, "content": content, "id": key, **more}, "contextItems": []}


def test_a_written_session_s_edit_usage_and_summary_are_kept(agents_home, store):
    call = {"id": "c1", "type": "function", "function": {"name": "single_find_and_replace",
            "arguments": json.dumps({"filepath": "pager.go", "old_string": "id",
                                     "new_string": "time"})}}  # fmt: skip
    usage = {
        "promptTokens": 100,
        "completionTokens": 20,
        "promptTokensDetails": {"cachedTokens": 50},
    }
    history = [
        item("user", [{"type": "text", "text": "Sort the pager by time"}]),
        item("assistant", "Editing.", toolCalls=[call], usage=usage),
        {**item("tool", "done", toolCallId="c1"), "conversationSummary": "Sorted by time."},
    ]
    task = one(store, "continue", session_file(agents_home, history, model="gpt-4o"))
    events = log_of(store, task)
    reply = next(e for e in events if isinstance(e, r.Reply))
    assert reply.usage == r.Usage(input=100, output=20, cache_read=50)
    assert next(e for e in events if isinstance(e, r.Result)).files == ["pager.go"]
    assert [e.note for e in events if isinstance(e, r.ContextCompact)] == ["Sorted by time."]
    assert store.get(task).project == "/home/ana/pager"


def test_a_session_with_no_words_of_a_person_is_refused(agents_home, store):
    path = session_file(agents_home, [item("assistant", "Hello")])
    assert "no conversation" in refused(store, "continue", path)


def test_a_torn_session_is_refused_in_one_line_and_the_task_kept(agents_home, store):
    path = session_file(agents_home, [item("user", "Fix it"), item("assistant", "Done.")])
    assert torn_refused_and_kept(store, "continue", path).startswith("not valid JSON")


def test_continue_s_config_is_refused_as_what_it_is(tmp_path, store):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"models": []}))
    assert "configuration" in refused(store, "continue", config)


def test_who_wrote_a_line_is_the_turn_of_continue_s_new_file_or_its_replace(
    agents_home, tmp_path, data_dir
):
    from nodwyn import memory
    from nodwyn.memory.provenance.blame import blame

    project = tmp_path / "src" / "pager"
    project.mkdir(parents=True)

    def call(cid: str, name: str, **args) -> dict:
        return {"id": cid, "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}  # fmt: skip

    new = call("c1", "create_new_file", filepath="pages.py", contents="a = 1\nb = 2\n")
    fix = call("c2", "single_find_and_replace", filepath="pages.py", old_string="b = 2",
               new_string="b = 3")  # fmt: skip
    history = [
        item("user", "Write the pager"), item("assistant", "", toolCalls=[new]),
        item("tool", "created", toolCallId="c1"),
        item("user", "Make b three"), item("assistant", "", toolCalls=[fix]),
        item("tool", "replaced", toolCallId="c2"),
    ]  # fmt: skip
    store = Store(data_dir)
    path = session_file(agents_home, history, workspaceDirectory=project.as_uri())
    one(store, "continue", path)
    memory.refresh_words(store)
    (project / "pages.py").write_text("a = 1\nb = 3\n")
    done = blame(store, project / "pages.py")
    assert [(done.origins[x.origin].tool, done.origins[x.origin].asked) for x in done.lines] == [
        ("create_new_file", "Write the pager"),
        ("single_find_and_replace", "Make b three"),
    ]
