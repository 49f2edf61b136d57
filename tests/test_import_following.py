"""OpenCode, Aider and Cursor followed by the worker in their own folders on this OS, imported
by `nodwyn import NAME` from those folders, and listed by `nodwyn sessions --agent NAME`."""

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nodwyn import memory
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.importers import registry
from nodwyn.tasks.store import Store
from test_import_aider import write as write_aider
from test_import_cursor import COMPOSER, user_dir
from test_import_cursor import conversation as cursor_chat
from test_import_opencode import SESSION, message, text, write_db
from test_import_opencode import conversation as opencode_chat


@pytest.fixture
def homes(agents_home, tmp_path, monkeypatch) -> Path:
    """Each agent's own folder where this OS has it, in a home folder of the test's own."""
    home = agents_home
    monkeypatch.setenv("HOME", str(home))
    for moved in ("CURSOR_USER_DIR", "AIDER_CHAT_HISTORY_FILE"):
        monkeypatch.delenv(moved, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (home / ".local" / "share" / "opencode").mkdir(parents=True)
    write_db(home / ".local" / "share" / "opencode" / "opencode.db", {SESSION: opencode_chat()})
    write_aider(home / "src" / "pager")
    user_dir(home / ".config", cursor_chat())
    return home


def test_each_agent_s_default_folders_are_where_this_os_keeps_them(homes):
    share = homes / ".local" / "share"
    assert registry.get("opencode").roots() == [share / "opencode", share / "kilo"]
    for moved in ("PI_CODING_AGENT_DIR", "QWEN_HOME", "CRUSH_GLOBAL_DATA"):
        os.environ.pop(moved)  # the agents_home fixture puts them back after
    assert registry.get("pi").roots() == [homes / ".pi" / "agent" / "sessions"]
    assert registry.get("qwen").roots() == [homes / ".qwen" / "projects"]
    (share / "crush").mkdir()
    (share / "crush" / "projects.json").write_text('{"projects": [{"path": "/srv/pager"}]}')
    assert registry.get("crush").roots() == [share / "crush", Path("/srv/pager/.crush")]
    assert registry.get("aider").roots() == [homes / "src" / "pager" / ".aider.chat.history.md"]
    user = homes / ".config" / "Cursor" / "User"
    assert registry.get("cursor").roots() == [user / "globalStorage", user / "workspaceStorage"]


def found(store: Store, words: str) -> set[str]:
    return {hit.task for hit in memory.search(store, words).turns}


def eventually(probe, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := probe():
            return value
        time.sleep(0.1)
    return probe()


def test_the_worker_follows_them_and_a_database_rewritten_adds_no_record_twice(homes, data_dir):
    worker = Worker(Store(data_dir), Status(), interval=0.2)
    worker.start()
    try:
        assert worker.wait_for_pass(0, timeout=30)
        tools = sorted(task.origin for task in worker.store.list(archived=None))
        assert tools == ["aider", "aider", "cursor", "opencode"]
        log = worker.store.log_path("oc-" + SESSION)
        lines = log.read_bytes().count(b"\n")
        more = [(message("msg_003", "user", 1_785_420_009_000), [text("prt_9", "Port the quokka")])]
        db = homes / ".local" / "share" / "opencode" / "opencode.db"
        write_db(db, {SESSION: opencode_chat() + more})
        os.utime(db, (time.time(), time.time()))
        assert eventually(lambda: found(worker.store, "quokka"), timeout=10)
        assert log.read_bytes().count(b"\n") == lines + 1
    finally:
        worker.stop(timeout=30)


def nodwyn(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    return done


def test_import_from_the_default_folders_and_sessions_of_one_agent(homes):
    for name in ("opencode", "aider", "cursor"):
        nodwyn("import", name)
    listed = {
        name: json.loads(nodwyn("sessions", "--agent", name, "--json").stdout)
        for name in ("opencode", "aider", "cursor")
    }
    assert [t["id"] for t in listed["opencode"]] == ["oc-" + SESSION]
    assert [t["id"] for t in listed["cursor"]] == ["cu-" + COMPOSER]
    assert len(listed["aider"]) == 2 and {t["origin"] for t in listed["aider"]} == {"aider"}
    assert listed["cursor"][0]["project"] == "/home/ana/my pager"


def test_import_of_a_path_named_by_hand_says_what_it_refused(homes, tmp_path):
    other = tmp_path / "notes.db"
    with sqlite3.connect(other) as made:
        made.execute("create table notes (id text)")
    done = nodwyn("import", "opencode", str(other))
    assert "0 created" in done.stdout and "not an OpenCode database" in done.stdout
