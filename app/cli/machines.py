"""`nodwyn machines`: the machines of one archive, in words; sharing a folder with the others,
syncing now, renaming this machine, forgetting another.

`machines sync` runs one function per kind of machine (`SYNCS`: the shared folder's pass,
machines/exchange.py); the SSH machines' pull plugs in beside it, as their `machines add ssh
HOST` command plugs in beside `share` (add_machines) and their rows beside the others
(machines/status.py KINDS).
"""

import sys
from datetime import UTC, datetime

import msgspec

from .console import print_json, store


def add_machines(sub) -> None:
    cmd = sub.add_parser("machines", help="this archive's machines: share a folder, sync, ...")
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(run=cmd_list)
    kinds = cmd.add_subparsers(title="commands", metavar="COMMAND")
    share = kinds.add_parser(
        "share", help="publish to and read from FOLDER, one the person already syncs"
    )
    share.add_argument("folder", help="a folder Syncthing, Dropbox, OneDrive... keeps in sync")
    share.set_defaults(run=cmd_share)
    sync = kinds.add_parser("sync", help="publish, read the other machines, pull, now")
    sync.add_argument("--json", action="store_true", help="print JSON")
    sync.set_defaults(run=cmd_sync)
    rename = kinds.add_parser("rename", help="give this machine another name")
    rename.add_argument("name")
    rename.set_defaults(run=cmd_rename)
    forget = kinds.add_parser("forget", help="take a machine's tasks out of this archive")
    forget.add_argument("machine", help="its name or id (`nodwyn machines` lists them)")
    forget.set_defaults(run=cmd_forget)
    from .ssh_machines import add_ssh_commands

    add_ssh_commands(kinds)


def cmd_list(args) -> None:
    import msgspec

    from ..machines import share, status

    found = store(args)
    rows = status.rows(found)
    if args.json:
        folder = share.configured(found.root)
        data = {"folder": str(folder or ""), "machines": msgspec.to_builtins(rows)}
        return print_json(data)
    folder = share.configured(found.root)
    print(
        f"Shared folder: {folder}" if folder else "No shared folder (nodwyn machines share FOLDER)"
    )
    for line in lines(rows, datetime.now(UTC)):
        print(line)


def lines(rows, now: datetime) -> list[str]:
    """Each machine on one line, in words."""
    from .tasks import relative

    out = []
    for row in rows:
        words = [f"{row.tasks} task{'' if row.tasks == 1 else 's'}", size(row.size)]
        if row.kind == "this":
            head = f"{row.name} (this machine)"
        else:
            seen = relative(row.last_seen, now) if row.last_seen else "never"
            seen = {"now": "just now"}.get(seen, f"{seen} ago" if seen[-1:] in "mhd" else seen)
            head = f"{row.name} ({row.kind}, last seen {seen})"
        if row.kept_only:
            words.append(f"{row.kept_only} kept only by nodwyn (the agent deleted its file)")
        if row.forgotten:
            words.append("forgotten: not read (share the folder again to read it)")
        if row.error:
            words.append(f"last error: {row.error}")
        out.append(f"{head}: {', '.join(words)}")
    return out


def size(count: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    return ""


def cmd_share(args) -> None:
    from ..machines import share

    found = store(args)
    folder = share.choose(found.root, args.folder)
    print(f"Sharing through {folder}: this machine publishes its tasks there, reads the others'.")
    _said(_sync_all(found))


def cmd_sync(args) -> None:
    import msgspec

    reports = _sync_all(store(args))
    if args.json:
        return print_json(msgspec.to_builtins(reports))
    _said(reports)


def _said(reports: dict) -> None:
    from .ssh_machines import pulled_line

    for pulled in getattr(reports.get("ssh"), "pulls", []):
        if pulled.via:
            print(pulled_line(pulled))
    report = reports.get("folder")
    if report is not None:
        made = sum(len(o.created) for o in report.machines.values())
        grown = sum(len(o.extended) for o in report.machines.values())
        gone = sum(len(o.deleted) for o in report.machines.values())
        print(
            f"Published {report.published} file{'' if report.published == 1 else 's'}; read "
            f"{len(report.machines)} other machine{'' if len(report.machines) == 1 else 's'}: "
            f"{made} new tasks, {grown} grown, {gone} deleted there."
        )
    for kind_report in reports.values():
        for problem in kind_report.problems:
            print(f"nodwyn: {problem}", file=sys.stderr)


def folder_sync(found):
    """The shared folder's pass (None when no folder is shared)."""
    from ..machines import exchange, share

    return exchange.sync(found) if share.configured(found.root) is not None else None


def ssh_sync(found):
    """Every SSH machine pulled now (None when there is none)."""
    from ..machines import pull

    done = pull.pull_all(found.root, found)
    return SshSync(pulls=done, problems=[d.error for d in done if d.error]) if done else None


class SshSync(msgspec.Struct):
    pulls: list
    problems: list[str]


# One function per kind of machine that `machines sync` brings up to date, each giving a
# report with `problems` (or None when there is nothing of its kind).
SYNCS = {"folder": folder_sync, "ssh": ssh_sync}


def _sync_all(found) -> dict:
    from ..errors import NodwynError

    reports = {kind: sync(found) for kind, sync in SYNCS.items()}
    reports = {kind: report for kind, report in reports.items() if report is not None}
    if not reports:
        raise NodwynError(
            "no other machines yet: share a folder with `nodwyn machines share FOLDER`, "
            "or add one with `nodwyn machines add ssh HOST`"
        )
    return reports


def cmd_rename(args) -> None:
    from ..machines import rename, share

    found = store(args)
    machine = rename(found.root, args.name)
    print(f"This machine is now named {machine.name} (id {machine.id}).")
    if share.configured(found.root) is not None:
        _said(_sync_all(found))  # the others read the new name from its folder


def cmd_forget(args) -> None:
    from ..machines import status

    name, removed = status.forget(store(args), args.machine)
    print(
        f"Forgot {name}: {removed} task{'' if removed == 1 else 's'} left this archive; "
        "nothing on it or in the shared folder was touched."
    )
