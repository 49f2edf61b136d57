"""Benchmark of the page in the Linux window's web engine (WebKitGTK): how long the task list
takes to draw and a task's transcript to open, and the web process's memory after, as the app
is and with settings added to the engine's environment, alternated. Printed, not timed.

    python tests/bench/bench_page_speed.py [--runs 3] [--opens 2] [--data-dir DIR]
        [--against NAME=VALUE ...]

The page is served by a real `nodwyn serve` (the demo's tasks, or `--data-dir`'s) and shown in a
WebKit2 web view made in a process of its own under a fresh Xvfb, with the environment the
app's window gives its engine (window.py, imported first). The page's own clock says each time:
the list from the page's start to its first task drawn; a transcript from the address change
that opens it (as the tray and the search do) to the last change of its events before they held
still for three polls. Each run opens the first six tasks of the list `--opens` times over (the
first open of a task runs its code cold, the next warm). Then the web process's RSS and PSS,
the view idle. Linux only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from nodwyn.desktop import idle

# The page's clock, read back through evaluate_javascript: the list's time, then each open's.
LIST = """window.__took = undefined; (function wait() {
  if (document.querySelector('[data-task-list] [data-task]')) window.__took = performance.now();
  else setTimeout(wait, 5); })(); 1"""
OPEN = """window.__took = undefined; (function () {
  var began = performance.now(), u = new URL(location.href);
  u.searchParams.set('task', %s); history.pushState(null, '', u);
  window.dispatchEvent(new PopStateEvent('popstate'));
  var last = -1, changed = began, still = 0;
  (function wait() {
    var n = document.querySelectorAll('.events [data-seq]').length;
    if (n !== last) { last = n; changed = performance.now(); still = 0; } else still++;
    if (n > 0 && still >= 3) window.__took = changed - began; else setTimeout(wait, 5);
  })(); })(); 1"""
TASKS = (
    "Array.from(document.querySelectorAll('[data-task-list] [data-task]')).map(e => e.dataset.task)"
)

VIEW = r"""
import json, os, sys
from nodwyn.desktop import window  # noqa: F401  the engine's environment, as the window's
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, Gtk, WebKit2

LIST, OPEN, TASKS, opens = json.loads(sys.argv[2])
frame = Gtk.Window()
frame.set_default_size(1100, 720)
view = WebKit2.WebView()
frame.add(view)
frame.show_all()
found = {"list_ms": None, "open_ms": [], "failed": None}

def value(script, then):
    def done(source, result):
        try:
            got = source.evaluate_javascript_finish(result)
        except GLib.Error as error:
            return quit(f"the page's script failed: {error.message}")
        then(None if got.is_undefined() or got.is_null() else json.loads(got.to_json(0)))
    view.evaluate_javascript(script, -1, None, None, None, done)

def took(then):
    value("window.__took === undefined ? null : window.__took",
          lambda got: then(got) if got is not None else GLib.timeout_add(10, lambda: took(then)))

def quit(failed=None):
    found["failed"] = failed
    print(json.dumps(found), flush=True)
    Gtk.main_quit()

def opened(tasks):
    def one(index):
        if index == len(tasks):
            return quit()
        def done(ms):
            found["open_ms"].append(ms)
            one(index + 1)
        value(OPEN % json.dumps(tasks[index]), lambda _: took(done))
    one(0)

def listed(ms):
    found["list_ms"] = ms
    value(TASKS, lambda tasks: opened(tasks[:6] * opens) if tasks else quit("no task listed"))

def loaded(_, event):
    if event == WebKit2.LoadEvent.FINISHED:
        value(LIST, lambda _: took(listed))

view.connect("load-changed", loaded)
view.load_uri(sys.argv[1])
GLib.timeout_add_seconds(240, lambda: quit("no answer within 240 s"))
Gtk.main()
sys.stdin.readline()  # the web process stays, idle, until its memory is read
"""


def serve(data: Path | None) -> tuple[subprocess.Popen, str]:
    """`nodwyn serve` on a free port, and its page's address (token included)."""
    where = ["--data-dir", str(data), "serve"] if data else ["serve", "--demo"]
    server = subprocess.Popen([sys.executable, "-m", "nodwyn.cli", *where],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    line = server.stdout.readline()
    if " at http" not in line:
        server.kill()
        sys.exit(f"nodwyn serve said {line!r}, not its address")
    return server, line.split(" at ", 1)[1].strip()


def web_memory(root: int) -> tuple[float, float] | None:
    """RSS and PSS in MB of the WebKit web process under `root` (xvfb-run's shell), else None,
    read as the app's idle figures read theirs (idle.py). PSS shares a library's pages among
    every process mapping it, so another web engine running meanwhile lowers it; RSS does not
    move with them."""
    web = [pid for pid in idle.family(root) if idle.kind(pid) == "renderer"]
    return next(iter(idle.memory(web).values()), None)


def one_run(url: str, opens: int, added: dict[str, str]) -> dict:
    """The view's figures, and the web process's RSS and PSS read while the view waits, idle."""
    spec = json.dumps([LIST, OPEN, TASKS, opens])
    with tempfile.TemporaryDirectory(prefix="nodwyn-page-") as scratch:
        env = {**os.environ, **added, "HOME": scratch, "XDG_CACHE_HOME": scratch,
               "XDG_DATA_HOME": scratch}  # fmt: skip  # no cache left by an earlier run
        view = subprocess.Popen(
            [
                "xvfb-run",
                "-a",
                "-s",
                "-screen 0 1280x800x24",
                sys.executable,
                "-c",
                VIEW,
                url,
                spec,
            ],  # fmt: skip
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        memory, line = None, view.stdout.readline()
        if line:
            memory = web_memory(view.pid)
        view.stdin.close()
        view.wait(60)
    if not line:
        sys.exit("the view wrote nothing")
    found = json.loads(line)
    if found["failed"]:
        sys.exit(found["failed"])
    rss, pss = memory or (None, None)
    return {**found, "web_rss_mb": rss, "web_pss_mb": pss}


def described(found: dict) -> str:
    opens = found["open_ms"]
    rss, pss = (("?" if mb is None else f"{mb:.0f}") for mb in (found["web_rss_mb"],
                                                              found["web_pss_mb"]))  # fmt: skip
    return (f"list drawn in {found['list_ms']:.0f} ms; a transcript opened in "
            f"{statistics.median(opens):.0f} ms (median of {len(opens)}, slowest "
            f"{max(opens):.0f} ms); web process RSS {rss} MB, PSS {pss} MB")  # fmt: skip


def middle(values) -> float | None:
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="runs of each variant, alternated")
    parser.add_argument("--opens", type=int, default=2, help="times each task is opened a run")
    parser.add_argument("--data-dir", type=Path, help="the tasks shown (default: the demo's)")
    parser.add_argument("--against", nargs="+", metavar="NAME=VALUE", default=[],
                        help="variables added to the engine's environment, compared")  # fmt: skip
    args = parser.parse_args()
    if any("=" not in pair for pair in args.against):
        parser.error("--against takes NAME=VALUE")
    if not sys.platform.startswith("linux"):
        sys.exit("the page is timed in WebKitGTK under Xvfb: Linux only")
    variants = {"as it is": {}}
    if args.against:
        variants[f"with {' '.join(args.against)}"] = dict(p.split("=", 1) for p in args.against)
    server, url = serve(args.data_dir)
    results: dict[str, list[dict]] = {name: [] for name in variants}
    try:
        for run in range(1, args.runs + 1):
            for name, added in variants.items():
                found = one_run(url, args.opens, added)
                results[name].append(found)
                load = os.getloadavg()[0]
                print(f"run {run}, {name} (load {load:.1f}): {described(found)}", flush=True)
    finally:
        server.kill()
        server.wait()
    for name, runs in results.items():
        median = {
            "list_ms": statistics.median(run["list_ms"] for run in runs),
            "open_ms": [ms for run in runs for ms in run["open_ms"]],
            **{key: middle(run[key] for run in runs) for key in ("web_rss_mb", "web_pss_mb")},
        }
        print(f"{name}, median of {len(runs)} runs: {described(median)}")


if __name__ == "__main__":
    main()
