"""A task of Cline and of Continue from the real corpus, read on the page at a desktop window's
size and at phone width: nothing raw on it (no JSON of a call, no Cline wrapper tags), nothing
wider than the window, each call said in words; search finds them and History shows their
cards. Screenshots go to test-artifacts/ for a person to look at."""

import json

import pytest
from corpora import REAL
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store
from playwright.sync_api import expect
from test_import_cline import REAL as CLINE_TASKS
from test_import_cline import laid_out as cline_laid_out
from test_import_continue import laid_out as continue_laid_out

from .conftest import ARTIFACTS, serve

SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
RAW = ('{"tool":', "<environment_details>", "api_req_started", '"toolCallId"', "[object Object]",
       "tool_use", "record of kind")  # fmt: skip
TASKS = {
    "cline": "cl-1760534080239",
    "cline-api": "cl-1777073265986",
    "cline-edits": "cl-1769053680585",
    "continue": "cn-02044b99-f94b-4df0-a981-3b26d054b6b0",
}


@pytest.fixture(scope="module")
def served_more(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NODWYN_DATA_DIR", str(home / "data"))
        store = Store()
        import_paths(store, "cline", [cline_laid_out(REAL, home, task) for task in CLINE_TASKS])
        import_paths(store, "continue", [continue_laid_out(REAL, home)])
        with serve(root=home / "data", log=home / "serve.log") as server:
            yield server


@pytest.mark.corpus
@pytest.mark.parametrize("size", list(SIZES))
def test_a_cline_and_a_continue_task_read_without_anything_raw(browser, served_more, size):
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=size == "phone"
    )
    context.set_default_timeout(60000)
    page = context.new_page()
    ARTIFACTS.mkdir(exist_ok=True)
    for name, task in TASKS.items():
        page.goto(served_more.at(task=task))
        expect(page.locator("[data-events]")).to_be_visible()
        # a reply's calls are folded as one row ("6 tool calls: ..."), each call a line inside
        shown = "[data-events] details.tool-group > summary:visible, [data-events] .call:visible"
        expect(page.locator(shown).first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        text = page.locator("[data-pane]").inner_text()
        assert not [words for words in RAW if words in text], name
        page.screenshot(path=str(ARTIFACTS / f"more-{name}-{size}.png"))
    page.goto(served_more.at(task=TASKS["continue"], view="history"))
    expect(page.locator("[data-board-card]").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / f"more-continue-history-{size}.png"))
    context.close()


@pytest.mark.corpus
def test_search_finds_a_cline_task_and_a_continue_session_by_their_words(browser, served_more):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    for words, task in (("vscode-commands", TASKS["cline"]), ("cleanup report", TASKS["continue"])):
        page.goto(served_more.at(q=json.dumps(words)[1:-1]))
        expect(page.locator(f'[data-result-task="{task}"]').first).to_be_visible(timeout=60000)
    page.screenshot(path=str(ARTIFACTS / "more-search-desktop.png"))
    page.close()
