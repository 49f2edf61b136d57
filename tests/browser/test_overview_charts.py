"""Charts people read (issue 37): the overview's rows in the order of the measure chosen, model
names whole, empty months kept on the axis, and five agents in five colours, in Chromium against
`nodwyn serve` over tasks written here."""

import json

from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

# agent, model, month, tokens, cost: the token order differs from the cost order
WORK = [
    ("claude-code", "claude-sonnet-4-5-20250929", "2025-01", 9_000, 0.10),
    ("codex", "gpt-5.4", "2025-01", 50_000, 0.05),
    ("gemini-cli", "claude-sonnet-4-5-20251101", "2025-04", 1_000, 0.90),
    ("opencode", "glm-5.2", "2025-04", 20_000, 0.30),
    ("cursor", "gpt-5.5", "2025-04", 5_000, 0.20),
]


def make_work(root):
    for n, (agent, model, month, tokens, cost) in enumerate(WORK):
        at = f"{month}-10T10:00:00.000Z"
        start = records.SessionStart(
            at=at, project=f"/home/ana/src/p{n}", origin=records.Origin(tool=agent)
        )
        usage = records.Usage(input=tokens)
        with Store(root).create(start, f"t{n}") as writer:
            writer.append(
                [
                    records.Message(at=at, text=f"Task {n}"),
                    records.Reply(at=at, text="Done.", model=model, usage=usage, cost_usd=cost),
                    records.TurnEnd(at=at, status="completed", duration_ms=1000),
                ]
            )


def choose(page, by, measure, split):
    page.add_init_script(
        "localStorage.setItem('nodwyn.overview', "
        + json.dumps(json.dumps({"by": by, "measure": measure, "split": split}))
        + ")"
    )


def test_rows_follow_the_measure_and_model_names_are_whole(page, served_empty):
    make_work(served_empty.root)
    choose(page, "month", "tokens", "model")
    page.goto(served_empty.url)
    names = page.locator("[data-usage-split='model'] .share-name")
    expect(names).to_have_count(len(WORK))
    by_tokens = [model for _, model, _, tokens, _ in sorted(WORK, key=lambda w: -w[3])]
    assert names.all_inner_texts() == by_tokens
    for i in range(names.count()):  # not cut: the two Sonnets differ only at their ends
        assert names.nth(i).evaluate("n => n.scrollWidth <= n.clientWidth")
    page.get_by_role("button", name="Cost").click()
    by_cost = [model for _, model, _, _, cost in sorted(WORK, key=lambda w: -w[4])]
    expect(names).to_have_text(by_cost)


def test_the_month_axis_keeps_the_empty_months(page, served_empty):
    make_work(served_empty.root)
    choose(page, "month", "cost", "agent")
    page.goto(served_empty.url)
    for month in ("2025-01", "2025-02", "2025-03", "2025-04", "2025-05"):
        expect(page.locator(f'[data-bar="{month}"]')).to_have_count(1)
    expect(page.locator('[data-bar="2025-02"]')).to_be_disabled()  # no turn that month
    keys = page.locator("[data-bar]").evaluate_all("bars => bars.map((b) => b.dataset.bar)")
    assert keys == sorted(keys) and keys.index("2025-04") - keys.index("2025-01") == 3


def test_five_agents_get_five_colours(page, served_empty):
    make_work(served_empty.root)
    choose(page, "month", "cost", "agent")
    page.goto(served_empty.url)
    bars = page.locator("[data-usage-split='agent'] .share-bar")
    expect(bars).to_have_count(5)
    colours = bars.evaluate_all("bars => bars.map((b) => getComputedStyle(b).backgroundColor)")
    assert len(set(colours)) == 5
    for colour in colours:  # hues, not shades of grey that only the lightness tells apart
        red, green, blue = (int(part) for part in colour[4:-1].split(", ")[:3])
        assert max(red, green, blue) - min(red, green, blue) > 40, colour
    swatches = page.locator(".chart .legend .swatch")
    legend = swatches.evaluate_all("s => s.map((n) => getComputedStyle(n).backgroundColor)")
    assert sorted(legend) == sorted(colours)  # the chart and the rows speak one palette


def test_a_cost_that_cannot_be_told_says_why(page, served_empty):
    """An agent whose log gives no tokens reads "no usage in the log", one whose model has no
    price "no price": neither reads as free (issue 35)."""
    at = "2025-04-10T10:00:00.000Z"
    kinds = [("antigravity", None, None), ("opencode", records.Usage(input=900), None)]
    for n, (agent, usage, cost) in enumerate(kinds):
        start = records.SessionStart(at=at, project=f"/home/ana/src/q{n}",
                                     origin=records.Origin(tool=agent))  # fmt: skip
        with Store(served_empty.root).create(start, f"q{n}") as writer:
            writer.append([records.Message(at=at, text=f"Task {n}"),
                           records.Reply(at=at, text="Done.", model="glm-9", usage=usage,
                                         cost_usd=cost)])  # fmt: skip
    choose(page, "month", "cost", "agent")
    page.goto(served_empty.url)
    rows = page.locator("[data-usage-split='agent'] .share-row")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="Antigravity").locator(".share-figure")).to_have_text(
        "no usage in the log"
    )
    expect(rows.filter(has_text="OpenCode").locator(".share-figure")).to_have_text("no price")
