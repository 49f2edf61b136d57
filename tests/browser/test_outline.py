"""The outline of a long task (issue 37): every turn listed beside the transcript at a desktop
window's size and folded above it at phone width, the turn in view marked, a click or a key
jumping to any turn (read from the log when it is not drawn), First, Last and Next error; calls
of every agent said in words; the phone's one-row header; in Chromium against `nodwyn serve`."""

import re
import time

from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import open_tool_calls

TURNS = 40
FAILED = 7  # the turn whose end says it failed


def long_task(root, task="long"):
    """A task of forty turns of five records each (200 records: more than the page first shows)."""
    start = records.SessionStart(
        project="/home/ana/src/long", origin=records.Origin(tool="claude-code")
    )
    lines = []
    for n in range(1, TURNS + 1):
        call = records.Call(id=f"c{n}", tool="Bash", input={"command": f"make step{n}"})
        lines += [
            records.Message(text=f"Question {n}: make step {n} pass"),
            records.Reply(text=f"Working on step {n}.", calls=[call], cost_usd=0.01),
            records.Result(call=f"c{n}", tool="Bash", output=f"step {n} ok", exit=0),
            records.Reply(text=f"Step {n} passes."),
            records.TurnEnd(status="failed" if n == FAILED else "completed", duration_ms=2000),
        ]
    with Store(root).create(start, task) as writer:
        writer.append(lines)


def current(page):
    return page.locator('[data-outline] [aria-current="true"]')


def test_the_outline_lists_every_turn_and_reaches_the_first_in_one_click(page, served):
    long_task(served.root)
    page.goto(served.at(task="long"))
    outline = page.locator("nav[data-outline]")
    expect(outline.locator("[data-outline-turn]")).to_have_count(TURNS)
    first_row = outline.locator("[data-outline-turn]").first
    expect(first_row).to_contain_text("Question 1: make step 1 pass")
    expect(first_row).to_contain_text("completed")
    expect(first_row).to_have_attribute("title", re.compile(r"^turn 1 of 40 · records #2–#6 · "))
    expect(current(page)).to_have_attribute("data-outline-turn", str(2 + 5 * (TURNS - 1)))
    expect(page.locator('[data-turn-number="1"]')).to_have_count(0)  # not drawn yet
    began = time.perf_counter()
    outline.get_by_role("button", name="First").click()
    card = page.locator('details.card[data-turn-number="1"]')
    expect(card).to_be_in_viewport()
    took = time.perf_counter() - began
    print(f"jump to the first of {TURNS} turns: {took * 1000:.0f} ms")
    assert took < 3  # one request of the records from that turn on, not pages of "Earlier"
    expect(current(page)).to_have_attribute("data-outline-turn", "2")
    expect(outline.locator("[data-outline-where]")).to_have_text("turn 1 of 40")
    expect(card.locator(".card-head")).to_be_focused()


def test_keys_and_buttons_go_to_the_next_turn_the_next_error_and_the_last(page, served):
    long_task(served.root)
    page.goto(served.at(task="long"))
    outline = page.locator("nav[data-outline]")
    outline.get_by_role("button", name="First").click()
    expect(current(page)).to_have_attribute("data-outline-turn", "2")
    page.keyboard.press("]")
    expect(current(page)).to_have_attribute("data-outline-turn", "7")
    page.keyboard.press("e")  # the next turn that went wrong
    expect(current(page)).to_have_attribute("data-outline-turn", str(2 + 5 * (FAILED - 1)))
    expect(page.locator(f'details.card[data-turn-number="{FAILED}"]')).to_be_in_viewport()
    expect(outline.get_by_role("button", name="Next error")).to_be_disabled()  # none after it
    outline.locator("[data-outline-turn]").nth(19).click()  # a row jumps to its turn
    expect(page.locator('details.card[data-turn-number="20"]')).to_be_in_viewport()
    outline.get_by_role("button", name="Last").click()
    expect(page.locator(f'details.card[data-turn-number="{TURNS}"]')).to_be_in_viewport()
    expect(current(page)).to_have_attribute("data-outline-turn", str(2 + 5 * (TURNS - 1)))


def test_scrolling_moves_the_mark_to_the_turn_in_view(page, served):
    long_task(served.root)
    page.goto(served.at(task="long"))
    page.locator("nav[data-outline]").get_by_role("button", name="First").click()
    page.locator('details.card[data-turn-number="3"]').scroll_into_view_if_needed()
    page.locator("[data-pane]").evaluate(
        "pane => { const t = pane.querySelector('[data-turn=\"12\"]');"
        " pane.scrollTop += t.getBoundingClientRect().top - pane.getBoundingClientRect().top; }"
    )
    expect(current(page)).to_have_attribute("data-outline-turn", "12")  # turn 3


def test_a_search_hit_opens_at_the_hit_with_its_turn_marked(page, served):
    long_task(served.root)
    page.goto(served.at(task="long", seq=2 + 5 * 4 + 2, q="step", scope="task"))
    expect(page.locator("[data-hit]")).to_be_visible()
    expect(current(page)).to_have_attribute("data-outline-turn", str(2 + 5 * 4))


def test_at_phone_width_the_header_is_one_row_and_the_outline_folds_above(browser, served):
    long_task(served.root)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    context.set_default_timeout(20000)
    page = context.new_page()
    page.goto(served.at(task="long"))
    expect(page.locator("[data-events]")).to_be_visible()
    header = page.locator("[data-header]")
    assert header.bounding_box()["height"] <= 844 / 5
    expect(page.locator("[data-actions]")).to_be_hidden()
    expect(page.locator("[data-search-input]")).to_be_hidden()
    title, menu = page.locator("[data-title]"), page.get_by_role("button", name="Task menu")
    assert abs(title.bounding_box()["y"] - menu.bounding_box()["y"]) < 12  # one row
    menu.click()
    expect(page.get_by_role("button", name="History")).to_be_visible()
    expect(page.locator("[data-search-input]")).to_be_visible()
    menu.click()
    fold = page.locator("details[data-outline]")
    expect(fold.locator("summary")).to_have_text("Outline · turn 40 of 40")
    fold.locator("summary").click()
    fold.locator("[data-outline-turn]").first.click()
    card = page.locator('details.card[data-turn-number="1"]')
    expect(card).to_be_in_viewport()
    assert card.bounding_box()["y"] >= fold.bounding_box()["y"] + fold.bounding_box()["height"] - 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


def test_every_agents_calls_are_said_in_words(page, served):
    patch = "*** Begin Patch\n*** Update File: /home/ana/src/pager/order.go\n@@\n-a\n+b\n+c\n"
    start = records.SessionStart(project="/home/ana/src/pager", origin=records.Origin(tool="codex"))
    calls = [
        records.Call(id="p", tool="apply_patch", input=patch),
        records.Call(
            id="g",
            tool="run_command",
            input={"CommandLine": "npm test", "Cwd": "/x", "toolAction": "Testing"},
        ),
        records.Call(
            id="v",
            tool="view_file",
            input={"AbsolutePath": "/home/ana/src/pager/a.go", "toolSummary": "Read it"},
        ),
        records.Call(
            id="t",
            tool="manage_task",
            input={"Action": "status", "TaskId": "t-1", "toolAction": "Checking the task"},
        ),
        records.Call(id="r", tool="Read", input={"file_path": "/nowhere.go"}),
    ]
    with Store(served.root).create(start, "words") as writer:
        writer.append(
            [
                records.Message(text="Fix the order"),
                records.Limit(name="codex", window_minutes=300, used_percent=30.0),
                records.Reply(text="On it.", calls=calls),
                records.Result(
                    call="r",
                    tool="Read",
                    output="<tool_use_error>File does not exist.</tool_use_error>",
                    error=True,
                ),
            ]
        )
    page.goto(served.at(task="words"))
    said = lambda call: page.locator(f'details.call[data-call="{call}"] > summary')  # noqa: E731
    expect(said("p")).to_have_text("apply_patch pager/order.go +2 −1")
    expect(said("g")).to_have_text("run_command npm test")
    expect(said("v")).to_have_text("view_file /home/ana/src/pager/a.go")
    expect(said("t")).to_have_text("manage_task Checking the task")
    text = page.locator("[data-events]").inner_text()
    for internal in ("*** Begin Patch", "record of kind", "<tool_use_error>", "{"):
        assert internal not in text  # the summaries, folds shut
    open_tool_calls(page)
    said("p").click()
    diff = page.locator('details.call[data-call="p"] [data-diff]')
    expect(diff).to_be_visible()  # one fold away
    said("r").click()
    expect(page.locator('details.call[data-call="r"] .result pre')).to_have_text(
        "File does not exist."
    )


WORDS_ON_ONE_LINE = """(cell) => {
  const text = cell.lastChild;  // the line's text node, after its +/− mark
  const split = [];
  for (const found of text.textContent.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, found.index);
    range.setEnd(text, found.index + found[0].length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) split.push(found[0]);
  }
  return split;
}"""


def test_at_phone_width_a_diff_wraps_at_spaces_not_inside_words(browser, served):
    long_word = "pager_setting_value_that_is_longer_than_a_phone_line_of_the_diff"
    line = " ".join(["pager_setting_value"] * 8 + [long_word])
    edit = {"file_path": "/home/ana/src/pager/conf.py", "old_string": "x = 1", "new_string": line}
    start = records.SessionStart(
        project="/home/ana/src/pager", origin=records.Origin(tool="claude-code")
    )
    with Store(served.root).create(start, "wrap") as writer:
        call = records.Call(id="e", tool="Edit", input=edit)
        writer.append([records.Message(text="Set it"), records.Reply(text="Done.", calls=[call])])
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(served.at(task="wrap"))
    page.locator('details.call[data-call="e"] > summary').click()
    cell = page.locator(".diff-add .diff-text").first
    expect(cell).to_be_visible()
    assert cell.bounding_box()["height"] > 40  # it did wrap, onto several lines
    assert cell.evaluate(WORDS_ON_ONE_LINE) == []  # the long word too: its diff scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
