"""Benchmark over the real corpus copied 1x to 32x: the scale table, and a new-process
`nodwyn memory search` with the app running and without it, each beside SQLite FTS5 over the
same events in the same run (issues 13 and 16).

Every copy of the corpus (../shared/corpus: claude, codex and extra/) gets session ids of its
own, so the importer makes new tasks of it and x8 is 8 times the work (a copy with the same
ids would fold into the same tasks); the run checks that the tasks grow by that factor.

For each scale: logs, events, the characters of text they hold, the first build of the word
index twice (first_build.py: on one core, judged per CPU-second, and as the app builds, with
the fold helper, judged by the wall clock; each beside its goal), the vectors after it, warm
searches in one process by words and in the default mode, and a warm FTS5 search (one
row per event, bm25, its top events grouped by turn) with nodwyn / FTS5 as the ratio (<= 1.0:
nodwyn is no slower). At --new-process-scale (default 8): whole `nodwyn memory search`
processes in the default mode without the app (in-process search, the model loaded), with
`nodwyn serve` running (one request to it), and a whole FTS5 search process (python, sqlite3,
one query, the same printing), beside a bare `python -c pass`. nodwyn's byte-code is compiled
first (`python -m compileall`), as an installed package has it.

Queries are the questions of tests/data/search_questions.tsv. Figures are wall-clock on a
shared machine: noisy; each new-process figure is printed with its CPU time too (user + system,
from the children's rusage), which other work on the cores stretches much less. Not a test: CI
runs it at a tiny size.

    python tests/bench/bench_corpus.py [--scales 1,2,4,8,16,32] [--new-process-scale 8]
        [--runs 20] [--python PATH] [--sources N] [--cold]
"""

import argparse
import json
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from goals import goal

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
QUESTIONS = ROOT / "tests" / "data" / "search_questions.tsv"
FTS5_DB = "fts5-events.db"
GOALS = {"with_app_ms": 60.0, "ratio": 1.0, "build_rate": 30_000}

_IDS = {
    "claude": re.compile(rb'"sessionId":\s*"([^"]+)"'),
    "codex": re.compile(rb'"payload":\s*\{"(?:session_id|id)":\s*"([^"]+)"'),
}

# A new process searching FTS5 as a one-row-per-event tool does: its top events grouped by turn
# and printed. The MATCH expression (the query's terms, ORed) is given to it ready.
FTS5_PROCESS = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute(
    "SELECT task, turn, seq, snippet(ev, 0, '', '', '...', 12) FROM ev WHERE ev MATCH ? "
    "ORDER BY bm25(ev) LIMIT 60", (sys.argv[2],)).fetchall()
turns = {}
for task, turn, seq, text in rows:
    turns.setdefault((task, turn), []).append((seq, text))
for (task, turn), events in list(turns.items())[:20]:
    print(task, "turn", turn)
    for seq, text in events:
        print("  seq", seq, text)
if not turns:
    print("Nothing found.")
"""


def copies_parser(scales: str, runs: int, what: str) -> argparse.ArgumentParser:
    """The options of a benchmark over copies of the corpus: --scales, --runs (of `what`),
    --sources and --python."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", default=scales, help="copies of the corpus")
    parser.add_argument("--runs", type=int, default=runs, help=f"searches of each {what}")
    parser.add_argument("--sources", type=int, help="only the first N files of the corpus")
    parser.add_argument("--python", default=sys.executable)
    return parser


def sources(limit: int | None) -> list[tuple[Path, str]]:
    found = []
    for tool in ("claude", "codex"):
        for folder in (CORPUS / tool, CORPUS / "extra" / tool):
            found += [(path, tool) for path in sorted(folder.rglob("*.jsonl"))]
    return found[:limit] if limit else found


def write_copy(target: Path, number: int, files: list[tuple[Path, str]]) -> None:
    """One copy of the corpus under target/<tool>/, every session id in it made new, and its
    file name too (a Claude file without a sessionId is named by its file)."""
    for path, tool in files:
        raw = path.read_bytes()
        for old in dict.fromkeys(_IDS[tool].findall(raw)):
            raw = raw.replace(old, str(uuid.uuid4()).encode())
        folder = target / tool / f"copy{number:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{uuid.uuid4()}.jsonl"
        (folder / name).write_bytes(raw)
        os.utime(folder / name, (1_600_000_000, 1_600_000_000))  # finished long ago


def grow(data: Path, scratch: Path, have: int, want: int, files) -> None:
    """Import copies have+1 .. want into the data directory."""
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store

    store = Store(data)
    for number in range(have + 1, want + 1):
        target = scratch / f"src{number}"
        write_copy(target, number, files)
        for tool in ("claude", "codex"):
            if (target / tool).exists():
                import_paths(store, tool, [target / tool])
        shutil.rmtree(target)


def counts(data: Path) -> tuple[int, int]:
    logs = list((data / "sessions").glob("*.jsonl"))
    events = 0
    for log in logs:
        with open(log, "rb") as handle:
            events += handle.read().count(b"\n")
    return len(logs), events


def questions(count: int) -> list[str]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    column = lines[0].split("\t").index("question")
    found = [line.split("\t")[column] for line in lines[1:] if line.strip()]
    return (found * (count // len(found) + 1))[:count]


def match_of(query: str) -> str:
    from nodwyn.memory.words import tokens

    terms = tokens.query_terms(query) or re.findall(r"\w+", query.lower())
    return " OR ".join(f'"{term}"' for term in terms)


def fill_fts5(data: Path) -> int:
    """One FTS5 row per event of every log, with the text nodwyn indexes (tool output too);
    the characters of that text."""
    from nodwyn.log import logfile, records
    from nodwyn.memory.words.documents import text_of

    (data / FTS5_DB).unlink(missing_ok=True)
    db = sqlite3.connect(data / FTS5_DB)
    db.execute("CREATE VIRTUAL TABLE ev USING fts5(body, task UNINDEXED, turn UNINDEXED, "
               "seq UNINDEXED)")  # fmt: skip
    characters = 0
    for log in sorted((data / "sessions").glob("*.jsonl")):
        rows, turn = [], 0
        for seq, (_, _, record) in enumerate(logfile.read(log), 1):
            if isinstance(record, records.Message) and record.agent is None:
                turn = seq
            text = text_of(record, True, clean=False)
            if text:
                rows.append((text, log.stem, turn, seq))
                characters += len(text)
            if len(rows) >= 5000:  # a log of a gigabyte is inserted a part at a time
                db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?)", rows)
                rows = []
        db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?)", rows)
    db.commit()
    db.execute("INSERT INTO ev(ev) VALUES ('optimize')")
    db.commit()
    db.close()
    return characters


def phase_build(data: Path, one_core: bool, cold: bool) -> dict:
    """A first build of the word index (first_build.py), and after the build as the app
    makes it every card's vectors (as the worker does), timed apart."""
    from first_build import timed
    from nodwyn import memory
    from nodwyn.tasks.store import Store

    out = timed(data, one_core, cold)
    if not one_core:
        began = time.perf_counter()
        memory.refresh(Store(data))
        out["vectors"] = time.perf_counter() - began
    return out


def phase_warm(data: Path, words: list[str]) -> dict:
    """Warm medians (ms) in one process: words, the default mode, FTS5 (query + grouping)."""
    from nodwyn import memory
    from nodwyn.tasks.store import Store

    store = Store(data)
    db = sqlite3.connect(data / FTS5_DB)

    def lite(query: str) -> dict:  # FTS5_PROCESS's query and grouping, in this process
        sql = ("SELECT task, turn, seq, snippet(ev, 0, '', '', '...', 12) FROM ev WHERE ev "
               "MATCH ? ORDER BY bm25(ev) LIMIT 60")  # fmt: skip
        turns: dict = {}
        for task, turn, seq, text in db.execute(sql, (match_of(query),)).fetchall():
            turns.setdefault((task, turn), []).append((seq, text))
        return dict(list(turns.items())[:20])

    out, mode = {}, memory.search(store, words[0]).mode
    for name, run in (("words", lambda q: memory.search(store, q, mode="words")),
                      ("both", lambda q: memory.search(store, q)), ("fts5", lite)):  # fmt: skip
        for query in words[:5]:
            run(query)
        times = []
        for query in words:
            began = time.perf_counter()
            run(query)
            times.append((time.perf_counter() - began) * 1000)
        out[name] = statistics.median(times)
    out["mode"] = mode
    return out


def child(python: str, *args: str) -> dict:
    done = subprocess.run([python, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.splitlines()[-1])


def process_ms(command: list[str], runs: int, env=None, cpu: list | None = None) -> list[float]:
    """Wall ms of each run of a whole process; its CPU ms (user + system) appended to `cpu`."""
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=env)
        times.append((time.perf_counter() - began) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the run's child, reaped
        if cpu is not None:
            cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                       * 1000)  # fmt: skip
    return times


def compiled(python: str) -> str:
    """nodwyn's byte-code written (python -m compileall), as an installed package has it."""
    code = "import nodwyn, os; print(os.path.dirname(nodwyn.__file__))"
    package = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    where = package.stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], env=env, check=True)
    return where


def nodwyn_command(python: str) -> list[str]:
    """What a person runs: the `nodwyn` script beside that Python, else `python -m nodwyn.cli`."""
    script = Path(python).parent / "nodwyn"
    return [str(script)] if script.exists() else [python, "-m", "nodwyn.cli"]


def median(values: list[float]) -> float:
    return statistics.median(values)


def interleaved(commands: dict, words: list[str]) -> dict[str, list[float]]:
    """Wall ms of one process per query for each command, taken in turn query by query, so
    that the machine's other work weighs on each peer alike; its CPU ms under "<name> cpu"
    (the other helpers' load on the shared cores stretches wall time, much less CPU time)."""
    times: dict[str, list[float]] = {}
    for name in commands:
        times[name], times[f"{name} cpu"] = [], []
    for query in words:
        for name, command in commands.items():
            times[name] += process_ms(command(query), 1, cpu=times[f"{name} cpu"])
    return times


def new_processes(data: Path, python: str, words: list[str], runs: int) -> list[str]:
    where = compiled(python)
    out = [f"new processes: byte-code compiled first (python -m compileall {where}); {runs} "
           f"queries, each peer run in turn per query; command "
           f"{' '.join(nodwyn_command(python))}"]  # fmt: skip
    search = [*nodwyn_command(python), "--data-dir", str(data), "memory", "search"]
    peers = {
        "bare": lambda q: [python, "-c", "pass"],
        "fts5": lambda q: [python, "-c", FTS5_PROCESS, str(data / FTS5_DB), match_of(q)],
        "nodwyn": lambda q: [*search, q],
        "words": lambda q: [*search, "--mode", "words", q],
    }
    # in-process, as without the app before issue 23 (else the first would start the service)
    alone = interleaved({**peers, "nodwyn": lambda q: [*search, "--no-service", q]}, words[:runs])
    serving = [*nodwyn_command(python), "--data-dir", str(data), "serve"]
    serve = subprocess.Popen(serving, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        if "nodwyn serves" not in serve.stdout.readline():
            raise SystemExit("nodwyn serve did not start")
        for query in words[:3]:  # the app's first searches load the model and the index
            process_ms([*search, query], 1)
        asked = interleaved(peers, words[:runs])
        shown = subprocess.run([*search, "--json", words[0]], capture_output=True, check=True)
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    mode = json.loads(shown.stdout)["mode"]
    for label, times in (
        ("without the app (searched in-process, model loaded)", alone),
        (f"with the app running (one request; mode {mode!r})", asked),
    ):
        ours, fts5 = median(times["nodwyn"]), median(times["fts5"])
        line = (f"new-process nodwyn memory search, default mode, {label}: median {ours:.0f} "
                f"ms, p95 {percentile(times['nodwyn'], 0.95):.0f} ms; beside it a new-process "
                f"SQLite FTS5 search (sqlite3, one query, its top turns printed) median "
                f"{fts5:.0f} ms and a bare python -c pass {median(times['bare']):.0f} ms; "
                f"nodwyn / FTS5 {ours / fts5:.2f}")  # fmt: skip
        if "with the app" in label:
            line += (f"; ratio {goal(ours / fts5, GOALS['ratio'], 'x')}; whole process "
                     f"{goal(ours, GOALS['with_app_ms'], 'ms')}")  # fmt: skip
        out.append(line)
        out.append(cpu_line("default mode", label, times, "nodwyn"))
        words_only = median(times["words"])
        out.append(f"new-process nodwyn memory search --mode words, {label.split(' (')[0]}: "
                   f"median {words_only:.0f} ms; nodwyn / FTS5 {words_only / fts5:.2f}; ratio "
                   f"{goal(words_only / fts5, GOALS['ratio'], 'x')}")  # fmt: skip
        out.append(cpu_line("--mode words", label, times, "words"))
    return out


def cpu_line(what: str, label: str, times: dict, name: str) -> str:
    """The same processes' CPU time (user + system, medians) beside FTS5's and bare Python's."""
    ours, fts5 = median(times[f"{name} cpu"]), median(times["fts5 cpu"])
    return (f"  CPU of those processes, {what}, {label.split(' (')[0]}: nodwyn median "
            f"{ours:.1f} ms, FTS5 {fts5:.1f} ms, bare python {median(times['bare cpu']):.1f} "
            f"ms; nodwyn / FTS5 {ours / fts5:.2f}")  # fmt: skip


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", default="1,2,4,8,16,32", help="copies of the corpus, rising")
    parser.add_argument("--new-process-scale", type=int, default=8)
    parser.add_argument("--runs", type=int, default=20, help="queries per figure")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs nodwyn")
    parser.add_argument("--sources", type=int, help="only the first N corpus files (smoke runs)")
    parser.add_argument("--cold", action="store_true",
                        help="drop the logs' cached pages before each build")  # fmt: skip
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--one-core", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--words", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        data = Path(args.data)
        if args.phase == "build":
            print(json.dumps(phase_build(data, args.one_core, args.cold)))
        else:
            print(json.dumps(phase_warm(data, json.loads(args.words))))
        return
    run(args)


def run(args) -> None:
    sys.path.insert(0, str(ROOT))
    scales = sorted({int(each) for each in args.scales.split(",")})
    files, words = sources(args.sources), questions(args.runs)
    print(f"corpus: {len(files)} source files; {args.runs} queries from {QUESTIONS.name}")
    print("| copies | logs | events | text | catalogue | first build, one core | events per CPU-s "
          "| first build as the app builds | events/s | vectors | warm words | warm default | "
          "warm FTS5 | words / FTS5 | default / FTS5 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    later, rows = [], []
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "data"
        for have, scale in zip([0, *scales], scales, strict=False):
            grow(data, Path(scratch), have, scale, files)
            rows.append(measured(data, scale, args, words, rows[0] if rows else None))
            if scale == args.new_process_scale:
                later = new_processes(data, args.python, words, args.runs)
    last = rows[-1]
    print("ratios: nodwyn / FTS5, medians; <= 1.0 means nodwyn is no slower")
    print(
        f"page cache: {'each build reads the logs from disk (--cold)' if args.cold else 'warm'}"
        "; the catalogue is made before each build and timed apart; vectors after it"
    )
    for row in rows:
        print(row["said"])
    if len(rows) > 1:
        print(f"warm words grew {last['words'] / rows[0]['words']:.1f}x from x{rows[0]['scale']} "
              f"to x{last['scale']} while the logs grew {last['logs'] / rows[0]['logs']:.0f}x "
              "(goal: growth with the events found, not with the number of logs)")  # fmt: skip
    for line in later:
        print(line)


def measured(data: Path, scale: int, args, words: list[str], first: dict | None) -> dict:
    """One row of the scale table, printed; the tasks checked to grow with the copies."""
    logs, events = counts(data)
    if first is not None and logs * first["scale"] != first["logs"] * scale:
        raise SystemExit(f"{scale} copies made {logs} tasks, not {scale} x {first['logs']}")
    megabytes = fill_fts5(data) / 1e6
    build = [sys.executable, "--phase", "build", "--data", str(data), *(["--cold"] * args.cold)]
    alone, app = child(*build, "--one-core"), child(*build)
    warm = child(sys.executable, "--phase", "warm", "--data", str(data),
                 "--words", json.dumps(words))  # fmt: skip
    rate, per_cpu = events / app["wall"], events / alone["cpu"]
    print(f"| x{scale} | {logs:,} | {events:,} | {megabytes:.0f} MB | {alone['catalogue']:.2f} s "
          f"| {alone['wall']:.2f} s, {alone['cpu']:.2f} s CPU | {per_cpu:,.0f} | "
          f"{app['wall']:.2f} s, {app['cpu']:.2f} s CPU | {rate:,.0f} | {app['vectors']:.1f} s "
          f"| {warm['words']:.1f} ms | {warm['both']:.1f} ms ({warm['mode']}) | "
          f"{warm['fts5']:.1f} ms | {warm['words'] / warm['fts5']:.2f} | "
          f"{warm['both'] / warm['fts5']:.2f} |", flush=True)  # fmt: skip
    said = (f"first build at x{scale}, {logs:,} logs, {events:,} events ({megabytes:.0f} MB of "
            f"text, {megabytes * 1e6 / events:,.0f} characters an event): one core, per CPU-"
            f"second (every thread, the rate on one free core) "
            f"{goal(per_cpu, GOALS['build_rate'], 'events/s', at_least=True)} "
            f"({megabytes / alone['cpu']:.1f} MB/s); as the app builds (fold helper on the other "
            f"core, {app['helped']} logs), wall "
            f"{goal(rate, GOALS['build_rate'], 'events/s', at_least=True)} "
            f"({events / app['cpu']:,.0f} per CPU-second)")  # fmt: skip
    return {"scale": scale, "logs": logs, "events": events, "words": warm["words"], "said": said}


if __name__ == "__main__":
    main()
