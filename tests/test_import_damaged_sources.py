"""Bad input, for OpenCode, Aider and Cursor: sources damaged at random (a seeded generator, so a
failure can be replayed) never break an import. Each comes out as tasks whose logs read back
whole, or is refused with a reason; nothing raises, and a refused source makes no task."""

import json
import random
import sqlite3
from pathlib import Path

import pytest
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.tasks.store import Store
from test_import_aider import history
from test_import_cursor import conversation as cursor_chat
from test_import_cursor import user_dir
from test_import_opencode import SESSION, write_db
from test_import_opencode import conversation as opencode_chat

ODD = [None, 0, -1, 1.5, True, "", "x", [], {}, [1, "a"], {"a": None}, "9" * 40]
SEEDS = range(40)


def scrambled(value, rng: random.Random, rate: float = 0.15):
    """The value with some of its parts replaced by values of another type, or dropped."""
    if rng.random() < rate:
        return rng.choice(ODD)
    if isinstance(value, dict):
        return {k: scrambled(v, rng, rate) for k, v in value.items() if rng.random() > rate / 3}
    if isinstance(value, list):
        return [scrambled(v, rng, rate) for v in value if rng.random() > rate / 3]
    return value


def logs_read_whole(store: Store) -> int:
    """Every log the import wrote reads back with no damaged line; how many there are."""
    logs = sorted(store.root.glob("sessions/*.jsonl"))
    for log in logs:
        with open(log, "rb") as handle:
            lines = handle.read().split(b"\n")[:-1]
        assert len(list(logfile.read(log))) == len(lines), log
    return len(logs)


def check(store: Store, agent: str, path: Path) -> None:
    report = import_paths(store, agent, [path])  # raises nothing
    for skipped in report.skipped:
        assert skipped.reason and "\n" not in skipped.reason
    assert logs_read_whole(store) == len(report.created)
    again = import_paths(store, agent, [path])
    assert not again.created and not again.extended


@pytest.mark.parametrize("seed", SEEDS)
def test_an_opencode_export_with_odd_values_imports_or_is_refused(store_dir, tmp_path, seed):
    rng = random.Random(seed)
    export = {
        "info": {
            "id": SESSION,
            "directory": "/home/ana/pager",
            "title": "Pager",
            "version": "1.17.0",
            "time": {"created": 1, "updated": 2},
        },
        "messages": [{"info": info, "parts": parts} for info, parts in opencode_chat()],
    }
    damaged = scrambled(export, rng)
    if isinstance(damaged, dict) and isinstance(damaged.get("info"), dict):
        damaged["info"]["id"] = SESSION  # keep it an export now and then
    path = tmp_path / "opencode-session.json"
    path.write_text(json.dumps(damaged))
    check(store_dir, "opencode", path)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_opencode_database_with_odd_rows_imports_or_is_refused(store_dir, tmp_path, seed):
    rng = random.Random(seed)
    db = write_db(tmp_path / "opencode.db", {SESSION: opencode_chat()}, wal=False)
    with sqlite3.connect(db) as made:
        for table in ("message", "part"):
            for key, data in made.execute(f"select id, data from {table}").fetchall():
                odd = json.dumps(scrambled(json.loads(data), rng)) if rng.random() > 0.1 else "["
                made.execute(f"update {table} set data = ? where id = ?", (odd, key))
        if seed % 3 == 0:
            made.execute(
                "update session set title = ?, time_created = ?", (rng.choice(ODD[:3]), "x")
            )
    made.close()
    if seed % 4 == 0:  # a database cut short, as a copy taken mid-write is
        db.write_bytes(db.read_bytes()[: rng.randrange(100, db.stat().st_size)])
    check(store_dir, "opencode", db)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_aider_history_cut_doubled_and_garbled_imports_or_is_refused(store_dir, tmp_path, seed):
    rng = random.Random(seed)
    lines = history().split("\n")
    for _ in range(rng.randrange(1, 12)):
        at = rng.randrange(len(lines))
        action = rng.choice(["drop", "double", "garble", "cut", "binary"])
        if action == "drop":
            del lines[at]
        elif action == "double":
            lines.insert(at, lines[at])
        elif action == "garble":
            lines[at] = rng.choice(
                [
                    "####",
                    ">",
                    "> Tokens: k sent, M received.",
                    "#### /",
                    "> Applied edit to ",
                    "<<<<<<< SEARCH",
                    "=======",
                    "# aider chat started at 2026-13-45 99:99:99",
                    "\r",
                    "```",
                ]
            )
        elif action == "cut":
            lines[at] = lines[at][: rng.randrange(len(lines[at]) + 1)]
        else:
            lines[at] = "\udcff\x00\x07" + lines[at]
    folder = tmp_path / "pager"
    folder.mkdir()
    path = folder / ".aider.chat.history.md"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
    (folder / ".aider.input.history").write_text(
        rng.choice(["", "# 2026-05-01 10:00:00\n+x\n", "+only\n# bad"])
    )
    check(store_dir, "aider", path)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cursor_database_with_odd_values_imports_or_is_refused(store_dir, tmp_path, seed):
    rng = random.Random(seed)
    user = user_dir(tmp_path, cursor_chat())
    db = user / "globalStorage" / "state.vscdb"
    with sqlite3.connect(db) as made:
        for key, value in made.execute("select key, value from cursorDiskKV").fetchall():
            odd = scrambled(json.loads(value), rng)
            text = json.dumps(odd) if rng.random() > 0.1 else "{not json"
            made.execute("update cursorDiskKV set value = ? where key = ?", (text, key))
    made.close()
    if seed % 5 == 0:
        db.write_bytes(db.read_bytes()[: rng.randrange(100, db.stat().st_size)])
    check(store_dir, "cursor", db)


@pytest.fixture
def store_dir() -> Store:
    return Store()
