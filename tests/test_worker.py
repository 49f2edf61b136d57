"""The background worker, in-process, against agent folders of its own in tmp_path.

CLAUDE_CONFIG_DIR and CODEX_HOME point at temporary folders; the sessions in them are written
here line by line in Claude Code's format (FORMATS.md), so a test can append to one while the
worker runs, as Claude Code does.
"""

import json
import threading
import time
import uuid
from pathlib import Path

import pytest
from nodwyn import memory, settings
from nodwyn.background.feed import Feed, Status
from nodwyn.background.worker import Worker
from nodwyn.importers.agents import places
from nodwyn.importers.sync import default_paths
from nodwyn.log import locks, logfile
from nodwyn.tasks.store import Store

PROJECT = "/home/ana/src/pager"


@pytest.fixture
def agents(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "agents"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / "codex"))
    return home


class ClaudeSession:
    """One Claude Code session file, written turn by turn."""

    last_id = ""  # the id of the session made last (the window test reads it)

    def __init__(self, agents: Path, at: str = "2025-03-01T10:00:00.000Z"):
        self.id = ClaudeSession.last_id = str(uuid.uuid4())
        folder = agents / "claude" / "projects" / PROJECT.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{self.id}.jsonl"
        self.parent = None
        self.at = at

    def _line(self, kind: str, message: dict) -> dict:
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": PROJECT,
            "sessionId": self.id,
            "version": "2.1.0",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": str(uuid.uuid4()),
            "timestamp": self.at,
        }
        self.parent = record["uuid"]
        return record

    def turn(self, asked: str, answer: str) -> "ClaudeSession":
        lines = [
            self._line("user", {"role": "user", "content": asked}),
            self._line(
                "assistant",
                {
                    "id": f"msg_{uuid.uuid4().hex[:12]}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": answer}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
            ),
        ]
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in lines)
        return self


def found(store: Store, words: str) -> set[str]:
    return {hit.task for hit in memory.search(store, words).turns}


def eventually(probe, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    return probe()


@pytest.fixture
def worker(data_dir):
    worker = Worker(Store(data_dir), Status(), interval=0.2)
    yield worker
    worker.stop(timeout=30)


def test_the_first_pass_imports_the_agents_sessions_and_makes_them_searchable(agents, worker):
    ClaudeSession(agents).turn("Why does the zebrafish test flake?", "A race in the pager.")
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert len(worker.store.list(archived=None)) == 1
    assert len(found(worker.store, "zebrafish")) == 1


def test_a_session_appended_while_the_worker_runs_is_found_within_seconds(agents, worker):
    session = ClaudeSession(agents).turn("Set up the pager", "Done.")
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert not found(worker.store, "quokka")
    session.turn("Rename the quokka handler", "Renamed it to handle_quokka.")
    assert eventually(lambda: found(worker.store, "quokka"), timeout=5)


def test_a_new_session_file_is_picked_up_while_the_worker_runs(agents, worker):
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    ClaudeSession(agents).turn("Port the axolotl parser", "Ported.")
    assert eventually(lambda: found(worker.store, "axolotl"), timeout=5)


def test_a_deleted_task_stays_deleted(agents, worker):
    session = ClaudeSession(agents).turn("Tune the narwhal cache", "Tuned.")
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    (task,) = worker.store.list(archived=None)
    worker.store.delete(task.id)
    session.turn("And the narwhal eviction too", "Done.")
    passes = worker.passes
    assert worker.wait_for_pass(passes + 1, timeout=10)  # two passes: one saw the change
    assert not worker.store.exists(task.id)
    assert not found(worker.store, "narwhal")


def test_an_agent_turned_off_in_settings_is_not_followed(agents, data_dir, worker):
    settings.update(data_dir, follow_claude=False)
    ClaudeSession(agents).turn("Fix the ocelot build", "Fixed.")
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert worker.store.list(archived=None) == []
    settings.update(data_dir, follow_claude=True)
    assert eventually(lambda: found(worker.store, "ocelot"), timeout=5)


def test_a_paused_worker_imports_nothing_until_it_resumes(agents, worker):
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    worker.pause()
    assert worker.status.snapshot().phase == "paused"
    assert worker.wait_for_round(worker.rounds, timeout=10)  # a pass under way has ended
    passes = worker.passes
    ClaudeSession(agents).turn("Sort the pangolin list", "Sorted.")
    rounds = worker.rounds
    assert worker.wait_for_round(rounds + 1, timeout=10)  # it came round twice since, paused
    assert worker.passes == passes and worker.store.list(archived=None) == []
    worker.resume()
    assert eventually(lambda: found(worker.store, "pangolin"), timeout=5)


def test_places_say_where_the_worker_looks_and_what_exists(agents, data_dir):
    ClaudeSession(agents).turn("hello", "hi")
    seen = {(p.agent, Path(p.path).name): p for p in places(data_dir).places}
    assert seen["claude", "projects"].exists and seen["claude", "projects"].followed
    assert not seen["codex", "sessions"].exists
    assert set(seen) == {
        ("claude", "projects"),
        ("codex", "sessions"),
        ("codex", "archived_sessions"),
        ("gemini", "tmp"),
        ("copilot", "session-state"),
        ("antigravity", "brain"),  # the IDE's and the agy CLI's
        ("opencode", "opencode"),
        ("aider", ".aider.chat.history.md"),
        ("cursor", "globalStorage"),
        ("cursor", "workspaceStorage"),
        ("opencode", "kilo"),  # Kilo Code's newer releases keep an OpenCode database
        ("pi", "sessions"),
        ("qwen", "projects"),
        ("crush", "crush"),
        ("cline", "tasks"),
        ("roo", "tasks"),
        ("kilo", "tasks"),
        ("continue", "sessions"),
    }
    assert not seen["gemini", "tmp"].followed  # no folder: not followed until there is one
    assert not seen["opencode", "opencode"].followed


def test_stopping_during_an_import_leaves_every_log_whole(agents, data_dir):
    for n in range(30):
        session = ClaudeSession(agents)
        for turn in range(150):
            session.turn(f"Step {turn} of job {n}: " + "words " * 40, "ok " * 60)
    status = Status()
    worker = Worker(Store(data_dir), status, interval=0.2)

    def quit_when_under_way() -> None:  # runs in the worker's thread, as it reports progress
        if status.snapshot().phase == "importing" and status.snapshot().done >= 2:
            worker.request_stop()

    status.subscribe(quit_when_under_way)
    worker.start()
    worker._thread.join(timeout=60)  # it ends by itself once asked, between two files
    assert not worker._thread.is_alive(), "the worker did not stop"
    logs = sorted(Store(data_dir).sessions.glob("*.jsonl"))
    assert len(logs) == 3  # asked to stop as the third file began: that file, then no more
    for log in logs:
        problems: list = []
        records = list(logfile.read(log, problems=problems))
        assert problems == [], f"{log.name}: {problems}"
        assert log.read_bytes().endswith(b"\n")
        assert [record.seq for _, _, record in records] == list(range(1, len(records) + 1))
        assert not locks.is_locked(log)


def test_a_folder_imported_from_the_page_is_followed_until_the_person_stops_it(
    agents, worker, tmp_path
):
    from nodwyn import api
    from test_api import TOKEN, Client

    client = Client(api.make_app(worker.store, TOKEN))
    elsewhere = tmp_path / "elsewhere"  # not one of the agents' own folders
    session = ClaudeSession(elsewhere).turn("Set up the plover cache", "Done.")
    folder = str(session.path.parent.parent)
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert not worker.store.list(archived=None)
    answer = client.post("/api/import", {"tool": "claude", "path": folder})
    assert answer.status == 200, answer.body
    assert settings.load(worker.store.root).extra_folders == {"claude": [folder]}
    assert eventually(lambda: found(worker.store, "plover"), timeout=10)

    session.turn("Rename the quokka handler", "Renamed it.")  # appended later: followed
    later = ClaudeSession(elsewhere).turn("Teach the wombat parser", "Taught.")  # a new file
    assert eventually(lambda: found(worker.store, "quokka"), timeout=5)
    assert eventually(lambda: found(worker.store, "wombat") == {f"cc-{later.id}"}, timeout=5)

    shown = client.get("/api/settings").json["extra_folders"]
    assert shown == {"claude": [folder]}
    assert client.post("/api/settings", {"extra_folders": {"claude": []}}).status == 200
    assert settings.load(worker.store.root).extra_folders == {}
    passes = worker.passes
    session.turn("Grease the axolotl bearings", "Greased.")
    worker.wake()
    assert worker.wait_for_pass(passes + 1, timeout=10)
    assert not found(worker.store, "axolotl")  # no longer followed
    refused = client.post("/api/settings", {"extra_folders": {"claude": ["relative/path"]}})
    assert refused.status == 400


def test_a_followed_folder_that_cannot_be_read_does_not_stop_the_others(agents, data_dir, worker):
    unreadable = "/" + "x" * 5000  # its stat fails (name too long), as an unmounted share's may
    settings.update(data_dir, extra_folders={"codex": [unreadable]})
    ClaudeSession(agents).turn("Fix the ocelot build", "Fixed.")
    assert worker.run_pass()
    assert [info.title for info in worker.store.list(archived=None)] == ["Fix the ocelot build"]


def watched_agents(agents: Path) -> None:
    """Every default folder of every agent made, so each can be watched."""
    for tool in ("claude", "codex"):
        for folder in default_paths(tool):
            folder.mkdir(parents=True, exist_ok=True)


def test_an_idle_worker_whose_folders_are_watched_makes_no_pass_until_one_changes(agents, worker):
    watched_agents(agents)
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert worker.polled == []
    passes = worker.passes
    assert not worker.wait_for_pass(passes, timeout=1.5)  # the interval is 0.2 s: no polling
    ClaudeSession(agents).turn("Port the axolotl parser", "Ported.")
    assert eventually(lambda: found(worker.store, "axolotl"), timeout=10)


def test_a_missing_folder_is_polled_and_watched_once_it_exists(agents, worker):
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert worker.polled  # nothing to watch yet
    ClaudeSession(agents).turn("Port the axolotl parser", "Ported.")
    assert eventually(lambda: found(worker.store, "axolotl"), timeout=10)
    assert eventually(lambda: agents / "claude" / "projects" not in worker.polled, timeout=5)


def test_a_log_changed_behind_the_apps_back_is_noted_so_the_next_search_finds_it(agents, worker):
    watched_agents(agents)
    ClaudeSession(agents).turn("Tune the narwhal cache", "Tuned.")
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    (task,) = worker.store.list(archived=None)
    log = worker.store.log_path(task.id)
    seq = logfile.last_record(log)[1].seq + 1
    with open(log, "a", encoding="utf-8") as handle:  # a restore, an editor: not nodwyn
        handle.write(f'{{"kind":"message","seq":{seq},"at":"2026-11-29T10:09:00.000Z",'
                     '"text":"the wombat came back"}\n')  # fmt: skip
    assert eventually(lambda: found(worker.store, "wombat"), timeout=10) == {task.id}


def test_a_log_changed_behind_the_apps_back_wakes_the_watched_change_feed_at_once(data_dir):
    store = Store(data_dir)
    changes_feed = Feed(store.sessions, Status(), interval=0.05)
    worker = Worker(store, Status(), interval=0.2, noted=changes_feed.stir)
    worker.start()
    try:
        assert worker.wait_for_pass(0, timeout=30)
        assert worker.watching_the_data
        changes_feed.watched()  # from now on the feed looks only when notified
        version = changes_feed.wait(0, 0).version
        answers: list = []
        waiting = threading.Thread(target=lambda: answers.append(changes_feed.wait(version, 20)))
        began = time.monotonic()
        waiting.start()
        # an editor, a restore: the watch notes the log in the journal, which stirs the feed
        (store.sessions / "t07.jsonl").write_text('{"kind":"message","seq":0}\n')
        waiting.join(25)
        assert answers and answers[0].tasks == ["t07"]
        assert time.monotonic() - began < 10  # woken by the notification, not the wait's end
    finally:
        worker.stop(timeout=30)


def test_after_the_first_pass_the_overview_reads_no_log_again(agents, worker):
    """The worker's first pass reads every task's usage once, so the page's first overview
    (two or three reports a draw) folds no log that has not changed since."""
    from nodwyn.usage import figures as usage

    ClaudeSession(agents).turn("Why does the zebrafish test flake?", "A race in the pager.")
    ClaudeSession(agents).turn("Count the okapis", "Two.")
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    logs = {worker.store.log_path(info.id) for info in worker.store.list(archived=None)}
    assert len(logs) == 2 and logs <= usage._used.keys()
    assert usage.report(worker.store).total.turns == 2
