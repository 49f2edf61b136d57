"""Benchmark of a search from the command line in a new process, the way a person runs one
(ADR 0058): the real corpus copied N times, imported and indexed by words; then whole
processes of `nodwyn memory search --mode words QUERY`, each beside a whole SQLite FTS5
search process (python, sqlite3, one query over the same events, its top turns printed),
taken in turn query by query so that the machine's other work weighs on both alike:

- neither the app nor the search service running: the search runs in the new process;
- the search service running (started once, as a search that needs the model starts it):
  the new process asks it.

nodwyn's byte-code is compiled first (python -m compileall), as an installed package has it.
Wall times are noisy on a shared machine; each figure has its CPU time beside it.

    python tests/bench/bench_search_path.py [--scales 1,8] [--runs 21] [--sources N]
"""

import os
import signal
import tempfile
from pathlib import Path

import bench_corpus as corpus
from goals import goal

# A new-process search beside a new FTS5 process: no slower with the service running, within
# 1.5 times with nothing running (the search then opens the index itself).
GOALS = {"the search service running": 1.0, "neither running": 1.5}


def commands(data: Path, python: str) -> dict:
    """name -> the command of a search for a query."""
    search = [*corpus.nodwyn_command(python), "--data-dir", str(data), "memory", "search",
              "--mode", "words"]  # fmt: skip
    fts5 = [python, "-c", corpus.FTS5_PROCESS, str(data / corpus.FTS5_DB)]
    return {"nodwyn": lambda q: [*search, q], "FTS5": lambda q: [*fts5, corpus.match_of(q)]}


def measured(data: Path, python: str, words: list[str]) -> dict:
    """{phase: {name: [wall ms], "<name> cpu": [cpu ms]}} for both phases."""
    from nodwyn.background import running, service

    env_service = os.environ.pop("NODWYN_SERVICE", None)
    try:
        found = {"neither running": corpus.interleaved(commands(data, python), words)}
        assert service.start(data), "the search service did not start"
        try:
            corpus.process_ms(commands(data, python)["nodwyn"](words[0]), 1)  # its first read
            found["the search service running"] = corpus.interleaved(commands(data, python), words)
        finally:
            os.kill(running._read(data)["pid"], signal.SIGTERM)  # the service this run started
    finally:
        if env_service is not None:
            os.environ["NODWYN_SERVICE"] = env_service
    return found


def lines(found: dict) -> list[str]:
    said = []
    for phase, times in found.items():
        ours, fts5 = corpus.median(times["nodwyn"]), corpus.median(times["FTS5"])
        said.append(
            f"{phase}: nodwyn median {ours:.1f} ms (CPU {corpus.median(times['nodwyn cpu']):.1f} "
            f"ms), FTS5 process median {fts5:.1f} ms (CPU {corpus.median(times['FTS5 cpu']):.1f}"
            f" ms); nodwyn / FTS5 {goal(ours / fts5, GOALS[phase], 'x')}"
        )
    return said


def main() -> None:
    args = corpus.copies_parser("1,8", 21, "way").parse_args()
    from nodwyn import memory
    from nodwyn.tasks.store import Store

    corpus.CORPUS = Path(os.environ.get("NODWYN_CORPUS") or corpus.CORPUS)
    files = corpus.sources(args.sources)
    words = corpus.questions(args.runs)
    where = corpus.compiled(args.python)
    print(f"bench_search_path: {len(files)} files of the corpus a copy, {len(words)} searches "
          f"of each way; byte-code compiled first (python -m compileall {where}); command "
          f"{' '.join(corpus.nodwyn_command(args.python))} memory search --mode words")  # fmt: skip
    for scale in (int(s) for s in args.scales.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / f"x{scale}"
            corpus.grow(data, Path(scratch), 0, scale, files)
            memory.refresh_words(Store(data))
            corpus.fill_fts5(data)
            tasks, events = corpus.counts(data)
            print(f"## x{scale}: {tasks:,} tasks, {events:,} events")
            for line in lines(measured(data, args.python, words)):
                print(line, flush=True)


if __name__ == "__main__":
    main()
