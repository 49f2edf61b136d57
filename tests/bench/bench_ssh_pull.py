"""Benchmark: a pull of the corpus (../shared/corpus, Claude Code and Codex) from an SSH machine
over loopback, by a real sshd (tests/sshd.py) and the system's ssh, rsync and sftp: first
whole, then with nothing changed, then after one session grew by one turn. For each: the bytes
that crossed (rsync's --stats, both ways; for sftp what the mirror grew), the grown file's size
beside them, and the time (the import included). Beside it, in the same run, a plain
`rsync -rt` (its delta transfer, what people run by hand) of the same folder after the same
growth, to show what `--append-verify` saves.

    python tests/bench/bench_ssh_pull.py [--keep DIR]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
sys.path.insert(0, str(ROOT / "tests"))

import ssh_sessions  # noqa: E402
import sshd  # noqa: E402
from conftest import LONG_AGO  # noqa: E402
from nodwyn.machines import pull, remote, ssh, transfer  # noqa: E402
from nodwyn.tasks.store import Store  # noqa: E402


def far_end(into: Path) -> dict[str, Path]:
    """A copy of the corpus's Claude Code and Codex folders, dated long ago."""
    folders = {}
    for agent in ("claude", "codex"):
        folders[agent] = into / agent
        shutil.copytree(CORPUS / agent, folders[agent], copy_function=shutil.copyfile)
        for path in [folders[agent], *folders[agent].rglob("*")]:
            os.utime(path, (LONG_AGO, LONG_AGO))
    return folders


def grow_one(folder: Path) -> tuple[Path, int]:
    """Append one turn to the largest Claude Code session; (its path, the bytes appended)."""
    path = max(folder.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    session = cwd = ""
    with open(path, "rb") as handle:
        for line in handle:
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("sessionId"):
                session, cwd = data["sessionId"], data.get("cwd", "/")
                break
    more = ssh_sessions.turn(session, cwd, 100_000, "one turn more")
    with open(path, "ab") as handle:
        handle.write(more)
    os.utime(path, (LONG_AGO + 60, LONG_AGO + 60))
    return path, len(more)


def pulls(alias: str, folders: dict[str, Path], data: Path) -> list[tuple[str, pull.Pulled]]:
    store = Store(data)
    host = ssh.add(data, alias, [f"{a}={p}" for a, p in folders.items()])
    rows = [("first, whole", pull.pull(data, store, host))]
    rows.append(("again, nothing new", pull.pull(data, store, host)))
    return rows, store, host


def plain_rsync(alias: str, folder: Path, into: Path) -> tuple[int, int, float]:
    """A plain `rsync -rt --stats` of `folder` into `into`: (received, sent, seconds)."""
    rsh = " ".join(["ssh", *remote.options(alias)])
    argv = ["rsync", "-rt", "-s", "--stats", "-e", rsh, f"{alias}:{folder}", f"{into}/"]
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"})
    seconds = time.perf_counter() - began
    done.check_returncode()
    received = transfer._number(transfer.RECEIVED, done.stdout)
    return received, transfer._number(transfer.SENT, done.stdout), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="work in this folder and leave it")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench-ssh-"))
    (work / "sshd").mkdir(parents=True, exist_ok=True)
    server = sshd.start(work / "sshd")
    os.environ[remote.CONFIG] = str(server.config)
    try:
        folders = far_end(work / "far end")
        size = sum(p.stat().st_size for f in folders.values() for p in f.rglob("*") if p.is_file())
        print(f"corpus: {size / 1e6:.2f} MB (Claude Code and Codex), loopback SSH")
        results = {
            alias: pulls(alias, folders, work / f"data-{alias}") for alias in ("plain", "norsync")
        }
        manual = work / "manual"
        manual.mkdir()
        plain_rsync("plain", folders["claude"], manual)
        grown, appended = grow_one(folders["claude"])
        print(f"grown: {grown.name}, {grown.stat().st_size:,} bytes, {appended:,} appended")
        for rows, store, host in results.values():
            rows.append(("after one turn", pull.pull(store.root, store, host)))
            for label, done in rows:
                print(f"  {done.via:5} {label:20} {done.received:>12,} B in {done.sent:>8,} B out "
                      f"{done.seconds:6.2f} s  tasks +{done.created} ~{done.extended}"
                      f"{'  ' + done.error if done.error else ''}")  # fmt: skip
        received, sent, seconds = plain_rsync("plain", folders["claude"], manual)
        print(f"  plain rsync -rt after one turn (Claude folder alone): {received:>12,} B in "
              f"{sent:>8,} B out {seconds:6.2f} s")  # fmt: skip
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
