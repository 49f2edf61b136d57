"""The overview of usage (the page with no task open) and the History board (issue 24), in
Chromium against `nodwyn serve --demo`: figures equal the API's (which `nodwyn usage --json`
prints, tests/test_usage.py), bars and rows open the tasks behind them, cards open their turn."""

import json
import re
import urllib.request

from playwright.sync_api import expect


def api_usage(served, **query):
    token = re.search(r"token=([^&]+)", served.url).group(1)
    base = served.url.split("/?")[0]
    params = "&".join(f"{k}={v}" for k, v in query.items())
    request = urllib.request.Request(
        f"{base}/api/usage?{params}", headers={"X-Nodwyn-Token": token}
    )
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())


def test_the_overview_shows_the_apis_total_and_a_bar_opens_the_tasks_behind_it(page, served):
    page.goto(served.url)
    overview = page.locator("[data-overview]")
    expect(overview).to_be_visible()
    total = page.locator("[data-total-cost]")
    expect(total).to_be_visible()
    page.get_by_role("button", name="Month").click()
    expect(page.get_by_role("button", name="Month")).to_have_attribute("aria-pressed", "true")
    figures = api_usage(served, by="month", split="agent")
    assert (
        float(page.locator("[data-total-cost]").get_attribute("data-total-cost"))
        == figures["total"]["cost_usd"]
    )
    row = max(figures["rows"], key=lambda r: r["cost_usd"])
    bar = page.locator(f'[data-bar="{row["key"]}"]')
    money, turns = re.escape(f"${row['cost_usd']:.2f}"), f"{row['turns']} turns"
    expect(bar).to_have_accessible_name(re.compile(rf"{money}.*, {turns}$"))
    bar.click()
    behind = page.locator("[data-usage-detail] [data-behind-task]")
    expect(behind).to_have_count(len(row["tasks"]))
    behind.first.click()
    expect(page).to_have_url(re.compile(f"task={row['tasks'][0]['key']}"))


def test_the_overview_splits_by_agent_and_lists_the_costliest_tasks(page, served):
    page.goto(served.url)
    expect(page.locator("[data-usage-split='agent']")).to_be_visible()
    expect(page.locator("[data-share='claude-code']")).to_contain_text("Claude Code")
    top = page.locator("[data-top-task]")
    expect(top.first).to_have_attribute("data-top-task", "demo-pager-index")
    page.get_by_role("button", name="Model").click()
    expect(
        page.locator("[data-usage-split='model'] [data-share='claude-sonnet-4-5']")
    ).to_be_visible()
    page.locator("[data-share='claude-sonnet-4-5']").click()
    expect(page.locator("[data-usage-detail] [data-behind-task]").first).to_be_visible()


def test_the_board_shows_each_turns_card_failed_in_red_and_opens_a_turn(page, served):
    page.goto(served.at(task="demo-site-form", view="history"))
    cards = page.locator("[data-board-card]")
    expect(cards).to_have_count(2)
    failed = page.locator("[data-board-card][data-outcome='failed']")
    expect(failed).to_have_count(1)
    red = failed.evaluate("n => getComputedStyle(n).borderTopColor")
    plain = page.locator("[data-board-card]:not([data-outcome='failed'])").evaluate(
        "n => getComputedStyle(n).borderTopColor"
    )
    assert red != plain
    page.get_by_role("button", name="Failed").click()
    expect(cards).to_have_count(1)
    page.get_by_role("button", name="All", exact=True).click()
    expect(cards).to_have_count(2)
    page.get_by_label("Filter turns by a word").fill("no such words anywhere")
    expect(cards).to_have_count(0)
    expect(page.locator("[data-empty='board']")).to_be_visible()


def test_the_board_of_a_folder_lists_its_tasks_turns_and_keys_move_between_cards(page, served):
    page.goto(served.at(task="demo-pager-flaky", view="history"))
    expect(page.locator("[data-board-card]")).to_have_count(1)
    page.get_by_role("button", name="All of pager").click()
    cards = page.locator("[data-board-card]")
    expect(cards.first).to_be_visible()
    assert cards.count() > 3
    tasks = {c.split(":")[0] for c in cards.evaluate_all("ns => ns.map(n => n.dataset.boardCard)")}
    assert "demo-pager-index" in tasks and "demo-pager-flaky" in tasks
    times = cards.evaluate_all("ns => ns.map(n => n.querySelector('time').dateTime)")
    assert times == sorted(times, reverse=True)  # newest first
    cards.first.focus()
    page.keyboard.press("ArrowDown")
    expect(cards.nth(1)).to_be_focused()
    target = cards.nth(1).get_attribute("data-board-card")
    page.keyboard.press("Enter")
    task, seq = target.split(":")
    expect(page).to_have_url(re.compile(f"task={task}&seq={seq}"))
    expect(page.locator("[data-events] [data-hit]")).to_be_visible()
