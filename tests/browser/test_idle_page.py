"""The page at rest does no work (issue 16: the app idle with its window open, <= 0.2% CPU).

Once the list is shown and nothing changes, no timer or animation frame of the page's code
is waiting to run, no animation is playing, and the one request open is the change feed's long
poll (app.js's follow(): the server answers it when something changes, or after 55 s). A
spinner, a polling timer or a requestAnimationFrame loop would keep the window's web engine
drawing or waking while nobody looks. The page's timers are counted by wrapping them before its
scripts run (an init script), so a timer of any period is seen at once, without waiting it out.
"""

import time

from playwright.sync_api import expect

# Every timer and animation frame the page asks for and has not yet run or cancelled, with
# the line of the page's code that asked.
TIMERS = """
(() => {
  const waiting = new Map();
  const wrap = (setName, clearName, kind) => {
    const set = window[setName].bind(window), clear = window[clearName].bind(window);
    window[setName] = (callback, ...rest) => {
      const where = (new Error().stack || "").split("\\n")[2] || "";
      const id = set((...args) => {
        if (kind !== "interval") waiting.delete(`${kind}:${id}`);
        return typeof callback === "function" ? callback(...args) : undefined;
      }, ...rest);
      waiting.set(`${kind}:${id}`, `${kind} ${rest[0] ?? ""} ${where.trim()}`);
      return id;
    };
    window[clearName] = (id) => { waiting.delete(`${kind}:${id}`); clear(id); };
  };
  wrap("setTimeout", "clearTimeout", "timeout");
  wrap("setInterval", "clearInterval", "interval");
  wrap("requestAnimationFrame", "cancelAnimationFrame", "frame");
  window.nodwynWaiting = () => [...waiting.values()];
})();
"""
PLAYING = (
    "document.getAnimations().filter(a => a.playState === 'running')"
    ".map(a => a.animationName || a.transitionProperty || String(a.effect?.target?.className))"
)


LONG_POLL = ("/api/changes", "wait=55")


class Requests:
    """The page's requests: those not yet answered, and those started since `mark()`."""

    def __init__(self, page):
        self.open: set = set()
        self.since: list[str] = []
        page.on("request", self._started)
        page.on("requestfinished", lambda request: self.open.discard(request))
        page.on("requestfailed", lambda request: self.open.discard(request))

    def _started(self, request) -> None:
        self.open.add(request)
        self.since.append(request.url)

    def mark(self) -> None:
        self.since = []

    def only_the_long_poll(self) -> bool:
        urls = [request.url for request in self.open]
        return len(urls) == 1 and all(part in urls[0] for part in LONG_POLL)


def settled(page, requests: Requests) -> None:
    """The list shown, no progress line (`nodwyn serve` runs no worker: nothing changes the
    data unless the test does) and the change feed's long poll waiting alone."""
    expect(page.locator("[data-task-list] [data-task]").first).to_be_visible()
    expect(page.locator("[data-progress]")).to_be_hidden()
    deadline = time.monotonic() + 30
    while not requests.only_the_long_poll():
        assert time.monotonic() < deadline, [request.url for request in requests.open]
        page.wait_for_timeout(50)  # Playwright's events are delivered while it waits


def test_a_settled_page_waits_on_the_change_feed_alone(page, served):
    page.add_init_script(TIMERS)
    requests = Requests(page)
    page.goto(served.url)
    settled(page, requests)
    requests.mark()
    assert page.evaluate("window.nodwynWaiting()") == []
    assert page.evaluate(PLAYING) == []
    page.wait_for_timeout(500)  # a request chained on another's answer would start in this
    assert [url for url in requests.since if not all(p in url for p in LONG_POLL)] == []


def test_the_idle_check_sees_a_timer_and_an_animation_the_page_would_leave_running(page, served):
    """The probes above can fail: a timer of ten minutes and an endless animation are seen."""
    page.add_init_script(TIMERS)
    requests = Requests(page)
    page.goto(served.url)
    settled(page, requests)
    page.evaluate("setTimeout(() => {}, 600000)")
    page.evaluate(
        "document.querySelector('[data-progress]').parentElement"
        ".animate([{opacity: 1}, {opacity: 0.5}], {duration: 1000, iterations: Infinity})"
    )
    assert len(page.evaluate("window.nodwynWaiting()")) == 1
    assert len(page.evaluate(PLAYING)) == 1
