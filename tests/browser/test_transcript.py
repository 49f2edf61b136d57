"""The transcript and its history panel, the layout at phone width, progress, local times and
log text kept as text, in Chromium."""

import re

import pytest
from nodwyn import api
from nodwyn.tasks import demo
from playwright.sync_api import expect

from .conftest import open_tool_calls
from .test_search import search


def test_the_history_panel_lists_every_card_and_opens_a_turn(page, served):
    page.goto(served.at(task="demo-site-form"))
    page.get_by_role("button", name="History").click()
    items = page.locator("[data-history] [data-turn-seq]")
    expect(items).to_have_count(2)  # newest first: the second try, then the failed first one
    expect(items.nth(1)).to_contain_text("failed")
    items.first.click()
    expect(page.locator("[data-historical]")).to_be_visible()
    expect(page.locator("[data-events] [data-hit]")).to_contain_text("Try again")


def test_the_history_button_looks_pressed_while_the_history_is_open(page, served):
    page.goto(served.at(task="demo-site-form"))
    button = page.get_by_role("button", name="History")
    look = "n => getComputedStyle(n).backgroundColor + getComputedStyle(n).borderColor"
    closed = button.evaluate(look)
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    page.mouse.move(600, 700)
    assert button.evaluate(look) != closed
    button.click()
    expect(button).to_have_attribute("aria-pressed", "false")
    page.mouse.move(600, 700)  # not hovering it
    assert button.evaluate(look) == closed


def test_the_transcript_shows_cards_calls_errors_compactions_and_sub_agents(page, served):
    page.goto(served.at(task="demo-pager-flaky"))
    card = page.locator("details.card").first
    expect(card.locator(".card-head")).to_contain_text("completed")
    card.locator(".card-head").click()
    expect(card).not_to_have_attribute("open", "")
    failing = page.locator("details.call.error").first
    expect(failing.locator("summary")).to_contain_text("exit 1")
    expect(failing.locator(".call-body")).to_be_hidden()  # input and result folded
    open_tool_calls(page)
    task_call = page.locator('details.call:has(> summary:has-text("Find map iteration"))')
    task_call.locator("> summary").click()
    expect(task_call.locator('.subagent[data-agent="Explore"]')).to_contain_text(
        "pager/order.go:41"
    )
    expect(page.locator("pre.code code")).to_contain_text("sortedIDs")
    assert "monospace" in page.locator("pre.code").evaluate("n => getComputedStyle(n).fontFamily")

    page.goto(served.at(task="demo-pager-index"))
    expect(page.locator("[role=separator]")).to_contain_text("compaction")
    expect(page.locator("[role=separator]")).to_contain_text("pre-sizing the postings map")

    page.goto(served.at(task="demo-site-form"))
    expect(page.locator(".error-event")).to_contain_text("overloaded_error")
    expect(page.locator(".turn-end.error")).to_contain_text("failed")


def test_a_turns_card_names_the_turn_as_people_count_and_never_repeats_the_prompt(page, served):
    page.goto(served.at(task="demo-pager-flaky"))
    card = page.locator("details.card").first
    expect(card.locator(".card-head")).to_have_text(
        re.compile(r"^turn 1 of 1 · completed · 1m 6s · \$\d+\.\d\d$")
    )
    expect(card.locator(".card-head")).to_have_attribute("title", "records #2–#18")
    assert "Fix the flaky" not in card.inner_text()  # the message right under it says it
    assert page.locator("[data-turn]").first.inner_text().count("Fix the flaky") == 1
    page.goto(served.at(task="demo-needs-answer"))  # a turn still going
    expect(page.locator("details.card .card-head").first).to_contain_text("turn 1 of 1 · ")


def test_long_output_is_clipped_with_show_all(page, served):
    page.goto(served.at(task="demo-pager-flaky"))
    open_tool_calls(page)
    call = page.locator("details.call.error").first
    call.locator("summary").click()
    show = call.get_by_role("button", name=re.compile("^Show all"))
    expect(show).to_be_visible()
    clipped = call.locator(".clip").last
    expect(clipped).to_have_class(re.compile("clipped"))
    show.click()
    expect(clipped).not_to_have_class(re.compile("clipped"))
    expect(call).to_contain_text("FAIL\tgithub.com/ana/pager")


def test_log_text_that_looks_like_html_stays_text(page, served):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(served.at(task="demo-site-form"))
    expect(page.locator("[data-events]")).to_contain_text("<script>alert(1)</script>")
    open_tool_calls(page)
    for call in page.locator("details.call").all():
        call.locator("summary").click()
    expect(page.locator("[data-events]")).to_contain_text("<img src=x onerror=alert(1)>")
    search(page, "onerror", "task")
    expect(page.locator("[data-results]")).to_contain_text("onerror=alert(1)")
    page.wait_for_timeout(300)
    assert dialogs == []
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 1  # the page's own module only
    expect(page.locator("h1[data-title]")).to_contain_text("`<script>alert(1)</script>`")


def test_phone_width_turns_the_sidebar_into_a_drawer(browser, served):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(served.url)
    sidebar = page.locator("[data-sidebar]")
    expect(sidebar).to_be_hidden()
    page.get_by_role("button", name="Tasks").click()
    expect(sidebar).to_be_visible()
    page.locator("[data-task-list]").get_by_text("Add a --limit flag").click()
    expect(sidebar).to_be_hidden()
    expect(page.locator("h1[data-title]")).to_contain_text("--limit")
    page.get_by_role("button", name="Task menu").click()  # the search is in it (issue 37)
    box = page.get_by_label("Search", exact=True).bounding_box()
    assert box["width"] > 390 - 40
    context.close()


def test_the_drawer_takes_the_keyboard_in_and_gives_it_back(browser, served):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(served.at(task="demo-pager-limit"))
    expect(page.locator("[data-events]")).to_be_visible()
    tasks = page.get_by_role("button", name="Tasks")
    tasks.focus()
    page.keyboard.press("Enter")
    expect(page.locator('[data-sidebar] [data-task="demo-pager-limit"]')).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator('[data-sidebar] [data-task="demo-pager-index"]')).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("[data-sidebar]")).to_be_hidden()
    expect(tasks).to_be_focused()
    page.goto(served.url)  # no task open: the filter
    page.get_by_role("button", name="Tasks").click()
    expect(page.get_by_label("Filter tasks")).to_be_focused()
    page.keyboard.press("Control+k")  # search from anywhere: the drawer gets out of the way
    expect(page.locator("[data-sidebar]")).to_be_hidden()
    expect(page.get_by_label("Search", exact=True)).to_be_focused()
    context.close()


@pytest.fixture
def in_process(data_dir):
    store = demo.make_demo(data_dir / "demo")
    server = api.Server(store).start()
    yield server
    server.stop()


def test_progress_is_shown_while_importing(page, in_process):
    page.goto(in_process.url)
    expect(page.locator(".task-item").first).to_be_visible()
    progress = page.locator("[data-progress]")
    expect(progress).to_be_hidden()
    in_process.status.set("importing", 120, 480)
    expect(progress).to_contain_text("importing 120/480", timeout=10000)
    in_process.status.clear()
    expect(progress).to_be_hidden(timeout=10000)


def test_event_times_are_the_persons_local_time(browser, served):
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, timezone_id="America/New_York"
    )
    page = context.new_page()
    page.goto(served.at(task="demo-pager-flaky"))
    first = page.locator("[data-events] .speaker time").first
    expect(first).to_be_visible()
    stamp = first.get_attribute("datetime")
    local = page.evaluate(
        """(at) => new Date(at).toLocaleTimeString("en-GB", {hour12: false,
            timeZone: "America/New_York"})""",
        stamp,
    )
    expect(first).to_have_text(local)  # not the UTC stamp of the log, hours off the hover
    assert local != stamp[11:19]
    context.close()
