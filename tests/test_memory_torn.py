"""A `.mem` frame or a `.heads` line cut by a killed append (#27): the next fold makes the
file anew from what was whole, so its cards and heads equal a clean build's (nothing is
appended after half a frame, where no reader would ever find it)."""

import shutil

from memory_logs import turn, write
from nodwyn.memory.cards import mem
from nodwyn.memory.words import index
from nodwyn.tasks.store import Store


def grown(store: Store, steps: range) -> None:
    for step in steps:
        write(store, "t1", turn(f"fix the failing build, step {step}", t0=step * 10))


def built_with_a_cut(tmp_path, cut) -> tuple[Store, Store]:
    """A log folded three times, `cut(log)` after the second; and a clean build of it."""
    store = Store(tmp_path / "killed")
    grown(store, range(2))
    index.refresh(store)
    grown(store, range(2, 4))
    index.refresh(store)  # a frame appended to the .mem, a line to the .heads
    cut(store.sessions / "t1.jsonl")
    grown(store, range(4, 6))
    index.refresh(store)
    clean = Store(tmp_path / "clean")
    for log in store.sessions.glob("*.jsonl"):
        shutil.copy(log, clean.sessions / log.name)
    index.refresh(clean)
    return store, clean


def cards(store: Store) -> list:
    log = store.sessions / "t1.jsonl"
    mem._seen.clear()  # read from the file, not what this process remembers
    return mem.load(log).fold.cards


def cut_off(file, count: int) -> None:
    data = file.read_bytes()
    file.write_bytes(data[:-count])


def test_a_mem_frame_cut_by_a_kill_is_not_appended_after(tmp_path):
    killed, clean = built_with_a_cut(tmp_path, lambda log: cut_off(mem.path_of(log), 5))
    assert cards(killed) == cards(clean)
    assert len(cards(killed)) == len(cards(clean)) == 5


def test_a_heads_line_cut_by_a_kill_is_made_anew(tmp_path):
    killed, clean = built_with_a_cut(tmp_path, lambda log: cut_off(mem.heads_path(log), 5))
    heads = mem.heads_path(killed.sessions / "t1.jsonl").read_bytes()
    assert heads.endswith(b"\n")
    assert all(line.startswith((b"{", b"[", b"nodwyn")) for line in heads.splitlines())
    assert cards(killed) == cards(clean)
