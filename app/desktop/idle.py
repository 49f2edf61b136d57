"""What the app costs while idle: memory (RSS and PSS) and CPU of its process and every process
it started (the window's, the web engine's), with the window open and closed to the tray, and
how long Open takes to make the window again. Run by the self-check when asked
(NODWYN_SELFCHECK_IDLE, tests/bench/bench_idle.py); read from /proc, so Linux only.
"""

import os
import sys
import time
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def family(root: int) -> list[int]:
    """`root` and every process descended from it."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


# WebKitGTK's helper processes, named as Qt WebEngine's are
WEBKIT = {"WebKitWebProcess": "renderer", "WebKitNetworkProcess": "network"}


def kind(pid: int) -> str:
    """What a process of the app is: the app itself, the window's Python process, or one of the
    web engine's (WebKitGTK's web and network processes; QtWebEngineProcess --type=renderer,
    gpu-process, utility, zygote, where a renderer forked by a zygote keeps the zygote's
    command line, so it is told by its parent)."""
    try:
        words = (PROC / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")
        parent = int((PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return "gone"
    if "nodwyn.desktop.window" in words or "--nodwyn-window" in words:
        return "window"
    if "nodwyn.memory.meaning.model_process" in words or "--nodwyn-model" in words:
        return "model"
    if "nodwyn.memory.index_process" in words or "--nodwyn-index" in words:
        return "index"
    found = [word[len("--type=") :] for word in words if word.startswith("--type=")]
    if not found:
        name = Path(words[0]).name
        return "app" if pid == os.getpid() else WEBKIT.get(name, name or "?")
    if found[0] == "zygote" and kind(parent) == "window":
        return "zygote"
    return "renderer" if found[0] == "zygote" else found[0]


def memory(pids: list[int]) -> dict[int, tuple[float, float]]:
    """{pid: (RSS, PSS)} in MB."""
    found = {}
    for pid in pids:
        rss = pss = 0
        try:
            for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
        except OSError:
            continue
        found[pid] = (rss / 1024, pss / 1024)
    return found


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    used = {}
    for pid in pids:
        try:
            fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / TICKS
    return used


def sleeps(pids: list[int]) -> dict[tuple[int, int], int]:
    """{(pid, thread id): times the thread went to sleep so far} (voluntary context switches:
    each is a wake-up to come, when the thread runs again)."""
    found = {}
    for pid in pids:
        try:
            threads = list((PROC / str(pid) / "task").iterdir())
        except OSError:
            continue
        for thread in threads:
            try:
                for line in (thread / "status").read_text().splitlines():
                    if line.startswith("voluntary_ctxt_switches:"):
                        found[pid, int(thread.name)] = int(line.split()[1])
            except (OSError, ValueError):
                continue
    return found


def state(seconds: float) -> dict:
    """Memory now, and CPU and wake-ups over the next `seconds`, of this process and its
    descendants, in all and process by process (`each`: kind, RSS and PSS in MB, CPU in % of
    a core, its threads' wake-ups a minute)."""
    pids = family(os.getpid())
    slept, before, began = sleeps(pids), cpu_seconds(pids), time.monotonic()
    time.sleep(seconds)
    after, spent, woke = cpu_seconds(pids), time.monotonic() - began, sleeps(pids)
    used = {pid: after[pid] - before[pid] for pid in after if pid in before}
    wakes = dict.fromkeys(pids, 0)  # of the threads there at the end (one that came and went
    for key, count in woke.items():  # in between is not counted; its CPU is)
        wakes[key[0]] += count - slept.get(key, 0)
    sizes = memory(pids)
    each = [
        {
            "kind": kind(pid),
            "rss_mb": round(sizes[pid][0], 1),
            "pss_mb": round(sizes[pid][1], 1),
            "cpu_percent": round(100 * used.get(pid, 0) / spent, 3),
            "wakeups_per_min": round(60 * wakes[pid] / spent, 1),
        }
        for pid in pids
        if pid in sizes
    ]
    return {
        "processes": len(each),
        "rss_mb": round(sum(row["rss_mb"] for row in each), 1),
        "pss_mb": round(sum(row["pss_mb"] for row in each), 1),
        "cpu_percent": round(100 * sum(used.values()) / spent, 3),
        "wakeups_per_min": round(sum(row["wakeups_per_min"] for row in each), 1),
        "each": each,
    }


def measure(app, seconds: float) -> dict:
    """The idle figures with the window open, then closed to the tray, then the time Open
    takes to show the window again (the window is open again at the end)."""
    window = app.window
    window.events.loaded.wait(30)
    time.sleep(2)  # the page's first requests and paints over
    model = model_at_rest()
    opened = state(seconds)
    window.close()
    deadline = time.monotonic() + 10
    while window.alive and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1)
    closed = state(seconds)
    began = time.monotonic()
    app.show()
    shown = window.events.shown.wait(30)
    reopened = time.monotonic() - began
    window.events.loaded.wait(30)
    return {
        "open": opened,
        "closed": closed,
        "reopen_seconds": round(reopened, 3),
        "reshown": shown,
        "window_alive": window.alive,
        "model": model,
    }


def model_at_rest(deadline: float = 300.0) -> dict:
    """Wait (up to `deadline` s) until the sentence model's child and the word index's have
    ended after their keep-alive (model_process.py, index_process.py): {"seen": whether the
    model's ran when the wait began, "index_seen" the same of the index's, the largest RSS of
    either seen in MB, "waited_s", "ended", how many model children were "started", and
    whether this process imported onnxruntime or tantivy itself}, so the figures after are
    those of the app at rest."""
    began, seen, index_seen, largest = time.monotonic(), None, None, 0.0
    while time.monotonic() - began < deadline:
        kinds = {pid: kind(pid) for pid in family(os.getpid())}
        running = [pid for pid, found in kinds.items() if found in ("model", "index")]
        seen = ("model" in kinds.values()) if seen is None else seen
        index_seen = ("index" in kinds.values()) if index_seen is None else index_seen
        if not running:
            break
        largest = max([largest, *(rss for rss, _ in memory(running).values())])
        time.sleep(0.2)
    from ..memory.meaning import encoder

    return {
        "seen": seen,
        "index_seen": index_seen,
        "rss_mb": round(largest, 1),
        "ended": not running,
        "waited_s": round(time.monotonic() - began, 1),
        "started": getattr(encoder._builtin, "starts", 0),
        "onnxruntime": "onnxruntime" in sys.modules,
        "tantivy": "tantivy" in sys.modules,
    }
