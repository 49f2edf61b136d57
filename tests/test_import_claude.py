"""Claude Code transcripts imported as tasks: every file of the fixture corpus (tests/data/corpus,
written by tests/corpus_maker.py) and, marked `corpus`, of the real one (../shared/corpus)."""

import shutil
from pathlib import Path

import pytest
from corpora import FIXTURES, NO_CONVERSATION, sessions
from importing import age, claude_prompts, imported_one, log_of, plain, raw_lines
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store

FILES = sessions("claude")
CONVERSATIONS = sessions("claude", conversations_only=True)
TODO_APP = "demo__todo-app__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"  # inline sub-agent
CLAUDE_MD = "demo__claude-md__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"  # streamed, edits
GRANTS = "grants__6a1b9f1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b.jsonl"  # 2.1: subagents/, compaction


@pytest.fixture
def source(tmp_path, request) -> Path:
    """A copy of one session file, made old (not live), in a folder of its own."""
    folder = tmp_path / "src"
    folder.mkdir()
    copy = folder / request.param.name
    shutil.copyfile(request.param, copy)
    return age(copy)


@pytest.fixture
def fixtures(finished) -> Path:
    """The fixture corpus's Claude folder, dated long ago (finished sessions)."""
    return finished(FIXTURES) / "claude"


def one(store: Store, path: Path) -> str:
    return imported_one(store, "claude", path)


def expected_title(path: Path) -> str | None:
    titles = {"person": None, "agent": None}
    for line in raw_lines(path):
        kind = line.get("type")
        if kind == "custom-title":
            titles["person"] = line.get("customTitle")
        elif kind == "ai-title":
            titles["agent"] = line.get("aiTitle")
        elif kind == "summary":
            titles["agent"] = line.get("summary")
    found = titles["person"] or titles["agent"]
    return " ".join(found.split())[:120] if found else None


@pytest.mark.parametrize("source", FILES, indirect=True)
def test_every_file_imports_with_its_turns_or_is_skipped_with_a_reason(source):
    store = Store()
    report = import_paths(store, "claude", [source])
    if source.name in NO_CONVERSATION:
        (skipped,) = report.skipped
        assert "no conversation" in skipped.reason and not report.created
        return
    (task,) = report.created
    assert store.get(task).turns == len(claude_prompts(source))
    assert task == "cc-" + next(x["sessionId"] for x in raw_lines(source) if "sessionId" in x)


@pytest.mark.parametrize("source", CONVERSATIONS, indirect=True)
def test_titles_projects_and_branches_are_as_in_the_source(source):
    store = Store()
    info = store.get(one(store, source))
    title = expected_title(source)
    if title:
        assert info.title == title
    else:
        assert info.title_by == "message"
    prompts = claude_prompts(source)
    chained = [x for x in raw_lines(source) if x.get("type") in ("user", "assistant", "system")]
    first = prompts[0] if prompts else chained[0]
    assert info.project == first.get("cwd", "")
    assert info.branch == (chained[0].get("gitBranch") or "")
    assert info.origin == "claude-code" and not info.machine


@pytest.mark.parametrize("source", CONVERSATIONS, indirect=True)
def test_every_record_says_where_in_the_source_it_came_from(source):
    store = Store()
    events = log_of(store, one(store, source))
    assert isinstance(events[0], records.SessionStart)
    count = len(source.read_bytes().split(b"\n"))
    for event in events:
        assert event.src is not None and 1 <= event.src.line <= count, event


@pytest.mark.parametrize("source", CONVERSATIONS, indirect=True)
def test_a_file_imported_in_two_halves_gives_the_same_log_as_imported_whole(
    source, tmp_path, monkeypatch
):
    whole = source.read_bytes()
    lines = whole.split(b"\n")
    half = b"\n".join(lines[: len(lines) // 2]) + b"\n"
    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "once"))
    once = Store()
    task = one(once, source)
    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "halves"))
    halves = Store()
    source.write_bytes(half)  # fresh: live, so an unfinished reply waits for the rest
    first = import_paths(halves, "claude", [source])
    assert not first.skipped or "no conversation" in first.skipped[0].reason
    source.write_bytes(whole)
    age(source)
    import_paths(halves, "claude", [source])
    assert plain(halves, task) == plain(once, task)


@pytest.mark.parametrize("source", CONVERSATIONS, indirect=True)
def test_a_second_import_changes_nothing(source):
    store = Store()
    task = one(store, source)
    before = store.log_path(task).read_bytes()
    report = import_paths(store, "claude", [source])
    assert report.unchanged == [task] and not report.created and not report.extended
    assert store.log_path(task).read_bytes() == before


@pytest.mark.parametrize("source", CONVERSATIONS, indirect=True)
def test_without_its_import_state_a_task_is_recognised_and_not_doubled(source):
    store = Store()
    task = one(store, source)
    before = store.log_path(task).read_bytes()
    store.log_path(task).with_suffix(".imp").unlink()
    report = import_paths(store, "claude", [source])
    assert task in report.unchanged
    assert store.log_path(task).read_bytes() == before


def test_a_deleted_task_stays_deleted(fixtures):
    store = Store()
    path = fixtures / TODO_APP
    task = one(store, path)
    store.delete(task)
    report = import_paths(store, "claude", [path])
    assert not report.created and not store.exists(task)
    assert "deleted" in report.skipped[0].reason


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("vsla__compacted__0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl", "previous"),
        (GRANTS, "budget"),
    ],
)
def test_the_compaction_summary_becomes_a_compaction_note_in_both_layouts(fixtures, name, kept):
    store = Store()
    events = log_of(store, one(store, fixtures / name))
    (compact,) = [e for e in events if isinstance(e, records.ContextCompact)]
    assert compact.note.startswith("This session is being continued from a previous")
    assert kept in compact.note
    assert 1 <= compact.first_seq <= compact.last_seq == compact.seq - 1


def sub_agent_check(events: list, side: list[dict]) -> None:
    """The sub-agent's replies are events of the task (one per response), after the call that
    started it and before that call's result; none of them is a prompt of the task."""
    by_agent = [e for e in events if e.agent is not None]
    replies = {e.src.line for e in by_agent if isinstance(e, records.Reply)}
    assert len(replies) == len({x["message"]["id"] for x in side if x["type"] == "assistant"})
    calls = [
        e.seq
        for e in events
        if isinstance(e, records.Reply)
        for call in e.calls
        if call.tool in ("Task", "Agent")
    ]
    results = [
        e.seq for e in events if isinstance(e, records.Result) and e.tool in ("Task", "Agent")
    ]
    assert min(calls) < min(e.seq for e in by_agent) <= max(e.seq for e in by_agent) < min(results)
    assert all(not isinstance(e, records.Message) for e in by_agent)


def test_inline_sub_agents_are_events_of_their_task_after_the_call_that_started_them(fixtures):
    store = Store()
    path = fixtures / TODO_APP
    events = log_of(store, one(store, path))
    sub_agent_check(events, [x for x in raw_lines(path) if x.get("isSidechain")])


def test_a_sub_agent_in_its_own_subagents_file_is_placed_after_its_call(fixtures):
    store = Store()
    (agent_file,) = (fixtures / GRANTS.removesuffix(".jsonl") / "subagents").glob("agent-*.jsonl")
    events = log_of(store, one(store, fixtures / GRANTS))
    sub_agent_check(events, raw_lines(agent_file))
    assert {e.agent for e in events if e.agent} == {agent_file.stem.removeprefix("agent-")}
    files = {e.src.file for e in events if e.agent}
    assert files == {str(agent_file.relative_to(fixtures))}  # beside the session's own file


def test_streamed_parts_of_one_response_are_one_reply_with_usage_counted_once(fixtures):
    store = Store()
    path = fixtures / CLAUDE_MD
    events = log_of(store, one(store, path))
    replies = [e for e in events if isinstance(e, records.Reply)]
    ids = [x["message"]["id"] for x in raw_lines(path) if x.get("type") == "assistant"]
    assert len(ids) > len(dict.fromkeys(ids)) == len(replies)
    (first,) = [r for r in replies if r.src.line == 3]  # lines 3 and 4 share one message id
    assert first.text.startswith("I'll help you") and [c.tool for c in first.calls] == ["TodoWrite"]
    assert first.usage is not None and first.cost_usd is not None and first.cost_usd > 0
    assert first.usage.output == 180  # the usage every part repeats, counted once
    plans = [e for e in events if isinstance(e, records.Plan)]
    assert plans and plans[0].items[0].status in ("pending", "in_progress", "completed")


def test_files_written_by_edits_are_on_their_results(fixtures):
    store = Store()
    events = log_of(store, one(store, fixtures / CLAUDE_MD))
    results = {e.tool: e for e in events if isinstance(e, records.Result)}
    assert results["MultiEdit"].files == ["/path/to/Demo/CLAUDE.md"]
    failed = [e for e in events if isinstance(e, records.Result) and e.tool == "Edit"]
    assert failed[0].error and failed[0].files == []


def test_an_interruption_ends_its_turn_as_cancelled(fixtures):
    store = Store()
    path = fixtures / "vsla__interrupted__9dd861b1-71f8-41ee-bb93-7d3724bcb337.jsonl"
    events = log_of(store, one(store, path))
    ends = [e for e in events if isinstance(e, records.TurnEnd)]
    assert [e.status for e in ends] == ["cancelled"]


def test_a_copy_cut_mid_write_shows_its_prompt_and_is_whole_once_finished(tmp_path):
    name = "vsla__cut-mid-turn__9b92ce83-1981-4cdc-9f5d-7f66c4b10389.jsonl"
    copy = tmp_path / name
    shutil.copyfile(FIXTURES / "claude" / name, copy)  # fresh: live, the agent writing
    store = Store()
    task = one(store, copy)
    kinds = [type(e).__name__ for e in log_of(store, task)]
    assert kinds == ["SessionStart", "Message"]  # the cut reply waits for the rest
    age(copy)
    assert import_paths(store, "claude", [copy]).extended == [task]
    (reply,) = [e for e in log_of(store, task) if isinstance(e, records.Reply)]
    assert reply.text == "Profiling with perf." and [c.tool for c in reply.calls] == ["Bash"]


@pytest.mark.parametrize("name", ["trade-arena-chat.jsonl", "specstory-export.md"])
@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_look_alikes_are_refused_with_a_reason_and_become_no_task(finished, name, agent):
    store = Store()
    path = finished(FIXTURES) / "other" / name
    (skipped,) = import_paths(store, agent, [path]).skipped
    assert skipped.path == str(path) and skipped.reason.startswith("not a ")
    assert store.list(archived=None) == []
