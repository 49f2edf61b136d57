"""A demo data directory: a dozen realistic tasks, so a fresh machine has something to show.

The tasks are data (demo.toml beside this file, STYLE 16): each a list of steps (a prompt, a
reply, a call and its result...) that `_Log` turns into records, each a few seconds after the
one before. Written through the store and its log writer like any task, with fixed ids and
times relative to now. Idempotent: a demo task that exists already (or was deleted by the
person) is left as it is. The tasks cover what the console must show: several projects (two
folders both named `site`), a compaction, a sub-agent, failed commands and turns, an archived
task, a task that needs an answer, a machine run, and a log whose text looks like HTML.
"""

import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from .. import paths
from ..errors import BadInput, TaskBusy
from ..log import records as r
from .store import Store

HOME = "/home/ana"
TASKS = Path(__file__).resolve().parent / "demo.toml"


def demo_dir(root: str | Path | None = None) -> Path:
    """Where `--demo` keeps its tasks: a folder of its own inside the data directory."""
    return paths.data_dir(root) / "demo"


def _made(kind, **given):
    """A Struct with a field given its default value left at the default itself: msgspec leaves
    a default out of the log only when it is that very object, not an equal string read from
    demo.toml."""
    defaults = {field.name: field.default for field in msgspec.structs.fields(kind)}
    return kind(**{name: value for name, value in given.items() if value != defaults.get(name)})


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class _Log:
    """Records of one demo task, each a few seconds after the one before."""

    def __init__(self, started: datetime):
        self.clock = started
        self.items: list[r.Known] = []
        self.calls = 0

    def add(self, record: r.Known, after: float = 4.0) -> "_Log":
        self.clock += timedelta(seconds=after)
        self.items.append(msgspec.structs.replace(record, at=_stamp(self.clock)))
        return self

    def ask(self, text: str, agent: str | None = None, after: float = 60) -> "_Log":
        return self.add(r.Message(text=text, agent=agent), after=after)

    def say(self, text: str, cost: float = 0.0, agent: str | None = None) -> "_Log":
        usage = r.Usage(input=1800, output=420, cache_read=9000)
        return self.add(
            r.Reply(text=text, model="claude-sonnet-4-5", usage=usage, cost_usd=cost, agent=agent)
        )

    def run(self, tool: str, given, output: str, exit: int | None = 0, agent=None, files=()):
        """A call and its result; a shell's non-zero exit marks the result as an error."""
        self.calls += 1
        call = f"call_{self.calls:03d}"
        self.add(r.Reply(calls=[r.Call(id=call, tool=tool, input=given)], agent=agent), after=3)
        error = exit not in (0, None)
        result = r.Result(
            call=call, tool=tool, output=output, error=error, exit=exit, files=list(files)
        )
        return self.add(msgspec.structs.replace(result, agent=agent), after=6)

    def end(self, status: str = "completed", cost: float = 0.05) -> "_Log":
        started = next(
            (
                rec.at
                for rec in reversed(self.items)
                if isinstance(rec, r.Message) and not rec.agent
            ),
            _stamp(self.clock),
        )
        began = datetime.fromisoformat(started.replace("Z", "+00:00"))
        duration = int((self.clock - began).total_seconds() * 1000) + 2000
        return self.add(_made(r.TurnEnd, status=status, duration_ms=duration, cost_usd=cost), 2)

    def call(self, tool: str, given: dict, after: float = 4.0) -> "_Log":
        """A call whose result comes later (`result`), as a sub-agent's task is."""
        self.calls += 1
        self.open_call = f"call_{self.calls:03d}"
        return self.add(r.Reply(calls=[r.Call(id=self.open_call, tool=tool, input=given)]), after)

    def result(self, tool: str, output: str, after: float = 4.0) -> "_Log":
        return self.add(r.Result(call=self.open_call, tool=tool, output=output), after)

    def compact(self, note: str, after: float = 4.0) -> "_Log":
        """A compaction of every record so far (the session's start is seq 1)."""
        return self.add(
            r.ContextCompact(note=note, first_seq=1, last_seq=len(self.items) + 1), after
        )


# Each step of demo.toml by the key that names its kind: what it adds to the log.
STEPS = {
    "ask": lambda log, s: log.ask(s["ask"], s.get("agent"), s.get("after", 60)),
    "say": lambda log, s: log.say(s["say"], s.get("cost", 0.0), s.get("agent")),
    "run": lambda log, s: log.run(
        s["run"], s["input"], s["output"], s.get("exit"), s.get("agent"), s.get("files", ())
    ),
    "call": lambda log, s: log.call(s["call"], s["input"], s.get("after", 4.0)),
    "result": lambda log, s: log.result(s["result"], s["output"], s.get("after", 4.0)),
    "plan": lambda log, s: log.add(
        r.Plan(items=[_made(r.PlanItem, text=i["text"], status=i["status"]) for i in s["plan"]]),
        s.get("after", 4.0),
    ),
    "error": lambda log, s: log.add(r.Error(text=s["error"]), s.get("after", 4.0)),
    "compact": lambda log, s: log.compact(s["compact"], s.get("after", 4.0)),
    "approval": lambda log, s: log.add(
        r.ApprovalAsk(call=s["id"], tool=s["approval"], input=s["input"]), s.get("after", 4.0)
    ),
    "end": lambda log, s: log.end(s["end"], s.get("cost", 0.05)),
}


def _play(log: _Log, steps: list[dict]) -> None:
    for step in steps:
        kinds = [kind for kind in STEPS if kind in step]
        if len(kinds) != 1:
            raise ValueError(f"{TASKS.name}: a step names one of {', '.join(STEPS)}: {step}")
        STEPS[kinds[0]](log, step)


def _start(task: dict) -> r.SessionStart:
    named = task.get("origin", "claude-code")
    origin = r.Origin(tool=named, path=f"{HOME}/.claude/projects/demo.jsonl", version="2.0.14")
    if named == "codex":
        origin = r.Origin(tool=named, path=f"{HOME}/.codex/sessions/demo.jsonl", version="0.46")
    elif named == "nodwyn":
        origin = r.Origin(tool=named)
    model = "gpt-5-codex" if named == "codex" else "claude-sonnet-4-5"
    branch, machine = task.get("branch", "main"), task.get("machine", False)
    return r.SessionStart(
        project=task["project"], origin=origin, model=model, branch=branch, machine=machine
    )


def make_demo(root: Path) -> Store:
    """Write the demo tasks into the data directory `root` (those missing only)."""
    store = Store(root)
    now = datetime.now(UTC)
    for task in tomllib.loads(TASKS.read_text(encoding="utf-8"))["task"]:
        if store.exists(task["id"]) or store.was_deleted(task["id"]):
            continue
        started = now - timedelta(days=task["days_ago"], minutes=20)
        log = _Log(started)
        _play(log, task["step"])
        start = _start(task)
        extra: list[r.Known] = []
        if task.get("title"):
            extra.append(r.SessionTitle(title=task["title"], actor="person"))
        if task.get("closed", True) and start.origin.tool == "nodwyn":
            extra.append(r.SessionClose())
        if task.get("archived", False):
            extra.append(r.SessionArchive(archived=True))
        for record in extra:
            log.add(record, after=5)
        try:
            with store.create(msgspec.structs.replace(start, at=_stamp(started)), task["id"]) as w:
                w.append(log.items)
        except (BadInput, TaskBusy):
            continue  # deleted meanwhile or being written by another process: leave it
    return store
