"""True states, durations, the History board's range and Failed count, and limit messages as
lines, in Chromium against `nodwyn serve` (issue 35, ADR 0039), at a desktop window's size and
at phone width: an old task's last turn reads how it ended, with the agent's own duration even
after a rename; a folder's board opens on a range that has turns; a limit message with no share
is a line, not a bar."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from browser.conftest import serve

SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
CALL = r.Call(id="c1", tool="Bash", input={"command": "make test"})


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def old_task(days: int = 40) -> str:
    """A Claude Code task of `days` ago: a turn whose command failed, then a last turn the
    agent answered and that has no end in the log; renamed today."""
    t0 = datetime.now(UTC) - timedelta(days=days)
    at = lambda seconds: stamp(t0 + timedelta(seconds=seconds))  # noqa: E731
    start = r.SessionStart(project="/home/ana/zoo", origin=r.Origin(tool="claude-code"))
    store = Store()
    with store.create(start) as writer:
        writer.append([
            r.Message(text="Make the zebra test pass", at=at(0)),
            r.Reply(calls=[CALL], at=at(2)),
            r.Result(call="c1", tool="Bash", output="Error 2", exit=2, error=True, at=at(4)),
            r.Reply(text="It still fails.", at=at(5)),
            r.TurnEnd(status="completed", at=at(6)),
            r.Message(text="Try the yak fixture", at=at(60)),
            r.Reply(text="The yak fixture works.", at=at(75)),
        ])  # fmt: skip
        task = writer.path.stem
    store.rename(task, "Zebra and yak")  # today: no part of any turn's time
    return task


@pytest.fixture(params=list(SIZES))
def sized(browser, request):
    width, height = SIZES[request.param]
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=request.param == "phone"
    )
    context.set_default_timeout(20000)
    yield context.new_page()
    context.close()


def test_an_old_tasks_turns_read_how_they_ended_with_the_agents_durations(
    sized, data_dir, tmp_path
):
    task = old_task()
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        sized.goto(server.at(task=task))
        heads = sized.locator("details.card .card-head")
        expect(heads).to_have_count(2)
        expect(heads.nth(0)).to_have_text("turn 1 of 2 · completed · 6s")
        expect(heads.nth(1)).to_have_text("turn 2 of 2 · completed · 15s")
        expect(sized.get_by_text("under way")).to_have_count(0)

        sized.goto(server.at(task=task, view="history"))
        cards = sized.locator("[data-board-card]")
        expect(cards).to_have_count(2)
        expect(cards.locator(".outcome")).to_have_text(["completed", "completed"])
        expect(cards.locator("[data-board-turn]")).to_have_text(["turn 2 of 2", "turn 1 of 2"])
        failed = sized.get_by_role("button", name="Failed")
        expect(failed.locator("[data-outcome-count]")).to_have_text(re.compile(r"^\s*0$"))
        errors = sized.get_by_role("button", name="With errors")
        expect(errors.locator("[data-outcome-count]")).to_have_text(re.compile(r"^\s*1$"))
        errors.click()
        expect(cards).to_have_count(1)  # the turn whose card shows a failed command
        expect(cards.first).to_contain_text("make test")
        assert sized.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize(("days", "span"), [(3, "7 days"), (12, "30 days"), (40, "All time")])
def test_a_folders_board_opens_on_the_smallest_range_that_has_turns(
    page, data_dir, tmp_path, days, span
):
    task = old_task(days)
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        page.goto(server.at(task=task, view="history"))
        expect(page.locator("[data-board-card]")).to_have_count(2)
        page.get_by_role("button", name="All of zoo").click()
        expect(page.get_by_role("button", name=span)).to_have_attribute("aria-pressed", "true")
        expect(page.locator("[data-board-card]")).to_have_count(2)
        expect(page.locator("[data-empty='board']")).to_have_count(0)
        if span != "7 days":  # a range the person picks is kept, even an empty one
            page.get_by_role("button", name="7 days").click()
            expect(page.locator("[data-empty='board']")).to_have_text("No turns yet.")
            expect(page.get_by_role("button", name="7 days")).to_have_attribute(
                "aria-pressed", "true"
            )


def test_a_limit_message_with_no_share_is_a_line_not_a_bar(sized, data_dir, tmp_path):
    now = datetime.now(UTC)
    start = r.SessionStart(project="/home/ana/zoo", origin=r.Origin(tool="claude-code"))
    with Store().create(start) as writer:
        writer.append([
            r.Message(text="Make the zebra test pass", at=stamp(now - timedelta(days=217))),
            r.Error(text="5-hour limit reached ∙ resets 3pm", at=stamp(now - timedelta(days=217))),
        ])  # fmt: skip
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        sized.goto(server.url)
        claude = sized.locator('[data-quota] [data-quota-agent="claude-code"]')
        expect(claude).to_be_visible()
        expect(claude.get_by_role("meter")).to_have_count(0)
        text = claude.locator("[data-quota-text]")
        expect(text).to_have_text(_line(now - timedelta(days=217)))
        expect(claude).not_to_contain_text("100%")


def _line(hit: datetime) -> str:
    from nodwyn.usage import limits, quota

    resets = limits._wall_time("resets 3pm", stamp(hit))
    now = datetime.now(UTC)
    return f"limit hit {quota.clock(stamp(hit), now)}, reset {quota.clock(resets, now)}"
