"""The stack's int8 rows are a first pass only: search by meaning ranks exactly as float32
rows do, and a saved stack of the earlier format (float32 rows) is replaced, never misread."""

import numpy as np
import pytest
from corpora import FIXTURES
from memory_logs import encoded, turn, write
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.memory import fusion
from nodwyn.memory.meaning import compact, encoder, stack, vectors
from nodwyn.memory.words import index
from nodwyn.memory.words.index import text_of
from nodwyn.tasks.store import Store


def fixture_texts() -> list[str]:
    """Pieces of every prompt, reply and tool output of the fixture corpus (real sessions)."""
    import tempfile
    from pathlib import Path

    out = []
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(Path(scratch) / "data")
        import_paths(store, "claude", [FIXTURES / "claude"])
        import_paths(store, "codex", [FIXTURES / "codex"])
        for log in sorted(store.sessions.glob("*.jsonl")):
            for _, _, record in logfile.read(log):
                text = " ".join(text_of(record).split())
                out.extend(text[at : at + 160] for at in range(0, min(len(text), 1600), 160))
    return [text for text in dict.fromkeys(out) if len(text) > 20]


TEXTS = fixture_texts()
QUERIES = [
    "fix the failing test", "grant application budget", "windows path separators",
    "compaction summary of the session", "todo list app", "employer knowledge base",
    "tensor shapes", "install dependencies", "why did the build break", "git commit",
]  # fmt: skip


def float32_best(rows: np.ndarray, query: np.ndarray, count: int) -> tuple:
    """The reference: every row scored in float32, best first, equal scores by row number."""
    scores = compact.scores(rows, query)
    assert np.allclose(scores, rows.astype(np.float32) @ query, atol=1e-6)  # a matrix product
    order = np.lexsort((np.arange(len(scores)), -scores))[:count]
    return order, scores[order]


@pytest.fixture(scope="module")
def table():
    return encoder.static()  # the shipped table: real text vectors, quick to make


@pytest.fixture(params=["simsimd", "numpy"])
def first_pass(request, monkeypatch) -> str:
    """Each way of scoring the codes: simsimd's int8 product, and numpy's where it is missing
    (with a first pass whatever the number of rows: small stacks are scored without one)."""
    monkeypatch.setattr(compact, "SMALL", 0)
    if request.param == "numpy":
        monkeypatch.setattr(compact, "simsimd", None)
    else:
        assert compact.simsimd is not None  # a dependency: installed with nodwyn
    return request.param


def compact_rows(matrix) -> vectors.Rows:
    return vectors.Rows(*compact.quantised(matrix), matrix)


def test_the_fixture_corpus_gives_enough_texts_to_leave_most_rows_out():
    assert len(TEXTS) > 250


@pytest.mark.parametrize("count", [1, 5, 20, 100])
def test_the_compact_rows_rank_fixture_texts_exactly_as_float32_rows(table, count, first_pass):
    rows = table.encode(TEXTS).astype(np.float16)  # as a .vec holds them
    stack = compact_rows(rows)
    for query in table.encode(QUERIES):
        order, scores = compact.best(stack, query, count)
        expected, exact = float32_best(rows, query, count)
        assert order.tolist() == expected.tolist()
        assert np.allclose(scores, exact, atol=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_the_compact_rows_rank_crowded_rows_exactly_as_float32_rows(seed, first_pass):
    """Rows close together (copies with a little noise, exact copies, zero rows) are where a
    first pass without its error bound picks the wrong ones."""
    rng = np.random.default_rng(seed)
    bases = rng.standard_normal((40, 64)).astype(np.float32)
    rows = bases[rng.integers(0, 40, 3000)] + rng.normal(0, 0.02, (3000, 64))
    rows[::97] = rows[5]  # equal rows: equal scores, the lower row number first
    rows[::89] = 0.0
    rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
    rows = rows.astype(np.float16)
    stack = compact_rows(rows)
    for query in rows[rng.integers(0, 3000, 8)].astype(np.float32) + 0.01:
        for count in (3, 50, 400):
            order, _ = compact.best(stack, query, count)
            assert order.tolist() == float32_best(rows, query, count)[0].tolist()


def test_the_first_pass_is_within_its_bound_and_its_codes_take_a_quarter_of_float32(first_pass):
    rows = np.random.default_rng(1).standard_normal((500, 384)).astype(np.float16)
    codes, scales, sums = compact.quantised(rows)
    query = np.random.default_rng(2).standard_normal(384).astype(np.float32)
    first, bound = compact.rough(codes, scales, sums, query)
    off = np.abs(first - rows.astype(np.float32) @ query)
    assert np.all(off <= bound + 1e-4) and off.max() > bound.max() / 100  # a bound, not zero
    assert codes.dtype == np.int8 and codes.nbytes * 4 == rows.astype(np.float32).nbytes


def test_fewer_rows_than_asked_for_are_all_given_and_none_is_nothing(first_pass):
    rows = np.eye(3, 8, dtype=np.float16)
    order, scores = compact.best(compact_rows(rows), np.ones(8, np.float32), 10)
    assert order.tolist() == [0, 1, 2] and scores.tolist() == [1.0, 1.0, 1.0]
    empty = np.zeros((0, 8), np.float16)
    assert compact.best(compact_rows(empty), np.ones(8), 5)[0].tolist() == []


def searched(store: Store, table, query: str, depth: int) -> list:
    encoded(store, table)  # as the background does first: a search encodes only its query
    return fusion.meaning_ranking(store, index.refresh(store), query, None, table, depth=depth,
                                  floor=-1.0)[0]  # fmt: skip


def float32_ranking(store: Store, table, query: str, depth: int) -> list:
    """Turns by the float32 cosine of their best text, read from the .vec files."""
    keys, parts = [], []
    for log in sorted(store.sessions.glob("*.jsonl")):
        vec = vectors.load(log)
        keys += [(log.stem, entry.turn) for entry in vec.entries]
        parts.append(vec.matrix())
    order, scores = float32_best(np.concatenate(parts), table.encode([query])[0], len(keys))
    ranked: dict = {}
    for at, score in zip(order.tolist(), scores.tolist(), strict=True):
        ranked.setdefault(keys[at], score)
    return list(ranked.items())[:depth]


def fresh_process(monkeypatch) -> None:
    monkeypatch.setattr(stack, "_stack", stack.Stack())
    monkeypatch.setattr(vectors, "_cache", {})


def many_turns(store: Store) -> None:
    for number in range(5):
        items = []
        for at, text in enumerate(TEXTS[number * 50 : number * 50 + 50]):
            items += turn(text, reply=TEXTS[-1 - at], t0=at * 3)
        write(store, f"t{number}", items)


def test_a_search_by_meaning_ranks_the_turns_as_float32_vectors_do(
    tmp_path, table, monkeypatch, first_pass
):
    store = Store(tmp_path / "data")
    many_turns(store)
    monkeypatch.setattr(stack, "SAVE_EVERY", 0.0)
    for query in QUERIES:
        fresh_process(monkeypatch)
        first = searched(store, table, query, depth=10)  # the stack made from the .vec files
        fresh_process(monkeypatch)
        again = searched(store, table, query, depth=10)  # mapped from the stack saved
        expected = float32_ranking(store, table, query, depth=10)
        assert [key for key, _ in first] == [key for key, _ in expected]
        assert again == first
        assert np.allclose([s for _, s in first], [s for _, s in expected], atol=1e-6)


def format_1_stack(root, model: str, entries, turns, rows) -> None:
    """A stack as nodwyn wrote it before format 2: the head, then float32 rows alone."""
    import struct

    import msgspec

    head = msgspec.msgpack.encode(
        vectors.StackHeader(
            model=model,
            dims=rows.shape[1],
            entries=entries,
            turns=np.asarray(turns, np.int64).tobytes(),
        )
    )
    start = len(b"nodwyn-stack 1\n") + 4 + len(head)
    with open(vectors.stack_path(root), "wb") as handle:
        handle.write(b"nodwyn-stack 1\n" + struct.pack("<I", len(head)) + head)
        handle.write(bytes((-start) % 64))
        rows.astype(np.float32).tofile(handle)


def test_a_stack_of_format_1_is_passed_over_and_saved_again_as_format_2(
    tmp_path, table, monkeypatch
):
    store = Store(tmp_path / "data")
    many_turns(store)
    monkeypatch.setattr(stack, "SAVE_EVERY", 0.0)
    fresh_process(monkeypatch)
    expected = searched(store, table, "tensor shapes", depth=10)
    entries, turns, rows = vectors.load_stack(store.root, table.id)
    # the same rows as format 1 wrote them, but upside down: read as rows, they would rank
    format_1_stack(store.root, table.id, list(entries.values()), turns, -np.asarray(rows.exact))
    assert vectors.load_stack(store.root, table.id) is None
    fresh_process(monkeypatch)
    assert searched(store, table, "tensor shapes", depth=10) == expected
    assert vectors.stack_path(store.root).read_bytes().startswith(vectors.STACK_MAGIC)
    assert vectors.load_stack(store.root, table.id) is not None


def test_a_stack_of_format_1_goes_when_its_tasks_are_looked_over(tmp_path, table):
    store = Store(tmp_path / "data")
    rows = np.ones((2, 4), np.float32)
    format_1_stack(store.root, table.id, [vectors.StackEntry("t1", 1, 2, 0, 2)], [2, 5], rows)
    vectors.drop_stale_stack(store.root, {"t1"})  # its task is there, but it is never read again
    assert not vectors.stack_path(store.root).exists()


def test_a_stack_cut_short_is_passed_over(tmp_path):
    rows = np.random.default_rng(3).standard_normal((20, 16)).astype(np.float16)
    entry = vectors.StackEntry("t1", 10, 20, 0, 20)
    vectors.save_stack(tmp_path, "m", [entry], range(20), compact_rows(rows))
    whole = vectors.stack_path(tmp_path).read_bytes()
    assert vectors.load_stack(tmp_path, "m") is not None
    vectors.stack_path(tmp_path).write_bytes(whole[:-1])  # a copy cut off, a full disk
    assert vectors.load_stack(tmp_path, "m") is None


def test_a_turn_added_after_a_search_is_ranked_by_the_next_in_the_same_process(
    tmp_path, table, monkeypatch
):
    store = Store(tmp_path / "data")
    write(store, "t1", turn("install the cuda toolkit", reply="apt install cuda", t0=0))
    fresh_process(monkeypatch)
    assert [key for key, _ in searched(store, table, "bibliography", depth=5)] == [("t1", 2)]
    assert [key for key, _ in searched(store, table, "bibliography", depth=5)] == [("t1", 2)]
    write(store, "t1", turn("fix the broken bibliography", reply="bibtex fixed", t0=10))
    ranked = searched(store, table, "bibliography", depth=5)
    assert [key for key, _ in ranked] == [("t1", 5), ("t1", 2)]


def test_a_small_stack_is_scored_without_a_first_pass_and_ranks_the_same(table, monkeypatch):
    rows = table.encode(TEXTS).astype(np.float16)
    held = compact.held(compact_rows(rows))
    assert held.exact.dtype == np.float32 and rows.size <= compact.SMALL
    for query in table.encode(QUERIES):
        small = compact.best(held, query, 5)
        monkeypatch.setattr(compact, "SMALL", 0)
        passed = compact.best(held, query, 5)
        monkeypatch.undo()
        assert small[0].tolist() == passed[0].tolist() == float32_best(rows, query, 5)[0].tolist()
