"""Benchmark of the ways a search by words is answered in a new process (ADR 0031's amendment:
what memory/words/quick.py earns once a search service starts itself). The real corpus copied N
times, imported and indexed by words; then whole processes of `nodwyn memory search --json
--mode words`, each beside a whole FTS5 search process:

- nothing running, by quick.py's path (no msgspec), as a person's search runs;
- nothing running, the full search in the process (quick.py's answer turned off in a wrapper
  of the same command: what a search would cost without quick.py);
- a search service running (the command asks it first), and what starting one took.

The sources are byte-code compiled first (python -m compileall), as an installed package has
them. Wall times are noisy on a shared machine; each figure has its CPU time beside it.

    python tests/bench/bench_words_paths.py [--scales 8,32] [--runs 21] [--sources N]
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_corpus as corpus
from goals import goal

GOALS = {"quick_ratio": 1.0}  # issue 16: a new process's search by words under FTS5's
# The same command with quick.py's answer turned off: the search runs in full in the process.
WITHOUT_QUICK = (
    "import sys; sys.argv = ['nodwyn', *sys.argv[1:]]; from nodwyn.memory.words import quick; "
    "quick.answer = lambda *a: None; from nodwyn.cli import main; main()"
)


def timed(command: list[str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one whole process."""
    import resource

    env = {key: value for key, value in os.environ.items() if key != "NODWYN_SERVICE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env=env)
    wall = (time.perf_counter() - began) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000


def ways(data: Path, python: str) -> dict:
    """name -> the command of a search for a query."""
    search = ["--data-dir", str(data), "memory", "search", "--json", "--mode", "words"]
    fts5 = data / corpus.FTS5_DB
    return {
        "nothing running, quick.py": lambda q: [*corpus.nodwyn_command(python), *search, q],
        "nothing running, in full": lambda q: [python, "-c", WITHOUT_QUICK, *search, q],
        "FTS5 process": lambda q: [
            python,
            "-c",
            corpus.FTS5_PROCESS,
            str(fts5),
            corpus.match_of(q),
        ],
        "a service running": lambda q: [*corpus.nodwyn_command(python), *search, q],
    }


def measured(data: Path, python: str, words: list[str]) -> tuple[dict, float]:
    """(name -> [(wall, cpu)] over every query, the service's start in ms)."""
    from nodwyn.background import running, service

    found, commands = {}, ways(data, python)
    for name, command in commands.items():
        if name == "a service running":
            began = time.perf_counter()
            assert service.start(data), "the search service did not start"
            start_ms = (time.perf_counter() - began) * 1000
            timed(command(words[0]))  # its first answer reads the index
        found[name] = [timed(command(query)) for query in words]
    os.kill(running._read(data)["pid"], signal.SIGTERM)  # the service this run started
    return found, start_ms


def lines(found: dict, start_ms: float) -> list[str]:
    wall = {name: corpus.median([w for w, _ in runs]) for name, runs in found.items()}
    fts5 = wall["FTS5 process"]
    said = []
    for name, runs in found.items():
        cpu = corpus.median([c for _, c in runs])
        line = (f"{name}: median {wall[name]:.1f} ms (CPU {cpu:.1f} ms), / FTS5 process "
                f"{wall[name] / fts5:.2f}x")  # fmt: skip
        if name == "nothing running, quick.py":
            line += f", {goal(wall[name] / fts5, GOALS['quick_ratio'], 'x')}"
        said.append(line)
    said.append(f"starting the search service, until it announced itself: {start_ms:.0f} ms")
    return said


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", default="8,32", help="copies of the corpus")
    parser.add_argument("--runs", type=int, default=21, help="searches of each way")
    parser.add_argument("--sources", type=int, help="only the first N files of the corpus")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    from nodwyn import memory
    from nodwyn.tasks.store import Store

    corpus.CORPUS = Path(os.environ.get("NODWYN_CORPUS") or corpus.CORPUS)
    files = corpus.sources(args.sources)
    words = corpus.questions(args.runs)
    corpus.compiled(args.python)
    print(f"bench_words_paths: {len(files)} files of the corpus a copy, {len(words)} searches "
          "of each way; byte-code compiled first (python -m compileall)")  # fmt: skip
    for scale in (int(s) for s in args.scales.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / f"x{scale}"
            corpus.grow(data, Path(scratch), 0, scale, files)
            memory.refresh_words(Store(data))
            corpus.fill_fts5(data)
            tasks, events = corpus.counts(data)
            print(f"## x{scale}: {tasks:,} tasks, {events:,} events")
            for line in lines(*measured(data, args.python, words)):
                print(line, flush=True)


if __name__ == "__main__":
    main()
