"""The sidebar and the task header, in Chromium against `nodwyn serve --demo`."""

import json
import re

from nodwyn.log import records
from nodwyn.store import Store
from playwright.sync_api import expect


def open_page(page, served, **state):
    page.goto(served.at(**state))
    expect(page.locator("[data-task-list] .task-item").first).to_be_visible()


def titles(locator):
    return [text.strip() for text in locator.locator(".task-title").all_inner_texts()]


def test_the_sidebar_puts_what_needs_an_answer_first_then_folders_by_newest_task(page, served):
    open_page(page, served)
    groups = page.locator("[data-task-list] > section")
    keys = [groups.nth(i).get_attribute("data-group-key") for i in range(groups.count())]
    assert keys == [
        ":asking",
        "/home/ana/src/pager",
        "/home/ana/src/site",
        "/home/ana/work/site",
        "/home/ana/src/infra",
        ":machine",
        ":archived",
    ]
    assert titles(groups.nth(0)) == [
        "Delete the old release branches that were merged more than a year ago."
    ]
    pager = page.locator('[data-group-key="/home/ana/src/pager"]')
    assert titles(pager)[:2] == [
        "Fix the flaky TestPagerOrder: it fails about one run in five on CI.",
        "Add a --limit flag to `pager list` that stops after N pages.",
    ]
    # two folders named "site" are told apart by their parent
    expect(page.get_by_role("button", name="src/site")).to_be_visible()
    expect(page.get_by_role("button", name="work/site")).to_be_visible()
    # machine runs and the archive are folded out of the way at the end
    expect(page.get_by_role("button", name="Machine runs (1)")).to_have_attribute(
        "aria-expanded", "false"
    )
    expect(page.get_by_role("button", name="Archived (1)")).to_have_attribute(
        "aria-expanded", "false"
    )
    expect(page.get_by_text("Upgrade to Go 1.23.")).to_have_count(0)


def test_five_tasks_a_folder_then_show_more(page, served):
    open_page(page, served)
    pager = page.locator('[data-group-key="/home/ana/src/pager"]')
    expect(pager.locator(".task-item")).to_have_count(5)
    pager.get_by_role("button", name="Show 1 more").click()
    expect(pager.locator(".task-item")).to_have_count(6)


def test_a_folded_folder_stays_folded_after_a_reload(page, served):
    open_page(page, served)
    heading = page.get_by_role("button", name="infra")
    heading.click()
    expect(heading).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_text("terraform plan fails with a missing provider.")).to_have_count(0)
    page.reload()
    expect(page.get_by_role("button", name="infra")).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_text("terraform plan fails with a missing provider.")).to_have_count(0)
    page.get_by_role("button", name="infra").click()
    expect(page.get_by_text("terraform plan fails with a missing provider.")).to_be_visible()


def test_the_archive_opens_and_the_filter_finds_tasks_in_it(page, served):
    open_page(page, served)
    page.get_by_role("button", name="Archived (1)").click()
    expect(page.get_by_text("Upgrade to Go 1.23.")).to_be_visible()
    page.get_by_role("button", name="Archived (1)").click()
    page.get_by_label("Filter tasks").fill("go 1.23")
    items = page.locator("[data-task-list] .task-item")
    expect(items).to_have_count(2)  # one in the pager folder, one in the archive
    expect(page.locator('[data-group-key=":archived"] .task-item')).to_have_text(
        re.compile("Upgrade")
    )
    page.get_by_label("Filter tasks").fill("nothing like this")
    expect(page.get_by_text("No task matches")).to_be_visible()


def test_arrow_keys_move_through_the_sidebar_and_enter_opens(page, served):
    open_page(page, served)
    page.get_by_label("Filter tasks").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("task=demo-pager-flaky"))
    expect(page.locator("h1[data-title]")).to_have_text(re.compile("Fix the flaky"))


def test_folding_a_folder_or_showing_more_by_keyboard_keeps_the_focus_in_the_list(page, served):
    open_page(page, served)
    heading = page.get_by_role("button", name="infra")
    heading.focus()
    page.keyboard.press("Enter")
    expect(heading).to_have_attribute("aria-expanded", "false")
    expect(heading).to_be_focused()
    page.keyboard.press("Enter")
    expect(heading).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator('[data-task="demo-infra-tf"]')).to_be_focused()
    page.get_by_role("button", name="Show 1 more").focus()
    page.keyboard.press("Enter")
    pager = page.locator('[data-group-key="/home/ana/src/pager"] .task-item')
    expect(pager).to_have_count(6)
    expect(pager.nth(5)).to_be_focused()  # the first task it showed


def test_a_refresh_of_the_list_leaves_the_keyboard_where_it_was(page, served):
    open_page(page, served, task="demo-pager-flaky")
    page.locator('[data-task="demo-pager-readme"]').focus()
    Store(served.root).rename("demo-infra-tf", "Pin the AWS provider")
    expect(page.get_by_text("Pin the AWS provider")).to_be_visible(timeout=15000)
    expect(page.locator('[data-task="demo-pager-readme"]')).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator('[data-task="demo-pager-lint"]')).to_be_focused()


def test_rename_saves_on_enter_and_on_leaving_and_escape_keeps_the_name(page, served):
    open_page(page, served, task="demo-pager-limit")
    title = page.locator("h1[data-title]")
    page.get_by_role("button", name="Rename").click()
    field = page.get_by_label("Task name")
    field.fill("Add the --limit flag")
    field.press("Enter")
    expect(title).to_have_text("Add the --limit flag")
    expect(page.locator('[data-task="demo-pager-limit"]')).to_contain_text("Add the --limit flag")
    assert Store(served.root).get("demo-pager-limit").title == "Add the --limit flag"

    title.dblclick()
    page.get_by_label("Task name").fill("Not this name")
    page.get_by_label("Task name").press("Escape")
    expect(title).to_have_text("Add the --limit flag")

    title.dblclick()
    page.get_by_label("Task name").fill("Limit flag, saved by leaving")
    page.get_by_label("Filter tasks").click()  # the field loses focus
    expect(title).to_have_text("Limit flag, saved by leaving")
    assert Store(served.root).get("demo-pager-limit").title == "Limit flag, saved by leaving"


def test_rename_and_archive_by_keyboard_leave_the_focus_on_their_button(page, served):
    open_page(page, served, task="demo-pager-limit")
    rename = page.get_by_role("button", name="Rename")
    rename.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Task name")).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.type(" now")
    page.keyboard.press("Enter")
    expect(page.locator("h1[data-title]")).to_contain_text("pages. now")
    expect(rename).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    expect(rename).to_be_focused()
    page.get_by_role("button", name="Archive", exact=True).focus()
    page.keyboard.press("Enter")
    unarchive = page.get_by_role("button", name="Unarchive")
    expect(unarchive).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Archive", exact=True)).to_be_focused()


def test_archive_unarchive_and_delete_after_asking(page, served):
    open_page(page, served, task="demo-pager-ci")
    page.get_by_role("button", name="Archive", exact=True).click()
    expect(page.get_by_role("button", name="Unarchive")).to_be_visible()
    expect(page.get_by_role("button", name="Archived (2)")).to_be_visible()
    page.get_by_role("button", name="Unarchive").click()
    expect(page.get_by_role("button", name="Archived (1)")).to_be_visible()

    page.get_by_role("button", name="Delete…").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Cache Go modules in the CI workflow.")
    dialog.get_by_role("button", name="Cancel").click()
    assert Store(served.root).exists("demo-pager-ci")

    page.get_by_role("button", name="Delete…").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(page.locator('[data-task="demo-pager-ci"]')).to_have_count(0)
    expect(page.get_by_text("Pick a task on the left")).to_be_visible()
    assert not Store(served.root).exists("demo-pager-ci")


def test_a_failed_archive_or_delete_says_what_happened_and_offers_retry(page, served):
    open_page(page, served, task="demo-pager-readme")
    busy = json.dumps({"ok": False, "error": "the task is being written", "status": 409})
    page.route("**/api/tasks/demo-pager-readme/archive", lambda r: r.fulfill(status=409, body=busy))
    page.get_by_role("button", name="Archive", exact=True).click()
    said = page.get_by_role("alert").filter(has_text="Could not archive")
    expect(said).to_contain_text("the task is being written")
    page.unroute("**/api/tasks/demo-pager-readme/archive")
    said.get_by_role("button", name="Retry").click()
    expect(page.get_by_role("button", name="Unarchive")).to_be_visible()
    expect(said).to_have_count(0)
    assert Store(served.root).get("demo-pager-readme").archived

    page.route("**/api/tasks/demo-pager-readme", lambda r: r.fulfill(status=409, body=busy))
    page.get_by_role("button", name="Delete…").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    said = page.get_by_role("alert").filter(has_text="Could not delete")
    expect(said).to_be_visible()
    page.unroute("**/api/tasks/demo-pager-readme")
    said.get_by_role("button", name="Retry").click()
    expect(page.locator('[data-task="demo-pager-readme"]')).to_have_count(0)
    assert not Store(served.root).exists("demo-pager-readme")


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


def test_the_list_follows_changes_written_by_another_process(page, served):
    open_page(page, served, task="demo-pager-flaky")
    store = Store(served.root)
    store.rename("demo-infra-tf", "Pin the AWS provider")
    expect(page.get_by_text("Pin the AWS provider")).to_be_visible(timeout=15000)
    with store.writer("demo-pager-flaky") as writer:
        writer.append([records.Message(text="One more question about the order.")])
    latest = page.locator("[data-events] .event.message").last
    expect(latest).to_contain_text("One more question about the order.", timeout=15000)


def test_a_new_person_is_told_where_nodwyn_looks_and_how_to_import(page, served_empty):
    page.goto(served_empty.url)
    expect(page.locator('[data-empty="start"]')).to_contain_text("~/.claude/projects")
    expect(page.locator('[data-empty="start"]')).to_contain_text("nodwyn import claude")
    expect(page.locator('[data-empty="tasks"]')).to_contain_text("No tasks yet")


def test_a_task_deleted_elsewhere_leaves_the_page_saying_so(page, served):
    page.goto(served.at(task="demo-pager-readme"))
    expect(page.locator("[data-events]")).to_be_visible()
    Store(served.root).delete("demo-pager-readme")
    expect(page.get_by_text("This task no longer exists.")).to_be_visible(timeout=15000)
    expect(page.locator('[data-task="demo-pager-readme"]')).to_have_count(0)


def imported_task(root, task, project, branch="main"):
    """An imported Claude Code task whose replies carry usage but no price (cost unknown)."""
    start = records.SessionStart(
        project=project, origin=records.Origin(tool="claude-code"), branch=branch
    )
    with Store(root).create(start, task) as writer:
        writer.append(
            [
                records.Message(text="Tidy the importer"),
                records.Reply(text="Tidied.", usage=records.Usage(input=10, output=5)),
                records.TurnEnd(status="completed"),
            ]
        )


def test_a_long_path_keeps_the_header_to_one_line_and_an_import_says_cost_unknown(page, served):
    deep = "/home/ana/src/" + "a-folder-with-a-rather-long-name/" * 5 + "tidy"
    imported_task(served.root, "long-path", deep, branch="feature/" + "long-branch-name-" * 4)
    open_page(page, served, task="long-path")
    meta = page.locator("[data-meta]")
    expect(meta.locator('[data-field="cost"]')).to_have_text("cost unknown")
    line = page.locator('[data-meta] [data-field="agent"]').evaluate(
        "n => parseFloat(getComputedStyle(n).lineHeight)"
    )
    assert meta.bounding_box()["height"] < 1.5 * line  # one line, not a path wrapped over four
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


def test_a_title_cut_short_is_whole_on_hover(browser, served):
    context = browser.new_context(viewport={"width": 900, "height": 600})
    page = context.new_page()
    whole = "Fix the flaky TestPagerOrder: it fails about one run in five on CI."
    open_page(page, served, task="demo-pager-flaky")
    item = page.locator('[data-task="demo-pager-flaky"] .task-title')
    assert item.evaluate("n => n.scrollWidth > n.clientWidth")  # cut short in the list
    expect(item).to_have_attribute("title", whole)
    expect(page.locator("h1[data-title]")).to_have_attribute("title", re.compile(re.escape(whole)))
    context.close()


def test_a_new_task_above_does_not_move_the_rows_being_read(browser, served):
    context = browser.new_context(viewport={"width": 1000, "height": 400})
    page = context.new_page()
    open_page(page, served)
    task_list = page.locator("[data-task-list]")
    task_list.evaluate("n => { n.scrollTop = 120; }")
    row = page.locator('[data-task="demo-work-site-links"]')
    before = row.bounding_box()["y"]
    start = records.SessionStart(
        project="/home/ana/src/brand-new", origin=records.Origin(tool="codex")
    )
    with Store(served.root).create(start, "brand-new") as writer:
        writer.append([records.Message(text="Start the brand new thing")])
    expect(page.locator('[data-task="brand-new"]')).to_have_count(1, timeout=15000)
    assert abs(row.bounding_box()["y"] - before) <= 1
    task_list.evaluate("n => { n.scrollTop = 0; }")
    expect(page.locator('[data-task="brand-new"]')).to_be_in_viewport()
    context.close()


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
        meta = page.locator("[data-meta]")
        expect(meta.locator('[data-field="cost"]')).to_be_visible()
        assert meta.evaluate(NO_SEPARATOR_STARTS_A_LINE) == []
        box = meta.bounding_box()
        search = page.get_by_label("Search", exact=True).bounding_box()
        assert abs((box["x"] + 12) - search["x"]) <= 1  # lined up with the search box as before
        context.close()


def test_the_sidebar_keeps_the_width_it_was_dragged_to(browser, served):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    open_page(page, served)
    sidebar = page.locator("[data-sidebar]")
    box = sidebar.bounding_box()
    assert round(box["width"]) == 260
    corner = (box["x"] + box["width"] - 3, box["y"] + box["height"] - 3)
    page.mouse.move(*corner)
    page.mouse.down()
    page.mouse.move(corner[0] + 100, corner[1], steps=5)
    page.mouse.up()
    assert round(sidebar.bounding_box()["width"]) == 360
    page.reload()
    expect(page.locator("[data-task-list] .task-item").first).to_be_visible()
    assert round(sidebar.bounding_box()["width"]) == 360
    page.set_viewport_size({"width": 390, "height": 844})  # a drawer keeps its own width
    page.get_by_role("button", name="Tasks").click()
    expect(sidebar).to_be_visible()
    assert sidebar.bounding_box()["width"] <= 0.85 * 390 + 1
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
