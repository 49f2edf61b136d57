"""Benchmark of search by meaning: model load, encoding speed, vector search, memory, disk.

    .venv/bin/python tests/bench/bench_meaning.py [--cards 100000] [--tasks 500] [--texts 3000]

- load: the built-in model read from disk (table.npy, vocab.txt) into a fresh encoder;
- encode: texts/s for corpus text windows of 20-120 words (card-sized), one thread;
- search: the meaning ranking (nodwyn.memory.fusion.meaning_ranking, the real code: .vec files
  read through vectors.searchable, cosine, top 100 turns) over --cards cards spread over --tasks
  tasks; first search (reads every .vec) and warm searches (in-process cache) timed apart;
- memory: resident size added by the model and by the cached vectors;
- disk: bytes of .vec per 1,000 turns.
The machine is shared (2 cores): figures vary by tens of percent from run to run.
"""

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from nodwyn.memory import encoder, fusion, vectors  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096 / 1e6


def windows(count: int) -> list[str]:
    rng = random.Random(7)
    words = []
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines()[:400]:
            words.extend(json.dumps(json.loads(line), ensure_ascii=False).split())
    words = words or ["a", "turn", "of", "work", "on", "a", "small", "project"] * 1000
    out = []
    for _ in range(count):
        size = rng.randint(20, 120)
        start = rng.randint(0, max(0, len(words) - size))
        out.append(" ".join(words[start : start + size]))
    return out


class Tasks:
    """What meaning_ranking needs of the word index's state: each task's log as last seen."""

    def __init__(self, folder: Path, names):
        from nodwyn.memory.index import Seen

        stats = {name: (folder / f"{name}.jsonl").stat() for name in names}
        self.tasks = {n: Seen(size=s.st_size, mtime_ns=s.st_mtime_ns) for n, s in stats.items()}


class Sessions:
    def __init__(self, folder: Path):
        self.sessions = folder
        self.root = folder  # where a search saves the stack of every task's vectors

    def log_path(self, task: str) -> Path:
        return self.sessions / f"{task}.jsonl"


def write_vecs(folder: Path, model_id: str, cards: int, tasks: int) -> list[str]:
    """Fake logs and the .vec beside each, as vectors.update would leave them."""
    rng = np.random.default_rng(1)
    names, per = [], max(1, cards // tasks)
    for at in range(tasks):
        name = f"t{at:05d}"
        log = folder / f"{name}.jsonl"
        log.write_bytes(b"x" * 100)
        matrix = encoder.normalised(rng.standard_normal((per, 256)).astype(np.float32))
        entries = [vectors.Entry("card", 2 + 4 * i, 2 + 4 * i, i) for i in range(per)]
        vectors.save(log, vectors.Vec(model=model_id, dims=256, end=100,
                                      tail_crc=zlib.crc32(b"x" * 64), entries=entries,
                                      vectors=matrix.astype(np.float16).tobytes()))  # fmt: skip
        names.append(name)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--searches", type=int, default=20)
    args = parser.parse_args()
    before = rss_mb()
    started = time.perf_counter()
    model = encoder.Builtin()
    print(f"model load: {(time.perf_counter() - started) * 1000:.0f} ms, "
          f"+{rss_mb() - before:.1f} MB resident")  # fmt: skip
    texts = windows(args.texts)
    model.encode(texts[:10])
    started = time.perf_counter()
    model.encode(texts)
    took = time.perf_counter() - started
    print(f"encode: {len(texts) / took:.0f} texts/s ({len(texts)} texts of 20-120 words)")
    with tempfile.TemporaryDirectory() as folder:
        names = write_vecs(Path(folder), model.id, args.cards, args.tasks)
        store, state = Sessions(Path(folder)), Tasks(Path(folder), names)
        total = sum(vectors.path_of(store.log_path(n)).stat().st_size for n in names)
        cards = args.tasks * max(1, args.cards // args.tasks)
        print(f"disk: {total / cards * 1000 / 1e3:.0f} kB of .vec per 1,000 turns")
        before = rss_mb()
        started = time.perf_counter()
        fusion.meaning_ranking(store, state, texts[0], None, model, floor=-1.0)
        print(f"search {cards} cards in {args.tasks} tasks: first "
              f"{(time.perf_counter() - started) * 1000:.0f} ms (reads every .vec, stacks them), "
              f"+{rss_mb() - before:.1f} MB resident for the cached vectors")  # fmt: skip
        times = []
        for text in texts[1 : 1 + args.searches]:
            started = time.perf_counter()
            ranked, _ = fusion.meaning_ranking(store, state, text, None, model, floor=-1.0)
            times.append((time.perf_counter() - started) * 1000)
        assert len(ranked) == min(fusion.DEPTH, cards)
        median, worst = statistics.median(times), max(times)
        print(f"search warm: median {median:.1f} ms, max {worst:.1f} ms over {len(times)} "
              "queries (query encoding included)")  # fmt: skip


if __name__ == "__main__":
    main()
