"""Every route of the local API and the page, in one table (STYLE 6: datasette's single list).

Each route decodes its input (a query or a body, bodies.py), calls one core function (store,
memory, reading, agents) and returns a Struct, which server.py sends as JSON; a NodwynError
becomes its status there, in the one JSON error shape. A route that changes something pokes the
change feed, so every open page hears of it at once.
"""

import hmac
from html import escape
from pathlib import Path

import bottle
import msgspec

from .. import memory, paths, settings
from ..background.feed import Feed
from ..errors import BadInput, TaskNotFound
from ..importers import agents
from ..live import logs as live_logs
from ..live.board import Board
from ..machines import pulls, ssh
from ..memory.readback import cut
from ..reading import resume, terminal
from ..summarizing.runs import Runs
from ..tasks import board, listing, starred
from ..tasks.listing import of_machine
from ..tasks.store import Store
from ..usage import activity, quota
from ..usage import figures as usage
from . import machines, settings_form
from .bodies import (
    Archived,
    Cards,
    Done,
    HooksChange,
    ImportFolder,
    LiveStates,
    SshAdd,
    SshPull,
    Star,
    StarredList,
    SummariesAsked,
    TaskList,
    TaskStars,
    Title,
)

LONG_POLL = 55.0  # seconds a change-feed request waits before answering "nothing new" (under
# the 60 s after which common proxies drop an idle request; each answer wakes the app, the window
# and the renderer, ADR 0028)
EXPORT_TYPES = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8"}
TYPES = {
    ".html": "text/html",
    ".css": "text/css",
    ".js": "text/javascript",
    ".svg": "image/svg+xml",
}


class Handlers:
    """What each route does, for one data directory: decode the input, call one core function
    (store, memory, reading, agents), return a Struct."""

    def __init__(self, store: Store, token: str, feed: Feed, live: Board):
        self.store, self.token, self.feed, self.live = store, token, feed, live
        # Memory builds and saves its derived files (.mem, the word index) on first use; two
        # threads doing that at once saw a half-built index, so they take turns (with the
        # desktop worker too).
        self.memory_lock = memory.BUILDING
        self.summaries = Runs(store, feed.poke)

    def page(self):
        given = bottle.request.query.get("token", "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise bottle.HTTPError(403, "open the address that nodwyn printed: it carries the key")
        html = (paths.frontend_dir() / "index.html").read_text(encoding="utf-8")
        bottle.response.content_type = "text/html; charset=utf-8"
        return html.replace("{{token}}", escape(self.token, quote=True))

    def asset(self, path):
        root = paths.frontend_dir()
        file = (root / path).resolve()
        if root not in file.parents or not file.is_file() or file.suffix not in TYPES:
            raise bottle.HTTPError(404, f"no file {path}")
        bottle.response.content_type = TYPES[file.suffix] + "; charset=utf-8"
        return file.read_bytes()

    def changed(self, result):
        self.feed.poke()  # pages hear of a change made here without waiting for the next look
        return result

    def tasks(self):
        live = {s.task: msgspec.structs.asdict(s) for s in self.live.states()}
        listed = listing.with_live(self.store.list_json(archived=None), live, self._from_log)
        rows = listed.encode()
        machine = bottle.request.query.get("machine")
        if machine is not None:  # a machine's id ("" for this one's), as the list names it
            rows = msgspec.json.encode(of_machine(msgspec.json.decode(rows), machine))
        return TaskList(msgspec.Raw(rows))

    def machines_change(self, change, *args):
        """A change of Settings > Machines, heard by every open page."""
        return self.changed(change(self.store, *args))

    def _from_log(self, task: str) -> dict | None:
        said = live_logs.said(self.store, task)
        return None if said is None else msgspec.structs.asdict(said)

    def live_event(self):
        """A hook's event (hook.py), as the agent's hook command sent it."""
        self.live.take(bottle.request.body.read(), strict=True)
        return Done()

    def rename(self, task):
        return self.changed(self.store.rename(task, _body(Title).title))

    def archive(self, task):
        return self.changed(self.store.archive(task, _body(Archived).archived))

    def delete(self, task):
        self.store.delete(task)
        return self.changed(Done())

    def cards(self, task):
        if not self.store.exists(task):
            raise TaskNotFound(f"no task {task}")
        with self.memory_lock:
            return Cards(memory.turn_cards(self.store, task))

    def context(self, task):
        if not self.store.exists(task):
            raise TaskNotFound(f"no task {task}")
        seq, before, after = _query_int("seq"), _query_int("before", 40), _query_int("after", 40)
        from ..reading import shown  # the Markdown parser and diffs: loaded on the first read

        with self.memory_lock:
            return shown.window(self.store, task, seq, before, after)

    def search(self):
        query = bottle.request.query
        importing = self.feed.status.snapshot().phase in ("importing", "indexing")
        where = memory.Where(
            scope=query.get("scope", "all"),
            task=query.get("task") or None,
            project=query.get("project") or None,
            limit=_query_int("limit", 50),
        )
        mode = query.get("mode") or None
        return memory.search(self.store, query.get("q", ""), where, mode=mode, importing=importing)

    def recall(self):
        """One event back whole (the CLI's and agents' recall); `start` and `count`
        cut its outline's lines as `nodwyn memory recall --json` does."""
        task, seq = bottle.request.query.get("task", ""), _query_int("seq")
        if not task or seq is None:
            raise BadInput("recall takes task and seq")
        with self.memory_lock:
            found = memory.recall(self.store, task, seq)
        return cut(found, _query_int("start"), _query_int("count"))

    def changes(self):
        return self.feed.wait(_query_int("since", 0), min(LONG_POLL, _wait_seconds()))

    def import_folder(self):
        given = _body(ImportFolder)
        started = agents.import_folder(self.store, given.agent, given.path, self.feed.status.set)
        # followed from now on, as the agents' own folders are (the worker's next pass)
        folder = str(Path(given.path.strip()).expanduser())
        settings.follow_folder(self.store.root, given.agent, folder)
        return self.changed(started)

    def export(self, task):
        fmt, turn = bottle.request.query.get("format", "html"), _query_int("turn")
        with self.memory_lock:
            text = reading_export().export(self.store, task, fmt, turn)
        name = reading_export().file_name(self.store, task, fmt, turn)
        bottle.response.content_type = EXPORT_TYPES[fmt]
        bottle.response.set_header("Content-Disposition", f'attachment; filename="{name}"')
        return text.encode("utf-8")

    def star(self, task, seq):
        if not seq.isdigit():
            raise BadInput(f"a turn is the seq of its prompt, a whole number, not {seq!r}")
        given = _body(Star)
        return self.changed(self.store.star(task, int(seq), given.note, given.starred))

    def usage(self):
        """The overview's figures: usage.report, as `nodwyn usage --json` prints them."""
        asked = _query(by="day", split="", since="", until="")
        with self.memory_lock:
            return usage.report(self.store, **asked)

    def activity(self):
        """The overview's whole-archive figures and heatmaps (usage.activity)."""
        with self.memory_lock:
            return activity.activity(self.store)

    def board(self):
        """The History board: a task's cards, or a project folder's since a day."""
        asked = _query(task="", project="", since="")
        with self.memory_lock:
            return board.board(self.store, **asked)

    def connect(self, agent):
        return self.changed(mcp_install().connect(agent))

    def hooks(self, agent):
        """Settings > Agents: install (or with {"install": false} remove) an agent's hooks."""
        from ..live import install as hooks

        wanted = _body(HooksChange).install
        hooks.file_of(agent)  # an agent nodwyn has no hooks for is BadInput, before anything
        said = hooks.write(agent) if wanted else hooks.remove(agent)
        return next(h for h in hooks.hook_list({agent: said}).agents if h.agent == agent)

    def blame(self):
        """Who wrote each line of a file on this machine."""
        from ..memory.provenance.blame import blame

        file = bottle.request.query.get("file", "")
        if not file:
            raise BadInput("blame takes file (a path on this computer)")
        first, last = _query_int("start", 1), _query_int("end")
        return blame(self.store, Path(file).expanduser(), first, last)

    def who_wrote(self):
        """The turns whose edits hold pasted code, or wrote a file's line."""
        from ..memory.provenance import holders

        return holders.holders(self.store, _body(holders.Asked))

    def summaries_estimate(self):
        """What summarizing the tasks would send where, cost and take; nothing is sent."""
        given = _body(SummariesAsked)
        with self.memory_lock:
            return self.summaries.estimate(given.tasks, given.project)

    def summaries_run(self):
        """The run, started only with the estimate's token (ADR 0033)."""
        given = _body(SummariesAsked)
        with self.memory_lock:
            return self.summaries.start(given.tasks, given.project, given.token)

    def embeddings_cost(self):
        """What a provider for search by meaning would be sent and cost; nothing is sent."""
        from ..memory.meaning import cost

        query = bottle.request.query
        with self.memory_lock:  # reading the cards may write their .mem
            return cost.estimate(
                self.store, query.get("kind", ""), query.get("model", ""), query.get("url", "")
            )

    def ssh_add(self):
        """Add an SSH machine and start pulling it; the list as it is now."""
        given = _body(SshAdd)
        host = ssh.add(self.store.root, given.host, given.folders, given.name)
        pulls.in_background(self.store, [host], self.feed.poke)
        return self.changed(pulls.listing(self.store.root))

    def ssh_pull(self):
        """Pull now: one SSH machine, or every one; the list with them under way."""
        given = _body(SshPull)
        root = self.store.root
        hosts = [ssh.find(root, given.id)] if given.id else ssh.hosts(root)
        pulls.in_background(self.store, hosts, self.feed.poke)
        return pulls.listing(root)

    def change_settings(self):
        given = _body(settings_form.SettingsChange)
        return self.changed(settings_form.change(self.store.root, given))


def routes(
    store: Store, token: str, feed: Feed, live: Board | None = None
) -> list[tuple[str, str, object]]:
    """Every route: (method, path, handler). One table, so one test can walk it."""
    live = live or Board(store)
    do = Handlers(store, token, feed, live)
    return [
        ("GET", "/", do.page),
        ("GET", "/static/<path:path>", do.asset),
        ("GET", "/api/tasks", do.tasks),
        ("GET", "/api/tasks/<task>", store.get),
        ("POST", "/api/tasks/<task>/title", do.rename),
        ("POST", "/api/tasks/<task>/archive", do.archive),
        ("DELETE", "/api/tasks/<task>", do.delete),
        ("GET", "/api/tasks/<task>/cards", do.cards),
        ("GET", "/api/tasks/<task>/context", do.context),
        ("GET", "/api/tasks/<task>/export", do.export),
        ("GET", "/api/tasks/<task>/resume", lambda task: resume.command(store, task)),
        ("POST", "/api/tasks/<task>/terminal", lambda task: terminal.open_in_terminal(store, task)),
        ("GET", "/api/tasks/<task>/starred", lambda task: TaskStars(starred.of_task(store, task))),
        ("POST", "/api/tasks/<task>/turns/<seq>/star", do.star),
        ("GET", "/api/starred", lambda: StarredList(starred.listing(store))),
        ("GET", "/api/usage", do.usage),
        ("GET", "/api/activity", do.activity),
        ("GET", "/api/board", do.board),
        ("GET", "/api/search", do.search),
        ("GET", "/api/recall", do.recall),
        ("GET", "/api/status", feed.status.snapshot),
        ("GET", "/api/changes", do.changes),
        ("GET", "/api/live", lambda: LiveStates(live_logs.states(store, live))),
        ("POST", "/api/live/events", do.live_event),
        ("GET", "/api/places", lambda: agents.places(store.root)),
        ("GET", "/api/quota", lambda: quota.meter(store)),
        ("POST", "/api/import", do.import_folder),
        ("GET", "/api/settings", lambda: settings_form.shown(store.root)),
        ("POST", "/api/settings", do.change_settings),
        ("GET", "/api/embeddings/cost", do.embeddings_cost),
        ("GET", "/api/machines", lambda: machines.shown(store)),
        ("POST", "/api/machines/sync", lambda: do.machines_change(machines.synced)),
        (
            "POST",
            "/api/machines/share",
            lambda: do.machines_change(machines.shared, _body(machines.Folder)),
        ),
        (
            "POST",
            "/api/machines/name",
            lambda: do.machines_change(machines.renamed, _body(machines.Name)),
        ),
        (
            "POST",
            "/api/machines/<machine>/forget",
            lambda machine: do.machines_change(machines.forgotten, machine),
        ),
        ("GET", "/api/machines/ssh", lambda: pulls.listing(store.root)),
        ("POST", "/api/machines/ssh", do.ssh_add),
        ("POST", "/api/machines/ssh/pull", do.ssh_pull),
        ("GET", "/api/mcp", lambda: mcp_install().connections()),
        ("GET", "/api/hooks", _hook_list),
        ("POST", "/api/hooks/<agent>", do.hooks),
        ("POST", "/api/mcp/<agent>", do.connect),
        ("GET", "/api/blame", do.blame),
        ("POST", "/api/who-wrote", do.who_wrote),
        ("POST", "/api/summaries/estimate", do.summaries_estimate),
        ("POST", "/api/summaries/run", do.summaries_run),
        ("GET", "/api/summaries/progress", do.summaries.progress),
        ("POST", "/api/summaries/cancel", do.summaries.cancel),
    ]


def _hook_list():
    from ..live import install as hooks

    return hooks.hook_list()


def _query(**defaults: str) -> dict[str, str]:
    """The request's query values of these names, each its default when not given."""
    query = bottle.request.query
    return {name: query.get(name, default) for name, default in defaults.items()}


def _body(kind):
    try:
        return msgspec.json.decode(bottle.request.body.read(), type=kind)
    except msgspec.MsgspecError as exc:
        raise BadInput(f"the request body is not what this route takes: {exc}") from None
    except TimeoutError:
        raise bottle.HTTPError(408, "the request's body did not arrive in time") from None


def _query_int(name: str, default: int | None = None) -> int | None:
    value = bottle.request.query.get(name, "")
    if value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise BadInput(f"{name} must be a whole number, not {value!r}") from None


def _wait_seconds() -> float:
    value = _query_int("wait", int(LONG_POLL))
    if value < 0:
        raise BadInput("wait must not be negative")
    return float(value)


def reading_export():
    """Exporting (Markdown and HTML, with the Markdown parser), loaded on the first export."""
    from ..reading import export

    return export


def mcp_install():
    """Connecting agents to nodwyn's MCP server, loaded when Settings first asks."""
    from ..mcp import install

    return install
