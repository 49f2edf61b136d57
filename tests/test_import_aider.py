"""Aider: `.aider.chat.history.md` imported as one task per run, with `.aider.input.history` for
the times; the real files of ../shared/corpus/other checked against what they hold."""

import os
import re
from datetime import datetime
from pathlib import Path

import pytest
from importing import OLD, log_of
from nodwyn.importers import registry
from nodwyn.importers.sync import import_paths
from nodwyn.importers.times import at_local
from nodwyn.log import records as r
from nodwyn.memory.words.search import search
from nodwyn.tasks.catalogue import fold_log
from nodwyn.tasks.store import Store


@pytest.fixture
def store() -> Store:
    return Store()


# -- a chat history written the way aider's io.py writes it --------------------------------
def started(at: str) -> str:
    return f"\n# aider chat started at {at}\n\n"


def said(*lines: str) -> str:  # InputOutput.user_input
    return "\n" + "  \n".join(f"#### {line}" for line in lines) + "  \n"


def note(*lines: str) -> str:  # InputOutput.tool_output: blockquote, two spaces
    return "".join(f"> {line}  \n" for line in lines)


def answer(text: str) -> str:  # InputOutput.ai_output
    return "\n" + text.strip() + "\n\n"


EDIT = """I will fix the sort.

pager/order.go
```go
<<<<<<< SEARCH
sort.Ints(pages)
=======
sort.Stable(byPage(pages))
>>>>>>> REPLACE
```
"""
HEAD = [
    "Aider v0.86.1",
    "Model: anthropic/claude-sonnet-4-5 with diff edit format",
    "Git repo: .git with 12 files",
    "Repo-map: using 1024 tokens",
]


def history() -> str:
    return (
        started("2026-05-01 10:00:00")
        + note(*HEAD)
        + said("/add pager/order.go")
        + note("Added pager/order.go to the chat")
        + said("Fix the flaky TestPagerOrder")
        + answer(EDIT)
        + note(
            "Tokens: 2.4k sent, 1.2k cache hit, 310 received. Cost: $0.01 message, $0.01 session.",
            "Applied edit to pager/order.go",
            "Commit 0c5878a fix: stable page order",
        )
        + said("/ask why did it race?")
        + said("why did it race?")
        + answer(
            "<thinking-content-7bbe>\nThe map order.\n</thinking-content-7bbe>\n\n"
            "Maps are unordered."
        )
        + note("Tokens: 3.1k sent, 80 received. Cost: $0.01 message, $0.02 session.")
        + said("/clear")
        + note("All chat history cleared.")
        + said("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all")
        + said("Now document the pager")
        + note(
            "litellm.RateLimitError: RateLimitError: AnthropicException - overloaded",
            "",
            "^C again to exit",
            "^C KeyboardInterrupt",
        )
        + started("2026-05-02 09:30:00")
        + note(*HEAD)
        + said("Rename order.go to sort.go")
        + answer("Done: the file is now sort.go.")
        + note("Tokens: 1.0k sent, 20 received. Cost: $0.00 message, $0.00 session.")
    )


def inputs() -> str:
    entries = [
        ("2026-05-01 10:00:05.1", "/add pager/order.go"),
        ("2026-05-01 10:00:09.25", "Fix the flaky TestPagerOrder"),
        ("2026-05-01 10:01:00.5", "/ask why did it race?"),
        ("2026-05-01 10:02:00.0", "/clear"),
        ("2026-05-01 10:03:00.0", "Now document the pager"),
        ("2026-05-02 09:30:10.0", "Rename order.go to sort.go"),
    ]
    return "".join(f"\n# {at}\n+{text}\n" for at, text in entries)


def write(folder: Path, text: str = "", typed: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".aider.chat.history.md"
    path.write_text(text or history())
    (folder / ".aider.input.history").write_text(inputs() if typed is None else typed)
    for file in (path, folder / ".aider.input.history"):
        os.utime(file, (OLD, OLD))
    return path


def imported(store: Store, path: Path) -> list[str]:
    report = import_paths(store, "aider", [path])
    assert not report.skipped, report.skipped
    return report.created


def local(stamp: str) -> str:
    return at_local(datetime.fromisoformat(stamp))


def test_each_run_of_the_file_is_a_task_in_the_repository_folder(store, tmp_path):
    first, second = imported(store, write(tmp_path / "pager"))
    start = log_of(store, first)[0]
    assert start.project == str((tmp_path / "pager").resolve())
    assert (start.origin.tool, start.origin.version) == ("aider", "0.86.1")
    assert start.model == "anthropic/claude-sonnet-4-5"
    assert start.at == local("2026-05-01 10:00:00")
    assert (
        fold_log(store.log_path(first)).turns == 3 and fold_log(store.log_path(second)).turns == 1
    )


def test_prompts_commands_edits_usage_and_the_clear_are_mapped(store, tmp_path):
    first, _ = imported(store, write(tmp_path / "pager"))
    records = log_of(store, first)[1:]
    kinds = [r.kind_of(x) for x in records]
    assert kinds == [
        "message",
        "reply",
        "reply",
        "result",
        "turn.end",
        "message",
        "reply",
        "reply",
        "turn.end",
        "context.compact",
        "message",
        "error",
        "turn.end",
    ]
    fix, edit, usage, applied, end = records[:5]
    assert fix.text == "Fix the flaky TestPagerOrder" and fix.at == local("2026-05-01 10:00:09.25")
    (call,) = edit.calls
    assert call.tool == "edit" and call.input["path"] == "pager/order.go"
    assert call.input["replace"] == "sort.Stable(byPage(pages))\n"
    assert (
        usage.usage == r.Usage(input=1200, output=310, cache_read=1200) and usage.cost_usd == 0.01
    )
    assert (applied.call, applied.error, applied.files) == (call.id, False, ["pager/order.go"])
    assert (end.status, end.cost_usd) == ("completed", 0.01)
    ask, thought = records[5], records[6]
    assert (ask.command, ask.text) == ("/ask", "why did it race?")
    assert (thought.text, thought.thinking) == ("Maps are unordered.", "The map order.")
    assert records[9].note == "Chat history cleared (/clear)"
    assert "RateLimitError" in records[11].text and records[12].status == "cancelled"


def test_an_edit_aider_could_not_apply_is_a_failed_result(store, tmp_path):
    text = (
        started("2026-05-01 10:00:00")
        + note(*HEAD)
        + said("Fix it")
        + answer(EDIT)
        + note(
            "Tokens: 2.4k sent, 310 received.",
            "The LLM did not conform to the edit format.",
            "SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in "
            "pager/order.go",
        )
    )
    (task,) = imported(store, write(tmp_path / "pager", text))
    (result,) = [x for x in log_of(store, task) if isinstance(x, r.Result)]
    assert result.error and "failed to exactly match" in result.output and not result.files


def test_in_architect_mode_the_editor_s_part_is_its_sub_agent(store, tmp_path):
    plan = "Change pager/order.go to sort stably."
    text = (
        started("2026-05-01 10:00:00")
        + note(
            "Model: openai/o3 with architect edit format",
            "Editor model: openai/gpt-4.1 with editor-diff edit format",
        )
        + said("Fix the flaky TestPagerOrder")
        + answer(plan)
        + note("Tokens: 1.0k sent, 50 received.")
        + said(plan)
        + answer(EDIT)
        + note("Tokens: 2.0k sent, 90 received.", "Applied edit to pager/order.go")
    )
    (task,) = imported(store, write(tmp_path / "pager", text, typed=""))
    records = log_of(store, task)
    editor = [x for x in records if x.agent == "editor"]
    assert [r.kind_of(x) for x in editor] == ["message", "reply", "reply", "result"]
    assert editor[1].model == "openai/gpt-4.1" and editor[1].calls
    assert fold_log(store.log_path(task)).turns == 1


def test_importing_again_adds_nothing_and_a_grown_file_adds_only_what_is_new(store, tmp_path):
    path = write(tmp_path / "pager")
    first, second = imported(store, path)
    before = store.log_path(second).read_bytes()
    assert sorted(import_paths(store, "aider", [path]).unchanged) == sorted([first, second])
    path.write_text(history() + said("And the tests") + answer("Added order_test.go."))
    os.utime(path, (OLD, OLD))
    report = import_paths(store, "aider", [path])
    assert report.extended == [second] and report.unchanged == [first]
    added = log_of(store, second)[len(before.splitlines()) :]
    assert [r.kind_of(x) for x in added] == ["message", "reply", "turn.end"]
    assert store.log_path(second).read_bytes().startswith(before)


def test_while_aider_writes_its_last_reply_and_notes_wait(tmp_path):
    path = write(tmp_path / "pager")
    path.write_text(history() + said("And the tests") + answer("Added order_test.go."))
    (_, live) = registry.get("aider").read(path, live=True)
    assert [r.kind_of(x) for x in live.records][-2:] == ["turn.end", "message"]


def test_a_person_s_secret_is_redacted_and_the_replies_are_found(store, tmp_path):
    key = "sk-proj-" + "Tq7w" * 12
    text = history().replace("Fix the flaky TestPagerOrder", f"Fix TestPagerOrder using {key}")
    first, _ = imported(store, write(tmp_path / "pager", text, typed=""))
    assert key not in store.log_path(first).read_text()
    assert [t.task for t in search(store, "maps unordered").turns][:1] == [first]


@pytest.mark.parametrize(
    "name",
    [
        "edobry__minsky__2025-04-27_20-17-minsky-task-workflow-rule-creation.md",
        "pratikbuilds__trade_arena__claude-session.jsonl",
        "therealjhay__Soul__claude-session.jsonl",
        "diiviikk5__Xeus__gemini-session.jsonl",
    ],
)
def test_look_alikes_are_refused_with_a_reason(store, corpus, name):
    (skipped,) = import_paths(store, "aider", [corpus / "other" / name]).skipped
    assert "not an aider chat history" in skipped.reason
    assert not list(store.root.glob("sessions/*.jsonl"))


# -- the real files -------------------------------------------------------------------------
def real(corpus: Path) -> list[Path]:
    other = corpus / "other"
    return sorted([*other.glob("*.aider.chat.history.md"), *(other / "aider").glob("*.md")])


def prompts_by_hand(path: Path) -> list[int]:
    """Each run's prompts, counted here apart from the importer: `####` entries (an entry is
    its consecutive `####` lines) that are not a command run inside aider, a confirmation's
    answer, the words an `/ask` logs once more, or an architect's plan handed to its editor
    (its first line is the first line of the latest reply before it)."""
    runs, entry, since, asked, noted = [], None, [], "", False
    for line in path.read_text("utf-8").split("\n") + [""]:
        if line.startswith("####"):
            entry = (entry or []) + [line[5:].rstrip()]
            continue
        if entry is not None:  # the entry just ended
            words = "\n".join(entry).strip()
            command = words.split(" ")[0] if words.startswith("/") else ""
            asks = command in ("/ask", "/code", "/architect", "/context", "/help") and " " in words
            if words == asked or (since and entry[0] == since[0]):
                asked = ""
            elif not re.search(r"\(Y\)es/\(N\)o.*\]: ?\S*$", words) and (asks or not command):
                runs[-1] += 1
                asked = words.partition(" ")[2] if asks else ""
            since, entry = [], None
        if line.startswith("# aider chat started at"):
            runs.append(0)
        elif line.startswith(">"):
            noted = True
        elif line.strip():
            since = [] if noted else since  # a reply after aider's notes: the latest one
            since.append(line.rstrip())
            noted = False
    return runs


def test_every_real_aider_file_imports_one_task_per_run_with_its_prompts(store, corpus):
    for path in real(corpus):
        counts = [n for n in prompts_by_hand(path) if n]
        report = import_paths(store, "aider", [path])
        if not counts:
            assert "no conversation" in report.skipped[0].reason, path.name
            continue
        assert len(report.created) == len(counts), path.name
        turns = [fold_log(store.log_path(task)).turns for task in report.created]
        assert turns == counts, path.name
        assert sorted(import_paths(store, "aider", [path]).unchanged) == sorted(report.created)


def test_the_real_architect_run_keeps_its_edits_times_and_clears(store, corpus):
    path = (
        corpus
        / "other"
        / "aider"
        / "BjornNordblom__pocketflow-text2sql-gui__.aider.chat.history.md"
    )
    (task,) = import_paths(store, "aider", [path]).created
    records = log_of(store, task)
    applied = sum(1 for x in records if isinstance(x, r.Result) and not x.error)
    assert applied == path.read_text().count("> Applied edit to ")
    assert sum(1 for x in records if isinstance(x, r.ContextCompact)) == 5
    asked = [x for x in records if isinstance(x, r.Message) and x.agent is None]
    assert asked[0].at == local("2025-08-06 12:07:32.582046")
    assert search(store, "FastAPI webservice").turns
