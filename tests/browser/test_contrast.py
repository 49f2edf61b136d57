"""Text contrast of at least 4.5:1 (WCAG 2 AA) in light and dark, measured in Chromium."""

import pytest
from playwright.sync_api import expect

# The text colours the console uses, where each is shown.
SAMPLES = [
    ".task-item .task-title",
    ".task-item time",
    ".group-heading",
    ".asking .group-title",
    ".task-meta span",
    ".card-head",
    ".card-folds summary",
    ".event-meta time",
    ".event.message p",
    ".call-status.error",
    ".turn-end",
    ".compaction-line",
    ".show-more",
    "button.danger",
    ".result-event-head time",
    ".snippet mark",
    ".snippet",
    ".banner button.link",
    ".result-turn-head mark",  # a marked word in the grey head line
    ".hit .label",  # an error result's red label on the highlight
    ".hit .speaker time",  # grey metadata on the highlight
    ".speaker-tokens",
    ".speaker-model",
    "details.run > summary",
]

CONTRAST = """
(selector) => {
  const node = document.querySelector(selector);
  if (!node) return null;
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  let bg = null;
  for (let up = node; up; up = up.parentElement) {
    const c = rgb(getComputedStyle(up).backgroundColor);
    if (c.length < 4 || c[3] > 0.5) { bg = c; break; }
  }
  bg = bg || [255, 255, 255];
  const fg = lum(rgb(getComputedStyle(node).color));
  const back = lum(bg);
  return (Math.max(fg, back) + 0.05) / (Math.min(fg, back) + 0.05);
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_has_a_contrast_of_at_least_4_5(browser, served, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    seen = {}
    for url in (
        served.at(task="demo-pager-flaky", seq=5, q="pager order", scope="all"),
        served.at(task="demo-site-form"),
        served.at(task="demo-pager-index"),
        served.at(task="demo-pager-flaky", q="pager order", scope="all"),
        served.at(task="demo-pager-index", seq=95),  # a turn opened from the history
    ):
        page.goto(url)
        expect(page.locator("[data-events], [data-results]").first).to_be_visible()
        for selector in SAMPLES:
            ratio = page.evaluate(CONTRAST, selector)
            if ratio is not None:
                seen[selector] = min(ratio, seen.get(selector, ratio))
    context.close()
    assert set(seen) == set(SAMPLES)  # every sample was on some page
    low = {selector: round(ratio, 2) for selector, ratio in seen.items() if ratio < 4.5}
    assert low == {}
