"""`nodwyn usage`: what the agents' turns cost and used, as a table like ccusage's reports
(a row per day, week, month, project, model or agent, and a Total row, drawn by
usage_table.py), or the same figures as JSON, which are GET /api/usage's (both are
usage.report's)."""

import sys

from .console import store


def add_usage(sub) -> None:
    from ..usage.figures import BY

    cmd = sub.add_parser("usage", help="cost, tokens and turns by day, week, month, project, ...")
    cmd.add_argument("--by", choices=BY, default="day", help="one row per this (default: day)")
    cmd.add_argument("--since", default="", metavar="DATE", help="from this day (YYYY-MM-DD)")
    cmd.add_argument("--until", default="", metavar="DATE", help="to this day, inclusive")
    cmd.add_argument("--json", action="store_true", help="the figures as JSON")
    cmd.set_defaults(run=cmd_usage)


def cmd_usage(args) -> None:
    import msgspec

    from ..usage.figures import report

    found = report(store(args), by=args.by, since=args.since, until=args.until)
    if args.json:
        sys.stdout.write(msgspec.json.encode(found).decode() + "\n")
        return
    if not found.rows:
        print("No turns in that time." if args.since or args.until else "No turns yet.")
        return
    from .usage_table import table

    print(table(found))
