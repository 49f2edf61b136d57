"""CI runs the search-by-meaning benchmark at a smoke size: it must run and print its figures."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parent / "bench" / "bench_meaning.py"


def test_the_meaning_benchmark_prints_its_figures():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--cards", "400", "--tasks", "4", "--texts", "40",
         "--searches", "2"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for figure in ("model load:", "encode:", "disk:", "search 400 cards", "search warm: median"):
        assert figure in done.stdout
