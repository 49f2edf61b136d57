"""tools/eval_search.py imports the files of ../shared/corpus/other as `nodwyn import` would:
each under its own name beside its companions, read by the agent its folder names, and refused
with the importer's reason otherwise (small folders written here, shaped like the corpus)."""

import os
import sys
from pathlib import Path

import pytest
from importing import OLD
from nodwyn.tasks.store import Store

TOOLS = Path(__file__).resolve().parents[1] / "tools"
HISTORY = (
    "\n# aider chat started at 2026-05-01 10:00:00\n\n"
    "#### Fix the flaky TestPagerOrder  \n\nI will fix the sort.\n\n"
)
TYPED = "\n# 2026-05-01 10:00:05.1\n+Fix the flaky TestPagerOrder\n"
EXPORT = "# Exported chat\n\n**User**: fix the pager\n\n**Assistant**: done\n"


@pytest.fixture
def eval_search():
    sys.path.insert(0, str(TOOLS))
    try:
        import eval_search

        yield eval_search
    finally:
        sys.path.remove(str(TOOLS))


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """An other/ folder as the corpus lays it out: `<owner>__<repo>__<the agent's name>`."""
    folder = tmp_path / "corpus" / "other"
    for name, text in [
        ("aider/ann__pager__.aider.chat.history.md", HISTORY),
        ("aider/ann__pager__.aider.input.history", TYPED),
        ("carl__site__.aider.chat.history.md", HISTORY.replace("TestPagerOrder", "site build")),
        ("bob__notes__2026-05-01_chat-export.md", EXPORT),
    ]:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (OLD, OLD))
    return folder


def test_a_file_is_linked_under_its_own_name_beside_its_companions(eval_search, other, tmp_path):
    shelf = tmp_path / "shelf"
    links = {
        path.relative_to(other).as_posix(): link.relative_to(shelf).as_posix()
        for path, link in eval_search.linked(other, shelf)
    }
    assert links == {
        "aider/ann__pager__.aider.chat.history.md": "aider/ann__pager/.aider.chat.history.md",
        "aider/ann__pager__.aider.input.history": "aider/ann__pager/.aider.input.history",
        "bob__notes__2026-05-01_chat-export.md": "bob__notes/2026-05-01_chat-export.md",
        "carl__site__.aider.chat.history.md": "carl__site/.aider.chat.history.md",
    }
    assert (shelf / "aider/ann__pager/.aider.input.history").read_text() == TYPED


def test_each_file_goes_to_its_folder_s_agent_or_to_the_one_that_reads_it(
    eval_search, other, tmp_path
):
    store = Store(tmp_path / "data")
    outcome = {
        path.name: eval_search.import_other(store, path.relative_to(other), link)
        for path, link in eval_search.linked(other, tmp_path / "shelf")
    }
    for history in ("ann__pager__.aider.chat.history.md", "carl__site__.aider.chat.history.md"):
        tasks, why = outcome[history]
        assert len(tasks) == 1 and tasks[0].startswith("ad-") and why == ""
    tasks, why = outcome["ann__pager__.aider.input.history"]
    assert tasks == [] and why.startswith("aider: not an aider chat history")
    assert outcome["bob__notes__2026-05-01_chat-export.md"] == ([], "no agent reads it")
    assert len(list(store.sessions.glob("*.jsonl"))) == 2  # a refusal writes no log
