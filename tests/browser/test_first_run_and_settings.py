"""First run ("Import a folder…") and Settings > Search, in Chromium against `nodwyn serve`."""

import json

import pytest
from held_routes import HoldFirst
from playwright.sync_api import expect
from test_worker import ClaudeSession


@pytest.fixture
def no_agents(tmp_path, monkeypatch):
    """Agent folders that do not exist (set before the server starts, so it sees them)."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return tmp_path


def test_a_first_run_says_where_it_looked_and_imports_a_named_folder(no_agents, page, served_empty):
    session = ClaudeSession(no_agents / "elsewhere").turn("Teach the plover cache", "Taught.")
    page.goto(served_empty.url)
    places = page.locator("[data-places]")
    expect(places).to_contain_text(str(no_agents / "claude" / "projects"))
    expect(places.locator('[data-place="claude"]')).to_contain_text("not there")
    page.get_by_role("textbox", name="Folder to import").fill(str(session.path.parent))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("[data-import-said]")).to_contain_text("Importing 1 session files")
    expect(page.locator(f'[data-task="cc-{session.id}"]')).to_contain_text("plover")


def test_a_first_run_names_only_the_folders_it_really_looked_in(no_agents, page, served_empty):
    page.goto(served_empty.url)
    expect(page.locator('[data-empty="tasks"]')).to_contain_text("No tasks yet")
    expect(page.locator("[data-places]")).to_contain_text(str(no_agents / "codex" / "sessions"))
    # CLAUDE_CONFIG_DIR and CODEX_HOME point elsewhere: the default folders are not where it looked
    expect(page.locator("body")).not_to_contain_text("~/.claude/projects")
    expect(page.locator("body")).not_to_contain_text("~/.codex/sessions")


def test_import_a_folder_says_what_is_wrong_with_it(no_agents, page, served_empty):
    page.goto(served_empty.url)
    page.get_by_role("textbox", name="Folder to import").fill(str(no_agents / "nowhere"))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("[data-import-said]")).to_contain_text("there is no file or folder")


def test_settings_change_from_the_page_and_stay_in_the_data_directory(page, served):
    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    follow = page.get_by_role("checkbox", name="Follow Codex's sessions")
    expect(follow).to_be_checked()  # the default
    follow.uncheck()
    expect(page.get_by_role("dialog", name="Settings")).to_contain_text("Saved.")
    kept = json.loads((served.root / "settings.json").read_text())
    assert kept["follow_codex"] is False
    page.reload()
    page.get_by_role("button", name="Settings").click()
    expect(page.get_by_role("checkbox", name="Follow Codex's sessions")).not_to_be_checked()


def test_settings_open_on_a_click_before_the_page_has_read_the_settings(page, served):
    """The page's first read of the settings is held back: the Settings button must
    open already (a CI run once clicked Settings in that moment and nothing ever opened)."""
    first_read = HoldFirst()
    page.route("**/api/settings*", first_read)
    page.goto(served.url)
    page.wait_for_function("() => document.readyState === 'complete'")
    page.get_by_role("button", name="Settings").click()
    expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
    expect(page.get_by_role("checkbox", name="Follow Codex's sessions")).to_be_checked()
    page.get_by_role("button", name="Close").click()
    first_read.release()  # the first read was still on its way
    expect(page.get_by_role("button", name="Machine runs (1)")).to_be_visible()


def test_machine_runs_are_listed_with_the_others_when_the_setting_says_so(page, served):
    page.goto(served.url)
    expect(page.get_by_role("button", name="Machine runs (1)")).to_be_visible()
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("checkbox", name="List machine runs").check()
    page.get_by_role("button", name="Close").click()
    expect(page.get_by_role("button", name="Machine runs (1)")).to_have_count(0)
    expect(page.locator('[data-task="demo-machine-changelog"]')).to_be_visible()


def test_a_project_is_opened_to_agents_from_settings_and_closed_again(page, served):
    from nodwyn import settings
    from nodwyn.mcp import toolbox
    from nodwyn.tasks.store import Store

    def switches():
        return settings.load(served.root).earlier_tasks

    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    tick = page.locator("[data-earlier-tasks]").get_by_role("checkbox", name="/home/ana/src/pager")
    expect(tick).not_to_be_checked()
    tick.check()
    expect(page.get_by_role("dialog", name="Settings")).to_contain_text("Saved.")
    assert switches() == {"/home/ana/src/pager": True}
    assert toolbox.allowed(Store(served.root), "/home/ana/src/pager")
    page.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Settings").click()
    tick = page.locator("[data-earlier-tasks]").get_by_role("checkbox", name="/home/ana/src/pager")
    expect(tick).to_be_checked()  # read back from the data directory
    with page.expect_response("**/api/settings"):
        tick.uncheck()
    assert switches() == {}
    assert not toolbox.allowed(Store(served.root), "/home/ana/src/pager")


def test_an_imported_folder_is_listed_in_settings_and_can_stop_being_followed(
    no_agents, page, served_empty
):
    from nodwyn import settings

    session = ClaudeSession(no_agents / "elsewhere").turn("Teach the plover cache", "Taught.")
    folder = str(session.path.parent)
    page.goto(served_empty.url)
    page.get_by_role("textbox", name="Folder to import").fill(folder)
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("[data-import-said]")).to_contain_text("keeps following this folder")
    expect(page.locator(f'[data-task="cc-{session.id}"]')).to_be_visible()
    page.get_by_role("button", name="Settings").click()
    row = page.locator(f'[data-extra-folder="{folder}"]')
    expect(row).to_contain_text("Claude Code:")
    with page.expect_response("**/api/settings"):
        row.get_by_role("button", name=f"Stop following {folder}").click()
    expect(row).to_have_count(0)
    expect(page.get_by_role("dialog", name="Settings")).to_contain_text("no longer followed")
    assert settings.load(served_empty.root).extra_folders == {}


def test_settings_fit_a_phone_wide_window(browser, served):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(served.url)
    page.get_by_role("button", name="Tasks").click()
    page.get_by_role("button", name="Settings").click()
    dialog = page.locator("dialog[data-settings]")
    expect(dialog.get_by_role("combobox").first).to_be_visible()
    right = dialog.evaluate("n => n.getBoundingClientRect().right - 10")  # inside its padding
    wide = dialog.evaluate(
        """(n, right) => [...n.querySelectorAll("select, input, button")]
            .filter((c) => c.getBoundingClientRect().right > right)
            .map((c) => c.outerHTML.slice(0, 80))""",
        right,
    )
    assert wide == []
    context.close()
