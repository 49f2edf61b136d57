"""The `nodwyn` command line.

A thin edge: each command parses its arguments, calls one core function and prints. Expected
errors (NodwynError) print one line on stderr and exit 1, never a traceback.
"""

import json
import os
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from . import __version__
from .errors import NodwynError

if TYPE_CHECKING:
    import argparse

# The store (and msgspec with it) is imported inside the commands, so that a listing from a
# current catalogue (listing.fast_json) starts in the least time.


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if quick_listing(argv):
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args) or 0
    except NodwynError as exc:
        print(f"nodwyn: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("nodwyn: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def build_parser() -> "argparse.ArgumentParser":
    import argparse  # not on quick_listing's path

    parser = argparse.ArgumentParser(
        prog="nodwyn", description="Keep and search the history of AI coding-agent sessions."
    )
    parser.add_argument("--version", action="version", version=f"nodwyn {__version__}")
    parser.add_argument(
        "--data-dir", help="data directory (default: NODWYN_DATA_DIR, else the OS's own)"
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    cmd = sub.add_parser("sessions", help="list tasks, newest activity first")
    cmd.add_argument("--all", action="store_true", help="archived tasks too")
    cmd.add_argument("--json", action="store_true", help="print a JSON array")
    cmd.set_defaults(run=cmd_sessions)

    cmd = sub.add_parser("rename", help="name a task (an empty name takes the name back)")
    cmd.add_argument("id")
    cmd.add_argument("title")
    cmd.set_defaults(run=lambda a: show(store(a).rename(a.id, a.title)))

    for name, archived in (("archive", True), ("unarchive", False)):
        cmd = sub.add_parser(name, help=f"{name} a closed task")
        cmd.add_argument("id")
        cmd.set_defaults(run=lambda a, archived=archived: show(store(a).archive(a.id, archived)))

    cmd = sub.add_parser("close", help="close a task")
    cmd.add_argument("id")
    cmd.set_defaults(run=lambda a: show(store(a).close(a.id)))

    cmd = sub.add_parser("resume", help="open a closed task again")
    cmd.add_argument("id")
    cmd.set_defaults(run=lambda a: show(store(a).resume(a.id)))

    cmd = sub.add_parser("delete", help="delete a closed task and all nodwyn keeps of it")
    cmd.add_argument("id")
    cmd.add_argument("--yes", action="store_true", help="do not ask")
    cmd.set_defaults(run=cmd_delete)

    cmd = sub.add_parser("serve", help="show the console in a browser (until Ctrl+C)")
    cmd.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    cmd.add_argument("--open", action="store_true", help="open the page in the default browser")
    cmd.add_argument("--demo", action="store_true", help="use a data directory of demo tasks")
    cmd.set_defaults(run=cmd_serve)
    add_agent_commands(sub)
    add_app_command(sub)
    add_memory_commands(sub)
    add_import_command(sub)
    return parser


def store(args):
    from .store import Store

    return Store(args.data_dir)


def show(task) -> None:
    print(f"{task.id}  {task.title}  ({task.state}{', archived' if task.archived else ''})")


def quick_listing(argv: list[str]) -> bool:
    """`[--data-dir DIR] sessions [--all] --json` printed from a current catalogue without
    building the parser for every command (a listing is what scripts run most); False when
    the arguments are anything else or the catalogue must be folded first."""
    args = list(argv)
    root = None
    if args[:1] == ["--data-dir"] and len(args) > 1:
        root, args = args[1], args[2:]
    elif args and args[0].startswith("--data-dir="):
        root, args = args[0].split("=", 1)[1], args[1:]
    if (
        not args
        or args[0] != "sessions"
        or sorted(args[1:]) not in (["--json"], ["--all", "--json"])
    ):
        return False
    from . import listing, paths

    text = listing.fast_json(paths.data_root(root), None if "--all" in args else False)
    if text is None:
        return False
    try:
        sys.stdout.buffer.write(text + b"\n")
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return True


def cmd_sessions(args) -> None:
    archived = None if args.all else False
    if args.json:  # main() tried quick_listing first: the catalogue must be folded
        sys.stdout.buffer.write(store(args).list_json(archived).encode() + b"\n")
        return
    tasks = store(args).list(archived)
    if not tasks:
        print("No tasks yet. Import agent sessions with: nodwyn import claude  (or codex)")
        return
    now = datetime.now(UTC)
    for task in tasks:
        marks = ", ".join(
            mark
            for mark in (
                task.state,
                "archived" if task.archived else "",
                f"{task.turns} turns",
                cost(task),
            )
            if mark
        )
        when = relative(task.last_activity, now)
        print(f"{task.id}  {when:>9}  {task.title}  [{marks}]  {task.project}")


def cost(task) -> str:
    """A task's cost as lists show it: dollars, "cost unknown" for an imported task, else ""."""
    if task.cost_usd is not None:
        return f"${task.cost_usd:.2f}"
    return "cost unknown" if task.origin != "nodwyn" and task.turns else ""


def cmd_delete(args) -> int:
    data = store(args)
    task = data.get(args.id)
    if not args.yes:
        if not sys.stdin.isatty():
            raise NodwynError("delete asks first: add --yes to delete without asking")
        answer = input(f"Delete {task.title!r} and everything nodwyn keeps of it? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Kept.")
            return 1
    data.delete(args.id)
    print(f"Deleted {args.id}.")
    return 0


def cmd_serve(args) -> int:
    from . import api, demo  # bottle is loaded only by the commands that serve
    from .store import Store

    data = Store(demo.demo_dir(args.data_dir)) if args.demo else store(args)
    if args.demo:
        demo.make_demo(data.root)
    server = api.Server(data, port=args.port).start()
    print(f"nodwyn serves {data.root} at {server.url}", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(server.url)
    try:
        import threading

        threading.Event().wait()
    finally:
        server.stop()
    return 0


def add_agent_commands(sub) -> None:
    """`nodwyn mcp`, `nodwyn mcp install` and `nodwyn settings` (issues 9 and 10)."""
    cmd = sub.add_parser("mcp", help="serve nodwyn's tools to an agent over MCP (stdio)")
    cmd.add_argument("--agent", choices=("claude", "codex"), help="the agent that starts it")
    cmd.add_argument("--schema-size", action="store_true", help="print the tools' schema bytes")
    cmd.set_defaults(run=cmd_mcp)
    install = cmd.add_subparsers(title="mcp commands", metavar="COMMAND")
    each = install.add_parser("install", help="the lines an agent's configuration needs")
    each.add_argument("agent", choices=("claude", "codex"))
    each.add_argument("--write", action="store_true", help="add them to the agent's config")
    each.set_defaults(run=cmd_mcp_install)

    cmd = sub.add_parser("settings", help="show settings, or change one")
    cmd.set_defaults(run=lambda a: print_json(settings_shown(a)))
    change = cmd.add_subparsers(title="settings", metavar="SETTING")
    each = change.add_parser("earlier-tasks", help="let agents search a project's earlier tasks")
    each.add_argument("project", help="the project's folder")
    each.add_argument("switch", choices=("on", "off"))
    each.set_defaults(run=cmd_earlier_tasks)
    each = change.add_parser("search-mode", help="rank search by words, meaning or both (#8)")
    each.add_argument("mode", choices=("words", "meaning", "both"))
    each.set_defaults(run=cmd_search_mode)
    each = change.add_parser("embeddings", help="vectors from the built-in model or a provider")
    each.add_argument("kind", choices=("builtin", "ollama", "openai"))
    each.add_argument("url", nargs="?", default="", help="the provider's address")
    each.add_argument("model", nargs="?", default="", help="the provider's model name")
    each.set_defaults(run=cmd_embeddings)


def cmd_search_mode(args) -> int:
    from . import settings

    settings.update(store(args).root, search_mode=args.mode)
    print(f"Search now ranks by {'words and meaning' if args.mode == 'both' else args.mode}.")
    return 0


def cmd_embeddings(args) -> int:
    from . import settings
    from .memory.providers import Provider

    if args.kind != "builtin":
        Provider(args.kind, args.url, args.model)  # refuses a bad address or no model
    chosen = {"embeddings_url": args.url, "embeddings_model": args.model}
    settings.update(store(args).root, embeddings=args.kind, **chosen)
    if args.kind == "builtin":
        print("Vectors come from the built-in model; nothing is sent anywhere.")
    else:
        print(f"Vectors now come from {args.url} ({args.model}): the text of every turn's card "
              "and compaction note, and every search, will be sent there.")  # fmt: skip
    return 0


def settings_shown(args) -> dict:
    from msgspec import to_builtins

    from . import settings

    return to_builtins(settings.load(store(args).root))


def cmd_mcp(args) -> int:
    from . import mcp_server  # the MCP SDK takes most of a second to import: only here

    if args.schema_size:
        mcp_server.print_sizes()
        return 0
    mcp_server.serve(store(args), agent=args.agent)
    return 0


def cmd_mcp_install(args) -> int:
    from . import mcp_install

    print(mcp_install.write(args.agent) if args.write else mcp_install.lines(args.agent))
    return 0


def cmd_earlier_tasks(args) -> int:
    from . import settings
    from .store import project_of

    root, project = store(args).root, project_of(args.project)
    allowed = dict(settings.load(root).earlier_tasks)
    allowed.pop(project, None)
    if args.switch == "on":
        allowed[project] = True
    settings.update(root, earlier_tasks=allowed)
    verb = "may now" if args.switch == "on" else "may no longer"
    print(f"Agents {verb} search earlier tasks of {project} (nodwyn mcp).")
    return 0


def add_app_command(sub) -> None:
    """`nodwyn app` (issue 6): the window, the tray and the worker; `nodwyn-app` runs it."""
    import argparse

    cmd = sub.add_parser("app", help="open the app: a window, a tray icon, agents followed")
    cmd.add_argument("--demo", action="store_true", help="use a data directory of demo tasks")
    cmd.add_argument("--search", action="store_true", help="open with the search box focused")
    cmd.add_argument("--self-check", help=argparse.SUPPRESS)  # the window test's report file
    cmd.set_defaults(run=cmd_app)


def cmd_app(args) -> int:
    from pathlib import Path

    from . import demo, instance, settings

    data = demo.make_demo(demo.demo_dir(args.data_dir)) if args.demo else store(args)
    if args.demo and not settings.path(data.root).exists():
        # The demo shows its own tasks: it does not pull the person's sessions into them.
        settings.update(data.root, follow_claude=False, follow_codex=False)
    claim = instance.claim(data.root)
    if claim is None:  # checked before the window's libraries load: a second launch is quick
        instance.ask(data.root, "search" if args.search else "show")
        print(f"nodwyn is already running for {data.root}; its window was brought forward.")
        return 0
    try:
        if sys.platform.startswith("linux") and not any(
            os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
        ):
            raise NodwynError(
                "no display to open a window on: `nodwyn serve --open` shows the console "
                "in a browser"
            )
        from . import desktop

        check = Path(args.self_check) if args.self_check else None
        return desktop.run(data, claim, self_check=check, search=args.search)
    finally:
        claim.close()


def add_memory_commands(sub) -> None:
    """`nodwyn memory search|recall` (issue 4)."""
    memory = sub.add_parser("memory", help="search and recall what tasks came to")
    inner = memory.add_subparsers(title="memory commands", metavar="COMMAND")
    cmd = inner.add_parser("search", help="find turns by words (all tasks unless narrowed)")
    cmd.add_argument("words", nargs="+")
    cmd.add_argument("--task", help="only this task (with --project: its project's other tasks)")
    cmd.add_argument("--project", help="the tasks of this folder's project (git worktrees too)")
    cmd.add_argument("--all", action="store_true", help="every task (the default)")
    cmd.add_argument("-n", type=int, default=20, help="at most N matching events (default 20)")
    cmd.add_argument(
        "--mode", choices=("words", "meaning", "both"),
        help="rank by words, by meaning, or both fused (default: the search_mode setting)",
    )  # fmt: skip
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_memory_search)
    cmd = inner.add_parser("recall", help="one event back whole; a turn's first message: its card")
    cmd.add_argument("task")
    cmd.add_argument("seq", type=int)
    cmd.add_argument("start", type=int, nargs="?", default=0, help="first line shown (from 0)")
    cmd.add_argument("count", type=int, nargs="?", default=200, help="lines shown")
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_memory_recall)
    memory.set_defaults(run=lambda a: memory.print_help() or 2)


def cmd_memory_search(args) -> int:
    import msgspec

    from . import memory

    if args.all:
        scope, project = "all", None
    elif args.project:
        scope, project = "project", args.project
    else:
        scope, project = ("task" if args.task else "all"), None
    found = memory.search(
        store(args), " ".join(args.words), scope=scope, task=args.task, project=project,
        limit=args.n, mode=args.mode,
    )  # fmt: skip
    if args.mode in ("meaning", "both") and found.mode == "words":
        print("(search by meaning is unavailable now: words alone)", file=sys.stderr)
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(found) + b"\n")
        return 0
    task = None
    for turn in found.turns:
        if turn.task != task:
            task = turn.task
            print(f"{turn.task}  {turn.title}  ({turn.project})")
        print(f"  {turn.head}  [{turn.score:.2f}]")
        for event in turn.events:
            print(f"    seq {event.seq} {event.heading}")
            for line in event.lines:
                print(f"      {line}")
    if not found.turns:
        print("Nothing found.")
    for name in found.incomplete:
        print(f"(log {name} has lines that could not be read)", file=sys.stderr)
    return 0


def cmd_memory_recall(args) -> int:
    import msgspec

    from . import memory

    found = memory.recall(store(args), args.task, args.seq)
    if args.start < 0 or args.count < 1:
        raise NodwynError("START is 0 or more and COUNT 1 or more")
    end = args.start + args.count
    if args.json:
        found = msgspec.structs.replace(found, lines=found.lines[args.start : end])
        sys.stdout.buffer.write(msgspec.json.encode(found) + b"\n")
        return 0
    if found.card is not None:
        lines = [found.card.head, *found.lines]
    else:
        lines = msgspec.json.format(msgspec.json.encode(found.event)).decode().splitlines()
    for line in lines[args.start : end]:
        print(line)
    if end < len(lines):
        print(f"({len(lines) - end} more lines: nodwyn memory recall {args.task} {args.seq} {end})")
    return 0


def add_import_command(sub) -> None:
    """`nodwyn import claude|codex [PATH...]` (issue 3)."""
    cmd = sub.add_parser("import", help="import Claude Code or Codex sessions as tasks")
    cmd.add_argument("tool", choices=("claude", "codex"), help="whose sessions")
    cmd.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: the agent's own)"
    )
    cmd.add_argument("--json", action="store_true", help="print what happened as JSON")
    cmd.set_defaults(run=cmd_import)


def cmd_import(args) -> int:
    from pathlib import Path

    import msgspec

    from .importers.sync import import_paths

    progress = None
    if sys.stderr.isatty():

        def progress(done: int, total: int) -> None:
            end = "\n" if done == total else ""
            print(f"\rimporting: {done}/{total} files", end=end, file=sys.stderr, flush=True)

    paths = [Path(p) for p in args.paths] or None
    report = import_paths(store(args), args.tool, paths, progress)
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
        return 0
    print(
        f"{len(report.created)} created, {len(report.extended)} extended, "
        f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped"
    )
    for skipped in report.skipped:
        print(f"  skipped {skipped.path}: {skipped.reason}")
    return 0


def relative(at: str, now: datetime) -> str:
    """A time as lists show it: 'now', '5m', '2h', 'yesterday', '3d', or the date."""
    if not at:
        return "-"
    from .catalogue import parse_time

    seconds = (now - parse_time(at)).total_seconds()
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    if seconds < 2 * 86400:
        return "yesterday"
    if seconds < 30 * 86400:
        return f"{int(seconds // 86400)}d"
    return at[:10]


def print_json(data) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=None))


if __name__ == "__main__":
    sys.exit(main())
