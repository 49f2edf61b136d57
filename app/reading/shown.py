"""Events as the transcript and the exports show them: the plain record (memory.readback's
`plain`, redacted and cut) with what the page needs to render it added beside its fields:
- `md`: the blocks of a message's or reply's text, or a compaction's note (markdown.tree);
- `diff` on each call of an edit tool (edits.diff_of), kept beside its `input`;
- `ansi`: a result's output as coloured runs, where it has terminal escapes.
Nothing is taken away, so a reader that ignores these fields sees the record as before."""

from . import ansi, edits, markdown

_TEXTS = {"message": "text", "reply": "text", "context.compact": "note", "memory.summary": "text"}


def dress(event: dict) -> dict:
    """`event` with `md`, `diff` and `ansi` added where they apply (changed in place)."""
    field = _TEXTS.get(event.get("kind", ""))
    if field and isinstance(event.get(field), str):
        event["md"] = markdown.tree(event[field])
    for call in event.get("calls") or []:
        if isinstance(call, dict) and isinstance(call.get("tool"), str):
            diff = edits.diff_of(call["tool"], call.get("input"))
            if diff:
                call["diff"] = diff
    output = event.get("output")
    if event.get("kind") == "result" and isinstance(output, str) and ansi.has_escapes(output):
        event["ansi"] = ansi.runs(output)
    return event


def window(store, task: str, seq: int | None, before: int, after: int):
    """memory.context's window of events, each dressed for reading."""
    from .. import memory

    found = memory.context(store, task, seq, before=before, after=after)
    for event in found.events:
        dress(event)
    return found
