"""A demo data directory: a dozen realistic tasks, so a fresh machine has something to show.

Written through the store and its log writer like any task, with fixed ids and times relative
to now. Idempotent: a demo task that exists already (or was deleted by the person) is left
as it is. The tasks cover what the console must show: several projects (two folders both
named `site`), a compaction, a sub-agent, failed commands and turns, an archived task, a task
that needs an answer, a machine run, and a log whose text looks like HTML.
"""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from . import paths
from .errors import BadInput, TaskBusy
from .log import records as r
from .store import Store

HOME = "/home/ana"


def demo_dir(root: str | Path | None = None) -> Path:
    """Where `--demo` keeps its tasks: a folder of its own inside the data directory."""
    return paths.data_dir(root) / "demo"


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

    def ask(self, text: str) -> "_Log":
        return self.add(r.Message(text=text), after=60)

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
        return self.add(r.TurnEnd(status=status, duration_ms=duration, cost_usd=cost), after=2)


def _start(project: str, tool: str = "claude-code", branch: str = "main", **extra):
    origin = r.Origin(tool=tool, path=f"{HOME}/.claude/projects/demo.jsonl", version="2.0.14")
    if tool == "codex":
        origin = r.Origin(tool=tool, path=f"{HOME}/.codex/sessions/demo.jsonl", version="0.46")
    elif tool == "nodwyn":
        origin = r.Origin(tool=tool)
    model = "gpt-5-codex" if tool == "codex" else "claude-sonnet-4-5"
    return r.SessionStart(project=project, origin=origin, model=model, branch=branch, **extra)


GO_TEST_FAIL = "\n".join(
    [
        f"=== RUN   TestPager/{name}\n--- PASS: TestPager/{name} (0.00s)"
        for name in (
            "Empty",
            "One",
            "Two",
            "Many",
            "Wrap",
            "Unicode",
            "Resize",
            "Scroll",
            "Search",
            "Jump",
            "Mark",
            "Yank",
            "Tail",
            "Follow",
            "Reload",
            "Filter",
            "Highlight",
            "Keys",
        )
    ]
    + [
        "=== RUN   TestPagerOrder",
        "    pager_test.go:88: order = [3 1 2], want [1 2 3]",
        "--- FAIL: TestPagerOrder (0.02s)",
        "FAIL",
        "FAIL\tgithub.com/ana/pager\t0.412s",
    ]
)


def _flaky(log: _Log) -> None:
    log.ask("Fix the flaky TestPagerOrder: it fails about one run in five on CI.")
    log.add(
        r.Plan(
            items=[
                r.PlanItem(text="Reproduce the failure with -count", status="completed"),
                r.PlanItem(text="Find where the order comes from", status="completed"),
                r.PlanItem(text="Make the order deterministic", status="completed"),
                r.PlanItem(text="Run the package tests 50 times", status="pending"),
            ]
        )
    )
    log.run("Bash", {"command": "go test ./pager -run TestPagerOrder -count 20"}, GO_TEST_FAIL, 1)
    log.say(
        "It reproduces: the pages come back in map order. "
        "I'll ask a helper to find every map range."
    )
    log.calls += 1
    task_call = f"call_{log.calls:03d}"
    log.add(
        r.Reply(
            calls=[
                r.Call(
                    id=task_call,
                    tool="Task",
                    input={
                        "description": "Find map iteration in pager",
                        "subagent_type": "Explore",
                    },
                )
            ]
        )
    )
    log.add(
        r.Message(
            text="List every `range` over a map in pager/ that feeds output.", agent="Explore"
        )
    )
    log.run(
        "Grep",
        {"pattern": "range .*pages", "path": "pager/"},
        "pager/order.go:41:\tfor id, page := range p.pages {",
        agent="Explore",
    )
    log.say(
        "One place: pager/order.go:41 ranges over `p.pages` (a map) to build the output.",
        agent="Explore",
        cost=0.01,
    )
    log.add(
        r.Result(
            call=task_call,
            tool="Task",
            output="pager/order.go:41 ranges over the map p.pages to build the output.",
        )
    )
    log.run(
        "Edit",
        {
            "file_path": "pager/order.go",
            "old_string": "for id, page := range p.pages {",
            "new_string": "for _, id := range p.sortedIDs() {",
        },
        "The file pager/order.go has been updated.",
        None,
        files=["pager/order.go"],
    )
    log.run(
        "Bash", {"command": "go test ./pager -count 50"}, "ok  \tgithub.com/ana/pager\t3.801s", 0
    )
    log.say(
        "Fixed. `TestPagerOrder` failed because `order.go` ranged over a map. It now walks "
        "the sorted ids:\n\n```go\nfor _, id := range p.sortedIDs() {\n\tpage := p.pages[id]\n"
        "\tout = append(out, page)\n}\n```\n\n50 runs pass.",
        cost=0.12,
    )
    log.end(cost=0.41)


def _limit(log: _Log) -> None:
    log.ask("Add a --limit flag to `pager list` that stops after N pages.")
    log.run("Read", {"file_path": "cmd/list.go"}, "package cmd\n\nfunc listCmd() *cobra.Command {")
    log.run(
        "Edit",
        {"file_path": "cmd/list.go"},
        "The file cmd/list.go has been updated.",
        None,
        files=["cmd/list.go"],
    )
    log.run(
        "Bash",
        {"command": "go build ./... && go test ./cmd"},
        "ok  \tgithub.com/ana/pager/cmd\t0.2s",
    )
    log.say("Added `--limit N` (0 means no limit) with a test in cmd/list_test.go.", cost=0.06)
    log.end(cost=0.09)


def _index(log: _Log) -> None:
    """A long task: many turns, then a compaction over the first stretch."""
    log.ask("The pager index build takes 40 s on the big fixture. Profile it and speed it up.")
    for round_ in range(1, 31):
        log.run(
            "Bash",
            {"command": f"go test -run XXX -bench BenchmarkIndex -count 1 # round {round_}"},
            f"BenchmarkIndex-8   \t      {3 + round_ % 4}\t {900 - round_ * 17} ms/op",
            0,
        )
        log.say(
            f"Round {round_}: the profile shows tokenize() and the map growth; "
            f"trying change {round_}."
        )
    log.end(cost=1.92)
    first, last = 1, len(log.items) + 1
    log.add(
        r.ContextCompact(
            note="Profiled the index build; pre-sizing the postings map and reusing the tokenizer "
            "buffer took it from 40 s to 6.1 s. Remaining: the sort in flush().",
            first_seq=first,
            last_seq=last,
        ),
        after=30,
    )
    log.ask("Now look at the sort in flush().")
    log.run(
        "Bash", {"command": "go test -bench BenchmarkFlush"}, "BenchmarkFlush-8  120  9.8 ms/op"
    )
    log.say("flush() sorts twice; sorting once in place brings it to 4.2 ms/op.", cost=0.2)
    log.end(cost=0.33)


def _site_form(log: _Log) -> None:
    log.ask(
        "The contact form lets `<script>alert(1)</script>` through into the thank-you page. Fix it."
    )
    log.run(
        "Read",
        {"file_path": "src/thanks.html"},
        "<p>Thanks, {{name}}!</p>\n<img src=x onerror=alert(1)>\n<script>alert(1)</script>",
    )
    log.run(
        "Bash",
        {"command": "npm test"},
        "FAIL src/form.test.js\n  ✕ escapes the name (12 ms)\n"
        '  Expected: "&lt;script&gt;"\n  Received: "<script>alert(1)</script>"',
        1,
    )
    log.add(r.Error(text="API Error: 529 overloaded_error <img src=x onerror=alert(1)>"))
    log.end(status="failed", cost=0.07)
    log.ask("Try again: escape the name with the template's own escaping.")
    log.run(
        "Edit",
        {"file_path": "src/thanks.html"},
        "The file src/thanks.html has been updated.",
        None,
        files=["src/thanks.html"],
    )
    log.run("Bash", {"command": "npm test"}, "PASS src/form.test.js\nTests: 14 passed, 14 total")
    log.say(
        "The name now goes through `{{name | e}}`, so `<img src=x onerror=alert(1)>` shows as "
        "text. Tests pass.",
        cost=0.05,
    )
    log.end(cost=0.08)


def _simple(ask: str, command: str, output: str, answer: str, exit: int = 0, status="completed"):
    def write(log: _Log) -> None:
        log.ask(ask)
        log.run("Bash", {"command": command}, output, exit)
        log.say(answer, cost=0.03)
        log.end(status=status, cost=0.04)

    return write


def _needs_answer(log: _Log) -> None:
    log.ask("Delete the old release branches that were merged more than a year ago.")
    log.run(
        "Bash",
        {"command": "git branch -r --merged main | grep release/"},
        "origin/release/1.0\norigin/release/1.1\norigin/release/1.2",
    )
    log.add(
        r.ApprovalAsk(
            call="call_push",
            tool="Bash",
            input={"command": "git push origin --delete release/1.0 release/1.1"},
        )
    )


def _tasks() -> list[tuple]:
    """(id, start record, days ago, writer, title, archived, closed) for each demo task."""
    pager, site, work_site = f"{HOME}/src/pager", f"{HOME}/src/site", f"{HOME}/work/site"
    infra = f"{HOME}/src/infra"
    return [
        ("demo-needs-answer", _start(infra, "nodwyn"), 0.02, _needs_answer, "", False, False),
        ("demo-pager-flaky", _start(pager, branch="fix/order"), 0.1, _flaky, "", False, True),
        ("demo-pager-limit", _start(pager), 0.9, _limit, "", False, True),
        (
            "demo-pager-index",
            _start(pager, branch="perf/index"),
            1.5,
            _index,
            "Speed up the index build",
            False,
            True,
        ),
        (
            "demo-pager-readme",
            _start(pager),
            3,
            _simple(
                "Update the README's install section for Go 1.23.",
                "go version",
                "go version go1.23.2 linux/amd64",
                "The README now says `go install ...@latest`.",
            ),
            "",
            False,
            True,
        ),
        (
            "demo-pager-lint",
            _start(pager),
            4,
            _simple(
                "Make golangci-lint pass.",
                "golangci-lint run ./...",
                "pager/order.go:12:2: ineffectual assignment to err (ineffassign)",
                "One finding left; it needs a decision about the error.",
                1,
                "failed",
            ),
            "",
            False,
            True,
        ),
        (
            "demo-pager-ci",
            _start(pager),
            6,
            _simple(
                "Cache Go modules in the CI workflow.",
                "cat .github/workflows/ci.yml",
                "jobs:\n  test:\n    runs-on: ubuntu-latest",
                "Added actions/cache keyed on go.sum.",
            ),
            "",
            False,
            True,
        ),
        (
            "demo-pager-go123",
            _start(pager),
            40,
            _simple("Upgrade to Go 1.23.", "go mod tidy", "", "go.mod now says go 1.23."),
            "",
            True,
            True,
        ),
        ("demo-site-form", _start(site, branch="fix/xss"), 0.3, _site_form, "", False, True),
        (
            "demo-work-site-links",
            _start(work_site, "codex"),
            2,
            _simple(
                "Fix the broken links in docs/.",
                "lychee docs/",
                "✗ [404] https://example.com/old-guide | docs/start.md",
                "Replaced 3 dead links.",
                2,
            ),
            "",
            False,
            True,
        ),
        (
            "demo-infra-tf",
            _start(infra, "codex"),
            8,
            _simple(
                "terraform plan fails with a missing provider.",
                "terraform plan",
                "Error: Failed to query available provider packages",
                "Pinned hashicorp/aws ~> 5.0.",
                1,
            ),
            "",
            False,
            True,
        ),
        (
            "demo-machine-changelog",
            _start(pager, "codex", machine=True),
            0.5,
            _simple(
                "Summarize the CHANGELOG for the release notes.",
                "cat CHANGELOG.md",
                "## 1.4.0\n- --limit flag",
                "1.4.0 adds `--limit`.",
            ),
            "",
            False,
            True,
        ),
    ]


def make_demo(root: Path) -> Store:
    """Write the demo tasks into the data directory `root` (those missing only)."""
    store = Store(root)
    now = datetime.now(UTC)
    for task, start, days_ago, write, title, archived, closed in _tasks():
        if store.exists(task) or store.was_deleted(task):
            continue
        started = now - timedelta(days=days_ago, minutes=20)
        log = _Log(started)
        write(log)
        extra: list[r.Known] = []
        if title:
            extra.append(r.SessionTitle(title=title, actor="person"))
        if closed and start.origin.tool == "nodwyn":
            extra.append(r.SessionClose())
        if archived:
            extra.append(r.SessionArchive(archived=True))
        for record in extra:
            log.add(record, after=5)
        try:
            with store.create(msgspec.structs.replace(start, at=_stamp(started)), task) as w:
                w.append(log.items)
        except (BadInput, TaskBusy):
            continue  # deleted meanwhile or being written by another process: leave it
    return store
