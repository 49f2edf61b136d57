"""A task's row moves into "Needs an answer" within a second of its agent's hook, and out of it
when the answer's event comes: the hook command nodwyn installs, run as Claude Code runs it,
into `nodwyn serve`, in Chromium."""

import json
import re
import subprocess
import time

import pytest
from importing import SESSION, session, write
from nodwyn.importers.sync import import_paths
from nodwyn.live import install
from nodwyn.tasks.store import Store
from playwright.sync_api import expect
from test_live_hooks import PAYLOADS, played
from test_live_hooks import home as home  # noqa: F401 (its fixture: every agent's hooks)
from test_live_install import home as fresh_home  # noqa: F401 (the fixture that one asks for)

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


def imported(agent: str, store: Store, tmp_path) -> str:
    """A session of the agent's imported (its own format, written by the tests' writers);
    its session id, which the agent's hooks name."""
    if agent == "codex":
        from test_live_logs import CODEX_ID, codex

        codex(store, tmp_path, lambda rollout: None)
        return CODEX_ID
    if agent == "gemini":
        from test_worker_agents import SESSION as GEMINI
        from test_worker_agents import gemini_file

        import_paths(store, "gemini", [gemini_file(tmp_path / "g", ["Fix the pager"])])
        return GEMINI
    if agent == "copilot":
        from test_import_copilot import ID, event
        from test_import_copilot import session as copilot_session
        from test_import_copilot import write as copilot_write

        lines = copilot_session(event("user.message", 1, content="Fix the pager"))
        import_paths(store, "copilot", [copilot_write(tmp_path / "cp", lines)])
        return ID
    from test_import_opencode import SESSION as OPENCODE
    from test_import_opencode import conversation, write_db

    (tmp_path / "oc").mkdir()
    import_paths(
        store, "opencode", [write_db(tmp_path / "oc" / "opencode.db", {OPENCODE: conversation()})]
    )
    return OPENCODE


@pytest.mark.parametrize("agent", ["codex", "gemini", "copilot", "opencode"])
def test_each_agent_s_question_moves_its_row_and_its_answer_moves_it_out(
    page, data_dir, tmp_path, agent, home
):
    session = imported(agent, Store(data_dir), tmp_path)
    given = PAYLOADS[agent]
    task, steps = given["task"], given["steps"]
    asks = next(n for n, step in enumerate(steps) if step[2] == "needs an answer")
    ours = task.replace(task[3:], session)

    def play(step) -> None:
        payload = json.loads(json.dumps(step[1]).replace(task[3:], session))
        if agent == "opencode":  # the command the plugin spawns, OpenCode being up already
            plugin = install.file_of("opencode").read_text()
            command = json.loads(re.search(r"const COMMAND = (.*);", plugin).group(1))
            subprocess.run(command, input=json.dumps(payload), text=True, timeout=30, check=True)
        else:
            played(home, agent, step[0], payload, tmp_path)

    with serve(root=data_dir, log=tmp_path / "serve.log") as served:
        page.goto(served.url)
        expect(page.locator(f'[data-task="{ours}"]')).to_be_visible()
        asking = page.locator('[data-group-key=":asking"]')
        began = time.monotonic()
        play(steps[asks])
        expect(asking.locator(f'[data-task="{ours}"]')).to_be_visible(timeout=5000)
        assert time.monotonic() - began < 1.0
        expect(asking.locator("[data-task-asks]")).to_have_text(steps[asks][3])
        began = time.monotonic()
        play(steps[asks + 1])
        expect(asking).to_have_count(0, timeout=5000)
        assert time.monotonic() - began < 1.0
