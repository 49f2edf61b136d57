"""Benchmark of search by meaning: the sentence model's load, memory and encoding speed, the
time to first vectors, and warm default-mode search at two sizes, each beside its goal.

    .venv/bin/python tests/bench/bench_meaning.py [--texts 300] [--turns 10000]
        [--events 17600] [--big 1000000] [--queries 30] [--cards 100000 --tasks 500]

- load: all-MiniLM-L6-v2 (int8 ONNX) into a fresh onnxruntime session, and the resident memory
  it adds once it has encoded card texts (goal: <= 100 MB);
- encode: turns per second for card texts of synthetic turns cut from the real corpus (one
  text a turn, as vectors.py makes them), the static table beside;
- first vectors: --turns turns in logs of 100 turns, encoded by memory.encode as the desktop
  worker does (newest task first): the time until the first task's vectors are searchable,
  and the whole at the measured rate (an estimate when --encode-logs stops it early);
- warm default-mode search (memory.search, mode both: words fused with meaning, the query
  encoded by the model) at --events events with every turn's real vectors (goal <= 10 ms at
  17,600), and at --big events with stand-in vectors (one per real card, the model's vectors
  of --texts card texts shared out with a little noise: the same rows, product and cosines as
  real ones would give, without an hour of encoding; goal <= 40 ms at 1,000,000);
- the meaning ranking alone over --cards fake cards in --tasks tasks, first and warm.
Texts come from ../shared/corpus where it is present. The machine is shared (2 cores):
figures vary by tens of percent from run to run.
"""

import argparse
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as nodwyn.memory sets it, before numpy
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

import synthetic_logs  # noqa: E402  the corpus-shaped logs and queries of the benchmarks
from nodwyn import memory  # noqa: E402
from nodwyn.memory import fusion  # noqa: E402
from nodwyn.memory.meaning import encoder, vectors  # noqa: E402
from nodwyn.tasks.store import Store  # noqa: E402

PER_LOG = 100  # turns per log for the time to first vectors


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096 / 1e6


def goal(met: bool) -> str:
    return "met" if met else "NOT met"


def pool() -> dict:
    found = synthetic_logs.pool_of_texts() if synthetic_logs.CORPUS.is_dir() else {}
    if not all(found.get(kind) for kind in ("message", "reply", "result")):
        words = ["install", "the", "toolkit", "and", "check", "the", "build", "on", "a", "laptop"]
        rng = random.Random(3)
        found = {kind: [" ".join(rng.choices(words, k=60)) for _ in range(50)]
                 for kind in ("message", "reply", "result")}  # fmt: skip
    return found


def card_texts(texts: dict, count: int) -> list[str]:
    """Card texts (vectors.card_text) of `count` synthetic turns."""
    from nodwyn.memory.cards.fold import Card, Command

    rng = random.Random(5)
    out = []
    for _ in range(count):
        asked = synthetic_logs.piece(rng, texts["message"], 1200)
        answer = synthetic_logs.piece(rng, texts["reply"], 300)
        commands = [Command(command=synthetic_logs.piece(rng, texts["reply"], 80))
                    for _ in range(rng.randint(0, 5))]  # fmt: skip
        card = Card(first_seq=1, last_seq=2, at="", head="", asked=asked, outcome="completed",
                    answer=answer, commands=commands)  # fmt: skip
        out.append(vectors.card_text(card))
    return out


def loading(texts: list[str]) -> encoder.Sentence:
    before = rss_mb()
    started = time.perf_counter()
    model = encoder.Sentence()
    took = (time.perf_counter() - started) * 1000
    model.encode(texts[:50])
    added = rss_mb() - before
    print(f"model load: {took:.0f} ms; the model adds {added:.0f} MB resident after encoding "
          f"50 card texts (goal <= 100 MB: {goal(added <= 100)})")  # fmt: skip
    return model


def encoding(model, texts: list[str]) -> float:
    started = time.perf_counter()
    model.encode(texts)
    rate = len(texts) / (time.perf_counter() - started)
    static = encoder.static()
    started = time.perf_counter()
    static.encode(texts)
    fast = len(texts) / (time.perf_counter() - started)
    length = statistics.mean(len(text) for text in texts)
    print(f"encode: {rate:.1f} turns/s ({len(texts)} card texts, mean {length:.0f} characters, "
          f"one onnxruntime thread); the static table {fast:.0f} turns/s")  # fmt: skip
    return rate


def write_turns(data: Path, texts: dict, turns: int) -> Store:
    """Logs of PER_LOG synthetic turns each, `turns` in all."""
    from nodwyn.log import records as r

    rng, store = random.Random(9), Store(data)
    for number in range((turns + PER_LOG - 1) // PER_LOG):
        start = r.SessionStart(project=f"/work/p{number % 20}", origin=r.Origin(tool="nodwyn"))
        with store.create(start, f"T{number:05d}") as writer:
            for turn in range(min(PER_LOG, turns - number * PER_LOG)):
                writer.append(synthetic_logs.synthetic_turn(rng, texts, turn))
    return store


class Enough(Exception):
    pass


def first_vectors(data: Path, texts: dict, turns: int, logs: int, rate: float) -> None:
    store = write_turns(data, texts, turns)
    memory.refresh_words(store)
    done_at: list[float] = []

    def progress(done: int, total: int) -> None:
        if done:
            done_at.append(time.perf_counter() - started)
        if done >= logs:
            raise Enough

    started = time.perf_counter()
    with contextlib.suppress(Enough):
        memory.encode(store, progress)
    total = len(list(store.sessions.glob("*.jsonl")))
    each = statistics.mean(b - a for a, b in zip([0.0, *done_at], done_at, strict=False))
    whole = "measured" if len(done_at) == total else f"estimated from {len(done_at)} logs"
    print(f"time to first vectors for {turns:,} turns ({total} logs of {PER_LOG} turns, newest "
          f"first): {done_at[0]:.1f} s; all of them ~{each * total:.0f} s ({whole}; "
          f"~{turns / rate:.0f} s at the encode rate above), searched meanwhile by what is "
          "encoded so far")  # fmt: skip


def stand_in_vectors(store: Store, model, texts: list[str]) -> None:
    """A .vec beside each log with one row per real card, as update() would leave it, the
    rows being the model's real vectors of `texts` (card texts), each given to many cards with
    a little noise: the cosines a query meets are like real ones, without encoding them all."""
    from nodwyn.memory.cards import mem as memfile

    rng = np.random.default_rng(1)
    known = model.encode(texts)
    for log in store.sessions.glob("*.jsonl"):
        cards, _ = memfile.cards_of(log)
        rows = known[rng.integers(0, len(known), len(cards))]
        rows = rows + 0.02 * rng.standard_normal(rows.shape).astype(np.float32)
        entries = [vectors.Entry("card", c.first_seq, c.first_seq, 0) for c in cards]
        end, rows = log.stat().st_size, encoder.normalised(rows).astype(np.float16)
        vectors.save(log, vectors.Vec(model=model.id, dims=model.dims, end=end,
                                      tail_crc=vectors._tail_crc(log, end), entries=entries,
                                      vectors=rows.tobytes()))  # fmt: skip


def warm_search(data: Path, texts: dict, events: int, queries: int, model, stand_in: list,
                target: float) -> None:  # fmt: skip
    logs, made, size = synthetic_logs.make_corpus(data, events, texts)
    store = Store(data)
    began = time.perf_counter()
    memory.refresh_words(store)
    if stand_in:
        stand_in_vectors(store, model, stand_in)
    else:
        memory.encode(store)
    ready = time.perf_counter() - began
    words = synthetic_logs.queries(texts, queries + 5)
    for query in words[:5]:
        found = memory.search(store, query, mode="both")
    times, cpu = [], []
    for query in words[5:]:
        started, used = time.perf_counter(), time.process_time()
        found = memory.search(store, query, mode="both")
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    median = statistics.median(times)
    kind = (f"stand-in vectors: one per card, {len(stand_in)} real card vectors shared out with "
            "noise" if stand_in else "every turn's vectors")  # fmt: skip
    print(f"warm default-mode search at {made:,} events ({logs} logs, {size / 2**20:.0f} MB; "
          f"{kind}, ready in {ready:.0f} s): median {median:.1f} ms wall "
          f"({statistics.median(cpu):.1f} ms CPU), p90 {np.percentile(times, 90):.1f} ms over "
          f"{len(times)} queries, mode {found.mode} "
          f"(goal <= {target:.0f} ms: {goal(median <= target)})")  # fmt: skip


def write_vecs(folder: Path, model_id: str, dims: int, cards: int, tasks: int) -> list[str]:
    """Fake logs and the .vec beside each, as vectors.update would leave them."""
    rng = np.random.default_rng(1)
    names, per = [], max(1, cards // tasks)
    for at in range(tasks):
        name = f"t{at:05d}"
        log = folder / f"{name}.jsonl"
        log.write_bytes(b"x" * 100)
        matrix = encoder.normalised(rng.standard_normal((per, dims)).astype(np.float32))
        entries = [vectors.Entry("card", 2 + 4 * i, 2 + 4 * i, i) for i in range(per)]
        vectors.save(log, vectors.Vec(model=model_id, dims=dims, end=100,
                                      tail_crc=zlib.crc32(b"x" * 64), entries=entries,
                                      vectors=matrix.astype(np.float16).tobytes()))  # fmt: skip
        names.append(name)
    return names


class Tasks:
    """What meaning_ranking needs of the word index's state: each task's log as last seen."""

    def __init__(self, folder: Path, names):
        from nodwyn.memory.words.index import Seen

        stats = {name: (folder / f"{name}.jsonl").stat() for name in names}
        self.tasks = {n: Seen(size=s.st_size, mtime_ns=s.st_mtime_ns) for n, s in stats.items()}


class Sessions:
    def __init__(self, folder: Path):
        self.sessions = folder
        self.root = folder  # where a search saves the stack of every task's vectors

    def log_path(self, task: str) -> Path:
        return self.sessions / f"{task}.jsonl"


def ranking_alone(model, texts: list[str], cards: int, tasks: int, searches: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        names = write_vecs(Path(folder), model.id, model.dims, cards, tasks)
        store, state = Sessions(Path(folder)), Tasks(Path(folder), names)
        total = sum(vectors.path_of(store.log_path(n)).stat().st_size for n in names)
        made = tasks * max(1, cards // tasks)
        print(f"disk: {total / made * 1000 / 1e3:.0f} kB of .vec per 1,000 turns")
        before = rss_mb()
        started = time.perf_counter()
        fusion.meaning_ranking(store, state, texts[0], None, model, floor=-1.0)
        print(f"search {made} cards in {tasks} tasks: first "
              f"{(time.perf_counter() - started) * 1000:.0f} ms (reads every .vec, stacks them), "
              f"+{rss_mb() - before:.1f} MB resident for the cached vectors")  # fmt: skip
        times = []
        for text in texts[1 : 1 + searches]:
            started = time.perf_counter()
            ranked, _ = fusion.meaning_ranking(store, state, text[:80], None, model, floor=-1.0)
            times.append((time.perf_counter() - started) * 1000)
        assert len(ranked) == min(fusion.DEPTH, made)
        print(
            f"search warm: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms "
            f"over {len(times)} queries (the meaning ranking alone, query encoding included)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=300, help="card texts timed for encode")
    parser.add_argument("--turns", type=int, default=10_000, help="for the first vectors")
    parser.add_argument("--encode-logs", type=int, default=3, help="logs encoded of --turns")
    parser.add_argument("--events", type=int, default=17_600)
    parser.add_argument("--big", type=int, default=1_000_000, help="0: skip")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--searches", type=int, default=20)
    args = parser.parse_args()
    texts = pool()
    cards = card_texts(texts, max(args.texts, 60))
    model = loading(cards)
    rate = encoding(model, cards[: args.texts])
    with tempfile.TemporaryDirectory() as scratch:
        first_vectors(Path(scratch) / "first", texts, args.turns, args.encode_logs, rate)
        warm_search(Path(scratch) / "small", texts, args.events, args.queries, model, [], 10)
        if args.big:
            shared = cards[: args.texts]
            warm_search(Path(scratch) / "big", texts, args.big, args.queries, model, shared, 40)
    ranking_alone(model, cards, args.cards, args.tasks, args.searches)


if __name__ == "__main__":
    main()
