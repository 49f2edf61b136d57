"""`nodwyn import AGENT` and `nodwyn scrub`: the commands that
write the logs, an agent's sessions imported as tasks or every log redacted again.

Split from memory.py (ADR 0045), which keeps search and recall.
"""

import sys
from pathlib import Path

from .console import store


def add_import(sub) -> None:
    """`nodwyn import AGENT [PATH...]`, AGENT one of the registry's."""
    from ..importers import registry

    cmd = sub.add_parser("import", help="import an agent's sessions as tasks")
    cmd.add_argument("agent", choices=registry.agent_keys(), help="whose sessions")
    cmd.add_argument(
        "paths",
        nargs="*",
        default=[],  # optional: without a default argparse calls a `*` positional required
        metavar="PATH",
        help="files or folders (default: the agent's own)",
    )
    cmd.add_argument("--json", action="store_true", help="print what happened as JSON")
    cmd.set_defaults(run=cmd_import)


def cmd_import(args) -> int:
    from pathlib import Path

    import msgspec

    from ..importers.sync import default_paths, import_paths

    progress = None
    if sys.stderr.isatty():

        def progress(done: int, total: int) -> None:
            end = "\n" if done == total else ""
            print(f"\rimporting: {done}/{total} files", end=end, file=sys.stderr, flush=True)

    paths = [Path(p) for p in args.paths] or None
    report = import_paths(store(args), args.agent, paths, progress)
    absent = [s.path for s in report.skipped if s.reason == MISSING] if paths else []
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        print(looked_in(args.agent, paths or default_paths(args.agent), named=bool(paths)))
        unreadable = sum(p.count for p in report.problems)
        print(
            f"{len(report.created)} created, {len(report.extended)} extended, "
            f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped"
            + (f", {unreadable} lines unreadable" if report.problems else "")
        )
        for line in reasons(args.agent, report, named=bool(paths)):
            print(f"  {line}")
        for problem in report.problems:
            print(f"  line skipped {problem.message()}")
    if report.stopped:  # the disk is full: what could not be written, and that all else holds
        print(f"nodwyn: {report.stopped}", file=sys.stderr)
        return 1
    if absent:
        named = ", ".join(absent)
        print(f"nodwyn: no such file or folder: {named} (check the path)", file=sys.stderr)
        return 1
    return 0


MISSING = "no such file or folder"  # import_paths' reason for a named path that is not there
NAMES_SHOWN = 3  # files named on a line of skipped files sharing a reason


def reasons(agent: str, report, named: bool = False) -> list[str]:
    """Why files were read by their content, and why files were skipped: one line a reason
    (files sharing one are counted on one line; one read by content shows its first line);
    where a folder named held no file to look at, that."""
    from ..importers import registry

    lines, label = [], registry.get(agent).label
    looked = report.created + report.extended + report.unchanged + report.skipped
    if named and not looked and not report.stopped:
        types = ", ".join(registry.get(agent).content)
        lines.append(
            f"no file there could be a {label} session: none named as its sessions "
            f"nor of its types ({types})"
        )
    if report.renamed:
        count = len(report.renamed)
        lines.append(
            f"{count} file{'s are' if count > 1 else ' is'} not named as {label} "
            "names its sessions: read by their content"
        )
    grouped: dict[str, list] = {}
    for skipped in report.skipped:
        grouped.setdefault(skipped.reason, []).append(skipped)
    for reason, files in grouped.items():
        # what a file that is not the agent's at all holds instead
        first = next((f.first_line for f in files if f.first_line), "")
        shown = f"{reason} (first line: {first})" if first and reason.startswith("not ") else reason
        if len(files) == 1:
            lines.append(f"skipped {files[0].path}: {shown}")
            continue
        names = ", ".join(Path(f.path).name for f in files[:NAMES_SHOWN])
        more = f" and {len(files) - NAMES_SHOWN} more" if len(files) > NAMES_SHOWN else ""
        lines.append(f"{len(files)} skipped: {shown}: {names}{more}")
    return lines


HOMES = {"claude": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME"}


def looked_in(agent: str, paths: list, named: bool) -> str:
    """Where an import looked, and what to do when the agent's own folders are not there."""
    from ..importers import names

    where = ", ".join(str(p) for p in paths)
    if named or any(p.exists() for p in paths):
        return f"Looked in {where}"
    label, variable = names.label(agent), HOMES.get(agent)
    hint = f"; set {variable} if {label} keeps them elsewhere" if variable else ""
    return (
        f"Looked in {where}: not there, so no {label} sessions on this computer yet"
        f"{hint}, or name the files: nodwyn import {agent} PATH"
    )


def add_scrub(sub) -> None:
    cmd = sub.add_parser(
        "scrub",
        help="redact every log again with the current rules (done by itself once "
        "when the rules change)",
    )
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_scrub)


def cmd_scrub(args) -> int:
    import msgspec

    from ..background import scrub
    from ..tasks.store import Store

    done = scrub.scrub(Store(args.data_dir))
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(done) + b"\n")
    else:
        print(scrub.said(done))
    return 0
