"""Claude Code transcripts from the real corpus imported as tasks (reads ../shared/corpus)."""

import shutil
from pathlib import Path

import pytest
from importing import age, claude_prompts, imported_one, log_of, plain, raw_lines
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.store import Store

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude"
FILES = sorted(p.name for p in CORPUS.glob("*.jsonl")) if CORPUS.is_dir() else []
NO_CONVERSATION = {  # what the corpus README says these hold
    "Durban-Designer__vsla__c001d2c0-fa59-4098-9d96-e46afcfa1170.jsonl",  # only summaries
    "obra__episodic-memory__medium-conversation.jsonl",  # only snapshots
}


@pytest.fixture
def source(tmp_path, corpus, request) -> Path:
    """A copy of one corpus file, made old (not live), in a folder of its own."""
    folder = tmp_path / "src"
    folder.mkdir()
    copy = folder / request.param
    shutil.copyfile(corpus / "claude" / request.param, copy)
    return age(copy)


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


@pytest.mark.parametrize("source", sorted(set(FILES) - NO_CONVERSATION), indirect=True)
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


@pytest.mark.parametrize("source", sorted(set(FILES) - NO_CONVERSATION), indirect=True)
def test_every_record_says_where_in_the_source_it_came_from(source):
    store = Store()
    events = log_of(store, one(store, source))
    assert isinstance(events[0], records.SessionStart)
    count = len(source.read_bytes().split(b"\n"))
    for event in events:
        assert event.src is not None and 1 <= event.src.line <= count, event


@pytest.mark.parametrize("source", sorted(set(FILES) - NO_CONVERSATION), indirect=True)
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


@pytest.mark.parametrize("source", sorted(set(FILES) - NO_CONVERSATION), indirect=True)
def test_a_second_import_changes_nothing(source):
    store = Store()
    task = one(store, source)
    before = store.log_path(task).read_bytes()
    report = import_paths(store, "claude", [source])
    assert report.unchanged == [task] and not report.created and not report.extended
    assert store.log_path(task).read_bytes() == before


@pytest.mark.parametrize("source", sorted(set(FILES) - NO_CONVERSATION), indirect=True)
def test_without_its_import_state_a_task_is_recognised_and_not_doubled(source):
    store = Store()
    task = one(store, source)
    before = store.log_path(task).read_bytes()
    store.log_path(task).with_suffix(".imp").unlink()
    report = import_paths(store, "claude", [source])
    assert task in report.unchanged
    assert store.log_path(task).read_bytes() == before


def test_a_deleted_task_stays_deleted(corpus):
    store = Store()
    path = corpus / "claude" / FILES[0]
    task = one(store, path)
    store.delete(task)
    report = import_paths(store, "claude", [path])
    assert not report.created and not store.exists(task)
    assert "deleted" in report.skipped[0].reason


def test_the_compaction_summary_becomes_a_compaction_note(corpus):
    store = Store()
    path = corpus / "claude" / "Durban-Designer__vsla__0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl"
    events = log_of(store, one(store, path))
    (compact,) = [e for e in events if isinstance(e, records.ContextCompact)]
    assert compact.note.startswith("This session is being continued from a previous")
    assert 1 <= compact.first_seq <= compact.last_seq == compact.seq - 1


@pytest.mark.parametrize(
    "name",
    [
        "d-kimuson__claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "Durban-Designer__vsla__5f8cbb78-38d3-47e9-9504-baa93bb166c9.jsonl",
        "d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    ],
)
def test_inline_sub_agents_are_events_of_their_task_after_the_call_that_started_them(corpus, name):
    store = Store()
    path = corpus / "claude" / name
    events = log_of(store, one(store, path))
    side = [x for x in raw_lines(path) if x.get("isSidechain") and x["type"] == "assistant"]
    by_agent = [e for e in events if e.agent is not None]
    assert len({e.src.line for e in by_agent if isinstance(e, records.Reply)}) == len(
        {x["message"]["id"] for x in side}
    )
    calls = {
        call.id: e.seq
        for e in events
        if isinstance(e, records.Reply)
        for call in e.calls
        if call.tool in ("Task", "Agent")
    }
    first_agent_seq = min(e.seq for e in by_agent)
    assert min(calls.values()) < first_agent_seq
    assert all(not isinstance(e, records.Message) for e in by_agent)


def test_streamed_parts_of_one_response_are_one_reply_with_usage_counted_once(corpus):
    store = Store()
    path = (
        corpus
        / "claude"
        / "d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    )
    events = log_of(store, one(store, path))
    replies = [e for e in events if isinstance(e, records.Reply)]
    ids = [x["message"]["id"] for x in raw_lines(path) if x.get("type") == "assistant"]
    assert len(replies) == len(dict.fromkeys(ids))
    (first,) = [r for r in replies if r.src.line == 3]  # lines 3 and 4 share one message id
    assert first.text.startswith("I'll help you") and [c.tool for c in first.calls] == ["TodoWrite"]
    assert first.usage is not None and first.cost_usd is not None and first.cost_usd > 0
    plans = [e for e in events if isinstance(e, records.Plan)]
    assert plans and plans[0].items[0].status in ("pending", "in_progress", "completed")


def test_files_written_by_edits_are_on_their_results(corpus):
    store = Store()
    path = (
        corpus
        / "claude"
        / "d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    )
    events = log_of(store, one(store, path))
    results = {e.tool: e for e in events if isinstance(e, records.Result)}
    assert results["MultiEdit"].files == ["/path/to/Demo/CLAUDE.md"]
    failed = [e for e in events if isinstance(e, records.Result) and e.tool == "Edit"]
    assert failed[0].error and failed[0].files == []


def test_an_interruption_ends_its_turn_as_cancelled(corpus):
    store = Store()
    path = corpus / "claude" / "Durban-Designer__vsla__9dd861b1-71f8-41ee-bb93-7d3724bcb337.jsonl"
    events = log_of(store, one(store, path))
    ends = [e for e in events if isinstance(e, records.TurnEnd)]
    assert [e.status for e in ends] == ["cancelled"]
