"""`nodwyn machines add ssh HOST` and `nodwyn machines pull [HOST]`: the SSH machines, computers
where no nodwyn runs whose agents' sessions are pulled over the system's ssh.

`add_ssh_commands(machines)` adds them to the `machines` command's own sub-commands
(cli/machines.py), whose listing holds the SSH machines beside the others.
"""

import sys

from .console import print_json, store


def add_ssh_commands(each) -> None:
    """`add ssh HOST` and `pull [HOST]`, added to the `machines` command's sub-commands."""
    add = each.add_parser("add", help="add a machine whose sessions this archive keeps")
    kinds = add.add_subparsers(title="kinds", metavar="KIND")
    one = kinds.add_parser("ssh", help="a computer reached over ssh, where no nodwyn runs")
    one.add_argument("host", help="a Host of ~/.ssh/config, or [user@]hostname")
    one.add_argument(
        "--folder",
        action="append",
        default=[],
        metavar="AGENT=PATH",
        help="a folder of an agent's sessions there (again for more; default: the agents' own)",
    )
    one.add_argument("--name", default="", help="the name people read (default: the host)")
    one.add_argument("--no-pull", action="store_true", help="add it without pulling it now")
    one.set_defaults(run=cmd_add_ssh)
    pull = each.add_parser("pull", help="pull the SSH machines' new sessions now (or one's)")
    pull.add_argument("host", nargs="?", help="its host, name or id (default: every one)")
    pull.add_argument("--json", action="store_true", help="as JSON")
    pull.set_defaults(run=cmd_pull)


def cmd_add_ssh(args) -> int:
    from ..machines import pull, ssh

    found = store(args)
    host = ssh.add(found.root, args.host, args.folder, args.name)
    print(f"{host.name}: added as an SSH machine ({host.host}), id {host.id}")
    if args.no_pull:
        return 0
    return _said([pull.pull(found.root, found, host)])


def cmd_pull(args) -> int:
    from ..machines import pull, ssh

    found = store(args)
    if args.host:
        done = [pull.pull(found.root, found, ssh.find(found.root, args.host))]
    else:
        done = pull.pull_all(found.root, found)
        if not done:
            print("no SSH machines yet: add one with nodwyn machines add ssh HOST")
    if args.json:
        import msgspec

        print_json(msgspec.to_builtins(done))
        return 1 if any(d.error for d in done) else 0
    return _said(done)


def _said(done) -> int:
    """One line per pull; exit code 1 when any failed (its line on stderr)."""
    for pulled in done:
        if pulled.error:
            print(pulled.error, file=sys.stderr)
        if pulled.via:
            print(pulled_line(pulled))
    return 1 if any(d.error for d in done) else 0


def pulled_line(pulled) -> str:
    """A pull that went through, in one line."""
    return (
        f"{pulled.name}: pulled by {pulled.via} in {pulled.seconds:.1f} s, "
        f"{_size(pulled.received)} crossed; {pulled.created} tasks new, {pulled.extended} grown"
    )


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB"):
        if n < 1000 or unit == "MB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"
