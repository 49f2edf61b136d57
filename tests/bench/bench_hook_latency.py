"""Benchmark: an agent's hook, from its start to the task's row changing in the list.

The hook command nodwyn installs (`python -m nodwyn.live.hook claude`) is run as Claude Code
runs it (a new process, the payload on stdin) against a `nodwyn serve` on 127.0.0.1, `--runs`
times, a permission asked and its answer in turn. Each time is from the hook's start until a
client waiting on the change feed, as the page does, has been told and reads the row's new
state in `GET /api/tasks`. Also the hook's own time, from its start to its exit, with the app
up (handed over loopback) and down (appended to the spool), beside a bare `python -c pass`,
the floor any Python hook stands on. Median and worst of each. The machine is shared: figures
are noisy.

    python tests/bench/bench_hook_latency.py [--runs 100]
"""

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from goals import goal

SESSION = "5f0c1d2e-7a61-4e0b-9d1a-0000000000b1"
TASK = "cc-" + SESSION


def claude_session(folder: Path) -> Path:
    """A short Claude Code session file to import: the task the hooks speak of."""
    line = {"parentUuid": None, "isSidechain": False, "userType": "external",
            "cwd": "/home/ana/pager", "sessionId": SESSION, "version": "2.1.9", "type": "user",
            "uuid": "u1", "timestamp": "2026-05-01T10:00:01.000Z",
            "message": {"role": "user", "content": "Clean the build"}}  # fmt: skip
    path = folder / f"{SESSION}.jsonl"
    path.write_text(json.dumps(line) + "\n")
    return path


def payload(asking: bool) -> bytes:
    base = {"session_id": SESSION, "cwd": "/home/ana/pager", "transcript_path": "/x.jsonl"}
    if asking:
        base |= {"hook_event_name": "PermissionRequest", "tool_name": "Bash",
                 "tool_input": {"command": "rm -rf build"}}  # fmt: skip
    else:
        base |= {"hook_event_name": "PostToolUse", "tool_name": "Bash"}
    return json.dumps(base).encode()


class Client:
    """What the page does: wait on the change feed, then read the list."""

    def __init__(self, url: str):
        self.base, self.token = url.split("/?token=")
        self.version = self.get("/api/changes?since=0&wait=0")["version"]

    def get(self, path: str):
        request = urllib.request.Request(self.base + path, headers={"X-Nodwyn-Token": self.token})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def state(self) -> str:
        rows = self.get("/api/tasks")["tasks"]
        return next(row["state"] for row in rows if row["id"] == TASK)

    def until(self, state: str, deadline: float) -> None:
        while time.monotonic() < deadline:
            changes = self.get(f"/api/changes?since={self.version}&wait=10")
            self.version = changes["version"]
            if TASK in changes["tasks"] and self.state() == state:
                return
        raise SystemExit(f"the row never read {state!r}")


def hook(command: list[str], data: bytes) -> float:
    began = time.perf_counter()
    subprocess.run(command, input=data, check=True)
    return time.perf_counter() - began


def said(name: str, times: list[float], target_ms: float) -> None:
    ms = sorted(t * 1000 for t in times)
    print(f"{name}: median {statistics.median(ms):.1f} ms, worst {ms[-1]:.1f} ms "
          f"({len(ms)} runs); {goal(statistics.median(ms), target_ms, 'ms')}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    runs = parser.parse_args().runs
    work = Path(tempfile.mkdtemp(prefix="nodwyn-bench-hook-"))
    try:
        data = work / "data"
        cli = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data)]
        subprocess.run([*cli, "import", "claude", str(claude_session(work))], check=True,
                       capture_output=True)  # fmt: skip
        command = [sys.executable, "-m", "nodwyn.live.hook", "claude", "--data-dir", str(data)]
        floor = [hook([sys.executable, "-c", "pass"], b"") for _ in range(runs)]
        down = [hook(command, payload(n % 2 == 0)) for n in range(runs)]
        (data / "live-spool.jsonl").unlink()
        serve = subprocess.Popen([*cli, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
        try:
            url = re.search(r"http://\S+", serve.stdout.readline()).group(0)
            client = Client(url)
            up, rows = [], []
            for n in range(runs):
                asking = n % 2 == 0
                began = time.perf_counter()
                up.append(hook(command, payload(asking)))
                client.until("needs an answer" if asking else "running", time.monotonic() + 30)
                rows.append(time.perf_counter() - began)
        finally:
            serve.terminate()
            serve.wait(timeout=30)
        said("python -c pass (the floor)", floor, 100)
        said("hook, app down (spooled)", down, 100)
        said("hook, app up (loopback)", up, 100)
        said("hook start to row change", rows, 1000)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
