"""Benchmark of the desktop app at rest (issue 16): memory and CPU of all its processes with
the window open and with it closed to the tray, and how long Open takes to make the window
again, beside their goals. Printed, not timed.

    python tests/bench/bench_idle.py [--seconds 10] [--demo] [--folders 16]

The real app (`nodwyn app`) runs under a fresh Xvfb with a tray (trayer), in a data directory
of its own (the demo's tasks with --demo), and measures itself through its self-check
(NODWYN_SELFCHECK_IDLE, app/idle.py): RSS and PSS summed over its process and every process
it started, CPU over the given seconds. Linux only (Xvfb, trayer, /proc).

Then the worker alone, in a process of its own, following `--folders` folders of 20 session
files each (plus the agents' default folders), idle: its CPU with filesystem notifications
(watchdog) and with polling every 3 s (`Worker(watch=False)`, as before), beside each other.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRAY = "trayer --edge top --align right --widthtype pixel --width 64 --heighttype pixel --height 32"
GOALS = {"open_pss": 300.0, "closed_rss": 120.0, "cpu": 0.2, "reopen": 1.0}


def run_app(scratch: Path, seconds: float, demo: bool) -> dict:
    report = scratch / "idle.json"
    for folder in ("claude/projects", "codex/sessions", "codex/archived_sessions"):
        (scratch / folder).mkdir(parents=True)  # the agents' folders exist: they are watched
    env = {
        **os.environ,
        "NODWYN_DATA_DIR": str(scratch / "data"),
        "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
        "CODEX_HOME": str(scratch / "codex"),
        "QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu",
        "PYSTRAY_BACKEND": "xorg",
        "NODWYN_SELFCHECK_IDLE": str(seconds),
    }
    script = (
        f"{TRAY} 2>/dev/null & tray=$!; sleep 1; "
        f"{sys.executable} -m nodwyn.cli app {'--demo' if demo else ''} --self-check {report}; "
        "code=$?; kill $tray; exit $code"
    )
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "bash", "-c", script],
                          env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    if not report.exists():
        sys.exit(f"the app wrote no report:\n{done.stderr[-3000:]}")
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
    from nodwyn.feed import Status
    from nodwyn.importers.sync import default_paths
    from nodwyn.store import Store
    from nodwyn.worker import Worker

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
          f"goal <= {GOALS['cpu']}%: {met(watched['cpu_percent'] <= GOALS['cpu'])}")  # fmt: skip


def line(label: str, figures: dict) -> str:
    return (
        f"{label}: {figures['processes']} processes, RSS {figures['rss_mb']:.0f} MB, "
        f"PSS {figures['pss_mb']:.0f} MB, CPU {figures['cpu_percent']:.2f}% of a core"
    )


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU measured over this")
    parser.add_argument("--demo", action="store_true", help="the demo's tasks in the window")
    parser.add_argument("--folders", type=int, default=16, help="folders the worker follows")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--watch", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "worker":
        with tempfile.TemporaryDirectory() as scratch:
            print(json.dumps(worker_cpu(Path(scratch), args.folders, args.seconds, args.watch)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        idle = run_app(Path(scratch), args.seconds, args.demo)
    opened, closed = idle["open"], idle["closed"]
    pss_ok, cpu_ok = opened["pss_mb"] <= GOALS["open_pss"], opened["cpu_percent"] <= GOALS["cpu"]
    print(line("idle, window open", opened)
          + f"; goals PSS <= {GOALS['open_pss']:.0f} MB: {met(pss_ok)}, "
          f"CPU <= {GOALS['cpu']}%: {met(cpu_ok)}")  # fmt: skip
    print(line("idle, window closed to the tray", closed)
          + f"; goals RSS <= {GOALS['closed_rss']:.0f} MB in all: "
          f"{met(closed['rss_mb'] <= GOALS['closed_rss'])}, CPU <= {GOALS['cpu']}%: "
          f"{met(closed['cpu_percent'] <= GOALS['cpu'])}")  # fmt: skip
    print(
        f"Open after closing to the tray: window shown in {idle['reopen_seconds']:.2f} s; "
        f"goal < {GOALS['reopen']:.0f} s: {met(idle['reopen_seconds'] < GOALS['reopen'])}"
    )
    worker_line(args.folders, args.seconds)


if __name__ == "__main__":
    main()
