"""What search does to be fast gives the same answers: a hit's turn head read from the turn's
lines alone equals its card, and searching by words loads neither numpy nor the model."""

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from corpora import FIXTURES, REAL
from memory_logs import Counting, at, encoded, stamp, turn, write
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.log import records as r
from nodwyn.memory import fusion
from nodwyn.memory.cards import heads, mem
from nodwyn.memory.cards.heads import finished_card, turn_card
from nodwyn.memory.meaning import compact, encoder, stack, vectors
from nodwyn.memory.words import index, tokens
from nodwyn.tasks.store import Store

HEAD_FIELDS = ("first_seq", "last_seq", "at", "head", "asked", "outcome", "duration_ms")


def first_lines(store: Store, task: str) -> dict[int, int]:
    """Offset of each main-agent message's line: where the index says a turn starts."""
    return {
        record.seq: offset
        for offset, _, record in logfile.read(store.log_path(task))
        if isinstance(record, r.Message) and record.agent is None
    }


def assert_heads_match_cards(store: Store, task: str) -> int:
    """Each turn's head read from its lines is its card's; a finished turn's head read from
    the .mem is the same card as from its lines."""
    log = store.log_path(task)
    starts = first_lines(store, task)
    cards = mem.cards_of(log)[0]  # as folded, not yet redacted: turn_card's text too
    assert [card.first_seq for card in cards] == sorted(starts)
    seen = index.refresh(store).tasks[task]
    with open(log, "rb") as handle:
        for card in cards:
            light = turn_card(handle, log, starts[card.first_seq], card.first_seq)
            assert {name: getattr(light, name) for name in HEAD_FIELDS} == {
                name: getattr(card, name) for name in HEAD_FIELDS
            }
            stored = finished_card(handle, log, seen, card.first_seq)
            assert stored is None or stored == light
            FROM_MEM[0] += stored is not None
    return len(cards)


FROM_MEM = [0]  # heads assert_heads_match_cards found in a .mem


def test_every_ending_of_a_turn_gives_the_head_its_card_has(tmp_path):
    store = Store(tmp_path / "data")
    items = [
        *turn("completed one", t0=0),
        r.Message(text="a sub-agent's prompt is part of the turn", agent="helper", at=at(3)),
        *turn("failed one", end="failed", t0=10),
        r.Reply(text="after the end, still this turn", at=at(13)),
        *turn("unfinished one", end=None, t0=20),  # closed by the next message
        *turn("interrupted one", end=None, t0=30),
        r.SessionResume(at=at(40)),
        r.Reply(text="outside any turn", at=at(41)),
        r.Message(command="/compact", at=at(50)),
        r.ContextCompact(note="a note inside a turn", at=at(51)),
        r.TurnEnd(status="cancelled", at=at(52)),  # no duration: from the times
        r.TurnEnd(status="completed", duration_ms=7, at=at(53)),  # the last end counts
        *turn("under way", end=None, t0=60),
    ]
    write(store, "t1", items)
    with open(store.log_path("t1"), "ab") as handle:
        handle.write(b'{"kind":"reply","seq":99,"at":"2026-11-29T11:00:00.000Z"')  # torn
    assert assert_heads_match_cards(store, "t1") == 6


def test_damaged_and_unknown_lines_count_as_the_fold_counts_them(tmp_path):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("first", end=None, t0=0))
    with open(store.log_path("t1"), "ab") as handle:
        handle.write(b'{"kind":"future.kind","seq":4,"at":"2026-11-29T10:00:05.000Z","x":1}\n')
        handle.write(b"not json at all\n")
        handle.write(b'{"kind":"reply","seq":0,"at":"2026-11-29T10:00:06.000Z"}\n')  # no seq
        handle.write(b'{"kind":"turn.end","seq":5,"at":7,"status":"failed"}\n')  # odd fields
        handle.write(b'{"kind":"message","seq":6,"at":"2026-11-29T10:00:08.000Z","text":1}\n')
        handle.write(b"\n")
    write(store, "t1", turn("second", t0=20))
    assert assert_heads_match_cards(store, "t1") == 2


def test_a_line_that_is_not_utf8_counts_as_the_fold_counts_it(tmp_path):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("first", end=None, t0=0))
    with open(store.log_path("t1"), "ab") as handle:  # damaged inside a field heads skip
        handle.write(b'{"kind":"reply","seq":9,"at":"2026-11-29T10:00:05.000Z","text":"\xff"}\n')
    write(store, "t1", turn("second", t0=20))
    assert assert_heads_match_cards(store, "t1") == 2


@pytest.mark.parametrize(
    ("root", "least"),
    [
        pytest.param(FIXTURES, 14, id="fixture-corpus"),
        pytest.param(REAL, 50, id="real-corpus", marks=pytest.mark.corpus),
    ],
)
def test_on_a_corpus_every_turn_head_is_its_card_head(finished, root, least, tmp_path):
    corpus = finished(root)
    store = Store(tmp_path / "data")
    import_paths(store, "claude", [corpus / "claude"])
    import_paths(store, "codex", [corpus / "codex"])
    index.refresh(store)
    FROM_MEM[0] = 0
    tasks = store.list(archived=None)
    turns = sum(assert_heads_match_cards(store, info.id) for info in tasks)
    assert turns >= least
    assert FROM_MEM[0] >= turns - len(tasks)  # all but each log's last turn, maybe under way


def test_a_head_is_read_from_the_mem_only_while_the_log_holds_what_the_mem_folded(tmp_path):
    store = Store(tmp_path / "data")
    write(store, "t1", [*turn("first", t0=0), *turn("second", end=None, t0=10)])
    log, seen = store.log_path("t1"), index.refresh(store).tasks["t1"]
    first, second = sorted(first_lines(store, "t1"))

    def stored(seq: int):
        heads._finished.clear()
        with open(log, "rb") as handle:
            return finished_card(handle, log, seen, seq)

    assert stored(first).asked == "first"
    assert stored(second) is None  # under way: not in the .mem
    write(store, "t1", turn("third", t0=20))  # the log grew: its finished turns are as they were
    assert stored(first).asked == "first"
    log.write_bytes(log.read_bytes().replace(b'"duration_ms":2000', b'"duration_ms":3000', 1))
    assert stored(first) is None  # edited behind nodwyn's back: the .mem's last line differs
    shown = memory.search(store, "first", mode="words").turns[0]
    assert shown.asked == "first" and "3s" in shown.head  # read from its lines


def test_a_large_mem_is_not_read_for_a_head(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")
    write(store, "t1", [*turn("first", t0=0), *turn("second", t0=10)])
    seen = index.refresh(store).tasks["t1"]
    monkeypatch.setattr(heads, "HEADS_FROM_MEM", 16)
    monkeypatch.setattr(heads, "_finished", {})
    log, first = store.log_path("t1"), min(first_lines(store, "t1"))
    with open(log, "rb") as handle:
        assert finished_card(handle, log, seen, first) is None
    assert memory.search(store, "first", mode="words").turns[0].asked == "first"  # from its lines


def test_a_search_finds_a_turn_again_after_its_log_grew(tmp_path):
    store = Store(tmp_path / "data")
    now = datetime.now(UTC)  # the agent wrote in it a minute ago: under way (ADR 0039)
    write(store, "t1", [r.Message(text="configure the pager", at=stamp(now - timedelta(minutes=2))),
                        r.Reply(text="done", at=stamp(now - timedelta(minutes=1)))])  # fmt: skip
    first = memory.search(store, "pager", mode="words").turns[0]
    assert first.last_seq is None  # under way
    write(store, "t1", [r.TurnEnd(status="completed", duration_ms=1500, at=stamp(now))])
    again = memory.search(store, "pager", mode="words").turns[0]
    assert again.last_seq == 4 and "completed" in again.head


@pytest.mark.parametrize("mode", ["words", "both"])
def test_what_a_new_process_imports_to_search(tmp_path, mode):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("configure the pager", t0=0))
    script = (
        "import os, sys; from nodwyn import memory; from nodwyn.tasks.store import Store; "
        f"found = memory.search(Store(sys.argv[1]), 'pager', mode={mode!r}); "
        "print(len(found.turns), found.mode, 'numpy' in sys.modules, "
        "os.environ['OPENBLAS_NUM_THREADS'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", script, str(store.root)], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    turns, used, numpy, threads = done.stdout.split()
    assert (turns, used) == ("1", mode)
    assert numpy == ("True" if mode == "both" else "False")
    assert threads == "1"  # numpy's product on one thread (see nodwyn.memory)


def test_a_search_that_first_folds_a_long_prompt_loads_no_numpy_for_it(tmp_path):
    store = Store(tmp_path / "data")
    prompt = "configure the pager: " + "parseConfig TestPagerOrder v2 " * 3_000  # 90,000 chars
    assert len(prompt) > tokens.MANY  # what tokens.compounds_of would cut with numpy
    write(store, "t1", turn(prompt, t0=0))
    script = (
        "import sys; from nodwyn import memory; from nodwyn.tasks.store import Store; "
        "found = memory.search(Store(sys.argv[1]), 'pager', mode='words'); "
        "print(len(found.turns), 'numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script, str(store.root)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.split() == ["1", "False"]  # less to read than numpy's import pays for


def as_a_new_process(monkeypatch) -> None:
    monkeypatch.setattr(stack, "_stack", stack.Stack())
    monkeypatch.setattr(vectors, "_cache", {})


def test_a_new_process_maps_the_saved_stack_and_folds_only_changed_logs_on_it(
    tmp_path, monkeypatch
):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("install the cuda toolkit", reply="apt install cuda", t0=0))
    write(store, "t2", turn("fix the broken bibliography", reply="bibtex fixed", t0=0))
    monkeypatch.setattr(stack, "SAVE_EVERY", 0.0)
    as_a_new_process(monkeypatch)
    state = index.refresh(store)
    encoded(store, Counting())
    first, _ = fusion.meaning_ranking(store, state, "cuda", None, Counting(), floor=-1.0)
    assert vectors.stack_path(store.root).exists()
    as_a_new_process(monkeypatch)
    for vec in store.sessions.glob("*.vec"):
        vec.unlink()  # so rows not taken from the stack would have to be encoded again
    counting = Counting()
    again, _ = fusion.meaning_ranking(store, state, "cuda", None, counting, floor=-1.0)
    assert again == first and counting.texts == ["cuda"]
    write(store, "t2", turn("set up the nvidia graphics drivers", reply="done", t0=10))
    state = index.refresh(store)
    as_a_new_process(monkeypatch)
    counting = Counting()
    vectors.update(store.log_path("t2"), counting)  # the background's work: t1 is unchanged
    ranked, _ = fusion.meaning_ranking(store, state, "nvidia drivers", None, counting, floor=-1.0)
    # a card's text starts with its task's folder, /work/p
    made = [text.removeprefix("p\n").split("\n")[0] for text in counting.texts]
    assert made == ["fix the broken bibliography", "set up the nvidia graphics drivers",
                    "nvidia drivers"]  # fmt: skip
    assert ranked[0][0] == ("t2", 5) and {key for key, _ in ranked} == {
        ("t1", 2),
        ("t2", 2),
        ("t2", 5),
    }


def test_a_damaged_or_foreign_saved_stack_is_passed_over(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("install the cuda toolkit", reply="apt install cuda", t0=0))
    state = index.refresh(store)
    as_a_new_process(monkeypatch)
    vectors.stack_path(store.root).write_bytes(vectors.STACK_MAGIC + b"\x05\x00\x00\x00junk!")
    encoded(store, Counting())
    ranked, _ = fusion.meaning_ranking(store, state, "cuda", None, Counting(), floor=-1.0)
    assert [key for key, _ in ranked] == [("t1", 2)]
    assert vectors.load_stack(store.root, "other:model") is None


def test_a_log_added_or_grown_after_a_search_is_found_by_the_next(tmp_path):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("configure the pager", t0=0))
    long_ago = 1_600_000_000
    os.utime(store.sessions, (long_ago, long_ago))  # a settled folder: its listing is kept
    assert [t.task for t in memory.search(store, "pager", mode="words").turns] == ["t1"]
    write(store, "t2", turn("the pager again", t0=0))  # a new file: the folder changes
    found = memory.search(store, "pager", mode="words").turns
    assert sorted(t.task for t in found) == ["t1", "t2"]
    os.utime(store.sessions, (long_ago, long_ago))
    memory.search(store, "pager", mode="words")
    write(store, "t1", turn("now the scroller", t0=10))  # an append: the folder does not change
    assert [t.task for t in memory.search(store, "scroller", mode="words").turns] == ["t1"]


def test_a_deleted_task_takes_its_vectors_out_of_the_saved_stack(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("install the cuda toolkit", reply="apt install cuda", t0=0))
    write(store, "t2", turn("fix the broken bibliography", reply="bibtex fixed", t0=0))
    monkeypatch.setattr(stack, "SAVE_EVERY", 0.0)
    as_a_new_process(monkeypatch)
    encoded(store, Counting())
    fusion.meaning_ranking(store, index.refresh(store), "cuda", None, Counting(), floor=-1.0)
    assert vectors.stack_path(store.root).exists()
    store.delete("t2")
    memory.refresh(store)  # as the app's worker does
    assert not vectors.stack_path(store.root).exists()
    fusion.meaning_ranking(store, index.refresh(store), "cuda", None, Counting(), floor=-1.0)
    saved, _, _ = vectors.load_stack(store.root, encoder.builtin().id)
    assert list(saved) == ["t1"]
    store.delete("t1")
    as_a_new_process(monkeypatch)
    ranked, _ = fusion.meaning_ranking(store, index.refresh(store), "cuda", None, Counting())
    assert ranked == [] and not vectors.stack_path(store.root).exists()  # the next search too


def rows(matrix) -> vectors.Rows:
    return vectors.Rows(*compact.quantised(matrix), matrix)


@pytest.mark.skipif(os.name != "posix", reason="a file open elsewhere is replaced on POSIX only")
def test_a_stack_replaced_while_it_is_read_gives_the_rows_its_head_names(tmp_path, monkeypatch):
    import numpy as np

    root = tmp_path
    ours = np.arange(8, dtype=np.float16).reshape(2, 4)
    vectors.save_stack(root, "m", [vectors.StackEntry("t1", 10, 20, 0, 2)], [2, 5], rows(ours))
    theirs = tmp_path / "theirs"
    theirs.mkdir()  # another process's stack, of another task, with rows of its own
    vectors.save_stack(theirs, "m", [vectors.StackEntry("t9", 10, 20, 0, 2)], [2, 5],
                       rows(-ours))  # fmt: skip
    mapping = np.memmap

    def replaced_first(*args, **kwargs):  # the other process renames its stack into place
        os.replace(vectors.stack_path(theirs), vectors.stack_path(root))
        return mapping(*args, **kwargs)

    monkeypatch.setattr(np, "memmap", replaced_first)
    entries, turns, found = vectors.load_stack(root, "m")
    assert list(entries) == ["t1"] and turns.tolist() == [2, 5]
    assert np.array_equal(found.exact, ours)
    assert np.array_equal(found.codes, compact.quantised(ours)[0])
    assert np.array_equal(found.sums, compact.quantised(ours)[2])


CLOSING = """
import os, sys, time
from nodwyn import memory
from nodwyn.memory.words import index
from nodwyn.tasks.store import Store

def watchers():  # tantivy's thread that looks at an open index's meta.json twice a second
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as file:
                names.append(file.read().strip())
        except OSError:  # a thread that ended since the listing
            pass
    return sum(name.startswith("thread-tantivy") for name in names)

def until(wanted):  # a new thread names itself once it runs: looked at for 10 s at most
    deadline = time.monotonic() + 10
    while not wanted(watchers()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return watchers()

store = Store(sys.argv[1])
index.close_when_unused(1.0)  # long enough to see the thread named
found = [hit.task for hit in memory.search(store, "pager", mode="words").turns]
print(found, until(lambda n: n > 0) > 0)  # (the first build's writer threads may be ending)
print(until(lambda n: n == 0))
print([hit.task for hit in memory.search(store, "pager", mode="words").turns], until(bool) > 0)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads a process's threads")
def test_a_long_running_process_closes_the_index_when_unused_and_opens_it_again(tmp_path):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("configure the pager", t0=0))
    done = subprocess.run([sys.executable, "-c", CLOSING, str(store.root)],
                          capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    assert done.stdout.splitlines() == ["['t1'] True", "0", "['t1'] True"]
