"""Search: the events that match some words, ranked by BM25 and grouped task -> turn -> event.

Ranking is BM25 over events as terms.py builds the query (each word once, in the better of its
two fields, with one idf; a word naming a task's folder adds its idf to that task's events).
The statistics are those of the whole index, whatever the scope, so a scope filters results
and never changes a score. A turn ranks by its best event. At most `limit` events are kept,
grouped by task (tasks in the order of their best event), then by turn (same), events in seq
order; each with its heading and up to three snippet lines that keep the matched words.
"""

import functools
import os
from pathlib import Path

from msgspec import Struct

from ...errors import BadInput, TaskNotFound
from ...log import logfile, records
from ...log.redact import redact
from ..cards.heads import shown_card
from . import index as wordindex
from . import terms, tokens
from .index import text_of
from .matching import MAX_LIMIT, SCAN, Redactions, cut, ranked, snippet  # noqa: F401 (read as search.X)

SCOPES = ("task", "project", "all")


class EventHit(Struct, frozen=True, kw_only=True):
    seq: int
    kind: str
    at: str
    heading: str
    lines: list[str]


class TurnHit(Struct, frozen=True, kw_only=True):
    task: str
    title: str
    project: str
    first_seq: int
    last_seq: int | None
    head: str
    asked: str
    score: float
    at: str
    events: list[EventHit]
    summary: str = ""  # the close summary covering this turn (ADR 0033), if one does
    ran_on: str = ""  # the id of the machine its task ran on ("" = this one)
    found_by: str = ""  # "meaning": none of its events holds a word searched for; "" by words


class Results(Struct, frozen=True, kw_only=True):
    turns: list[TurnHit]
    incomplete: list[str]
    terms: list[str]


class Hit(Struct, frozen=True):
    score: float
    task: str
    seq: int
    turn: int
    offset: int
    heading: str
    turn_at: int


@functools.lru_cache(maxsize=4096)
def repository(folder: str) -> str:
    """What makes folders one project: the git common dir of the repository holding the
    folder (so every worktree of a repository agrees), else the folder itself."""
    path = Path(folder)
    if not folder or not path.is_dir():
        return folder
    for place in (path, *path.parents):
        git = place / ".git"
        if git.is_dir():
            return str(git.resolve())
        if git.is_file():
            return _common_dir(place, git) or folder
    return folder


def _common_dir(place: Path, git: Path) -> str | None:
    try:
        line = git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = (place / line[len("gitdir:") :].strip()).resolve()
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return str(gitdir)
    return str((gitdir / common).resolve())


class Where(Struct, frozen=True, kw_only=True):
    """Where a search looks (every task, one task, or the other tasks of one project, named by
    a task or a folder) and how many turns it gives at most: one value for both searches."""

    scope: str = "all"
    task: str | None = None
    project: str | None = None
    limit: int = 20

    def check(self, store) -> None:
        """BadInput for a scope or limit out of range or a scope without what it needs;
        TaskNotFound for a task with no log."""
        if self.scope not in SCOPES:
            raise BadInput(f"scope is one of {', '.join(SCOPES)}, not {self.scope!r}")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise BadInput(f"limit is 1 to {MAX_LIMIT}, not {self.limit}")
        if self.scope == "task" and not self.task:
            raise BadInput("a task search needs a task")
        if self.scope == "project" and not (self.task or self.project):
            raise BadInput("a project search needs a task or a project folder")
        if self.task and not store.log_path(self.task).exists():
            raise TaskNotFound(f"no task {self.task}")

    def tasks(self, state) -> set[str] | None:
        """The tasks the search may return (None: all); TaskNotFound for a task not indexed."""
        if self.task and self.task not in state.tasks:
            raise TaskNotFound(f"no task {self.task}")
        if self.scope == "all":
            return None
        if self.scope == "task":
            return {self.task}
        project = self.project
        if project is None:
            project = state.tasks[self.task].project
        key = repository(os.path.abspath(project))
        return {
            other
            for other, seen in state.tasks.items()
            if other != self.task and seen.project and repository(seen.project) == key
        }


def hits(store, state, text: str, tasks: set[str] | None, limit: int) -> list[Hit]:
    """The best `limit` events for `text`, best first (events of deleted tasks left out)."""
    fields = tokens.query_fields(text)
    if not fields["parts"]:
        return []
    searcher = wordindex.open_index(store.root, state).searcher()
    asked = terms.query(searcher, wordindex.SCHEMA, fields, tasks, folders(state))
    found = ranked(searcher, asked, state.tasks, tasks, limit)
    return [Hit(*row) for row in found]


def search(
    store, words_text: str, where: Where | None = None, fresh: bool = True, refresh=None
) -> Results:
    """Turns whose events match the words, within `where` (default: every task, 20 turns);
    see the module docstring for ranking and grouping.

    `fresh=False` searches what is indexed now without bringing the index up to date first
    (the desktop app while its worker imports and folds: that fold follows anyway);
    `refresh(store)` brings it up to date and gives its state (default: index.refresh here).
    """
    where = where or Where()
    where.check(store)
    if not words_text.strip():
        raise BadInput("nothing to search for: give some words")
    if fresh:
        state = (refresh or wordindex.refresh)(store)
    else:
        state = wordindex.load_state(store.root, shared=True)
    if state is None:  # nothing indexed yet, and not ours to build now
        return Results(turns=[], incomplete=[], terms=tokens.query_terms(words_text))
    tasks = where.tasks(state)
    terms = tokens.query_terms(words_text)
    found = hits(store, state, words_text, tasks, where.limit) if tasks != set() else []
    incomplete = [name for name in damaged(state) if tasks is None or name in tasks]
    return Results(turns=group(store, state, found, set(terms)), incomplete=incomplete, terms=terms)


_folders: list = [None, 0, {}]  # the state they were found for, its task count, the folders


def folders(state) -> dict[str, list[str]]:
    """terms.folders_of the state's tasks (found once per state, as `damaged` below)."""
    if _folders[0] is not state or _folders[1] != len(state.tasks):
        found = terms.folders_of((task, seen.project) for task, seen in state.tasks.items())
        _folders[:] = [state, len(state.tasks), found]
    return _folders[2]


_damaged: list = [None, []]  # the state they were found in, and its tasks with unread lines


def damaged(state) -> list[str]:
    """Tasks whose logs have lines that could not be read, sorted (found once per state, not
    once per search: a search otherwise looks at every task for this)."""
    if _damaged[0] is not state:
        _damaged[:] = [state, sorted(name for name, seen in state.tasks.items() if seen.problems)]
    return _damaged[1]


def group(store, state, found: list[Hit], terms: set[str]) -> list[TurnHit]:
    """Hits (best first) as turns: task by task, turn by turn, in order of their best event."""
    by_task: dict[str, dict[int, list[Hit]]] = {}
    for hit in found:
        turn = hit.turn or -hit.seq  # an event outside any turn stands alone
        by_task.setdefault(hit.task, {}).setdefault(turn, []).append(hit)
    turns = []
    for task, grouped in by_task.items():
        log = store.log_path(task)
        try:
            with open(log, "rb") as handle:
                for turn, members in grouped.items():
                    members.sort(key=lambda hit: hit.seq)
                    events = [event_hit(handle, log, hit, terms, state) for hit in members]
                    card = shown_card(handle, log, state, task, members[0].turn_at, turn)
                    turns.append(turn_hit(task, state, card, members, events, log))
        except (FileNotFoundError, TaskNotFound):
            continue  # deleted while we read
    return turns


def turn_hit(task, state, card, members: list[Hit], events: list[EventHit], log=None) -> TurnHit:
    """A turn as a hit; `card` as shown_card gives it (or None: an event outside turns)."""
    seen = state.tasks[task]
    best = max(hit.score for hit in members)
    if card is None:
        seq = members[0].seq
        first, last, head, asked = seq, seq, f"event seq {seq}, outside any turn", ""
        at, summary = events[0].at, ""
    else:
        first, last, head, asked, at = card.first_seq, card.last_seq, card.head, card.asked, card.at
        summary = close_summary(log, card.first_seq) if log and seen.closes else ""
    return TurnHit(
        task=task,
        title=seen.title,
        project=seen.project,
        first_seq=first,
        last_seq=last,
        head=head,
        asked=asked,
        score=best,
        at=at,
        events=events,
        summary=summary,
        ran_on=seen.ran_on,
    )


def close_summary(log: Path, seq: int) -> str:
    """The text of the close summary covering `seq` in a log, redacted; "" when none."""
    from ..cards import summaries

    try:
        found = summaries.covering(summaries.of_log(log), seq)
    except (OSError, TaskNotFound):
        return ""
    return redact(found.text) if found is not None else ""


def record_at(handle, log: Path, offset: int, seq: int) -> records.Event:
    """The record of `seq`, read at its offset (or found by seq if the log moved under us)."""
    record = seq_at(handle, offset, seq)
    return logfile.by_seq(log, seq) if record is None else record


def seq_at(handle, offset: int, seq: int) -> records.Event | None:
    """The record whose line starts at `offset` of the open log, if it is `seq`'s."""
    handle.seek(offset)
    try:
        record = records.decode(handle.readline().rstrip(b"\n"))
    except records.Damaged:
        return None
    return record if record.seq == seq else None


def event_hit(handle, log: Path, hit: Hit, terms: set[str], state, record=None) -> EventHit:
    """A hit as shown: its kind, time, heading and snippet lines (`record` its record, when
    it was read already)."""
    if record is None:
        record = record_at(handle, log, hit.offset, hit.seq)
    text = text_of(record, state.tool_output, clean=False)[:SCAN]
    return EventHit(
        seq=hit.seq,
        kind=records.kind_of(record),
        at=record.at,
        heading=shown_heading(hit.heading),
        lines=snippet(text, terms),
    )


# a hit's heading as shown: few headings (kinds, agents, tools) and many hits, so each once
shown_heading = Redactions(0)
