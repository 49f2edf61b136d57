"""Every searched log's vectors in one matrix, so a search by meaning is one product, not one
a log: made again only when a log or this process's vectors changed, never by encoding,
and saved for the next process (mapped, not read, by it).

A long-running process (the app, `nodwyn serve`, the search service) keeps no stack: its
model's process (model_process.py) holds it and ranks there, asked by an `Asked` (each
searched task's log as the word index last saw it, the query, how many vectors the asking
process has saved) and answering a `Ranked`; `answer` is that process's side. So numpy
never enters the long-running process; a one-shot command ranks in itself.
"""

import time
from pathlib import Path

import msgspec

from ..words.changes import Stamp


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


def stacked(store, state, tasks, encoder, made: int | None = None) -> tuple[Stack, list]:
    """The stack of the tasks' vectors as encoded so far (made again only when a log or this
    process's vectors changed, or `made`, the vectors the asking process saved: the model's
    process is told it), and the tasks that have none yet. Nothing is encoded here.
    Searching every task, the rows of unchanged logs come from the stack an
    earlier process saved (mapped, not read), the others from their .vec."""
    global _stack
    from . import vectors

    made = vectors.made() if made is None else made
    asked = (state, len(state.tasks), tasks, encoder.id, made)
    if _stack.key and _stack.made_for == asked:
        return _stack, _stack.without  # the same state, unchanged since (a refresh copies)
    chosen = sorted(state.tasks if tasks is None else tasks & state.tasks.keys())
    seen = {task: (state.tasks[task].size, state.tasks[task].mtime_ns) for task in chosen}
    key = (encoder.id, tuple(seen.items()), made)
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


def ranked(stack: Stack, query, depth: int, floor: float) -> list:
    """[((task, turn), cosine)] best first, at most `depth` turns (a turn counts its best
    text), cosines from `floor`: the stack's rows against the query's vector."""
    from . import compact

    if stack.rows is None or not query.any():
        return []
    order, scores = compact.best(stack.rows, query, depth * 4)  # a turn may have several texts
    order, scores = order[scores >= floor], scores[scores >= floor]
    names, found = stack.names, {}
    rows = zip(
        stack.owner[order].tolist(), stack.turns[order].tolist(), scores.tolist(), strict=True
    )
    for owner, turn, cosine in rows:  # plain Python numbers: numpy's scalars are slow here
        key = (names[owner], turn)
        if key not in found:
            found[key] = cosine
            if len(found) == depth:
                break
    return list(found.items())


class Logs(msgspec.Struct, frozen=True):
    """What a stack needs of the word index's state, as the model's process is told it:
    each searched task's log size and mtime."""

    tasks: dict[str, Stamp]


class Asked(msgspec.Struct, array_like=True, frozen=True):
    """A search by meaning the model's process ranks: the data folder, the searched tasks'
    logs (`every`: all the index holds, so the stack is saved for the next process), the
    query, how many turns and from which cosine, and `made` (vectors.made() of the asker)."""

    root: str
    logs: Logs
    every: bool
    text: str
    depth: int
    floor: float
    made: int


class Ranked(msgspec.Struct, array_like=True, frozen=True):
    """The model's process's answer: (task, turn, cosine) best first, and the tasks with no
    vectors yet."""

    turns: list[tuple[str, int, float]]
    without: list[str]


_asked_encoder, _asked_decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(Asked)
_ranked_decoder = msgspec.msgpack.Decoder(Ranked)


def asking(root, state, tasks, text: str, depth: int, floor: float) -> bytes:
    """The request for the model's process to rank `text` over the tasks' vectors."""
    from . import vectors

    chosen = state.tasks.keys() if tasks is None else tasks & state.tasks.keys()
    logs = {task: Stamp(state.tasks[task].size, state.tasks[task].mtime_ns) for task in chosen}
    asked = Asked(str(root), Logs(logs), tasks is None, text, depth, floor, vectors.made())
    return _asked_encoder.encode(asked)


def ready() -> None:
    """Import what `answer` needs (the model's process does it while the model loads, so the
    first search after the process starts does not wait for these imports)."""
    from . import compact, vectors  # noqa: F401


class Folder:
    """What a stack reads of a data folder (a Store's `root` and `log_path`) without the
    store's imports: the model's process reads each log's .vec and nothing else."""

    def __init__(self, root: str):
        from ... import paths

        self.root = Path(root)
        self.sessions = paths.sessions_dir(self.root)

    def log_path(self, task: str) -> Path:
        return self.sessions / f"{task}.jsonl"


def answer(model, request: bytes) -> bytes:
    """The model's process's side: encode the query, stack the vectors (kept between
    requests, as any process keeps its stack) and rank them."""
    asked = _asked_decoder.decode(request)
    tasks = None if asked.every else set(asked.logs.tasks)
    query = model.encode([asked.text])[0]
    stack, without = stacked(Folder(asked.root), asked.logs, tasks, model, asked.made)
    found = ranked(stack, query, asked.depth, asked.floor)
    turns = [(task, turn, cosine) for (task, turn), cosine in found]
    return _asked_encoder.encode(Ranked(turns, without))


def ranking_of(said: bytes) -> tuple[list, list]:
    """([((task, turn), cosine)], tasks without vectors) from the model's process's answer."""
    found = _ranked_decoder.decode(said)
    return [((task, turn), cosine) for task, turn, cosine in found.turns], found.without
