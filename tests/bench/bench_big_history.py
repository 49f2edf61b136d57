"""Benchmark of a big history, as a new user with years of sessions brings it: one Claude Code
session of hundreds of megabytes, and a history of gigabytes of logs in thousands of sessions.
Each step runs in a process of its own, and its time and peak RSS (that process's, from
`os.wait4`; a helper process it started is said apart; of the index build, on Linux, the most
anonymous memory and the most of mapped files, which tantivy's merges read) are printed,
beside SQLite FTS5 building an index of the same text in a process of its own (issue 45).

    python tests/bench/bench_big_history.py [--session-mb 300,1000] [--history-mb 1000,4000]
                                            [--keep DIR]

The big session is the real Claude Code corpus (../shared/corpus/claude and extra/claude) laid
end to end as one session until it holds the size asked for: every copy of a record gets fresh
ids (its uuid, parent, message, request and tool-call ids) and a later time, so the importer
reads it as one long session of distinct turns. The history is copies of the whole corpus
(Claude Code and Codex), each with session ids of its own (bench_corpus.write_copy), as many
as make the size asked for. Both are written to a temporary folder, never into the corpus.

Steps of the session: its import (`nodwyn import claude FILE`), then the first build of the
word index and the `.mem` files (what the first words search does), then FTS5 over the same
events. Steps of the history: the import of every copy (`nodwyn import claude` and `codex`),
then the first `nodwyn sessions --all --json`, the first `nodwyn usage --by day --json` (the
overview's figures), the first build of the index, FTS5, and `sessions --json` warm. Figures
are wall-clock on a shared machine: noisy. Not a test: CI runs it at a smoke size.
"""

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from goals import goal

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
MB = 1 << 20
GOALS = {"import_mb": 250.0, "build_mb": 400.0, "growth": 1.2, "first_s": 0.5, "warm_ms": 100}

_UUID = re.compile(rb"[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")
_IDS = re.compile(rb'"((?:msg|toolu|req|call)_[A-Za-z0-9]+)"')
_TIME = re.compile(rb'"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z"')
_SESSION = re.compile(rb'"sessionId":"[^"]*"')


# -- making the inputs -------------------------------------------------------------------------
def claude_files() -> list[list[bytes]]:
    """The lines of every Claude Code session of the corpus (sub-agents' folders left out)."""
    found = []
    for folder in (CORPUS / "claude", CORPUS / "extra" / "claude"):
        for path in sorted(folder.glob("*.jsonl")):
            lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
            if lines:
                found.append(lines)
    return found


def _when(stamp: bytes) -> dt.datetime:
    return dt.datetime.fromisoformat(stamp.decode())


def _copy_lines(lines: list[bytes], copy: int, session: bytes, clock: dt.datetime):
    """One file's lines as copy `copy`: fresh ids, times moved so its first is `clock`; the
    lines and the time of its last line."""
    stamps = [_when(m.group(1)) for line in lines if (m := _TIME.search(line))]
    shift = clock - min(stamps) if stamps else dt.timedelta(0)
    prefix = b"%08x" % copy
    out = []
    for line in lines:
        line = _UUID.sub(lambda m: prefix + m.group(1), line)
        line = _IDS.sub(lambda m: b'"%sx%d"' % (m.group(1), copy), line)
        line = _TIME.sub(
            lambda m: (
                b'"timestamp":"%sZ"'
                % (_when(m.group(1)) + shift).isoformat(timespec="milliseconds").encode()
            ),
            line,
        )
        out.append(_SESSION.sub(b'"sessionId":"' + session + b'"', line))
    last = max(stamps) + shift if stamps else clock
    return out, last


def make_session(folder: Path, megabytes: float) -> Path:
    """One Claude Code session of about `megabytes`, named by its session id as Claude names it."""
    session = str(uuid.uuid4())
    path = folder / "projects" / "-work-big" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    files, written, copy = claude_files(), 0, 0
    clock = dt.datetime(2026, 1, 5, 9, 0, 0)
    with open(path, "wb") as handle:
        while written < megabytes * MB:
            for lines in files:
                copy += 1
                out, last = _copy_lines(lines, copy, session.encode(), clock)
                data = b"\n".join(out) + b"\n"
                handle.write(data)
                written += len(data)
                clock = last + dt.timedelta(minutes=3)
                if written >= megabytes * MB:
                    break
    os.utime(path, (1_700_000_000, 1_700_000_000))  # not live: nothing held back for later
    return path


def make_history(folder: Path, megabytes: float) -> tuple[int, int]:
    """Copies of the whole corpus, session ids new in each, until `megabytes`: (copies, bytes)."""
    from bench_corpus import sources, write_copy

    files, written, copy = sources(None), 0, 0
    while written < megabytes * MB:
        copy += 1
        write_copy(folder, copy, files)
        written = sum(p.stat().st_size for p in folder.rglob("*.jsonl"))
    return copy, written


# -- steps, each in a process of its own --------------------------------------------------------
BUILD = """
import json, resource, sys, threading, time
from pathlib import Path
from nodwyn.memory.words import index
from nodwyn.tasks.store import Store
parts = {"RssAnon": 0.0, "RssFile": 0.0}
def sample():  # Linux: the most anonymous memory, and the most of mapped files (the index's)
    while True:
        try:
            with open("/proc/self/status") as status:
                for line in status:
                    key, _, value = line.partition(":")
                    if key in parts:
                        parts[key] = max(parts[key], int(value.split()[0]) / 1024)
        except OSError:
            return
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()
began = time.perf_counter()
index.refresh(Store(Path(sys.argv[1])))
helper = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": time.perf_counter() - began, "helper_mb": helper,
                  "anon_mb": parts["RssAnon"], "file_mb": parts["RssFile"]}))
"""

FTS5 = f"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
from bench_corpus import fill_fts5
began = time.perf_counter()
characters = fill_fts5(Path(sys.argv[1]))
print(json.dumps({{"seconds": time.perf_counter() - began, "characters": characters}}))
"""


def step(args: list[str], data: Path) -> dict:
    """Run one step's process; its wall time, peak RSS (MB) and the JSON its last line prints."""
    env = dict(os.environ, NODWYN_DATA_DIR=str(data), PYSTRAY_BACKEND="dummy")
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        began = time.perf_counter()
        child = subprocess.Popen(args, env=env, stdout=out_file, stderr=err_file)
        _, status, used = os.wait4(child.pid, 0)  # reaped here, so its own rusage is read
        child.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0), err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    wall = time.perf_counter() - began
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args[:5])} failed:\n{err.decode()[-3000:]}")
    said = {}
    last = out.decode().strip().splitlines()[-1:] or [""]
    if last[0].startswith("{"):
        said = json.loads(last[0])
    cpu = used.ru_utime + used.ru_stime
    return {"wall": wall, "cpu": cpu, "peak_mb": used.ru_maxrss / 1024, **said, "out": out}


def cli(*words: str) -> list[str]:
    return [sys.executable, "-m", "nodwyn.cli", *words]


def imported(data: Path, tools_paths: list[tuple[str, Path]]) -> dict:
    """The import of each (agent, folder) in its own `nodwyn import` process: summed time,
    the highest peak."""
    wall, cpu, peak = 0.0, 0.0, 0.0
    for tool, path in tools_paths:
        if path.exists():
            found = step(cli("import", tool, str(path), "--json"), data)
            wall, cpu = wall + found["wall"], cpu + found["cpu"]
            peak = max(peak, found["peak_mb"])
    return {"wall": wall, "cpu": cpu, "peak_mb": peak}


def say(label: str, found: dict, extra: str = "") -> None:
    times = f"{found['wall']:.2f} s (CPU {found['cpu']:.2f} s)"
    print(f"  {label}: {times}, peak RSS {found['peak_mb']:,.0f} MB{extra}", flush=True)


def built(data: Path, label: str) -> dict:
    found = step([sys.executable, "-c", BUILD, str(data)], data)
    helper, anon, mapped = found["helper_mb"], found["anon_mb"], found["file_mb"]
    parts = f"; at most {anon:,.0f} MB anonymous, {mapped:,.0f} MB of mapped files" if anon else ""
    say(label, found, (f" (its fold helper: {helper:,.0f} MB" if helper else " (no fold helper")
        + parts + ")")  # fmt: skip
    fts5 = step([sys.executable, "-c", FTS5, str(data)], data)
    ratio = found["wall"] / fts5["wall"]
    text = f" ({fts5['characters'] / 1e6:,.0f} M characters; nodwyn / FTS5: {ratio:.2f}x)"
    say("SQLite FTS5 building the same events' text", fts5, text)
    return found


def log_bytes(data: Path) -> int:
    return sum(p.stat().st_size for p in (data / "sessions").glob("*.jsonl"))


# -- the runs -----------------------------------------------------------------------------------
def run_session(scratch: Path, megabytes: float) -> dict:
    folder, data = scratch / f"session{megabytes:g}", scratch / f"data-session{megabytes:g}"
    began = time.perf_counter()
    path = make_session(folder, megabytes)
    size = path.stat().st_size
    lines = sum(chunk.count(b"\n") for chunk in _chunks(path))
    print(f"one Claude Code session of {size / MB:,.0f} MB ({lines:,} records), made in "
          f"{time.perf_counter() - began:.0f} s", flush=True)  # fmt: skip
    found = imported(data, [("claude", path)])
    say(
        "import",
        found,
        f" ({size / MB / found['wall']:,.0f} MB/s; log {log_bytes(data) / MB:,.0f} MB)",
    )
    build = built(data, "first index build (.mem and the word index)")
    _done(folder, data)
    return {"import": found["peak_mb"], "build": build["peak_mb"], "mb": size / MB}


KEEP = []  # --keep: the sources and data folders stay, to look at or time again


def _done(*folders: Path) -> None:
    for folder in folders if not KEEP else ():
        shutil.rmtree(folder)


def _chunks(path: Path):
    with open(path, "rb") as handle:
        while chunk := handle.read(MB * 8):
            yield chunk


def run_history(scratch: Path, megabytes: float) -> dict:
    folder, data = scratch / f"history{megabytes:g}", scratch / f"data-history{megabytes:g}"
    began = time.perf_counter()
    copies, size = make_history(folder, megabytes)
    print(f"a history of {size / MB:,.0f} MB of logs ({copies} copies of the corpus), made in "
          f"{time.perf_counter() - began:.0f} s", flush=True)  # fmt: skip
    found = imported(data, [("claude", folder / "claude"), ("codex", folder / "codex")])
    tasks = len(list((data / "sessions").glob("*.jsonl")))
    say(f"import ({tasks:,} tasks)", found, f" ({size / MB / found['wall']:,.0f} MB/s)")
    first = {}
    for name, words in (("sessions --all --json", ("sessions", "--all", "--json")),
                        ("usage --by day --json", ("usage", "--by", "day", "--json"))):  # fmt: skip
        first[name] = step(cli(*words), data)
        say(f"first `nodwyn {name}` after it", first[name],
            f"; {goal(first[name]['wall'], GOALS['first_s'], 's')}")  # fmt: skip
    build = built(data, "first index build (.mem and the word index)")
    warm = [step(cli("sessions", "--json"), data)["wall"] * 1000 for _ in range(3)]
    warm.sort()
    print(
        f"  `nodwyn sessions --json` warm at {tasks:,} tasks: median {warm[1]:.0f} ms", flush=True
    )
    _done(folder, data)
    return {"build": build["peak_mb"], "mb": size / MB, "import": found["peak_mb"]}


def growth(label: str, runs: list[dict], key: str) -> None:
    if len(runs) < 2:
        return
    small, big = runs[0], runs[-1]
    ratio = big[key] / small[key]
    scale = f"from {small['mb']:,.0f} MB to {big['mb']:,.0f} MB"
    peaks = f"{small[key]:,.0f} -> {big[key]:,.0f} MB"
    print(f"{label} {scale}: {peaks}; {goal(ratio, GOALS['growth'], 'x')}", flush=True)


def sizes(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--session-mb", default="300,1000", help="sizes of the one session")
    parser.add_argument("--history-mb", default="1000,4000", help="sizes of the history")
    parser.add_argument("--keep", help="work in this folder, its inputs and data kept")
    args = parser.parse_args()
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="big-history-"))
    scratch.mkdir(parents=True, exist_ok=True)
    KEEP.extend([args.keep] if args.keep else [])
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    try:
        sessions = [run_session(scratch, mb) for mb in sizes(args.session_mb)]
        if sessions:
            print(f"import of the {sessions[-1]['mb']:,.0f} MB session, peak RSS: "
                  f"{goal(sessions[-1]['import'], GOALS['import_mb'], 'MB')}")  # fmt: skip
        growth("import peak RSS", sessions, "import")
        histories = [run_history(scratch, mb) for mb in sizes(args.history_mb)]
        if histories:
            print(f"first index build over {histories[-1]['mb']:,.0f} MB of logs, peak RSS: "
                  f"{goal(histories[-1]['build'], GOALS['build_mb'], 'MB')}")  # fmt: skip
        growth("first index build's peak RSS", histories, "build")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
