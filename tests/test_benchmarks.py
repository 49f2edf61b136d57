"""CI runs each benchmark at a smoke size: it must run and print its figures."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parent / "bench"


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_sessions_benchmark_prints_cold_and_warm_figures():
    out = run("bench_sessions.py", "--tasks", "30", "--runs", "1")
    assert "sessions --json cold: median" in out
    assert "sessions --json warm: median" in out


def test_the_api_benchmark_prints_its_figures():
    out = run("bench_api.py", "--tasks", "20", "--runs", "2")
    for figure in ("GET /api/tasks at 20 tasks: median", "change feed scan of 20 logs: median",
                   "GET /api/search (all 20 tasks, warm): median"):  # fmt: skip
        assert figure in out


def test_the_app_latency_benchmark_prints_its_figures():
    out = run("bench_app_latency.py", "--sessions", "5", "--turns", "3")
    assert "first pass (import + index):" in out
    assert "GET /api/tasks while" in out and "within 100 ms" in out
