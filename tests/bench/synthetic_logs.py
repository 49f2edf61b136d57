"""Logs shaped like ADR 0051's corpus for the benchmarks (bench_memory, bench_build,
bench_meaning): turns of a message, one to five replies with a shell call and its result, and
a final reply, their texts cut at random from the real corpus (../shared/corpus, imported with
nodwyn's own importers) so the words are realistic; seeded, so a size always makes the same
logs.
"""

import random
import re
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
PER_LOG = 226  # events per log, as in ADR 0051's corpus (17,616 / 78)


def pool_of_texts() -> dict[str, list[str]]:
    """Texts of the real corpus by kind, taken from its import into a scratch data dir."""
    from nodwyn.importers.sync import import_paths
    from nodwyn.log import logfile
    from nodwyn.memory.words.index import text_of
    from nodwyn.tasks.store import Store

    with tempfile.TemporaryDirectory() as scratch:
        store = Store(Path(scratch) / "data")
        import_paths(store, "claude", [CORPUS / "claude"])
        import_paths(store, "codex", [CORPUS / "codex"])
        pool: dict[str, list[str]] = {"message": [], "reply": [], "result": []}
        for log in store.sessions.glob("*.jsonl"):
            for _, _, record in logfile.read(log):
                kind = type(record).__name__.lower()
                text = text_of(record)
                if kind in pool and len(text) > 20:
                    pool[kind].append(text)
    return pool


def piece(rng: random.Random, texts: list[str], longest: int) -> str:
    text = rng.choice(texts)
    start = rng.randrange(max(1, len(text) - 40))
    return text[start : start + rng.randint(40, longest)]


def synthetic_turn(rng: random.Random, pool: dict, number: int) -> list:
    """message, 1-5 (reply with a call, result) pairs, a final reply, turn.end."""
    from nodwyn.log import records as r

    items = [r.Message(text=piece(rng, pool["message"], 1200))]
    for step in range(rng.randint(1, 5)):
        call = f"c{number}-{step}"
        command = " ".join(piece(rng, pool["reply"], 80).split()[:6])
        items.append(
            r.Reply(text=piece(rng, pool["reply"], 1000),
                    calls=[r.Call(id=call, tool="Bash", input={"command": command})])
        )  # fmt: skip
        items.append(r.Result(call=call, tool="Bash", output=piece(rng, pool["result"], 3000)))
    items.append(r.Reply(text=piece(rng, pool["reply"], 1500)))
    items.append(r.TurnEnd(status="completed", duration_ms=rng.randint(500, 90_000)))
    return items


def make_corpus(data: Path, size: int, pool: dict, seed: int = 42) -> tuple[int, int, int]:
    """Logs holding about `size` events in all; returns (logs, events, bytes)."""
    from nodwyn.log import records as r
    from nodwyn.tasks.store import Store

    rng = random.Random(seed)
    store = Store(data)
    logs = max(1, round(size / PER_LOG))
    events = 0
    for number in range(logs):
        want = size * (number + 1) // logs - events
        start = r.SessionStart(
            project=f"/work/project{number % 40}", origin=r.Origin(tool="nodwyn")
        )
        with store.create(start, f"L{number:05d}") as writer:
            written = 1
            turn = 0
            while written < want:
                items = synthetic_turn(rng, pool, turn)[: want - written]
                writer.append(items)
                written += len(items)
                turn += 1
        events += written
    total = sum(log.stat().st_size for log in store.sessions.glob("*.jsonl"))
    return logs, events, total


def queries(pool: dict, count: int, seed: int = 7) -> list[str]:
    """1 to 4 words of 4 letters or more, drawn from one text of the corpus each."""
    rng = random.Random(seed)
    texts = pool["message"] + pool["reply"] + pool["result"]
    out = []
    while len(out) < count:
        found = re.findall(r"[A-Za-z]{4,}", rng.choice(texts))
        if found:
            out.append(" ".join(rng.sample(found, min(len(found), rng.randint(1, 4)))))
    return out


def grow_log(store, pool: dict, rng: random.Random, megabytes: int) -> None:
    from nodwyn.log import records as r

    start = r.SessionStart(project="/work/big", origin=r.Origin(tool="nodwyn"))
    with store.create(start, "BIG") as writer:
        turn = 0
        while writer.size < megabytes * 2**20:
            writer.append(synthetic_turn(rng, pool, turn))
            turn += 1
