"""Benchmark: how long a second machine's tasks take to appear through a shared folder.

One data directory (the laptop) with `--tasks` tasks publishes into a shared folder; a second
(the desk) reads it: the time of each step, the bytes written into the folder beside the logs'
own size, then a pass with nothing new, then one task grown by one turn. Beside them, in the
same run, `rsync -a` copying the same logs between two folders (what a sync engine or a person's
own script does at the least: no parsing, no redaction check, no index), and the desk's first
listing. The engine's own transfer (Syncthing's, Dropbox's) is not in these figures: the
folder is one local folder, so what is timed is nodwyn's own work on each side.

    python tests/bench/bench_machines.py [--tasks 1000]
"""

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from nodwyn import machines
from nodwyn.log import records
from nodwyn.machines import exchange, share
from nodwyn.tasks.store import Store


def machine(root: Path, folder: Path, name: str) -> Store:
    store = Store(root)
    machines.rename(root, name)
    share.choose(root, folder)
    return store


def fill(store: Store, count: int) -> None:
    for n in range(count):
        start = records.SessionStart(
            project=f"/home/ana/src/project-{n % 40}", origin=records.Origin(tool="claude-code")
        )
        with store.create(start, task=f"cc-bench-{n:06d}") as writer:
            for turn in range(3):
                writer.append(
                    [
                        records.Message(text=f"Task {n} turn {turn}: fix the flaky TestPagerOrder"),
                        records.Reply(text="The order came from a map; it is sorted now. " * 8),
                        records.Result(
                            call="c1", tool="Bash", output="ok github.com/ana/pager\n" * 20
                        ),
                        records.TurnEnd(status="completed", duration_ms=1200),
                    ]
                )


def timed(step) -> float:
    began = time.perf_counter()
    step()
    return time.perf_counter() - began


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folder = base / "Sync"
        laptop = machine(base / "laptop", folder, "laptop")
        desk = machine(base / "desk", folder, "desk")
        fill(laptop, args.tasks)
        logs = folder_bytes(laptop.sessions)
        laptop.list()
        published = timed(lambda: exchange.sync(laptop))
        appeared = timed(lambda: exchange.sync(desk))
        listed = timed(lambda: desk.list(archived=None))
        assert len(desk.list(archived=None)) == args.tasks
        idle = timed(lambda: (exchange.sync(laptop), exchange.sync(desk)))
        grown = f"cc-bench-{args.tasks // 2:06d}"
        with laptop.writer(grown) as writer:
            writer.append([records.Message(text="One more turn"), records.Reply(text="Done.")])
        one_turn = timed(lambda: (exchange.sync(laptop), exchange.sync(desk)))
        assert desk.get(grown).turns == 4
        copied = base / "copied"
        rsync = shutil.which("rsync")
        command = [rsync, "-a", f"{laptop.sessions}/", f"{copied}/"] if rsync else None
        baseline = timed(
            lambda: (
                subprocess.run(command, check=True)
                if command
                else shutil.copytree(laptop.sessions, copied)
            )
        )
        print(f"tasks: {args.tasks:,} ({logs / 1e6:.1f} MB of logs)")
        print(f"publish on the first machine: {published:.2f} s")
        print(f"read on the second machine (the tasks appear): {appeared:.2f} s")
        print(f"the second machine's first list after: {listed:.2f} s")
        print(f"bytes in the shared folder: {folder_bytes(folder) / 1e6:.1f} MB")
        print(f"a pass on both with nothing new: {idle:.3f} s")
        print(f"one task grown by one turn, publish and read: {one_turn:.3f} s")
        print(f"{'rsync -a' if rsync else 'a plain copy'} of the same logs: {baseline:.2f} s")


if __name__ == "__main__":
    main()
