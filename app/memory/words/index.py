"""The word index of all logs: `<data>/index/`, a tantivy index with one document per event.

A document holds an event's words twice (field `words`: whole words; field `parts`: identifier
parts, see tokens.py), neither stored, plus stored keys to find the event again: task id, seq,
the first seq of its turn (0: outside any turn) and that turn's first line's offset (a hit's
card is folded from there, in proportion to the turn), the line's byte offset, and a heading.
Snippets are read from the log at that offset, so the index holds no copy of any text.

What an event contributes: a message's text, command and attachments; a reply's text and its
calls (tool name and the input's strings); a result's output (unless the person turned tool
output off); plan items; compaction notes; errors; an approval's call; the strings of an event
of unknown kind. Never a task's title (a title made every turn of a task rank alike:
foundations: task memory).

Segments and appends: one refresh is one commit, which adds one small segment holding only the
events the logs gained, so appending a turn to a huge log costs work in proportion to the turn.
tantivy's default log merge policy folds small segments together in the background (we wait for
it before letting go of the writer). How far each log was taken is its `.mem`'s mark, written
only after the commit; a task's documents the index holds past its mark (a refresh cut short
between commit and mark) are kept and only what follows them is added (adding.py), so nothing is
added twice and the ranking is a clean build's. A deleted task's documents are deleted by its
id term. `state.json` beside the index remembers each log's size and mtime, project,
title and archive flag, and how far into the change journal it got: changes.py finds the logs
to fold from the journal's notes (no per-log work when nothing changed), with a full check of
every log now and then. The index, its state and the
marks carry an id: a new or rebuilt index has a new id, so every mark older than it is void.
Only one process writes (tantivy's lock); another finding the lock taken searches what is there.

Folding a log into documents is documents.py's; a refresh with HELP_FROM bytes or more to read
(a first build) folds on two cores, logs shared with a helper process (sidecar.py) whose folds
this process adds, so it gives the same documents and `.mem` files as folding alone.
"""

import _thread
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

import tantivy

from ... import settings
from ...log import journal
from ...tasks import catalogue
from ..cards import mem as memfile
from . import changes, documents, opened, tokens
from .adding import Adding
from .documents import (  # noqa: F401 (fold, describe, heading, text_of: read as index.X)
    Job,
    Row,
    Taken,
    describe,
    fold,
    heading,
    job_of,
    rows,
    start,
    text_of,
)
from .opened import ASIDE, close_when_unused  # noqa: F401 (read as index.X)
from .state import (  # noqa: F401 (read as index.X)
    STATE,
    Seen,
    State,
    folder,
    load_state,
    save_state,
)

FORMAT = tokens.FORMAT
# tantivy's writer: (memory shared by its threads, threads). One thread, which tokenises beside
# the Python fold on the second core, with memory for a whole batch: two threads with 64 MB
# split each batch into more segments to merge, and cost more CPU for it (a first build of
# 200,000 events on one core: 5.7 s of CPU against 7.4 s; 17,616 events: 0.51 s against 0.53 s)
# and more peak memory (1,000,000 events: main process 153 MB against 270 MB).
WRITER = (200_000_000, 1)
# documents per commit during a long build. What the writer holds grows with it, and each
# commit is a segment: tantivy's log merge policy merges eight of a size, reading (mapping) all
# of them, so a first build's merges read 8 x BATCH documents until it holds 64 x BATCH
# (docs/decisions/0054-light-at-any-size.md)
BATCH = 25_000
HELP_FROM = 4 << 20  # bytes of logs to read from which a helper process folds beside this one
# bytes of logs to read from which compounds are found many events at once (tokens.compounds_of),
# when numpy is not loaded yet: its import (85 ms of CPU) is what the regex costs over ~8 MB
AT_ONCE_FROM = 16 << 20
last_build = {"logs": 0, "helped": 0}  # logs the last refresh here folded; the helper's share


def schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("words", tokenizer_name="words", index_option="freq")
    builder.add_text_field("parts", tokenizer_name="parts", index_option="freq")
    builder.add_text_field("task", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("seq", stored=True, indexed=True, fast=True)
    builder.add_unsigned_field("turn", stored=True)
    builder.add_unsigned_field("turn_at", stored=True)  # offset of the turn's first line
    builder.add_unsigned_field("offset", stored=True)
    builder.add_text_field("heading", stored=True, tokenizer_name="raw", index_option="basic")
    return builder.build()


SCHEMA = schema()


def open_index(root: Path, state: State) -> tantivy.Index:
    """The index of `state` (opened once per process and kept, or until unused for a while
    where `close_when_unused` was called; opened.py)."""
    return opened.index(folder(root), (root, state.id), SCHEMA)


def _fresh(root: Path, tool_output: bool) -> State:
    """A new empty index (any old one removed) with a new id."""
    import shutil  # here, with uuid and sidecar below: a search's start-up needs none of them
    import uuid

    shutil.rmtree(folder(root), ignore_errors=True)
    folder(root).mkdir(parents=True)
    state = State(id=uuid.uuid4().hex, tool_output=tool_output)
    open_index(root, state)
    save_state(root, state)
    return state


def current(root: Path, shared: bool = False) -> State:
    """The index's state, a new empty index when it is missing, damaged or out of date."""
    tool_output = settings.load(root).search_tool_output
    state = load_state(root, shared)
    if _usable(root, state, tool_output):
        return state
    with _making(root):
        state = load_state(root, shared)  # another thread or process may have made it meanwhile
        if _usable(root, state, tool_output):
            return state
        return _fresh(root, tool_output)


def remove(root: Path) -> None:
    """Remove the index: the next refresh builds it anew from the logs as they are now."""
    import shutil

    with _making(root):
        shutil.rmtree(folder(root), ignore_errors=True)


def _usable(root: Path, state: State | None, tool_output: bool) -> bool:
    if state is None or state.tool_output != tool_output:
        return False
    return (folder(root) / "meta.json").exists()


_making_here = _thread.allocate_lock()  # threading.Lock, without importing threading


@contextlib.contextmanager
def _making(root: Path):
    """Held while an index is made anew, by one thread of one process at a time: making one
    removes the folder, which must not happen under another maker's feet."""
    with _making_here, open(root / "index.lock", "a+b") as handle:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # retries for 10 s, then fails
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield  # the lock goes with the file's closing


_quiet: dict[Path, tuple] = {}  # data dir -> (state, journal stamp) of a look finding nothing


def refresh(store, progress: Callable[[int, int], None] | None = None, full: bool = False) -> State:
    """Bring every .mem and the index up to date with the logs; returns the index's state.
    The logs looked at are those the change journal names since the last look (none: no
    per-log work), or every log when `full` or when changes.py says a full check is due."""
    state = current(store.root, shared=True)
    stamp = journal.stamp(store.root)
    quiet = _quiet.get(store.root)
    unchanged = stamp and quiet and quiet[0] is state and quiet[1] == stamp
    if not full and unchanged and not changes.due(state, store.root):
        return state
    found = changes.find(store, state, full)
    if not found.changed and not found.gone:
        _advance(store, state, found)
        _quiet[store.root] = (state, stamp)
        return state
    state = current(store.root)  # a copy of its own to change
    helped = _worth_helping(state, found.changed)
    index = open_index(store.root, state)
    try:
        writer = index.writer(*WRITER)
    except ValueError:
        return state  # another process is writing: search what is there
    try:
        _write(store, state, Adding(index, writer, SCHEMA), found, progress, helped)
    finally:
        writer.wait_merging_threads()
    index.reload()
    return state


def _advance(store, state: State, found: changes.Found) -> None:
    """Remember, when nothing changed, how far into the journal the index got (and a full
    check), so that the next process does not look at those logs again."""
    same = (found.generation, found.offset) == (state.journal, state.journal_at)
    if same and not found.full and (folder(store.root) / STATE).exists():
        return  # (a state still in state.msgpack is saved as JSON now)
    try:
        writer = open_index(store.root, state).writer(15_000_000, 1)
    except ValueError:
        return  # another process is writing: it saves the state
    try:
        latest = load_state(store.root)
        if latest is None or latest.id != state.id or latest.tasks != state.tasks:
            return  # changed meanwhile: the next look starts from that state
        _mark(latest, found)
        save_state(store.root, latest)
    finally:
        del writer


def _mark(state: State, found: changes.Found) -> None:
    state.journal, state.journal_at = found.generation, found.offset
    if found.full:
        state.checked_ns = time.time_ns()


def _write(store, state, adding: Adding, found: changes.Found, progress, helped: bool) -> None:
    changed, writer = found.changed, adding.writer
    for task in found.gone:
        writer.delete_documents_by_term("task", task)
        del state.tasks[task]
    at_once = _at_once(state, changed)
    jobs = [job_of(state, task, store.sessions / f"{task}.jsonl", stamp.size, at_once)
            for task, stamp in sorted(changed.items())]  # fmt: skip
    pending: list[tuple[Job, Taken, changes.Stamp]] = []
    counts = {"docs": 0, "done": 0}

    def finish(job: Job, taken: Taken | None, added: int) -> None:
        counts["done"] += 1
        if taken is not None and not taken.gone:
            pending.append((job, taken, changed[job.task]))
            counts["docs"] += added
            if counts["docs"] >= BATCH:
                _commit(store, state, writer, pending)
                counts["docs"] = 0
        if progress is not None:
            progress(counts["done"], len(jobs))

    _fold_all(adding, jobs, finish, store.root if helped else None)
    _mark(state, found)  # only now: a commit before this one left some logs unfolded
    _commit(store, state, writer, pending)


def _fold_all(adding: Adding, jobs: list[Job], finish: Callable, helped: Path | None) -> None:
    """Fold every job here, and in a helper process too when `helped` (the data directory,
    whose task list the helper brings up to date first); `finish` is called with each job,
    what folding it gave and the documents added."""
    from . import sidecar

    shared = sidecar.Shared(jobs)
    helper = sidecar.Helper.maybe(shared, helped)
    last_build.update(logs=len(jobs), helped=0)

    def add(folded) -> None:
        for job, taken in folded:
            last_build["helped"] += 1
            finish(job, taken, adding.put(taken, job.log))

    try:
        while True:
            if helper:
                add(helper.ready())
            job = shared.front()
            if job is not None:
                finish(job, *adding.take(job))
            elif helper is None:
                break
            else:  # the helper's last logs; any it could not fold come back to the list
                add(helper.rest())
                helper, done = None, helper
                done.stop()
    finally:
        if helper:
            helper.stop()


def _at_once(state: State, changed: dict[str, changes.Stamp]) -> bool:
    """Whether this refresh finds compounds many events at once: when numpy is loaded
    already, or there are AT_ONCE_FROM bytes to read, which pay for loading it."""
    if "numpy" in sys.modules:
        return True
    return sum(documents.unread(state, t, s.size) for t, s in changed.items()) >= AT_ONCE_FROM


def _worth_helping(state: State, changed: dict[str, changes.Stamp]) -> bool:
    """Whether a helper process pays for its start (about 0.1 s of CPU on the other core):
    whether the logs it may take hold HELP_FROM bytes or more to read."""
    gained = [documents.unread(state, task, stamp.size) for task, stamp in changed.items()]
    if sum(gained) < HELP_FROM:
        return False
    from . import sidecar

    fit = sum(size for size in gained if size <= sidecar.HELPER_LOG)
    return fit >= HELP_FROM and sidecar.Helper.possible()


def _seen(stamp: changes.Stamp, problems: int, info) -> Seen:
    return Seen(
        size=stamp.size,
        mtime_ns=stamp.mtime_ns,
        problems=problems,
        project=info.project if info else "",
        title=info.title if info else "",
        archived=info.archived if info else False,
        closes=info.closes if info else 0,
        ran_on=info.ran_on if info else "",
    )


def _listed(store, tasks: list[str]) -> dict:
    """The task list's entries of these tasks, from their logs' kept summaries alone: never
    the whole list, which would cost every commit of a build in proportion to every task."""
    found = store.cache.summaries(tasks)
    return {task: catalogue.info(task, summary) for task, summary in found.items()}


def _commit(store, state: State, writer, pending: list) -> None:
    """Commit, then write the marks and the state that describe what was committed (with
    each task's project, title and archive flag from the task list, which a helper process
    may have brought up to date meanwhile)."""
    writer.commit()
    listed = _listed(store, [job.task for job, _, _ in pending])
    for job, taken, stamp in pending:
        state.tasks[job.task] = _seen(stamp, taken.problems, listed.get(job.task))
        log = Path(job.log)
        if log.exists():
            memfile.append(log, taken.base, taken.gained)
    pending.clear()
    save_state(store.root, state)
