"""The Resume control's "Open in terminal" (issue 40), in Chromium against `nodwyn serve`: shown
beside Copy for an agent with a resume command, not shown for one without; a click starts the
terminal (a script on the server's PATH that writes down its folder and arguments, then runs
the fake agent), and a folder that is gone is said beside it while Copy still copies."""

import os
import sys
import time
from pathlib import Path

import pytest
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_terminal import AGENT, TERMINAL, script  # noqa: E402


def task(root: Path, task_id: str, tool: str, project: Path, source: Path) -> None:
    origin = r.Origin(tool=tool, path=str(source), id=f"{task_id}-session")
    at = "2026-11-29T10:00:0{}Z".format
    with Store(root).create(r.SessionStart(project=str(project), origin=origin), task_id) as w:
        w.append([r.Message(at=at(1), text=f"work on {task_id}"), r.Reply(at=at(2), text="done")])


@pytest.fixture
def terminals(data_dir, tmp_path, monkeypatch):
    folder = tmp_path / "bin"
    folder.mkdir()
    script(folder, "my-term", TERMINAL)
    script(folder, "claude", AGENT)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TERMINAL", "my-term")
    monkeypatch.setenv("RECORD", str(tmp_path / "record"))
    source = tmp_path / "own-log.jsonl"  # the agents' own logs: resume needs them there
    source.write_text("{}\n")
    project = tmp_path / "pager"
    project.mkdir()
    task(data_dir, "cc-here", "claude-code", project, source)
    task(data_dir, "cc-gone", "claude-code", tmp_path / "removed", source)
    task(data_dir, "cu-chat", "cursor", project, source)
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server, project


def written(file: Path) -> list[str]:
    deadline = time.monotonic() + 10  # the terminal writes it as it starts, beside the answer
    while not file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return file.read_text().splitlines()


def test_open_in_terminal_starts_the_agent_in_the_tasks_folder(page, terminals, tmp_path):
    server, project = terminals
    page.goto(server.at(task="cc-here"))
    control = page.locator("[data-resume-control]")
    button = control.get_by_role("button", name="Open in terminal")
    expect(button).to_be_visible()
    button.click()
    expect(control.locator("[data-terminal-said]")).to_have_text("Opened in my-term")
    assert written(tmp_path / "record.my-term")[0] == str(project)
    assert written(tmp_path / "record.agent") == [str(project), "--resume", "cc-here-session"]


def test_a_folder_that_is_gone_is_said_and_copy_still_works(page, terminals, tmp_path):
    server, _ = terminals
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server.at(task="cc-gone"))
    control = page.locator("[data-resume-control]")
    control.get_by_role("button", name="Open in terminal").click()
    said = control.locator("[data-terminal-said]")
    gone = tmp_path / "removed"
    expect(said).to_have_text(f"Not opened: the task's folder {gone} no longer exists")
    expect(said).to_have_class("resume-said error")
    assert not (tmp_path / "record.my-term").exists()
    control.locator("[data-resume]").click()
    expect(control.locator("[data-resume]")).to_have_text("Copied ✓")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"cd {tmp_path / 'removed'} && claude --resume cc-gone-session"


def test_an_agent_without_a_resume_command_has_no_terminal_button(page, terminals):
    server, _ = terminals
    page.goto(server.at(task="cu-chat"))
    resume = page.locator("[data-resume]")
    expect(resume).to_be_disabled()
    why = "Cursor opens its chats inside the editor, not from a command"
    expect(resume).to_have_attribute("title", f"No resume command: {why}")
    expect(page.locator("[data-open-terminal]")).to_have_count(0)


def test_the_terminal_is_chosen_in_settings(page, terminals, tmp_path):
    server, _ = terminals
    script(tmp_path / "bin", "kitty", TERMINAL)
    page.goto(server.url)
    page.locator("[data-settings-button]").click()
    field = page.locator("[data-terminal-setting]")
    field.fill("kitty")
    field.press("Tab")
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    field.fill("no-such-term")
    field.press("Tab")
    expect(page.get_by_text("Not saved: no program named no-such-term on PATH")).to_be_visible()
    page.goto(server.at(task="cc-here"))
    page.get_by_role("button", name="Open in terminal").click()
    expect(page.locator("[data-terminal-said]")).to_have_text("Opened in kitty")
