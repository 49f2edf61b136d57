"""The agents' hooks played through the hook command nodwyn installs, into a running app: each
agent's documented payloads (tests/data/hook_payloads.json) move its task's live state, in a
fresh HOME where `nodwyn hooks install AGENT --write` put them, as the agent would run them."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from nodwyn import api
from nodwyn.live import install
from nodwyn.tasks.store import Store
from test_live_install import home as fresh_home  # noqa: F401 (its fixture: a fresh HOME)

PAYLOADS = json.loads((Path(__file__).parent / "data" / "hook_payloads.json").read_text())
NODE = shutil.which("node")


@pytest.fixture
def home(fresh_home) -> Path:  # noqa: F811 (the fixture imported above)
    """A fresh HOME holding every agent's user settings, nodwyn's hooks installed in it."""
    for agent in install.AGENTS:
        install.write(agent)
    return fresh_home


@pytest.fixture
def app(data_dir):
    server = api.Server(Store(data_dir)).start()
    yield server
    server.stop()


def played(home: Path, agent: str, event: str, payload: dict, cwd: Path) -> None:
    """One payload given to the hook command as the agent gives it, from the file it reads."""
    text = json.dumps(payload)
    if agent == "codex-notify":
        notify = tomllib.loads((home / ".codex" / "config.toml").read_text())["notify"]
        run = subprocess.run([*notify, text], cwd=cwd, timeout=30)
    elif agent == "opencode":
        run = opencode(home, payload, cwd)
    else:
        run = subprocess.run(installed_command(home, agent, event), shell=True, input=text,
                             text=True, cwd=cwd, timeout=30)  # fmt: skip
    assert run.returncode == 0


def installed_command(home: Path, agent: str, event: str) -> str:
    """The command line the agent's own file holds for the event."""
    if agent == "aider":
        line = next(x for x in (home / ".aider.conf.yml").read_text().splitlines()
                    if x.startswith("notifications-command:"))  # fmt: skip
        return json.loads(line.split(":", 1)[1])
    if agent == "copilot":
        hooks = json.loads((home / ".copilot" / "hooks" / "nodwyn.json").read_text())["hooks"]
        return hooks[event][0]["bash"]
    file = install.file_of(agent)
    hooks = json.loads(file.read_text())["hooks"]
    name = payload_event(agent, hooks)
    entry = hooks[name][-1]
    return entry["command"] if agent == "cursor" else entry["hooks"][0]["command"]


def payload_event(agent: str, hooks: dict) -> str:
    return next(iter(hooks))  # every event of an agent runs the same command


def opencode(home: Path, payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    """The plugin file itself, run by Node as OpenCode's Bun runs it: its event hook called."""
    plugin = home / ".config" / "opencode" / "plugins" / "nodwyn-live.js"
    module = cwd / "plugin.mjs"
    shutil.copyfile(plugin, module)
    script = (f"const m = await import({json.dumps(module.as_uri())});"
              f"const hooks = await m.NodwynLive({{}});"
              f"await hooks.event({{event: {json.dumps(payload)}}});")  # fmt: skip
    return subprocess.run([NODE, "--input-type=module", "-e", script], cwd=cwd, timeout=30)


def live(server) -> dict[str, dict]:
    states = server.app.board.states()
    return {s.task: {"state": s.state, "what": s.what} for s in states}


def until(probe, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := probe():
            return value
        time.sleep(0.02)
    return probe()


@pytest.mark.skipif(NODE is None, reason="OpenCode's plugin is run by Node")
@pytest.mark.parametrize("agent", [a for a in PAYLOADS if a != "_"])
def test_each_agent_s_payloads_move_its_task_through_the_installed_hook(agent, home, app, tmp_path):
    task = PAYLOADS[agent]["task"]
    for event, payload, state, what in PAYLOADS[agent]["steps"]:
        played(home, agent, event, payload, tmp_path)
        want = None if state is None else {"state": state, "what": what}
        assert until(lambda want=want: live(app).get(task) == want), (event, live(app))


def test_aider_s_notification_names_its_task_by_the_folder_it_runs_in(home, app, tmp_path):
    from nodwyn.importers.sync import import_paths
    from test_import_aider import write

    repo = tmp_path / "pager"
    tasks = import_paths(app.store, "aider", [write(repo)]).created
    newest = max(tasks, key=lambda t: app.store.get(t).last_activity)
    played(home, "aider", "", {}, repo)
    assert until(lambda: newest in live(app))
    assert live(app)[newest] == {"state": "your turn",
                                 "what": "waits for you: a prompt or a confirmation"}  # fmt: skip


def test_with_no_app_the_hook_spools_its_event_and_the_app_reads_it_when_it_starts(
    home, data_dir, tmp_path
):
    step = PAYLOADS["claude"]["steps"][1]
    began = time.monotonic()
    played(home, "claude", *step[:2], tmp_path)
    assert time.monotonic() - began < 5
    assert (data_dir / "live-spool.jsonl").exists()
    server = api.Server(Store(data_dir)).start()
    try:
        assert live(server)[PAYLOADS["claude"]["task"]]["what"] == "Bash: rm -rf build"
        assert not (data_dir / "live-spool.jsonl").exists()  # read once, never twice
    finally:
        server.stop()


@pytest.mark.parametrize("given", [["claude"], [], ["nobody", "x"], ["codex-notify", "{"]])
def test_the_hook_exits_0_whatever_it_is_given(given, data_dir, tmp_path):
    command = [sys.executable, "-m", "nodwyn.live.hook", *given]
    run = subprocess.run(command, input=b"\x00not json" * 1000, capture_output=True, timeout=30)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    os.chmod(data_dir, 0o500)  # a data folder it cannot write: still 0, still silent
    try:
        run = subprocess.run(command, input=b"{}", capture_output=True, timeout=30)
    finally:
        os.chmod(data_dir, 0o700)
    assert (run.returncode, run.stderr) == (0, b"")


def test_a_state_goes_when_its_agent_s_process_is_gone(home, app, tmp_path):
    """A killed terminal: the agent sends no end, its process is simply gone."""
    step = PAYLOADS["claude"]["steps"][1]
    runs = (f"import subprocess, time; subprocess.run({installed_command(home, 'claude', '')!r},"
            f" shell=True, input={json.dumps(step[1])!r}, text=True); time.sleep(60)")  # fmt: skip
    agent = subprocess.Popen([sys.executable, "-c", runs], cwd=tmp_path)  # runs it as Claude Code
    task = PAYLOADS["claude"]["task"]
    assert until(lambda: task in live(app))
    assert app.app.board.of(task).pid == agent.pid  # the shell the hook ran under was passed
    agent.kill()
    agent.wait()
    assert until(lambda: task not in live(app))


def test_a_second_install_changes_nothing(home):
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    for agent in install.AGENTS:
        assert re.search(r"already|nodwyn's already", install.write(agent)), agent
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


def test_sessions_live_lists_what_the_running_app_holds_and_says_when_none_runs(
    home, data_dir, tmp_path
):
    command = [sys.executable, "-m", "nodwyn.cli", "sessions", "--live"]
    alone = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert alone.returncode == 1 and "nodwyn serve --follow" in alone.stderr
    server = api.Server(Store(data_dir)).start()
    try:
        played(home, "claude", *PAYLOADS["claude"]["steps"][1][:2], tmp_path)
        task = PAYLOADS["claude"]["task"]
        assert until(lambda: task in live(server))
        shown = subprocess.run(command, capture_output=True, text=True, timeout=60)
        listed = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=60)
    finally:
        server.stop()
    assert shown.stdout.startswith("needs an answer  claude")
    assert "Bash: rm -rf build" in shown.stdout and task in shown.stdout
    assert json.loads(listed.stdout)[0]["what"] == "Bash: rm -rf build"
