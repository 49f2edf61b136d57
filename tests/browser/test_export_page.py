"""The HTML export in Chromium (issue 37), at a desktop window's size and a phone's: each call
reads with its command or file beside the tool, and nothing (a long title, path or inline
code) is wider than the window."""

import pytest
from nodwyn.log import records
from nodwyn.reading.export import export
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
LONG = "C:\\Users\\LENOVO\\.gemini\\antigravity\\scratch\\finrelief-ai\\backend\\app\\security.py"


def task(root) -> str:
    start = records.SessionStart(project=LONG, origin=records.Origin(tool="antigravity"))
    view = records.Call(id="v1", tool="view_file", input={"AbsolutePath": LONG, "StartLine": 1})
    with Store(root).create(start, "ag-long") as writer:
        writer.append([
            records.Message(text="https://example.com/earn/listing/a-very-long-address-" * 3),
            records.Reply(text=f"Read `{LONG}{LONG}` first.", calls=[view]),
            records.Result(call="v1", tool="view_file", output="import os"),
        ])  # fmt: skip
    return "ag-long"


@pytest.mark.parametrize("size", list(SIZES))
def test_the_export_fits_the_window_and_names_each_calls_file(browser, data_dir, size):
    html = export(Store(data_dir), task(data_dir), "html")
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_content(html)
    call = page.locator("details.call summary")
    expect(call).to_contain_text("view_file")
    expect(call.locator(".call-line")).to_have_text(LONG)
    expect(page.locator(".meta")).to_contain_text("Antigravity")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()
