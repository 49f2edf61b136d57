"""What nodwyn's MCP tools do: index-search, recall and name-task, as plain functions.

The MCP wiring (mcp/server.py) only decodes a call, runs one of these and sends the answer.
Invariants:
- The leave (ADR 0051): a model searches its own task always; the project's earlier tasks only
  while the person allows it for that project (`settings.earlier_tasks`, which only the person
  writes), read afresh at every call; another project's task never, whatever the switch.
- Everything sent is redacted (again: the log is redacted when written) and framed as data
  quoted from logs, not instructions; an answer is at most LIMIT characters, and a cut says so.
- record-summary appends the task's digest or a chat's close summary by summarizing/
  recording.py's rules (refused when nothing new happened, or the person wrote the digest).
- name-task records a title only when the log holds no `session.title` at all (a person's,
  an import's, the model's, or an empty one by which a person took a name back), checked and
  appended under the log's lock.
"""

from pathlib import Path

import msgspec

from ..errors import NodwynError, TaskBusy
from ..log import records
from ..log.redact import redact
from ..tasks.catalogue import TITLE_MAX
from ..tasks.store import Store, project_of
from .answer import (  # noqa: F401 (LIMIT, same_project: read as toolbox.X)
    LIMIT,
    Answer,
    allowed,
    framed,
    leave_refusal,
    recall_text,
    refused,
    same_project,
)
from .conversation import NotKnownYet, conversation

RESULTS = 8  # turns one search answers with
QUOTES = "\"'`“”‘’«»"
ARGUMENTS = {
    "index-search": {"query", "scope"},
    "recall": {"seq", "task"},
    "name-task": {"title"},
    "record-summary": {"text", "level"},
    "who-wrote": {"file", "start", "end"},  # authorship.py (issue 25)
}


class Toolbox:
    """The tools of one MCP server process: one store, one agent, one working directory."""

    def __init__(self, store: Store, agent: str | None, cwd: Path):
        self.store, self.agent, self.cwd = store, agent, cwd

    def this_task(self, meta: dict | None) -> str:
        return conversation(self.store, self.agent, self.cwd, meta)

    def here(self, meta: dict | None) -> tuple[str | None, str]:
        """This conversation's task and its project; while it is not known yet, None and the
        server's folder, whose earlier tasks the person may still let the agent read."""
        try:
            task = self.this_task(meta)
        except NotKnownYet:
            return None, project_of(self.cwd)
        return task, self.store.get(task).project

    def run(self, name: str, arguments: dict, meta: dict | None = None) -> Answer:
        """Call a tool by name; expected errors become refusals the model reads."""
        tools = {"index-search": self.search, "recall": self.recall, "name-task": self.name_task,
                 "record-summary": self.record_summary}  # fmt: skip
        tools["who-wrote"] = self.who_wrote
        if name not in tools:
            return refused(f"no tool named {name!r}")
        unknown = sorted(set(arguments) - ARGUMENTS[name])
        if unknown:
            known = ", ".join(sorted(ARGUMENTS[name]))
            return refused(f"{name} takes {known}; not {', '.join(unknown)}")
        try:
            return tools[name](meta=meta, **arguments)
        except NodwynError as exc:
            return refused(str(exc))

    def search(self, query: str = "", scope: str = "conversation", meta=None) -> Answer:
        if not isinstance(query, str) or not query.strip():
            return refused("query is empty: give the words to look for")
        if scope not in ("conversation", "earlier"):
            return refused("scope is 'conversation' (the default) or 'earlier'")
        if scope == "earlier":
            task, project = self.here(meta)
            if not allowed(self.store, project):
                return refused(leave_refusal(project))
            results = self.searched(query, "project", task, project)
        else:
            task = self.this_task(meta)
            results = self.searched(query, "task", task)
        hits = results.turns[:RESULTS]
        if not hits:
            where = f"earlier tasks of {project}" if scope == "earlier" else "this conversation"
            return Answer(text=f"Nothing in {where} matches {query!r}.")
        return Answer(text=framed("\n\n".join(_hit(hit, task) for hit in hits)))

    def recall(self, seq: int = 0, task: str | None = None, meta=None) -> Answer:
        from .. import memory

        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            return refused("seq is a record's number (1 or more), as index-search shows it")
        if task is not None and not isinstance(task, str):
            return refused("task is a task id, as index-search shows it")
        own, project = self.here(meta) if task else (self.this_task(meta), "")
        task = task or own
        if task != own:
            refusal = self._other_task_refusal(project, task)
            if refusal:
                return refused(refusal)
        answer = _from_the_app(self.store, "recall", {"task": task, "seq": seq})
        if answer is not None:
            found = msgspec.json.decode(answer, type=memory.Recall)
        else:
            found = memory.recall(self.store, task, seq)
        return Answer(text=framed(recall_text(found)))

    def who_wrote(self, meta=None, **arguments) -> Answer:
        from .authorship import who_wrote

        return who_wrote(self, meta=meta, **arguments)

    def searched(self, query: str, scope: str, task: str | None, project: str | None = None):
        """Results from the running app (one model loaded once for every agent's server),
        else from this process (issue 13)."""
        from .. import memory

        given = {"q": query, "scope": scope, "task": task, "limit": RESULTS}
        if task is None:  # this conversation not known yet: the folder's project
            given = {"q": query, "scope": scope, "project": project, "limit": RESULTS}
        answer = _from_the_app(self.store, "search", given)
        if answer is not None:
            return msgspec.json.decode(answer, type=memory.FusedResults)
        from ..memory.words import index

        index.close_when_unused()  # the server lives as long as the agent's session
        return memory.search(
            self.store, query, scope=scope, task=task, project=project, limit=RESULTS
        )

    def _other_task_refusal(self, project: str, task: str) -> str | None:
        other = self.store.get(task).project
        if not same_project(project, other):
            # the other project's folder is not named: it is not this conversation's to know
            return f"task {task} belongs to another project: nodwyn does not show it here"
        if not allowed(self.store, project):
            return leave_refusal(project)
        return None

    def name_task(self, title: str = "", meta=None) -> Answer:
        title = tidy_title(title if isinstance(title, str) else "")
        if not title:
            return refused("the title is empty: name the task in three to seven words")
        task = self.this_task(meta)
        try:
            with self.store.writer(task) as writer:
                if has_title(self.store.log_path(task)):
                    return Answer(text="This task has a name already; nothing was recorded.")
                writer.append([records.SessionTitle(title=title, actor="model")])
        except TaskBusy:
            return refused("the task's log is busy in another process; try again in a moment")
        return Answer(text=f"Named this task {redact(title)!r}.")

    def record_summary(self, text: str = "", level: str = "digest", meta=None) -> Answer:
        """The task's digest, or a chat's close summary, by the agent (ADR 0033)."""
        from ..summarizing import recording

        task = self.this_task(meta)
        written = recording.record(self.store, task, level, text, by="agent",
                                   model=self.agent or "")  # fmt: skip
        what = "digest" if level == "digest" else "close summary"
        return Answer(
            text=f"Recorded this task's {what} of seqs {written.first_seq}-{written.last_seq}."
        )


def _from_the_app(store: Store, route: str, given: dict) -> bytes | None:
    from ..background import running

    try:
        answer = running.ask(store.root, route, given)
        if answer is None and route == "search" and _service_started(store):
            answer = running.ask(store.root, route, given)
        return answer
    except running.Refused as exc:
        raise NodwynError(str(exc)) from None
    except running.Stale:
        return None  # the agent gets the same answer from this process


def _service_started(store: Store) -> bool:
    """Whether the search service (app/background/service.py) was started for a search that
    needs the model, no app running: it keeps the model loaded for this agent's later searches."""
    from .. import settings
    from ..background import service

    if settings.load(store.root).search_mode == "words" or not service.wanted(store.root):
        return False
    return service.start(store.root)


def tidy_title(title: str) -> str:
    """Whitespace collapsed, surrounding quotes and a final full stop dropped, <= TITLE_MAX."""
    title = " ".join(title.split())
    while len(title) >= 2 and title[0] in QUOTES and title[-1] in QUOTES:
        title = title[1:-1].strip()
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1].rstrip()
    return title[:TITLE_MAX].rstrip()


def has_title(path: Path) -> bool:
    """Whether a log holds any session.title record, an empty one included."""
    with open(path, "rb") as handle:
        for line in handle:
            if b'"session.title"' not in line:
                continue  # cheap test first: most lines are no title
            try:
                record = records.decode(line.rstrip(b"\n"))
            except records.Damaged:
                continue
            if records.kind_of(record) == "session.title":
                return True
    return False


def _hit(hit, own: str) -> str:
    whose = "this conversation" if hit.task == own else f"earlier task {hit.task}"
    lines = [f"{whose} · {hit.title!r} · {hit.at}", f"  {hit.head}"]
    for event in hit.events:
        lines.append(f"  seq {event.seq} · {event.at} · {event.heading}")
        lines.extend(f"    {line}" for line in event.lines)
    return "\n".join(lines)
