"""Cline's task folders and Continue's sessions followed by the worker where this OS keeps them
(VS Code's globalStorage under ~/.config, ~/.continue/sessions), and `nodwyn import NAME`
from those folders: a task Cline writes on, or a session Continue rewrites, adds what is new."""

import json
import os
import time
from pathlib import Path

import pytest
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.importers import registry
from nodwyn.tasks.store import Store
from test_import_cline import PAGER, request, say
from test_import_following import eventually, found, nodwyn

TASK = "1700000000000"
SESSION = "c0ffee00-0000-4000-8000-00000000000c"


def cline_file(home: Path) -> Path:
    return (home / ".config" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
            / "tasks" / TASK / "ui_messages.json")  # fmt: skip


def continue_file(home: Path) -> Path:
    return home / ".continue" / "sessions" / f"{SESSION}.json"


def write(path: Path, value, at: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    os.utime(path, (at, at))


def session(*words: str) -> dict:
    history = [item for said in words for item in (
        {"message": {"role": "user", "content": said, "id": f"u-{said}"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "Done.", "id": f"a-{said}"}})]  # fmt: skip
    return {"sessionId": SESSION, "title": "Pager", "workspaceDirectory": "file:///home/ana/pager",
            "history": history}  # fmt: skip


@pytest.fixture
def homes(agents_home, tmp_path, monkeypatch) -> Path:
    """Each agent's own folder where this OS has it, in a home folder of the test's own."""
    home = agents_home
    monkeypatch.setenv("HOME", str(home))
    for moved in ("VSCODE_APPDATA", "CLINE_DIR", "CONTINUE_GLOBAL_DIR"):
        monkeypatch.delenv(moved, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    write(cline_file(home), PAGER, 1_600_000_000)
    write(continue_file(home), session("Fix the pager"), 1_600_000_000)
    return home


def test_each_agent_s_default_folders_are_where_this_os_keeps_them(homes):
    assert registry.get("cline").roots() == [
        cline_file(homes).parents[1],
        homes / ".cline" / "data" / "tasks",
    ]
    assert registry.get("continue").roots() == [homes / ".continue" / "sessions"]


def test_the_worker_follows_them_and_a_file_rewritten_adds_no_record_twice(homes, data_dir):
    worker = Worker(Store(data_dir), Status(), interval=0.2)
    worker.start()
    try:
        assert worker.wait_for_pass(0, timeout=30)
        tools = sorted(task.origin for task in worker.store.list(archived=None))
        assert tools == ["cline", "continue"]
        lines = worker.store.log_path("cl-" + TASK).read_bytes().count(b"\n")
        more = [say(1700000020000, "user_feedback", "Now the quokka"), request(1700000021000),
                say(1700000022000, "text", "The quokka is fixed.")]  # fmt: skip
        write(cline_file(homes), PAGER + more, time.time() - 600)  # written, then quiet
        write(continue_file(homes), session("Fix the pager", "Port the wombat"), time.time() - 600)
        assert eventually(lambda: found(worker.store, "quokka"), timeout=10)
        assert eventually(lambda: found(worker.store, "wombat"), timeout=10)
        after = worker.store.log_path("cl-" + TASK).read_bytes().count(b"\n")
        assert after == lines + 3  # the person's words, the reply, the turn's end
    finally:
        worker.stop(timeout=30)


def test_import_from_the_default_folders_of_each(homes):
    for name in ("cline", "continue"):
        nodwyn("import", name)
    listed = {
        name: json.loads(nodwyn("sessions", "--agent", name, "--json").stdout)
        for name in ("cline", "continue")
    }
    assert [t["id"] for t in listed["cline"]] == ["cl-" + TASK]
    assert [(t["id"], t["project"]) for t in listed["continue"]] == [
        ("cn-" + SESSION, "/home/ana/pager")
    ]
