"""Benchmark of task memory: first build, search (warm and new process), peak memory, the cost
of appending one turn to a huge log, and the same searches through SQLite FTS5 as a ratio.

    python tests/bench/bench_memory.py [--size EVENTS] [--queries N] [--append-mb MB]
                                       [--keep DIR [--keep-derived]]

--size 17616 is shaped like ADR 0051's corpus (78 logs, ~10 MB of words); --size 1000000 is
the large one (~4,400 logs of ~226 events). Texts are cut from the real corpus
(../shared/corpus, imported with nodwyn's own importers; synthetic_logs.py), so words are
realistic. Figures are wall-clock on a shared machine: they are noisy. Not a test: CI runs it
at a tiny size.

New-process figures come from a small `python -c` script that imports nodwyn.memory and runs
one search, in words mode and in the default mode ("both": words fused with meaning, which
needs numpy and the model), beside the bare start-up of the same Python. The FTS5 comparison
gives both engines equal work: FTS5's top 20 events (with the same stored keys as nodwyn's
index) go through nodwyn's own grouping, cards and snippets.
"""

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fts5_peer
from goals import goal
from synthetic_logs import grow_log, make_corpus, pool_of_texts, queries, synthetic_turn

ROOT = Path(__file__).resolve().parents[2]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def word_search():
    """Search by words (issue 4), whatever `nodwyn.memory.words.search` fuses it with."""
    import nodwyn.memory.words.search  # noqa: F401

    return sys.modules["nodwyn.memory.words.search"]


def phase_build(data: Path) -> dict:
    from nodwyn.memory.words import index as wordindex
    from nodwyn.tasks.store import Store

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    began, cpu = time.perf_counter(), time.process_time()
    wordindex.refresh(Store(data))
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the fold helper, once ended
    helper = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    return {
        "seconds": seconds,
        "cpu": cpu + helper,
        "helper_cpu": helper,
        "peak_mb": peak_mb(),
        "helper_peak_mb": after.ru_maxrss / 1024,
    }


def timed(run, items) -> dict:
    """Wall and CPU milliseconds of run(item) for each item (CPU: this process, all threads;
    on a machine shared with other work it is the steadier figure)."""
    wall, cpu = [], []
    for item in items:
        began, used = time.perf_counter(), time.process_time()
        run(item)
        cpu.append((time.process_time() - used) * 1000)
        wall.append((time.perf_counter() - began) * 1000)
    return {"wall": wall, "cpu": cpu}


def phase_serve(data: Path, words: list[str]) -> dict:
    """Warm process: 10 warm-up searches, then every query: the whole search(), the index
    lookup only, and lookup + assembly without the change check (what the FTS5 side does)."""
    from nodwyn.memory.words import index as wordindex
    from nodwyn.memory.words import tokens as wordsmod
    from nodwyn.tasks.store import Store

    module = word_search()
    store = Store(data)
    for query in words[:10]:
        module.search(store, query)
    full = timed(lambda q: module.search(store, q), words)
    state = wordindex.refresh(store)
    bare = timed(lambda q: module.hits(store, state, q, None, 20), words)

    def assembled(query: str):
        found = module.hits(store, state, query, None, 20)
        return module.group(store, state, found, set(wordsmod.query_terms(query)))

    equal = timed(assembled, words)
    return {"full": full, "bare": bare, "equal": equal, "peak_mb": peak_mb()}


def phase_meaning(data: Path, words: list[str], in_a_child: bool = False) -> dict:
    """Warm process, the default mode ("both"): 10 warm-up searches, then every query. With
    `in_a_child`, the sentence model runs in its child as in the app and `nodwyn serve`, and
    the first search after that child ended (its keep-alive over) is timed too, 5 times."""
    from nodwyn import memory
    from nodwyn.memory.meaning import encoder
    from nodwyn.tasks.store import Store

    if in_a_child:
        encoder.keep_in_a_child()
    store = Store(data)
    for query in words[:10]:
        memory.search(store, query, mode="both")
    found = memory.search(store, words[0], mode="both")
    times = timed(lambda q: memory.search(store, q, mode="both"), words)
    result = {"times": times, "mode": found.mode, "peak_mb": peak_mb()}
    if in_a_child:
        result["restart"] = timed(lambda q: restarted(store, q), words[:5])
    return result


def restarted(store, query: str):
    """A search by meaning after the model's child ended, as at the end of its keep-alive."""
    from nodwyn import memory
    from nodwyn.memory.meaning import encoder

    encoder.builtin().stop()
    found = memory.search(store, query, mode="both")
    assert found.mode == "both", found.mode
    return found


def phase_vectors(data: Path) -> dict:
    """Every log's vectors made (memory.refresh), as the desktop worker does after imports."""
    from nodwyn import memory
    from nodwyn.tasks.store import Store

    began = time.perf_counter()
    memory.refresh(Store(data))
    return {"seconds": time.perf_counter() - began}


# A new process: the least a caller needs (not this script, whose own imports would hide some
# of nodwyn's), timed from its first line; the interpreter's start-up is timed apart.
ONE = """
import sys, time
began = time.perf_counter()
from pathlib import Path
from nodwyn import memory
from nodwyn.tasks.store import Store
loaded = time.perf_counter()
found = memory.search(Store(Path(sys.argv[1])), sys.argv[2], mode=sys.argv[3])
done = time.perf_counter()
print((loaded - began) * 1000, (done - loaded) * 1000, found.mode, "numpy" in sys.modules)
"""


def child_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (used.ru_utime + used.ru_stime) * 1000


def new_process(data: Path, query: str, mode: str) -> dict:
    began, used = time.perf_counter(), child_cpu()
    done = subprocess.run([sys.executable, "-c", ONE, str(data), query, mode],
                          capture_output=True, text=True, check=False)  # fmt: skip
    wall, cpu = (time.perf_counter() - began) * 1000, child_cpu() - used
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    imports, search, used, numpy = done.stdout.split()
    return {"import_ms": float(imports), "search_ms": float(search), "wall_ms": wall,
            "cpu_ms": cpu, "mode": used, "numpy": numpy == "True"}  # fmt: skip


def start_up(count: int) -> dict:
    """Wall and CPU time of `python -c pass` (this venv's Python, its site and .pth files)."""
    wall, cpu = [], []
    for _ in range(count):
        began, used = time.perf_counter(), child_cpu()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        cpu.append(child_cpu() - used)
        wall.append((time.perf_counter() - began) * 1000)
    return {"wall": wall, "cpu": cpu}


def child(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.splitlines()[-1])


def phase_fts5(data: Path, words: list[str]) -> dict:
    """The same queries through SQLite FTS5 (fts5_peer.py), its top 20 events then grouped,
    carded and snipped by nodwyn's own code: equal work."""
    from nodwyn.memory.words import index as wordindex
    from nodwyn.memory.words import tokens as wordsmod
    from nodwyn.tasks.store import Store

    module = word_search()
    store = Store(data)
    state = wordindex.load_state(store.root, shared=True)
    lookup = fts5_peer.lookup(data, module.Hit)

    def assembled(query: str):
        return module.group(store, state, lookup(query), set(wordsmod.query_terms(query)))

    for query in words[:10]:
        assembled(query)
    return {"bare": timed(lookup, words), "equal": timed(assembled, words)}


def append_cost(pool: dict, megabytes: int) -> list[str]:
    """Time refresh + search after one more turn, on a small log and on a `megabytes` log."""
    from nodwyn.memory.cards import mem
    from nodwyn.memory.words import index as wordindex
    from nodwyn.tasks.store import Store

    out = []
    rng = random.Random(3)
    for target in sorted({min(megabytes, 8), megabytes}):
        with tempfile.TemporaryDirectory() as scratch:
            store = Store(Path(scratch) / "data")
            grow_log(store, pool, rng, target)
            size = store.log_path("BIG").stat().st_size
            began = time.perf_counter()
            wordindex.refresh(store)
            first = time.perf_counter() - began
            mem.cards_of(store.log_path("BIG"))
            refresh, cards = [], []
            for number in range(7):
                with store.writer("BIG") as writer:
                    writer.append(synthetic_turn(rng, pool, 10**6 + number))
                began = time.perf_counter()
                wordindex.refresh(store)
                middle = time.perf_counter()
                mem.cards_of(store.log_path("BIG"))
                refresh.append((middle - began) * 1000)
                cards.append((time.perf_counter() - middle) * 1000)
            out.append(
                f"append one turn to a {size / 2**20:,.0f} MB log, median of 7: refresh (.mem "
                f"frame + index segment) {statistics.median(refresh):.1f} ms, then all cards "
                f"{statistics.median(cards):.1f} ms (warm process; first build of that log "
                f"{first:.1f} s)"
            )
    return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(label: str, values) -> str:
    """median and p95 of wall times (a list), and the CPU median when given ({"wall", "cpu"})."""
    wall = values["wall"] if isinstance(values, dict) else values
    out = f"{label}: median {statistics.median(wall):.2f} ms, p95 {percentile(wall, 0.95):.2f} ms"
    if isinstance(values, dict):
        out += f" (CPU median {statistics.median(values['cpu']):.2f} ms)"
    return out


def ratio(theirs: dict, ours: dict) -> str:
    median = statistics.median
    wall = median(theirs["wall"]) / median(ours["wall"])
    return f"{wall:.1f}x ({median(theirs['cpu']) / median(ours['cpu']):.1f}x)"


# Warm search goals (ms, median) by the size they were set at: issue 13 (the default mode at
# 17,600 and 1,000,000 events) and issue 16 (words at 1,000,000).
GOALS = {("both", 17_616): 10.0, ("both", 1_000_000): 40.0, ("words", 1_000_000): 5.0}


def aim(events: int, mode: str, wall: list[float]) -> str:
    """The goal of the nearest size set for this mode at or above `events`, beside the median."""
    sizes = sorted(size for kind, size in GOALS if kind == mode and size >= events * 0.9)
    if not sizes:
        return ""
    return f"; {goal(statistics.median(wall), GOALS[mode, sizes[0]], 'ms')} (set at {sizes[0]:,})"


def new_processes(data: Path, words: list[str]) -> None:
    """Print the bare start-up, then one search per new process in words and default mode.
    nodwyn's byte-code is compiled first, as an installed package has it (with
    PYTHONDONTWRITEBYTECODE set, every new process would otherwise compile changed sources)."""
    import compileall

    compileall.compile_dir(str(ROOT / "app"), quiet=1)
    bare = start_up(len(words))
    print(figures(f"bare Python start-up (python -c pass, {len(words)} runs), process wall",
                  bare))  # fmt: skip
    for mode in ("words", "both"):
        fresh = [new_process(data, query, mode) for query in words]
        used = "/".join(sorted({f["mode"] for f in fresh}))
        numpy = "numpy loaded" if any(f["numpy"] for f in fresh) else "no numpy"
        print(figures(f"new process, {mode} mode, first search() (mode {used}, {numpy})",
                      [f["search_ms"] for f in fresh]))  # fmt: skip
        print(figures(f"new process, {mode} mode, search() + imports",
                      [f["search_ms"] + f["import_ms"] for f in fresh]))  # fmt: skip
        print(figures(f"new process, {mode} mode, whole process wall (start-up to exit)",
                      {"wall": [f["wall_ms"] for f in fresh],
                       "cpu": [f["cpu_ms"] for f in fresh]}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=17_616, help="events in the corpus")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--new-processes", type=int, default=None, help="default: --queries")
    parser.add_argument("--append-mb", type=int, default=1024, help="size of the huge log")
    parser.add_argument("--skip-append", action="store_true", help="no huge-log figures")
    parser.add_argument("--keep", help="keep the corpus (and FTS5 table) in this folder and "
                        "use them again next time; the index, .mem and vectors are always "
                        "built anew")  # fmt: skip
    parser.add_argument("--keep-derived", action="store_true", help="with --keep: search the "
                        "index, .mem and .vec files an earlier run left there (the first build "
                        "and the vectors are then neither made nor timed)")  # fmt: skip
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--words", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        words = json.loads(args.words) if args.words else []
        data = Path(args.data)
        result = {
            "build": lambda: phase_build(data),
            "serve": lambda: phase_serve(data, words),
            "vectors": lambda: phase_vectors(data),
            "meaning": lambda: phase_meaning(data, words),
            "meaning-child": lambda: phase_meaning(data, words, in_a_child=True),
            "fts5": lambda: phase_fts5(data, words),
        }[args.phase]()
        print(json.dumps(result))
        return
    run(args)


def meaning_in_a_child(data: Path, words: list[str], events: int) -> None:
    """The default mode as the app and `nodwyn serve` search: the model in its own process."""
    both = child("--phase", "meaning-child", "--data", str(data), "--words", json.dumps(words))
    label = "warm process, default mode search(), the sentence model in its child (as the app)"
    print(figures(label, both["times"]) + f", peak RSS {both['peak_mb']:.0f} MB without the "
          "child" + aim(events, "both", both["times"]["wall"]))  # fmt: skip
    print(figures("first search by meaning after the model's child ended (started again)",
                  both["restart"]))  # fmt: skip


def first_build(data: Path, events: int) -> None:
    build = child("--phase", "build", "--data", str(data))
    rate, cpu = events / build["seconds"], build["cpu"]
    print(f"first build: {build['seconds']:.2f} s wall, {rate:,.0f} events/s "
          f"({goal(rate, 30_000, 'events/s', at_least=True)}); CPU "
          f"{cpu:.2f} s (all threads, {build['helper_cpu']:.2f} s of it in the fold "
          f"helper process), {events / cpu:,.0f} events per CPU-second; peak RSS "
          f"{build['peak_mb']:.0f} MB + helper {build['helper_peak_mb']:.0f} MB")  # fmt: skip


def run(args) -> None:
    sys.path.insert(0, str(ROOT))
    pool = pool_of_texts()
    words = queries(pool, args.queries)
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(args.keep or scratch) / "data"
        events, reuse = corpus(args, data, pool)
        if reuse:
            print("first build and vectors: kept from an earlier run (--keep-derived), not timed")
        else:
            first_build(data, events)
        index_mb = sum(p.stat().st_size for p in (data / "index").iterdir()) / 2**20
        mem_mb = sum(p.stat().st_size for p in (data / "sessions").glob("*.mem")) / 2**20
        print(f"on disk: index {index_mb:.1f} MB, .mem files {mem_mb:.1f} MB")
        serve = child("--phase", "serve", "--data", str(data), "--words", json.dumps(words))
        print(figures(f"warm process, search() over {len(words)} queries (words mode: change "
                      "check, lookup, grouping, cards, snippets)", serve["full"])
              + aim(events, "words", serve["full"]["wall"]))  # fmt: skip
        print(figures("warm process, index lookup only (no grouping, snippets)", serve["bare"]))
        print(f"serving process peak RSS {serve['peak_mb']:.0f} MB")
        if not reuse:
            made = child("--phase", "vectors", "--data", str(data))
            print(f"vectors of every card and note made (memory.refresh): {made['seconds']:.1f} s")
        both = child("--phase", "meaning", "--data", str(data), "--words", json.dumps(words))
        label = f"warm process, default mode search() (words fused with meaning, {both['mode']!r})"
        print(figures(label, both["times"]) + f", peak RSS {both['peak_mb']:.0f} MB"
              + aim(events, "both", both["times"]["wall"]))  # fmt: skip
        meaning_in_a_child(data, words, events)
        new_processes(data, words[: args.new_processes or len(words)])
        against_fts5(data, words, serve)
    if not args.skip_append:
        for line in append_cost(pool, args.append_mb):
            print(line)


def corpus(args, data: Path, pool: dict) -> tuple[int, bool]:
    """The corpus made (or kept by --keep) and its derived files removed unless
    --keep-derived; prints its size. Returns (events, whether the derived files were kept)."""
    began = time.perf_counter()
    if args.keep and (data / "corpus.json").exists():
        logs, events, size = json.loads((data / "corpus.json").read_text())
    else:
        logs, events, size = make_corpus(data, args.size, pool)
        (data / "corpus.json").write_text(json.dumps([logs, events, size]))
    reuse = bool(args.keep and args.keep_derived and (data / "index").exists())
    if not reuse:
        shutil.rmtree(data / "index", ignore_errors=True)
        (data / "vectors.stack").unlink(missing_ok=True)
        for derived in [*data.glob("sessions/*.mem"), *data.glob("sessions/*.vec")]:
            derived.unlink()
    print(f"corpus: {logs} logs, {events:,} events, {size / 2**20:.1f} MB of logs "
          f"(ready in {time.perf_counter() - began:.1f} s)")  # fmt: skip
    return events, reuse


def against_fts5(data: Path, words: list[str], serve: dict) -> None:
    """Print the same queries through SQLite FTS5, and its ratio to nodwyn's `serve` figures."""
    built = fts5_peer.fill(data)
    lite = child("--phase", "fts5", "--data", str(data), "--words", json.dumps(words))
    print(f"SQLite FTS5 (bm25(), OR of terms, one row per event with nodwyn's stored keys): "
          f"build {'kept' if built is None else f'{built:.2f} s'}; "
          + figures("lookup only", lite["bare"]))  # fmt: skip
    print(figures("SQLite FTS5 lookup + nodwyn's grouping, cards and snippets of its top 20",
                  lite["equal"]))  # fmt: skip
    print(figures("nodwyn lookup + the same grouping, cards and snippets (no change check)",
                  serve["equal"]))  # fmt: skip
    print("FTS5 / nodwyn median ratio, wall (CPU): "
          f"{ratio(lite['equal'], serve['equal'])} equal work: lookup + the same assembly of "
          f"the top 20; {ratio(lite['equal'], serve['full'])} FTS5 with that assembly against "
          f"nodwyn's whole search(), which also checks every log for changes; "
          f"{ratio(lite['bare'], serve['bare'])} index lookup only; "
          ">1 means nodwyn is faster")  # fmt: skip


if __name__ == "__main__":
    main()
