"""Every searched log's vectors in one matrix, so a search by meaning is one product, not one
a log: made again only when a log or this process's vectors changed, never by encoding,
and saved for the next process (mapped, not read, by it)."""

import time

import msgspec


class Stack(msgspec.Struct):
    """Every searched log's vectors in one matrix, so a search is one product, not one a log.
    owner and turns are numpy arrays, rows a vectors.Rows (typed `object`: numpy is imported
    only here); made_for the index state, tasks, encoder and vectors it was last found current
    for; without the tasks searched that have no vectors yet, searched how many were."""

    key: tuple = ()
    names: list = []
    owner: object = None
    turns: object = None
    rows: object = None
    made_for: tuple = ()
    without: list = []
    searched: int = 0


_stack = Stack()


def stacked(store, state, tasks, encoder) -> tuple[Stack, list]:
    """The stack of the tasks' vectors as encoded so far (made again only when a log or this
    process's vectors changed), and the tasks that have none yet. Nothing is encoded here.
    Searching every task, the rows of unchanged logs come from the stack an
    earlier process saved (mapped, not read), the others from their .vec."""
    global _stack
    from . import vectors

    asked = (state, len(state.tasks), tasks, encoder.id, vectors.made())
    if _stack.key and _stack.made_for == asked:
        return _stack, _stack.without  # the same state, unchanged since (a refresh copies)
    chosen = sorted(state.tasks if tasks is None else tasks & state.tasks.keys())
    seen = {task: (state.tasks[task].size, state.tasks[task].mtime_ns) for task in chosen}
    key = (encoder.id, tuple(seen.items()), vectors.made())
    if _stack.key == key:
        _stack.made_for = asked
        return _stack, _stack.without
    saved = vectors.load_stack(store.root, encoder.id) if tasks is None else None
    entries, saved_turns, saved_rows = saved or ({}, None, None)
    if saved is not None and not entries.keys() <= seen.keys():
        vectors.drop_stale_stack(store.root, seen)  # a deleted task's vectors go with it
    names, parts, without, logs, kept, current = [], [], [], [], [], True
    for task in chosen:
        entry = entries.get(task)
        log = None
        if entry is not None and (entry.size, entry.mtime_ns) == seen[task]:
            found = saved_turns[entry.start : entry.end], saved_rows.exact[entry.start : entry.end]
        else:
            log = store.log_path(task)
            found = vectors.searchable(log, encoder.id, seen[task])
            if found is not None:
                found, whole = found[:2], found[2]
                current = current and whole
        if found is None:
            without.append(task)
            continue
        kept.append((task, len(found[0])))
        if len(found[0]):
            names.append(task)
            parts.append(found)
            logs.append(log)
    stack = _joined(store, encoder, names, parts, logs, saved)
    stack.key, stack.made_for = key, asked
    stack.without, stack.searched = without, len(chosen)
    if tasks is None and current and not without and parts and not _whole(stack, saved):
        _save(store.root, encoder.id, seen, kept, stack)
    _stack = stack
    return stack, without


def _whole(stack: Stack, saved) -> bool:
    """Whether the stack is the saved one itself (nothing to save again)."""
    return saved is not None and stack.turns is saved[1]


def _joined(store, encoder, names: list, parts: list, logs: list, saved) -> Stack:
    """The parts (each a log's turns and float16 rows) as one Stack."""
    import numpy as np

    from . import compact, vectors

    if not parts:
        return Stack()
    lengths = [len(turns) for turns, _ in parts]
    stack = Stack(names=names, owner=np.repeat(np.arange(len(parts)), lengths))
    if saved is not None and all(log is None for log in logs) and sum(lengths) == len(saved[1]):
        stack.turns, stack.rows = saved[1], compact.held(saved[2])
        return stack
    stack.turns = np.concatenate([t for t, _ in parts])
    exact = np.concatenate([m for _, m in parts], dtype=np.float16)
    stack.rows = compact.held(vectors.Rows(*compact.quantised(exact), exact))
    _keep_rows(vectors, logs, lengths, stack)
    return stack


SAVE_EVERY = 30.0  # seconds: a stack changing with every turn of a live task is saved at most
_saved_at = [float("-inf")]  # this often by one process (others fold the changed logs on it)


def _save(root, model: str, seen: dict, kept: list[tuple[str, int]], stack: Stack) -> None:
    from . import vectors

    if time.monotonic() - _saved_at[0] < SAVE_EVERY:
        return
    _saved_at[0] = time.monotonic()
    entries, start = [], 0
    for task, rows in kept:
        size, mtime_ns = seen[task]
        entries.append(vectors.StackEntry(task, size, mtime_ns, start, start + rows))
        start += rows
    vectors.save_stack(root, model, entries, stack.turns, stack.rows)


def _keep_rows(vectors, logs: list, lengths: list[int], stack: Stack) -> None:
    """Point each log's cached vectors at its rows of the stack (a process holds them once)."""
    start = 0
    for log, length in zip(logs, lengths, strict=True):
        if log is not None:
            vectors.keep(
                log, stack.turns[start : start + length], stack.rows.exact[start : start + length]
            )
        start += length
