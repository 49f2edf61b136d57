"""Terminal colours in tool output as classed runs of text; every other escape removed.

A shell's output often carries SGR sequences (`ESC [ 31 m`): shown raw they read as
`[31m` noise. `runs()` turns them into `[classes, text]` pairs (`ansi-31` red, `ansi-b` bold,
`ansi-92` bright green, ...) for the page and the export to colour, and drops every other
control sequence (cursor moves, OSC titles, ...). 256-colour and true-colour codes are
dropped with their arguments: the text stays, uncoloured. Hand-written: the grammar is small
(ECMA-48 CSI and OSC), and the Python libraries for it render to HTML or a terminal, not to
runs (ADR 0025).
"""

import re

_ESCAPE = re.compile(r"\x1b(?:\[([0-9;?]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_COLOURS = {str(n) for n in [*range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108)]}


def has_escapes(text: str) -> bool:
    return "\x1b" in text


def runs(text: str) -> list[list]:
    """`text` as [[class string, text], ...]; the class string is empty for plain text."""
    out: list[list] = []
    state: dict[str, str] = {}
    at = 0
    for match in _ESCAPE.finditer(text):
        _add(out, state, text[at : match.start()])
        at = match.end()
        if match.group(2) == "m":
            _apply(state, (match.group(1) or "0").split(";"))
    _add(out, state, text[at:])
    return out


def plain(text: str) -> str:
    """`text` with every escape removed."""
    return _ESCAPE.sub("", text)


def _add(out: list[list], state: dict[str, str], text: str) -> None:
    if not text:
        return
    classes = " ".join(f"ansi-{value}" for value in state.values())
    if out and out[-1][0] == classes:
        out[-1][1] += text
    else:
        out.append([classes, text])


def _apply(state: dict[str, str], codes: list[str]) -> None:
    skip = 0
    for i, code in enumerate(codes):
        if skip:
            skip -= 1
            continue
        code = code.lstrip("0") or "0"
        if code == "0":
            state.clear()
        elif code == "1":
            state["bold"] = "b"
        elif code in ("22",):
            state.pop("bold", None)
        elif code in ("39",):
            state.pop("fg", None)
        elif code in ("49",):
            state.pop("bg", None)
        elif code in ("38", "48"):  # extended colour: 5;n or 2;r;g;b, left uncoloured
            skip = 2 if i + 1 < len(codes) and codes[i + 1] == "5" else 4
        elif code in _COLOURS:
            state["bg" if code.startswith(("4", "10")) else "fg"] = code
