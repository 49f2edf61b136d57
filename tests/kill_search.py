"""A first search killed at random moments (#27): logs made here, a clean build's answers,
and a killed build's answers after the same search is run again.

Used by tests/test_kill_first_search.py (a few kills) and by tests/bench/bench_kills.py (the
issue's 40, by hand). Seeded: the same seed kills at the same moments of the same logs.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from memory_logs import turn, write
from nodwyn.store import Store

WORDS = ("build", "failing", "fix", "test", "cache", "parser", "socket", "kernel", "buffer",
         "window", "thread", "lock", "queue", "token", "schema", "index", "vector", "render",
         "layout", "router", "deploy", "linker", "compile", "error", "timeout")  # fmt: skip
SEARCH = "how did we fix the failing build"
QUERIES = (SEARCH, "socket timeout", "parser error in the schema", "render layout",
           "compile linker", "queue lock thread")  # fmt: skip
MODES = ("words", "meaning", "both")


def make_logs(sessions: Path, count: int = 40, seed: int = 5) -> None:
    store = Store(sessions.parent)
    rng = random.Random(seed)
    for number in range(count):
        items = []
        for step in range(5):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 40)))
            items += turn(text, reply=" ".join(rng.sample(WORDS, 6)), t0=step * 10)
        write(store, f"t{number:02d}", items, project=f"/work/p{number % 4}")


def nodwyn(data: Path, *args: str) -> subprocess.Popen:
    environ = dict(os.environ, NODWYN_DATA_DIR=str(data))
    command = [sys.executable, "-m", "nodwyn.cli", *args]
    return subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def answers(data: Path) -> dict[tuple[str, str], list]:
    """(query, mode) -> the turns found (task, first seq, score), in order."""
    found = {}
    for query in QUERIES:
        for mode in MODES:
            run = nodwyn(data, "memory", "search", query, "--mode", mode, "--json")
            out, err = run.communicate(timeout=300)
            assert run.returncode == 0, err.decode()
            turns = json.loads(out)["turns"]
            found[(query, mode)] = [
                (t["task"], t["first_seq"], round(t["score"], 4)) for t in turns
            ]
    return found


def fresh(base: Path, logs: Path, name: str) -> Path:
    data = base / name
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(logs, data / "sessions")
    return data


def first_search_time(data: Path) -> float:
    began = time.monotonic()
    run = nodwyn(data, "memory", "search", SEARCH, "--json")
    run.communicate(timeout=300)
    return time.monotonic() - began


def searched(data: Path) -> None:
    """The first search, run to its end (a search answers from what is built so far, ADR
    0026: the answers compared are those after a build that ended)."""
    run = nodwyn(data, "memory", "search", SEARCH, "--json")
    run.communicate(timeout=300)


def killed(data: Path, after: float) -> bool:
    """Start a first search (default mode) and kill -9 it `after` seconds in; whether it was
    still running when killed."""
    run = nodwyn(data, "memory", "search", SEARCH, "--json")
    time.sleep(after)  # a random moment of the build, not a wait for something to pass
    alive = run.poll() is None
    if alive:
        run.send_signal(signal.SIGKILL)
    run.communicate(timeout=300)
    return alive


def kills(base: Path, count: int, seed: int = 27) -> tuple[int, int, list[str]]:
    """(killed while running, differing from a clean build, what differed)."""
    logs = base / "logs" / "sessions"
    make_logs(logs)
    clean = fresh(base, logs, "clean")
    span = first_search_time(fresh(base, logs, "timed"))
    searched(clean)
    expected = answers(clean)
    rng = random.Random(seed)
    stopped, failed, said = 0, 0, []
    for number in range(count):
        data = fresh(base, logs, f"kill{number}")
        stopped += killed(data, rng.uniform(0.0, span))
        searched(data)  # the same command run again, as a person would
        got = answers(data)
        wrong = [key for key in expected if got[key] != expected[key]]
        if wrong:
            failed += 1
            said.append(f"kill {number}: {wrong}")
        shutil.rmtree(data, ignore_errors=True)
    return stopped, failed, said
