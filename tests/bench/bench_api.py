"""Benchmark: the console's API at many tasks: the task list, the change feed's look, a search.

Times requests to the real WSGI app in-process (no sockets, so the figures are the app's own
work): `GET /api/tasks` with a current catalogue, the feed's scan of the logs' sizes and
modification times (what every waiting page costs twice a second), `GET /api/tasks/<id>/context`
around a seq, and a warm `GET /api/search` over all tasks. Medians and p95 over `--runs`.
The machine is shared: figures are noisy.

    python tests/bench/bench_api.py [--tasks 10000] [--runs 30]
"""

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nodwyn import api
from nodwyn.log import records
from nodwyn.tasks.store import Store

TOKEN = "bench"
PROJECTS = [f"/home/ana/src/project-{n}" for n in range(40)]


def make_tasks(root: Path, count: int) -> Store:
    store = Store(root)
    for n in range(count):
        start = records.SessionStart(
            project=PROJECTS[n % len(PROJECTS)], origin=records.Origin(tool="claude-code")
        )
        with store.create(start, task=f"task-{n:06d}") as writer:
            writer.append(
                [
                    records.Message(text=f"Task {n}: fix the flaky TestPagerOrder {n % 97}"),
                    records.Reply(text="The order came from a map; it is sorted now."),
                    records.Result(call="c1", tool="Bash", output="ok github.com/ana/pager"),
                    records.TurnEnd(status="completed", duration_ms=1200),
                ]
            )
    return store


def call(app, path: str) -> bytes:
    path, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "1",
        "HTTP_HOST": "127.0.0.1:1",
        "HTTP_X_NODWYN_TOKEN": TOKEN,
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
    }
    status = []
    body = b"".join(app(environ, lambda s, h, e=None: status.append(s)))
    if not status[0].startswith("200"):
        raise SystemExit(f"{path}: {status[0]} {body[:200]!r}")
    return body


def timed(label: str, runs: int, work) -> None:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        work()
        times.append((time.perf_counter() - begin) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"{label}: median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms ({runs} runs)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        begin = time.perf_counter()
        store = make_tasks(Path(folder), args.tasks)
        print(f"made {args.tasks} tasks in {time.perf_counter() - begin:.1f} s")
        app = api.make_app(store, TOKEN)
        call(app, "/api/tasks")  # the catalogue is built once, as on a first launch
        timed(f"GET /api/tasks at {args.tasks} tasks", args.runs, lambda: call(app, "/api/tasks"))
        feed = app.feed
        timed(f"change feed scan of {args.tasks} logs", args.runs, feed.poke)
        task = "task-000007"
        call(app, f"/api/tasks/{task}/context?seq=3")
        timed(
            "GET /api/tasks/<id>/context",
            args.runs,
            lambda: call(app, f"/api/tasks/{task}/context?seq=3"),
        )
        call(app, "/api/search?q=pager+order&scope=all")  # the word index is built once
        timed(
            f"GET /api/search (all {args.tasks} tasks, warm)",
            args.runs,
            lambda: call(app, "/api/search?q=flaky+pager&scope=all"),
        )


if __name__ == "__main__":
    main()
