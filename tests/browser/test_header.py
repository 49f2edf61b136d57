"""The task header (its project, branch, agent and cost) at every width, in Chromium against
`nodwyn serve --demo`."""

import re

from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .test_sidebar import open_page


def test_an_open_task_offers_no_archive_or_delete(page, served):
    open_page(page, served, task="demo-needs-answer")
    expect(page.locator("[data-meta]")).to_contain_text("needs an answer")
    expect(page.get_by_role("button", name="Archive", exact=True)).to_have_count(0)
    expect(page.get_by_role("button", name="Delete…")).to_have_count(0)


def test_the_header_shows_project_branch_agent_and_cost(page, served):
    open_page(page, served, task="demo-pager-flaky")
    meta = page.locator("[data-meta]")
    expect(meta.locator('[data-field="project"]')).to_have_text("/home/ana/src/pager")
    expect(meta.locator('[data-field="branch"]')).to_have_text("fix/order")
    expect(meta.locator('[data-field="agent"]')).to_contain_text("Claude Code")
    expect(meta.locator('[data-field="cost"]')).to_have_text(re.compile(r"^\$\d+\.\d\d$"))


def imported_task(root, task, project, branch="main"):
    """An imported Claude Code task whose replies carry usage but no price."""
    start = records.SessionStart(
        project=project, origin=records.Origin(tool="claude-code"), branch=branch
    )
    with Store(root).create(start, task) as writer:
        writer.append(
            [
                records.Message(text="Tidy the importer"),
                records.Reply(
                    text="Tidied.",
                    model="claude-from-the-future-9",
                    usage=records.Usage(input=10, output=5),
                ),
                records.TurnEnd(status="completed"),
            ]
        )


def test_a_long_path_keeps_the_header_to_one_line_and_an_import_says_which_model_has_no_price(
    page, served
):
    deep = "/home/ana/src/" + "a-folder-with-a-rather-long-name/" * 5 + "tidy"
    imported_task(served.root, "long-path", deep, branch="feature/" + "long-branch-name-" * 4)
    open_page(page, served, task="long-path")
    meta = page.locator("[data-meta]")
    expect(meta.locator('[data-field="cost"]')).to_have_text(
        "no price for claude-from-the-future-9"
    )
    # The header is drawn again when the change feed brings the new task, so both sizes are read
    # from the same drawing, and read again until they are: one line, not a path wrapped over four.
    page.wait_for_function(
        """() => {
            const meta = document.querySelector("[data-meta]");
            const agent = meta.querySelector('[data-field="agent"]');
            const line = agent && parseFloat(getComputedStyle(agent).lineHeight);
            return line > 0 && meta.getBoundingClientRect().height < 1.5 * line;
        }""",
        timeout=5000,
    )
    project = meta.locator('[data-field="project"]')
    expect(project).to_have_attribute("title", deep)  # whole on hover
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_a_short_branch_leaves_no_gap_in_the_header(page, served):
    open_page(page, served, task="demo-needs-answer")
    branch = page.locator('[data-meta] [data-field="branch"]')
    expect(branch).to_have_text("main")
    item = branch.locator("xpath=..")
    slack = item.evaluate(
        """n => n.getBoundingClientRect().width - [...n.children]
            .reduce((sum, c) => sum + c.getBoundingClientRect().width, 0)"""
    )
    assert slack <= 7  # the one 6px gap between "·" and "main", nothing more


NO_SEPARATOR_STARTS_A_LINE = """meta => {
  const left = meta.getBoundingClientRect().left + 12;  // what the clip leaves in sight
  let top = null;
  const bad = [];
  for (const item of meta.children) {
    const box = item.getBoundingClientRect();
    const starts = top === null || box.top > top + 2;
    top = box.top;
    if (!item.querySelector(".sep")) continue;
    const sep = item.querySelector(".sep").getBoundingClientRect();
    if (starts && sep.right > left + 0.5) bad.push(item.textContent);
    if (!starts && sep.left < left) bad.push(item.textContent);
  }
  return bad;
}"""


def test_no_line_of_the_header_starts_with_a_separator(browser, served):
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 844})
        page = context.new_page()
        page.goto(served.at(task="demo-pager-flaky"))
        if width == 390:  # at phone width the details are in the header's menu (issue 37)
            page.get_by_role("button", name="Task menu").click()
        meta = page.locator("[data-meta]")
        expect(meta.locator('[data-field="cost"]')).to_be_visible()
        assert meta.evaluate(NO_SEPARATOR_STARTS_A_LINE) == []
        box = meta.bounding_box()
        search = page.get_by_label("Search", exact=True).bounding_box()
        assert abs((box["x"] + 12) - search["x"]) <= 1  # lined up with the search box as before
        context.close()


HEADER_WIDTHS = """() => {
  const width = (selector) => document.querySelector(selector).getBoundingClientRect().width;
  const header = document.querySelector("[data-header]");
  const over = [...header.querySelectorAll("*")].filter((n) => {
    const box = n.getBoundingClientRect();
    return box.width > 0 && box.right > header.getBoundingClientRect().right + 0.5;
  });
  const path = document.querySelector('[data-meta] [data-field="project"]');
  return { search: width("[data-search-input]"), title: width("h1[data-title]"),
           page: document.documentElement.scrollWidth, path: path.scrollWidth - path.clientWidth,
           over: over.map((n) => n.outerHTML.slice(0, 80)) };
}"""


def test_between_phone_and_small_window_widths_the_header_stays_usable(browser, served, artifacts):
    context = browser.new_context(viewport={"width": 760, "height": 600})
    page = context.new_page()
    open_page(page, served, task="demo-pager-flaky")
    expect(page.locator('[data-meta] [data-field="cost"]')).to_be_visible()
    page.screenshot(path=str(artifacts / "header-760.png"))
    seen = page.evaluate(HEADER_WIDTHS)
    assert seen["search"] >= 240 and seen["title"] >= 160, seen
    assert seen["page"] <= 760 and seen["over"] == [], seen
    assert seen["path"] <= 0, seen  # the meta line wraps under instead of cutting the path
    assert page.locator("[data-meta]").evaluate(NO_SEPARATOR_STARTS_A_LINE) == []
    # a sidebar dragged to its widest leaves the header 280 px: it wraps, nothing overflows
    page.locator("[data-sidebar]").evaluate("n => { n.style.width = '480px'; }")
    seen = page.evaluate(HEADER_WIDTHS)
    assert seen["page"] <= 760 and seen["over"] == [], seen
    context.close()
