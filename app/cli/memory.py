"""`nodwyn memory search|recall`; `nodwyn import` and `nodwyn scrub` are in
logs.py.

A search takes one path: it asks the running app or the search service (running.py), and
else runs memory.search in this process; either way the answer is the API's JSON, printed by
the same code. Recall asks the running app, else reads in this process.
"""

import json
import sys

from ..background import running
from ..errors import NodwynError
from .console import import_msgspec, store


def add_memory(sub) -> None:
    """`nodwyn memory search|recall`."""
    memory = sub.add_parser("memory", help="search and recall what tasks came to")
    inner = memory.add_subparsers(title="memory commands", metavar="COMMAND")
    cmd = inner.add_parser("search", help="find turns by words (all tasks unless narrowed)")
    cmd.add_argument("words", nargs="+")
    cmd.add_argument("--task", help="only this task (with --project: its project's other tasks)")
    cmd.add_argument("--project", help="the tasks of this folder's project (git worktrees too)")
    cmd.add_argument("--all", action="store_true", help="every task (the default)")
    cmd.add_argument("-n", type=int, default=20, help="at most N matching events (default 20)")
    cmd.add_argument(
        "--mode",
        choices=("words", "meaning", "both"),
        help="rank by words, by meaning, or both fused (default: the search_mode setting)",
    )
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.add_argument(
        "--no-service",
        action="store_true",
        help="search in this process, not in the search service (which it would start)",
    )
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
    if args.all:
        scope, project = "all", None
    elif args.project:
        scope, project = "project", args.project
    else:
        scope, project = ("task" if args.task else "all"), None
    given = {
        "q": " ".join(args.words),
        "scope": scope,
        "task": args.task,
        "project": project,
        "limit": args.n,
        "mode": args.mode,
    }
    answer = from_the_app(args, "search", given)
    if answer is None and needs_the_model(args):
        answer = from_the_service(args, "search", given)
    if answer is None:
        answer = search_here(args, given)
    found = json.loads(answer)
    said = []
    if args.mode in ("meaning", "both") and found["mode"] == "words":
        said.append("(search by meaning is unavailable now: words alone)")
    if found.get("note"):
        said.append(f"({found['note']})")
    if found.get("covered", 0) < found.get("searched", 0):
        said.append(
            f"(meaning: {found['covered']:,} of {found['searched']:,} tasks so far; "
            "the rest by words until they are encoded)"
        )
    if not args.json:
        said += [f"(log {name} has lines that could not be read)" for name in found["incomplete"]]
    names = None
    if not args.json:
        from .. import paths
        from ..tasks.listing import machine_names

        names = machine_names(found["turns"], paths.data_root(args.data_dir))
    write(answer + b"\n" if args.json else found_text(found, names), said)
    return 0


def write(out: str | bytes, said: list[str] = ()) -> None:
    """The answer on stdout (JSON as the bytes it came in) and the notes on stderr, each in
    one write: line by line, an unbuffered stdout (PYTHONUNBUFFERED) makes two system calls
    of every line, 300 for a search of 20 turns."""
    if said:
        sys.stderr.write("".join(f"{line}\n" for line in said))
    if isinstance(out, bytes):
        sys.stdout.buffer.write(out)
    else:
        sys.stdout.write(out)


def found_text(found: dict, names: dict[str, str] | None = None) -> str:
    """The found turns as `nodwyn memory search` prints them, task by task (with the machine
    each ran on where `names` are given: the archive holds more than one)."""
    lines, task = [], None
    for turn in found["turns"]:
        if turn["task"] != task:
            task = turn["task"]
            where = f", on {names.get(turn.get('ran_on', ''), '?')}" if names else ""
            lines.append(f"{turn['task']}  {turn['title']}  ({turn['project']}{where})")
        lines.append(f"  {turn['head']}  [{turn['score']:.2f}]")
        for event in turn["events"]:
            lines.append(f"    seq {event['seq']} {event['heading']}")
            lines += [f"      {line}" for line in event["lines"]]
    if not found["turns"]:
        lines.append("Nothing found.")
    return "".join(f"{line}\n" for line in lines)


def from_the_app(args, route: str, given: dict) -> bytes | None:
    """The running app's JSON answer (running.py), or None: no app, search in this process.
    Both paths print from the same JSON, so their output is the same."""
    from .. import paths

    try:
        return running.ask(paths.data_root(args.data_dir), route, given)
    except running.Refused as exc:
        raise NodwynError(str(exc)) from None
    except running.Stale as exc:
        done = "searched" if route == "search" else "read the task"
        print(f"(nodwyn: {exc}: {done} in this process)", file=sys.stderr)
        return None


def needs_the_model(args) -> bool:
    if args.mode is not None:  # said: the settings (and msgspec with them) are not read
        return args.mode != "words"
    from pathlib import Path

    from .. import paths, settings

    return settings.load(Path(paths.data_root(args.data_dir))).search_mode != "words"


def from_the_service(args, route: str, given: dict) -> bytes | None:
    """The search service's answer (app/background/service.py), started for this search if none
    runs; None: `--no-service`, or it could not be started (search in this process)."""
    from pathlib import Path

    from .. import paths
    from ..background import service

    root = Path(paths.data_root(args.data_dir))
    if not service.wanted(root, args.no_service) or not root.is_dir():
        return None
    if not service.live(root):
        if not service.start(root):
            print(
                "(nodwyn: the search service could not be started: searched in this process)",
                file=sys.stderr,
            )
            return None
        print(
            "(nodwyn: started the search service, which keeps the model loaded and ends "
            "after some minutes unused; --no-service searches in this process)",
            file=sys.stderr,
        )
    return from_the_app(args, route, given)


def search_here(args, given: dict) -> bytes:
    """The search in this process, as the API's JSON; loading the model is said on stderr."""
    import_msgspec()
    import msgspec

    from .. import memory, settings

    data = store(args)
    if (args.mode or settings.load(data.root).search_mode) != "words":
        load_the_model(data.root)
    where = memory.Where(
        scope=given["scope"], task=args.task, project=given["project"], limit=args.n
    )
    found = memory.search(data, given["q"], where, mode=args.mode)
    from ..memory.words import index

    if index.ASIDE:  # a read-only data folder: searched all the same, from a copy
        print(
            "(the data folder is read-only: the word index was read from a copy)", file=sys.stderr
        )
    return msgspec.json.encode(found)


def load_the_model(root) -> None:
    import gc
    import time

    gc.enable()  # off for a search (cli.main); seconds of encoding may make garbage

    from ..memory.meaning import encoder

    began = time.perf_counter()
    try:
        encoder.current(root)
    except encoder.Unavailable:
        return  # the search fails open to words and says so
    print(
        f"(no nodwyn app is running: loaded the sentence model in this process, "
        f"{time.perf_counter() - began:.2f} s; `nodwyn app` or `nodwyn serve` keeps it loaded)",
        file=sys.stderr,
    )


def cmd_memory_recall(args) -> int:
    if args.start < 0 or args.count < 1:
        raise NodwynError("START is 0 or more and COUNT 1 or more")
    end = args.start + args.count
    given = {"task": args.task, "seq": args.seq}
    if args.json:
        given.update(start=args.start, count=args.count)
    answer = from_the_app(args, "recall", given)
    if answer is None:
        answer = recall_here(args, given)
    if args.json:
        write(answer + b"\n")
        return 0
    found = json.loads(answer)
    if found["card"] is not None:
        lines = [found["card"]["head"], *found["lines"]]
    else:  # an event shown whole, indented
        lines = json.dumps(found["event"], indent=2, ensure_ascii=False).splitlines()
    shown = lines[args.start : end]
    if end < len(lines):
        shown.append(
            f"({len(lines) - end} more lines: nodwyn memory recall {args.task} {args.seq} {end})"
        )
    write("".join(f"{line}\n" for line in shown))
    return 0


def recall_here(args, given: dict) -> bytes:
    import_msgspec()
    import msgspec

    from .. import memory
    from ..memory.readback import cut

    found = memory.recall(store(args), args.task, args.seq)
    return msgspec.json.encode(cut(found, given.get("start"), given.get("count")))
