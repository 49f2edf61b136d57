"""SSH machines in the rest of the app, against a real sshd on 127.0.0.1 (sshd.py): resume and
Open in terminal going back to the session on its machine, a session deleted there, a machine
forgotten, the agents' default places, the hosts of the ssh config offered, the command line,
the page's API and the worker's schedule."""

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import ssh_sessions
from nodwyn.importers import registry
from nodwyn.machines import pull, remote, ssh, sshconfig
from nodwyn.reading import resume
from ssh_pulls import far_fixture, folders, local_tasks, nodwyn, starts, store_fixture, wait_for  # noqa: F401 (the fixtures)
from sshd import server_fixture  # noqa: F401 (the fixture)


def test_resume_goes_back_to_the_session_on_its_machine(store, server, tmp_path):
    project = tmp_path / "far end" / "it's a $(project)"
    project.mkdir(parents=True)
    folder = tmp_path / "far end" / "claude"
    ssh_sessions.session(folder, str(project), turns=2)
    host = ssh.add(store.root, "slow", [f"claude={folder}"])  # its PATH holds a `claude`
    assert pull.pull(store.root, store, host).created == 1
    (task,) = starts(store)
    found = resume.command(store, task)
    words = shlex.split(found.command)
    assert words[:2] == ["ssh", "-F"] and words[3:6] == ["-t", "--", "slow"]
    assert found.host == "slow" and found.folder == str(project)
    session = starts(store)[task].origin.id
    assert shlex.split(words[6]) == ["cd", str(project), "&&", "claude", "--resume", session]
    ran = subprocess.run(["sh", "-c", found.command], capture_output=True, text=True, timeout=60)
    assert ran.stdout.splitlines()[-3:] == [str(project), "--resume", session], ran.stderr


# the terminal outlives the call that started it (as it does the app), here while ssh connects
@pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")
def test_open_in_terminal_runs_the_resume_over_ssh(store, server, tmp_path, monkeypatch):
    from nodwyn.reading import terminal
    from test_terminal import TERMINAL, script

    project = tmp_path / "far end" / "my project"
    project.mkdir(parents=True)
    ssh_sessions.session(tmp_path / "far end" / "claude", str(project), turns=1)
    host = ssh.add(store.root, "slow", [f"claude={tmp_path / 'far end' / 'claude'}"])
    assert pull.pull(store.root, store, host).created == 1
    (task,) = starts(store)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script(bin_dir, "my-term", TERMINAL)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TERMINAL", "my-term")
    monkeypatch.setenv("RECORD", str(tmp_path / "record"))
    ran = server.folder / "claude-ran"
    ran.unlink(missing_ok=True)
    opened = terminal.open_in_terminal(store, task)
    assert opened.command == resume.command(store, task).command and opened.terminal == "my-term"
    assert wait_for(lambda: ran.exists() and len(ran.read_text().splitlines()) == 3)
    assert ran.read_text().splitlines() == [str(project), "--resume", starts(store)[task].origin.id]


def test_a_session_its_agent_deleted_there_keeps_its_task_and_says_so(store, tmp_path):
    folder = tmp_path / "far end" / "claude"
    kept = ssh_sessions.session(folder / "a", "/srv/a", turns=2)
    gone = ssh_sessions.session(folder / "b", "/srv/b", turns=2)
    host = ssh.add(store.root, "plain", [f"claude={folder}"])
    assert pull.pull(store.root, store, host).created == 2
    gone.unlink()  # as Claude Code does after 30 days
    assert pull.pull(store.root, store, host).error == ""
    assert set(starts(store)) == {f"cc-{kept.stem}", f"cc-{gone.stem}"}
    said = resume.command(store, f"cc-{gone.stem}")
    assert (said.command, said.reason) == ("", "the agent's own log is gone from plain")
    assert resume.command(store, f"cc-{kept.stem}").host == "plain"


def test_a_forgotten_machine_leaves_its_mirror_and_touches_nothing_there(store, far):
    host = ssh.add(store.root, "plain", folders(far))
    assert pull.pull(store.root, store, host).created
    before = sorted(p.read_bytes() for p in far["claude"].rglob("*") if p.is_file())
    ssh.forget(store.root, host.id)
    assert ssh.hosts(store.root) == [] and not ssh.mirror(store.root, host.id).exists()
    assert sorted(p.read_bytes() for p in far["claude"].rglob("*") if p.is_file()) == before


def test_the_agents_default_places_are_their_own_roots(monkeypatch, tmp_path):
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME",
                     "XDG_DATA_HOME", "PI_CODING_AGENT_DIR", "QWEN_HOME", "QWEN_RUNTIME_DIR",
                     "CONTINUE_GLOBAL_DIR"):  # fmt: skip
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for agent, places in ssh.DEFAULTS.items():
        assert registry.get(agent).roots() == [tmp_path / p for p in places]


def test_the_hosts_of_the_ssh_config_are_offered(tmp_path, monkeypatch):
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "work").write_text("Host build-1 build-2\n  HostName 10.0.0.2\n")
    main = tmp_path / "config"
    main.write_text(
        "# my machines\nHost dev-box *.lan !bastion gpu?\n  HostName dev\n"
        f"Include {tmp_path}/conf.d/*\nHost=pi\nInclude {main}\n"
        'Host "two words" evil;touch\nHost dev-box\n'
    )
    monkeypatch.setenv(remote.CONFIG, str(main))
    assert sshconfig.offered() == ["dev-box", "build-1", "build-2", "pi"]


def test_the_command_line_adds_pulls_and_lists(store, far):
    added = nodwyn(store, "machines", "add", "ssh", "plain", "--name", "dev box",
                   *(w for f in folders(far) for w in ("--folder", f)))  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "dev box: pulled by rsync" in added.stdout
    pulled = nodwyn(store, "machines", "pull", "dev box", "--json")
    (said,) = json.loads(pulled.stdout)
    assert (said["error"], said["created"], said["via"]) == ("", 0, "rsync")
    listed = nodwyn(store, "machines")
    assert "\ndev box (ssh, last seen just now): 9 tasks, " in listed.stdout
    synced = nodwyn(store, "machines", "sync")
    assert synced.returncode == 0, synced.stderr
    assert "dev box: pulled by rsync" in synced.stdout
    refused = nodwyn(store, "machines", "add", "ssh", "closed", "--folder", "claude=/x")
    assert refused.returncode == 1
    assert refused.stderr.startswith("closed: connection refused")


def test_settings_add_and_pull_now_through_the_api(store, far):
    from nodwyn import api
    from test_api import TOKEN, Client

    client = Client(api.make_app(store, TOKEN))
    listed = client.get("/api/machines/ssh").json
    assert listed["machines"] == [] and listed["offered"][:3] == ["plain", "norsync", "slow"]
    added = client.post("/api/machines/ssh", {"host": "plain", "folders": folders(far)}).json
    (shown,) = added["machines"]
    assert shown["host"] == "plain" and shown["named"] and "plain" not in added["offered"]
    assert wait_for(lambda: client.get("/api/machines/ssh").json["machines"][0]["pulled"])
    assert len(starts(store)) == shown_tasks(far)
    again = client.post("/api/machines/ssh/pull", {"id": shown["id"]}).json["machines"][0]
    assert again["pulling"] or again["pulled"] >= shown["pulled"]
    assert wait_for(lambda: not client.get("/api/machines/ssh").json["machines"][0]["pulling"])
    refused = client.post("/api/machines/ssh", {"host": "x$(touch y)"})
    assert refused.status == 400 and "not a host ssh can be given" in refused.json["error"]


def shown_tasks(far: dict[str, Path]) -> int:
    return len(local_tasks(far["claude"].parent.parent / "here-api", far))


def test_the_worker_pulls_the_ssh_machines_on_its_own(store, far):
    from nodwyn.background.worker import Worker

    host = ssh.add(store.root, "plain", folders(far))
    worker = Worker(store, watch=False, interval=0.05)
    worker.start()
    try:
        assert wait_for(lambda: ssh.hosts(store.root)[0].pulled > 0)
    finally:
        worker.stop(30)
    assert {s.origin.machine for s in starts(store).values()} == {host.id}
