"""Screenshots of the main views, light and dark, at three window sizes, for a person to look at.

Saved under test-artifacts/ (kept out of git). The test checks that each view rendered what
it should before its picture is taken, and that nothing is wider than the window.
"""

import pytest
from playwright.sync_api import expect

SIZES = {"desktop": (1280, 800), "small": (900, 600), "phone": (390, 844)}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_main_views_render_cleanly(browser, served, artifacts, scheme, size):
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, is_mobile=size == "phone"
    )
    context.set_default_timeout(10000)
    page = context.new_page()

    def shot(view):
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(artifacts / f"{view}-{size}-{scheme}.png"))

    page.goto(served.at(task="demo-pager-flaky"))
    expect(page.locator("[data-events]")).to_be_visible()
    page.locator("details.call.error > summary").first.click()
    shot("task")

    if size == "phone":  # a task open, the search is in its header's menu (issue 37)
        page.get_by_role("button", name="Task menu").click()
        shot("menu")
    page.get_by_label("Search scope").select_option("all")
    page.get_by_label("Search", exact=True).fill("pager order")
    page.get_by_label("Search", exact=True).press("Enter")
    # the server's first search builds the index and loads the model: 6-7 s on a loaded machine
    expect(page.locator("[data-results] a[data-hit]").first).to_be_visible(timeout=20000)
    shot("search")

    page.goto(served.at(task="demo-pager-flaky", seq=5, q="pager order", scope="all"))
    expect(page.locator("[data-events] [data-hit]")).to_be_visible()
    shot("hit")

    page.goto(served.at(task="demo-pager-index", view="history"))
    expect(page.locator("[data-history]")).to_be_visible()
    shot("history")

    page.goto(served.at(task="demo-pager-index"))
    expect(page.locator("[role=separator]")).to_be_visible()
    page.locator("[role=separator]").scroll_into_view_if_needed()
    shot("compaction")

    if size == "phone":
        page.get_by_role("button", name="Tasks").click()
        expect(page.locator("[data-sidebar]")).to_be_visible()
        page.wait_for_timeout(250)  # the drawer slides in
        shot("drawer")
    context.close()
