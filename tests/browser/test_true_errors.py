"""A card's errors in the browser (issue 48): what failed, each once, three and "+N more"; the
History board's Failed count is the turns whose cards read failed, and With errors the rest."""

import re

import pytest
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve

BANNER = "This is pdfTeX, Version 3.14\nentering extended mode\n"


def errors_log(store: Store) -> None:
    start = r.SessionStart(project="/home/ana/src/paper", origin=r.Origin(tool="claude-code"))
    calls = [r.Call(id=f"c{n}", tool="Bash", input={"command": f"make part{n}"}) for n in range(6)]
    results = [
        r.Result(call=f"c{n}", tool="Bash", output=f"{BANNER}! Undefined control {n % 5}.", exit=1)
        for n in range(6)
    ]  # six failures, five of them different
    with store.create(start, "T") as w:
        w.append([r.Message(text="build the paper"), r.Reply(calls=calls), *results])
        w.append([r.Reply(text="It fails."), r.TurnEnd(status="completed")])
        w.append([r.Message(text="try once more"), r.TurnEnd(status="failed")])


@pytest.fixture
def errors_served(data_dir, tmp_path):
    errors_log(Store(data_dir))
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


def test_a_cards_errors_say_what_failed_once_each_three_then_more(page, errors_served):
    page.goto(errors_served.at(task="T"))
    errors = page.locator("details.card").first.locator("[data-errors] li.error")
    expect(errors).to_have_count(5)  # each once
    visible = [e for e in errors.all() if e.is_visible()]
    assert [e.inner_text() for e in visible] == [
        f"Bash (exit 1): ! Undefined control {n}." for n in range(3)
    ]
    assert "pdfTeX" not in page.locator("details.card").first.inner_text()
    page.get_by_role("button", name="+2 more").click()
    expect(errors.nth(4)).to_be_visible()


def test_the_boards_failed_count_agrees_with_the_cards_outcomes(page, errors_served):
    page.goto(errors_served.at(task="T", view="history"))
    cards = page.locator("[data-board-card]")
    expect(cards).to_have_count(2)
    failed = page.get_by_role("button", name="Failed")
    expect(failed.locator("[data-outcome-count]")).to_have_text(re.compile(r"^\s*1$"))
    failed.click()
    expect(cards).to_have_count(1)
    expect(cards.locator(".outcome")).to_have_text(["failed"])  # what it counted, the card says
    page.get_by_role("button", name="With errors").click()
    expect(cards).to_have_count(1)
    expect(cards.locator(".outcome")).to_have_text(["completed"])
    expect(cards.first.locator("[data-errors] li.error").first).to_have_text(
        "Bash (exit 1): ! Undefined control 0."
    )
