"""A compaction's or checkpoint's note as a reader wants it: the agent's template markup taken
off. Antigravity opens its notes with `{{ CHECKPOINT 0 }}` and a sentence wrapped in `** … **`
that Markdown cannot read as bold (the spaces inside the marks); the marker becomes the note's
name ("Checkpoint 0") and a line wholly wrapped in `**` is kept as its words."""

import re

_MARKER = re.compile(r"\{\{\s*([^{}]{1,60}?)\s*\}\}")
_WRAPPED = re.compile(r"^[ \t]*\*\*[ \t]*(.+?)[ \t]*\*\*[ \t]*$", re.MULTILINE)


def cleaned(note: str) -> tuple[str, str]:
    """(its name from a template marker or "", the note without its markup)."""
    found = _MARKER.search(note)
    name = found.group(1).strip().capitalize() if found else ""
    text = _MARKER.sub("", note)
    text = _WRAPPED.sub(lambda m: m.group(1), text)
    return name, text.strip("\n")
