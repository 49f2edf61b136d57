"""A first search, and the background encoding, killed at random moments (#27): logs made
here, a clean build's answers, and a killed build's answers once the same work has been run to
its end (the search again, then the encoding: a search answers from the vectors made so far,
ADR 0031, so answers are compared only once every task's vectors are made).

Every kill comes while the work writes its files: at a random moment after the run's first
file appeared (a moment after a faster run had ended is drawn again); the tally says how many
left some of the work's files made.
Used by tests/test_kill_first_search.py (a few kills; NODWYN_SEARCH_KILLS=40 for the issue's
40 first searches, and 40 encodings). Seeded: the same seed draws the same moments.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from memory_logs import turn, write
from nodwyn.tasks.store import Store

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
    "import sys; from pathlib import Path; from nodwyn.tasks.store import Store; "
    "from nodwyn.memory.meaning import encoding; encoding.refresh(Store(Path(sys.argv[1])))"
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
from nodwyn.tasks.store import Store
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


def until_writing(run: subprocess.Popen, data: Path, what: str) -> None:
    """Return once the run's first file is there (midway) or the run has ended."""
    while run.poll() is None and not midway(data, what):
        time.sleep(0.002)  # looking for the first file, not waiting for time to pass


def writing(run: subprocess.Popen, data: Path, what: str) -> float:
    """Seconds from the run's first file (midway) to its end; it must have succeeded."""
    until_writing(run, data, what)
    return ended(run)


def ended(run: subprocess.Popen) -> float:
    """Wait for a run to end; how long it took from now. It must have succeeded."""
    began = time.monotonic()
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err.decode()
    return time.monotonic() - began


def first_search(data: Path) -> subprocess.Popen:
    """The first search, in the default mode, as a person runs it with no app running."""
    return nodwyn(data, "memory", "search", SEARCH, "--json")


def searched(data: Path) -> float:
    """The first search run to its end; how long it took."""
    return ended(first_search(data))


def searched_copy(base: Path, logs: Path, name: str) -> Path:
    """A fresh copy of the logs, searched once (the encoding's kills start from there)."""
    data = fresh(base, logs, name)
    searched(data)
    return data


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


TRIES = 6  # moments drawn for one kill; each after a miss from a shorter span (SHRINK)
SHRINK = 0.7


def kill_while_running(rng: random.Random, span: float, made, start, what: str):
    """A copy of the logs (`made()`) whose work (`start(data)`) is killed while it writes: at a
    seeded random moment of `span` (the clean run's time from its first file written to its
    end) after this run's own first file appeared (a kill before is one of Python starting,
    with nothing to leave half-made). A moment that came after the work had ended (a run
    faster than the clean one) is no kill: the work is tried again on a new copy, the span
    drawn in by SHRINK. The copy, and whether the kill came while it ran."""
    for attempt in range(TRIES):
        data = made()
        run = start(data)
        until_writing(run, data, what)
        if killed(run, rng.uniform(0.0, span * SHRINK**attempt)):
            return data, True
        shutil.rmtree(data, ignore_errors=True)
    return made(), False


def midway(data: Path, what: str) -> bool:
    """Whether a kill left some of the work's files made (it came after the work had begun to
    write, not while Python started): a `.mem` or the word index of a first search, a `.vec`
    of the encoding (a first search makes none: NODWYN_SERVICE=0)."""
    if what == "encoding":
        return any(data.glob("sessions/*.vec"))
    return any(data.glob("sessions/*.mem")) or (data / "index").exists()


class Tally:
    """What the kills came to: killed while running, of those after the work had begun to
    write (`midway`), differing from a clean build, and what differed (the kill's number, what
    was killed, the keys whose hits differ)."""

    def __init__(self, told=None):
        self.tried, self.stopped, self.midway, self.failed, self.said = 0, 0, 0, 0, []
        self.told = told  # called with a line after each kill, if given (a run by hand)

    def compare(self, what: str, stopped: bool, began: bool, got: dict, expected: dict) -> None:
        self.tried += 1
        self.stopped += stopped
        self.midway += stopped and began
        wrong = [key for key in expected if got[key] != expected[key]]
        if wrong:
            self.failed += 1
            self.said.append(f"kill {self.tried} ({what}): {wrong}")
        if self.told:
            when = ("midway" if began else "before it wrote") if stopped else "ended first"
            self.told(f"kill {self.tried} ({what}): {'differs' if wrong else 'same'}, "
                      f"killed {when}")  # fmt: skip


def kills(base: Path, count: int, seed: int = 27, tasks: int = 40, queries=QUERIES,
          told=None) -> Tally:  # fmt: skip
    """`count` first searches, and `count` encodings after a whole first search, each killed
    while it runs (kill_while_running), then the same work run to its end, then every mode's
    answers compared with a clean build's."""
    logs = base / "logs" / "sessions"
    make_logs(logs, tasks)
    clean = fresh(base, logs, "clean")
    search_span = writing(first_search(clean), clean, "first search")
    encode_span = writing(encoding(clean), clean, "encoding")
    expected = answers(clean, queries)
    rng, tally = random.Random(seed), Tally(told)
    for number in range(count):
        made = partial(fresh, base, logs, f"search{number}")
        data, stopped = kill_while_running(rng, search_span, made, first_search, "first search")
        began = midway(data, "first search")
        searched(data)  # the same command run again, as a person would
        encoded(data)
        tally.compare("first search", stopped, began, answers(data, queries), expected)
        shutil.rmtree(data, ignore_errors=True)
        made = partial(searched_copy, base, logs, f"encode{number}")
        data, stopped = kill_while_running(rng, encode_span, made, encoding, "encoding")
        began = midway(data, "encoding")
        encoded(data)
        tally.compare("encoding", stopped, began, answers(data, queries), expected)
        shutil.rmtree(data, ignore_errors=True)
    return tally


if __name__ == "__main__":  # by hand: python tests/kill_search.py [kills] [folder]
    import tempfile

    where = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    result = kills(where, int(sys.argv[1]) if len(sys.argv) > 1 else 3, told=print)
    print(f"{result.tried} kills, {result.stopped} while running ({result.midway} after the work "
          f"had begun to write), {result.failed} differ")  # fmt: skip
    print("\n".join(result.said))
