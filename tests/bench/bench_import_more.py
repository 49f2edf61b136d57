"""Benchmark: import throughput of Pi, Qwen Code and Crush (ADR 0053), beside a plain read.

Each real file of ../shared/corpus/more (Pi's session, Qwen Code's chats, Crush's database with
its WAL) is copied again and again, each copy with session ids of its own and laid out where
the agent keeps it, until the copies hold about --size MB per agent; then `import_paths`
imports them into a fresh data directory: MB/s of the first import and of the second (every
source unchanged), and, in the same run over the same copies, a plain read that only parses
them (each JSON line decoded with the standard library; each Crush database's messages
selected and their parts decoded), the floor any importer stands on.

    python tests/bench/bench_import_more.py [--size 20]
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MORE = ROOT.parent / "shared" / "corpus" / "more"
sys.path.insert(0, str(ROOT))
OLD = 1_600_000_000
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _fresh(raw: bytes) -> bytes:
    ids = {found: str(uuid.uuid4()).encode() for found in set(_UUID.findall(raw))}
    return _UUID.sub(lambda m: ids[m.group(0)], raw)


def _lines(target: Path, sources: list[Path], where: str, size: int) -> int:
    written, n = 0, 0
    while written < size:
        for source in sources:
            raw = _fresh(source.read_bytes())
            path = target / where.format(n=n, id=uuid.uuid4())
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(raw)
            os.utime(path, (OLD, OLD))
            written, n = written + len(raw), n + 1
    return written


def _databases(target: Path, size: int) -> int:
    source = MORE / "crush" / "e2chat__calcman__crush.db"
    written, n = 0, 0
    while written < size:
        folder = target / f"p{n}" / ".crush"
        folder.mkdir(parents=True)
        for suffix in ("", "-wal", "-shm"):
            shutil.copyfile(f"{source}{suffix}", folder / f"crush.db{suffix}")
        with sqlite3.connect(folder / "crush.db") as db:  # fresh ids: the WAL folded in here
            for (old,) in db.execute("select id from sessions").fetchall():
                new = str(uuid.uuid4())
                db.execute("update sessions set id = ? where id = ?", (new, old))
                db.execute("update messages set session_id = ? where session_id = ?", (new, old))
        db.close()
        for made in folder.iterdir():
            os.utime(made, (OLD, OLD))
        written += sum(p.stat().st_size for p in folder.iterdir())
        n += 1
    return written


def _plain(agent: str, root: Path) -> float:
    started = time.perf_counter()
    if agent == "crush":
        for path in root.rglob("crush.db"):
            db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
            for (parts,) in db.execute("select parts from messages"):
                json.loads(parts)
            db.close()
    else:
        for path in root.rglob("*.jsonl"):
            with open(path, "rb") as handle:
                for line in handle:
                    json.loads(line)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=20, help="MB of copies per agent")
    size = int(parser.parse_args().size * 1e6)
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        made = {
            "pi": _lines(work / "pi", [MORE / "pi" / "marcpadz__dexter-v3__pi-session.jsonl"],
                         "--p{n}--/2026_{id}.jsonl", size),
            "qwen": _lines(work / "qwen", sorted((MORE / "qwen-code").glob("*.jsonl")),
                           "p{n}/chats/{id}.jsonl", size),
            "crush": _databases(work / "crush", size),
        }  # fmt: skip
        for agent, total in made.items():
            store = Store(work / f"data-{agent}")
            started = time.perf_counter()
            report = import_paths(store, agent, [work / agent])
            first = time.perf_counter() - started
            started = time.perf_counter()
            import_paths(store, agent, [work / agent])
            again = time.perf_counter() - started
            plain = _plain(agent, work / agent)
            mb = total / 1e6
            print(f"{agent}: {mb:.1f} MB, {len(report.created)} tasks: first import "
                  f"{mb / first:.1f} MB/s, second {mb / again:.0f} MB/s; plain read "
                  f"{mb / plain:.1f} MB/s")  # fmt: skip


if __name__ == "__main__":
    main()
