"""Measure the card plus windows of a turn's own text for search by meaning (issue 13).

    .venv/bin/python tools/eval_windows.py [--sizes 500,1000] [--caps 4,8]

Beside each turn's card vector (vectors.py), windows of the turn's own text (every record
after its prompt: messages, replies with their tool calls, tool outputs, errors) are encoded
by the sentence model: each record's text cut into windows of SIZE characters overlapping by a
quarter, at most CAP a turn, chosen first windows first: tool outputs that failed, then the
final reply, then the longest records (then second windows, ...). A turn's meaning score is
its card's cosine pooled with its best window's, max(card, window) ("max") or
(card + s * window) / (1 + s) (a share s), then fused with words as `both` does; or the
windows are a third score beside words and cards (--thirds v):
    w * z(words) + (1 - w) * z(card) + v * z(best window),
a turn without a window among the top DEPTH getting the lowest z, as fusion.weighted does.
Prints tools/eval_search.py's table for each variant beside today's, the windows a turn and
the encoding rate (vectors are cached by text in the temporary folder, so a rerun is quick).
docs/decisions/0010-sentence-model-and-fusion.md ("Card plus windows, measured") has the
figures.
"""

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_search as ev  # noqa: E402

CACHE = Path(tempfile.gettempdir()) / "nodwyn-eval-windows"


def turn_texts(store) -> dict[tuple[str, int], list[tuple[int, str, int]]]:
    """(task, turn) -> [(priority class, text, seq)] of each record after the prompt."""
    from nodwyn import memory
    from nodwyn.log import logfile, records
    from nodwyn.memory.words.documents import text_of

    out: dict = {}
    for log in sorted(store.sessions.glob("*.jsonl")):
        cards = memory.turn_cards(store, log.stem)
        ranges = [(c.first_seq, c.last_seq or 1 << 62) for c in cards]
        last_reply: dict = {}
        at = 0
        for _, _, record in logfile.read(log):
            while at < len(ranges) and record.seq > ranges[at][1]:
                at += 1
            if at == len(ranges) or record.seq <= ranges[at][0]:
                continue
            text = " ".join(text_of(record, True, clean=False).split())
            if not text:
                continue
            key = (log.stem, ranges[at][0])
            failed = isinstance(record, records.Result) and (
                record.error or record.exit not in (None, 0)
            )
            kind = 0 if failed or isinstance(record, records.Error) else 2
            out.setdefault(key, []).append([kind, text, record.seq])
            if isinstance(record, records.Reply) and record.text.strip():
                last_reply[key] = len(out[key]) - 1
        for key, index in last_reply.items():
            out[key][index][0] = min(out[key][index][0], 1)
    return out


def windows(parts, size: int, cap: int) -> list[str]:
    """At most `cap` windows of `size` characters (overlapping by a quarter) of a turn's
    records: every record's first window before any second one; among them failed tool
    outputs and errors, then the final reply, then the longest records."""
    step = size - size // 4
    pieces = []
    for kind, text, seq in parts:
        for index, start in enumerate(range(0, max(1, len(text) - size // 4), step)):
            pieces.append(((index, kind, -len(text), seq), text[start : start + size]))
    pieces.sort(key=lambda item: item[0])
    return [text for _, text in pieces[:cap]]


def encoded(model, texts: list[str]) -> tuple[np.ndarray, float, int]:
    """Vectors of the texts (cached on disk by text), the seconds spent and texts encoded."""
    CACHE.mkdir(exist_ok=True)
    out = np.zeros((len(texts), model.dims), dtype=np.float32)
    spent, made = 0.0, 0
    for at, text in enumerate(texts):
        file = CACHE / (hashlib.sha1(f"{model.id}\0{text}".encode()).hexdigest() + ".npy")
        if file.exists():
            out[at] = np.load(file)
            continue
        began = time.perf_counter()
        out[at] = model.encode([text])[0]
        spent += time.perf_counter() - began
        made += 1
        np.save(file, out[at])
    return out, spent, made


def pooled(cards: dict, best: dict, how: str) -> list[tuple]:
    """[(turn, score)] best first: each turn's card cosine pooled with its best window's."""
    out = {}
    for key in cards.keys() | best.keys():
        card, window = cards.get(key, 0.0), best.get(key, -1.0)
        if how == "max":
            out[key] = max(card, window)
        elif key in best:
            out[key] = (card + float(how) * max(window, 0.0)) / (1 + float(how))
        else:
            out[key] = card
    return by_score(out)


def by_score(scores: dict) -> list[tuple]:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[: ev.DEPTH]


def thirded(words: dict, cards: dict, best: dict, share: float, alone: float, floor: float):
    """Turns best first by w * z(words) + (1 - w) * z(card) + share * z(best window)."""
    from nodwyn.memory import fusion

    scores = dict(fusion.weighted(words, by_score(cards), fusion.WEIGHT, alone, floor))
    lane = [(key, cosine) for key, cosine in by_score(best) if cosine >= floor]
    zs = fusion.standard([cosine for _, cosine in lane])
    low = min(zs) if zs else 0.0
    for key in scores:
        scores[key] += share * low
    for (key, _), z in zip(lane, zs, strict=True):
        if key in scores:
            scores[key] += share * (z - low)
    ranked = sorted(scores.items(), key=lambda i: (-i[1], -words.get(i[0], 0.0), i[0]))
    return [key for key, _ in ranked][: ev.DEPTH]


def best_windows(keys: list, matrix: np.ndarray, query: np.ndarray) -> dict:
    best: dict = {}
    for key, cosine in zip(keys, (matrix @ query).tolist(), strict=True):
        best[key] = max(best.get(key, -1.0), cosine)
    return best


class Asked:
    """Every question's word scores, card cosines (all turns) and query vector, its answer."""

    def __init__(self, model):
        from nodwyn.memory import fusion
        from nodwyn.memory.words import index as wordindex
        from nodwyn.tasks.store import Store

        self.model = model
        self.floor, self.alone = fusion.floors_of(model)
        self.asked = ev.questions()
        self.kinds = [q["kind"] for q in self.asked]
        with tempfile.TemporaryDirectory() as folder:
            store = Store(Path(folder))
            made = ev.imported(store)
            self.targets = ev.answers(store, made, self.asked)
            db = ev.fts5_table(store)
            self.texts = turn_texts(store)
            self.base = []
            for question in self.asked:
                text = question["question"]
                words, _ = ev.scored(store, text, model)
                state = wordindex.refresh(store)
                cards = fusion.meaning_ranking(store, state, text, None, model, depth=1 << 20,
                                               floor=-1.0)[0]  # fmt: skip
                self.base.append((words, dict(cards), model.encode([text])[0]))
            self.fts5 = [ev.rank_of(ev.fts5_ranking(db, q["question"]), target)
                         for q, target in zip(self.asked, self.targets, strict=True)]  # fmt: skip
        self.turns = len(self.base[0][1])

    def scores(self, found: list) -> dict:
        return {k or "all": ev.score(found, self.kinds, k) for k in (None, *ev.KINDS)}

    def rows(self, pool, weights: list[float]):
        """(mode, scores) of meaning and of both at each weight, meaning ranked by pool."""
        from nodwyn.memory import fusion

        for mode in ("meaning", *(f"both {w}" for w in weights)):
            found = []
            for (words, cards, query), target in zip(self.base, self.targets, strict=True):
                meant = pool(cards, query)
                if mode == "meaning":
                    ranking = [key for key, cosine in meant if cosine >= self.alone]
                else:
                    weight = float(mode.split()[1])
                    fused = fusion.weighted(words, meant, weight, self.alone, self.floor)
                    ranking = [key for key, _ in fused]
                found.append(ev.rank_of(ranking[: ev.DEPTH], target))
            yield mode, self.scores(found)

    def third(self, keys: list, matrix: np.ndarray, share: float) -> dict:
        found = []
        for (words, cards, query), target in zip(self.base, self.targets, strict=True):
            best = best_windows(keys, matrix, query)
            ranked = thirded(words, cards, best, share, self.alone, self.floor)
            found.append(ev.rank_of(ranked, target))
        return self.scores(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000", help="characters a window")
    parser.add_argument("--caps", default="4,8", help="windows a turn at most")
    parser.add_argument("--pools", default="max,0.5", help="max, or shares of the window")
    parser.add_argument("--thirds", default="", help="shares v of a third, window score")
    parser.add_argument("--weights", default="", help="of words in both (default: search's)")
    args = parser.parse_args()
    from nodwyn.memory import fusion
    from nodwyn.memory.meaning import encoder

    weights = [float(w) for w in args.weights.split(",")] if args.weights else [fusion.WEIGHT]
    caps = [int(c) for c in args.caps.split(",")]
    seen = Asked(encoder.builtin())
    words = [ev.rank_of(list(w)[: ev.DEPTH], target)
             for (w, _, _), target in zip(seen.base, seen.targets, strict=True)]  # fmt: skip
    table = {"fts5": seen.scores(seen.fts5), "words": seen.scores(words)}
    for mode, scores in seen.rows(lambda cards, _: by_score(cards), weights):
        table[f"{mode}, card"] = scores
    third, notes = {}, []
    for size in [int(s) for s in args.sizes.split(",")]:
        chosen = {key: windows(parts, size, max(caps)) for key, parts in seen.texts.items()}
        flat = [(key, at, text) for key, found in chosen.items() for at, text in enumerate(found)]
        vectors, spent, made = encoded(seen.model, [text for _, _, text in flat])
        rate = f"{made / spent:.1f} texts/s" if made else "cached"
        notes.append(f"{size} chars: {made} windows encoded now in {spent:.1f} s ({rate})")
        for cap in caps:
            picked = [i for i, (_, at, _) in enumerate(flat) if at < cap]
            keys, matrix = [flat[i][0] for i in picked], vectors[picked]
            notes.append(f"{size} chars x {cap}: {len(picked)} windows, "
                         f"{len(picked) / seen.turns:.1f} a turn")  # fmt: skip
            for how in args.pools.split(","):
                pool = lambda cards, query, k=keys, m=matrix, h=how: pooled(  # noqa: E731
                    cards, best_windows(k, m, query), h
                )
                for mode, scores in seen.rows(pool, weights):
                    table[f"{mode}, {size} chars x {cap}, {how}"] = scores
            for share in [float(v) for v in args.thirds.split(",") if v]:
                third[f"{size} chars x {cap}, v {share}"] = seen.third(keys, matrix, share)
    print(f"{len(seen.asked)} questions, {seen.turns} turns")
    ev.print_table("ranking", table)
    if third:
        print("\nboth with windows as a third score: w*z(words) + (1-w)*z(card) + v*z(window)")
        ev.print_table("ranking", third)
    print("\n".join(notes))


if __name__ == "__main__":
    main()
