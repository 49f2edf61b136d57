"""Events as the transcript and the exports show them: the plain record (memory.readback's
`plain`, redacted and cut) with what the page needs to render it added beside its fields:
- `md`: the blocks of a message's or reply's text, or a compaction's note (markdown.tree);
- `diff` on each call of an edit tool (edits.diff_of), kept beside its `input`;
- `ansi`: a result's output as coloured runs, where it has terminal escapes;
- `note_name`: a compaction note's name from its template markup ("Checkpoint 0"), its `md`
  made from the note with that markup taken off (notes.cleaned);
an agent's code in other fences than Markdown's is parsed as code (codeblocks.fenced).
Nothing is taken away, so a reader that ignores these fields sees the record as before."""

from . import ansi, codeblocks, edits, markdown, notes

_TEXTS = {"message": "text", "reply": "text", "context.compact": "note", "memory.summary": "text"}


def dress(event: dict) -> dict:
    """`event` with `md`, `diff` and `ansi` added where they apply (changed in place)."""
    kind = event.get("kind", "")
    field = _TEXTS.get(kind)
    if field and isinstance(event.get(field), str):
        text = event[field]
        if kind == "context.compact":
            name, text = notes.cleaned(text)
            if name:
                event["note_name"] = name
        elif kind == "reply":
            text = codeblocks.fenced(text)
        event["md"] = markdown.tree(text)
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
