"""The word index away from the app's own process: nothing the app imports at its start imports
tantivy, and in the app and `nodwyn serve` the index is refreshed by a child process that ends
once unused (index_process.py), whose index a search then reads."""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from corpora import FIXTURES
from memory_logs import turn, write
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.memory import index_process
from nodwyn.memory.words import index
from nodwyn.memory.words.search import hits
from nodwyn.tasks.store import Store
from test_worker import ClaudeSession

AT_START = """
import json, sys
import nodwyn.cli, nodwyn.desktop, nodwyn.desktop.app, nodwyn.api.routes, nodwyn.api.server
import nodwyn.background.worker, nodwyn.memory, nodwyn.memory.readback
print(json.dumps({"tantivy": "tantivy" in sys.modules}))
"""


def test_nothing_the_app_imports_at_its_start_imports_tantivy():
    done = subprocess.run([sys.executable, "-c", AT_START], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"tantivy": False}


DEADLINE = 60.0  # seconds a child is given to do what is waited for
WORDS = ["todo", "pager", "zebrafish", "windows", "heater"]


@pytest.fixture
def store(data_dir, finished) -> Store:
    """A data folder holding the fixture corpus's Claude and Codex logs, imported."""
    made = Store(data_dir)
    for agent in ("claude", "codex"):
        report = import_paths(made, agent, [finished(FIXTURES) / agent])
        assert report.created
    return made


@pytest.fixture
def kept(monkeypatch):
    """This process refreshing in a child, as the app does; its children ended after."""
    monkeypatch.setattr(index_process, "_kept", [False])
    monkeypatch.setattr(index_process, "_children", {})
    index_process.keep_in_a_child()
    yield
    for child in index_process._children.values():
        child.stop()


def found(store: Store, state) -> dict[str, list]:
    """Each word's hits (task, seq, score) in the index of `state`, read in this process."""
    return {
        word: [
            (hit.task, hit.seq, round(hit.score, 4)) for hit in hits(store, state, word, None, 50)
        ]
        for word in WORDS
    }


def clean_build(store: Store, into: Path) -> dict[str, list]:
    """The hits of an index built here, in one go, over a copy of the data folder's logs."""
    copy = Store(into)
    copy.sessions.mkdir(parents=True, exist_ok=True)
    for log in store.sessions.glob("*.jsonl"):
        shutil.copyfile(log, copy.sessions / log.name)
    return found(copy, index.refresh(copy, full=True))


def test_the_child_refreshes_a_data_folder_and_a_search_here_finds_what_it_indexed(
    store, kept, tmp_path
):
    told = []
    memory.refresh_words(store, lambda done, total: told.append((done, total)), full=True)
    child = index_process._children[store.root]
    assert child.pid is not None and child.starts == 1
    assert told and told[-1][0] == told[-1][1] == len(list(store.sessions.glob("*.jsonl")))
    assert all(log.with_suffix(".mem").exists() for log in store.sessions.glob("*.jsonl"))
    state = index_process.refreshed(store)  # nothing changed: the child is not asked again
    assert len(state.tasks) == len(told)
    assert found(store, state) == clean_build(store, tmp_path / "clean")
    assert found(store, state)["todo"]
    write(store, "new", turn("the zebrafish aquarium heater"))
    fused = memory.search(store, "zebrafish heater", mode="words")  # the search's own refresh
    assert [turn.task for turn in fused.turns] == ["new"]
    assert child.starts == 1  # the same child refreshed for the search


def test_the_child_ends_after_its_keep_alive_and_the_next_refresh_starts_another(store):
    child = index_process.Child(store.root, wait=0.5)
    try:
        child.refresh(index_process.WORDS, True)
        process = child.process
        assert process.wait(DEADLINE) == 0  # ended by itself once unused
        assert child.pid is None
        write(store, "new", turn("the zebrafish aquarium heater"))
        state = child.refresh(index_process.INDEX, False)
        assert child.starts == 2 and "new" in state.tasks
        assert [hit.task for hit in hits(store, state, "zebrafish", None, 5)] == ["new"]
    finally:
        child.stop()


def test_the_child_ends_at_the_end_of_its_stdin():
    child = subprocess.Popen([*index_process.child_command(), "unused"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)  # fmt: skip
    child.stdin.close()
    assert child.wait(DEADLINE) == 0


def test_a_child_killed_mid_refresh_leaves_an_index_the_next_refresh_completes_once(
    store, tmp_path
):
    for number in range(120):  # enough logs that a refresh is still folding when killed
        write(store, f"t{number:03d}", turn(f"the pager sorts by time, note {number}"))
    child = index_process.Child(store.root, wait=-1)
    try:
        child.refresh(index_process.WORDS, True)
        for number in range(120):
            write(store, f"t{number:03d}", turn(f"a zebrafish heater, log {number}", t0=10))

        def kill(done: int, total: int) -> None:
            if child.pid is not None:
                os.kill(child.pid, signal.SIGKILL)

        with pytest.raises(index_process.Gone):
            child.refresh(index_process.WORDS, False, kill)
        assert child.pid is None
        state = child.refresh(index_process.WORDS, False)
        assert child.starts == 2
        assert found(store, state) == clean_build(store, tmp_path / "clean")
        assert len(found(store, state)["zebrafish"]) == 50  # every log's new turn, once
    finally:
        child.stop()


def test_a_child_that_cannot_start_is_a_clear_error_and_a_search_refreshes_here(
    store, kept, monkeypatch
):
    monkeypatch.setattr(index_process, "child_command", lambda: [str(store.root / "none")])
    with pytest.raises(index_process.Gone, match="could not be started"):
        memory.refresh_words(store, full=True)
    fused = memory.search(store, "todo", mode="words")
    assert fused.turns  # refreshed in this process instead


THE_APP = """
import json, sys
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.memory import index_process
from nodwyn.memory.meaning import encoder
from nodwyn.tasks.store import Store
encoder.keep_in_a_child()  # as the app does
index_process.keep_in_a_child()
worker = Worker(Store(sys.argv[1]), Status(), interval=0.2, watch=False)
worker.start()
passed = worker.wait_for_pass(0, 90)
after = "tantivy" in sys.modules
child = index_process._children[Store(sys.argv[1]).root]
from nodwyn import memory
turns = memory.search(Store(sys.argv[1]), "zebrafish", mode="words").turns
print(json.dumps({"passed": passed, "tantivy_after_the_pass": after, "starts": child.starts,
                  "found": [turn.task for turn in turns]}))
worker.stop(timeout=30)
"""


def test_the_apps_worker_indexes_in_the_child_and_never_imports_tantivy(
    tmp_path, data_dir, monkeypatch
):
    agents = tmp_path / "agents"  # the agents' folders the app's worker follows
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(agents / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(agents / "codex"))
    ClaudeSession(agents).turn("Why does the zebrafish test flake?", "A race in the pager.")
    done = subprocess.run([sys.executable, "-c", THE_APP, str(data_dir)],
                          capture_output=True, text=True, timeout=DEADLINE * 2)  # fmt: skip
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["passed"] and said["tantivy_after_the_pass"] is False
    assert said["starts"] == 1 and len(said["found"]) == 1
