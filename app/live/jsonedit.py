"""Entries added to and taken from a JSON settings file as text, every other byte kept.

The hooks of Claude Code, Codex, Gemini CLI and Cursor are lists under an event's name in an
object (`"hooks": {"Stop": [...]}`). `mcp/jsonc.py` puts a member into an object; this adds an
element at the end of a list and takes elements (or members) out again, so that the person's
own hooks, comments, order and indentation stay as they were, and a removal leaves the text
an install found (a list or an object the install made is taken out whole when it is empty).
Positions are found in the dialect's blanked text (`jsonc.plain`), whose offsets are the
file's.
"""

import json

from ..mcp import jsonc

_SPACE = jsonc._SPACE  # noqa: SLF001 (one definition of JSON's whitespace)
_DECODER = json.JSONDecoder()


class Entry:
    """An element of a list, or a member of an object: where its text starts and ends."""

    __slots__ = ("key", "start", "value", "end")

    def __init__(self, key: str | None, start: int, value: int, end: int):
        self.key, self.start, self.value, self.end = key, start, value, end


def entries(blank: str, opening: int) -> list[Entry]:
    """The entries of the list or object whose bracket is at `opening` (checked JSON)."""
    close = "]" if blank[opening] == "[" else "}"
    found: list[Entry] = []
    at = _SPACE.match(blank, opening + 1).end()
    while blank[at] != close:
        start, key = at, None
        if close == "}":
            key, at = _DECODER.raw_decode(blank, at)
            at = _SPACE.match(blank, _SPACE.match(blank, at).end() + 1).end()
        _, end = _DECODER.raw_decode(blank, at)
        found.append(Entry(key, start, at, end))
        at = _SPACE.match(blank, end).end()
        if blank[at] == ",":
            at = _SPACE.match(blank, at + 1).end()
    return found


def find(blank: str, path: tuple[str, ...]) -> int | None:
    """Where the value at `path` starts (the last of a key given twice, as parsers keep)."""
    at = _SPACE.match(blank).end()
    for key in path:
        if blank[at] != "{":
            return None
        found = [e for e in entries(blank, at) if e.key == key]
        if not found:
            return None
        at = found[-1].value
    return at


def append(text: str, path: tuple[str, ...], value, dialect: str) -> str:
    """`text` with `value` as the last element of the list at `path` (which must be one)."""
    blank = jsonc.plain(text, dialect)
    opening = find(blank, path)
    assert opening is not None and blank[opening] == "["
    items = entries(blank, opening)
    unit = jsonc._unit(text)  # noqa: SLF001
    level = len(path) + 1
    shown = jsonc._dumps(value, unit, level)  # noqa: SLF001
    if not items:
        close = blank.index("]", opening)
        return f"{text[: opening + 1]}\n{unit * level}{shown}\n{unit * (level - 1)}{text[close:]}"
    last = items[-1].end
    return f"{text[:last]},\n{unit * level}{shown}{text[last:]}"


def remove(text: str, path: tuple[str, ...], doomed, dialect: str) -> str:
    """`text` without the entries of the list or object at `path` for which `doomed(value)`
    is true (value: the entry's parsed value; for an object, (key, value))."""
    blank = jsonc.plain(text, dialect)
    opening = find(blank, path)
    if opening is None or blank[opening] not in "[{":
        return text
    items = entries(blank, opening)
    for index in reversed(range(len(items))):
        item = items[index]
        value = json.loads(blank[item.value : item.end])
        if doomed(value if item.key is None else (item.key, value)):
            text = _cut(text, items, index, opening, blank)
            blank = jsonc.plain(text, dialect)
            items = entries(blank, opening)
    return text


def _cut(text: str, items: list[Entry], index: int, opening: int, blank: str) -> str:
    item = items[index]
    if len(items) == 1:
        close = _SPACE.match(blank, item.end).end()
        close = _SPACE.match(blank, close + 1).end() if blank[close] == "," else close
        return text[: opening + 1] + text[close:]
    if index > 0:
        return text[: items[index - 1].end] + text[item.end :]
    return text[: item.start] + text[items[1].start :]


def empty_at(text: str, path: tuple[str, ...], dialect: str) -> bool:
    """Whether the value at `path` is an empty list or object."""
    blank = jsonc.plain(text, dialect)
    at = find(blank, path)
    return at is not None and blank[at] in "[{" and not entries(blank, at)
