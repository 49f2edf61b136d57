"""Benchmark of the word index's child (index_process.py) against refreshing in the searching
process, as the app did before: in new processes, taken in turn, each

1. brings the words up to date over a fresh copy of a corpus (the worker's first pass: every
   .mem, the index and the ledgers), in the child or here;
2. waits for the child to end after its keep-alive (0.5 s here; the app's is 300 s);
3. searches by words once (the first search after the child ended: nothing changed since its
   last refresh, so the child is not asked), then once more after a turn was appended to one
   log (the child is started again to add it), then `--queries` more searches, warm;
4. says whether tantivy is in its own modules after step 1, and what tantivy's library then
   holds of its memory (PSS of tantivy.abi3.so, from /proc/self/smaps) after the searches.

Wall and CPU times; the child's CPU is counted as the process's children's, once it has
ended (after the build by its keep-alive; after the search that started it, ended then). The
logs are synthetic_logs.py's, their texts from the real corpus. Linux only (/proc). Noisy on a
shared machine: the load average is printed.

    python tests/bench/bench_word_child.py [--size 17616] [--runs 3] [--queries 20]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from synthetic_logs import make_corpus, pool_of_texts, queries

ONE_RUN = r"""
import json, os, resource, sys, time
from pathlib import Path
from nodwyn import memory
from nodwyn.log import records as r
from nodwyn.memory import index_process
from nodwyn.tasks.store import Store

def cpu():
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(one.ru_utime + one.ru_stime for one in used)

def timed(work, then=None):
    # (wall, CPU) ms of work; the CPU counted once `then` (ending the child) has run
    wall, used = time.perf_counter(), cpu()
    work()
    wall = time.perf_counter() - wall
    if then is not None:
        then()
    return round(wall * 1000, 1), round((cpu() - used) * 1000, 1)

def tantivy_pss():
    kb, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(maxsplit=1)[0]
        if not head.endswith(":"):  # a mapping's first line, then its fields
            inside = "tantivy" in line
        elif inside and head == "Pss:":
            kb += int(line.split()[1])
    return round(kb / 1024, 1)

mode, store, asked = sys.argv[1], Store(sys.argv[2]), json.loads(sys.argv[3])
if mode == "child":
    index_process.keep_in_a_child()
said = {"mode": mode}
child = index_process.child_of(store.root) if mode == "child" else None
ended = (lambda: child.process.wait(60)) if child else None  # its keep-alive: 0.5 s
said["build"] = timed(lambda: memory.refresh_words(store, full=True), ended)
said["tantivy_after_build"] = "tantivy" in sys.modules
search = lambda text: memory.search(store, text, mode="words")
said["first_search"] = timed(lambda: search(asked[0]))
with store.writer(sorted(p.stem for p in store.sessions.glob("*.jsonl"))[0]) as writer:
    writer.append([r.Message(text="the zebrafish heater again", at="2026-12-07T10:00:00.000Z")])
said["search_after_a_write"] = timed(lambda: search("zebrafish heater"), child and child.stop)
said["warm"] = [timed(lambda: search(text)) for text in asked[1:]]
said["tantivy_pss_mb"] = tantivy_pss()
print(json.dumps(said))
"""


def one_run(mode: str, corpus: Path, scratch: Path, asked: list[str]) -> dict:
    data = scratch / f"data-{mode}"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(corpus, data)
    env = {**os.environ, "NODWYN_INDEX_KEEP_ALIVE": "0.5", "NODWYN_DATA_DIR": str(data)}
    done = subprocess.run([sys.executable, "-c", ONE_RUN, mode, str(data), json.dumps(asked)],
                          capture_output=True, text=True, env=env, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(runs: list[dict], key: str) -> str:
    wall = statistics.median(run[key][0] for run in runs)
    used = statistics.median(run[key][1] for run in runs)
    return f"{wall:8.1f} ms ({used:6.1f} ms CPU)"


def report(runs: dict[str, list[dict]]) -> None:
    for mode, made in runs.items():
        warm = [pair for run in made for pair in run["warm"]]
        print(f"{mode}:")
        print(f"  words brought up to date (first build): {median_of(made, 'build')}")
        print(f"  first search, the child ended:          {median_of(made, 'first_search')}")
        print(
            f"  search after a turn was written:        {median_of(made, 'search_after_a_write')}"
        )
        print(f"  warm searches (median of {len(warm)}):        "
              f"{statistics.median(w for w, _ in warm):8.1f} ms "
              f"({statistics.median(c for _, c in warm):6.1f} ms CPU)")  # fmt: skip
        tantivy = sum(run["tantivy_after_build"] for run in made)
        pss = statistics.median(run["tantivy_pss_mb"] for run in made)
        print(f"  tantivy loaded by the build in {tantivy} of {len(made)} runs; "
              f"tantivy.abi3.so after the searches: {pss:.1f} MB PSS")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=17_616, help="events in all")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()
    pool = pool_of_texts()
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        logs, events, size = make_corpus(corpus, args.size, pool)
        print(f"{logs} logs, {events} events, {size / 1e6:.1f} MB; load {os.getloadavg()}")
        asked = queries(pool, args.queries + 1)
        runs: dict[str, list[dict]] = {"child": [], "here": []}
        for _ in range(args.runs):
            for mode in runs:
                runs[mode].append(one_run(mode, corpus, Path(scratch), asked))
        report(runs)
        print(f"load after {os.getloadavg()}")


if __name__ == "__main__":
    main()
