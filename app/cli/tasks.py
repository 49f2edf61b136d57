"""`nodwyn sessions`, `rename`, `archive`, `unarchive`, `close`, `resume`, `delete` and `serve`:
what a person does to tasks, and the console in a browser."""

import json
import sys
from datetime import UTC, datetime

from ..errors import NodwynError
from .console import show, store


def add_sessions(sub) -> None:
    cmd = sub.add_parser("sessions", help="list tasks, newest activity first")
    cmd.add_argument("--all", action="store_true", help="archived tasks too")
    cmd.add_argument("--json", action="store_true", help="print a JSON array")
    cmd.add_argument("--agent", metavar="NAME", help="only this agent's tasks (gemini, ...)")
    cmd.add_argument("--machine", metavar="NAME", help="only the tasks that ran on this machine")
    cmd.add_argument(
        "--live", action="store_true", help="what each live session does now (needs the app)"
    )
    cmd.set_defaults(run=cmd_sessions)


def add_tasks(sub) -> None:
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
    cmd.add_argument(
        "--terminal", action="store_true", help="go on with it: the agent, in a terminal"
    )
    cmd.set_defaults(run=cmd_resume)

    cmd = sub.add_parser("delete", help="delete a closed task and all nodwyn keeps of it")
    cmd.add_argument("id")
    cmd.add_argument("--yes", action="store_true", help="do not ask")
    cmd.set_defaults(run=cmd_delete)


def cmd_resume(args) -> None:
    """Without --terminal, nodwyn's own task is opened again; with it, the agent's session goes
    on in a terminal in its folder (reading/terminal.py; a task of nodwyn's has no agent)."""
    if not args.terminal:
        return show(store(args).resume(args.id))
    from ..reading.terminal import open_in_terminal

    opened = open_in_terminal(store(args), args.id)
    print(f"Opened {opened.terminal} in {opened.folder}: {opened.command}")


def add_serve(sub) -> None:
    cmd = sub.add_parser("serve", help="show the console in a browser (until Ctrl+C)")
    cmd.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    cmd.add_argument("--open", action="store_true", help="open the page in the default browser")
    cmd.add_argument("--demo", action="store_true", help="use a data directory of demo tasks")
    cmd.add_argument(
        "--follow",
        action="store_true",
        help="follow the agents' folders as the app does (imports, live states), without a window",
    )
    # what a search starts when no app runs (app/background/service.py): ends by itself
    cmd.add_argument("--service", action="store_true", help=argparse_suppress())
    cmd.set_defaults(run=cmd_serve)
    cmd = sub.add_parser("status", help="what nodwyn is doing: encoding N of M tasks, ...")
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_status)


def argparse_suppress() -> str:
    import argparse

    return argparse.SUPPRESS


def cmd_sessions(args) -> int | None:
    if args.live:
        return print_live(args)
    # main() tried quick_listing first: the catalogue must be folded
    found = store(args)
    listed = found.list_json(None if args.all else False).encode()
    if found.cache.unsaved:  # a full or read-only disk: listed from what is there, said so
        print(f"nodwyn: {found.cache.unsaved}", file=sys.stderr)
    if args.agent:
        listed = of_agent(listed, args.agent)
    if args.machine:
        listed = on_machine(listed, found.root, args.machine)
    if args.json:
        sys.stdout.buffer.write(listed + b"\n")
    else:
        print_listing(listed, found.root)


def print_live(args) -> int:
    """The live states the running app holds (hooks and logs), needing an answer first."""
    from .. import paths
    from ..background import running

    root = paths.data_root(args.data_dir)
    try:
        answer = running.ask(root, "live", {})
    except running.Stale as exc:
        answer, why = None, str(exc)
    else:
        why = "no app follows this data folder"
    if answer is None:
        print(
            f"nodwyn: {why}; live states come from `nodwyn app` or `nodwyn serve --follow`",
            file=sys.stderr,
        )
        return 1
    states = json.loads(answer)["states"]
    if args.json:
        sys.stdout.write(_json(states) + "\n")
    elif not states:
        print("No live session: none needs an answer, runs or waits for its next prompt.")
    for live in states if not args.json else ():
        what = f"  {live['what']}" if live["what"] else ""
        print(f"{live['state']:<16} {live['agent']:<9} {live['task']}  {live['folder']}{what}")
    return 0


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def print_listing(listed: bytes, root) -> None:
    """The listing's JSON array as columns for a person, written in one go (see
    cli.memory.write); a MACHINE column where the tasks ran on more than one machine."""
    import json

    from ..tasks.listing import machine_names
    from .columns import width

    tasks = json.loads(listed)
    if not tasks:
        print("No tasks yet. Import agent sessions with: nodwyn import claude  (or codex)")
        return
    now = datetime.now(UTC)
    names = machine_names(tasks, root)
    rows = [_fields(task, now, names) for task in tasks]
    lines = listing_lines(rows, width()) + cost_notes(tasks)
    sys.stdout.write("".join(line + "\n" for line in lines))


def cost_notes(tasks: list[dict]) -> list[str]:
    """Under the list, why a COST reads "no usage", "no price" or "+ ?": each reason once, with
    how many tasks it stands for ("no price for glm-9: 2 tasks")."""
    counted: dict[str, int] = {}
    for task in tasks:
        if task.get("cost_note"):
            counted[task["cost_note"]] = counted.get(task["cost_note"], 0) + 1
    return [f"{note}: {n} task{'s' if n > 1 else ''}" for note, n in sorted(counted.items())]


HEAD = {
    "id": "ID",
    "when": "WHEN",
    "agent": "AGENT",
    "turns": "TURNS",
    "cost": "COST",
    "title": "TITLE",
    "project": "FOLDER",
}
WIDE_FROM = 100  # columns: narrower terminals get each task on two lines


def listing_lines(rows: list[dict], room: int) -> list[str]:
    """Tasks in columns in `room` cells, the title cut to fit: one line each from 100 columns
    (ID, WHEN, AGENT, TURNS, COST, TITLE and, with room, FOLDER), else two, the id and folder
    on the second, below the agent."""
    from .columns import cells, cut, cut_left, pad

    head = HEAD | ({"machine": "MACHINE"} if "machine" in rows[0] else {})
    rows = [head, *rows]
    wide = {k: max(cells(r[k]) for r in rows) for k in head}
    machine = ("machine",) if "machine" in head else ()

    def line(row: dict, keys: tuple[str, ...]) -> str:
        return "  ".join(pad(row[k], wide[k], k in ("turns", "cost")) for k in keys)

    if room < WIDE_FROM:
        keys = ("when", "agent", *machine, "turns", "cost")
        title = max(room - len(line(head, keys)) - 2, 12)
        indent = " " * (wide["when"] + 2)
        out = []
        for row in rows:
            folder = cut_left(row["project"], room - len(indent) - cells(row["id"]) - 2)
            out += [
                f"{line(row, keys)}  {cut(row['title'], title)}",
                f"{indent}{row['id']}  {folder}",
            ]
        return out
    keys = ("id", "when", "agent", *machine, "turns", "cost")
    rest = room - len(line(head, keys)) - 2
    folder = min(wide["project"], rest // 3) if rest >= 60 else 0
    title = rest - folder - 2 if folder else rest
    out = []
    for row in rows:
        text = f"{line(row, keys)}  {pad(cut(row['title'], title), title)}"
        out.append(f"{text}  {cut_left(row['project'], folder)}" if folder else text.rstrip())
    return out


def _fields(task: dict, now: datetime, names: dict[str, str] | None = None) -> dict:
    """A task's cells: its state marked before its title unless it is closed; the name of the
    machine it ran on where `names` are given."""
    from ..importers.names import label_of_origin

    machine = {} if names is None else {"machine": names.get(task.get("ran_on", ""), "?")}
    marks = [task["state"]] if task["state"] != "closed" else []
    marks += ["archived"] if task["archived"] else []
    title = f"[{', '.join(marks)}] {task['title']}" if marks else task["title"]
    return {
        "id": task["id"],
        "when": relative(task["last_activity"], now),
        "agent": label_of_origin(task["origin"]),
        "turns": str(task["turns"]),
        "cost": cost(task),
        "title": title,
        "project": task["project"] or "No folder",
        **machine,
    }


def of_agent(listed: bytes, agent: str) -> bytes:
    """The listing of the tasks one agent's sessions became (by the origin their log names);
    nodwyn's own for "nodwyn"."""
    import json

    from ..importers import registry

    origin = "nodwyn" if agent == "nodwyn" else registry.get(agent).origin
    kept = [task for task in json.loads(listed) if task["origin"] == origin]
    return json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode()


def on_machine(listed: bytes, root, name: str) -> bytes:
    """The listing of the tasks that ran on the machine named `name` (or given by its id)."""
    import json

    from ..machines import id_of
    from ..tasks.listing import of_machine

    kept = of_machine(json.loads(listed), id_of(root, name))
    return json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode()


def cost(task: dict) -> str:
    """A task's cost as a list's column shows it: dollars, "+ ?" after them where a part has no
    price, else "no usage" (the log gives no tokens) or "no price" (its model has none), else "".
    The whole reason ("no price for glm-9") is in --json's cost_note."""
    priced = "" if task["cost_usd"] is None else f"${task['cost_usd']:.2f}"
    note = task.get("cost_note", "")
    if priced:
        return f"{priced} + ?" if note else priced
    return "no usage" if note.startswith("no usage") else "no price" if note else ""


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
    import os
    import signal

    from .. import api
    from ..background import service  # bottle is loaded only by the commands that serve
    from ..memory import index_process
    from ..memory.meaning import encoder
    from ..tasks import demo
    from ..tasks.store import Store

    encoder.keep_in_a_child()  # the sentence model comes and goes in a process of its own
    index_process.keep_in_a_child()  # and the word index's writer in another
    data = Store(demo.demo_dir(args.data_dir)) if args.demo else store(args)
    if args.demo:
        demo.make_demo(data.root)
    if args.service and service.live(data.root):
        return 0  # another serves this data directory already
    follow = args.follow and not args.service  # the search service never follows
    claim = _claim(data.root) if follow else None
    if follow and claim is None:
        return 1
    waits = _hold_signals(hangup=args.service)  # before the threads start: they inherit it
    server = api.Server(data, port=args.port).start()
    follower = _follow(data, server) if follow else None  # its passes encode what it imports
    if claim is not None:  # `nodwyn app` launched meanwhile opens this page instead
        claim.serve(lambda _request: _open_page(server.url))
    encoding = None if follow else service.Encoding(data, server.status, overview=not args.service)
    if encoding is not None:
        encoding.start()
    watch = service.Watch(server, encoding) if args.service else None
    if not args.service:
        print(f"nodwyn serves {data.root} at {server.url}", flush=True)
        if follow:
            print("and follows the agents' folders as the app does", flush=True)
    if args.open:
        _open_page(server.url)
    try:
        got = _wait_for_an_end(waits, watch)
    finally:
        if follower is not None:  # the file in hand is finished: no log left half-written
            follower.stop(timeout=120)
        server.stop()  # the address file goes first (running.py): no client asks a dead port
        if claim is not None:
            claim.close()
    if got is None:
        return 0  # the service's own end (Watch.why)
    if got == signal.SIGINT:
        raise KeyboardInterrupt
    signal.pthread_sigmask(signal.SIG_UNBLOCK, waits)
    signal.signal(got, signal.SIG_DFL)
    os.kill(os.getpid(), got)  # ended by the signal, as a service manager expects
    return 0


def _claim(root):
    """The data directory's one follower: this process, unless an app already follows it."""
    from ..background import instance

    root.mkdir(parents=True, exist_ok=True)
    claim = instance.claim(root)
    if claim is None:
        print(
            f"nodwyn: another nodwyn app already follows {root}; quit it or serve without --follow",
            file=sys.stderr,
        )
    return claim


def _open_page(url: str) -> None:
    import webbrowser

    webbrowser.open(url)


def _follow(data, server):
    """The app's own worker, fed to the page's change feed, started (as the desktop app)."""
    from ..background.worker import Worker

    feed = server.app.feed
    worker = Worker(data, server.status, noted=feed.stir, told=feed.tell)
    worker.start()
    if worker.watching_the_data:  # the journal's notes arrive as notifications
        server.app.feed.watched()
    return worker


def cmd_status(args) -> int:
    """What the app, `nodwyn serve` or the search service is doing, or how far the vectors
    are when none runs."""
    import json

    from .. import paths
    from ..background import running, status

    root = paths.data_root(args.data_dir)
    try:
        answer = running.ask(root, "status", {})
    except (running.Stale, running.Refused):
        answer = None
    found = status.of(store(args), None if answer is None else json.loads(answer))
    if args.json:
        print(json.dumps(found, ensure_ascii=False))
    else:
        print(status.said(found))
    return 0


def _hold_signals(hangup: bool = False) -> set:
    """SIGTERM and SIGINT (and SIGHUP for the service) blocked in this thread and every
    thread it starts, so the kernel hands them to the main thread's sigwait: a handler
    waiting in `Event.wait` missed a signal the kernel gave to a server thread, and `nodwyn
    serve` outlived its SIGTERM."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # Windows: Ctrl+C arrives as KeyboardInterrupt
        return set()
    waits = {signal.SIGTERM, signal.SIGINT} | ({signal.SIGHUP} if hangup else set())
    signal.pthread_sigmask(signal.SIG_BLOCK, waits)
    return waits


def _wait_for_an_end(waits: set, watch=None) -> int | None:
    """The signal that ended the wait, or None when the service's watch found its end."""
    import signal
    import threading

    if watch is None:
        if not waits:
            threading.Event().wait()
        return signal.sigwait(waits)
    from ..background.service import CHECK

    while watch.why() is None:
        if not waits:  # Windows
            threading.Event().wait(CHECK)
            continue
        got = signal.sigtimedwait(waits, CHECK)
        if got is not None:
            return got.si_signo
    return None


def relative(at: str, now: datetime) -> str:
    """A time as lists show it: 'now', '5m', '2h', 'yesterday', '3d', or the date."""
    if not at:
        return "-"
    from ..tasks.listing import parse_time

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
