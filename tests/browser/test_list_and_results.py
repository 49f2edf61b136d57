"""The task list and the search results (issue 48): the open task scrolled into view, its agent
a chip in the agent's own colour, titles without Markdown marks and URLs broken at their
separators; results' prose in the text font, words that matched nothing named, hits found by
meaning alone marked, and the opened hit never under the historical view's banner."""

import re

import pytest
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve
from .test_search import search

SWATCH = """(cls) => { const s = document.createElement('span'); s.className = cls;
  document.body.append(s); const c = getComputedStyle(s).backgroundColor; s.remove(); return c }"""
URL = "https://superteam.fun/earn/listing/trading-tools-and-agents-for-everyone"


def many_tasks(store: Store) -> None:
    """Sixty tasks in three folders, the oldest marked up, the newest titled by a URL."""
    for n in range(60):
        start = r.SessionStart(project=f"/home/ana/src/p{n % 3}", origin=r.Origin(tool="codex"))
        title = "**Peer-Review** of the `pager`" if n == 0 else URL if n == 59 else f"Task {n}"
        at = f"2026-05-{1 + n // 3:02d}T10:{n % 60:02d}:00Z"
        with store.create(start, f"t{n:02d}") as w:
            w.append([r.SessionTitle(title=title, at=at), r.Message(text=f"do task {n}", at=at)])
            w.append([r.Reply(text=f"Done with the flaky pager, step {n}.", at=at)])


@pytest.fixture
def listed(data_dir, tmp_path):
    many_tasks(Store(data_dir))
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


def test_the_open_task_is_in_view_with_its_agent_chip_and_a_clean_title(page, listed):
    page.set_viewport_size({"width": 1280, "height": 600})
    page.goto(listed.at(task="t00"))  # the oldest: past "Show more" in its folder, far down
    row = page.locator('[data-task-list] .task-item[data-task="t00"]')
    expect(row).to_be_in_viewport()
    expect(row.locator(".task-title")).to_have_text("Peer-Review of the pager")
    chip = row.locator(".agent-chip")
    expect(chip).to_have_text("Codex")
    dot = chip.evaluate("n => getComputedStyle(n, '::before').backgroundColor")
    swatch = page.evaluate(SWATCH, "agent-colour agent-codex")
    assert dot == swatch  # the colour the charts give Codex
    facts = row.locator("[data-task-facts]")
    assert facts.evaluate("n => n.getClientRects().length && n.scrollHeight <= n.clientHeight + 1")
    url = page.locator('.task-item[data-task="t59"] .task-title')
    assert url.locator("wbr").count() >= 6  # a break allowed at each separator of the URL
    assert not url.evaluate("n => getComputedStyle(n).overflowWrap").startswith("anywhere")


def test_results_say_unmatched_words_and_read_prose_in_the_text_font(page, listed):
    page.goto(listed.url)
    search(page, "flaky zzqxv", "all")
    expect(page.locator("[data-unmatched]")).to_have_text("No result holds “zzqxv”")
    prose = page.locator(".snippet.prose-line").first
    expect(prose).to_contain_text("flaky")
    font = prose.evaluate("n => getComputedStyle(n).fontFamily")
    assert not font.startswith("ui-monospace")
    prose.click()
    hit = page.locator("[data-events] [data-hit]")
    expect(hit).to_be_visible()
    banner = page.locator("[data-historical]").bounding_box()
    box = hit.bounding_box()
    assert box["y"] >= banner["y"] + banner["height"] or box["y"] + box["height"] <= banner["y"]


def test_a_hit_found_by_meaning_alone_is_marked(page, served):
    page.goto(served.url)
    search(page, "quokka sourdough pagination ordering randomly", "all")
    turns = page.locator("[data-result-turn]")
    expect(turns.first).to_be_visible()
    for i in range(turns.count()):
        turn = turns.nth(i)
        snippets = " ".join(turn.locator(".snippet, .heading").all_inner_texts()).lower()
        holds = any(
            w in snippets for w in ("quokka", "sourdough", "pagination", "ordering", "randomly")
        )
        if turn.locator("[data-by-meaning]").count():
            assert not turn.locator("mark").count(), "a meaning-only hit marks no word"
        elif not holds:
            pytest.fail(f"turn {i} holds none of the words and is not marked: {snippets!r}")
    expect(page.locator("[data-results-title]")).to_contain_text(re.compile(r"\d+ turn"))
