"""`nodwyn usage`: what the agents' turns cost and used, as a table like ccusage's reports
(a row per day, week, month, project, model or agent, and a Total row), or the same figures
as JSON, which are GET /api/usage's (both are usage.report's)."""

import sys

from .console import store

HEADS = ("Models", "Turns", "Input", "Output", "Cache Create", "Cache Read", "Total Tokens",
         "Cost (USD)")  # fmt: skip
FIRST = {"day": "Date", "week": "Week", "month": "Month", "project": "Project",
         "model": "Model", "agent": "Agent"}  # fmt: skip


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
    print(table(found))


def money(row) -> str:
    """$1.23; "unknown" where no turn had a price; "$1.23 + ?" where some had none."""
    if row.unpriced and row.unpriced == row.turns:
        return "unknown"
    shown = f"${row.cost_usd:,.2f}"
    return f"{shown} + ?" if row.unpriced else shown


def cells(row, first: str) -> list[str]:
    models = "\n".join(f"- {m}" for m in row.models)
    figures = (row.turns, row.input, row.output, row.cache_write, row.cache_read, row.tokens)
    return [first, models, *(f"{n:,}" for n in figures), money(row)]


def table(found) -> str:
    """Box-drawn, one rule between rows; figures right-aligned, a cell's lines stacked."""
    body = [cells(row, row.key) for row in found.rows]
    lines = [[FIRST[found.by], *HEADS], *body, cells(found.total, "Total")]
    lines[-1][1] = ""
    widths = [max(len(part) for line in lines for part in line[i].split("\n")) for i in range(9)]
    out = [_rule("┌", "┬", "┐", widths)]
    for n, line in enumerate(lines):
        if n:
            out.append(_rule("├", "┼", "┤", widths))
        stacked = [cell.split("\n") for cell in line]
        for k in range(max(len(s) for s in stacked)):
            parts = [s[k] if k < len(s) else "" for s in stacked]
            out.append(_line(parts, widths))
    out.append(_rule("└", "┴", "┘", widths))
    return "\n".join(out)


def _rule(left: str, middle: str, right: str, widths: list[int]) -> str:
    return left + middle.join("─" * (w + 2) for w in widths) + right


def _line(parts: list[str], widths: list[int]) -> str:
    """One text line of a row: the key and Models to the left, the figures to the right."""
    padded = [
        p.ljust(w) if i < 2 else p.rjust(w)
        for i, (p, w) in enumerate(zip(parts, widths, strict=True))
    ]
    return "│" + "│".join(f" {p} " for p in padded) + "│"
