"""Keys and the quota (issue 48): `?` lists every key, j and k move between the transcript's
messages, and a quota window that is not current is greyed with its date said inline."""

import re
from datetime import UTC, datetime, timedelta

from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve


def test_question_mark_lists_every_key(page, served):
    page.goto(served.url)
    expect(page.locator(".task-item").first).to_be_visible()
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keys")
    expect(dialog).to_be_visible()
    keys = dialog.locator("kbd").all_inner_texts()
    for key in ("j / k", "[ / ]", "{ / }", "e", "?", "Escape"):
        assert key in keys, key
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Keys").click()  # found without knowing the key
    expect(dialog).to_be_visible()


def test_j_and_k_move_between_messages(page, served):
    page.goto(served.at(task="demo-pager-flaky"))
    heads = page.locator("[data-events] .event:has(> .speaker)")
    expect(heads.first).to_be_visible()
    page.locator("[data-pane]").evaluate("n => { n.scrollTop = 0 }")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("j")
    first = page.evaluate("document.activeElement.querySelector('.speaker-name')?.textContent")
    page.keyboard.press("j")
    second = page.evaluate("document.activeElement.dataset.seq")
    page.keyboard.press("k")
    back = page.evaluate("document.activeElement.querySelector('.speaker-name')?.textContent")
    assert first and back == first
    assert second != page.evaluate("document.activeElement.dataset.seq")
    focused = page.locator(":focus")
    expect(focused).to_be_in_viewport()


def test_a_window_not_current_is_greyed_with_its_date(page, data_dir, tmp_path):
    now = datetime.now(UTC)
    old = now - timedelta(days=9)
    start = records.SessionStart(project="/home/ana/app", origin=records.Origin(tool="codex"))
    with Store(data_dir).create(start) as writer:
        at = old.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        resets = (old + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        writer.append([
            records.Message(at=at, text="Make the pager test pass"),
            records.Limit(at=at, name="codex", used_percent=40, window_minutes=10080,
                          resets_at=resets),
        ])  # fmt: skip
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        page.goto(server.url)
        row = page.locator('[data-quota-agent="codex"] [data-quota-window="week"]')
        expect(row).to_be_visible()
        assert row.get_attribute("data-state") != "current"
        day = old.astimezone().strftime("%b %-d")
        expect(row.locator(".quota-more")).to_contain_text(re.compile(f"as of {day}"))
        grey = row.evaluate("n => getComputedStyle(n).color")
        muted = page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--muted')"
        )
        assert grey == page.evaluate(
            "(c) => { const s = document.createElement('span'); s.style.color = c;"
            " document.body.append(s); const r = getComputedStyle(s).color; s.remove(); return r }",
            muted.strip(),
        )
