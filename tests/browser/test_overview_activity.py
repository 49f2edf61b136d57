"""The overview of the whole archive (issue 48): it says the range it shows (all of it), the
figures, a heatmap by day and by weekday and hour whose cells open their tasks, the top tasks
by cost, duration and turns, and each agent in one colour whatever its rank."""

import re

from playwright.sync_api import expect

COLOUR = "n => getComputedStyle(n).backgroundColor"


def test_the_overview_opens_on_all_the_archive_with_figures_heatmaps_and_top_tasks(page, served):
    page.goto(served.url)
    expect(page.locator("[data-activity-range]")).to_have_text(
        re.compile(r"^All of the archive: \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$")
    )
    for name in ("Tasks", "Turns", "Active days", "Cost", "Cache reads"):
        expect(page.locator(f'[data-fact="{name}"] dd')).not_to_be_empty()
    expect(page.locator("[data-choice='by:month']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-usage-totals]")).to_contain_text("all time")
    day = page.locator("button[data-day]").first
    turns = int(re.search(r"(\d+) turn", day.get_attribute("title")).group(1))
    day.click()
    detail = page.locator("[data-activity-detail]")
    expect(detail.locator("h3")).to_contain_text(f"{turns} turn")
    expect(detail.locator("[data-activity-task]").first).to_be_focused()
    page.locator("button[data-hour]").first.click()
    expect(detail.locator("h3")).to_contain_text(":00–")
    for top in ("Cost most", "Ran longest", "Most turns"):
        expect(page.locator(f'[data-top="{top}"] li').first).to_be_visible()
    first = page.locator('[data-top="Most turns"] [data-activity-task]').first
    task = first.get_attribute("data-activity-task")
    first.click()
    expect(page).to_have_url(re.compile(f"task={task}"))


def test_an_agent_keeps_its_colour_in_every_view(page, served):
    page.goto(served.url)
    legend = page.locator(".chart .legend .swatch.agent-claude-code")
    expect(legend).to_be_visible()
    seen = {legend.evaluate(COLOUR)}
    for measure in ("tokens", "turns"):  # the ranks change, the colour does not
        page.locator(f"[data-choice='measure:{measure}']").click()
        expect(page.locator(f"[data-chart='{measure}']")).to_be_visible()
        seen.add(page.locator(".chart .legend .swatch.agent-claude-code").evaluate(COLOUR))
        seen.add(page.locator("[data-share='claude-code'] .share-bar").evaluate(COLOUR))
    seen.add(page.locator(".ranked-tasks .agent-dot.agent-claude-code").first.evaluate(COLOUR))
    assert len(seen) == 1, seen
    codex = page.locator("[data-share='codex'] .share-bar")
    if codex.count():
        assert codex.evaluate(COLOUR) not in seen
