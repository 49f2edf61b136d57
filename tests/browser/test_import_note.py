"""The page says what "Import a folder…" did once it is done (#14): how many sessions, and the
first line it could not read, under the task list where the progress was."""

import sys
from pathlib import Path

import pytest
from nodwyn import api
from nodwyn.tasks import demo
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from importing import session  # noqa: E402
from test_first_run import call  # noqa: E402
from test_import_hostile import DEEP, claude_file  # noqa: E402


@pytest.fixture
def in_process(data_dir):
    server = api.Server(demo.make_demo(data_dir / "demo")).start()
    yield server
    server.stop()


def test_the_page_says_what_an_import_did_and_which_line_it_skipped(page, in_process, tmp_path):
    folder = tmp_path / "sessions"
    path = claude_file(folder, 2, session(), extra=DEEP)
    page.goto(in_process.url)
    expect(page.locator(".task-item").first).to_be_visible()
    status, _answer = call(
        in_process, "POST", "/api/import", {"tool": "claude", "path": str(folder)}
    )
    assert status == 200
    note = page.locator("[data-progress] [data-import-note]")
    expect(note).to_contain_text("1 created, 0 extended, 0 unchanged, 0 skipped", timeout=20000)
    expect(note).to_contain_text(f"1 lines unreadable, first {path}:3: nested too deeply")
