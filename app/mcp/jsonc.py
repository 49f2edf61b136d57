"""JSON configuration files read as their agent reads them, and one member put in without
touching a byte of the rest (ADR 0035, ADR 0043).

Three dialects, as the agents parse their files (ADR 0043 names the sources):
- "json": the standard, as JSON.parse reads it (Claude Code's ~/.claude.json, Copilot CLI's
  mcp-config.json: a comment there makes the agent skip the whole file);
- "comments": `//` and `/* */` comments, no trailing comma (Gemini CLI: JSON.parse after
  strip-json-comments with its default options);
- "jsonc": comments and trailing commas (OpenCode and Cursor: Microsoft's jsonc-parser).

Reading blanks what the dialect allows outside strings (offsets kept, so a position in the
blanked text is one in the file), then parses with the standard library as JavaScript does: a
key given twice keeps its last value, NaN and Infinity are refused.

Putting never re-serialises the document: the new member's text goes right after the opening
brace of the object that parsers keep (the last of a key given twice), or replaces a value
that is no object (the caller chose to: null, an empty list); every other byte stays. No key
is ever added where one of its name is: a missing level is made only where none is.
"""

import json
import re

DIALECTS = {"json": (False, False), "comments": (True, False), "jsonc": (True, True)}
# a string, a line comment or a block comment; whatever lies between is structure
_TOKEN = re.compile(r'"(?:[^"\\]|\\[\s\S])*"|//[^\n]*|/\*[\s\S]*?\*/')
_TRAILING = re.compile(r",(\s*[}\]])")
_SPACE = re.compile(r"[ \t\n\r]*")
_INDENT = re.compile(r'^([ \t]+)"', re.M)
_DECODER = json.JSONDecoder()


class Damaged(ValueError):
    """The text is not JSON in its agent's dialect."""


def plain(text: str, dialect: str = "jsonc") -> str:
    """The text as standard JSON, what the dialect allows blanked (offsets kept)."""
    comments, commas = DIALECTS[dialect]
    if not (comments or commas):
        return text
    out: list[str] = []
    between: list[str] = []  # structure since the last string, comments blanked

    def flush() -> None:
        joined = "".join(between)
        out.append(_TRAILING.sub(r" \1", joined) if commas else joined)
        between.clear()

    at = 0
    for match in _TOKEN.finditer(text):
        between.append(text[at : match.start()])
        piece, at = match.group(), match.end()
        if piece[0] == '"':
            flush()
            out.append(piece)
        else:
            between.append(re.sub(r"[^\n]", " ", piece) if comments else piece)
    between.append(text[at:])
    flush()
    return "".join(out)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def loads(text: str, dialect: str = "jsonc"):
    """The document as the agent reads it; an empty file is an empty object."""
    if not text.strip():
        return {}
    try:
        return json.loads(plain(text, dialect), parse_constant=_refuse_constant)
    except ValueError as exc:
        raise Damaged(str(exc)) from None


class Member:
    __slots__ = ("key", "start", "end")

    def __init__(self, key: str, start: int, end: int):
        self.key, self.start, self.end = key, start, end  # the value's span


def members(blank: str, opening: int) -> list[Member]:
    """The members of the object whose `{` is at `opening` in already-checked plain JSON."""
    found: list[Member] = []
    at = _SPACE.match(blank, opening + 1).end()
    while blank[at] != "}":
        key, at = _DECODER.raw_decode(blank, at)
        start = _SPACE.match(blank, _SPACE.match(blank, at).end() + 1).end()  # past the colon
        _, end = _DECODER.raw_decode(blank, start)
        found.append(Member(key, start, end))
        at = _SPACE.match(blank, end).end()
        if blank[at] == ",":
            at = _SPACE.match(blank, at + 1).end()
    return found


def put(text: str, path: tuple[str, ...], name: str, value, dialect: str = "jsonc") -> str:
    """`text` with `"name": value` in the object at `path`: put in that object, or in the
    objects made on the way where a level is missing, or as the value of the last level when
    that is no object (the caller checked it holds nothing to keep). The caller checked that
    the document is an object (or null) and that `name` is not in the object at `path`."""
    blank = plain(text, dialect)
    top = _SPACE.match(blank).end()
    if not text.strip() or blank.startswith("null", top):
        return json.dumps(_nested(path, name, value), indent=2, ensure_ascii=False) + "\n"
    unit = _unit(text)
    opening = top
    for level, key in enumerate(path):
        found = next((m for m in reversed(members(blank, opening)) if m.key == key), None)
        rest = _nested(path[level + 1 :], name, value)
        if found is None:
            return _insert(text, blank, opening, level + 1, unit, key, rest)
        if blank[found.start] != "{":
            shown = _dumps(rest, unit, level + 1)
            return text[: found.start] + shown + text[found.end :]
        opening = found.start
    return _insert(text, blank, opening, len(path) + 1, unit, name, value)


def _nested(path: tuple[str, ...], name: str, value) -> dict:
    document: dict = {name: value}
    for key in reversed(path):
        document = {key: document}
    return document


def _unit(text: str) -> str:
    """One level of the file's indentation: its least indented member's, else two spaces."""
    found = [m.group(1) for m, _ in zip(_INDENT.finditer(text), range(200), strict=False)]
    return min(found, key=len) if found else "  "


def _dumps(value, unit: str, level: int) -> str:
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + unit * level)


def _insert(text: str, blank: str, opening: int, level: int, unit: str, key: str, value) -> str:
    """A member put right after the `{` at `opening`, indented `level` units."""
    after = text[opening + 1 :]
    empty = blank[opening + 1 :].lstrip().startswith("}")
    # a comma before the members that follow; a line break where the text had none
    tail = ("" if empty else ",") + ("" if after[:1] == "\n" else "\n" + unit * (level - empty))
    member = f"\n{unit * level}{json.dumps(key, ensure_ascii=False)}: {_dumps(value, unit, level)}"
    return text[: opening + 1] + member + tail + after
