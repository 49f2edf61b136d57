"""Every file of ../shared/corpus/more's Pi, Qwen Code and Crush folders accounted for when the
folder is named to its agent (ADR 0053): each session a task, each other file refused in one
line with why, and other agents' files refused by these three importers."""

import pytest
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store

FOLDERS = {  # agent: (folder, tasks, {file: the start of the reason it is refused})
    "pi": ("pi", 1, {}),
    "qwen": (
        "qwen-code",
        3,
        {"Haniaimraxn__TODO-LIST__tmp-2cb59d2d__logs.json": "Qwen Code's prompt log (logs.json)"},
    ),  # fmt: skip
    "crush": ("crush", 2, {}),
}


@pytest.mark.corpus
@pytest.mark.parametrize("agent", FOLDERS)
def test_every_file_of_the_agents_folder_is_a_task_or_refused_with_why(corpus, agent):
    folder, tasks, refused = FOLDERS[agent]
    report = import_paths(Store(), agent, [corpus / "more" / folder])
    assert len(report.created) == tasks and not report.problems
    assert {s.path.rsplit("/", 1)[-1]: s.reason for s in report.skipped}.keys() == refused.keys()
    for skipped in report.skipped:
        assert skipped.reason.startswith(refused[skipped.path.rsplit("/", 1)[-1]])
        assert "\n" not in skipped.reason


@pytest.mark.corpus
@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "copilot", "opencode", "cursor"])
def test_the_first_agents_importers_take_none_of_these_files(corpus, agent):
    for folder in ("pi", "qwen-code", "crush"):
        report = import_paths(Store(), agent, [corpus / "more" / folder])
        assert not (report.created or report.extended), (agent, folder, report.created)
    if agent == "claude":  # Qwen Code's records look like Claude Code's: told apart, said so
        (said,) = {s.reason for s in import_paths(Store(), agent, [corpus / "more" / "qwen-code"])
                   .skipped if s.path.endswith(".jsonl")}  # fmt: skip
        assert said.startswith("a Qwen Code chat") and "nodwyn import qwen" in said


@pytest.mark.corpus
@pytest.mark.parametrize("agent", FOLDERS)
def test_the_other_agents_files_are_refused_by_each_of_the_three(corpus, agent):
    mine = FOLDERS[agent][0]
    for other in ("pi", "qwen-code", "crush", "cline", "continue"):
        if other == mine:
            continue
        report = import_paths(Store(), agent, [corpus / "more" / other])
        assert not (report.created or report.extended), (agent, other, report.created)
        assert all(s.reason and "\n" not in s.reason for s in report.skipped)
