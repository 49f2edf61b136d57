"""A 50 MB single line in a log (#14 row 7): imported whole, then searched in bounded time and
memory. The index and the snippets take its first EVENT_TEXT characters; the log keeps every
byte; the transcript says the text shown was cut."""

import os
import resource
import subprocess
import sys
import time

from importing import age, result, session, write
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.memory.words.documents import EVENT_TEXT, text_of
from nodwyn.tasks.store import Store

HUGE = 50_000_000
WORDS = " ".join(f"zebra{i % 5000}word" for i in range(HUGE // 12))[:HUGE]

RUN = """
import sys
sys.path.insert(0, "tests")
from pathlib import Path
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store
store = Store()
(task,) = import_paths(store, "claude", [Path(sys.argv[1])]).created
hits = memory.search(store, "zebra17word", mode="words")
assert [hit.task for hit in hits.turns] == [task], hits
"""


def huge_session(tmp_path):
    lines = session()
    lines[4] = result("u4", "u3", 4, "c1", WORDS)
    return age(write(tmp_path / "p" / "11111111-2222-3333-4444-555555555555.jsonl", lines))


def test_a_50_mb_line_is_imported_and_searched_in_bounded_time_and_memory(tmp_path):
    source = huge_session(tmp_path)
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", RUN, str(source)], env=dict(os.environ),
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    took = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"import and first search of a 50 MB line: {took:.1f} s, {peak_mb:.0f} MB")
    assert peak_mb < 900  # before: 1.3 GB for the same file (a copy per 1 MB read, all indexed)
    assert took < 60


def test_the_log_keeps_every_byte_and_the_index_takes_a_bounded_part(tmp_path):
    store = Store()
    (task,) = import_paths(store, "claude", [huge_session(tmp_path)]).created
    (output,) = [x for _, _, x in logfile.read(store.log_path(task)) if hasattr(x, "output")]
    assert output.output == WORDS
    assert len(text_of(output, clean=False)) == EVENT_TEXT
    window = memory.context(store, task, output.seq, before=0, after=0)
    shown = window.events[0]
    assert shown.get("cut") is True and len(shown["output"]) < 100_000
