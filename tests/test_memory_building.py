"""A build with the fold helper process gives the same memory as a build in one process:
the same `.mem` bytes, the same documents in the index and the same ranking; a helper that
cannot fold leaves its logs to this process, and nothing is lost. So does a build that finds
the compounds of many events at once (tokens.compounds_of) against one event by one."""

import os
import shutil
from pathlib import Path

import msgspec
import pytest
import tantivy
from memory_logs import at, turn, write
from nodwyn.log import records as r
from nodwyn.memory.cards import mem
from nodwyn.memory.words import documents as folding
from nodwyn.memory.words import index, sidecar, tokens
from nodwyn.memory.words.adding import Adding
from nodwyn.memory.words.search import Where
from nodwyn.memory.words.search import search as word_search
from nodwyn.tasks.store import Store

QUERIES = ["pager", "config order", "TestPagerOrder retry", "wombat", "kangaroo 42"]
LOGS = 16


def task_items(number: int) -> list:
    """A log with every kind the index reads: messages, calls and results, plans, errors,
    compactions, a resume, a turn left under way."""
    items = turn(f"Fix the flaky TestPagerOrder number {number}", reply="pager order fixed")
    for step in range(number % 4 + 1):
        items += [
            r.Message(text=f"tidy parse_config.py and kangaroo {step}", at=at(10 + step)),
            r.Reply(
                text="running the tests",
                calls=[
                    r.Call(id=f"c{step}", tool="Bash", input={"command": f"pytest -k config{step}"})
                ],
            ),  # fmt: skip
            r.Result(call=f"c{step}", tool="Bash", output=f"wombat {number} failed", exit=1),
            r.Plan(items=[r.PlanItem(text="retry the pager", status="done")]),
            r.Error(text=f"HTTPServer error {step}"),
            r.TurnEnd(status="failed" if step % 2 else "completed"),
        ]
    items += [r.ContextCompact(note="pager and config work"), r.SessionResume()]
    return items + turn(f"order {number} again", end=None, t0=40)


def logs(root, count: int) -> Store:
    store = Store(root)
    for number in range(count):
        write(store, f"T{number:02d}", task_items(number), project=f"/work/p{number % 3}")
    return store


def documents(store: Store) -> list:
    state = index.load_state(store.root)
    searcher = index.open_index(store.root, state).searcher()
    found = searcher.search(tantivy.Query.all_query(), limit=max(1, searcher.num_docs))
    return sorted(
        tuple(sorted(searcher.doc(address).to_dict().items())) for _, address in found.hits
    )


def built(tmp_path, name: str, source: Store) -> Store:
    store = Store(tmp_path / name)
    for log in source.sessions.glob("*.jsonl"):
        shutil.copy(log, store.sessions / log.name)
    index.refresh(store)
    return store


def ranking(store: Store) -> list:
    """Every matching turn with its score (best first; turns of equal score, which tantivy
    returns in the order of their documents, in task order)."""
    out = []
    for query in QUERIES:
        turns = word_search(store, query, Where(limit=200)).turns
        assert sum(len(hit.events) for hit in turns) < 200, "no turn left out"
        out.append(sorted((-round(hit.score, 4), hit.task, hit.first_seq,
                           [e.seq for e in hit.events]) for hit in turns))  # fmt: skip
    return out


def saved(log) -> mem.Mem:
    """A .mem as read back, but for the id of the index it went into (new per build) and
    how many frames it took to write (one per refresh)."""
    found = mem.load(log)
    assert found.frames and found.mark.end == log.stat().st_size
    mark = msgspec.structs.replace(found.mark, index="")
    return msgspec.structs.replace(found, mark=mark, frames=0)


def assert_same(one: Store, other: Store) -> None:
    for log in one.sessions.glob("*.jsonl"):
        assert saved(log) == saved(other.sessions / log.name)
    assert documents(one) == documents(other)
    assert ranking(one) == ranking(other)
    assert seen(one) == seen(other)
    assert all(project for _, _, project, _, _ in seen(one).values()), "projects were listed"


def seen(store: Store) -> dict:
    """What the index's state knows of each task, but the log's mtime (each copy has its own)."""
    tasks = index.load_state(store.root).tasks
    return {task: (s.size, s.problems, s.project, s.title, s.archived) for task, s in tasks.items()}


@pytest.fixture
def source(tmp_path) -> Store:
    return logs(tmp_path / "source", LOGS)


def test_a_build_with_the_fold_helper_equals_a_build_in_one_process(source, tmp_path, monkeypatch):
    monkeypatch.setattr(index, "HELP_FROM", 1 << 62)
    alone = built(tmp_path, "alone", source)
    assert index.last_build == {"logs": LOGS, "helped": 0}
    monkeypatch.setattr(index, "HELP_FROM", 0)
    helped = built(tmp_path, "helped", source)
    assert index.last_build["logs"] == LOGS  # how many the helper took depends on timing
    assert len(documents(helped)) > LOGS * 10
    assert_same(alone, helped)


def test_a_build_that_finds_compounds_many_events_at_once_equals_one_event_by_one(
    source, tmp_path, monkeypatch
):
    monkeypatch.setattr(index, "HELP_FROM", 1 << 62)
    monkeypatch.setattr(tokens, "MANY", 1 << 62)  # each event's compounds by the regex
    one_by_one = built(tmp_path, "one-by-one", source)
    monkeypatch.setattr(tokens, "MANY", 0)  # every batch by numpy's whole-array steps
    monkeypatch.setattr(index, "AT_ONCE_FROM", 0)
    monkeypatch.setattr(folding, "WAITING", 300)  # several batches in each log
    at_once = built(tmp_path, "at-once", source)
    assert_same(at_once, one_by_one)  # the ranking too, which the parts field weighs in


def test_logs_that_grow_after_a_helped_build_fold_on_as_after_any_build(
    source, tmp_path, monkeypatch
):
    monkeypatch.setattr(index, "HELP_FROM", 0)
    helped = built(tmp_path, "helped", source)
    monkeypatch.setattr(index, "HELP_FROM", 1 << 62)
    for store in (source, helped):
        write(store, "T03", turn("one more wombat turn", t0=50))
        index.refresh(store)
    assert index.last_build == {"logs": 1, "helped": 0}
    assert_same(source, built(tmp_path, "again", source))
    assert_same(helped, built(tmp_path, "again2", helped))


def test_a_helper_that_cannot_fold_leaves_its_logs_to_this_process(source, tmp_path, monkeypatch):
    monkeypatch.setattr(index, "HELP_FROM", 1 << 62)
    alone = built(tmp_path, "alone", source)
    monkeypatch.setattr(index, "HELP_FROM", 0)
    monkeypatch.setattr(sidecar, "CHILD", "import sys; sys.stdin.buffer.read(6); sys.exit(3)")
    broken = built(tmp_path, "broken", source)
    assert index.last_build == {"logs": LOGS, "helped": 0}
    assert_same(alone, broken)


def test_a_log_bigger_than_the_helper_takes_is_folded_here(source, tmp_path, monkeypatch):
    monkeypatch.setattr(index, "HELP_FROM", 0)
    monkeypatch.setattr(sidecar, "HELPER_LOG", 0)
    built(tmp_path, "big", source)
    assert index.last_build == {"logs": LOGS, "helped": 0}


def test_the_helper_folds_every_log_it_is_given_as_this_process_would(source):
    state = index.current(source.root)
    jobs = [index.job_of(state, log.stem, log, log.stat().st_size)
            for log in sorted(source.sessions.glob("*.jsonl"))]  # fmt: skip
    helper = sidecar.Helper(sidecar.Shared(jobs))
    try:
        folded = list(helper.rest())
    finally:
        helper.stop()
    assert sorted(job.task for job, _ in folded) == [job.task for job in jobs]
    for job, taken in folded:
        assert taken == index.fold(job)
        assert taken.rows and not taken.gone


class Stop(Exception):
    pass


def children() -> set[str]:
    """This process's child processes (Linux lists them per thread; a thread may end while
    they are read, its children going to another thread)."""
    found: set[str] = set()
    for _ in range(5):
        try:
            for task in Path(f"/proc/{os.getpid()}/task").iterdir():
                found.update((task / "children").read_text().split())
            return found
        except FileNotFoundError:
            found.clear()
    raise AssertionError("threads kept ending while their children were read")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")
def test_a_build_stopped_early_ends_its_helper_and_the_next_refresh_finishes_it(
    source, tmp_path, monkeypatch
):
    monkeypatch.setattr(index, "HELP_FROM", 1 << 62)
    alone = built(tmp_path, "alone", source)
    monkeypatch.setattr(index, "HELP_FROM", 0)
    store = Store(tmp_path / "stopped")
    for log in source.sessions.glob("*.jsonl"):
        shutil.copy(log, store.sessions / log.name)
    before = children()

    def progress(done: int, total: int) -> None:
        if done == 3:
            raise Stop

    with pytest.raises(Stop):
        index.refresh(store, progress)
    assert children() == before, "the helper process was ended and waited for"
    index.refresh(store)
    assert_same(alone, store)


def test_a_log_too_big_for_the_helper_does_not_keep_it_from_the_others(source):
    state = index.current(source.root)
    jobs = [index.job_of(state, log.stem, log, log.stat().st_size)
            for log in sorted(source.sessions.glob("*.jsonl"))]  # fmt: skip
    big = msgspec.structs.replace(jobs[-1], unread=sidecar.HELPER_LOG + 1)
    shared = sidecar.Shared([*jobs[:-1], big])
    assert shared.back() == jobs[-2]  # the helper takes the small logs
    assert shared.front() == big  # this process, the big one


def test_a_build_in_many_commits_keeps_each_task_as_the_task_list_shows_it(tmp_path, monkeypatch):
    """Each commit reads the list's entries of its own tasks alone: after a helped build of
    more logs than one commit holds, every task's project, title and archive flag in the
    index's state are the task list's, a renamed and an archived task's too."""
    store = logs(tmp_path / "many", 80)
    store.rename("T07", "the wombat migration")
    store.close("T11")
    store.archive("T11")
    store.list(archived=None)  # the catalogue is current, as an import leaves it
    monkeypatch.setattr(index, "BATCH", 100)  # a commit every few logs
    monkeypatch.setattr(index, "HELP_FROM", 0)
    index.refresh(store)
    listed = {info.id: info for info in store.list(archived=None)}
    state = index.load_state(store.root)
    assert set(state.tasks) == set(listed)
    for task, seen in state.tasks.items():
        info = listed[task]
        kept = (seen.project, seen.title, seen.archived, seen.closes, seen.ran_on)
        assert kept == (info.project, info.title, info.archived, info.closes, info.ran_on)
    assert state.tasks["T07"].title == "the wombat migration"
    assert state.tasks["T11"].archived


def test_the_helpers_documents_are_let_go_of_once_added(source):
    """What waits for a commit of a helped build is a log's .mem state, not its documents."""
    state = index.current(source.root)
    log = source.sessions / "T05.jsonl"
    job = index.job_of(state, "T05", log, log.stat().st_size)
    taken = index.fold(job)
    rows = len(taken.rows)
    writer = index.open_index(source.root, state).writer(*index.WRITER)
    try:
        adding = Adding(index.open_index(source.root, state), writer, index.SCHEMA)
        assert adding.put(taken, job.log) == rows > 0
        assert taken.rows == []
    finally:
        writer.rollback()
