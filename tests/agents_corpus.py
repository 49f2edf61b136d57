"""Helpers for the tests of the importers of issue 18 (Gemini CLI, Copilot CLI, Antigravity):
import into a store of its own, and check what every importer must do the same way."""

import os
from pathlib import Path

from importing import OLD, plain
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.memory.words.search import search
from nodwyn.tasks.store import Store


def store_in(root: Path) -> Store:
    os.environ["NODWYN_DATA_DIR"] = str(root)  # the autouse fixture puts it back after
    return Store()


def one(store: Store, agent: str, path: Path) -> str:
    report = import_paths(store, agent, [path])
    assert not report.skipped, report.skipped
    (task,) = report.created + report.extended + report.unchanged
    return task


def refused(store: Store, agent: str, path: Path) -> str:
    report = import_paths(store, agent, [path])
    assert not (report.created or report.extended or report.unchanged), report
    (skipped,) = report.skipped
    return skipped.reason


def again_changes_nothing(store: Store, agent: str, path: Path, task: str) -> None:
    before = store.log_path(task).read_bytes()
    report = import_paths(store, agent, [path])
    assert report.unchanged == [task] and not report.created and not report.extended
    store.log_path(task).with_suffix(".imp").unlink()
    import_paths(store, agent, [path])
    assert store.log_path(task).read_bytes() == before


def torn_refused_and_kept(store: Store, agent: str, path: Path) -> str:
    """A source rewritten whole, imported, then cut in half (a sync engine's half copy, long
    finished): refused in one line and its task's log kept as it was. The reason."""
    task = one(store, agent, path)
    before = store.log_path(task).read_bytes()
    text = path.read_bytes()
    path.write_bytes(text[: len(text) // 2])
    os.utime(path, (OLD, OLD))
    reason = refused(store, agent, path)
    assert "\n" not in reason and store.log_path(task).read_bytes() == before
    return reason


def halves_equal_whole(tmp_path: Path, agent: str, path: Path) -> None:
    """A live source imported at half its lines, then whole, gives the log of one import."""
    whole = path.read_bytes()
    lines = whole.split(b"\n")
    task = one(store_in(tmp_path / "once"), agent, path)
    halves = store_in(tmp_path / "halves")
    path.write_bytes(b"\n".join(lines[: len(lines) // 2]) + b"\n")  # fresh: still written
    import_paths(halves, agent, [path])
    path.write_bytes(whole)
    os.utime(path, (OLD, OLD))
    import_paths(halves, agent, [path])
    assert plain(halves, task) == plain(store_in(tmp_path / "once"), task)


def finds(store: Store, task: str, words: str) -> bool:
    return any(turn.task == task for turn in search(store, words).turns)


def shown(store: Store, task: str) -> list[dict]:
    """The events the transcript pane gets for the task's end."""
    return memory.context(store, task, None, before=500).events
