"""Reading a task in the console (issue 17): rendered Markdown, hostile Markdown kept inert,
edits as diffs, terminal colours, Export… to an HTML file opened in Chromium, Resume, stars."""

import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import open_tool_calls, serve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reading_logs import TASK, write_reading_log  # noqa: E402

SESSION = "5f1c0de0-aaaa-bbbb-cccc-000000000001"


@pytest.fixture
def reading(data_dir, tmp_path):
    source = tmp_path / "session.jsonl"
    source.write_text("{}\n")
    write_reading_log(data_dir, source)
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


def test_a_reply_with_headings_a_table_and_code_reads_as_formatted_text(page, reading):
    page.goto(reading.at(task=TASK))
    reply = page.locator('[data-seq="7"] .md')
    expect(reply.locator("h2")).to_have_text("Why TestPagerOrder flaked")
    expect(reply.locator("table th")).to_have_text(["cause", "fix"])
    expect(reply.locator("td.align-right").first).to_have_text("tie-break on id")
    expect(reply.locator("pre.code [class^=hl-k]").first).to_have_text("func")
    expect(reply.locator("input[type=checkbox]")).to_have_count(2)
    assert "## Why" not in reply.inner_text() and "| cause |" not in reply.inner_text()
    link = reply.locator("a", has_text="the Go spec")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")


def test_hostile_markdown_is_shown_as_text_and_fetches_nothing(page, reading):
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(reading.at(task=TASK))
    odd = page.locator('[data-seq="11"] .md')
    expect(odd).to_contain_text("<script>window.pwned = 1</script>")
    expect(odd).to_contain_text("[image: a chart]")
    assert odd.locator("img, script, iframe").count() == 0
    assert [a.get_attribute("href") for a in odd.locator("a").all()] == [
        "http://127.0.0.1:9/chart.png"
    ]
    assert page.evaluate("window.pwned") is None
    odd.locator("a").click(modifiers=["Control"], no_wait_after=True)  # a new tab, never this one
    assert not [url for url in asked if "127.0.0.1:9" in url and "tracker" in url]
    assert re.search(r"\?token=", page.url)  # the console itself did not navigate away


def test_an_edit_and_a_patch_read_as_diffs_and_colours_are_not_escape_codes(page, reading):
    page.goto(reading.at(task=TASK))
    expect(page.locator("[data-events]")).to_be_visible()
    open_tool_calls(page)
    edit = page.locator('details.call[data-call="e1"]')
    expect(edit.locator("> summary .call-files")).to_have_text(re.compile(r"order\.go \+1 −1$"))
    edit.locator("> summary").click()
    expect(edit.locator(".diff-del .diff-text")).to_contain_text("return a.At.Before(b.At)")
    expect(edit.locator(".diff-add .diff-text")).to_contain_text("|| a.ID < b.ID")
    patch = page.locator('details.call[data-call="p1"]')
    # a patch said as its files with their counts, never as its "*** Begin Patch" text
    expect(patch.locator("> summary .call-files")).to_have_text(
        re.compile(r"^pager/order\.go \+\d+ −\d+, pager/order_test\.go \+\d+ −\d+$")
    )
    patch.locator("> summary").click()
    paths = ["pager/order.go", "pager/order_test.go"]
    expect(patch.locator("[data-diff-path]")).to_have_text(paths)
    shell = page.locator('details.call[data-call="t1"]')
    shell.locator("> summary").click()
    output = shell.locator(".result pre.output")
    expect(output.locator(".ansi-31")).to_have_text("FAIL")
    assert "\x1b" not in output.inner_text() and "[31m" not in output.inner_text()
    errors = page.locator('[data-card="2"] .errors')
    expect(errors).to_have_text("Bash (exit 1): FAIL TestPagerOrder (0.01s)")


def test_the_search_still_marks_its_words_inside_rendered_text(page, reading):
    page.goto(reading.at(task=TASK, seq=7, q="tie-break", scope="task"))
    expect(page.locator("[data-hit] td mark").first).to_have_text(re.compile("tie", re.I))


def test_export_saves_one_html_file_that_chromium_shows_formatted(page, reading, tmp_path):
    page.goto(reading.at(task=TASK))
    page.locator("[data-export-button]").click()
    with page.expect_download() as download:
        page.get_by_role("button", name="HTML page").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "Fix-the-flaky-TestPagerOrder.html"
    expect(page.locator("[data-export-status]")).to_have_text(f"Saved as {saved.name}")
    page.goto(saved.as_uri())
    expect(page.locator("table th").first).to_have_text("cause")
    expect(page.locator("pre.code [class^=hl-k]").first).to_have_css("color", "rgb(166, 38, 164)")
    expect(page.locator(".diff-add").first).to_be_visible()
    assert page.locator("script, img").count() == 0


def test_resume_copies_the_agents_own_command(page, reading, browser):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(reading.at(task=TASK))
    button = page.locator("[data-resume]")
    expect(button).to_be_enabled()
    button.click()
    expect(button).to_have_text("Copied ✓")
    command = page.evaluate("navigator.clipboard.readText()")
    assert command == "cd /home/ana/src/pager && claude --resume " + SESSION


def test_a_starred_turn_with_a_note_is_listed_under_starred_and_found_by_its_note(page, reading):
    page.goto(reading.at(task=TASK))
    star = page.locator('[data-star="10"]')
    star.click()
    expect(star).to_have_attribute("aria-pressed", "true")
    note = page.locator('[data-star-note="10"]')
    note.fill("the odd markdown sample")
    note.press("Enter")
    expect(page.locator('[data-turn-tools="10"]')).to_have_attribute(
        "data-saved", "starred:the odd markdown sample"
    )
    page.locator("[data-starred-link]").click()
    item = page.locator(f'[data-starred-item="{TASK}:10"]')
    expect(item).to_contain_text("the odd markdown sample")
    expect(item).to_contain_text("turn 2 of 2 · asked")  # counted as people count, not "turn 10"
    item.click()
    expect(page.locator('[data-seq="10"][data-hit]')).to_be_visible()
    page.reload()
    expect(page.locator('[data-star="10"]')).to_have_attribute("aria-pressed", "true")
    page.goto(reading.at(task=TASK, q="odd markdown sample", scope="task"))
    expect(page.locator("a[data-hit]").first).to_be_visible()


def test_a_file_the_card_names_opens_the_edit_that_wrote_it(page, reading):
    page.goto(reading.at(task=TASK))
    card = page.locator('[data-card="2"]')
    card.locator("details.fold > summary", has_text="file").click()
    card.locator('[data-file="/home/ana/src/pager/order.go"]').click()
    edit = page.locator('details.call[data-call="e1"]')
    expect(edit).to_have_attribute("open", "")
    expect(edit.locator("> summary")).to_be_focused()
    expect(edit.locator(".diff-add").first).to_be_in_viewport()
