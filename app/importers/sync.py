"""Import agents' sessions as nodwyn tasks, and keep following them: the shared sync loop.

Each source session becomes one task whose id is derived from the source (`cc-<session>`,
`cx-<session>`, `gm-<session>`, ...: the agent's prefix), so importing again finds it. Which
agent reads a file is chosen from `registry`; this module does the rest for every agent. The
import state of a task lives beside its log in `sessions/<id>.imp` (`state`, msgspec JSON): for an
append-only source the bytes consumed (whole lines only), hashes of the start of the file and
of the last consumed line, and the parser's carry; for a source rewritten whole (`whole`), a
hash of what was read last.

A source is read and appended a batch of records at a time (state.BATCH), so an import holds
one batch whatever the session's size, and `.imp` is saved once, after the last batch. A new
log's folds are made as it is written (state.Appending): its list row and usage figures, kept
by `keep_folds` at the end of an import, and its turn cards, appended to its `.mem` every
state.CARDS turns, so neither the first listing nor the first usage report reads it again.

Invariants:
- idempotent: an unchanged source changes nothing; a grown source appends only new records;
  importing a prefix and then the whole file gives the same log as importing it once;
- a source whose already-imported part changed is reported and left alone, never rewritten
  (for a source rewritten whole: one that no longer holds records imported from it);
- a task deleted in nodwyn is never imported again; a source that vanished leaves its task;
- `.imp` is derived: without it the source is read again and the records already in the log
  are recognised by their `src`, so only the missing ones are appended;
- where an import got to is read from the log itself: `.imp` names the `src` of the log's last
  imported record when it was saved, and when the log's last one differs (an import stopped
  between its append and its save) the source is read again from the start and matched as
  without `.imp`; a log holding lines the source no longer has (a shorter copy) gets nothing,
  so a crash at any write followed by a new import leaves the log one clean import would
  (docs/decisions/0015-import-that-cannot-double.md); an import stopped after some of its
  batches is such a case (remainder.py holds what the match leaves on disk past a batch);
- one bad line never stops an import and one bad file never stops the others: the line is
  skipped and counted (`Report.problems`, with its file and line), the file skipped with why;
- a file that is not the agent's log is skipped with a one-line reason and never a task.
"""

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from ..errors import NotWritten, no_room, not_written
from ..log import logfile
from ..log import records as r
from ..log.writer import Writer
from ..tasks.store import Store
from ..usage import figures
from . import formats, problems, registry, sources
from .agent import Agent, Found
from .problems import Problem
from .remainder import Remainder
from .state import (
    BATCH,
    Appending,
    State,
    guarded,
    key_of,
    key_text,
    last_imported,
    load,
    on_machine,
    save,
    title_of,
)

HEAD = 4096  # bytes of the source's start whose hash is kept
KEEP_EVERY = 500  # new logs whose folds an import holds before it keeps them (keep_folds)


class Skipped(msgspec.Struct, frozen=True):
    path: str
    reason: str
    first_line: str = ""  # of a file read by its content, to show what it is instead


FIRST_LINE = 60  # characters of a refused file's first line shown


class Report(msgspec.Struct, kw_only=True):
    created: list[str] = []
    extended: list[str] = []
    unchanged: list[str] = []
    skipped: list[Skipped] = []
    problems: list[Problem] = []  # lines skipped inside the files imported
    stopped: str = ""  # why the import stopped before the end (the disk is full), else ""
    renamed: list[str] = []  # files not named as the agent names its sessions, read by content


def default_paths(agent: str) -> list[Path]:
    """Where the agent keyed `agent` keeps its sessions on this computer (existing or not)."""
    return registry.get(agent).roots()


def import_paths(
    store: Store,
    agent: str,
    paths: list[Path] | None = None,
    progress: Callable[[int, int], None] | None = None,
    machine: str = "",
    keep: bool = True,
) -> Report:
    """Import every session found under `paths` (default: the agent's own folders); a new
    task's start names `machine` (the id of the machine its agent ran on) when one is given.
    `keep` False leaves what was folded of new logs to the caller's `keep_folds` (one file of
    many at a time), or to the store's next listing."""
    importer = registry.get(agent)
    report = Report()
    explicit = paths is not None
    chosen = importer.roots() if paths is None else paths
    files, missing, renamed = sources.walk(importer, [Path(p) for p in chosen], explicit)
    report.skipped.extend(Skipped(str(p), "no such file or folder") for p in missing)
    report.renamed = [str(p) for p in renamed]
    by_content = set(renamed)
    for done, path in enumerate(files, 1):
        lines = problems.Lines(str(path))
        try:
            outcomes = _import_one(store, importer, path, lines, machine)
        except NotWritten as exc:  # no room: every file after this one would fail alike
            report.stopped = str(exc)
            break
        for outcome, detail in outcomes:
            if outcome == "skipped":
                first = first_line(path) if path in by_content else ""
                report.skipped.append(Skipped(str(path), detail, first))
            else:
                getattr(report, outcome).append(detail)
        report.problems.extend(lines.found())
        if keep and len(store.cache.known) >= KEEP_EVERY:
            keep_folds(store)
        if progress is not None:
            progress(done, len(files))
    if keep:
        keep_folds(store)
    return report


def first_line(path: Path) -> str:
    """The start of a file's first line that is not blank, to say what a refused file is."""
    try:
        with open(path, "rb") as handle:
            opening = handle.read(4096)
    except OSError:
        return ""
    if b"\0" in opening:
        return "(binary content)"
    text = opening.decode("utf-8", "replace")
    line = " ".join(next((ln for ln in text.splitlines() if ln.strip()), "").split())
    if len(line) < 3:  # a JSON document's lone "{" or "[": its next lines say more
        line = " ".join(text.split())
    return line if len(line) <= FIRST_LINE else line[: FIRST_LINE - 1] + "…"


def _import_one(store: Store, agent: Agent, path: Path, lines, machine: str):
    """import_source, where an error nobody foresaw skips this file only (and is logged)."""
    try:
        return import_source(store, agent, path, lines, machine)
    except NotWritten:
        raise
    except OSError as exc:
        if no_room(exc):
            raise not_written(f"the import of {path.name}", exc) from None
        problems.log.exception("importing %s failed", path)
        return [("skipped", f"{problems.UNEXPECTED} {type(exc).__name__}: {exc}"[:200])]
    except (RecursionError, MemoryError):
        return [("skipped", "too deeply nested or too large to read")]
    except Exception as exc:  # noqa: BLE001 (the other files go on; the traceback is logged)
        problems.log.exception("importing %s failed", path)
        return [("skipped", f"{problems.UNEXPECTED} {type(exc).__name__}: {exc}"[:200])]


def import_source(
    store: Store,
    agent: Agent,
    path: Path,
    lines: problems.Lines | None = None,
    machine: str = "",
) -> list[tuple[str, str]]:
    """Import one source: ("created"|"extended"|"unchanged", task) or ("skipped", reason) for
    each session it holds (one for a file of lines; any number for a database). A task made
    here has `machine` in its start's origin ("" = this data directory's own machine)."""
    if agent.whole:
        from . import whole  # only agents whose sources are rewritten whole need it

        return whole.import_source(store, agent, path, machine)
    lines = lines or problems.Lines(str(path))
    try:
        found = agent.recognise(path)
    except OSError as exc:
        return [("skipped", f"cannot read it: {exc.strerror or exc}")]
    if isinstance(found, str):
        return [("skipped", found)]
    run = lambda: _import_lines(store, agent, path, found, lines, machine)  # noqa: E731
    return [guarded(store, found.task, run)]


def _import_lines(store: Store, agent: Agent, path: Path, found: Found, lines, machine: str):
    if store.log_path(found.task).exists():
        with store.writer(found.task) as writer:
            return _extend(agent, path, found, writer, lines)
    return _create(store, agent, path, found, lines, machine)


NO_START = "no conversation in it yet (nothing that starts a session)"


class _NoStart(Exception):
    """The source's first record is no session start."""


class _Behind(Exception):
    """The log went past `.imp` (an import stopped before saving it)."""


class _Created:
    """A new task's log, made at the first batch of records, which must start the session."""

    def __init__(self, store: Store, task: str, state: State, machine: str):
        self.store, self.task, self.state, self.machine = store, task, state, machine
        self.appending: Appending | None = None

    def take(self, batch: list[r.Known]) -> None:
        if self.appending is None:
            if not batch:
                return
            if not isinstance(batch[0], r.SessionStart):
                raise _NoStart
            writer = self.store.create(on_machine(batch[0], self.machine), task=self.task)
            self.appending = Appending(writer, self.state, ("", ""), new=True)
            batch = batch[1:]
        self.appending.add(batch)

    def close(self) -> None:
        if self.appending is not None:
            self.appending.writer.close()


def _create(
    store: Store, agent: Agent, path: Path, found: Found, lines, machine: str = ""
) -> tuple[str, str]:
    log = store.log_path(found.task)
    log.with_suffix(".imp").unlink(missing_ok=True)  # left by a task removed by hand
    state = State(agent=agent.name, source=str(path), limits=agent.limits)
    parser = agent.parser(path, found, None)
    created = _Created(store, found.task, state, machine)
    try:
        _parse(path, state, parser, lines, created.take)
        if created.appending is None:
            return "skipped", NO_START
        save(log, state, parser.carry)
        _keep(store, log, created.appending)
    except _NoStart:
        return "skipped", NO_START
    finally:
        created.close()
    return "created", found.task


def _keep(store: Store, log: Path, appending: Appending) -> None:
    """A new log's folds, made as it was written: its list row for the catalogue's next scan,
    its turn cards as its `.mem` (so usage figures read no log again)."""
    kept = appending.kept()
    if kept is not None:
        summary, used = kept
        store.cache.known[log.stem] = summary
        if used is not None:
            stat = log.stat()
            store.cache.figures[log.stem] = (stat.st_size, stat.st_mtime_ns, used)


def keep_folds(store: Store) -> None:
    """Keep what imports folded as they wrote new logs: their usage figures in the usage file,
    their rows in the catalogue (a scan that reads none of those logs)."""
    if store.cache.figures:
        figures.remember(store.root, store.cache.figures)
        store.cache.figures.clear()
    if store.cache.known:
        store.cache.scan()


def _extend(agent: Agent, path: Path, found: Found, writer: Writer, lines):
    log = writer.path
    state = load(log)
    if state is not None and not _same_prefix(path, state):
        if state.source != str(path) and Path(state.source).exists():
            return "skipped", f"a second copy of a session already imported from {state.source}"
        return "skipped", "its start changed since it was imported (not appended to): left alone"
    backfilled = (
        state is not None
        and state.limits < agent.limits
        and _limits(agent, path, found, writer, state)
    )
    appending = Appending(writer, state, lambda: title_of(log))
    if state is not None:
        parser = agent.parser(path, found, state.carry)
        before = (state.consumed, msgspec.json.encode(parser.carry))
        try:
            _parse(path, state, parser, lines, _checked(log, state, appending))
        except _Behind:
            state = None  # the log went past `.imp` (stopped before saving it): read it all
        else:
            carried = (state.consumed, msgspec.json.encode(parser.carry))
            if not appending.count and before == carried:
                return ("extended" if backfilled else "unchanged"), found.task
    if state is None:
        lines.clear()
        state = State(agent=agent.name, source=str(path))
        parser = agent.parser(path, found, None)
        appending.state = state
        with Remainder(log, state) as rest:
            _parse(path, state, parser, lines, rest.take)
            if rest.past(state.lines):
                return "unchanged", found.task  # the log holds more than this copy: nothing added
            for batch in rest.batches():
                appending.add(batch)
    state.source = str(path)
    save(log, state, parser.carry)
    return ("extended" if appending.count or backfilled else "unchanged"), found.task


def _checked(log: Path, state: State, appending: Appending) -> Callable[[list], None]:
    """Append each batch, the first only once the log's last imported record is the one `.imp`
    names (_Behind else: nothing of this reading is appended)."""

    def take(batch: list[r.Known]) -> None:
        if batch and not appending.count and state.last != key_text(last_imported(log)):
            raise _Behind
        appending.add(batch)

    return take


def _limits(agent: Agent, path: Path, found: Found, writer: Writer, state: State) -> bool:
    """A log imported before its agent's limits were read gets them once: the imported part
    of the source is read again and its limit records the log lacks are appended (each with
    its own event's time), then `.imp` says so. Stopped before that save, the next import
    finds them in the log by their src and appends none twice. True if any was appended."""
    parser = agent.parser(path, found, None)
    again = State(agent=agent.name, source=str(path))
    seen = {key_of(record) for _offset, _end, record in logfile.read(writer.path)}
    limits: list[r.Known] = []

    def take(batch: list[r.Known]) -> None:
        limits.extend(
            record
            for record in batch
            if isinstance(record, r.Limit)
            and (record.src.line or 0) <= state.lines
            and key_of(record) not in seen
        )

    _parse(path, again, parser, problems.Lines(str(path)), take)
    writer.append(limits)
    state.limits = agent.limits
    save(writer.path, state, state.carry)
    return bool(limits)


def _parse(path: Path, state: State, parser, lines: problems.Lines, take) -> None:
    """Feed the source's whole lines after `state.consumed` to the parser, its records to
    `take` a batch at a time (the last batch may be empty); update `state`."""
    out: list[r.Known] = []
    n = state.lines
    for start, line in _lines(path, state.consumed):
        n += 1
        if line.strip():
            problems.feed(parser, n, line, out, lines)
        state.tail_start = start
        state.consumed = start + len(line) + 1
        if len(out) >= BATCH:
            take(out)
            out = []
    state.lines = n
    parser.finish(sources.is_live(path), out)
    take(out)
    if state.consumed:
        with open(path, "rb") as handle:
            state.opening = _hash(handle.read(min(HEAD, state.consumed - 1)))
            handle.seek(state.tail_start)
            state.tail = _hash(handle.read(state.consumed - state.tail_start - 1))


def _lines(path: Path, start: int) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of each whole line from `start`; an unended last line only if it is JSON."""
    for offset, line, ended in logfile.lines(path, start):
        if ended or formats.is_json_object(line):
            yield offset, line  # an unended but complete line is consumed as if it were ended


def _hash(data: bytes) -> str:
    """Hashes are taken without the consumed part's last newline, which an unended line lacks."""
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _same_prefix(path: Path, state: State) -> bool:
    """Whether the source still starts with what was imported from it."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size < state.consumed - 1:
                return False
            handle.seek(0)
            if _hash(handle.read(min(HEAD, state.consumed - 1))) != state.opening:
                return False
            handle.seek(state.tail_start)
            return _hash(handle.read(state.consumed - state.tail_start - 1)) == state.tail
    except OSError:
        return False
