"""Score search by words, by meaning and both fused on the question set over ../shared/corpus.

    .venv/bin/python tools/eval_search.py [--model DIR] [--k 60] [--json]

Imports every corpus file into a temporary data directory, finds each question's answer turn
(the one card of that source file whose prompt holds the question's prompt substring, so the
set survives re-imports), then ranks turns for every question the way each mode does
(nodwyn.memory.fusion: word ranking by best event, meaning ranking by cosine, RRF of both)
and prints the top-5 hit rate and MRR (reciprocal rank of the answer turn in the top 100,
0 when absent), for all questions and by kind (words: shares words with its turn;
paraphrase: shares few). --model points at another model folder (e.g. the plain distill).
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "corpus"
QUESTIONS = ROOT / "tests" / "data" / "search_questions.tsv"


def questions() -> list[dict]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"), strict=True)) for line in lines[1:] if line.strip()]


def flat(text: str) -> str:
    return " ".join(text.split())


def imported(store) -> dict[str, list[str]]:
    """Corpus file (claude/x.jsonl) -> the tasks its import made."""
    from nodwyn.importers.sync import import_paths

    made = {}
    for tool in ("claude", "codex"):
        for path in sorted((CORPUS / tool).glob("*.jsonl")):
            report = import_paths(store, tool, [path])
            made[f"{tool}/{path.name}"] = report.created + report.extended + report.unchanged
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


def rankings(store, text: str, k: int, floor: float) -> dict[str, list]:
    from nodwyn.memory import encoder, fusion
    from nodwyn.memory import index as wordindex
    from nodwyn.memory.search import hits

    state = wordindex.refresh(store)
    words = fusion.word_ranking(hits(store, state, text, None, fusion.DEPTH))
    model = encoder.current(store.root)
    meant = fusion.meaning_ranking(store, state, text, None, model, floor=floor)[0]
    meant = [key for key, _ in meant]
    both = [key for key, _ in fusion.rrf([words, meant], k)]
    return {"words": words[:100], "meaning": meant[:100], "both": both[:100]}


def score(ranks: list[int | None], kinds: list[str], kind: str | None) -> tuple[float, float]:
    picked = [r for r, q in zip(ranks, kinds, strict=True) if kind in (None, q)]
    hit5 = sum(1 for r in picked if r is not None and r <= 5) / len(picked)
    mrr = sum(1 / r for r in picked if r is not None) / len(picked)
    return hit5, mrr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="a model folder other than the shipped one")
    parser.add_argument("--k", type=int, default=60, help="the RRF constant")
    parser.add_argument("--floor", type=float, help="the cosine floor (default: search's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from nodwyn.memory import encoder, fusion
    from nodwyn.store import Store

    floor = fusion.FLOOR if args.floor is None else args.floor

    if args.model:
        encoder._builtin = encoder.Builtin(args.model)
    asked = questions()
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder))
        made = imported(store)
        targets = answers(store, made, asked)
        ranks: dict[str, list[int | None]] = {"words": [], "meaning": [], "both": []}
        for question, target in zip(asked, targets, strict=True):
            for mode, ranking in rankings(store, question["question"], args.k, floor).items():
                ranks[mode].append(ranking.index(target) + 1 if target in ranking else None)
    kinds = [q["kind"] for q in asked]
    table = {
        mode: {
            str(kind or "all"): dict(zip(("hit5", "mrr"), score(found, kinds, kind), strict=True))
            for kind in (None, "words", "paraphrase")
        }
        for mode, found in ranks.items()
    }
    if args.json:
        print(json.dumps({"table": table, "ranks": ranks, "k": args.k}, indent=1))
        return
    model = encoder.builtin().id
    print(f"{len(asked)} questions ({kinds.count('words')} words, "
          f"{kinds.count('paraphrase')} paraphrase), model {model}, "
          f"k={args.k}, floor={floor}")  # fmt: skip
    print(f"{'mode':8} {'all hit@5':>10} {'all MRR':>8} {'words h@5':>10} {'words MRR':>10} "
          f"{'para h@5':>9} {'para MRR':>9}")  # fmt: skip
    for mode, row in table.items():
        cells = [f"{row[k]['hit5']:10.3f} {row[k]['mrr']:8.3f}" for k in ("all",)]
        cells += [f"{row[k]['hit5']:10.3f} {row[k]['mrr']:10.3f}" for k in ("words",)]
        cells += [f"{row[k]['hit5']:9.3f} {row[k]['mrr']:9.3f}" for k in ("paraphrase",)]
        print(f"{mode:8} " + " ".join(cells))


if __name__ == "__main__":
    main()
