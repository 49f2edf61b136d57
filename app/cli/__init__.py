"""The `nodwyn` command line.

A thin edge: each command parses its arguments, calls one core function and prints. Expected
errors (NodwynError) print one line on stderr and exit 1, never a traceback. The commands are
defined in this package's modules by group: tasks.py, memory.py, logs.py, agents.py,
reading.py, usage.py, quota.py, provenance.py, summaries.py, machines.py, hooks.py; console.py
holds what they share.

May import: every package below it (floor 5 of docs/ARCHITECTURE.md), and desktop/ only to
start the app (`nodwyn app`, agents.py).
"""

import os
import sys

from .. import __version__
from ..errors import NodwynError
from .console import import_msgspec, print_json, show, store  # noqa: F401 (read as cli.X)

# The store (and msgspec with it) is imported inside the commands, so that a listing from a
# current catalogue (listing.fast_json) starts in the least time; and only the parser of the
# command's own group is built (a test reads `python -X importtime` to keep it so).

# Each command's group, in help order: its parser is made by add_<group>(sub) in tasks.py,
# agents.py, memory.py or reading.py (see _adder).
GROUPS = {
    "sessions": "sessions",
    **dict.fromkeys(("rename", "archive", "unarchive", "close", "resume", "delete"), "tasks"),
    **dict.fromkeys(("serve", "status"), "serve"),
    **dict.fromkeys(("mcp", "settings", "app"), "agents"),
    "memory": "memory",
    "import": "import",
    "scrub": "scrub",
    **dict.fromkeys(("export", "resume-command", "star", "starred"), "reading"),
    "usage": "usage",
    **dict.fromkeys(("blame", "commit"), "provenance"),
    "quota": "quota",
    "summarize": "summaries",
    "machines": "machines",
    **dict.fromkeys(("hooks", "hook"), "hooks"),
}


def main(argv: list[str] | None = None) -> int:
    """The command's exit code; run as the program (no `argv`), a search or recall then ends
    the process at once (see leave)."""
    one_shot = argv is None and command_of(sys.argv[1:]) == "memory"
    if one_shot:
        # A search or recall makes no garbage that needs the cycle collector before its
        # short process leaves; the passes it made while modules were imported and lines
        # decoded were a good part of its time (ADR 0027).
        import gc

        gc.disable()
    code = _main(sys.argv[1:] if argv is None else argv)
    if one_shot:
        leave(code)
    return code


def leave(code: int) -> None:
    """End this process now that its answer is written: stdout and stderr flushed, then
    os._exit, skipping the interpreter's teardown of every module and object (ADR 0027): a
    search or recall holds no file, lock or thread that needs it (a log's lock, the only one,
    goes with the process as ever)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            pass  # the reader left (`| head`): as main answers it
        except (OSError, ValueError):
            code = code or 1  # as the interpreter's own failed flush at exit fails it
    os._exit(code)


def _main(argv: list[str]) -> int:
    try:
        return _run(argv)
    except NodwynError as exc:
        print(f"nodwyn: {exc}{_hint(exc)}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # before OSError, its parent: the reader left (`| head -1`)
        return reader_left()
    except OSError as exc:  # the data directory or a named file cannot be read or written
        print(f"nodwyn: {os_error(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("nodwyn: stopped", file=sys.stderr)
        return 130


def reader_left() -> int:
    """A command whose reader closed the pipe (`nodwyn usage | head -1`) ends quietly with
    exit 0, as it would had the reader read on: stdout is pointed at the null device, so the
    interpreter's last flush of what is left in its buffer finds no closed pipe to complain
    of (Python's own advice on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # no stdout to point elsewhere: nothing is left to flush into it
    return 0


def _run(argv: list[str]) -> int:
    """The command: a listing from its quick path, an agent's hook without argparse, else
    through argparse."""
    data_dir, rest = global_options(argv)
    if rest[:1] == ["hook"]:  # an agent's hook: no argparse on its path, exit 0 whatever
        from .hooks import hook_main

        return hook_main(rest[1:], data_dir)
    if quick_listing(argv):
        return 0
    parser = build_parser(command_of(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    return args.run(args) or 0


def _hint(exc: NodwynError) -> str:
    """What to do, for the errors whose own words name the task but not the way on (by their
    words, so an error the running app answered gets the same hint as one raised here)."""
    text = str(exc)
    if text.startswith("no task ") and "(" not in text:
        return " (`nodwyn sessions --all` lists the task ids)"
    if text.startswith("task ") and "open in another process" in text and "(" not in text:
        return " (the app or another nodwyn command has it: try again when it is done)"
    return ""


def os_error(exc: OSError) -> str:
    """An OSError as one line: the file, what went wrong, and what to do."""
    import errno

    what = exc.strerror or str(exc)
    where = f"{exc.filename}: " if exc.filename else ""
    todo = {
        errno.EACCES: "check who may read and write it (ls -l), or choose a data directory "
        "with --data-dir",
        errno.EPERM: "check who may read and write it (ls -l), or choose a data directory "
        "with --data-dir",
        errno.EROFS: "it is on a read-only disk: choose a data directory with --data-dir",
        errno.ENOSPC: "the disk is full: free some space, then run this again",
        errno.ENOTDIR: "a part of the path is a file, not a folder: check the path",
        errno.ENOENT: "check the path",
    }.get(exc.errno, "check the path and its permissions, then run this again")
    return f"{where}{what.lower() if what[:1].isupper() else what}; {todo}"


def build_parser(command: str | None = None):
    """The parser of one command's group (`command`), or of every command (help, errors)."""
    parser = _parser_class()(
        prog="nodwyn", description="Keep and search the history of AI coding-agent sessions."
    )
    parser.add_argument("--version", action="version", version=f"nodwyn {__version__}")
    parser.add_argument(
        "--data-dir", help="data directory (default: NODWYN_DATA_DIR, else the OS's own)"
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    for group in [GROUPS[command]] if command in GROUPS else dict.fromkeys(GROUPS.values()):
        _adder(group)(sub)
    return parser


def _parser_class():
    """argparse's parser whose help is as wide as the terminal, found without shutil: its
    import (with bz2, lzma, zlib and fnmatch) would slow every command's start, paid when
    each argument is added. Sub-parsers are made of the same class."""
    import argparse  # not on quick_listing's path

    def formatter(prog: str) -> argparse.HelpFormatter:
        return argparse.HelpFormatter(prog, width=_columns() - 2)  # as argparse leaves room

    class Parser(argparse.ArgumentParser):
        def __init__(self, *args, formatter_class=formatter, **kwargs):
            super().__init__(*args, formatter_class=formatter_class, **kwargs)

    return Parser


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size finds it: COLUMNS, else stdout's
    terminal, else 80."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _adder(group: str):
    # Imports written out, not by name, so that a packager sees them.
    if group in ("sessions", "tasks", "serve"):
        from . import tasks as module
    elif group == "agents":
        from . import agents as module
    elif group == "reading":
        from . import reading as module
    elif group == "usage":
        from . import usage as module
    elif group == "provenance":
        from . import provenance as module
    elif group == "quota":
        from . import quota as module
    elif group == "summaries":
        from . import summaries as module
    elif group == "machines":
        from . import machines as module
    elif group in ("import", "scrub"):
        from . import logs as module
    elif group == "hooks":
        from . import hooks as module
    else:
        from . import memory as module
    return getattr(module, f"add_{group}")


def global_options(argv: list[str]) -> tuple[str | None, list[str]]:
    """The data directory given before the command (the last one wins, as argparse has it)
    and the words after the global options."""
    data_dir, at = None, 0
    while at < len(argv):
        if argv[at] == "--data-dir" and at + 1 < len(argv):
            data_dir, at = argv[at + 1], at + 2
        elif argv[at].startswith("--data-dir="):
            data_dir, at = argv[at].split("=", 1)[1], at + 1
        else:
            break
    return data_dir, argv[at:]


def command_of(argv: list[str]) -> str | None:
    """The command word after the global options, or None (help, --version, nothing)."""
    _data_dir, rest = global_options(argv)
    return rest[0] if rest and not rest[0].startswith("-") else None


def quick_listing(argv: list[str]) -> bool:
    """`[--data-dir DIR] sessions [--all] [--json]` printed from a current catalogue without
    argparse or the store (a listing is what people and scripts run most); False when the
    arguments are anything else or the catalogue must be folded first."""
    root, args = global_options(argv)
    if not args or args[0] != "sessions" or not set(args[1:]) <= {"--all", "--json"}:
        return False
    if len(set(args[1:])) != len(args[1:]):
        return False  # a flag twice: argparse takes it, as ever
    from .. import paths
    from ..log.redact_rules import RULES, scrubbed_rules
    from ..tasks import listing

    if scrubbed_rules(paths.data_root(root)) < RULES:
        return False  # the logs are scrubbed first (scrub.py), the catalogue made again
    text = listing.fast_json(paths.data_root(root), None if "--all" in args else False)
    if text is None:
        return False
    try:
        if "--json" in args:
            sys.stdout.buffer.write(text)  # and its newline apart: megabytes not copied again
            sys.stdout.buffer.write(b"\n")
        else:
            from .tasks import print_listing

            print_listing(text, paths.data_root(root))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return True
