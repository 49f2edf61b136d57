"""Task memory: turn cards (L1), episodes (L2), the word index of all logs, search and recall.

Four parts, a folder each: cards/ (what is folded of each log and kept beside it), words/ (the
word index and the search by words), meaning/ (vectors and the search by meaning) and
provenance/ (which turn wrote a line). Here: fusion.py fuses the two searches and is the one
search every caller comes to (errands.py its kept threads), readback.py reads cards and events
back, pipes.py is how child processes speak. Dependencies point one way: cards <- words <-
meaning <- fusion; cards, words <- provenance; cards, words <- readback.
Everything here is derived from the logs and may be deleted at any time; it is rebuilt.

May import: the top modules, log/, tasks/ (the catalogue, the store) and two helpers of
reading/ (ansi.py, edits.py); floor 2 of docs/ARCHITECTURE.md.
"""

import _thread
import os

# numpy's one product per search by meaning (every card's vector times the query's) runs in
# OpenBLAS, whose threads made it many times slower on a busy 2-core machine (ADR 0059) and
# spin while they wait. One thread, unless the person chose otherwise; it must be said before
# numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# What this package exports is imported on first use (PEP 562), so that a command that needs
# one part of memory (the usage table reads the .mem files) does not import the search. No
# export has the name of a submodule, which would shadow it once that submodule is imported.
_EXPORTS = {
    "Card": "cards.fold", "Command": "cards.fold", "Episode": "cards.fold",
    "MODES": "fusion", "FusedResults": "fusion", "search": "fusion",
    "Recall": "readback", "Window": "readback", "turn_cards": "readback",
    "context": "readback", "episodes": "readback", "recall": "readback",
    "EventHit": "words.search", "Results": "words.search", "TurnHit": "words.search",
    "Where": "words.search",
}  # fmt: skip  # a table


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(__import__(f"{__name__}.{module}", fromlist=["_"]), name)
    globals()[name] = value
    return value


# Building memory writes derived files under per-process names; two threads of one process
# (API requests, the desktop worker) building at once collide, so they take turns on this.
# (threading.Lock is this; the threading module itself is not needed to make it, and a search
# in a new process does without its import.)
BUILDING = _thread.allocate_lock()


def refresh(store, progress=None, full: bool = False) -> None:
    """Bring every .mem, the word index and the vectors up to date with the logs (deleted
    tasks removed); `full`: every log looked at, not only those the change journal names;
    `progress(done, total)` is called as logs are folded."""
    refresh_words(store, progress, full)
    encode(store, progress)


def refresh_words(store, progress=None, full: bool = False) -> None:
    """Bring every .mem, the word index and the ledgers up to date with the logs (take
    BUILDING); `full`: every log looked at, not only those the change journal names. In the
    index's own process where the app keeps one (index_process.py), else here."""
    from . import index_process

    index_process.refresh_words(store, progress, full)


def encode(store, progress=None, lock=None) -> None:
    """Bring every task's vectors up to date, newest tasks first; with `lock` (BUILDING),
    taken only while a task's cards are read, so searches and the transcript do not wait for
    the encoding, and search by what is encoded so far."""
    from .meaning import encoding  # the model, in its process or this one: only here

    encoding.refresh(store, progress, lock)


__all__ = [
    "BUILDING",
    "Card",
    "Command",
    "Episode",
    "EventHit",
    "FusedResults",
    "MODES",
    "Recall",
    "Results",
    "TurnHit",
    "Window",
    "turn_cards",
    "context",
    "episodes",
    "recall",
    "encode",
    "refresh",
    "refresh_words",
    "search",
]
