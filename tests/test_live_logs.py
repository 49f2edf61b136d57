"""Without hooks, what a live session's own log says: a Claude Code turn that ended, a question
or a plan waiting for its answer, a call long without its result; a Codex turn completed or
aborted. Sources written here in each agent's format, imported, then read from their end."""

import json

import pytest
from corpus_writers import Codex
from importing import env, prompt, reply, result, text, use, write
from nodwyn.importers.sync import import_paths
from nodwyn.live import logs
from nodwyn.live.board import Board
from nodwyn.live.events import Line
from nodwyn.tasks.store import Store

WROTE = 1_777_629_603.0  # 2026-05-01T10:00:03Z, the hand-written lines' time
CODEX_ID = "019a0000-0000-7000-8000-0000000000c0"


@pytest.fixture
def store(data_dir) -> Store:
    return Store(data_dir)


def claude(store: Store, tmp_path, *ending: dict) -> str:
    lines = [prompt("u1", None, 1, "Tidy the build"), *ending]
    path = write(tmp_path / "claude" / "s.jsonl", lines)
    (task,) = import_paths(store, "claude", [path]).created
    return task


def state(store: Store, task: str, now: float = WROTE + 5) -> tuple[str, str] | None:
    said = logs.said(store, task, now=now)
    return None if said is None else (said.state, said.what)


def test_a_claude_question_with_no_answer_yet_needs_an_answer(store, tmp_path):
    ask = use("c1", "AskUserQuestion", questions=[{"question": "Keep the old flag?"}])
    task = claude(store, tmp_path, reply("u2", "u1", 2, "m1", [ask]))
    assert state(store, task) == ("needs an answer", "Keep the old flag?")


def test_a_plan_waiting_for_approval_needs_an_answer_and_its_answer_makes_it_run(store, tmp_path):
    plan = reply("u2", "u1", 2, "m1", [use("c1", "ExitPlanMode", plan="1. clean\n2. build")])
    task = claude(store, tmp_path, plan)
    assert state(store, task) == ("needs an answer", "approve the plan")
    task = claude(Store(tmp_path / "again"), tmp_path, plan, result("u3", "u2", 3, "c1", "ok"))
    assert state(Store(tmp_path / "again"), task) == ("running", "")


def test_a_call_long_without_its_result_is_waiting_or_running(store, tmp_path):
    task = claude(store, tmp_path, reply("u2", "u1", 2, "m1", [use("c1", "Bash", command="make")]))
    assert state(store, task, now=WROTE + 5) == ("running", "")
    assert state(store, task, now=WROTE + logs.LONG + 5) == ("waiting or running", "Bash: make")


def test_a_claude_turn_that_ended_is_your_turn(store, tmp_path):
    done = env("u3", "u2", 4, type="system", subtype="turn_duration", durationMs=3000)
    task = claude(store, tmp_path, reply("u2", "u1", 2, "m1", [text("Done.")]), done)
    assert state(store, task) == ("your turn", "")


def codex(store: Store, tmp_path, finish) -> str:
    rollout = Codex("2026-05-01")
    rollout.add("session_meta", {"id": CODEX_ID, "timestamp": "2026-05-01T15:00:00Z",
                                 "cwd": "/home/ana/app", "originator": "codex_cli_rs",
                                 "cli_version": "0.63.0"})  # fmt: skip
    rollout.prompt("t1", "Run the tests", "gpt-5-codex", first=True)
    finish(rollout)
    path = tmp_path / "codex" / f"rollout-2026-05-01T15-00-00-{CODEX_ID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in rollout.lines))
    (task,) = import_paths(store, "codex", [path]).created
    return task


@pytest.mark.parametrize(
    ("finish", "said"),
    [
        (lambda c: c.event("task_complete", turn_id="t1"), ("your turn", "")),
        (lambda c: c.event("turn_aborted", reason="interrupted"),
         ("your turn", "the turn was interrupted")),
        (lambda c: c.item("function_call", name="shell", arguments=json.dumps(
            {"command": ["cargo", "test"]}), call_id="k1"), ("waiting or running", "shell")),
    ],
)  # fmt: skip
def test_a_codex_turn_completed_aborted_or_waiting(store, tmp_path, finish, said):
    task = codex(store, tmp_path, finish)
    assert state(store, task, now=WROTE + 86400) == said


def test_a_hook_s_state_wins_over_the_log_s(store, tmp_path):
    ask = use("c1", "AskUserQuestion", questions=[{"question": "Keep the old flag?"}])
    task = claude(store, tmp_path, reply("u2", "u1", 2, "m1", [ask]))
    board = Board(store)
    assert logs.states(store, board) == []  # written long ago: not running, not read
    board.note(Line(agent="claude", payload={"session_id": task[3:], "hook_event_name": "Stop"}))
    assert [(s.task, s.state, s.source) for s in logs.states(store, board)] == [
        (task, "your turn", "hook")
    ]


def test_the_worker_tells_of_a_live_source_that_changed_while_its_log_did_not(
    data_dir, tmp_path, monkeypatch
):
    """The question's reply is held back while Claude Code writes (the log stays as it was),
    but the log-read state changed: the worker names the task, so pages read the list again."""
    from nodwyn.background.feed import Status
    from nodwyn.background.worker import Worker
    from test_worker import eventually

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    source = tmp_path / "claude" / "projects" / "-home-ana-pager" / "s.jsonl"
    write(source, [prompt("u1", None, 1, "Tidy the build")])
    told: list[str] = []
    worker = Worker(Store(data_dir), Status(), interval=0.2, told=told.extend)
    worker.start()
    try:
        task = eventually(
            lambda: next(iter(t.id for t in worker.store.list(archived=None)), None), 30
        )
        before = worker.store.log_path(task).read_bytes()
        ask = use("c1", "AskUserQuestion", questions=[{"question": "Keep the old flag?"}])
        passes = worker.passes
        write(source, [prompt("u1", None, 1, "Tidy the build"), reply("u2", "u1", 2, "m1", [ask])])
        worker.wake()
        assert worker.wait_for_pass(passes, timeout=30)
        assert eventually(lambda: task in told, 30)
        assert worker.store.log_path(task).read_bytes() == before  # held back while live
        assert state(worker.store, task) == ("needs an answer", "Keep the old flag?")
    finally:
        worker.stop(timeout=30)
