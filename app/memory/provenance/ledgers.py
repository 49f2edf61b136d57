"""Every log's ledger (ledger.py) held in one process, found by file name, kept current.

A warm process reads the sessions folder once per question (one scandir: no per-log read
when nothing changed) and brings up to date only the ledgers whose log changed, so a blame
costs work in proportion to the edits of the file asked about, not to the corpus. Maps from a
file's name to the edits and moves that name it are rebuilt only when a ledger changed.
"""

import os
from pathlib import Path

from msgspec import Struct

from . import ledger as ledgerfile
from .ledger import Edit, Ledger, Move


class Book(Struct, kw_only=True):
    """The ledgers of one data directory: by task, and each edit and move by file name."""

    ledgers: dict[str, tuple[tuple[int, int], Ledger]] = {}
    edits: dict[str, list[tuple[str, Edit]]] = {}  # file name -> (task, edit)
    moves: dict[str, list[tuple[str, Move]]] = {}  # target's file name -> (task, move)


_books: dict[Path, Book] = {}


def name_of(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def book(store) -> Book:
    """The ledgers of every log of `store`, current (those of changed logs folded on and
    saved; those of deleted logs dropped)."""
    known = _books.get(store.root) or Book()
    held, changed = {}, False
    try:
        entries = list(os.scandir(store.sessions))
    except FileNotFoundError:
        entries = []
    for entry in entries:
        if not entry.name.endswith(".jsonl"):
            continue
        task, stat = entry.name[:-6], entry.stat()
        stamp = (stat.st_size, stat.st_mtime_ns)
        before = known.ledgers.get(task)
        if before is not None and before[0] == stamp:
            held[task] = before
            continue
        log = Path(entry.path)
        try:
            found, gained = ledgerfile.current(log, before[1] if before else None)
        except OSError:
            continue  # deleted meanwhile
        if gained:
            ledgerfile.save(log, found)
        held[task], changed = (stamp, found), True
    if changed or len(held) != len(known.ledgers):
        known = _mapped(held)
        _books[store.root] = known
    return known


def _mapped(held: dict) -> Book:
    edits: dict[str, list] = {}
    moves: dict[str, list] = {}
    for task, (_, found) in held.items():
        for edit in found.edits:
            edits.setdefault(name_of(edit.path), []).append((task, edit))
        for move in found.moves:
            moves.setdefault(name_of(move.dst), []).append((task, move))
    return Book(ledgers=held, edits=edits, moves=moves)


def refresh(store) -> None:
    """Every ledger brought up to date with its log (as the memory is built)."""
    book(store)
