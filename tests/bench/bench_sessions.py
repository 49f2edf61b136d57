"""Benchmark: `nodwyn sessions --json` over many synthetic tasks, cold and warm.

Cold = no catalogue (every log is folded); warm = the catalogue is current. Each figure is the
median wall time of whole `nodwyn sessions --json` processes, so Python's own start-up is in it
(their CPU time is printed too, since other work on a shared machine stretches wall times);
the start-up of a bare `python -c pass` is printed beside it for scale. Goal: warm <= 100 ms at
10,000 tasks.

nodwyn is the one people run: a wheel of this checkout installed into a venv of the run's own
(installed.py; the editable install of the test environment adds its import hook to every
start), run as its `nodwyn` script; `--python` runs another interpreter's nodwyn instead.

    python tests/bench/bench_sessions.py [--tasks 10000] [--runs 5] [--python PATH]
"""

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import installed
from bench_corpus import nodwyn_command
from goals import goal
from nodwyn.log import records
from nodwyn.tasks import listing
from nodwyn.tasks.store import Store

PROJECTS = [f"/home/ana/src/project-{n}" for n in range(40)]


def make_tasks(root: Path, count: int) -> None:
    store = Store(root)
    for n in range(count):
        start = records.SessionStart(
            project=PROJECTS[n % len(PROJECTS)],
            origin=records.Origin(tool="claude-code" if n % 3 else "nodwyn"),
            at=f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T10:00:00.000Z",
        )
        with store.create(start) as writer:
            turns = []
            for turn in range(1 + n % 5):
                turns.append(records.Message(text=f"Task {n} turn {turn}: fix the pager order"))
                turns.append(records.Reply(text="Done, the test passes now.", model="m"))
            writer.append(turns)


def time_listing(root: Path, runs: int, cold: bool, python: str) -> tuple[list, list]:
    """Wall times and CPU times (user + system) of whole processes, in seconds."""
    env = dict(os.environ, NODWYN_DATA_DIR=str(root))
    times, cpu = [], []
    for _ in range(runs):
        if cold:
            (root / listing.FILE).unlink(missing_ok=True)
            (root / "catalogue.fold").unlink(missing_ok=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        begin = time.perf_counter()
        done = subprocess.run(
            [*nodwyn_command(python), "sessions", "--json"],
            env=env,
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - begin)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        assert done.stdout.startswith(b"[")
    return times, cpu


def compiled(python: str) -> None:
    """nodwyn's byte-code written, as an installed package has it (where PYTHONDONTWRITEBYTECODE
    is set, an editable install would otherwise compile its sources in every process timed)."""
    code = (
        "import compileall, os, nodwyn; "
        "compileall.compile_dir(os.path.dirname(nodwyn.__file__), quiet=1)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([python, "-c", code], env=env, check=True)


def bare_python(runs: int, python: str) -> float:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", help="interpreter that runs nodwyn (default: one made here)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        python, which = installed.interpreter(args.python, Path(tmp) / "installed")
        begin = time.perf_counter()
        make_tasks(root, args.tasks)
        print(f"tasks: {args.tasks} written in {time.perf_counter() - begin:.1f} s")
        compiled(python)
        cold = time_listing(root, args.runs, True, python)
        warm = time_listing(root, args.runs, False, python)
        print(f"interpreter: {which}; command {' '.join(nodwyn_command(python))} sessions --json")
        print(f"python start-up alone: {bare_python(args.runs, python) * 1000:.0f} ms")
        for name, (wall, cpu) in (("cold", cold), ("warm", warm)):
            wall_ms = statistics.median(wall) * 1000
            aim = f"; {goal(wall_ms, 100, 'ms')} (set at 10,000 tasks)" if name == "warm" else ""
            print(
                f"sessions --json {name}: median {wall_ms:.0f} ms wall, "
                f"{statistics.median(cpu) * 1000:.0f} ms CPU{aim}"
            )
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        size = (root / listing.FILE).stat().st_size
        print(f"catalogue: {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
