"""Screenshots of the task list, the overview and the History board with the real corpus of all
eight agents imported (tools/eval_search.py imports it as `nodwyn import` would), at a desktop
window's size and at phone width, light and dark, for a person to look at (issue 24). Saved
under test-artifacts/; each view is checked to have drawn before its picture is taken, with
nothing wider than the window."""

import re
import sys
import time

import pytest
from corpora import REAL
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import ARTIFACTS, serve

SIZES = {"desktop": (1400, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def corpus_served(tmp_path_factory):
    import os

    root = tmp_path_factory.mktemp("corpus") / "data"
    before = os.environ.get("NODWYN_DATA_DIR")
    os.environ["NODWYN_DATA_DIR"] = str(root)
    try:
        sys.path.insert(0, str(ARTIFACTS.parent / "tools"))
        import eval_search

        eval_search.CORPUS = REAL
        made, _ = eval_search.imported(Store(), tmp_path_factory.mktemp("shelf"))
        assert len({Store().get(t).origin for ts in made.values() for t in ts}) == 8
        with serve(root=root, log=root.parent / "serve.log") as server:
            yield server
    finally:
        if before is None:
            os.environ.pop("NODWYN_DATA_DIR", None)
        else:
            os.environ["NODWYN_DATA_DIR"] = before


@pytest.mark.corpus
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_list_overview_and_board_of_the_real_corpus(browser, corpus_served, scheme, size):
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, is_mobile=size == "phone"
    )
    context.set_default_timeout(60000)
    page = context.new_page()
    ARTIFACTS.mkdir(exist_ok=True)

    def shot(view):
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"corpus-{view}-{size}-{scheme}.png"))

    page.goto(corpus_served.url)
    expect(page.locator("[data-total-cost]")).to_be_visible(timeout=60000)
    expect(page.locator("[data-bar]").first).to_be_attached()
    shot("overview")
    if size == "phone":
        page.get_by_role("button", name="Tasks").click()
        page.wait_for_timeout(250)  # the drawer slides in
    expect(page.locator("[data-task-list] .task-item").first).to_be_visible()
    shot("list")
    # a task of a folder of several: its board, then the whole folder's
    task = page.locator(".group:not(.lone) .task-item").first.get_attribute("data-task")
    page.goto(corpus_served.at(task=task, view="history"))
    expect(page.locator("[data-board-card]").first).to_be_visible(timeout=60000)
    page.get_by_role("button", name="All of").click()
    page.get_by_role("button", name="All time").click()
    expect(page.locator("[data-board-card]").nth(1)).to_be_visible(timeout=60000)
    shot("board")
    context.close()


def busiest(root, agent):
    """The task of `agent` with the most turns in the imported corpus."""
    import json

    tasks = [t for t in json.loads(Store(root).list_json(archived=None)) if t["origin"] == agent]
    return max(tasks, key=lambda t: t["turns"])["id"]


def sized_page(browser, size):
    """A context and page at one of SIZES, with a minute's deadline for each event."""
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=size == "phone"
    )
    context.set_default_timeout(60000)
    ARTIFACTS.mkdir(exist_ok=True)
    return context, context.new_page()


INTERNALS = ("*** Begin Patch", "record of kind", "<tool_use_error>", "turn seq")


@pytest.mark.corpus
@pytest.mark.parametrize("size", list(SIZES))
def test_the_long_antigravity_task_a_codex_and_a_cursor_task_read_with_their_outline(
    browser, corpus_served, size
):
    """The long Antigravity task (1,686 records) reaches its start in one click of the outline,
    timed; a Codex task and a Cursor task show no internals; the phone's header is one row."""
    width, height = SIZES[size]
    context, page = sized_page(browser, size)
    for agent in ("antigravity", "codex", "cursor"):
        page.goto(corpus_served.at(task=busiest(corpus_served.root, agent)))
        expect(page.locator("[data-events]")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if size == "phone":
            assert page.locator("[data-header]").bounding_box()["height"] <= height / 5
        text = page.locator("[data-pane]").inner_text()
        assert not [words for words in INTERNALS if words in text], agent
        page.screenshot(path=str(ARTIFACTS / f"corpus-{agent}-{size}.png"))
    page.goto(corpus_served.at(task=busiest(corpus_served.root, "antigravity")))
    expect(page.locator("[data-events]")).to_be_visible()
    if size == "phone":
        page.locator("details[data-outline] > summary").click()
    began = time.perf_counter()
    page.locator('[data-outline-go="first"]').click()
    expect(page.locator('details.card[data-turn-number="1"]')).to_be_in_viewport()
    took = 1000 * (time.perf_counter() - began)
    print(f"{size}: the long Antigravity task's start in {took:.0f} ms")
    page.screenshot(path=str(ARTIFACTS / f"corpus-antigravity-start-{size}.png"))
    context.close()


SCREENS = {  # issue 48's screens, beside AgentsView's (docs/decisions/0057)
    "vsla": lambda root: max(
        (t for t in _tasks(root) if t["project"].endswith("/vsla")),
        key=lambda t: t["cost_usd"] or 0,
    )["id"],
    "aider": lambda root: busiest(root, "aider"),
    "codex": lambda root: busiest(root, "codex"),
    "antigravity": lambda root: busiest(root, "antigravity"),
}


def _tasks(root):
    import json

    return json.loads(Store(root).list_json(archived=None))


@pytest.mark.corpus
@pytest.mark.parametrize("size", list(SIZES))
def test_the_issue_48_screens_read_as_a_conversation_at_both_widths(browser, corpus_served, size):
    """Each task's messages under their speakers' heads, tool calls folded as rows, no record
    numbers or raw ids in the text; the overview, search results and Settings drawn whole."""
    width, _ = SIZES[size]
    context, page = sized_page(browser, size)
    for name, pick in SCREENS.items():
        page.goto(corpus_served.at(task=pick(corpus_served.root)))
        expect(page.locator("[data-events] .speaker").first).to_be_visible()
        text = page.locator("[data-events]").inner_text()
        assert not re.search(r"(^|\s)#\d+\b", text), name
        assert "claude-code" not in text and "{{ CHECKPOINT" not in text, name
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"issue48-{name}-{size}.png"))
    page.goto(corpus_served.url)
    expect(page.locator("[data-activity-range]")).to_contain_text("All of the archive")
    page.screenshot(path=str(ARTIFACTS / f"issue48-overview-{size}.png"))
    page.goto(corpus_served.at(q="flaky test", scope="all"))
    expect(page.locator("[data-results-title]")).to_be_visible(timeout=60000)
    page.screenshot(path=str(ARTIFACTS / f"issue48-search-{size}.png"))
    page.goto(corpus_served.url)
    if size == "phone":
        page.get_by_role("button", name="Tasks").click()  # Settings is in the drawer
    page.get_by_role("button", name="Settings").click()
    expect(page.get_by_role("navigation", name="Settings sections")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / f"issue48-settings-{size}.png"))
    context.close()
