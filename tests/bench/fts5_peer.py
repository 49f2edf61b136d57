"""SQLite FTS5 as the peer of nodwyn's word index (bench_memory.py): one row per event, with
the keys nodwyn's index stores (task, seq, turn, offsets, heading) and the text it indexes,
searched with `bm25()` over an OR of the query's terms. Its hits are nodwyn's own Hit tuples, so
the benchmark can give both engines the same grouping, cards and snippets.
"""

import re
import sqlite3
import time
from pathlib import Path

DB = "fts5-events.db"  # in the benchmark's data folder, kept with --keep


def fill(data: Path) -> float | None:
    """Make the FTS5 table (None: kept from an earlier run). Its rows are the events of
    nodwyn's index with the same stored keys (task, seq, turn, offsets, heading) and the text
    nodwyn indexes (read from the log at the event's offset). Returns seconds to insert and
    optimize."""
    import tantivy
    from nodwyn.log import records
    from nodwyn.memory.words import index as wordindex

    if (data / DB).exists():
        return None
    state = wordindex.load_state(data)
    searcher = wordindex.open_index(data, state).searcher()
    found = searcher.search(tantivy.Query.all_query(), max(1, searcher.num_docs)).hits
    by_task: dict[str, list] = {}
    for _, address in found:
        key = searcher.doc(address).to_dict()
        by_task.setdefault(key["task"][0], []).append(key)
    rows = []
    for task, events in sorted(by_task.items()):
        with open(data / "sessions" / f"{task}.jsonl", "rb") as handle:
            for key in sorted(events, key=lambda key: key["offset"][0]):
                handle.seek(key["offset"][0])
                record = records.decode(handle.readline().rstrip(b"\n"))
                text = wordindex.text_of(record, state.tool_output, clean=False)
                rows.append((text, task, key["seq"][0], key["turn"][0], key["turn_at"][0],
                             key["offset"][0], key["heading"][0]))  # fmt: skip
    began = time.perf_counter()
    db = sqlite3.connect(data / DB)
    db.execute("CREATE VIRTUAL TABLE ev USING fts5(body, task UNINDEXED, seq UNINDEXED, turn "
               "UNINDEXED, turn_at UNINDEXED, offset UNINDEXED, heading UNINDEXED)")  # fmt: skip
    db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.execute("INSERT INTO ev(ev) VALUES ('optimize')")
    db.commit()
    db.close()
    return time.perf_counter() - began


def lookup(data: Path, hit):
    """The FTS5 search of a query: its top 20 events as `hit` tuples (search.Hit)."""
    from nodwyn.memory.words import tokens as wordsmod

    db = sqlite3.connect(data / DB)
    sql = ("SELECT bm25(ev), task, seq, turn, turn_at, offset, heading FROM ev "
           "WHERE ev MATCH ? ORDER BY bm25(ev) LIMIT 20")  # fmt: skip

    def search(query: str) -> list:
        terms = [w for w in re.findall(r"\w+", query.lower()) if w not in wordsmod.STOP]
        if not terms:
            return []
        rows = db.execute(sql, (" OR ".join(f'"{term}"' for term in terms),)).fetchall()
        return [hit(-score, task, seq, turn, offset, heading, turn_at)
                for score, task, seq, turn, turn_at, offset, heading in rows]  # fmt: skip

    return search
