"""Reading real imported tasks (issue 17, on ../shared/corpus): a real Edit and a real
apply_patch read as diffs, a real reply with a table renders as one, and the resume command
of a real Claude Code and a real Codex task is the agent's own."""

from importing import imported_one
from nodwyn.reading import markdown, resume, shown
from nodwyn.reading.export import export
from nodwyn.tasks.store import Store

CLAUDE = "claude/Durban-Designer__vsla__2cba43de-c8d2-4a69-add8-9fae3ad93900.jsonl"
CODEX = "codex/swarnasn29__soulpass__codex-session.jsonl"


def dressed_calls(store, task):
    window = shown.window(store, task, 1, 0, 500)
    return [call for event in window.events for call in event.get("calls") or []]


def test_a_real_claude_edit_reads_as_a_diff_and_a_real_table_as_a_table(corpus, data_dir):
    store = Store(data_dir)
    task = imported_one(store, "claude", corpus / CLAUDE)
    edits = [call for call in dressed_calls(store, task) if call["tool"] == "Edit"]
    assert edits and all(call.get("diff") for call in edits)
    first = edits[0]["diff"]["files"][0]
    assert first["path"] == edits[0]["input"]["file_path"]
    assert first["added"] + first["removed"] > 0
    window = shown.window(store, task, 2, 0, 0)
    nodes = window.events[0]["md"]
    assert "table" in {node[0] for node in nodes}
    assert "| Positives |" not in markdown.plain(nodes)


def test_a_real_codex_apply_patch_reads_as_a_diff_per_file(corpus, data_dir):
    store = Store(data_dir)
    task = imported_one(store, "codex", corpus / CODEX)
    patches = [call for call in dressed_calls(store, task) if call["tool"] == "apply_patch"]
    assert patches and all(call.get("diff") for call in patches)
    paths = [f["path"] for call in patches for f in call["diff"]["files"]]
    assert any(path.endswith("page.tsx") for path in paths)
    assert "```diff" in export(store, task, "md")


def test_the_resume_command_of_real_imported_tasks_is_the_agents_own(corpus, data_dir):
    store = Store(data_dir)
    claude = resume.command(store, imported_one(store, "claude", corpus / CLAUDE))
    assert (
        claude.command
        == "cd /home/kenth56/vsla && claude --resume 2cba43de-c8d2-4a69-add8-9fae3ad93900"
    )
    codex = resume.command(store, imported_one(store, "codex", corpus / CODEX))
    assert codex.command.startswith("cd /Users/rythme/developer/blockchain")
    assert codex.command.endswith("&& codex resume 019db04b-0312-7661-8759-f0642fa6cd46")
