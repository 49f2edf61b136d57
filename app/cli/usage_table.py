"""`nodwyn usage`'s table: the report's rows as ccusage draws them, as wide as the terminal.

From 100 columns, when they fit, every figure (Turns, Input, Output, Cache Create, Cache Read,
Total Tokens, Cost); narrower, the compact form (Turns, Input, Output, Cost) and a line saying
what was left out, as ccusage's compact form. Models wrap at their hyphens and a project is
cut at its start (its last folders kept) to fit; a figure is never cut.
"""

FIGURES = ("Turns", "Input", "Output", "Cache Create", "Cache Read", "Total Tokens")
COMPACT = ("Turns", "Input", "Output")  # as ccusage's compact form: cache columns left out
FIRST = {
    "day": "Date",
    "week": "Week",
    "month": "Month",
    "project": "Project",
    "model": "Model",
    "agent": "Agent",
    "machine": "Machine",
}
FULL_FROM = 100  # columns: narrower terminals get the compact form, as ccusage's


def table(found, room: int | None = None) -> str:
    """The report as a box-drawn table in `room` columns (the terminal's): every figure from
    100 columns when they fit, else Turns, Input, Output and Cost (the compact form, with a
    line saying so); Models wraps and a project is cut at its start to fit."""
    from .columns import boxed, boxed_width, cells, width

    room = width() if room is None else room
    full = _rows(found, FIGURES)
    models = found.by != "model"
    first = 18 if found.by in ("project", "model") else 12
    from_end = frozenset({0} if found.by == "project" else ())
    flexible = {0: 12, **({1: 12} if models else {})}  # the full form: its text wraps more
    natural = [
        max(cells(ln) for c in col for ln in c.split("\n")) for col in zip(*full, strict=True)
    ]
    least = [min(flexible.get(i, n), n) for i, n in enumerate(natural)]
    if room >= FULL_FROM and boxed_width(least) <= room:
        return boxed(full, _right(full), flexible, room, from_end)
    compact = _rows(found, COMPACT)
    flexible = {0: first, **({1: 18} if models else {})}
    said = "Cache and total tokens left out to fit the terminal; --json has every figure."
    return boxed(compact, _right(compact), flexible, room, from_end) + "\n" + said


def _rows(found, figures: tuple[str, ...]) -> list[list[str]]:
    """The head, a row per key and the Total row, with the figures asked for (and no Models
    column in a table by model, whose first column names it)."""
    models = found.by != "model"
    head = [FIRST[found.by], *(["Models"] if models else []), *figures, "Cost (USD)"]
    rows = [*found.rows, found.total]
    keys = [_key(row.key, found.by) for row in found.rows] + ["Total"]
    body = []
    for key, row in zip(keys, rows, strict=True):
        shown = "\n".join(f"- {m}" for m in row.models) if row is not found.total else ""
        body.append([key, *([shown] if models else []), *_figures(row, figures), money(row)])
    return [head, *body]


def _right(rows: list[list[str]]) -> set[int]:
    """The columns of figures, aligned right: all but the key and Models."""
    return set(range(2 if rows[0][1] == "Models" else 1, len(rows[0])))


def _key(key: str, by: str) -> str:
    """A row's key as people read it: an agent by its name, a task with no folder so said."""
    from ..importers.names import label_of_origin

    if by == "agent":
        return label_of_origin(key)
    if by == "project" and not key:
        return "No folder"
    return key


def _figures(row, figures: tuple[str, ...]) -> list[str]:
    value = {
        "Turns": row.turns,
        "Input": row.input,
        "Output": row.output,
        "Cache Create": row.cache_write,
        "Cache Read": row.cache_read,
        "Total Tokens": row.tokens,
    }
    return [f"{value[name]:,}" for name in figures]


def money(row) -> str:
    """$1.23; "no usage" where the logs give no tokens (Cursor, Antigravity), "unknown" where
    no turn had a price; "$1.23 + ?" where some had none."""
    if row.turns and not row.tokens and not row.cost_usd:
        return "no usage"
    if row.unpriced and row.unpriced == row.turns:
        return "unknown"
    shown = f"${row.cost_usd:,.2f}"
    return f"{shown} + ?" if row.unpriced else shown
