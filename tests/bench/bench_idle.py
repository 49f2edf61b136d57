"""Benchmark of the desktop app at rest (issue 16): memory and CPU of all its processes with
the window open and with it closed to the tray, and how long Open takes to make the window
again, beside their goals. Printed, not timed.

    python tests/bench/bench_idle.py [--seconds 60] [--runs 3] [--demo] [--folders 16]
        [--mode words|meaning|both] [--keep-alive 5] [--against NAME=VALUE ...]

The real app (`nodwyn app`) runs under a fresh Xvfb with a tray (trayer), in a data directory
of its own (the demo's tasks with --demo), and measures itself through its self-check
(NODWYN_SELFCHECK_IDLE, app/desktop/idle.py): RSS and PSS summed over its process and every process
it started, CPU over the given seconds, each also process by process (the app, the window's
Python process, the web engine's renderer and zygotes), as medians over `--runs` starts. The
self-check has focused the Search field by then (its tray item), as a person leaves it. With
`--mode words` the app never loads the sentence model (search by words only), which shows its
share of the app's own process. The sentence model runs in a child of the app that ends once
unused for its keep-alive (NODWYN_MODEL_KEEP_ALIVE): the app is given `--keep-alive` seconds
(5 by default, not the 300 a person gets) and the self-check waits for that child to end before
it measures, so the figures are those of the app at rest; the output says whether it ran and
ended. Linux only (Xvfb, trayer, /proc).

With `--against NAME=VALUE ...` it judges a setting instead: `--runs` runs of the app as it is
and as many with those variables added to its environment (which its window and web engine
inherit), alternated, each printed with the open window's PSS process by process and the load
average. Pages shared with another app's web engine lower PSS, so a run during which one ran
says so and is left out of the medians.

Then the worker alone, in a process of its own, following `--folders` folders of 20 session
files each (plus the agents' default folders), idle: its CPU with filesystem notifications
(watchdog) and with polling every 3 s (`Worker(watch=False)`, as before), beside each other.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from goals import goal as said_goal

TRAY = "trayer --edge top --align right --widthtype pixel --width 64 --heighttype pixel --height 32"
FIGURES = ("rss_mb", "pss_mb", "cpu_percent", "wakeups_per_min")
GOALS = {"open_pss": 250.0, "closed_rss": 120.0, "cpu": 0.2, "reopen": 1.0}


def run_app(scratch: Path, seconds: float, demo: bool, mode: str, keep_alive: float,
            added: dict[str, str] | None = None) -> dict:  # fmt: skip
    from nodwyn import settings

    report = scratch / "idle.json"
    for folder in ("claude/projects", "codex/sessions", "codex/archived_sessions"):
        (scratch / folder).mkdir(parents=True)  # the agents' folders exist: they are watched
    (scratch / "data").mkdir()
    settings.update(scratch / "data", search_mode=mode)
    env = {
        **os.environ,
        "NODWYN_DATA_DIR": str(scratch / "data"),
        "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
        "CODEX_HOME": str(scratch / "codex"),
        "QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu",
        "PYSTRAY_BACKEND": "xorg",
        "NODWYN_SELFCHECK_IDLE": str(seconds),
        "NODWYN_MODEL_KEEP_ALIVE": str(keep_alive),  # the model's child ends before measuring
        **(added or {}),
    }
    script = (
        f"{TRAY} 2>/dev/null & tray=$!; sleep 1; "
        f"{sys.executable} -m nodwyn.cli app {'--demo' if demo else ''} --self-check {report}; "
        "code=$?; kill $tray; exit $code"
    )
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "bash", "-c", script],
                          env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    if not report.exists():
        steps = report.with_suffix(".steps")  # the self-check's steps done, as it left them
        done_steps = steps.read_text() if steps.exists() else "none\n"
        sys.exit(f"the app wrote no report (exit {done.returncode}); steps done:\n{done_steps}"
                 f"it said:\n{done.stderr[-3000:]}")  # fmt: skip
    found = json.loads(report.read_text())
    if "idle" not in found:
        sys.exit(f"no idle figures: {found['errors']}")
    return found["idle"]


SESSION_LINE = (
    '{"type":"user","sessionId":"%s","uuid":"u1","timestamp":"2026-11-29T10:00:00.000Z",'
    '"cwd":"/work/p","message":{"role":"user","content":"follow me"}}\n'
)


def worker_cpu(scratch: Path, folders: int, seconds: float, watch: bool) -> dict:
    """CPU of an idle worker following `folders` folders (this process: run it alone)."""
    import resource

    os.environ["CLAUDE_CONFIG_DIR"] = str(scratch / "claude")
    os.environ["CODEX_HOME"] = str(scratch / "codex")
    from nodwyn import settings
    from nodwyn.background.feed import Status
    from nodwyn.background.worker import Worker
    from nodwyn.importers.sync import default_paths
    from nodwyn.tasks.store import Store

    for tool in ("claude", "codex"):
        for folder in default_paths(tool):
            folder.mkdir(parents=True, exist_ok=True)
    followed = []
    for number in range(folders):
        folder = scratch / "followed" / f"f{number:02d}" / "project"
        folder.mkdir(parents=True)
        for session in range(20):
            name = f"{number:02d}{session:02d}0000-0000-0000-0000-000000000000"
            (folder / f"{name}.jsonl").write_text(SESSION_LINE % name)
        followed.append(str(folder.parent))
    store = Store(scratch / "data")
    settings.update(store.root, extra_folders={"claude": followed})
    worker = Worker(store, Status(), watch=watch)
    worker.start()
    worker.wait_for_pass(0, 120)
    time.sleep(1)
    used = resource.getrusage(resource.RUSAGE_SELF)
    began = time.monotonic()
    time.sleep(seconds)
    after = resource.getrusage(resource.RUSAGE_SELF)
    spent = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)
    passes = worker.passes
    worker.stop(30)
    return {"cpu_percent": 100 * spent / (time.monotonic() - began), "passes": passes,
            "polled": len(worker.polled)}  # fmt: skip


def worker_line(folders: int, seconds: float) -> None:
    found = {}
    for watch in (True, False):
        done = subprocess.run([sys.executable, __file__, "--phase", "worker", "--folders",
                               str(folders), "--seconds", str(seconds), *(["--watch"] * watch)],
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        if done.returncode:
            sys.exit(f"the worker phase failed:\n{done.stderr[-3000:]}")
        found[watch] = json.loads(done.stdout)
    watched, polled = found[True], found[False]
    print(f"worker alone, idle, following {folders} folders + the agents' own, over "
          f"{seconds:.0f} s: notifications {watched['cpu_percent']:.3f}% of a core "
          f"({watched['passes']} passes, {watched['polled']} folders polled); polling every "
          f"3 s {polled['cpu_percent']:.3f}% ({polled['passes']} passes); "
          f"notifications {goal(watched['cpu_percent'], GOALS['cpu'], '%')}")  # fmt: skip


def goal(value: float, target: float, unit: str) -> str:
    """The goal judged on the figure as printed (0.204% shows as 0.20%, and is met)."""
    return said_goal(round(value) if abs(value) >= 100 else round(value, 2), target, unit)


def line(label: str, figures: dict) -> str:
    return (
        f"{label}: {figures['processes']} processes, RSS {figures['rss_mb']:.0f} MB, "
        f"PSS {figures['pss_mb']:.0f} MB, CPU {figures['cpu_percent']:.2f}% of a core, "
        f"{figures['wakeups_per_min']:.0f} wake-ups a minute"
    )


def each(figures: dict) -> str:
    """Process by process, largest first: `  renderer: RSS 105 MB, PSS 75 MB, CPU 0.03%`."""
    rows = sorted(figures.get("each", []), key=lambda row: -row["pss_mb"])
    said = ""
    for row in rows:
        count = f" ({row['count']:.0f})" if row.get("count", 1) > 1 else ""
        said += (
            f"\n  {row['kind']}{count}: RSS {row['rss_mb']:.0f} MB, PSS {row['pss_mb']:.0f} MB, "
            f"CPU {row['cpu_percent']:.2f}%, {row['wakeups_per_min']:.0f} wake-ups a minute"
        )
    return said


def by_kind(state: dict) -> dict[str, dict]:
    """The processes of one state summed by kind (two zygotes are one row, `count` 2)."""
    kinds: dict[str, dict] = {}
    for row in state.get("each", []):
        sums = kinds.setdefault(row["kind"], {"count": 0, **dict.fromkeys(FIGURES, 0.0)})
        sums["count"] += 1
        for name in FIGURES:
            sums[name] += row[name]
    return kinds


def median_state(states: list[dict]) -> dict:
    """The median of each figure over the runs, in all and for each kind of process."""
    found = {name: statistics.median(state[name] for state in states) for name in FIGURES}
    found["processes"] = round(statistics.median(state["processes"] for state in states))
    kinds: dict[str, list[dict]] = {}
    for state in states:
        for name, sums in by_kind(state).items():
            kinds.setdefault(name, []).append(sums)
    found["each"] = [
        {
            "kind": name,
            **{f: statistics.median(row[f] for row in rows) for f in (*FIGURES, "count")},
        }
        for name, rows in kinds.items()
    ]
    return found


def model_line(runs: list[dict], keep_alive: float) -> str:
    """What became of the sentence model's child before the figures were taken."""
    models = [run.get("model") or {} for run in runs]
    seen = sum(1 for model in models if model.get("seen"))
    ended = sum(1 for model in models if model.get("ended"))
    waited = statistics.median(model.get("waited_s", 0.0) for model in models)
    largest = max((model.get("rss_mb", 0.0) for model in models), default=0.0)
    started = statistics.median(model.get("started", 0) for model in models)
    loaded = sum(1 for model in models if model.get("onnxruntime"))
    indexing = sum(1 for model in models if model.get("index_seen"))
    tantivy = sum(1 for model in models if model.get("tantivy"))
    return (
        f"the sentence model's child (keep-alive {keep_alive:g} s, NODWYN_MODEL_KEEP_ALIVE): "
        f"started {started:g} times a run (median), running when the wait began in {seen} of "
        f"{len(runs)} runs (RSS up to {largest:.0f} MB, its or the word index's child), ended "
        f"before measuring in {ended} of {len(runs)} (median wait {waited:.1f} s); the word "
        f"index's child running when the wait began in {indexing} of {len(runs)}; onnxruntime "
        f"imported by the app's own process in {loaded} of {len(runs)}, tantivy in {tantivy}"
    )


def other_web_engines() -> list[int]:
    """Processes of another app or web engine already running (not started by this run): PSS
    shares each library page among all that map it, so they would make the app look smaller."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(b"QtWebEngineProcess" in word or b"WebKitWebProcess" in word
                   or word == b"nodwyn.desktop.window" for word in words):  # fmt: skip
                found.append(int(entry.name))
    return found


def strangers(found: set[int], stop: threading.Event) -> None:
    """Add to `found` each web engine process not of this benchmark, until `stop` is set (one of
    ours orphaned as its window ends was seen as ours before)."""
    from nodwyn.desktop.idle import family

    ours: set[int] = set()
    while not stop.wait(0.5):
        engines = other_web_engines()
        ours.update(family(os.getpid()))
        found.update(pid for pid in engines if pid not in ours)


def watched_run(args, added: dict[str, str]) -> tuple[dict, int]:
    """One run of the app with `added` in its environment: its idle figures, and how many other
    web engine processes ran meanwhile."""
    found, stop = set(), threading.Event()
    watch = threading.Thread(target=strangers, args=(found, stop), daemon=True)
    watch.start()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            run = run_app(Path(scratch), args.seconds, args.demo, args.mode, args.keep_alive,
                          added)  # fmt: skip
    finally:
        stop.set()
        watch.join()
    return run, len(found)


def against(args, added: dict[str, str]) -> None:
    """Runs of the app as it is and with `added` in its environment, alternated; each run's open
    PSS process by process, then the medians of the runs no other web engine shared pages with."""
    said = " ".join(f"{name}={value}" for name, value in added.items())
    kept: dict[str, list[dict]] = {"as it is": [], f"with {said}": []}
    for number in range(args.runs):
        for label, extra in zip(kept, ({}, added), strict=True):
            load = os.getloadavg()[0]
            run, others = watched_run(args, extra)
            shared = f"; {others} other web engine processes ran, left out" if others else ""
            print(f"run {number + 1}, {label} (load {load:.1f}{shared}): "
                  f"{line('window open', run['open'])}{each(run['open'])}")  # fmt: skip
            if not others:
                kept[label].append(run["open"])
    for label, runs in kept.items():
        if runs:
            middle = median_state(runs)
            print(f"{line(f'{label}, median of {len(runs)} runs', middle)}{each(middle)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="CPU measured over this: 60 s counts at least one answer of the "
                        "page's long poll (55 s)")  # fmt: skip
    parser.add_argument("--runs", type=int, default=1, help="app runs; medians are printed")
    parser.add_argument("--demo", action="store_true", help="the demo's tasks in the window")
    parser.add_argument("--folders", type=int, default=16, help="folders the worker follows")
    parser.add_argument("--mode", default="both", choices=("words", "meaning", "both"),
                        help="search mode: words never loads the sentence model")  # fmt: skip
    parser.add_argument("--keep-alive", type=float, default=5.0,
                        help="NODWYN_MODEL_KEEP_ALIVE of the app (s): the model's child "
                        "ends after it, and is waited for before measuring")  # fmt: skip
    parser.add_argument("--against", nargs="+", metavar="NAME=VALUE",
                        help="runs with these variables in the app's environment, alternated "
                        "with runs without them")  # fmt: skip
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--watch", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "worker":
        with tempfile.TemporaryDirectory() as scratch:
            print(json.dumps(worker_cpu(Path(scratch), args.folders, args.seconds, args.watch)))
        return
    if args.against:
        if not all("=" in given for given in args.against):
            parser.error("--against takes NAME=VALUE")
        against(args, dict(given.split("=", 1) for given in args.against))
        return
    if others := other_web_engines():
        print(f"note: {len(others)} web engine processes of another app were already running "
              f"(pids {' '.join(map(str, others[:8]))}): they share library pages with this "
              "run's, so its PSS reads lower than the app's alone")  # fmt: skip
    runs = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as scratch:
            runs.append(run_app(Path(scratch), args.seconds, args.demo, args.mode, args.keep_alive))
    opened = median_state([run["open"] for run in runs])
    closed = median_state([run["closed"] for run in runs])
    reopen = statistics.median(run["reopen_seconds"] for run in runs)
    said = f"median of {args.runs} runs, " if args.runs > 1 else ""
    said += f"search {args.mode}, "
    print(model_line(runs, args.keep_alive))
    print(f"{line(f'idle, window open ({said}{args.seconds:.0f} s)', opened)}; "
          f"PSS {goal(opened['pss_mb'], GOALS['open_pss'], 'MB')}, "
          f"CPU {goal(opened['cpu_percent'], GOALS['cpu'], '%')}{each(opened)}")  # fmt: skip
    print(f"{line(f'idle, window closed to the tray ({said}{args.seconds:.0f} s)', closed)}; "
          f"RSS in all {goal(closed['rss_mb'], GOALS['closed_rss'], 'MB')}, "
          f"CPU {goal(closed['cpu_percent'], GOALS['cpu'], '%')}{each(closed)}")  # fmt: skip
    print(f"Open after closing to the tray: window shown in {reopen:.2f} s; "
          f"{goal(reopen, GOALS['reopen'], 's')}")  # fmt: skip
    worker_line(args.folders, args.seconds)


if __name__ == "__main__":
    main()
