"""Cline (and Roo Code, Kilo Code) task folders imported as tasks: the real ones of
../shared/corpus/more/cline, laid out as the extension keeps them, and small ones written here
(docs/decisions/0052-cline-and-continue.md)."""

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
from nodwyn.reading import export, resume
from nodwyn.reading.edits import diff_of
from nodwyn.tasks.store import Store
from nodwyn.usage import figures

GMFSTU = "gmfstu__Online-Card-Architecture__1769053680585__"
REAL = {  # task id -> the corpus files of its folder, by the name the extension gives them
    "1769053680585": {name: GMFSTU + name for name in
                      ("ui_messages.json", "api_conversation_history.json", "task_metadata.json",
                       "focus_chain_taskid_1769053680585.md")},
    "1760534080239": {"ui_messages.json": "Jeehunter__mcp-vscode-server__ui_messages.json"},
    "1777073265986": {"api_conversation_history.json":
                      "mike4567__MRA04242026__api_conversation_history.json"},
}  # fmt: skip


@pytest.fixture
def store() -> Store:
    return Store()


def laid_out(corpus: Path, home: Path, task: str) -> Path:
    """A real task folder where Cline keeps it in VS Code's globalStorage."""
    folder = home / "Code" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
    folder = folder / "tasks" / task
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in REAL[task].items():
        shutil.copyfile(corpus / "more" / "cline" / source, folder / name)
        os.utime(folder / name, (OLD, OLD))
    return folder


def source_of(folder: Path) -> Path:
    ui = folder / "ui_messages.json"
    return ui if ui.exists() else folder / "api_conversation_history.json"


def totals(store: Store) -> dict:
    total = figures.report(store, by="project").total
    return {f: getattr(total, f) for f in ("input", "output", "cache_read", "cache_write")}


@pytest.mark.parametrize("task", REAL)
def test_a_real_task_has_the_plain_counts_turns_folder_and_tokens(corpus, agents_home, store, task):
    folder = laid_out(corpus, agents_home, task)
    counted = plain.cline(folder)
    made = one(store, "cline", source_of(folder))
    info = store.get(made)
    assert made == "cl-" + task and info.origin == "cline"
    assert info.turns == counted["turns"] and info.project == counted["folder"]
    assert totals(store) == {
        f: counted[f] for f in ("input", "output", "cache_read", "cache_write")
    }
    if counted["cost"] is not None:  # Cline's own cost of each request
        assert info.cost_usd == pytest.approx(counted["cost"], abs=1e-6)
    else:  # Cline's api file gives tokens only, and this model has no price
        assert info.cost_usd is None


def test_the_followed_folders_find_each_real_task_once(corpus, agents_home, store):
    for task in REAL:
        laid_out(corpus, agents_home, task)
    report = import_paths(store, "cline", [p for p in registry.get("cline").roots() if p.exists()])
    assert sorted(report.created) == sorted("cl-" + t for t in REAL) and not report.skipped


@pytest.mark.parametrize("task", REAL)
def test_a_real_task_imported_again_adds_nothing(corpus, agents_home, store, task):
    path = source_of(laid_out(corpus, agents_home, task))
    again_changes_nothing(store, "cline", path, one(store, "cline", path))


@pytest.mark.parametrize("task", ["1760534080239", "1777073265986"])
def test_a_real_task_read_half_written_then_whole_gives_the_log_of_one_import(
    corpus, agents_home, tmp_path, task
):
    path = source_of(laid_out(corpus, agents_home, task))
    whole = path.read_bytes()
    messages = json.loads(whole)
    made = one(store_in(tmp_path / "once"), "cline", path)
    halves = store_in(tmp_path / "halves")
    path.write_text(json.dumps(messages[: len(messages) // 2]))  # fresh: Cline still writing
    import_paths(halves, "cline", [path])
    path.write_bytes(whole)
    os.utime(path, (OLD, OLD))
    import_paths(halves, "cline", [path])
    assert plain_log(halves, made) == plain_log(store_in(tmp_path / "once"), made)


def test_the_edits_of_a_real_task_are_diffs_and_its_files_written(corpus, agents_home, store):
    events = log_of(
        store, one(store, "cline", source_of(laid_out(corpus, agents_home, "1777073265986")))
    )  # noqa: E501
    calls = [c for e in events if isinstance(e, r.Reply) for c in e.calls]
    edits = [c for c in calls if c.tool in ("write_to_file", "replace_in_file")]
    assert len(edits) == 34 and all(diff_of(c.tool, c.input) for c in edits)
    written = [e for e in events if isinstance(e, r.Result) and e.files]
    assert written and all(e.tool in ("write_to_file", "replace_in_file") for e in written)
    (subagents,) = [c for c in calls if c.tool == "use_subagents"]
    (answer,) = [e for e in events if isinstance(e, r.Result) and e.call == subagents.id]
    assert answer.output.startswith("Subagent results:")
    failed = [e for e in events if isinstance(e, r.Result) and e.exit]
    assert failed and all(e.error for e in failed)


def test_a_real_chinese_task_with_mcp_calls_is_found_and_shown(corpus, agents_home, store):
    task = one(store, "cline", source_of(laid_out(corpus, agents_home, "1760534080239")))
    events = log_of(store, task)
    mcp = [c for e in events if isinstance(e, r.Reply) for c in e.calls if c.tool == "use_mcp_tool"]
    assert [c.input["tool_name"] for c in mcp][:1] == ["open_explorer"]
    assert [e.status for e in events if isinstance(e, r.TurnEnd)][-1] == "cancelled"
    assert finds(store, task, "vscode-commands") and any(
        e["kind"] == "plan" for e in shown(store, task)
    )


def test_a_task_s_other_files_are_accounted_for_one_line_each(corpus, agents_home, store):
    folder = laid_out(corpus, agents_home, "1769053680585")
    assert "read instead" in refused(store, "cline", folder / "api_conversation_history.json")
    assert "metadata" in refused(store, "cline", folder / "task_metadata.json")
    report = import_paths(store, "cline", [folder])
    assert report.created == ["cl-1769053680585"] and not report.skipped


def test_a_real_task_exports_its_turns_and_its_edits_as_diffs(corpus, agents_home, store):
    task = one(store, "cline", source_of(laid_out(corpus, agents_home, "1769053680585")))
    text = export.export(store, task, "md")
    assert "## Turn 1 of 1" in text and "**write_to_file**" in text and "```diff" in text
    assert "<environment_details>" not in text and "HAS_CHANGES" not in text


def test_cline_has_no_resume_command_and_says_so(corpus, agents_home, store):
    task = one(store, "cline", source_of(laid_out(corpus, agents_home, "1769053680585")))
    said = resume.command(store, task)
    assert not said.command and "no command that resumes" in said.reason


# -- tasks written here ------------------------------------------------------------------
def say(ts: int, kind: str, text: str = "", ask: bool = False, **more) -> dict:
    return {"ts": ts, "type": "ask" if ask else "say", ("ask" if ask else "say"): kind,
            "text": text, **more}  # fmt: skip


def request(ts: int, cost: float = 0.01, **more) -> dict:
    info = {"request": "<task>x</task>\n# Current Working Directory (/home/ana/pager) Files\n",
            "tokensIn": 10, "tokensOut": 20, "cacheReads": 30, "cacheWrites": 40, "cost": cost,
            **more}  # fmt: skip
    return say(ts, "api_req_started", json.dumps(info))


def tool(ts: int, **data) -> dict:
    return say(ts, "tool", json.dumps(data))


def task_folder(home: Path, messages: list, extension="saoudrizwan.claude-dev", live=False,
                task="1700000000000", **beside) -> Path:  # fmt: skip
    folder = home / "Code" / "Code" / "User" / "globalStorage" / extension / "tasks" / task
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ui_messages.json").write_text(json.dumps(messages))
    for name, value in beside.items():
        (folder / name).write_text(json.dumps(value))
    if not live:
        for file in folder.iterdir():
            os.utime(file, (OLD, OLD))
    return folder / "ui_messages.json"


PAGER = [
    say(1700000000000, "text", "Fix the pager order"),
    request(1700000001000),
    say(1700000002000, "reasoning", "The pager sorts by id."),
    tool(1700000003000, tool="editedExistingFile", path="pager.go",
         content="------- SEARCH\nsort.By(id)\n=======\nsort.By(time)\n+++++++ REPLACE\n"),
    request(1700000004000),
    say(1700000005000, "command", "go test ./..."),
    say(1700000006000, "command_output", "FAIL pager", ask=True),
    say(1700000007000, "error", "Cline tried to use write_to_file without value for path"),
    request(1700000008000, cost=0.5),
    say(1700000009000, "completion_result", "The pager sorts by time now."),
    say(1700000010000, "completion_result", ask=True),
]  # fmt: skip


def test_a_written_task_reads_as_turns_calls_results_and_its_own_cost(agents_home, store):
    task = one(store, "cline", task_folder(agents_home, PAGER))
    events = log_of(store, task)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["SessionStart", "Message", "Reply", "Result", "Reply", "Result", "Error",
                     "Reply", "TurnEnd"]  # fmt: skip
    edit = events[2].calls[0]
    assert (
        edit.tool == "replace_in_file" and diff_of(edit.tool, edit.input)["files"][0]["added"] == 1
    )
    assert events[3].files == ["pager.go"] and events[5].output == "FAIL pager"
    assert events[2].usage == r.Usage(input=10, output=20, cache_read=30, cache_write=40)
    assert events[-1].cost_usd == pytest.approx(0.52) and events[0].project == "/home/ana/pager"
    assert events[-2].text == "The pager sorts by time now."


def test_while_cline_writes_the_last_reply_waits_and_is_written_when_quiet(agents_home, store):
    path = task_folder(agents_home, PAGER, live=True)
    task = one(store, "cline", path)
    assert not any(isinstance(e, r.TurnEnd) for e in log_of(store, task))
    os.utime(path, (OLD, OLD))
    assert import_paths(store, "cline", [path]).extended == [task]
    assert isinstance(log_of(store, task)[-1], r.TurnEnd)


def test_roo_code_s_task_takes_its_folder_from_its_history_item(agents_home, store):
    item = {"id": "1700000000000", "ts": 1, "task": "Fix", "workspace": "/home/ana/roo"}
    path = task_folder(agents_home, PAGER, extension="rooveterinaryinc.roo-cline",
                       **{"history_item.json": item})  # fmt: skip
    report = import_paths(store, "roo", [p for p in registry.get("roo").roots() if p.exists()])
    assert report.created == ["roo-1700000000000"]
    assert store.get("roo-1700000000000").project == "/home/ana/roo"
    assert store.get("roo-1700000000000").origin == "roo-code" and path.exists()


def test_cline_s_task_history_gives_the_folder_it_began_in(agents_home, store):
    path = task_folder(agents_home, PAGER)
    state = path.parents[2] / "state" / "taskHistory.json"
    state.parent.mkdir()
    state.write_text(json.dumps([{"id": "1700000000000", "ts": 1, "task": "Fix",
                                  "cwdOnTaskInitialization": "/home/ana/began"}]))  # fmt: skip
    assert store.get(one(store, "cline", path)).project == "/home/ana/began"
    assert "task history" in refused(store, "cline", state)


def test_a_torn_file_is_refused_in_one_line_and_the_task_kept(agents_home, store):
    reason = torn_refused_and_kept(store, "cline", task_folder(agents_home, PAGER))
    assert reason == "not valid JSON: it breaks off before its end"


def test_another_task_written_over_the_file_is_refused_and_the_log_kept(agents_home, store):
    path = task_folder(agents_home, PAGER)
    task = one(store, "cline", path)
    before = store.log_path(task).read_bytes()
    other = [say(1700000000000, "text", "Something else"), request(1700000001500),
             say(1700000002500, "text", "Done.")]  # fmt: skip
    task_folder(agents_home, other)
    report = import_paths(store, "cline", [path])
    assert "no longer holds" in report.skipped[0].reason
    assert store.log_path(task).read_bytes() == before


def test_a_huge_file_is_refused_without_being_read(agents_home, store):
    path = task_folder(agents_home, PAGER)
    with open(path, "r+b") as handle:
        handle.truncate(600 * 1024 * 1024)  # sparse: no disk used
    os.utime(path, (OLD, OLD))
    assert "too big to read whole" in refused(store, "cline", path)


def test_other_json_of_the_extension_is_refused_with_what_it_is(tmp_path, store):
    settings = tmp_path / "cline_mcp_settings.json"
    settings.write_text(json.dumps({"mcpServers": {}}))
    assert "MCP settings" in refused(store, "cline", settings)
    other = tmp_path / "package.json"
    other.write_text(json.dumps({"name": "x"}))
    assert "not a Cline task" in refused(store, "cline", other)


def test_sub_agents_a_command_s_streamed_output_and_a_compaction_are_read(agents_home, store):
    status = {
        "status": "completed",
        "total": 2,
        "items": [
            {
                "index": 1,
                "prompt": "Read the pager",
                "status": "completed",
                "result": "It sorts by id.",
            },
            {"index": 2, "prompt": "Read the tests", "status": "failed", "error": "timed out"},
        ],
    }
    usage = {
        "source": "subagents",
        "tokensIn": 5,
        "tokensOut": 6,
        "cacheReads": 0,
        "cacheWrites": 0,
        "cost": 0.25,
    }
    compaction = {"status": "completed", "mode": "auto", "tokensBefore": 9000, "tokensAfter": 900}
    messages = [
        say(1700000000000, "text", "Look at the pager"),
        request(1700000001000),
        say(1700000002000, "use_subagents", json.dumps({"prompts": ["Read the pager", "Read it"]})),
        say(1700000003000, "subagent", json.dumps(status)),
        say(1700000003500, "subagent_usage", json.dumps(usage)),
        request(1700000004000),
        say(1700000005000, "command", "go test"),
        say(1700000006000, "command_output", "ok pager", ask=True),
        say(1700000006500, "command_output", "FAIL tests", ask=True),
        say(1700000007000, "compaction", json.dumps(compaction)),
    ]  # fmt: skip
    events = log_of(store, one(store, "cline", task_folder(agents_home, messages)))
    results = {e.tool: e for e in events if isinstance(e, r.Result)}
    assert results["use_subagents"].output.startswith("[1] COMPLETED - Read the pager")
    assert results["execute_command"].output == "ok pager\nFAIL tests"
    agents = [(e.agent, e.text) for e in events if isinstance(e, r.Reply) and e.agent]
    assert agents[:2] == [("1", "It sorts by id."), ("2", "timed out")]
    assert [e.cost_usd for e in events if isinstance(e, r.Reply) and e.agent == "sub-agents"] == [
        0.25
    ]
    assert [e.note for e in events if isinstance(e, r.ContextCompact)] == [
        "Context compacted (auto): 9,000 tokens to 900"
    ]


def test_an_api_history_with_tool_result_blocks_pairs_them_by_id(agents_home, store):
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nFix it\n</task>"}],
         "ts": 1700000000000},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "write_to_file",
             "input": {"path": "a.go", "content": "package a\n"}}], "ts": 1700000001000,
         "metrics": {"tokens": {"prompt": 3, "completion": 4, "cached": 5}},
         "modelInfo": {"modelId": "claude-sonnet-4-5-20250929"}},
        {"role": "user", "ts": 1700000002000, "content": [
            {"type": "tool_result", "tool_use_id": "t1",
             "content": [{"type": "text", "text": "written"}]}]},
    ]  # fmt: skip
    folder = agents_home / "Code" / "Code" / "User" / "globalStorage" / "rooveterinaryinc.roo-cline"
    path = (
        folder / "tasks" / "0a0a0a0a-0000-4000-8000-00000000000a" / "api_conversation_history.json"
    )
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(history))
    os.utime(path, (OLD, OLD))
    events = log_of(store, one(store, "roo", path))
    (result,) = [e for e in events if isinstance(e, r.Result)]
    assert (result.output, result.files) == ("written", ["a.go"])
    reply = next(e for e in events if isinstance(e, r.Reply))
    assert reply.usage == r.Usage(input=3, output=4, cache_read=5) and reply.cost_usd


def test_roo_code_s_whole_file_edit_condensing_and_sub_task_result_are_read(agents_home, store):
    unified = "@@ -1 +1 @@\n-package a\n+package b\n"
    condense = {"cost": 0.01, "prevContextTokens": 9000, "newContextTokens": 900,
                "summary": "The pager sorts by time."}  # fmt: skip
    messages = [
        say(1700000000000, "text", "Rename the package"),
        request(1700000001000),
        tool(1700000002000, tool="editedExistingFile", path="a.go", diff=unified,
             content="package b\n"),
        {**say(1700000003000, "condense_context"), "contextCondense": condense},
        say(1700000004000, "subtask_result", "The tests pass."),
    ]  # fmt: skip
    path = task_folder(agents_home, messages, extension="rooveterinaryinc.roo-cline")
    events = log_of(store, one(store, "roo", path))
    (edit,) = [c for e in events if isinstance(e, r.Reply) for c in e.calls]
    assert (edit.tool, edit.input) == ("write_to_file", {"path": "a.go", "content": "package b\n"})
    assert [e.note for e in events if isinstance(e, r.ContextCompact)] == [
        "The pager sorts by time."
    ]
    assert [(e.agent, e.text) for e in events if isinstance(e, r.Reply) and e.agent] == [
        ("sub-task", "The tests pass.")
    ]


def test_the_folders_followed_are_those_of_the_editors_on_this_computer(agents_home):
    cline = registry.get("cline")
    vscode = agents_home / "Code" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
    assert cline.roots()[0] == vscode / "tasks"  # none there: where VS Code would keep them
    (agents_home / "Code" / "Cursor" / "User").mkdir(parents=True)
    (agents_home / "Code" / "Windsurf" / "User").mkdir(parents=True)
    assert [p.parts[-5] for p in registry.get("roo").roots()] == ["Cursor", "Windsurf"]
    assert cline.roots()[-1] == agents_home / ".cline" / "data" / "tasks"


def test_the_corpus_folder_given_by_hand_gives_each_task_once(corpus, store):
    """Copies named `<owner>__<repo>__<task id>__ui_messages.json`: the id in the name joins a
    task's files, the model's side beside the panel's is passed over, saying why."""
    report = import_paths(store, "cline", [corpus / "more" / "cline"])
    assert len(report.created) == 3 and "cl-1769053680585" in report.created
    reasons = sorted(skipped.reason for skipped in report.skipped)
    assert len(reasons) == 2 and reasons[0].startswith("a task's metadata")
    assert reasons[1].startswith("the model's side of task 1769053680585")


def test_an_ask_is_answered_by_what_follows_and_the_last_one_waits(agents_home, store):
    run = {"ts": 1700000002000, "type": "ask", "ask": "command", "text": "rm -rf build"}
    ask = {"ts": 1700000004000, "type": "ask", "ask": "followup",
           "text": json.dumps({"question": "Which branch?", "options": ["main"]})}  # fmt: skip
    messages = [say(1700000000000, "text", "Clean the build"), request(1700000001000), run,
                say(1700000003000, "user_feedback", "No"), request(1700000003500), ask]  # fmt: skip
    events = log_of(store, one(store, "cline", task_folder(agents_home, messages, live=True)))
    asks = [(e.call, e.tool) for e in events if isinstance(e, r.ApprovalAsk)]
    assert asks == [("ui/1700000002000", "execute_command"),
                    ("ui/1700000004000", "ask_followup_question")]  # fmt: skip
    answers = [(e.call, e.allowed) for e in events if isinstance(e, r.ApprovalAnswer)]
    assert answers == [("ui/1700000002000", False)]  # the person's words denied it


def test_a_file_cline_replaces_with_a_longer_one_adds_only_what_is_new(agents_home, store):
    path = task_folder(agents_home, PAGER[:4])
    task = one(store, "cline", path)
    before = store.log_path(task).read_bytes()
    fresh = path.with_name("ui_messages.json.tmp")  # written aside, then renamed over it
    fresh.write_text(json.dumps(PAGER))
    os.utime(fresh, (OLD, OLD))
    os.replace(fresh, path)
    assert import_paths(store, "cline", [path]).extended == [task]
    after = store.log_path(task).read_bytes()
    assert after.startswith(before)
    keys = [e.src.id for e in log_of(store, task) if e.src]
    once = store_in(agents_home / "once")
    assert len(keys) == len(set(keys)) == len(log_of(once, one(once, "cline", path)))


def test_claude_dev_s_tokens_in_api_req_finished_are_the_request_s(agents_home, store):
    finished = {"tokensIn": 7, "tokensOut": 8, "cost": 0.002}
    messages = [say(1700000000000, "text", "Fix it"),
                say(1700000001000, "api_req_started", json.dumps({"request": "<task>"})),
                say(1700000002000, "text", "Fixed."),
                say(1700000003000, "api_req_finished", json.dumps(finished))]  # fmt: skip
    events = log_of(store, one(store, "cline", task_folder(agents_home, messages)))
    reply = next(e for e in events if isinstance(e, r.Reply))
    assert (reply.usage, reply.cost_usd) == (r.Usage(input=7, output=8), 0.002)


def test_who_wrote_a_line_is_the_turn_of_cline_s_write_or_its_search_and_replace(
    agents_home, tmp_path, data_dir
):
    from nodwyn import memory
    from nodwyn.memory.provenance.blame import blame

    project = tmp_path / "src" / "pager"
    project.mkdir(parents=True)
    first = "def pages(items):\n    return sorted(items, key=id)\n"
    last = "def pages(items):\n    return sorted(items, key=lambda p: p.time)\n"
    block = ("------- SEARCH\n    return sorted(items, key=id)\n=======\n"
             "    return sorted(items, key=lambda p: p.time)\n+++++++ REPLACE\n")  # fmt: skip
    ask = {"request": f"<task>\n# Current Working Directory ({project}) Files\n", "tokensIn": 1}
    messages = [
        say(1700000000000, "text", "Write the pager"),
        say(1700000001000, "api_req_started", json.dumps(ask)),
        tool(1700000002000, tool="newFileCreated", path="pages.py", content=first),
        say(1700000003000, "user_feedback", "Sort by time"),
        say(1700000004000, "api_req_started", json.dumps(ask)),
        tool(1700000005000, tool="editedExistingFile", path="pages.py", content=block),
    ]  # fmt: skip
    store = Store(data_dir)
    one(store, "cline", task_folder(agents_home, messages))
    memory.refresh_words(store)
    (project / "pages.py").write_text(last)
    done = blame(store, project / "pages.py")
    origins = [done.origins[line.origin] for line in done.lines]
    assert [(o.tool, o.asked, o.agent) for o in origins] == [
        ("write_to_file", "Write the pager", "cline"),
        ("replace_in_file", "Sort by time", "cline"),
    ]
