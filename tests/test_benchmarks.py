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


def test_the_import_benchmark_prints_throughput_figures(corpus):
    out = run("bench_import.py", "--size", "2")
    assert "first import:" in out and "MB/s" in out
    assert "events/s" in out and "second import" in out
    assert "redaction alone:" in out


def test_the_memory_benchmark_prints_every_figure_at_a_tiny_size():
    out = run("bench_memory.py", "--size", "600", "--queries", "12", "--new-processes", "2",
              "--append-mb", "1")  # fmt: skip
    for figure in (
        "first build:", "events/s", "peak RSS", "warm process, search()", "p95",
        "new process, words mode, first search()", "new process, both mode, search() + imports",
        "bare Python start-up", "serving process peak RSS", "SQLite FTS5", "equal work",
        "FTS5 / nodwyn median ratio", "append one turn to a",
    ):  # fmt: skip
        assert figure in out, figure


def test_the_meaning_benchmark_prints_its_figures():
    out = run("bench_meaning.py", "--cards", "400", "--tasks", "4", "--texts", "40",
              "--searches", "2")  # fmt: skip
    for figure in ("model load:", "encode:", "disk:", "search 400 cards", "search warm: median"):
        assert figure in out


def test_the_mcp_benchmark_prints_its_figures(corpus):
    out = run("bench_mcp.py", "--calls", "2")
    assert "tools/list schemas: " in out
    for name in ("start", "index-search", "recall"):
        assert f"{name}: first " in out


def test_the_build_benchmark_prints_its_figures_beside_their_goals(corpus):
    out = run("bench_build.py", "--sizes", "400,900", "--queries", "5")
    for figure in ("first build, one core:", "goal >= 30,000", "first build as the app builds",
                   "warm search by words at", "goal <= 5 ms",
                   "stats of task logs during those warm searches: 0 (goal 0)",
                   "a stat of every log on each search"):  # fmt: skip
        assert figure in out, figure


def test_the_idle_benchmark_prints_both_states_of_the_window_and_the_worker():
    import shutil

    import pytest

    if not sys.platform.startswith("linux") or not shutil.which("xvfb-run"):
        pytest.skip("the app's idle figures are read under Xvfb, from /proc")
    out = run("bench_idle.py", "--seconds", "1", "--folders", "2")
    for figure in ("idle, window open:", "idle, window closed to the tray:", "PSS",
                   "Open after closing to the tray: window shown in",
                   "worker alone, idle, following 2 folders"):  # fmt: skip
        assert figure in out, figure
