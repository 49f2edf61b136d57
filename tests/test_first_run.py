"""First run and Settings > Search through the real API server (over HTTP, with the token).

Where nodwyn looked for the agents' sessions, "Import a folder…" with its progress, and the
settings the page changes; the worker honours them at its next pass.
"""

import http.client
import json

import pytest
from nodwyn import settings
from nodwyn.api import Server, Status
from nodwyn.background.worker import Worker
from nodwyn.importers import agents
from nodwyn.tasks.store import Store
from test_worker import ClaudeSession, eventually, found


@pytest.fixture
def agent_dirs(tmp_path, monkeypatch):
    home = tmp_path / "agents"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / "codex"))
    return home


@pytest.fixture
def server(data_dir, agent_dirs):
    server = Server(Store(data_dir), status=Status()).start()
    yield server
    server.stop()


def call(server, method: str, path: str, body=None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    data = None if body is None else json.dumps(body).encode()
    conn.request(method, path, body=data, headers={"X-Nodwyn-Token": server.token})
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    return response.status, answer


def test_with_no_agent_folders_the_page_hears_where_nodwyn_looked(server, agent_dirs):
    status, answer = call(server, "GET", "/api/places")
    assert status == 200
    assert {(p["tool"], p["exists"], p["followed"]) for p in answer["places"]} == {
        ("claude", False, True),
        ("codex", False, True),
        ("gemini", False, False),  # followed once its folder exists (unless switched off)
        ("copilot", False, False),
        ("opencode", False, False),
        ("aider", False, False),
        ("antigravity", False, False),
        ("cursor", False, False),
        ("pi", False, False),
        ("qwen", False, False),
        ("crush", False, False),
        ("cline", False, False),
        ("roo", False, False),
        ("kilo", False, False),
        ("continue", False, False),
    }
    paths = {p["path"] for p in answer["places"] if p["tool"] in ("claude", "codex")}
    assert paths == {
        str(agent_dirs / "claude" / "projects"),
        str(agent_dirs / "codex" / "sessions"),
        str(agent_dirs / "codex" / "archived_sessions"),
    }


def test_with_claude_sessions_the_first_pass_imports_them_with_progress(server, agent_dirs):
    ClaudeSession(agent_dirs).turn("Make the walrus parser strict", "Done.")
    seen = []
    status = server.status
    status.subscribe(lambda: seen.append(status.snapshot()))
    worker = Worker(server.store, status, interval=0.2)
    worker.start()
    try:
        assert worker.wait_for_pass(0, timeout=30)
    finally:
        worker.stop(timeout=30)
    assert ("importing", 0, 1) in [(p.phase, p.done, p.total) for p in seen]
    assert status.snapshot().phase == ""
    _, answer = call(server, "GET", "/api/places")
    assert [p["exists"] for p in answer["places"] if p["tool"] == "claude"] == [True]
    assert found(server.store, "walrus")


def test_import_a_folder_imports_it_in_the_background(server, tmp_path):
    elsewhere = tmp_path / "copied-sessions"
    session = ClaudeSession(tmp_path / "unused")
    session.turn("Teach the heron scheduler about holidays", "Taught.")
    elsewhere.mkdir()
    session.path.rename(elsewhere / session.path.name)
    status, answer = call(server, "POST", "/api/import", {"tool": "claude", "path": str(elsewhere)})
    assert (status, answer) == (200, {"files": 1, "ok": True})
    assert eventually(lambda: found(server.store, "heron"), timeout=10)
    assert eventually(lambda: server.status.snapshot().phase == "", timeout=10)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"tool": "claude", "path": "/no/such/folder"}, "there is no file or folder"),
        ({"tool": "windsurf", "path": "/tmp"}, "not 'windsurf'"),
        ({"tool": "claude", "path": ""}, "full path"),
    ],
)
def test_import_a_folder_says_what_is_wrong(server, body, says):
    status, answer = call(server, "POST", "/api/import", body)
    assert status == 400 and answer["ok"] is False and says in answer["error"]


def test_an_empty_folder_is_refused_with_a_reason(server, tmp_path):
    status, answer = call(server, "POST", "/api/import", {"tool": "codex", "path": str(tmp_path)})
    assert status == 400 and "no Codex session files" in answer["error"]


def test_settings_are_read_and_changed_from_the_page(server, data_dir):
    status, shown = call(server, "GET", "/api/settings")
    assert status == 200
    assert shown["follow_claude"] is True and shown["show_machine_runs"] is False
    status, changed = call(server, "POST", "/api/settings", {"follow_codex": False})
    assert status == 200 and changed["follow_codex"] is False and changed["follow_claude"]
    assert settings.load(data_dir).follow_codex is False
    assert call(server, "POST", "/api/settings", {"colour": "red"})[0] == 400


def test_an_agent_turned_off_from_the_page_is_no_longer_followed(server, agent_dirs):
    worker = Worker(server.store, server.status, interval=0.2)
    worker.start()
    try:
        assert worker.wait_for_pass(0, timeout=30)
        call(server, "POST", "/api/settings", {"follow_claude": False})
        passes = worker.passes
        assert worker.wait_for_pass(passes, timeout=10)
        ClaudeSession(agent_dirs).turn("Sketch the ibis importer", "Sketched.")
        passes = worker.passes
        worker.wake()
        assert worker.wait_for_pass(passes + 1, timeout=10)  # two whole passes since
        assert server.store.list(archived=None) == []
        _, answer = call(server, "GET", "/api/places")
        assert not any(p["followed"] for p in answer["places"] if p["tool"] == "claude")
    finally:
        worker.stop(timeout=30)
    assert agents.followed(server.store.root) == ["codex"]


def test_while_the_worker_imports_a_search_answers_from_what_is_indexed(server, agent_dirs):
    ClaudeSession(agent_dirs).turn("Name the puffin queue", "Named.")
    worker = Worker(server.store, server.status, interval=3600)
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    worker.stop(timeout=30)
    later = ClaudeSession(agent_dirs).turn("Drain the puffin backlog", "Drained.")
    agents.import_file(server.store, "claude", later.path)  # imported, not yet folded
    server.status.set("importing", 1, 2)
    _, busy = call(server, "GET", "/api/search?q=puffin&scope=all")
    assert busy["mode"] == "words" and len({t["task"] for t in busy["turns"]}) == 1
    server.status.set("", 0, 0)
    _, idle = call(server, "GET", "/api/search?q=puffin&scope=all")
    assert len({t["task"] for t in idle["turns"]}) == 2


def test_the_page_follows_an_agent_or_not_and_hears_it_in_places(server, agents_home):
    (agents_home / ".gemini" / "tmp").mkdir(parents=True)  # GEMINI_CLI_HOME: tests/conftest.py

    def followed():
        return {p["tool"]: p["followed"] for p in call(server, "GET", "/api/places")[1]["places"]}

    assert followed()["gemini"] and not followed()["copilot"]  # on where its folder exists
    status, shown = call(server, "POST", "/api/settings", {"follow": {"gemini": False}})
    assert status == 200 and shown["follow"] == {"gemini": False}
    assert not followed()["gemini"]
    status, answer = call(server, "POST", "/api/settings", {"follow": {"notepad": True}})
    assert status == 400 and "no agent named notepad" in answer["error"]
    places = call(server, "GET", "/api/places")[1]["places"]
    labels = {p["tool"]: (p["label"], p["origin"]) for p in places}
    assert labels["gemini"] == ("Gemini CLI", "gemini-cli")
    assert labels["antigravity"] == ("Antigravity", "antigravity")
