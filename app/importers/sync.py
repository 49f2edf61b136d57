"""Import agents' sessions as nodwyn tasks, and keep following them: the shared sync loop.

Each source session becomes one task whose id is derived from the source (`cc-<session>`,
`cx-<session>`, `gm-<session>`, ...: the agent's prefix), so importing again finds it. Which
agent reads a file is chosen from `registry`; this module does the rest for every agent. The
import state of a task lives beside its log in `sessions/<id>.imp` (`state`, msgspec JSON): for an
append-only source the bytes consumed (whole lines only), hashes of the start of the file and
of the last consumed line, and the parser's carry; for a source rewritten whole (`whole`), a
hash of what was read last.

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
  (docs/decisions/0015-import-that-cannot-double.md);
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
from . import formats, problems, registry, sources
from .agent import Agent, Found
from .problems import Problem
from .state import (
    Key,
    State,
    guarded,
    key_of,
    key_text,
    last_imported,
    load,
    on_machine,
    save,
    title_of,
    write,
)

HEAD = 4096  # bytes of the source's start whose hash is kept


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


def default_paths(tool: str) -> list[Path]:
    """Where the agent keeps its sessions on this computer (existing or not)."""
    return registry.get(tool).roots()


def import_paths(
    store: Store,
    tool: str,
    paths: list[Path] | None = None,
    progress: Callable[[int, int], None] | None = None,
    machine: str = "",
) -> Report:
    """Import every session found under `paths` (default: the agent's own folders); a new
    task's start names `machine` (the id of the machine its agent ran on) when one is given."""
    agent = registry.get(tool)
    report = Report()
    explicit = paths is not None
    chosen = agent.roots() if paths is None else paths
    files, missing, renamed = sources.walk(agent, [Path(p) for p in chosen], explicit)
    report.skipped.extend(Skipped(str(p), "no such file or folder") for p in missing)
    report.renamed = [str(p) for p in renamed]
    by_content = set(renamed)
    for done, path in enumerate(files, 1):
        lines = problems.Lines(str(path))
        try:
            outcomes = _import_one(store, agent, path, lines, machine)
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
        if progress is not None:
            progress(done, len(files))
    return report


def first_line(path: Path) -> str:
    """The start of a file's first line that is not blank, to say what a refused file is."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return ""
    if b"\0" in head:
        return "(binary content)"
    text = head.decode("utf-8", "replace")
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


def import_file(store: Store, tool: str, path: Path) -> tuple[str, str]:
    """Import one file of an agent's (the first session's outcome, for the first importers)."""
    return import_source(store, registry.get(tool), path)[0]


def _import_lines(store: Store, agent: Agent, path: Path, found: Found, lines, machine: str):
    if store.log_path(found.task).exists():
        with store.writer(found.task) as writer:
            return _extend(agent, path, found, writer, lines)
    return _create(store, agent, path, found, lines, machine)


def _create(store: Store, agent: Agent, path: Path, found: Found, lines, machine: str = ""):
    log = store.log_path(found.task)
    log.with_suffix(".imp").unlink(missing_ok=True)  # left by a task removed by hand
    state = State(tool=agent.name, source=str(path), limits=agent.limits)
    parser = agent.parser(path, found, None)
    emitted = _parse(path, state, parser, lines)
    if not emitted or not isinstance(emitted[0], r.SessionStart):
        return "skipped", "no conversation in it yet (nothing that starts a session)"
    with store.create(on_machine(emitted[0], machine), task=found.task) as writer:
        write(writer, emitted[1:], state, ("", ""))
        save(log, state, parser.carry)
    return "created", found.task


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
    if state is not None:
        parser = agent.parser(path, found, state.carry)
        before = (state.consumed, msgspec.json.encode(parser.carry))
        emitted = _parse(path, state, parser, lines)
        if not emitted and before == (state.consumed, msgspec.json.encode(parser.carry)):
            return ("extended" if backfilled else "unchanged"), found.task
        if emitted and state.last != key_text(last_imported(log)):
            state = None  # the log went past `.imp` (stopped before saving it): read it all
    if state is None:
        lines.clear()
        state = State(tool=agent.name, source=str(path))
        parser = agent.parser(path, found, None)
        emitted = _not_yet_in(log, _parse(path, state, parser, lines), state)
        if emitted is None:
            return "unchanged", found.task  # the log holds more than this copy: nothing added
    state.source = str(path)
    title = None if not any(isinstance(x, r.SessionTitle) for x in emitted) else title_of(log)
    written = write(writer, emitted, state, title)
    save(log, state, parser.carry)
    return ("extended" if written or backfilled else "unchanged"), found.task


def _limits(agent: Agent, path: Path, found: Found, writer: Writer, state: State) -> bool:
    """A log imported before its agent's limits were read gets them once: the imported part
    of the source is read again and its limit records the log lacks are appended (each with
    its own event's time), then `.imp` says so. Stopped before that save, the next import
    finds them in the log by their src and appends none twice. True if any was appended."""
    parser = agent.parser(path, found, None)
    again = State(tool=agent.name, source=str(path))
    seen = {key_of(record) for _offset, _end, record in logfile.read(writer.path)}
    limits = [
        record
        for record in _parse(path, again, parser, problems.Lines(str(path)))
        if isinstance(record, r.Limit)
        and (record.src.line or 0) <= state.lines
        and key_of(record) not in seen
    ]
    writer.append(limits)
    state.limits = agent.limits
    save(writer.path, state, state.carry)
    return bool(limits)


def _parse(path: Path, state: State, parser, lines: problems.Lines) -> list[r.Known]:
    """Feed the source's whole lines after `state.consumed` to the parser; update `state`."""
    out: list[r.Known] = []
    n = state.lines
    for start, line in _lines(path, state.consumed):
        n += 1
        if line.strip():
            problems.feed(parser, n, line, out, lines)
        state.tail_start = start
        state.consumed = start + len(line) + 1
    state.lines = n
    parser.finish(sources.is_live(path), out)
    if state.consumed:
        with open(path, "rb") as handle:
            state.head = _hash(handle.read(min(HEAD, state.consumed - 1)))
            handle.seek(state.tail_start)
            state.tail = _hash(handle.read(state.consumed - state.tail_start - 1))
    return out


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
            if _hash(handle.read(min(HEAD, state.consumed - 1))) != state.head:
                return False
            handle.seek(state.tail_start)
            return _hash(handle.read(state.consumed - state.tail_start - 1)) == state.tail
    except OSError:
        return False


def _not_yet_in(log: Path, emitted: list[r.Known], state: State) -> list[r.Known] | None:
    """Read from the start: the emitted records after the last one the log holds (matched by
    src); None when the log holds lines past the source's end (a shorter copy of it)."""
    keys: set[Key] = set()
    furthest = 0  # the last line of the source itself that the log holds a record of
    for _offset, _end, record in logfile.read(log):
        key = key_of(record)
        if key is not None:
            keys.add(key)
            if key[0] is None and key[1]:
                furthest = max(furthest, key[1])
        if isinstance(record, r.ContextCompact):
            state.compact_from = record.seq + 1
    if furthest > state.lines:
        return None
    last = -1
    for index, record in enumerate(emitted):
        key = key_of(record)
        # (..., None, kind): a log imported before replies carried their response's id
        if key is not None and (key in keys or (key[0], key[1], None, key[3]) in keys):
            last = index
    return emitted[last + 1 :]
