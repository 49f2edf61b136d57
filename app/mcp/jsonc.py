"""JSON with comments (JSONC, as Gemini CLI's settings.json and OpenCode's opencode.json(c)
allow): read, and one member added to an object without touching a byte of the rest.

Reading strips `//` and `/* */` comments and trailing commas outside strings, then parses
with the standard library. Adding never re-serialises the document: the new member's text is
inserted right after the opening brace of the object it goes in, so the person's comments,
order, spacing and other servers stay as they were (docs/decisions/0035-mcp-for-every-agent.md).
"""

import json
import re


class Damaged(ValueError):
    """The text is not JSON even with its comments and trailing commas taken out."""


def _tokens(text: str):
    """(start, end, kind) of each string, comment and other character, in order."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            yield i, j + 1, "string"
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield i, j, "comment"
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            yield i, j, "comment"
            i = j
        else:
            yield i, i + 1, "char"
            i += 1


def strip(text: str) -> str:
    """The text as plain JSON: comments blanked, trailing commas dropped (offsets kept)."""
    out = []
    for start, end, kind in _tokens(text):
        piece = text[start:end]
        out.append(re.sub(r"[^\n]", " ", piece) if kind == "comment" else piece)
    plain = "".join(out)
    return re.sub(r",(\s*[}\]])", r" \1", plain)


def loads(text: str):
    try:
        return json.loads(strip(text)) if text.strip() else {}
    except ValueError as exc:
        raise Damaged(str(exc)) from None


def _opening(text: str, path: tuple[str, ...]) -> int | None:
    """The offset of the `{` of the object at `path` (() the top), None when it is absent."""
    plain = strip(text)
    stack: list = []  # the key (None in an array) of each container open around here
    string = key = None
    for start, end, kind in _tokens(plain):
        piece = plain[start:end]
        if kind == "string":
            string = json.loads(piece)
        elif piece == ":":
            key = string
        elif piece in "{[":
            here = tuple(stack[1:]) + ((key,) if stack else ())
            if piece == "{" and here == path and None not in here:
                return start
            stack.append(key if stack else "")
            key = None if piece == "{" else None
        elif piece in "}]":
            stack.pop() if stack else None
        elif piece == ",":
            key = None
    return None


def add_member(text: str, path: tuple[str, ...], name: str, value) -> str:
    """`text` with `"name": value` added to the object at `path`, the objects on the way made
    where missing; every other byte is kept. The caller checked that `name` is not there."""
    if not text.strip():
        document: dict = {name: value}
        for key in reversed(path):
            document = {key: document}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    missing: list[str] = []
    at = _opening(text, path)
    while at is None:
        missing.insert(0, path[len(path) - len(missing) - 1])
        at = _opening(text, path[: len(path) - len(missing)])
    member: object = value
    key = name
    for outer in reversed(missing):
        member, key = {key: member}, outer
    depth = len(path) - len(missing) + 1
    inner = json.dumps(member, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)
    after = text[at + 1 :]
    empty = strip(text)[at + 1 :].lstrip().startswith("}")
    # a comma before the members that follow; a line break where the text had none
    tail = ("" if empty else ",") + ("" if after[:1] == "\n" else "\n" + "  " * (depth - empty))
    return text[: at + 1] + f"\n{'  ' * depth}{json.dumps(key)}: {inner}{tail}" + after
