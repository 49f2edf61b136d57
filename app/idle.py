"""What the app costs while idle: memory (RSS and PSS) and CPU of its process and every process
it started (the window's, the web engine's), with the window open and closed to the tray, and
how long Open takes to make the window again. Run by the self-check when asked
(NODWYN_SELFCHECK_IDLE, tests/bench/bench_idle.py); read from /proc, so Linux only.
"""

import os
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


def memory(pids: list[int]) -> tuple[float, float]:
    """(RSS, PSS) in MB, summed over the processes."""
    rss = pss = 0
    for pid in pids:
        try:
            for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            continue
    return rss / 1024, pss / 1024


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    used = {}
    for pid in pids:
        try:
            fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / TICKS
    return used


def state(seconds: float) -> dict:
    """Memory now and CPU over the next `seconds`, of this process and its descendants."""
    pids = family(os.getpid())
    before, began = cpu_seconds(pids), time.monotonic()
    time.sleep(seconds)
    after, spent = cpu_seconds(pids), time.monotonic() - began
    used = sum(after[pid] - before[pid] for pid in after if pid in before)
    rss, pss = memory(pids)
    return {"processes": len(pids), "rss_mb": round(rss, 1), "pss_mb": round(pss, 1),
            "cpu_percent": round(100 * used / spent, 3)}  # fmt: skip


def measure(app, seconds: float) -> dict:
    """The idle figures with the window open, then closed to the tray, then the time Open
    takes to show the window again (the window is open again at the end)."""
    window = app.window
    window.events.loaded.wait(30)
    time.sleep(2)  # the page's first requests and paints over
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
    return {"open": opened, "closed": closed, "reopen_seconds": round(reopened, 3),
            "reshown": shown, "window_alive": window.alive}  # fmt: skip
