"""The memory read from disk (`<id>.mem` folded on, the index added to) equals a fold of the
whole log in memory: cards, documents and ranking, as the log grows and after the .mem or
the log is damaged, cut short, replaced or deleted."""

import shutil
import zlib

import pytest
from memory_logs import turn, write
from nodwyn import memory
from nodwyn.log import records as r
from nodwyn.memory.cards import mem
from nodwyn.memory.words import index
from nodwyn.memory.words.search import Where
from nodwyn.memory.words.search import search as word_search
from nodwyn.tasks.store import Store

QUERIES = ["pager", "config order", "TestPagerOrder retry", "wombat"]


@pytest.fixture
def store() -> Store:
    return Store()


def steps():
    yield turn("Fix the flaky TestPagerOrder", reply="pager order fixed") + turn(
        "tidy parse_config.py", reply="config tidied", end=None, t0=10
    )
    yield [r.Reply(text="config order still odd"), r.TurnEnd(status="failed")]
    yield [r.ContextCompact(note="pager and config work"), *turn("retry the pager", t0=30)]
    yield [r.Message(text="wombat"), r.Result(call="x", tool="Bash", output="wombat pager")]


def fresh(store: Store, tmp_path, name: str) -> Store:
    """A new data directory holding copies of the logs only: everything derived made anew."""
    other = Store(tmp_path / name)
    for log in store.sessions.glob("*.jsonl"):
        shutil.copy(log, other.sessions / log.name)
    return other


def shape(found, scores: bool):
    """Results in order with their scores; or, where documents were deleted and added again
    (tantivy counts deleted documents in BM25's statistics until their segment is merged, so
    scores move a little), the same turns and events in any order."""
    turns = [
        (hit.task, hit.first_seq, hit.last_seq, hit.head, [e.seq for e in hit.events])
        + ((round(hit.score, 4),) if scores else ())
        for hit in found.turns
    ]
    return turns if scores else sorted(turns)


def assert_same(store: Store, tmp_path, name: str, scores: bool = True) -> None:
    other = fresh(store, tmp_path, name)
    for task in ("T", "U"):
        in_memory = mem.fold_log(store.log_path(task), mem.Mem())
        assert memory.turn_cards(store, task) == in_memory[1]
        assert memory.episodes(store, task) == in_memory[2]
    for query in QUERIES:
        assert shape(word_search(store, query), scores) == shape(word_search(other, query), scores)
    ours, theirs = (index.load_state(s.root) for s in (store, other))
    assert (
        index.open_index(store.root, ours).searcher().num_docs
        == index.open_index(other.root, theirs).searcher().num_docs
    )


def grow(store: Store, tmp_path) -> None:
    for number, items in enumerate(steps()):
        write(store, "T", items)
        write(store, "U", items)
        memory.refresh(store)
        assert_same(store, tmp_path, f"step{number}")


def test_memory_on_disk_equals_a_fold_of_the_whole_log_as_the_log_grows(store, tmp_path):
    grow(store, tmp_path)


def test_the_mem_is_saved_at_the_end_of_the_last_whole_turn(store):
    write(store, "T", turn("one") + turn("two", end=None, t0=10))
    memory.refresh(store)
    saved = mem.load(store.log_path("T"))
    data = store.log_path("T").read_bytes()
    lines = data.splitlines(keepends=True)
    turn_end_line = lines[3]  # session.start, message, reply, turn.end | message, reply
    assert data[saved.fold.line_start : saved.fold.end] == turn_end_line
    assert [c.first_seq for c in saved.fold.cards] == [2]
    assert saved.mark.end == len(data)


def test_folding_on_reads_only_what_the_log_gained(store):
    write(store, "T", turn("alpha question", reply="alpha") + turn("beta", t0=10))
    memory.turn_cards(store, "T")
    log = store.log_path("T")
    data = log.read_bytes()
    log.write_bytes(data.replace(b"alpha question", b"gamma question"))  # before the mark
    write(store, "T", turn("delta", t0=20))
    assert memory.turn_cards(store, "T")[0].asked == "alpha question"  # the .mem's, not re-read


def test_a_changed_hash_line_rebuilds_from_the_log(store, tmp_path):
    grow(store, tmp_path)
    log = store.log_path("T")
    saved = mem.load(log)
    data = bytearray(log.read_bytes())
    line = bytes(data[saved.fold.line_start : saved.fold.end])
    edited = line.replace(b'"at":"2026', b'"at":"2025')
    assert edited != line
    data[saved.fold.line_start : saved.fold.end] = edited
    log.write_bytes(bytes(data))
    assert_same(store, tmp_path, "edited", scores=False)
    assert mem.load(log).fold.line_crc == zlib.crc32(edited)  # folded again and saved


def test_a_mem_cut_short_is_rebuilt(store, tmp_path):
    grow(store, tmp_path)
    file = mem.path_of(store.log_path("T"))
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
    write(store, "T", turn("after the cut", t0=50))
    assert_same(store, tmp_path, "cut", scores=False)


def test_a_deleted_mem_and_a_deleted_index_are_rebuilt(store, tmp_path):
    grow(store, tmp_path)
    mem.path_of(store.log_path("T")).unlink()
    assert_same(store, tmp_path, "no-mem", scores=False)
    shutil.rmtree(index.folder(store.root))
    assert_same(store, tmp_path, "no-index")


def test_a_log_replaced_by_another_is_folded_again_from_its_start(store, tmp_path):
    grow(store, tmp_path)
    store.log_path("T").unlink()
    write(store, "T", turn("a different story about kangaroos"))
    assert word_search(store, "wombat", Where(scope="task", task="T")).turns == []
    assert [c.asked for c in memory.turn_cards(store, "T")] == ["a different story about kangaroos"]
    assert_same(store, tmp_path, "replaced", scores=False)


def test_a_new_turn_appends_a_frame_and_leaves_the_bytes_before_it_alone(store):
    write(store, "T", turn("one") + turn("two", t0=10))
    memory.refresh(store)
    before = mem.path_of(store.log_path("T")).read_bytes()
    write(store, "T", turn("three", t0=20))
    memory.refresh(store)
    after = mem.path_of(store.log_path("T")).read_bytes()
    assert after.startswith(before) and len(after) > len(before)
    assert mem.load(store.log_path("T")).frames == 2


def test_a_frame_cut_short_leaves_the_state_before_it(store):
    write(store, "T", turn("one") + turn("two", t0=10))
    memory.refresh(store)
    log = store.log_path("T")
    first = mem.load(log).fold.end
    write(store, "T", turn("three", t0=20) + turn("four", t0=30))
    memory.refresh(store)
    file = mem.path_of(log)
    file.write_bytes(file.read_bytes()[:-3])
    assert mem.load(log).fold.end == first
    assert memory.turn_cards(store, "T") == mem.fold_log(log, mem.Mem())[1]


def test_many_frames_are_compacted_into_one(store):
    write(store, "T", turn("start"))
    log = store.log_path("T")
    for number in range(mem.COMPACT_AFTER + 5):
        write(store, "T", turn(f"turn {number}", t0=number % 50))
        memory.turn_cards(store, "T")
    assert mem.load(log).frames <= mem.COMPACT_AFTER
    assert memory.turn_cards(store, "T") == mem.fold_log(log, mem.Mem())[1]
    assert len(memory.turn_cards(store, "T")) == mem.COMPACT_AFTER + 6
