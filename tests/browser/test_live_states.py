"""A task's row moves into "Needs an answer" within a second of its agent's hook, and out of it
when the answer's event comes: the hook command nodwyn installs, run as Claude Code runs it,
into `nodwyn serve`, in Chromium."""

import json
import subprocess
import time

from importing import SESSION, session, write
from nodwyn.importers.sync import import_paths
from nodwyn.live import install
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve

TASK = "cc-" + SESSION


def hook(command: str, payload: dict) -> None:
    subprocess.run(
        command, shell=True, input=json.dumps(payload), text=True, timeout=30, check=True
    )


def test_a_permission_asked_moves_the_row_into_needs_an_answer_and_the_answer_out(
    page, data_dir, tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    install.write("claude")
    command = install.group("claude", "")["hooks"][0]["command"]
    source = write(tmp_path / "claude" / "s.jsonl", session())
    import_paths(Store(data_dir), "claude", [source])
    base = {"session_id": SESSION, "transcript_path": str(source), "cwd": "/home/ana/pager"}
    asked = base | {"hook_event_name": "PermissionRequest", "tool_name": "Bash",
                    "tool_input": {"command": "rm -rf build"}}  # fmt: skip
    with serve(root=data_dir, log=tmp_path / "serve.log") as served:
        page.goto(served.url)
        row = page.locator(f'[data-task="{TASK}"]')
        expect(row).to_be_visible()
        asking = page.locator('[data-group-key=":asking"]')
        expect(asking).to_have_count(0)
        began = time.monotonic()
        hook(command, asked)
        expect(asking.locator(f'[data-task="{TASK}"]')).to_be_visible(timeout=5000)
        took = time.monotonic() - began
        expect(asking.locator("[data-task-asks]")).to_have_text("Bash: rm -rf build")
        assert took < 1.0, f"the row moved {took:.2f} s after the hook started"
        row.click()
        expect(page.locator('[data-field="state"]')).to_have_text(
            "needs an answer: Bash: rm -rf build"
        )
        began = time.monotonic()
        hook(command, base | {"hook_event_name": "PostToolUse", "tool_name": "Bash"})
        expect(asking).to_have_count(0, timeout=5000)
        assert time.monotonic() - began < 1.0
        expect(page.locator('[data-field="state"]')).to_have_text("running")


def test_settings_installs_an_agent_s_hooks_and_removes_only_nodwyn_s(page, agents_home, served):
    settings = agents_home / ".gemini" / "settings.json"  # the server was given this home
    settings.parent.mkdir()
    theirs = '{"AfterAgent": [{"hooks": [{"type": "command", "command": "say done"}]}]}'
    mine = f'{{\n  // mine\n  "hooks": {theirs}\n}}\n'
    settings.write_text(mine)
    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    row = page.locator('[data-agent-hooks="gemini"]')
    expect(row).to_contain_text("Gemini CLI")
    row.get_by_role("button", name="Install Gemini CLI's hooks").click()
    expect(row.get_by_role("status")).to_contain_text("Added nodwyn's hooks")
    text = settings.read_text()
    assert "// mine" in text and "say done" in text and "nodwyn.live.hook" in text
    row.get_by_role("button", name="Remove Gemini CLI's hooks").click()
    expect(row.get_by_role("status")).to_contain_text("Removed nodwyn's hooks")
    assert settings.read_text() == mine
    notify = page.locator('[data-setting="notify_answers"]')
    expect(notify).to_be_checked()
    notify.uncheck()
    expect(page.locator("[data-settings-said], [role=status]").first).to_be_attached()
