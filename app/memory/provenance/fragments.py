"""Lines an edit changed inside: an Edit whose old and new text are parts of one line
(`vsla_copy(` -> `vsla_copy_basic(`, every one with replace_all) leaves no whole line whose key
the ledger knows. Its text is read back from the log (one record, at the offset the ledger
keeps: the ledger holds no text), and a line holding its new text is "changed by" that edit
(also where it was "changed since" an earlier edit wrote it).

Only where git dates the lines: a line committed before the edit already held the text, so it
is not the edit's; one committed after the first commit since the edit was changed again. An
edit without replace_all changed one place: it names a line only when one line alone can be it.
"""

from ...log import logfile, records
from ...reading.edits import NEW, OLD
from ..cards.fold import call_input
from .checking import SLACK, epoch
from .ledger import Edit

LEAST = 4  # characters of new text under which a part of a line names nothing


def changed(
    store,
    found: list[tuple[str, Edit]],
    lines: list[str],
    keys: list[int],
    done: list,
    times: list[float | None],
) -> None:
    """Mark, in place, lines no edit placed whole that an edit changed inside."""
    present = set(keys)
    for number, (task, edit) in enumerate(found):
        added = [k for h in edit.hunks for m, k in zip(h.marks, h.keys, strict=True) if m == "+"]
        if edit.where < 0 or not added or all(k in present for k in added):
            continue
        since = epoch(edit.at) - SLACK
        first = min((t for t in times if t is not None and t >= since), default=None)
        for old, new, every in _parts(store, task, edit):
            part = new.strip()
            if "\n" in part or len(part) < LEAST or part in old:
                continue
            places = [
                j
                for j, line in enumerate(lines)
                if part in line and _open(done[j], number) and times[j] in (None, first)
            ]
            if every or len(places) == 1:
                for j in places:
                    done[j] = ("changed by", number)


def _open(said: tuple[str, int | None], number: int) -> bool:
    """Whether a line's answer so far leaves room for edit `number`: no session's, or changed
    since an earlier edit wrote it."""
    status, origin = said
    return status == "not from a session" or (status == "changed since" and origin < number)


def _parts(store, task: str, edit: Edit) -> list[tuple[str, str, bool]]:
    """(old, new, every) of each replacement of the edit's call, read from its log."""
    try:
        for _, _, record in logfile.read(store.log_path(task), edit.where):
            if isinstance(record, records.Reply):
                for call in record.calls:
                    if call.id == edit.call:
                        return _pairs(call_input(call.input))
            return []
    except (OSError, ValueError):
        return []
    return []


def _pairs(data) -> list[tuple[str, str, bool]]:
    if not isinstance(data, dict):
        return []
    steps = data.get("edits") if isinstance(data.get("edits"), list) else [data]
    out = []
    for step in steps:
        if not isinstance(step, dict):
            continue
        old = next((step[k] for k in OLD if isinstance(step.get(k), str)), None)
        new = next((step[k] for k in NEW if isinstance(step.get(k), str)), None)
        if old is not None and new is not None:
            every = bool(step.get("replace_all") or data.get("replace_all"))
            out.append((old, new, every))
    return out
