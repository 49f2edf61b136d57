"""`.aider.chat.history.md` cut into runs and blocks, as aider's `io.py` writes it.

aider appends to the file (`open("a")`): `# aider chat started at <local time>` opens each run;
a person's input is `#### <line>` per line (`####   ` for a blank one); aider's own output is
`> <text>` ending in two spaces (a line break in Markdown); the model's reply is plain
Markdown written once, after it ends. aider's own reader (`split_chat_history_markdown`) cuts
the same way. Nothing in the file has an id or a time but the run headers, so a block's line
number is its identity (the file only grows).
"""

import re
from datetime import datetime

import msgspec

HEADER = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
STAMP = re.compile(r"^# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*$")


class Block(msgspec.Struct, kw_only=True):
    kind: str  # "user", "tool" or "reply" ("gap" while cutting: the blank between entries)
    line: int  # the 1-based line of the file where it starts
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip("\n")


class Run(msgspec.Struct, kw_only=True):
    line: int
    started: datetime
    header: str
    blocks: list[Block]


def runs(text: str) -> list[Run]:
    """The runs the file records, each with its blocks in order."""
    out: list[Run] = []
    blocks: list[Block] = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        first = line[:1]
        if first == "#" and line.startswith("# aider chat started at"):
            started = _time(HEADER, line)
            if started is not None:
                blocks = []
                out.append(Run(line=number, started=started, header=line, blocks=blocks))
                continue
        if not out:
            continue
        if first not in "#>" and blocks and blocks[-1].kind == "reply":
            blocks[-1].lines.append(line)  # most lines: the model's Markdown, going on
        else:
            _add(blocks, number, line)
    for run in out:
        run.blocks = [b for b in run.blocks if b.kind != "gap" and (b.kind != "reply" or b.text)]
    return out


def _add(blocks: list[Block], number: int, line: str) -> None:
    if line.startswith("####") and (line == "####" or line[4] == " "):
        kind, body = "user", line[5:].removesuffix("  ")
    elif line.startswith(">") and (line.endswith("  ") or line.strip() == ">"):
        kind, body = "tool", line[2:].strip()
    else:
        kind, body = "reply", line
    last = blocks[-1] if blocks else None
    if kind == "reply" and not line.strip() and (last is None or last.kind != "reply"):
        if last is not None and last.kind != "gap":
            blocks.append(Block(kind="gap", line=number, lines=[]))  # ends the entry before
        return
    if last is not None and last.kind == kind:
        last.lines.append(body)
    else:
        blocks.append(Block(kind=kind, line=number, lines=[body]))


def _time(pattern: re.Pattern, line: str) -> datetime | None:
    """The time a header or history line holds; None for none, or one no clock shows."""
    found = pattern.match(line)
    if not found:
        return None
    stamp = found.group(1)
    try:
        return datetime.strptime(
            stamp, "%Y-%m-%d %H:%M:%S.%f" if "." in stamp else "%Y-%m-%d %H:%M:%S"
        )
    except ValueError:
        return None


def inputs(text: str) -> list[tuple[datetime, str]]:
    """The entries of `.aider.input.history` (prompt_toolkit's FileHistory): time and text."""
    out: list[tuple[datetime, list[str]]] = []
    for line in text.split("\n"):
        line = line.rstrip("\r")
        stamp = _time(STAMP, line) if line.startswith("# ") else None
        if stamp is not None:
            out.append((stamp, []))
        elif line.startswith("+") and out:
            out[-1][1].append(line[1:])
    return [(at, "\n".join(lines)) for at, lines in out]
