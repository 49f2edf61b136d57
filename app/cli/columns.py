"""Tables for a terminal: as wide as the terminal, with text cut or wrapped to fit.

`nodwyn usage` draws boxed tables and `nodwyn sessions` plain columns; both measure text in
the cells a terminal gives it (a Chinese or Japanese character takes two), so a row never runs
past the edge. Written by hand rather than with rich: rich's import would more than double a
listing's time, and the listing must import nothing heavy (tests/test_cli_imports.py); figures
in ADR 0042.

The width: COLUMNS, else the terminal that stdout (then stderr) is, else 80, as shutil's
get_terminal_size has it (with stderr asked too, so `nodwyn usage | less` fits the screen).
"""

import os
import sys

ELLIPSIS = "…"
FLOOR = 6  # cells: no flexible column is made narrower, even if the table runs over


def width() -> int:
    """The terminal's width in cells (see the module's docstring)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    for stream in (sys.__stdout__, sys.__stderr__):
        if columns > 0:
            break
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def cells(text: str) -> int:
    """The cells `text` takes in a terminal: two for a wide (East Asian) character, none for a
    combining mark (unicodedata imported only for text that is not ASCII)."""
    if text.isascii():
        return len(text)
    return sum(_cell(ch) for ch in text)


def _cell(ch: str) -> int:
    import unicodedata

    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def cut(text: str, room: int) -> str:
    """`text` in at most `room` cells, its end cut with an ellipsis."""
    if cells(text) <= room:
        return text
    kept, used = [], 0
    for ch in text:
        used += _cell(ch) if not ch.isascii() else 1
        if used > room - 1:
            break
        kept.append(ch)
    return "".join(kept) + ELLIPSIS


def cut_left(text: str, room: int) -> str:
    """`text` in at most `room` cells, its start cut (a path keeps its last folders)."""
    if cells(text) <= room:
        return text
    return cut(text[::-1], room)[::-1]


def pad(text: str, room: int, right: bool = False) -> str:
    gap = " " * max(0, room - cells(text))
    return gap + text if right else text + gap


def wrap(text: str, room: int) -> list[str]:
    """`text` as lines of at most `room` cells, broken after a "-", "/", "\\" or space where it
    can be (a model's name, a path), else inside a word; nothing is left out."""
    lines = []
    while cells(text) > room:
        head = cut(text, room + 1)[:-1]  # the most that fits
        at = max(head.rfind(sep) for sep in "-/\\ ") + 1
        at = at if at > 0 else max(len(head), 1)
        lines.append(text[:at].rstrip())
        text = text[at:].lstrip()
    return [*lines, text]


def boxed(
    rows: list[list[str]],
    right: set[int],
    flexible: dict[int, int],
    room: int,
    from_end: frozenset[int] = frozenset(),
) -> str:
    """`rows` (the head first, a cell's lines split by newlines) box-drawn in `room` cells:
    the `flexible` columns (index -> the narrowest they are made first) are narrowed, widest
    first, until the table fits, their text wrapped (or, for the `from_end` columns, cut at its
    start: a path keeps its last folders); `right` columns are aligned right."""
    widths = [
        max(cells(line) for row in rows for line in row[i].split("\n")) for i in range(len(rows[0]))
    ]
    over = boxed_width(widths) - room
    for floor in (flexible, dict.fromkeys(flexible, FLOOR)):
        while over > 0:
            can = [i for i, least in floor.items() if widths[i] > least]
            if not can:
                break
            widths[max(can, key=lambda i: widths[i])] -= 1
            over -= 1
    out = [_rule("┌", "┬", "┐", widths)]
    for n, row in enumerate(rows):
        if n:
            out.append(_rule("├", "┼", "┤", widths))
        stacked = [
            [cut_left(cell, widths[i])] if i in from_end else _lines(cell, widths[i])
            for i, cell in enumerate(row)
        ]
        for k in range(max(len(s) for s in stacked)):
            parts = [
                pad(s[k] if k < len(s) else "", widths[i], i in right)
                for i, s in enumerate(stacked)
            ]
            out.append("│" + "│".join(f" {p} " for p in parts) + "│")
    out.append(_rule("└", "┴", "┘", widths))
    return "\n".join(out)


def boxed_width(widths: list[int]) -> int:
    """The cells a boxed table of these column widths takes: a space each side and a rule."""
    return sum(widths) + 3 * len(widths) + 1


def _lines(cell: str, room: int) -> list[str]:
    """A cell's lines wrapped to `room`; a listed item's ("- name") go on under its name."""
    out = []
    for line in cell.split("\n"):
        if line.startswith("- ") and room > 4:
            first, *rest = wrap(line[2:], room - 2)
            out += [f"- {first}", *(f"  {part}" for part in rest)]
        else:
            out += wrap(line, room)
    return out


def _rule(left: str, middle: str, right: str, widths: list[int]) -> str:
    return left + middle.join("─" * (w + 2) for w in widths) + right
