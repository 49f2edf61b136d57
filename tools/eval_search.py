"""Score search by words, by meaning and both fused on the question set over ../shared/corpus.

    .venv/bin/python tools/eval_search.py [--weight 0.3] [--curve] [--static] [--json]

Imports every session of ../shared/corpus into a temporary data directory: {claude,codex} and
extra/{claude,codex} each with its agent's importer, and other/ (the six other agents, their
companion files and look-alikes) as a person would name its files to `nodwyn import`: a file of
other/<folder>/ to the agent whose logs name that folder as their tool (gemini-cli, copilot-cli,
...), a file at the top of other/ to each agent in the registry's order until one reads it.
Each file of other/ is first linked into a temporary folder under its own name (the part after
the corpus's `<owner>__<repo>__` prefix), grouped by that prefix, so that the importers see it
as the agent leaves it, beside its companions (Copilot's workspace.yaml, aider's input history,
Antigravity's transcript_full.jsonl, which makes transcript.jsonl a twin passed over). Files the
importers refuse are skipped and counted in the header line. Then it finds each question's
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


def imported(store, shelf: Path) -> tuple[dict[str, list[str]], dict[str, str]]:
    """(corpus file (claude/x.jsonl, other/aider/y.md) -> the tasks its import made, corpus
    file -> why the importers refused it), `shelf` an empty folder for other/'s links."""
    from nodwyn.importers.sync import import_paths

    made, refused = {}, {}

    def kept(path: Path, tasks: list[str], why: str) -> None:
        if tasks:
            made[str(path.relative_to(CORPUS))] = tasks
        else:
            refused[str(path.relative_to(CORPUS))] = why

    for folder in FOLDERS:
        tool = folder.rsplit("/", 1)[-1]
        for path in sorted((CORPUS / folder).rglob("*.jsonl")):
            report = import_paths(store, tool, [path])
            tasks = report.created + report.extended + report.unchanged
            why = report.skipped[0].reason if report.skipped else "no session in it"
            kept(path, tasks, why)
    for path, link in linked(CORPUS / "other", shelf):
        kept(path, *import_other(store, path.relative_to(CORPUS / "other"), link))
    return made, refused


def linked(folder: Path, shelf: Path) -> list[tuple[Path, Path]]:
    """(file of `folder`, its link under `shelf`): other/copilot-cli/A__B__id__events.jsonl is
    linked as shelf/copilot-cli/A__B__id/events.jsonl, beside A__B__id__workspace.yaml's link."""
    pairs = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        group, _, name = path.name.rpartition("__")
        link = shelf / path.parent.relative_to(folder) / group / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path)
        pairs.append((path, link))
    return pairs


def import_other(store, relative: Path, link: Path) -> tuple[list[str], str]:
    """The tasks a file of other/ became, or why it was refused (`relative` to other/)."""
    from nodwyn.importers import registry
    from nodwyn.importers.sync import import_paths

    named = registry.by_origin(relative.parts[0]) if len(relative.parts) > 1 else None
    reasons = []
    for agent in [named] if named else registry.all_agents().values():
        report = import_paths(store, agent.name, [link])
        tasks = report.created + report.extended + report.unchanged
        if tasks:
            return tasks, ""
        reasons.append(f"{agent.name}: {report.skipped[0].reason}" if report.skipped else "")
    if named:
        return [], reasons[0]
    telling = [why for why in reasons if ": not " not in why]  # past "not a Codex session log"
    return [], "no agent reads it" + (f" ({telling[0]})" if telling else "")


def answers(store, made, asked: list[dict]) -> list[tuple[str, int]]:
    from nodwyn import memory

    out = []
    for question in asked:
        if question["source"] not in made:
            raise SystemExit(f"{question['source']!r} made no task (a corpus file? refused?)")
        found = [
            (task, card.first_seq)
            for task in made[question["source"]]
            for card in memory.turn_cards(store, task)
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
    from nodwyn.memory.words.documents import text_of

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE m USING fts5(task UNINDEXED, turn UNINDEXED, text)")
    for log in sorted(store.sessions.glob("*.jsonl")):
        task = log.stem
        cards = memory.turn_cards(store, task)
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
    from nodwyn.memory.words import index as wordindex
    from nodwyn.memory.words.search import hits

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
    from nodwyn.memory import fusion
    from nodwyn.memory.meaning import encoder, encoding
    from nodwyn.tasks.store import Store

    weight = fusion.WEIGHT if args.weight is None else args.weight
    if args.static:
        encoder._builtin = encoder.static()
    model = encoder.builtin()
    floor, alone = fusion.floors_of(model)
    asked = questions()
    kinds = [q["kind"] for q in asked]
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "data")
        made, refused = imported(store, Path(folder) / "other")
        targets = answers(store, made, asked)
        encoding.refresh(store)  # every card encoded first, as the worker does, not within BUDGET
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
        print(json.dumps({"table": table, "ranks": ranks, "curve": curve, "refused": refused},
                         indent=1))  # fmt: skip
        return
    counts = ", ".join(f"{kinds.count(kind)} {kind}" for kind in KINDS)
    print(f"{len(asked)} questions ({counts}) over {len(made)} corpus files, {turns} turns "
          f"({len(refused)} more files refused by the importers: companions, look-alikes, no "
          f"conversation); model {model.id}, weight {weight}")  # fmt: skip
    print_table("mode", table)
    if curve:
        print("\nboth, by the weight w of words")
        print_table("w", {f"{w:.1f}": row for w, row in curve.items()})
    print("\nrefused by the importers (as `nodwyn import` refuses them):")
    for path, why in refused.items():
        print(f"  {path}: {why}")


def print_table(first: str, table: dict) -> None:
    print(f"| {first} | " + " | ".join(f"{k} hit@5 | {k} MRR@5" for k in ("all", *KINDS)) + " |")
    print("|---" * (1 + 2 * (1 + len(KINDS))) + "|")
    for name, row in table.items():
        cells = [f"{row[k][0]:.3f} | {row[k][1]:.3f}" for k in ("all", *KINDS)]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
