"""Markdown (CommonMark with GFM tables, strikethrough and task lists) as a tree of safe nodes.

The page builds elements from this tree and the HTML export serialises it, so both render a
reply alike. A node is `[tag, attrs, *children]`, a child a node or a string (text, never
markup). Safe by construction (ADR 0025):
- raw HTML in a log is text: the parser runs with `html` off, so `<b>` reaches us as text;
- a link keeps its href only for http(s) and mailto; any other target is plain text;
- an image is never fetched: it becomes its alt text and, for http(s), a link to it;
- only the tags of `TAGS` are made, with only the attributes this module sets.
Fenced code is highlighted by Pygments into spans whose classes are Pygments' short token
names (`hl-k` keyword, `hl-s2` string, ...); an unknown language stays plain text.
"""

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.tasklists import tasklists_plugin

TAGS = frozenset(
    ("p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "code", "pre", "blockquote",
     "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "hr", "br", "input",
     "span")
)  # fmt: skip  # a table
LINKS = ("http://", "https://", "mailto:")
_NAME = re.compile(r"\w+")
MAX_TEXT = 200_000  # characters rendered as Markdown; longer text is shown as it is
MAX_HIGHLIGHT = 50_000  # characters of one code block highlighted; longer ones stay plain
_BLOCKS = {
    "paragraph",
    "heading",
    "blockquote",
    "bullet_list",
    "ordered_list",
    "list_item",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    return md.enable(["table", "strikethrough"]).use(tasklists_plugin)


def tree(text: str) -> list:
    """The blocks of `text` as nodes (an empty list for empty text)."""
    if not text or not text.strip():
        return []
    if len(text) > MAX_TEXT:
        return [["pre", {"class": "md-plain"}, text]]
    root: list = ["div", {}]
    stack = [root]
    for token in _parser().parse(text):
        if token.hidden and token.nesting:  # a tight list's paragraphs: no <p> of their own
            continue
        if token.nesting == 1:
            node = [token.tag, _block_attrs(token)]
            stack[-1].append(node)
            stack.append(node)
        elif token.nesting == -1:
            stack.pop()
        elif token.type == "inline":
            stack[-1].extend(_inline(token.children or []))
        elif token.type in ("fence", "code_block"):
            stack[-1].append(code_block(token.content, token.info.split()[0] if token.info else ""))
        elif token.type == "hr":
            stack[-1].append(["hr", {}])
        else:  # html_block and the like: shown as the text it is
            stack[-1].append(["p", {}, token.content])
    return root[2:]


def _block_attrs(token) -> dict:
    attrs: dict = {}
    if token.tag == "ol" and token.attrs.get("start"):
        attrs["start"] = int(token.attrs["start"])
    if token.tag in ("th", "td"):
        align = str(token.attrs.get("style", "")).removeprefix("text-align:")
        if align in ("left", "right", "center"):
            attrs["class"] = f"align-{align}"
    if token.tag == "li" and "task-list-item" in str(token.attrs.get("class", "")):
        attrs["class"] = "task"
    return attrs


def _inline(children) -> list:
    out: list = []
    stack = [out]
    for token in _names(children):
        kind = token.type
        if kind == "text":
            _text(stack[-1], token.content)
        elif kind == "code_inline":
            stack[-1].append(["code", {}, token.content])
        elif kind in ("softbreak", "hardbreak"):
            stack[-1].append(["br", {}] if kind == "hardbreak" else "\n")
        elif kind == "link_open":
            href = str(token.attrs.get("href", ""))
            node = ["a", _link(href)] if href.lower().startswith(LINKS) else ["span", {}]
            stack[-1].append(node)
            stack.append(node)
        elif kind in ("strong_open", "em_open", "s_open"):
            node = [token.tag, {}]
            stack[-1].append(node)
            stack.append(node)
        elif kind.endswith("_close"):
            if len(stack) > 1:
                stack.pop()
        elif kind == "image":
            stack[-1].extend(_image(token))
        elif kind == "html_inline" and "task-list-item-checkbox" in token.content:
            checked = 'checked="checked"' in token.content
            stack[-1].append(["input", {"type": "checkbox", "disabled": True, "checked": checked}])
        else:  # html_inline and anything unforeseen: its own text
            _text(stack[-1], token.content)
    return out


def _names(children: list) -> list:
    """The inline tokens with a name in double underscores (`__init__`, `__file__`) kept as
    the name: CommonMark reads it as bold, which no agent that writes one means."""
    out: list = []
    at = 0
    while at < len(children):
        token = children[at]
        if (token.type == "strong_open" and token.markup == "__" and at + 2 < len(children)
                and children[at + 1].type == "text" and _NAME.fullmatch(children[at + 1].content)
                and children[at + 2].type == "strong_close"):  # fmt: skip
            out.append(Token("text", "", 0, content=f"__{children[at + 1].content}__"))
            at += 3
            continue
        out.append(token)
        at += 1
    return out


def _text(into: list, text: str) -> None:
    if not text:
        return
    if into and isinstance(into[-1], str):
        into[-1] += text
    else:
        into.append(text)


def _link(href: str) -> dict:
    return {"href": href, "rel": "noopener noreferrer", "target": "_blank"}


def _image(token) -> list:
    """An image as its alt text and where it is, never fetched."""
    src = str(token.attrs.get("src", ""))
    alt = token.content or "image"
    if src.lower().startswith(("http://", "https://")):
        return [["span", {"class": "md-image"}, f"[image: {alt}] ", ["a", _link(src), src]]]
    return [["span", {"class": "md-image"}, f"[image: {alt}]"]]


def code_block(code: str, language: str) -> list:
    """A fenced block as `pre > code`, highlighted where Pygments knows the language."""
    code = code.removesuffix("\n")
    attrs = {"class": "code"}
    if language:
        attrs["data-lang"] = language[:40]
    return ["pre", attrs, ["code", {}, *highlight(code, language)]]


def highlight(code: str, language: str) -> list:
    """`code` as text and `span.hl-*` nodes; plain text where the language is not known."""
    if not language or len(code) > MAX_HIGHLIGHT:
        return [code] if code else []
    from pygments.lexers import get_lexer_by_name
    from pygments.token import STANDARD_TYPES
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except (ClassNotFound, ImportError):  # not known, or a bundle that lacks its module
        return [code] if code else []
    out: list = []
    for kind, value in lexer.get_tokens(code):
        short = _short(kind, STANDARD_TYPES)
        if short and short != "w":
            out.append(["span", {"class": f"hl-{short}"}, value])
        else:
            _text(out, value)
    return out


def _short(kind, names) -> str:
    while kind is not None and kind not in names:
        kind = kind.parent
    return names.get(kind, "") if kind is not None else ""


def plain(nodes: list) -> str:
    """The text of a tree, for tests and for Markdown export of a rendered thing."""
    return "".join(child if isinstance(child, str) else plain(child[2:]) for child in nodes)
