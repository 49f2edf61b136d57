"""Sources rewritten whole (a JSON document, a database): read whole, the new records added.

An agent that rewrites its file in place (Gemini CLI's `.json` sessions, OpenCode's JSON
files) or keeps a database cannot be followed by bytes consumed. Its `read` parses the whole
source into sessions whose every record carries a stable `src` (the source's message, part or
call id); this module appends to each session's log the records the log does not hold yet,
in the source's order. A title is compared by its text, not its `src` (the agent may rename).

Invariants:
- re-reading an unchanged source changes nothing, and a rewritten one never doubles a record;
- a rewrite that no longer holds records imported from it (another session written over the
  file, a history cut short) is refused with the count and the log kept as it is;
- `.imp` holds only a hash of what was read last; without it the log's `src` keys decide.
"""

import hashlib
from pathlib import Path

from ..log import logfile
from ..log import records as r
from ..tasks.store import Store
from . import sources
from .agent import Agent, Session
from .state import State, guarded, key_of, load, on_machine, save, title_of, write


def import_source(
    store: Store, agent: Agent, path: Path, machine: str = ""
) -> list[tuple[str, str]]:
    """Each session of the source: created, extended, unchanged, or skipped with the reason (a
    task made here names `machine` in its start, as sync.import_source says)."""
    try:
        live = sources.is_live(path)
        stamp = _stamp(agent, path, live)
        known = agent.peek(path)
        if known and all(_unchanged(store, found.task, path, stamp) for found in known):
            return [("unchanged", found.task) for found in known]
        sessions = agent.read(path, live)
    except OSError as exc:
        return [("skipped", f"cannot read it: {exc.strerror or exc}")]
    if isinstance(sessions, str):
        return [("skipped", sessions)]
    if not sessions:
        return [("skipped", "no conversation in it yet")]
    outcomes = []
    for session in sessions:
        task = session.found.task
        run = lambda session=session: _import(store, agent, path, session, stamp, machine)  # noqa: E731
        outcomes.append(guarded(store, task, run))
    return outcomes


def _unchanged(store: Store, task: str, path: Path, stamp: str) -> bool:
    state = load(store.log_path(task))
    return state is not None and state.whole == stamp and state.source == str(path)


def _stamp(agent: Agent, path: Path, live: bool) -> str:
    """A hash of the source's bytes and its companions' signatures: what "unchanged" means.
    A source read while live is stamped apart, so the same bytes read once it went quiet are
    read again and what the agent's `read` held back is written."""
    digest = hashlib.blake2b(digest_size=12)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    digest.update(repr(sources.signature(agent, path)).encode())
    if live:
        digest.update(b"live")
    return digest.hexdigest()


def _import(store: Store, agent: Agent, path: Path, session: Session, stamp: str, machine: str):
    records = session.records
    if not records or not isinstance(records[0], r.SessionStart):
        return "skipped", "no conversation in it yet (nothing that starts a session)"
    log = store.log_path(session.found.task)
    if not log.exists():
        log.with_suffix(".imp").unlink(missing_ok=True)  # left by a task removed by hand
        state = State(agent=agent.name, source=str(path), whole=stamp)
        with store.create(on_machine(records[0], machine), task=session.found.task) as writer:
            write(writer, records[1:], state, ("", ""))
            save(log, state)
        return "created", session.found.task
    with store.writer(session.found.task) as writer:
        if _unchanged(store, session.found.task, path, stamp):
            return "unchanged", session.found.task
        state = load(log) or State(agent=agent.name, source=str(path))
        held, state.compact_from = _held(log)
        lost = held - {key_of(x) for x in records}
        if lost:
            return "skipped", (
                f"the source no longer holds {len(lost)} records imported from it "
                "(rewritten by something else?): the task is kept as it was"
            )
        new = [x for x in records[1:] if isinstance(x, r.SessionTitle) or key_of(x) not in held]
        title = title_of(log) if any(isinstance(x, r.SessionTitle) for x in new) else None
        written = write(writer, new, state, title)
        state.whole, state.source = stamp, str(path)
        save(log, state)
    return ("extended" if written else "unchanged"), session.found.task


def _held(log: Path) -> tuple[set[tuple], int]:
    """The keys of the imported records the log holds, but titles (an agent renames) and the
    first line; and where the next compaction's stretch starts."""
    keys, compact_from = set(), 1
    for _offset, _end, record in logfile.read(log):
        if isinstance(record, r.ContextCompact):
            compact_from = record.seq + 1
        if getattr(record, "src", None) and not isinstance(record, r.SessionTitle | r.SessionStart):
            keys.add(key_of(record))
    return keys, compact_from
