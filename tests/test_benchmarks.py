"""CI runs each benchmark at a smoke size: it must run, and each figure it prints must be a
number that parses, after its label (a label alone, or a figure of "nan" or "?", fails).
bench_import, bench_mcp and bench_memory read the real corpus (../shared/corpus): they are in
its suite."""

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent / "bench"
NUMBER = re.compile(r"[<>=~ ]*(-?\d[\d,]*(?:\.\d+)?)")
sys.path.insert(0, str(BENCH))

from goals import verdicts  # noqa: E402 (the benchmarks' own folder, put on the path above)


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def figure(out: str, label: str) -> float:
    """The number printed right after `label` (on its line), as a finite number."""
    lines = [line for line in out.splitlines() if label in line]
    assert lines, f"no line with {label!r} in:\n{out}"
    after = lines[0].split(label, 1)[1]
    found = NUMBER.match(after)
    assert found, f"{label!r} is followed by {after[:40]!r}, not a number"
    value = float(found.group(1).replace(",", ""))
    assert math.isfinite(value) and value >= 0, (label, value)
    return value


def figures(out: str, *labels: str) -> list[float]:
    return [figure(out, label) for label in labels]


def assert_goals_judged(out: str, count: int) -> None:
    """At least `count` goals said, each with a figure read from the run and a verdict that
    follows from that figure (not a label printed whatever the figure)."""
    said = verdicts(out)
    assert len(said) >= count, out
    for sign, target, figure, met in said:
        assert figure > 0, out
        assert met == (figure <= target if sign == "<=" else figure >= target), (sign, target)


def test_the_sessions_benchmark_prints_cold_and_warm_figures():
    out = run("bench_sessions.py", "--tasks", "30", "--runs", "1")
    assert "installed from a wheel of this checkout (not editable)" in out  # what people run
    cold, warm = figures(out, "sessions --json cold: median", "sessions --json warm: median")
    assert cold > 0 and warm > 0
    assert_goals_judged(out, 1)


def test_the_machines_benchmark_prints_each_step_beside_rsync():
    out = run("bench_machines.py", "--tasks", "20")
    labels = (
        "publish on the first machine:",
        "read on the second machine (the tasks appear):",
        "a pass on both with nothing new:",
        "one task grown by one turn, publish and read:",
        "of the same logs:",
    )
    for label in labels:
        figure(out, label)


def test_the_api_benchmark_prints_its_figures():
    out = run("bench_api.py", "--tasks", "20", "--runs", "2")
    times = figures(
        out,
        "GET /api/tasks at 20 tasks: median",
        "change feed scan of 20 logs: median",
        "GET /api/search (all 20 tasks, warm): median",
    )
    assert all(t > 0 for t in times)


def test_the_app_latency_benchmark_prints_its_figures():
    out = run("bench_app_latency.py", "--sessions", "5", "--turns", "3")
    first = re.search(r"first pass \(import \+ index\): ([\d.]+) s, ([\d,]+) lines/s", out)
    assert first and float(first.group(1)) >= 0 and int(first.group(2).replace(",", "")) > 0
    calls = re.findall(
        r"^GET (\S+) while \w+: n=(\d+) median ([\d.]+) ms, p95 ([\d.]+) ms, "
        r"max ([\d.]+) ms, ([\d.]+)% within 100 ms$",
        out,
        re.M,
    )  # the phases seen depend on how far the import got: at least one call each
    assert {route for route, *_ in calls} >= {"/api/tasks", "/api/changes?since=0&wait=0"}
    for _, n, median, p95, top, share in calls:
        assert int(n) >= 1 and float(median) <= float(p95) <= float(top)
        assert 0 <= float(share) <= 100


def test_the_hook_latency_benchmark_prints_each_figure_beside_its_goal():
    out = run("bench_hook_latency.py", "--runs", "4")
    figures(out, "hook, app down (spooled): median", "hook, app up (loopback): median",
            "hook start to row change: median", "worst")  # fmt: skip
    assert_goals_judged(out, 4)


@pytest.mark.corpus  # its texts are cut from the real corpus
def test_the_memory_benchmark_prints_every_figure_at_a_tiny_size():
    out = run("bench_memory.py", "--size", "600", "--queries", "12", "--new-processes", "2",
              "--append-mb", "1")  # fmt: skip
    for label in (
        "first build:", "events/s", "peak RSS", "warm process, search()", "p95",
        "new process, words mode, first search()", "new process, both mode, search() + imports",
        "bare Python start-up", "serving process peak RSS", "SQLite FTS5", "equal work",
        "the sentence model in its child", "after the model's child ended",
        "FTS5 / nodwyn median ratio", "append one turn to a",
    ):  # fmt: skip
        assert label in out, label
    assert_goals_judged(out, 2)  # the first build's rate, the warm default search at 17,616


@pytest.mark.corpus
def test_the_import_benchmark_prints_throughput_figures(corpus):
    out = run("bench_import.py", "--size", "2")
    assert figure(out, "first import:") > 0  # tasks
    rate = re.search(r"(\d[\d,.]*) MB/s, (\d[\d,]*) events/s", out)
    assert rate and float(rate.group(1)) > 0 and int(rate.group(2).replace(",", "")) > 0
    assert figure(out, "second import (nothing new):") >= 0
    assert figure(out, "redaction alone:") > 0  # MB of log lines, then its own MB/s
    for name in ("Gemini CLI .jsonl", "Gemini CLI .json", "Copilot CLI", "Antigravity"):
        assert f"  {name}" in out and "first import" in out  # issue 18: each format's MB/s
    for name in (
        "opencode database",
        "opencode export",
        "aider chat history",
        "cursor state.vscdb",
    ):
        assert f"{name}: " in out and "first import" in out.split(f"{name}: ")[1].split("\n")[0]


def test_the_corpus_benchmark_prints_its_scale_table_and_new_process_figures(corpus):
    out = run("bench_corpus.py", "--scales", "1,2", "--new-process-scale", "2", "--runs", "2",
              "--sources", "3")  # fmt: skip
    rows = re.findall(r"^\| x(\d+) \| (\d+) \| ([\d,]+) \|", out, re.M)
    assert [int(copies) for copies, _, _ in rows] == [1, 2]
    (_, one, _), (_, two, _) = rows
    assert int(two) == 2 * int(one)  # copies have session ids of their own: twice the tasks
    assert "byte-code compiled first (python -m compileall" in out
    for label in ("default mode, without the app", "default mode, with the app running"):
        found = re.search(re.escape(label) + r".*median (\d+) ms.*FTS5 search.*median (\d+) ms",
                          out)  # fmt: skip
        assert found and int(found[1]) > 0 and int(found[2]) > 0, label
    assert_goals_judged(out, 3)  # first build rate; with the app: ratio, whole process


def test_the_first_hour_benchmark_prints_the_first_encoding_and_the_service(corpus):
    out = run("bench_first_hour.py", "--scales", "1", "--runs", "2", "--sources", "3")
    assert "first encoding by nodwyn serve: first vectors after" in out
    assert figure(out, "texts (cards and notes), ") > 0  # turns a second
    for label in ("default search after it", "later searches, asking the service"):
        assert label in out, out
    assert "query lane: a query's vector alone median" in out
    assert_goals_judged(out, 4)  # after: ratio; warm: ms, ratio; no app: ratio; lane


def test_the_search_path_benchmark_prints_both_phases_beside_fts5(corpus):
    """Run with this environment's nodwyn (`--python`): the sessions benchmark's smoke builds
    and installs the wheel, which takes seconds, once for both."""
    smoke = ("--scales", "1", "--runs", "2", "--sources", "3", "--python", sys.executable)
    out = run("bench_search_path.py", *smoke)
    assert "python -m compileall" in out
    for phase in ("neither running: nodwyn median", "the search service running: nodwyn median"):
        assert figure(out, phase) > 0, phase
    assert figure(out, "FTS5 process median") > 0
    assert_goals_judged(out, 2)  # each phase's ratio to a new FTS5 process


def test_the_meaning_benchmark_prints_its_figures():
    out = run("bench_meaning.py", "--cards", "400", "--tasks", "4", "--texts", "20",
              "--searches", "2", "--turns", "150", "--encode-logs", "1", "--events", "300",
              "--big", "600", "--queries", "3")  # fmt: skip
    load, added, speed, disk, first, warm = figures(
        out, "model load:", "the model adds", "encode:", "disk:",
        "search 400 cards in 4 tasks: first", "search warm: median",
    )  # fmt: skip
    assert speed > 0 and disk > 0 and load > 0
    assert figure(out, "time to first vectors for 150 turns (2 logs of 100 turns, newest first):")
    assert figure(out, "warm default-mode search at") and "stand-in vectors" in out
    for goal in ("(goal <= 100 MB:", "(goal <= 10 ms:", "(goal <= 40 ms:"):
        assert goal in out, goal


@pytest.mark.corpus
def test_the_mcp_benchmark_prints_its_figures(corpus):
    out = run("bench_mcp.py", "--calls", "2")
    assert figure(out, "tools/list schemas:") > 0
    for name in ("start", "index-search", "recall"):
        assert figure(out, f"{name}: first") > 0


def test_the_build_benchmark_prints_its_figures_beside_their_goals(corpus):
    out = run("bench_build.py", "--sizes", "400,900", "--queries", "5")
    for label in ("first build, one core:", "goal >= 30,000", "first build as the app builds",
                   "warm search by words at", "goal <= 5 ms",
                   "stats of task logs during those warm searches: 0 (goal 0)",
                   "a stat of every log on each search"):  # fmt: skip
        assert label in out, label


def test_the_idle_benchmark_prints_both_states_of_the_window_and_the_worker():
    """Under Xvfb: each state in all and process by process, and six goals judged (PSS and CPU
    open, RSS and CPU closed, Open again, the worker), each verdict following from its figure
    (a CPU figure may be 0 over the smoke size's one second)."""
    import shutil

    if not sys.platform.startswith("linux") or not shutil.which("xvfb-run"):
        pytest.skip("the app's idle figures are read under Xvfb, from /proc")
    out = run("bench_idle.py", "--seconds", "1", "--folders", "2")
    for label in ("idle, window open (", "idle, window closed to the tray (", "PSS",
                   "  window: RSS", "  renderer: RSS", "  app: RSS", "wake-ups a minute",
                   "Open after closing to the tray: window shown in",
                   "worker alone, idle, following 2 folders",
                   "the sentence model's child (keep-alive 5 s"):  # fmt: skip
        assert label in out, label
    said = verdicts(out)
    assert len(said) == 6, out
    for sign, target, figure, met in said:
        assert figure >= 0 and met == (figure <= target if sign == "<=" else figure >= target)


def test_the_idle_benchmark_judges_a_setting_against_the_app_as_it_is():
    """--against: runs without and with the variables, alternated, each process by process, and
    the medians of the runs no other web engine shared pages with; NAME alone is refused."""
    import shutil

    refused = subprocess.run([sys.executable, str(BENCH / "bench_idle.py"), "--against", "JSC"],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert refused.returncode == 2 and "--against takes NAME=VALUE" in refused.stderr
    if not sys.platform.startswith("linux") or not shutil.which("xvfb-run"):
        pytest.skip("the app's idle figures are read under Xvfb, from /proc")
    out = run("bench_idle.py", "--seconds", "1", "--against", "JSC_forceMiniVMMode=1")
    runs = [line for line in out.splitlines() if line.startswith("run 1, ")]
    assert [line.split(" (")[0] for line in runs] == [
        "run 1, as it is",
        "run 1, with JSC_forceMiniVMMode=1",
    ], out
    for label in ("  renderer: RSS", "  window: RSS", "  app: RSS"):
        assert out.count(label) >= 2, label
    medians = [line for line in out.splitlines() if ", median of 1 runs:" in line]
    left_out = sum("left out" in line for line in runs)
    assert len(medians) == 2 - left_out and all(" PSS " in line for line in medians), out


def test_the_blame_benchmark_prints_its_figures(corpus):
    out = run("bench_blame.py", "--copies", "1", "--lines", "300", "--runs", "2")
    wall, cpu = figures(out, "blame warm wall: median", "blame warm CPU: median")
    assert wall > 0 and cpu > 0
    assert_goals_judged(out, 1)


def test_the_ssh_pull_benchmark_prints_each_pull_beside_the_grown_file(corpus):
    out = run("bench_ssh_pull.py")
    grown = figure(out, "bytes, ")  # the turn appended to the grown file
    whole, idle, after = figures(out, "rsync first, whole", "rsync again, nothing new",
                                 "rsync after one turn")  # fmt: skip
    assert whole > after and after - idle <= grown + 512
    assert figure(out, "sftp  after one turn") == grown
    assert figure(out, "plain rsync -rt after one turn (Claude folder alone):") > after - idle


@pytest.mark.corpus  # its session and its history are made of the real corpus's records
def test_the_big_history_benchmark_prints_each_steps_time_and_peak_beside_fts5(corpus):
    out = run("bench_big_history.py", "--session-mb", "2,4", "--history-mb", "30,60")
    for label in ("  import:", "  first index build (.mem and the word index):",
                  "  SQLite FTS5 building the same events' text:",
                  "  first `nodwyn sessions --all --json` after it:",
                  "  first `nodwyn usage --by day --json` after it:"):  # fmt: skip
        assert figure(out, label) > 0, label
    peaks = re.findall(r"peak RSS ([\d,]+) MB", out)
    assert len(peaks) >= 10 and all(int(p.replace(",", "")) > 0 for p in peaks)
    assert figure(out, "`nodwyn sessions --json` warm at") > 0  # the tasks, then the median
    assert_goals_judged(out, 4)  # the import's and the build's peaks, and how each grew


def test_the_page_speed_benchmark_times_the_list_and_each_open_in_webkit():
    """Under Xvfb, in WebKitGTK: the list's time, each open's median and slowest, the web
    process's RSS and PSS, for the page as it is and with a setting, alternated."""
    import shutil

    if not sys.platform.startswith("linux") or not shutil.which("xvfb-run"):
        pytest.skip("the page is timed in WebKitGTK under Xvfb")
    out = run("bench_page_speed.py", "--runs", "1", "--opens", "1",
              "--against", "JSC_useDFGJIT=0")  # fmt: skip
    medians = [line for line in out.splitlines() if ", median of 1 runs:" in line]
    assert [line.split(",")[0] for line in medians] == ["as it is", "with JSC_useDFGJIT=0"], out
    for line in medians:
        list_ms, open_ms, slowest, rss, pss = figures(
            line, "list drawn in", "a transcript opened in", "slowest", "RSS", "PSS"
        )
        assert 0 < list_ms < 60_000 and 0 < open_ms <= slowest and 0 < pss <= rss, line
        assert "(median of 6," in line, line  # the demo's first six tasks, each opened once
