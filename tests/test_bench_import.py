"""CI runs the import benchmark at a smoke size: it must run and print its figures."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parent / "bench" / "bench_import.py"


def test_the_import_benchmark_prints_throughput_figures(corpus):
    done = subprocess.run(
        [sys.executable, str(BENCH), "--size", "2"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "first import:" in done.stdout and "MB/s" in done.stdout
    assert "events/s" in done.stdout and "second import" in done.stdout
