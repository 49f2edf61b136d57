"""A first search, and the background encoding, killed at random moments (#27): logs made
here, a clean build's answers, and a killed build's answers once the same work has been run to
its end (the search again, then the encoding: a search answers from the vectors made so far,
ADR 0031, so answers are compared only once every task's vectors are made).

Used by tests/test_kill_first_search.py (a few kills; NODWYN_SEARCH_KILLS=40 for the issue's
40). Seeded: the same seed kills at the same moments of the same logs.
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


ENCODE = (
    "import sys; from pathlib import Path; from nodwyn.store import Store; "
    "from nodwyn.memory.meaning import vectors; vectors.refresh(Store(Path(sys.argv[1])))"
)


def nodwyn(data: Path, *args: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "nodwyn.cli", *args]
    return _started(data, command)


def encoding(data: Path) -> subprocess.Popen:
    """The background encoding (what the app's worker and the service run), as a process."""
    return _started(data, [sys.executable, "-c", ENCODE, str(data)])


def _started(data: Path, command: list[str]) -> subprocess.Popen:
    environ = dict(os.environ, NODWYN_DATA_DIR=str(data), NODWYN_SERVICE="0")
    return subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


ANSWER = """
import json, sys
from pathlib import Path
from nodwyn import memory
from nodwyn.store import Store
store, found = Store(Path(sys.argv[1])), []
for query, mode in json.loads(sys.argv[2]):
    turns = memory.search(store, query, mode=mode).turns
    found.append([(t.task, t.first_seq, round(t.score, 4)) for t in turns])
print(json.dumps(found))
"""


def answers(data: Path, queries=QUERIES) -> dict[tuple[str, str], list]:
    """(query, mode) -> the turns found (task, first seq, score), in order: every query in
    every mode, searched in one process (the search the CLI runs when no app is running)."""
    keys = [(query, mode) for query in queries for mode in MODES]
    run = _started(data, [sys.executable, "-c", ANSWER, str(data), json.dumps(keys)])
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err.decode()
    return {
        key: [tuple(hit) for hit in hits] for key, hits in zip(keys, json.loads(out), strict=True)
    }


def fresh(base: Path, logs: Path, name: str) -> Path:
    data = base / name
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(logs, data / "sessions")
    return data


def ended(run: subprocess.Popen) -> float:
    """Wait for a run to end; how long it took from now. It must have succeeded."""
    began = time.monotonic()
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err.decode()
    return time.monotonic() - began


def searched(data: Path) -> float:
    """The first search (default mode), run to its end; how long it took."""
    return ended(nodwyn(data, "memory", "search", SEARCH, "--json"))


def encoded(data: Path) -> float:
    """The background encoding run to its end; how long it took."""
    return ended(encoding(data))


def killed(run: subprocess.Popen, after: float) -> bool:
    """Kill -9 `run` `after` seconds in; whether it was still running when killed."""
    time.sleep(after)  # a random moment of the work, not a wait for something to pass
    alive = run.poll() is None
    if alive:
        run.send_signal(signal.SIGKILL)
    run.communicate(timeout=300)
    return alive


class Tally:
    """What the kills came to: killed while running, differing from a clean build, and what
    differed (the kill's number, what was killed, the keys whose hits differ)."""

    def __init__(self, told=None):
        self.tried, self.stopped, self.failed, self.said = 0, 0, 0, []
        self.told = told  # called with a line after each kill, if given (a run by hand)

    def compare(self, what: str, stopped: bool, got: dict, expected: dict) -> None:
        self.tried += 1
        self.stopped += stopped
        wrong = [key for key in expected if got[key] != expected[key]]
        if wrong:
            self.failed += 1
            self.said.append(f"kill {self.tried} ({what}): {wrong}")
        if self.told:
            self.told(f"kill {self.tried} ({what}): {'differs' if wrong else 'same'}, "
                      f"{'killed' if stopped else 'ended first'}")  # fmt: skip


def kills(base: Path, count: int, seed: int = 27, tasks: int = 40, queries=QUERIES,
          told=None) -> Tally:  # fmt: skip
    """`count` first searches, and `count` encodings after a first search, killed at seeded
    random moments of their span, then the same work run to its end, then every mode's
    answers compared with a clean build's."""
    logs = base / "logs" / "sessions"
    make_logs(logs, tasks)
    clean = fresh(base, logs, "clean")
    search_span = searched(clean)
    encode_span = encoded(clean)
    expected = answers(clean, queries)
    rng, tally = random.Random(seed), Tally(told)
    for number in range(count):
        data = fresh(base, logs, f"search{number}")
        stopped = killed(nodwyn(data, "memory", "search", SEARCH, "--json"),
                         rng.uniform(0.0, search_span))  # fmt: skip
        searched(data)  # the same command run again, as a person would
        encoded(data)
        tally.compare("first search", stopped, answers(data, queries), expected)
        shutil.rmtree(data, ignore_errors=True)
        data = fresh(base, logs, f"encode{number}")
        searched(data)
        stopped = killed(encoding(data), rng.uniform(0.0, encode_span))
        encoded(data)
        tally.compare("encoding", stopped, answers(data, queries), expected)
        shutil.rmtree(data, ignore_errors=True)
    return tally


if __name__ == "__main__":  # by hand: python tests/kill_search.py [kills] [folder]
    import tempfile

    where = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    result = kills(where, int(sys.argv[1]) if len(sys.argv) > 1 else 3, told=print)
    print(f"{result.tried} kills, {result.stopped} while running, {result.failed} differ")
    print("\n".join(result.said))
