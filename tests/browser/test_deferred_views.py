"""The page loads what its first screen does not draw when first used (deferred.js): the list,
the header and the overview come with the page; Settings, a transcript, the results, Starred,
Who wrote this?, the history and the Export and Summarize dialogs are asked for as they are first
opened, once, and a module that cannot load is said where it would have been drawn, with Retry.
The browser's own request log says which scripts were fetched."""

from playwright.sync_api import expect

# What the first screen does not draw: none of these is fetched before it is used.
LATER = (
    "settings.js",
    "transcript.js",
    "search.js",
    "stars.js",
    "authorship.js",
    "board.js",
    "exporting.js",
    "summarize.js",
    "events.js",
    "embeddings.js",
)


class Scripts:
    """The page's scripts as it asked for them, by file name, in order."""

    def __init__(self, page):
        self.asked: list[str] = []
        page.on("request", self._asked)

    def _asked(self, request) -> None:
        if "/static/js/" in request.url:
            self.asked.append(request.url.split("/static/js/")[1].split("?")[0])

    def times(self, name: str) -> int:
        return self.asked.count(name)


def first_screen(page) -> None:
    """The list and the overview's usage drawn."""
    expect(page.locator("[data-task-list] [data-task]").first).to_be_visible()
    expect(page.locator('[data-section="usage"]')).to_be_visible()


def test_the_first_screen_fetches_no_view_it_does_not_draw(page, served):
    scripts = Scripts(page)
    page.goto(served.url)
    first_screen(page)
    assert "app.js" in scripts.asked and "overview.js" in scripts.asked
    assert [name for name in LATER if name in scripts.asked] == []


def test_settings_is_fetched_once_on_its_first_opening_and_drawn(page, served):
    scripts = Scripts(page)
    page.goto(served.url)
    first_screen(page)
    assert scripts.times("settings.js") == 0
    for _ in range(2):
        page.get_by_role("button", name="Settings").click()
        dialog = page.get_by_role("dialog", name="Settings")
        expect(dialog.get_by_role("checkbox", name="Follow Codex's sessions")).to_be_visible()
        dialog.get_by_role("button", name="Close").click()
        expect(dialog).to_be_hidden()
    assert scripts.times("settings.js") == 1
    assert "transcript.js" not in scripts.asked  # Settings brings only its own


def test_a_transcript_and_the_results_are_fetched_when_first_shown(page, served):
    scripts = Scripts(page)
    page.goto(served.url)
    first_screen(page)
    page.locator("[data-task-list] [data-task]").first.click()
    expect(page.locator("[data-events] .event").first).to_be_visible()
    assert scripts.times("transcript.js") == 1 and "search.js" not in scripts.asked
    page.get_by_role("combobox", name="Search scope").select_option("all")
    page.get_by_role("searchbox", name="Search").fill("pager")
    page.get_by_role("searchbox", name="Search").press("Enter")
    expect(page.locator("[data-hit]").first).to_be_visible()
    assert scripts.times("search.js") == 1 and scripts.times("transcript.js") == 1


def test_a_reload_on_a_turn_opens_it(page, served):
    page.goto(served.at(task="demo-pager-flaky", seq=1))
    expect(page.locator("[data-events] .event").first).to_be_visible()
    page.reload()
    expect(page.locator("[data-events] .event").first).to_be_visible()
    page.goto(served.at(view="starred"))
    expect(page.locator("[data-pane]")).to_contain_text("Starred")


def test_a_view_that_cannot_load_says_so_in_the_pane_and_retries(page, served):
    page.route("**/static/js/transcript.js", lambda route: route.abort())
    page.goto(served.at(task="demo-pager-flaky"))
    failed = page.locator("[data-pane] [data-failure]")
    expect(failed).to_contain_text("Could not load the transcript")
    page.unroute("**/static/js/transcript.js")
    failed.get_by_role("button", name="Retry").click()
    expect(page.locator("[data-events] .event").first).to_be_visible()
    expect(failed).to_have_count(0)


def test_settings_that_cannot_load_is_said_over_the_header(page, served):
    page.route("**/static/js/settings.js", lambda route: route.abort())
    page.goto(served.url)
    first_screen(page)
    page.get_by_role("button", name="Settings").click()
    notice = page.locator("[data-notice]")
    expect(notice).to_contain_text("Could not load Settings")
    page.unroute("**/static/js/settings.js")
    notice.get_by_role("button", name="Retry").click()
    expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
