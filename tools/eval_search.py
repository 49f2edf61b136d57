"""Score search by words, by meaning and both fused on the question set over ../shared/corpus.

    .venv/bin/python tools/eval_search.py [--weight 0.3] [--curve] [--static] [--json]

Imports every session of ../shared/corpus/{claude,codex} and extra/{claude,codex} (other/ is
for agents nodwyn does not import yet) into a temporary data directory, finds each question's
answer turn (the one card of that source file whose prompt holds the question's prompt
substring, so the set survives re-imports), then ranks turns for every question as each mode
does (nodwyn.memory.fusion: words by best event, meaning by cosine of the best text, both by
the weighted sum of normalised scores) and, beside them:
- rrf: reciprocal rank fusion of the same two rankings (K = 60), the fusion nodwyn had;
- fts5: SQLite FTS5 (unicode61, bm25) over one row per message (every record's text, tool
  output included), a turn ranked by its best message: the design of claude-code-viewer and
  claude-code-log.
It prints hit@5 (answer turn in the top 5) and MRR@5 (1/rank within the top 5, else 0) for all
questions and per kind (words, paraphrase, action: answered only by tool output or by what the
agent did, pick: one run among near-duplicates). --curve prints both's figures for weights 0 to
1; --static ranks meaning with the static table (tools/build_model.py trained it on corpus
turns other than the first question set's, so its figures on this set are flattered).
"""

import argparse
import bisect
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "corpus"
QUESTIONS = ROOT / "tests" / "data" / "search_questions.tsv"
FOLDERS = ("claude", "codex", "extra/claude", "extra/codex")
KINDS = ("words", "paraphrase", "action", "pick")
DEPTH = 100


def questions() -> list[dict]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"), strict=True)) for line in lines[1:] if line.strip()]


def flat(text: str) -> str:
    return " ".join(text.split())


def imported(store) -> dict[str, list[str]]:
    """Corpus file (claude/x.jsonl, extra/codex/y.jsonl) -> the tasks its import made."""
    from nodwyn.importers.sync import import_paths

    made = {}
    for folder in FOLDERS:
        tool = folder.rsplit("/", 1)[-1]
        for path in sorted((CORPUS / folder).rglob("*.jsonl")):
            report = import_paths(store, tool, [path])
            made[str(path.relative_to(CORPUS))] = (
                report.created + report.extended + report.unchanged
            )
    return made


def answers(store, made, asked: list[dict]) -> list[tuple[str, int]]:
    from nodwyn import memory

    out = []
    for question in asked:
        found = [
            (task, card.first_seq)
            for task in made[question["source"]]
            for card in memory.cards(store, task)
            if flat(question["prompt"]) in flat(card.asked)
        ]
        if len(found) != 1:
            raise SystemExit(f"{question['prompt']!r} matches {len(found)} turns, not 1")
        out.append(found[0])
    return out


def fts5_table(store) -> sqlite3.Connection:
    """One FTS5 row per record with text: (task, turn key, text)."""
    from nodwyn import memory
    from nodwyn.log import logfile
    from nodwyn.memory.documents import text_of

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE m USING fts5(task UNINDEXED, turn UNINDEXED, text)")
    for log in sorted(store.sessions.glob("*.jsonl")):
        task = log.stem
        cards = memory.cards(store, task)
        firsts = [card.first_seq for card in cards]
        rows = []
        for _, _, record in logfile.read(log):
            text = text_of(record, True, clean=False)
            if not text.strip():
                continue
            at = bisect.bisect_right(firsts, record.seq) - 1
            inside = at >= 0 and (cards[at].last_seq is None or cards[at].last_seq >= record.seq)
            rows.append((task, firsts[at] if inside else -record.seq, text))
        db.executemany("INSERT INTO m VALUES (?, ?, ?)", rows)
    return db


def fts5_ranking(db, text: str) -> list[tuple[str, int]]:
    words = [w for w in "".join(c if c.isalnum() else " " for c in text).split() if len(w) > 1]
    if not words:
        return []
    match = " OR ".join(f'"{word}"' for word in words)
    rows = db.execute("SELECT task, turn FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT 2000",
                      (match,)).fetchall()  # fmt: skip
    return list(dict.fromkeys((task, int(turn)) for task, turn in rows))[:DEPTH]


def scored(store, text: str, model) -> tuple[dict, list]:
    """The word scores by turn and the meaning ranking [(key, cosine)] for a question."""
    from nodwyn.memory import fusion
    from nodwyn.memory import index as wordindex
    from nodwyn.memory.search import hits

    state = wordindex.refresh(store)
    words = fusion.word_scores(hits(store, state, text, None, fusion.DEPTH))
    floor, _ = fusion.floors_of(model)
    meant = fusion.meaning_ranking(store, state, text, None, model, floor=floor)[0]
    return words, meant


def rankings(words: dict, meant: list, weight: float, alone: float, floor: float) -> dict:
    from nodwyn.memory import fusion

    keys = [key for key, cosine in meant if cosine >= alone]
    return {
        "words": list(words)[:DEPTH],
        "meaning": keys[:DEPTH],
        "both": [key for key, _ in fusion.weighted(words, meant, weight, alone, floor)][:DEPTH],
        "rrf": [key for key, _ in fusion.rrf([list(words), keys])][:DEPTH],
    }


def score(ranks: list[int | None], kinds: list[str], kind: str | None) -> tuple[float, float, int]:
    picked = [r for r, q in zip(ranks, kinds, strict=True) if kind in (None, q)]
    if not picked:
        return 0.0, 0.0, 0
    hit5 = sum(1 for r in picked if r is not None and r <= 5) / len(picked)
    mrr = sum(1 / r for r in picked if r is not None and r <= 5) / len(picked)
    return hit5, mrr, len(picked)


def rank_of(ranking: list, target) -> int | None:
    return ranking.index(target) + 1 if target in ranking else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weight", type=float, help="of words in both (default: search's)")
    parser.add_argument("--curve", action="store_true", help="both's figures for w = 0..1")
    parser.add_argument("--static", action="store_true", help="meaning by the static table")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from nodwyn.memory import encoder, fusion, vectors
    from nodwyn.store import Store

    weight = fusion.WEIGHT if args.weight is None else args.weight
    if args.static:
        encoder._builtin = encoder.static()
    model = encoder.builtin()
    floor, alone = fusion.floors_of(model)
    asked = questions()
    kinds = [q["kind"] for q in asked]
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder))
        made = imported(store)
        targets = answers(store, made, asked)
        vectors.refresh(store)  # every card encoded first, as the worker does, not within BUDGET
        db = fts5_table(store)
        ranks: dict[str, list[int | None]] = {m: [] for m in ("words", "meaning", "both", "rrf")}
        ranks["fts5"] = []
        kept = []
        for question, target in zip(asked, targets, strict=True):
            words, meant = scored(store, question["question"], model)
            kept.append((words, meant, target))
            for mode, ranking in rankings(words, meant, weight, alone, floor).items():
                ranks[mode].append(rank_of(ranking, target))
            ranks["fts5"].append(rank_of(fts5_ranking(db, question["question"]), target))
        turns = sum(1 for _ in db.execute("SELECT DISTINCT task, turn FROM m WHERE turn > 0"))
    table = {
        mode: {str(kind or "all"): score(found, kinds, kind) for kind in (None, *KINDS)}
        for mode, found in ranks.items()
    }
    curve = {}
    if args.curve:
        for step in range(11):
            w = step / 10
            found = [rank_of([k for k, _ in fusion.weighted(wd, mt, w, alone, floor)], t)
                     for wd, mt, t in kept]  # fmt: skip
            curve[w] = {str(kind or "all"): score(found, kinds, kind) for kind in (None, *KINDS)}
    if args.json:
        print(json.dumps({"table": table, "ranks": ranks, "curve": curve}, indent=1))
        return
    counts = ", ".join(f"{kinds.count(kind)} {kind}" for kind in KINDS)
    print(f"{len(asked)} questions ({counts}) over {len(made)} corpus files, {turns} turns; "
          f"model {model.id}, weight {weight}")  # fmt: skip
    print_table("mode", table)
    if curve:
        print("\nboth, by the weight w of words")
        print_table("w", {f"{w:.1f}": row for w, row in curve.items()})


def print_table(first: str, table: dict) -> None:
    print(f"| {first} | " + " | ".join(f"{k} hit@5 | {k} MRR@5" for k in ("all", *KINDS)) + " |")
    print("|---" * (1 + 2 * (1 + len(KINDS))) + "|")
    for name, row in table.items():
        cells = [f"{row[k][0]:.3f} | {row[k][1]:.3f}" for k in ("all", *KINDS)]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
