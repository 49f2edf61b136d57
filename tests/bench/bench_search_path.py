"""Benchmark of a search from the command line in a new process, the way a person runs one
(ADR 0058): the real corpus copied N times, imported and indexed by words; then whole
processes of `nodwyn memory search --mode words QUERY`, each beside a whole SQLite FTS5
search process (python, sqlite3, one query over the same events, its top turns printed),
taken in turn query by query so that the machine's other work weighs on both alike:

- neither the app nor the search service running: the search runs in the new process;
- the search service running (started once, as a search that needs the model starts it, and
  timed once it has encoded every task and is idle): the new process asks it.

nodwyn is the one people run: a wheel of this checkout installed into a venv of the run's own
(installed.py; not the editable install of the test environment, whose import hook every start
of its interpreter pays), and that venv's interpreter runs the FTS5 process too; `--python`
runs another interpreter's nodwyn instead. Wall times are noisy on a shared machine; each
figure has its CPU time beside it, and the load average is printed.

    python tests/bench/bench_search_path.py [--scales 1,8] [--runs 21] [--sources N]
"""

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import bench_corpus as corpus
import installed
from goals import goal

# A new-process search beside a new FTS5 process: no slower with the service running, within
# 1.5 times with nothing running (the search then opens the index itself).
START_SERVICE = (
    "import sys; from nodwyn.background import service; sys.exit(not service.start(sys.argv[1]))"
)
GOALS = {"the search service running": 1.0, "neither running": 1.5}


def commands(data: Path, python: str) -> dict:
    """name -> the command of a search for a query."""
    search = [*corpus.nodwyn_command(python), "--data-dir", str(data), "memory", "search",
              "--mode", "words"]  # fmt: skip
    fts5 = [python, "-c", corpus.FTS5_PROCESS, str(data / corpus.FTS5_DB)]
    return {"nodwyn": lambda q: [*search, q], "FTS5": lambda q: [*fts5, corpus.match_of(q)]}


def measured(data: Path, python: str, words: list[str]) -> dict:
    """{phase: {name: [wall ms], "<name> cpu": [cpu ms]}} for both phases."""
    from nodwyn.background import running

    env_service = os.environ.pop("NODWYN_SERVICE", None)
    try:
        found = {"neither running": corpus.interleaved(commands(data, python), words)}
        # started by the nodwyn measured, as its first search by meaning starts it
        started = subprocess.run([python, "-c", START_SERVICE, str(data)], check=False)
        assert started.returncode == 0, "the search service did not start"
        try:
            settled(data, python)
            corpus.process_ms(commands(data, python)["nodwyn"](words[0]), 1)  # its first read
            found["the search service running"] = corpus.interleaved(commands(data, python), words)
        finally:
            os.kill(running._read(data)["pid"], signal.SIGTERM)  # the service this run started
    finally:
        if env_service is not None:
            os.environ["NODWYN_SERVICE"] = env_service
    return found


def settled(data: Path, python: str, within: float = 900.0) -> None:
    """Wait until the service has encoded every task (its first work, on all cores) and is
    idle, as a service a person keeps is: searches timed meanwhile would time the encoding.
    Asked by the nodwyn measured (`--python` may be another release's)."""
    ask = [*corpus.nodwyn_command(python), "--data-dir", str(data)]
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = json.loads(_out([*ask, "memory", "search", "--mode", "both", "--json", "a"]))
        status = json.loads(_out([*ask, "status", "--json"]))
        encoded = found["mode"] != "both" or found["covered"] >= found["searched"]
        if encoded and not status["phase"]:  # (words alone: no model here, nothing to encode)
            return
        time.sleep(0.5)
    raise SystemExit(f"the search service still encodes after {within:.0f} s")


def _out(command: list[str]) -> bytes:
    return subprocess.run(command, capture_output=True, check=True).stdout


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
    parser = corpus.copies_parser("1,8", 21, "way")
    parser.set_defaults(python=None)  # not given: nodwyn installed from a wheel (installed.py)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as place:
        python, which = installed.interpreter(args.python, Path(place))
        run(args, python, which)


def run(args, python: str, which: str) -> None:
    from nodwyn import memory
    from nodwyn.tasks.store import Store

    corpus.CORPUS = Path(os.environ.get("NODWYN_CORPUS") or corpus.CORPUS)
    files = corpus.sources(args.sources)
    words = corpus.questions(args.runs)
    where = corpus.compiled(python)
    print(f"bench_search_path: {len(files)} files of the corpus a copy, {len(words)} searches "
          f"of each way; {which}, whose interpreter runs the FTS5 process too; byte-code "
          f"compiled first (python -m compileall {where}); command "
          f"{' '.join(corpus.nodwyn_command(python))} memory search --mode words")  # fmt: skip
    for scale in (int(s) for s in args.scales.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            data = Path(scratch) / f"x{scale}"
            corpus.grow(data, Path(scratch), 0, scale, files)
            memory.refresh_words(Store(data))
            corpus.fill_fts5(data)
            tasks, events = corpus.counts(data)
            print(f"## x{scale}: {tasks:,} tasks, {events:,} events")
            for line in lines(measured(data, python, words)):
                print(line, flush=True)
            print(f"load average while measuring: {os.getloadavg()[0]:.1f} on "
                  f"{os.cpu_count()} CPUs", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
