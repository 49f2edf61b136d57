"""Claude Code 2.1's `attachment` and `queue-operation` lines: what of them a person would want
kept, as plain values the parser places (ADR 0003).

- A `queued_command` attachment a person typed (`commandMode` "prompt" or absent, `origin.kind`
  "human" or absent, not `isMeta`) is a prompt the agent read in the middle of its work.
- Context the person sent with a prompt (an IDE selection or open file, an @-mentioned file,
  folder, PDF or MCP resource) is an attachment of that prompt, named by its source type.
- Every other attachment is the harness's own context (tool and skill listings, reminders,
  hook output, permissions, plan mode, diagnostics...): not kept; 0003 names them.
- Queue lines: an `enqueue` with a person's words is remembered; a later prompt holding those
  words delivered them. Words withdrawn from the queue (`popAll`, `clear`, a plain `remove`)
  and not delivered join the next prompt as an attachment `queued`, so they are not lost; a
  `remove` "absorbed_mid_turn" whose `queued_command` never came is a prompt where it stands.
  Task notifications (`<task-notification>`) are the harness's, not a person's: not kept.

Pure functions over msgspec values, so the parser's carry stays a fold's state.
"""

from typing import Any

from msgspec import Struct

from ...log import records as r
from .lines import split_prompt, text_of

PERSON_CONTEXT = frozenset(
    {
        "selected_lines_in_ide",
        "selected_lines_in_diff",
        "opened_file_in_ide",
        "file",
        "new_file",
        "directory",
        "pdf_reference",
        "compact_file_reference",
        "mcp_resource",
    }
)
ABSORBED = "absorbed_mid_turn"


class Queued(Struct, kw_only=True):
    """A person's words waiting in Claude Code's queue."""

    line: int
    at: str
    text: str
    withdrawn: int = 0  # the line that took the words back (0: still queued)


def _words(value: Any) -> str:
    return " ".join(text_of(value).split())


def queued_prompt(data: Any) -> str | None:
    """The words of a `queued_command` attachment a person typed; None for anything else."""
    if not isinstance(data, dict) or data.get("type") != "queued_command" or data.get("isMeta"):
        return None
    origin = data.get("origin")
    kind = origin.get("kind", "human") if isinstance(origin, dict) else "human"
    if data.get("commandMode", "prompt") != "prompt" or kind != "human":
        return None
    words = text_of(data.get("prompt"))
    return words if words.strip() else None


def attachment_of(data: Any) -> r.Attachment | None:
    """Context a person sent with a prompt, as an attachment; None for the harness's own."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return None
    if data["type"] not in PERSON_CONTEXT:
        return None
    where = next((str(data[k]) for k in ("filename", "path", "filePath", "uri") if data.get(k)), "")
    if data.get("lineStart") is not None:
        where += f":{data['lineStart']}-{data.get('lineEnd', data['lineStart'])}"
    body = _body(data.get("content"))
    return r.Attachment(name=data["type"], text="\n".join(x for x in (where, body) if x))


def _body(content: Any) -> str:
    """The text inside an attachment's content (a string, blocks, or a Read-like result)."""
    if isinstance(content, dict):
        inner = content.get("file") if isinstance(content.get("file"), dict) else content
        for key in ("content", "text"):
            if isinstance(inner.get(key), str):
                return inner[key]
        return ""
    return text_of(content)


def enqueue(queued: list[Queued], line: int, at: str, content: Any) -> None:
    words = text_of(content)
    if words.strip() and not words.lstrip().startswith("<task-notification>"):
        queued.append(Queued(line=line, at=at, text=words))


def dequeue(
    queued: list[Queued], line: int, operation: str, reason: Any, content: Any
) -> Queued | None:
    """A queue line taking words out; the entry when the agent absorbed them mid-turn."""
    if operation in ("popAll", "clear"):
        for entry in queued:
            entry.withdrawn = entry.withdrawn or line
        return None
    if operation != "remove":
        return None  # dequeue: the words come next as a prompt of their own
    words = _words(content)
    entry = next((x for x in queued if not words or _words(x.text) == words), None)
    if entry is None:
        return None
    if reason == ABSORBED:
        queued.remove(entry)
        return entry
    entry.withdrawn = entry.withdrawn or line
    return None


def holds(message: r.Message, words: str) -> bool:
    """Whether a prompt holds these words (whole words; spacing and injected context aside)."""
    said = " ".join(f"{message.command} {message.text}".split())
    own = " ".join(split_prompt(words)[0].split())  # as a prompt: injected context aside
    return f" {own} " in f" {said} "


def deliver(queued: list[Queued], message: r.Message) -> list[r.Attachment]:
    """Drop the queued words this prompt holds; words withdrawn before it was typed, which it
    lacks, become its attachments."""
    kept, extra = [], []
    line = message.src.line if message.src is not None and message.src.line else 0
    for entry in queued:
        if holds(message, entry.text):
            continue
        if 0 < entry.withdrawn < line:
            extra.append(r.Attachment(name="queued", text=entry.text))
        else:
            kept.append(entry)
    queued[:] = kept
    return extra
