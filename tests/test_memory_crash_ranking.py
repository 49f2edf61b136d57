"""A search after a first build killed mid-way ranks as a clean build does (issue 14, row 6):
the documents a killed build committed are kept, not deleted and added again, so no deleted
document is left in a segment to count in BM25's statistics."""

import random
import shutil
import signal
import subprocess
import sys

from memory_logs import turn, write
from nodwyn.memory.words import index
from nodwyn.memory.words.search import hits
from nodwyn.tasks.store import Store

WORDS = ("pager", "parser", "cache", "heater", "socket", "kernel", "buffer", "window", "cursor",
         "thread", "lock", "queue", "token", "schema", "index", "vector", "render", "layout",
         "bundle", "router")  # fmt: skip

# A first search whose build is killed (SIGKILL, as `kill -9`) right after a commit of
# the index, as it writes the third .mem file: documents committed, marks not all written.
KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
from nodwyn.memory.cards import mem
from nodwyn.memory.words import index
from nodwyn.tasks.store import Store
index.BATCH = 40  # documents per commit, so the build commits many times
written = []
real = mem.append
def append(log, base, gained):
    real(log, base, gained)
    written.append(log)
    if len(written) == 3:
        os.kill(os.getpid(), signal.SIGKILL)
mem.append = append
index.refresh(Store(Path(sys.argv[1])))
"""


def make_logs(store: Store, count: int = 30) -> None:
    rng = random.Random(5)
    for number in range(count):
        items = []
        for step in range(4):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
            items += turn(text, reply=" ".join(rng.sample(WORDS, 4)), t0=step * 10)
        write(store, f"t{number:02d}", items)


def ranking(store: Store, words: str) -> list[tuple[str, int, float]]:
    state = index.refresh(store)
    return [(hit.task, hit.seq, round(hit.score, 5)) for hit in hits(store, state, words, None, 30)]


def test_a_search_after_a_killed_first_build_ranks_as_a_clean_build(tmp_path):
    crashed = Store(tmp_path / "crashed")
    make_logs(crashed)
    clean = Store(tmp_path / "clean")
    shutil.copytree(crashed.sessions, clean.sessions, dirs_exist_ok=True)
    run = subprocess.run([sys.executable, "-c", KILLED_BUILD, str(crashed.root)],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == -signal.SIGKILL, run.stderr
    assert index.load_state(crashed.root) is not None  # a build was under way, and stopped
    for words in ("pager heater", "socket", "kernel buffer window", "router layout token"):
        assert ranking(crashed, words) == ranking(clean, words)
