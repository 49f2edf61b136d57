"""Benchmark: import throughput (MB/s of source, events/s written) on the corpus copied many times.

Every corpus file (../shared/corpus, Claude Code and Codex) is copied again and again, each copy
with a session id of its own, until the copies hold about --size MB; then `import_paths` imports
them all into a fresh data directory on one core (it is single-threaded) and the figures are
printed: first import, and the second import (every file unchanged), and redaction's own speed
over the lines the import wrote (each line through `redact()`, as the writer does). Goal:
>= 35 MB/s. Then the same for each format of issue 18 (../shared/corpus/other: Gemini CLI's
`.jsonl` and `.json`, Copilot CLI's `events.jsonl`, Antigravity's transcripts), about a quarter
of --size each, laid out as each agent lays them out: MB/s of the first import and of the second.

    python tests/bench/bench_import.py [--size 500] [--keep DIR] [--profile]
"""

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
sys.path.insert(0, str(ROOT))

_CLAUDE_ID = re.compile(rb'"sessionId":\s*"([^"]+)"')
_CODEX_ID = re.compile(rb'"payload":\s*\{"id":\s*"([^"]+)"')


def make_copies(target: Path, size: int) -> dict[str, int]:
    """Copies of the corpus in target/claude and target/codex, about `size` bytes in all."""
    sources = [(p, "claude") for p in sorted((CORPUS / "claude").glob("*.jsonl"))]
    sources += [(p, "codex") for p in sorted((CORPUS / "codex").glob("*.jsonl"))]
    data = [(p.read_bytes(), tool) for p, tool in sources]
    written = {"claude": 0, "codex": 0}
    copy = 0
    while sum(written.values()) < size:
        copy += 1
        for raw, tool in data:
            found = (_CLAUDE_ID if tool == "claude" else _CODEX_ID).search(raw)
            new = str(uuid.uuid4())
            if found:
                raw = raw.replace(found.group(1), new.encode())
            folder = target / tool / f"copy{copy:04d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{new}.jsonl").write_bytes(raw)
            os.utime(folder / f"{new}.jsonl", (1_600_000_000, 1_600_000_000))
            written[tool] += len(raw)
            if sum(written.values()) >= size:
                break
    return written


def events_in(sessions: Path) -> int:
    count = 0
    for log in sessions.glob("*.jsonl"):
        with open(log, "rb") as handle:
            count += sum(
                chunk.count(b"\n") for chunk in iter(lambda h=handle: h.read(1 << 20), b"")
            )
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=float, default=500, help="MB of source copies")
    parser.add_argument("--keep", help="make the copies here and keep them")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the import")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="nodwyn-bench-import-"))
    try:
        run(work, int(args.size * 1_000_000), args.profile)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run(work: Path, size: int, profile: bool) -> None:
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store

    written = make_copies(work / "src", size) if not (work / "src").exists() else None
    total = sum(f.stat().st_size for f in (work / "src").rglob("*.jsonl"))
    print(f"source: {total / 1e6:.1f} MB in {len(list((work / 'src').rglob('*.jsonl')))} files")
    if written:
        print(f"  claude {written['claude'] / 1e6:.1f} MB, codex {written['codex'] / 1e6:.1f} MB")
    shutil.rmtree(work / "data", ignore_errors=True)
    store = Store(work / "data")
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    started = time.perf_counter()
    cpu = time.process_time()
    created = 0
    for tool in ("claude", "codex"):
        report = import_paths(store, tool, [work / "src" / tool])
        created += len(report.created)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    events = events_in(store.sessions)
    print(f"first import: {created} tasks, {events} events in {seconds:.2f} s (cpu {cpu:.2f} s)")
    print(f"  {total / 1e6 / seconds:.1f} MB/s, {events / seconds:,.0f} events/s")
    print(f"  per cpu second: {total / 1e6 / cpu:.1f} MB/s, {events / cpu:,.0f} events/s")
    started = time.perf_counter()
    for tool in ("claude", "codex"):
        import_paths(store, tool, [work / "src" / tool])
    again = time.perf_counter() - started
    print(f"second import (nothing new): {again:.2f} s, {total / 1e6 / again:.0f} MB/s")
    redaction_speed(store.sessions)
    print("goal: >= 35 MB/s on one core; the machine is shared, so figures are noisy")
    per_format(work / "formats", max(size // 4, 1))
    other_formats(work / "other", min(size, 20_000_000))


# name, agent, corpus file, where the agent keeps a copy (with its new session id)
FORMATS = [
    ("Gemini CLI .jsonl", "gemini",
     "gemini-cli/wingorithm__Vibe-Coding-Comparison-Project__session-2026-04-25T08-46-c737eb36.jsonl",
     "tmp/p{n}/chats/session-2026-04-25T08-46-{id8}.jsonl"),
    ("Gemini CLI .json", "gemini", "gemini-cli/sharthak-sev__sat-test-app__my-session.json",
     "tmp/p{n}/chats/session-2026-05-30T11-52-{id8}.json"),
    ("Copilot CLI events.jsonl", "copilot",
     "copilot-cli/XEFF09__dotfiles__3cc3555e-5462-44f9-95de-c67b1cb220b9__events.jsonl",
     "session-state/{id}/events.jsonl"),
    ("Antigravity transcript", "antigravity", "diiviikk5__Xeus__gemini-session.jsonl",
     "brain/{id}/.system_generated/logs/transcript.jsonl"),
]  # fmt: skip
_IDS = re.compile(rb'"sessionId":\s*"([^"]+)"')


def per_format(work: Path, size: int) -> None:
    """MB/s of each later agent's format, each imported on its own into a fresh store."""
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store

    print("per format (issue 18):")
    for name, agent, source, where in FORMATS:
        raw = (CORPUS / "other" / source).read_bytes()
        found = _IDS.search(raw)
        root, total, n = work / agent / str(len(name)), 0, 0
        while total < size:
            new = str(uuid.uuid4())
            data = raw.replace(found.group(1), new.encode()) if found else raw
            path = root / where.format(n=n, id=new, id8=new[:8])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            os.utime(path, (1_600_000_000, 1_600_000_000))
            total, n = total + len(data), n + 1
        store = Store(work / f"data-{agent}-{n}")
        started, cpu = time.perf_counter(), time.process_time()
        report = import_paths(store, agent, [root])
        first, cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        import_paths(store, agent, [root])
        again = time.perf_counter() - started
        mb = total / 1e6
        print(f"  {name}: {n} files, {mb:.1f} MB, {len(report.created)} tasks; "
              f"first import {mb / first:.1f} MB/s ({mb / cpu:.1f} per cpu second), "
              f"second {mb / again:.0f} MB/s")  # fmt: skip


def redaction_speed(sessions: Path) -> None:
    """Redaction alone, over every line the import wrote, as the writer calls it."""
    from nodwyn.log.redact import redact

    lines = []
    for log in sessions.glob("*.jsonl"):
        lines.extend(log.read_text(encoding="utf-8", errors="replace").splitlines())
    size = sum(len(line.encode()) for line in lines)
    started = time.process_time()
    for line in lines:
        redact(line)
    seconds = time.process_time() - started
    print(f"redaction alone: {size / 1e6:.1f} MB of log lines in {seconds:.2f} cpu s, "
          f"{size / 1e6 / seconds:.1f} MB/s")  # fmt: skip


# -- OpenCode, Aider and Cursor (issue 18): each format's own figures -----------------------
OTHER = CORPUS / "other"
_SES = re.compile(rb"ses_[0-9A-Za-z]{20,}")
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _opencode_db(source: Path, target: Path) -> None:
    """A copy of a real opencode.db whose sessions have ids of their own."""
    import sqlite3

    shutil.copyfile(source, target)
    with sqlite3.connect(target) as db:
        for (old,) in db.execute("select id from session").fetchall():
            new = "ses_" + uuid.uuid4().hex[:24]
            db.execute("update session set id = ? where id = ?", (new, old))
            db.execute("update session set parent_id = ? where parent_id = ?", (new, old))
            for table in ("message", "part"):
                db.execute(f"update {table} set session_id = ? where session_id = ?", (new, old))
    db.close()


def _new_ids(raw: bytes, pattern: re.Pattern, make) -> bytes:
    ids = {found: make() for found in set(pattern.findall(raw))}
    return pattern.sub(lambda m: ids[m.group(0)], raw)


def _cursor_db(source: Path, target: Path) -> None:
    """A copy of a real workspace state.vscdb whose chats and composers have ids of their own."""
    import sqlite3

    shutil.copyfile(source, target)
    with sqlite3.connect(target) as db:
        for key, value in db.execute("select key, value from ItemTable").fetchall():
            if key in ("workbench.panel.aichat.view.aichat.chatdata", "composer.composerData"):
                data = value.encode() if isinstance(value, str) else value
                fresh = _new_ids(data, _UUID, lambda: str(uuid.uuid4()).encode())
                db.execute("update ItemTable set value = ? where key = ?", (fresh.decode(), key))
    db.close()


def _copy_format(name: str, target: Path, size: int) -> int:
    """Copies of one format's real files in `target` (about `size` bytes); bytes written."""
    files = {
        "opencode database": sorted((OTHER / "opencode").glob("*.db")),
        "opencode export": sorted((OTHER / "opencode").glob("*.json")),
        "aider chat history": sorted((OTHER / "aider").glob("*.md")),
        "cursor state.vscdb": [OTHER / "cursor" / "slevin48__cursor-history__state.vscdb"],
    }[name]
    written, copy = 0, 0
    while written < size:
        copy += 1
        for source in files:
            folder = target / f"copy{copy:04d}"
            folder.mkdir(parents=True, exist_ok=True)
            if name == "opencode database":
                _opencode_db(source, folder / "opencode.db")
            elif name == "cursor state.vscdb":
                _cursor_db(source, folder / "state.vscdb")
            elif name == "opencode export":
                fresh = _new_ids(
                    source.read_bytes(), _SES, lambda: b"ses_" + uuid.uuid4().hex[:24].encode()
                )
                (folder / source.name).write_bytes(fresh)
            else:
                shutil.copyfile(source, folder / ".aider.chat.history.md")
                history = source.with_name(source.name.replace("chat.history.md", "input.history"))
                if history.exists():
                    shutil.copyfile(history, folder / ".aider.input.history")
            for made in folder.iterdir():
                os.utime(made, (1_600_000_000, 1_600_000_000))
            written += source.stat().st_size
            if written >= size:
                break
    return written


def other_formats(work: Path, size: int) -> None:
    """MB/s of each format of OpenCode, Aider and Cursor: first import, then nothing new."""
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store

    for name, agent in (
        ("opencode database", "opencode"),
        ("opencode export", "opencode"),
        ("aider chat history", "aider"),
        ("cursor state.vscdb", "cursor"),
    ):
        shutil.rmtree(work, ignore_errors=True)
        total = _copy_format(name, work / "src", size)
        store = Store(work / "data")
        started = time.perf_counter()
        report = import_paths(store, agent, [work / "src"])
        first = time.perf_counter() - started
        started = time.perf_counter()
        import_paths(store, agent, [work / "src"])
        again = time.perf_counter() - started
        events = events_in(store.sessions)
        print(
            f"{name}: {total / 1e6:.1f} MB, {len(report.created)} tasks, {events} events: "
            f"first import {total / 1e6 / first:.1f} MB/s ({events / first:,.0f} events/s), "
            f"second {total / 1e6 / again:.0f} MB/s"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
