"""Going on with a task in a terminal (issue 40): `nodwyn resume TASK --terminal` and the
page's "Open in terminal" start the person's terminal in the task's folder running the agent's
resume command. The terminals and the agent here are real processes: small scripts on a PATH
of the test's own, each writing down the folder it ran in and its arguments."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nodwyn import api, settings
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from test_api import TOKEN, Client

# A terminal: writes its folder and arguments, then runs what follows its way of being handed
# a command ("-e", "--" or nothing), with SHELL=true so the shell kept open after the agent
# ends ends at once too.
TERMINAL = """#!/bin/sh
{ pwd; for word in "$@"; do printf '%s\\n' "$word"; done; } > "$RECORD.${0##*/}"
while [ $# -gt 0 ] && [ "$1" != "sh" ]; do shift; done
SHELL=/bin/true exec "$@"
"""
AGENT = """#!/bin/sh
{ pwd; for word in "$@"; do printf '%s\\n' "$word"; done; } > "$RECORD.agent"
"""
BROKEN = """#!/bin/sh
echo "cannot open display: :0" >&2
exit 3
"""


def script(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def bin_dir(tmp_path) -> Path:
    """A PATH of the test's own: sh, a fake `claude`, and no terminal until a test adds one."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "sh").symlink_to("/bin/sh")
    script(folder, "claude", AGENT)
    return folder


@pytest.fixture
def project(tmp_path) -> Path:
    folder = tmp_path / "my project"  # a space: the folder must be quoted for the shell
    folder.mkdir()
    return folder


@pytest.fixture
def task(data_dir, tmp_path, project) -> str:
    source = tmp_path / "abc-123.jsonl"  # the agent's own log: resume needs it to exist
    source.write_text("{}\n")
    origin = r.Origin(tool="claude-code", path=str(source), id="abc-123")
    with Store(data_dir).create(r.SessionStart(project=str(project), origin=origin), "cc-a") as w:
        w.append([r.Message(text="fix the pager")])
    return "cc-a"


def run(bin_dir: Path, tmp_path: Path, *args: str, terminal: str | None = None):
    env = {**os.environ, "PATH": str(bin_dir), "RECORD": str(tmp_path / "record")}
    env.pop("TERMINAL", None)
    if terminal is not None:
        env["TERMINAL"] = terminal
    return subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", *args],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def recorded(tmp_path: Path, who: str) -> list[str]:
    """What a fake wrote: its folder, then its arguments (waited for: a terminal that is
    still running when nodwyn answers writes it a moment later)."""
    file = tmp_path / f"record.{who}"
    deadline = time.monotonic() + 10
    while not file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return file.read_text().splitlines()


def test_terminal_from_the_environment_runs_the_agent_in_the_tasks_folder(
    bin_dir, tmp_path, project, task
):
    script(bin_dir, "my-term", TERMINAL)
    done = run(bin_dir, tmp_path, "resume", task, "--terminal", terminal="my-term")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Opened my-term in {project}: claude --resume abc-123"
    folder, *args = recorded(tmp_path, "my-term")
    assert folder == str(project)
    assert args == ["-e", "sh", "-c", f"cd '{project}' && claude --resume abc-123; "
                    'exec "${SHELL:-sh}"']  # fmt: skip
    assert recorded(tmp_path, "agent") == [str(project), "--resume", "abc-123"]


@pytest.mark.parametrize(
    "name, before",
    [("x-terminal-emulator", ["-e"]), ("gnome-terminal", ["--"]), ("konsole", ["-e"]),
     ("xterm", ["-e"])],
)  # fmt: skip
def test_without_terminal_the_desktops_own_is_found_on_path(
    bin_dir, tmp_path, project, task, name, before
):
    script(bin_dir, name, TERMINAL)
    done = run(bin_dir, tmp_path, "resume", task, "--terminal")
    assert done.returncode == 0, done.stderr
    folder, *args = recorded(tmp_path, name)
    assert (folder, args[: len(before) + 1]) == (str(project), [*before, "sh"])
    assert recorded(tmp_path, "agent") == [str(project), "--resume", "abc-123"]


def test_the_setting_chooses_another_terminal_with_its_own_words(bin_dir, tmp_path, task):
    script(bin_dir, "kitty", TERMINAL)
    script(bin_dir, "my-term", TERMINAL)
    said = run(bin_dir, tmp_path, "settings", "terminal", "kitty --single-instance")
    assert said.returncode == 0, said.stderr
    done = run(bin_dir, tmp_path, "resume", task, "--terminal", terminal="my-term")
    assert done.returncode == 0, done.stderr
    assert recorded(tmp_path, "kitty")[1:3] == ["--single-instance", "sh"]  # kitty: no -e
    assert not (tmp_path / "record.my-term").exists()  # the setting beats $TERMINAL
    refused = run(bin_dir, tmp_path, "settings", "terminal", "no-such-term")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "nodwyn: no program named no-such-term on PATH: name the terminal's own command"
    )


def test_what_stops_it_is_said_in_one_line_and_nothing_starts(
    bin_dir, tmp_path, project, task, data_dir
):
    script(bin_dir, "my-term", TERMINAL)
    script(bin_dir, "broken-term", BROKEN)

    def said(terminal="my-term"):
        done = run(bin_dir, tmp_path, "resume", task, "--terminal", terminal=terminal)
        assert done.returncode == 1 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        return done.stderr.strip()

    assert said("broken-term") == (
        "nodwyn: the terminal broken-term ended at once (exit code 3): cannot open display: :0"
    )
    assert said("gone-term") == (
        "nodwyn: the terminal gone-term could not start: No such file or directory"
    )
    assert said("") == (
        "nodwyn: no terminal found (none of x-terminal-emulator, gnome-terminal, konsole, xterm"
        " on PATH): set $TERMINAL or choose one in Settings > Terminal, or copy the command"
    )
    (bin_dir / "claude").unlink()
    assert said() == "nodwyn: claude is not installed here: no claude command on PATH"
    project.rmdir()
    assert said() == f"nodwyn: the task's folder {project} no longer exists"
    assert not (tmp_path / "record.my-term").exists()
    copied = run(bin_dir, tmp_path, "resume-command", task)  # Copy still has its command
    assert copied.stdout.strip() == f"cd '{project}' && claude --resume abc-123"


def test_the_page_opens_it_through_the_api_and_hears_why_not(
    bin_dir, tmp_path, project, task, data_dir, monkeypatch
):
    script(bin_dir, "my-term", TERMINAL)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("RECORD", str(tmp_path / "record"))
    monkeypatch.setenv("TERMINAL", "my-term")
    client = Client(api.make_app(Store(data_dir), TOKEN))
    opened = client.request("POST", f"/api/tasks/{task}/terminal")
    assert opened.status == 200
    assert json.loads(opened.body) == {
        "task": task, "terminal": "my-term", "folder": str(project),
        "command": "claude --resume abc-123",
    }  # fmt: skip
    assert recorded(tmp_path, "agent") == [str(project), "--resume", "abc-123"]
    settings.update(data_dir, terminal="")
    project.rmdir()
    refused = client.request("POST", f"/api/tasks/{task}/terminal")
    assert refused.status == 409
    assert json.loads(refused.body)["error"] == f"the task's folder {project} no longer exists"
