"""Benchmark of blame (issue 25): a 2,000-line file blamed in a warm process over the real
corpus (claude, codex and extra/) copied --copies times (bench_corpus.py's copies: new
session ids, so 32 copies are 32 times the tasks, each with the corpus's edits).

The file: the corpus's most edited file that a Write began, rebuilt from its Write and Edits
(applied to text in order), then grown to --lines lines with hand-written ones, put in a
checkout named as the session's folder on another path (so paths are matched as from another
machine). Printed: the ledgers' first build (CPU s), then the warm blame's median wall and CPU
ms beside the goal. Wall-clock figures on a shared machine are noisy; CPU time is steadier.

    python tests/bench/bench_blame.py [--copies 32] [--lines 2000] [--runs 20]
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import bench_corpus
from bench_corpus import grow, sources
from goals import goal

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
GOAL_MS = 100.0

from blame_sessions import rebuild  # noqa: E402 (tests/ put on the path above)
from corpora import REAL  # noqa: E402

bench_corpus.CORPUS = REAL  # NODWYN_CORPUS, where the corpus is not beside the project


def most_edited(store) -> tuple[str, str, list]:
    """(project, path, steps) of the file with the most successful edits after a Write."""
    from test_blame_corpus import steps_of

    best = ("", "", [])
    for log in sorted(store.sessions.glob("*.jsonl"))[:200]:
        project, steps = steps_of(store, log.stem)
        for path, done in steps.items():
            if len(done) > len(best[2]) and path.startswith(project + "/"):
                best = (project, path, done)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=32)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    from nodwyn.memory.provenance import blame as blaming
    from nodwyn.memory.provenance import ledgers
    from nodwyn.tasks.store import Store

    work = Path(tempfile.mkdtemp(prefix="bench-blame-"))
    try:
        data = work / "data"
        grow(data, work, 0, args.copies, sources(None))
        store = Store(data)
        began = time.process_time()
        book = ledgers.book(store)
        build = time.process_time() - began
        edits = sum(len(held.edits) for _, held in book.ledgers.values())
        print(f"{len(book.ledgers)} logs, {edits:,} edits; ledgers built in {build:.2f} s CPU")
        project, path, steps = most_edited(store)
        content, _ = rebuild(steps)
        lines = content.splitlines()
        lines += [f"hand_written_{n} = {n} * 2" for n in range(max(0, args.lines - len(lines)))]
        here = work / "here" / project.rstrip("/").rsplit("/", 1)[-1] / path[len(project) + 1 :]
        here.parent.mkdir(parents=True)
        here.write_text("\n".join(lines[: args.lines]) + "\n", encoding="utf-8")
        blame = blaming.blame
        first = blame(store, here)
        walls, cpus = [], []
        for _ in range(args.runs):
            began, used = time.perf_counter(), time.process_time()
            blame(store, here)
            cpus.append((time.process_time() - used) * 1000)
            walls.append((time.perf_counter() - began) * 1000)
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        matched = sum(1 for line in first.lines if line.status == "session")
        print(f"file: {len(first.lines)} lines, {first.edits} edits of it, {matched} from sessions")
        print(f"blame warm wall: median {wall:.2f} ms")
        print(f"blame warm CPU: median {cpu:.2f} ms, {goal(cpu, GOAL_MS, 'ms')}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
