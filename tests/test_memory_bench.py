"""CI runs the memory benchmark at a tiny size: it must run and print every figure."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parent / "bench" / "bench_memory.py"


def test_the_memory_benchmark_prints_every_figure_at_a_tiny_size():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--size", "600", "--queries", "12", "--new-processes", "2",
         "--append-mb", "1"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for figure in (
        "first build:", "events/s", "peak RSS", "warm process, search()", "p95",
        "new process, first search()", "serving process peak RSS", "SQLite FTS5",
        "FTS5 / nodwyn median ratio", "append one turn to a",
    ):  # fmt: skip
        assert figure in done.stdout, figure
