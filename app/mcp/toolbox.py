"""What nodwyn's MCP tools do: index-search, recall and name-task, as plain functions.

The MCP wiring (mcp/server.py) only decodes a call, runs one of these and sends the answer.
Invariants:
- The leave (ADR 0009): a model searches its own task always; the project's earlier tasks only
  while the person allows it for that project (`settings.earlier_tasks`, which only the person
  writes), read afresh at every call; another project's task never, whatever the switch.
- Everything sent is redacted (again: the log is redacted when written) and framed as data
  quoted from logs, not instructions; an answer is at most LIMIT characters, and a cut says so.
- What a model sends is checked before it is read: each argument's type ("query
  must be text"); a search's query over QUERY_MAX, a title over TITLE_MAX and a summary over
  recording.LIMIT are cut, and the answer says so; a task id, a path, a scope or a level over
  LONGEST is refused. Nothing a model sent is echoed whole.
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
from ..tasks.listing import machine_names
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
# each tool's arguments and the type each takes
ARGUMENTS = {
    "index-search": {"query": str, "scope": str},
    "recall": {"seq": int, "task": str},
    "name-task": {"title": str},
    "record-summary": {"text": str, "level": str},
    "who-wrote": {"file": str, "start": int, "end": int},  # authorship.py
}
KINDS = {str: "text", int: "a whole number"}
# characters of a query that are searched: about what the sentence model reads (256 word
# pieces); a longer one is cut at a word, and the answer says so
QUERY_MAX = 1_000
# the longest task id, path (Linux's PATH_MAX), scope and level read; a longer one is refused
LONGEST = {"task": 200, "file": 4_096, "scope": 100, "level": 100}
ECHO = 200  # characters of a model's text quoted back in an answer


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
        tools = {
            "index-search": self.search,
            "recall": self.recall,
            "name-task": self.name_task,
            "record-summary": self.record_summary,
        }
        tools["who-wrote"] = self.who_wrote
        if name not in tools:
            return refused(f"no tool named {echo(name)!r}")
        checked = checked_arguments(name, arguments)
        if isinstance(checked, str):
            return refused(checked)
        try:
            return tools[name](meta=meta, **checked)
        except NodwynError as exc:
            return refused(str(exc))

    def search(self, query: str = "", scope: str = "conversation", meta=None) -> Answer:
        whole = len(query)
        query = cut_at_word(query, QUERY_MAX)
        if not query.strip():
            return refused("query is empty: give the words to look for")
        answer = self._search(query, scope, meta)
        if whole > len(query):
            said = (
                f"(The query was cut to its first {len(query):,} of {whole:,} characters: "
                f"a search reads at most {QUERY_MAX:,}.)\n"
            )
            return Answer(text=said + answer.text, error=answer.error)
        return answer

    def _search(self, query: str, scope: str, meta) -> Answer:
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
            return Answer(text=f"Nothing in {where} matches {echo(query)!r}.")
        names = machine_names([{"ran_on": hit.ran_on} for hit in hits], self.store.root)
        return Answer(text=framed("\n\n".join(_hit(hit, task, names) for hit in hits)))

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
        else from this process."""
        from .. import memory

        given = {"q": query, "scope": scope, "task": task, "limit": RESULTS}
        if task is None:  # this conversation not known yet: the folder's project
            given = {"q": query, "scope": scope, "project": project, "limit": RESULTS}
        answer = _from_the_app(self.store, "search", given)
        if answer is not None:
            return msgspec.json.decode(answer, type=memory.FusedResults)
        from ..memory.words import index

        index.close_when_unused()  # the server lives as long as the agent's session
        where = memory.Where(scope=scope, task=task, project=project, limit=RESULTS)
        return memory.search(self.store, query, where)

    def _other_task_refusal(self, project: str, task: str) -> str | None:
        other = self.store.get(task).project
        if not same_project(project, other):
            # the other project's folder is not named: it is not this conversation's to know
            return f"task {task} belongs to another project: nodwyn does not show it here"
        if not allowed(self.store, project):
            return leave_refusal(project)
        return None

    def name_task(self, title: str = "", meta=None) -> Answer:
        whole = tidy_title(title, limit=None)
        title = whole[:TITLE_MAX].rstrip()
        if not title:
            return refused("the title is empty: name the task in three to seven words")
        cut = ""
        if len(whole) > TITLE_MAX:
            cut = f" (cut to {len(title)} of {len(whole):,} characters: a name is 3-7 words)"
        task = self.this_task(meta)
        try:
            with self.store.writer(task) as writer:
                if has_title(self.store.log_path(task)):
                    return Answer(text="This task has a name already; nothing was recorded.")
                writer.append([records.SessionTitle(title=title, actor="model")])
        except TaskBusy:
            return refused("the task's log is busy in another process; try again in a moment")
        return Answer(text=f"Named this task {redact(title)!r}{cut}.")

    def record_summary(self, text: str = "", level: str = "digest", meta=None) -> Answer:
        """The task's digest, or a chat's close summary, by the agent (ADR 0033)."""
        from ..summarizing import recording

        task = self.this_task(meta)
        written = recording.record(
            self.store, task, level, text, by="agent", model=self.agent or ""
        )
        what = "digest" if level == "digest" else "close summary"
        said = f"Recorded this task's {what} of seqs {written.first_seq}-{written.last_seq}."
        whole = len(text.strip())
        if whole > recording.LIMIT:
            said += (
                f" It was cut to its first {len(written.text):,} of {whole:,} characters: "
                "a summary is a few lines."
            )
        return Answer(text=said)


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


def tidy_title(title: str, limit: int | None = TITLE_MAX) -> str:
    """Whitespace collapsed, surrounding quotes and a final full stop dropped, <= `limit`."""
    title = " ".join(title.split())
    while len(title) >= 2 and title[0] in QUOTES and title[-1] in QUOTES:
        title = title[1:-1].strip()
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1].rstrip()
    return title if limit is None else cut_at_word(title, limit)


def checked_arguments(name: str, arguments: dict) -> dict | str:
    """A tool's arguments whose names and types are the tool's (a null one left out as not
    given; 3.0 taken as 3), or the refusal that says which is not."""
    unknown = sorted(set(arguments) - set(ARGUMENTS[name]))
    if unknown:
        known = ", ".join(ARGUMENTS[name])
        return f"{name} takes {known}; not {', '.join(echo(each, 40) for each in unknown)}"
    checked = {}
    for key, value in arguments.items():
        wanted = ARGUMENTS[name][key]
        if value is None:
            continue
        if wanted is int and isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, wanted) or isinstance(value, bool):
            return f"{key} must be {KINDS[wanted]}, not {_kind(value)}"
        if wanted is str and len(value) > LONGEST.get(key, len(value)):
            return f"{key} is at most {LONGEST[key]:,} characters; this one has {len(value):,}"
        checked[key] = value
    return checked


def _kind(value) -> str:
    return {bool: "true or false", str: "text", list: "a list", dict: "an object"}.get(
        type(value), "a number"
    )


def cut_at_word(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, at the last space before the cut if any."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if not text[limit].isspace() and not cut[-1].isspace() and " " in cut.strip():
        cut = cut.rsplit(None, 1)[0]
    return cut.rstrip()


def echo(text: str, limit: int = ECHO) -> str:
    """A model's text quoted back: at most `limit` characters, a cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def _hit(hit, own: str, names: dict[str, str] | None) -> str:
    """A found turn as the agent reads it; the machine its task ran on where the archive
    holds more than one (`names`)."""
    whose = "this conversation" if hit.task == own else f"earlier task {hit.task}"
    if names and hit.ran_on:
        whose += f" (ran on {names.get(hit.ran_on, hit.ran_on)})"
    lines = [f"{whose} · {hit.title!r} · {hit.at}", f"  {hit.head}"]
    for event in hit.events:
        lines.append(f"  seq {event.seq} · {event.at} · {event.heading}")
        lines.extend(f"    {line}" for line in event.lines)
    return "\n".join(lines)
