"""The quota panel, a section of the overview (the pane with no task open; issue 30), in
Chromium against `nodwyn serve`: a bar per window with the figures GET /api/quota gives (as the
tray and the CLI do), a stale figure that says how old it is, and no panel when no log holds
limits."""

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from browser.conftest import serve


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def codex_task(now: datetime) -> None:
    """A Codex task whose log said 20% then 27% of the 5 h window over the last hour, and 4% of
        the week, and a Claude Code task whose limit notice is 6 h old with no reset time said (a
    line, "limit hit ...", since it gives no share: ADR 0039)."""
    start = records.SessionStart(project="/home/ana/app", origin=records.Origin(tool="codex"))
    resets = stamp(now + timedelta(hours=3))
    limit = {"name": "codex", "window_minutes": 300, "resets_at": resets, "plan": "plus"}
    with Store().create(start) as writer:
        writer.append([
            records.Message(at=stamp(now - timedelta(hours=1)), text="Make the pager test pass"),
            records.Limit(at=stamp(now - timedelta(hours=1)), used_percent=20, **limit),
            records.Limit(at=stamp(now - timedelta(minutes=5)), used_percent=27, **limit),
            records.Limit(at=stamp(now - timedelta(minutes=5)), name="codex", used_percent=4,
                          window_minutes=10080, resets_at=stamp(now + timedelta(days=3))),
        ])  # fmt: skip
    start = records.SessionStart(project="/home/ana/app", origin=records.Origin(tool="claude-code"))
    with Store().create(start) as writer:
        old = stamp(now - timedelta(hours=6))
        writer.append([records.Error(at=old, text="5-hour limit reached")])


def cli_meter(data_dir) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "quota", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_the_empty_pane_shows_a_bar_per_window_with_the_meters_figures(page, data_dir, tmp_path):
    codex_task(datetime.now(UTC))
    meter = cli_meter(data_dir)
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        page.goto(server.url)
        panel = page.locator('[data-overview] [data-section="quota"] [data-quota]')
        expect(panel).to_be_visible()
        codex = panel.locator('[data-quota-agent="codex"]')
        five = codex.locator('[data-quota-window="5 h"]')
        expect(five.get_by_role("meter")).to_have_attribute("aria-valuenow", "27")
        expect(five.locator("[data-quota-text]")).to_have_text("27%")
        bar = five.get_by_role("meter").bounding_box()
        filled = five.get_by_role("meter").locator("div").bounding_box()
        assert abs(filled["width"] / bar["width"] - 0.27) < 0.01  # drawn, not only labelled
        expect(five).to_contain_text("points an hour lately")
        expect(codex.locator('[data-quota-window="week"] [data-quota-text]')).to_have_text("4%")
        stale = panel.locator('[data-quota-agent="claude-code"] [data-state="stale"]')
        expect(stale.locator("[data-quota-text]")).to_have_text(re.compile(r"^limit hit \S"))
        expect(stale.get_by_role("meter")).to_have_count(0)  # a message gives no share: a line
        for agent in meter["agents"]:  # the page says what the CLI says, window by window
            for window in agent["windows"]:
                row = panel.locator(
                    f'[data-quota-agent="{agent["tool"]}"] [data-quota-window="{window["label"]}"]'
                )
                expect(row.locator("[data-quota-text]")).to_have_text(window["text"])


def test_with_no_limits_in_any_log_the_pane_has_no_panel(page, data_dir, tmp_path):
    start = records.SessionStart(project="/home/ana/app", origin=records.Origin(tool="nodwyn"))
    with Store().create(start) as writer:
        writer.append([records.Message(text="Make the pager test pass")])
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        page.goto(server.url)
        expect(page.locator('[data-section="usage"]')).to_be_visible()  # the overview is up
        reading = page.locator("[data-overview] .overview-section", has_text="Reading…")
        expect(reading).to_have_count(0)  # every section answered, the quota one with nothing
        expect(page.locator("[data-quota]")).to_have_count(0)
