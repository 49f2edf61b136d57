"""One aider run (`blocks.Run`) as nodwyn records.

- A person's input is a prompt; a slash command that asks the model (`/ask`, `/code`,
  `/architect`, `/context`, `/help` with words) is one with its `command`; any other command
  (`/add`, `/run`, `/undo`, a bare `/ask` that only switches mode, ...) ran in aider and is
  no prompt. `/clear` and `/reset` empty the model's history: a compaction episode. An answer
  to a confirmation (`... [Yes]: all`) is no prompt either.
- In architect mode the architect's reply is handed to the editor model as an input line;
  that hand-over and the editor's reply are the `editor` sub-agent's.
- A reply is the model's Markdown; `<thinking-content-…>` blocks are its thinking;
  SEARCH/REPLACE blocks, and whole files that aider then applied, are `edit` calls whose
  results are `Applied edit to …` (the file written) or an error when none was applied.
- `Tokens: … sent, … received. Cost: $x message` is a usage-only reply with that cost
  (priced from the table when aider printed none); aider's other notes that are errors
  (`litellm.*Error`, exceptions) are error records.
- A turn ends completed when it has a reply, cancelled at `^C`; the run's last turn not
  while the file is live. Times: the run header, and each prompt's `.aider.input.history` entry.
"""

import re

from ...log import records as r
from .. import names, prices
from ..times import at_local
from .blocks import Block, Run

ORIGIN = names.origin("aider")
ASKS = {"/ask", "/code", "/architect", "/context", "/help"}
CLEARS = {"/clear", "/reset"}
_CONFIRM = re.compile(r"\(Y\)es/\(N\)o.*\]: ?\S*$")
_MODEL = re.compile(r"^(?:Main model|Model): (\S+)")
_EDITOR = re.compile(r"^Editor model: (\S+)")
_VERSION = re.compile(r"^Aider v(\S+)")
_DIR = re.compile(r"^(?:Git working dir|Cur working dir): (.+)$")
_TOKENS = re.compile(r"^Tokens: (.*? received)\.?(?: Cost: \$([\d.]+) message)?")
_COUNT = re.compile(r"([\d.]+)([kM]?) (sent|received|cache write|cache hit)")
_APPLIED = re.compile(r"^Applied edit to (.+)$")
_ERROR = re.compile(r"^(?:litellm\.\w+|\w+(?:Error|Exception))\b|Traceback|did not conform")
_THINK = re.compile(r"<thinking-content-[0-9a-f]+>\n?(.*?)\n?</thinking-content-[0-9a-f]+>", re.S)
_SEARCH = re.compile(
    r"^(?P<path>[^\n`]*?)\n(?:```[^\n]*\n)?<<<<<<< SEARCH\n(?P<search>.*?)^=======\n"
    r"(?P<replace>.*?)^>>>>>>> REPLACE",
    re.S | re.M,
)
_WHOLE = re.compile(
    r"^(?P<path>[^\s`<>#*][^\n`<>]*)\n(?:```[^\n]*|<source>)\n(?P<body>.*?)^(?:```|</source>)$",
    re.S | re.M,
)


class Facts:
    """What the run's first notes say: version, models, folder."""

    def __init__(self, run: Run):
        self.version = self.model = self.editor = self.folder = ""
        for block in run.blocks:
            if block.kind != "tool":
                if block.kind == "user":
                    break
                continue
            for line in block.lines:
                for pattern, name in (
                    (_VERSION, "version"),
                    (_MODEL, "model"),
                    (_EDITOR, "editor"),
                    (_DIR, "folder"),
                ):
                    found = pattern.match(line)
                    if found and not getattr(self, name):
                        setattr(self, name, found.group(1).strip())


def price_name(model: str) -> str:
    """The model's name as the price table knows it: the provider prefixes dropped."""
    name = model
    while "/" in name and not prices.known(name):
        name = name.split("/", 1)[1]
    return name


def count(text: str) -> int:
    number, unit = float(text[:-1] if text[-1:] in "kM" else text), text[-1:]
    return int(round(number * {"k": 1_000, "M": 1_000_000}.get(unit, 1)))


def usage_of(line: str) -> tuple[r.Usage, float | None] | None:
    found = _TOKENS.match(line)
    if not found:
        return None
    seen = {what: count(n + unit) for n, unit, what in _COUNT.findall(found.group(1))}
    read, write = seen.get("cache hit", 0), seen.get("cache write", 0)
    usage = r.Usage(  # aider's "sent" is the whole prompt: the cache's tokens are in it
        input=max(seen.get("sent", 0) - read - write, 0),
        output=seen.get("received", 0),
        cache_read=read,
        cache_write=write,
    )
    return usage, float(found.group(2)) if found.group(2) else None


def thinking_of(text: str) -> tuple[str, str]:
    """A reply's own text and its thinking, the `<thinking-content-…>` blocks taken out."""
    thoughts = [t.strip() for t in _THINK.findall(text)]
    return _THINK.sub("", text).strip(), "\n\n".join(t for t in thoughts if t)


def edits(text: str) -> list[tuple[str, dict]]:
    """(path, input) of each SEARCH/REPLACE block, else each whole file the reply writes."""
    found = [
        (
            m["path"].strip().strip("`*"),
            {"path": m["path"].strip().strip("`*"), "search": m["search"], "replace": m["replace"]},
        )
        for m in _SEARCH.finditer(text)
    ]
    if found:
        return found
    return [
        (m["path"].strip(), {"path": m["path"].strip(), "content": m["body"]})
        for m in _WHOLE.finditer(text)
    ]


def same_path(a: str, b: str) -> bool:
    return a.replace("\\", "/").strip() == b.replace("\\", "/").strip()


def is_confirmation(text: str) -> bool:
    return "\n" not in text and bool(_CONFIRM.search(text))


def command_of(text: str) -> tuple[str, str]:
    """The slash command an input starts with (if any) and the words after it."""
    if not text.startswith("/"):
        return "", text
    word, _, rest = text.partition(" ")
    return word.lower(), rest.strip()


def at_of(stamp, fallback: str) -> str:
    return at_local(stamp) if stamp is not None else fallback


def errors_in(block: Block) -> list[tuple[int, str]]:
    return [(block.line + i, line) for i, line in enumerate(block.lines) if _ERROR.search(line)]


def applied_in(block: Block) -> list[tuple[int, str]]:
    out = []
    for i, line in enumerate(block.lines):
        found = _APPLIED.match(line)
        if found:
            out.append((block.line + i, found.group(1).strip()))
    return out


def interrupted(block: Block) -> bool:
    return any(line.startswith("^C") for line in block.lines)


def src(file: str, line: int, tag: str | None = None) -> r.Src:
    return r.Src(file=file or None, line=line, id=tag)
