"""Search by words, by meaning, or both fused: the `search` that nodwyn.memory exports.

- words: the word ranking of search.py (BM25 over events, turns grouped by task), unchanged.
- meaning: turns ranked by the cosine of the query's vector with their cards' and compaction
  notes' vectors (vectors.py; a turn counts its best text).
- both: a weighted sum of the two standard scores (z-scores) per turn,
      score(turn) = WEIGHT * z(bm25(turn)) + (1 - WEIGHT) * z(cosine(turn)),
  z(x) = (x - mean) / standard deviation over that ranking's candidates: bm25(turn) its best
  event's score, over the turns of the top DEPTH events; cosine(turn) its best text's, over
  the top DEPTH turns by meaning at or above the floor. A turn missing from one ranking gets
  that ranking's lowest z. A standard score says how far a turn stands out from the other
  candidates, so a word match far above the rest (the one tool output holding the error the
  question quotes) keeps its lead over cards that only read alike, and when words barely tell
  turns apart meaning decides (bm25/max against a min-max of cosines from the floor: the right
  turn in the top 5 as often, MRR@5 0.803 -> 0.842, on action questions 0.831 -> 0.928).
  WEIGHT was chosen on tests/data/search_questions.tsv with tools/eval_search.py
  (ADR 0010 gives the curve); reciprocal rank fusion
  (`rrf`, kept for that comparison) lost to it at every K tried.
  Ties go to the turn with the higher word score, then by key.

The mode is the argument, else the setting `search_mode`. Meaning needs vectors, and a search
never makes them: it encodes its query alone and ranks what is encoded so far; the
turns of tasks not encoded yet take part by words alone (their meaning the lowest z, as any
turn missing from one ranking), and the answer says how many of the tasks searched meaning
covered (`covered` of `searched`). Vectors are made in the background, newest tasks first, by
the app, `nodwyn serve` and the search service (encoding.refresh). The query's vector is made
by a thread kept for that (errands.Ahead) while this one searches by words and reads the best
word turns, which are then not read again (turns_meanwhile); where the model runs in a process
of its own, that process ranks too (stack.py holds the stack there), asked by the kept thread
meanwhile. With no encoder (model missing, provider failing) the search fails open to words
alone, and `mode` in the answer says which ranking was used. Fused answers list turns best
first, at most `limit` of them, each with its matched events (or, found by meaning alone, its
prompt).

numpy, the model and the vectors (encoder.py, vectors.py) are imported only by a search that
ranks by meaning in its own process: a new process searching by words alone does not pay for
them, and a long-running one (the app, `nodwyn serve`) leaves them to the model's process.
"""

import sys

import msgspec

from .. import settings as settingsmod
from ..errors import BadInput, NodwynError, TaskNotFound
from ..log import logfile, records
from . import BUILDING, index_process
from .cards.heads import shown_card
from .errands import Ahead
from .words import index as wordindex
from .words import tokens
from .words.search import Hit, Results, Where, damaged, event_hit, hits, seq_at, turn_hit
from .words.search import search as word_search

MODES = ("words", "meaning", "both")
K = 60
WEIGHT = 0.5  # of the word score in `both` (ADR 0010)
DEPTH = 100  # events of the word ranking, turns of the meaning ranking, that take part
# Cosines below which a text is not taken as related: (floor for a text at all, floor for a
# turn that no word found). The static table's nearest card for words unlike anything in the
# logs ("quokka", "sourdough bread") scores 0.10-0.19, an answer turn 0.47 (median): 0.2
# (ADR 0008). The sentence model's scores 0.14-0.29 for such
# words and 0.44 (median) for an answer turn, 0.22 for the tenth percentile: texts count from
# 0.15, and a turn found by meaning alone from 0.3, so unrelated words still find nothing
# (ADR 0010). No floor for a provider's vectors (their
# scales differ).
FLOORS = {"builtin:": (0.2, 0.2), "minilm:": (0.15, 0.3)}


def floors_of(encoder) -> tuple[float, float]:
    """(floor for a text, floor for a turn found by meaning alone) of an encoder's vectors."""
    for prefix, found in FLOORS.items():
        if encoder.id.startswith(prefix):
            return found
    return 0.0, 0.0


class FusedResults(Results, frozen=True, kw_only=True):
    mode: str = "words"  # the ranking used: words when meaning was asked for but unavailable
    note: str = ""  # why meaning comes from the static table, when it does
    covered: int = 0  # tasks searched whose vectors took part (0 by words alone)
    searched: int = 0  # tasks searched (0 by words alone)


def rrf(rankings: list[list], k: int = K) -> list[tuple[object, float]]:
    """Keys of all rankings with their fused scores, best first."""
    scores: dict = {}
    best: dict = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            best[key] = min(best.get(key, rank), rank)
    return sorted(scores.items(), key=lambda item: (-item[1], best[item[0]], item[0]))


def word_ranking(found: list[Hit]) -> list[tuple[str, int]]:
    """(task, turn) in the order of their best event (an event outside turns stands alone)."""
    return list(dict.fromkeys((hit.task, hit.turn or -hit.seq) for hit in found))


def word_scores(found: list[Hit]) -> dict[tuple[str, int], float]:
    """(task, turn) -> the BM25 score of its best event, best first."""
    out: dict = {}
    for hit in found:
        key = (hit.task, hit.turn or -hit.seq)
        out[key] = max(out.get(key, hit.score), hit.score)
    return out


def weighted(
    words: dict,
    meant: list[tuple[object, float]],
    weight: float = WEIGHT,
    alone: float = 0.0,
    floor: float = 0.0,
):
    """[(key, score)] best first: weight * z(bm25) + (1 - weight) * z(cosine), each the
    standard score of a turn among that ranking's candidates (cosines from `floor`); a turn
    absent from one ranking gets that ranking's lowest; a turn with no word score is left out
    when its cosine is under `alone`."""
    meant = [(key, cosine) for key, cosine in meant if cosine >= floor]
    by_words, by_meaning = standard_by_key(list(words.items())), standard_by_key(meant)
    low_words, low_meaning = (
        min(by_words.values(), default=0.0),
        min(by_meaning.values(), default=0.0),
    )
    shown = words.keys() | {key for key, cosine in meant if cosine >= alone}
    scores = {}
    for key in shown:
        scores[key] = weight * by_words.get(key, low_words) + (1 - weight) * by_meaning.get(
            key, low_meaning
        )
    return sorted(scores.items(), key=lambda item: (-item[1], -words.get(item[0], 0.0), item[0]))


def standard_by_key(scored: list[tuple[object, float]]) -> dict:
    """{key: its standard score} of [(key, score)]."""
    return dict(zip((key for key, _ in scored), standard([s for _, s in scored]), strict=True))


def standard(scores: list[float]) -> list[float]:
    """Each score's distance from their mean in standard deviations (all 0 when they are
    equal): how far a turn stands out from the other candidates, whatever the scale."""
    if not scores:
        return []
    mean = sum(scores) / len(scores)
    spread = (sum((score - mean) ** 2 for score in scores) / len(scores)) ** 0.5
    return [(score - mean) / spread if spread > 0 else 0.0 for score in scores]


def meaning_ranking(
    store, state, text: str, tasks, encoder, depth: int = DEPTH, floor=0.0, vector=None
):
    """[((task, turn), cosine)] best first (cosine >= floor) over the vectors made so far,
    and the tasks that have none yet (they take part by words alone); `vector` the query's,
    when it was made already. An encoder in the model's process ranks there (`ranking`):
    the stack and its product never load numpy here."""
    from .meaning.stack import ranked, stacked

    in_its_process = getattr(encoder, "ranking", None)
    if in_its_process is not None and vector is None:
        return in_its_process(store.root, state, tasks, text, depth, floor)
    query = query_vector(encoder, text) if vector is None else vector
    stack, without = stacked(store, state, tasks, encoder)
    return ranked(stack, query, depth, floor), without


def query_vector(encoder, text: str):
    """The query's vector, by the encoder's own lane for queries where it has one (the
    model's process: a query goes ahead of the cards being encoded, model_process.py)."""
    ahead = getattr(encoder, "encode_query", None)
    return ahead(text) if ahead is not None else encoder.encode([text])[0]


def mode_of(store, mode: str | None) -> str:
    """The ranking asked for, else the setting `search_mode`; BadInput for any other word."""
    mode = mode or settingsmod.load(store.root).search_mode
    if mode not in MODES:
        raise BadInput(f"mode is one of {', '.join(MODES)}, not {mode!r}")
    return mode


def search(
    store,
    words_text: str,
    where: Where | None = None,
    *,
    mode: str | None = None,
    importing: bool = False,
) -> FusedResults:
    """Turns matching the words (see the module docstring for the modes) in `where` (every
    task, 20 turns, when None): the one search that the page, the command line and the
    agents' tools all come to, in the app, the search service or a process of their own.
    `importing`: an import is under way and memory is folded after it (holding BUILDING), so
    the words indexed now are searched rather than waiting seconds for that work."""
    mode = mode_of(store, mode)
    where = where or Where()
    if importing:
        found = word_search(store, words_text, where, fresh=False)
        return FusedResults(**msgspec.structs.asdict(found), mode="words")
    with BUILDING:  # another thread of this process may be building the derived files
        if mode != "words":
            from .meaning import encoder as encodermod

            try:
                return _by_meaning(store, words_text, where, mode)
            except encodermod.Unavailable:
                pass  # fail open: words alone
        found = word_search(store, words_text, where, refresh=index_process.refreshed)
    return FusedResults(**msgspec.structs.asdict(found), mode="words")


def _by_meaning(store, text: str, where: Where, mode: str) -> FusedResults:
    from .meaning import encoder as encodermod

    where.check(store)
    if not text.strip():
        raise BadInput("nothing to search for: give some words")
    encoder = encodermod.current(store.root)
    floor, alone = floors_of(encoder)
    ranks = getattr(encoder, "ranking", None) is not None  # in the model's process
    ahead = _begun(encoder, text, ranks)
    state = index_process.refreshed(store)
    tasks = where.tasks(state)
    if ranks:
        ahead = Ahead(lambda: meaning_ranking(store, state, text, tasks, encoder, floor=floor))
    limit, terms = where.limit, tokens.query_terms(text)
    found = hits(store, state, text, tasks, max(limit, DEPTH)) if tasks != set() else []
    try:
        meant, without, made = _meanwhile(
            store, state, (text, tasks, set(terms), limit, floor), encoder, ahead, found
        )
    except encodermod.Unavailable:
        raise
    except NodwynError as exc:  # a provider failing
        raise encodermod.Unavailable(str(exc)) from exc
    searched = len(state.tasks if tasks is None else tasks & state.tasks.keys())
    covered = {"searched": searched, "covered": searched - len(without)}
    if not meant and not found:  # nothing to say
        return FusedResults(turns=[], incomplete=[], terms=terms, mode=mode, **covered)
    if mode == "meaning":
        order = [(key, cosine) for key, cosine in meant if cosine >= alone]
    else:
        order = weighted(word_scores(found), meant, alone=alone, floor=floor)
    incomplete = [name for name in damaged(state) if tasks is None or name in tasks]
    turns = assemble(store, state, order[:limit], found, set(terms), made)
    note = (encodermod.fallback() or "") if isinstance(encoder, encodermod.Builtin) else ""
    return FusedResults(
        turns=turns, incomplete=incomplete, terms=terms, mode=mode, note=note, **covered
    )


def _begun(encoder, text: str, ranks: bool) -> Ahead | None:
    """What a search starts before it looks up words, so that the rest runs meanwhile: the
    query's vector, or, where the model's process ranks (once the tasks are known), that
    process if none runs."""
    if not ranks:
        return Ahead(lambda: query_vector(encoder, text))
    if encoder.pid is None:
        Ahead(encoder.ready)  # a failure to start is the ranking's to raise
    return None


def _meanwhile(store, state, asked: tuple, encoder, ahead: Ahead, found: list[Hit]):
    """(the ranking by meaning, the tasks without vectors, the best word turns read while
    `ahead` worked) of `asked` (text, tasks, terms, limit, floor): the ranking `ahead` made in
    the model's process, else here from the query's vector it made (the stack made meanwhile)."""
    from .meaning.stack import stacked

    text, tasks, terms, limit, floor = asked
    if getattr(encoder, "ranking", None) is not None:
        made = turns_meanwhile(store, state, found, terms, limit, ahead.is_alive)
        return (*ahead.result(), made)
    stacked(store, state, tasks, encoder)  # made while the query's vector is
    made = turns_meanwhile(store, state, found, terms, limit, ahead.is_alive)
    vector = ahead.result()
    return (*meaning_ranking(store, state, text, tasks, encoder, floor=floor, vector=vector), made)


def members_of(found: list[Hit]) -> dict:
    """(task, turn) -> its hits, in the order of each turn's best hit (an event outside
    turns stands alone)."""
    members: dict = {}
    for hit in found:
        members.setdefault((hit.task, hit.turn or -hit.seq), []).append(hit)
    return members


def turns_meanwhile(store, state, found: list[Hit], terms: set[str], limit: int, busy) -> dict:
    """(task, turn) -> turn_of for the best `limit` turns by words, made while `busy()` (the
    query's vector under way): most of them are among those shown, and `assemble` takes
    them from here rather than reading them again."""
    made: dict = {}
    for key, hits_of in list(members_of(found).items())[:limit]:
        if not busy():
            break
        made[key] = turn_of(store, state, key, hits_of, terms)
    return made


def assemble(store, state, order, found: list[Hit], terms: set[str], made=None):
    """TurnHits for ((task, turn), score) pairs, in that order; `made` those already read
    (turns_meanwhile)."""
    members, made = members_of(found), made or {}
    out = []
    for key, score in order:
        if key in made:
            found_turn = made[key]
        else:
            found_turn = turn_of(store, state, key, members.get(key, []), terms)
        if found_turn is not None:
            out.append(msgspec.structs.replace(found_turn, score=round(score, 6)))
    return out


def turn_of(store, state, key: tuple[str, int], members: list[Hit], terms: set[str]):
    """The TurnHit of a turn with (up to three of) its hits in order, or its prompt when it
    has none; None when its task was deleted while we read."""
    task, turn = key
    log = store.log_path(task)
    try:
        chosen = sorted(members, key=lambda hit: hit.seq)[:3]
        with open(log, "rb") as handle:
            if chosen:
                events = [event_hit(handle, log, hit, terms, state) for hit in chosen]
            else:
                prompt, record = _prompt_hit(handle, log, task, abs(turn))
                chosen, events = [prompt], [event_hit(handle, log, prompt, terms, state, record)]
            card = shown_card(handle, log, state, task, chosen[0].turn_at, turn)
    except (FileNotFoundError, TaskNotFound):
        return None
    found = turn_hit(task, state, card, chosen, events, log)
    return found if members else msgspec.structs.replace(found, found_by="meaning")


def _prompt_hit(handle, log, task: str, seq: int) -> tuple[Hit, records.Event]:
    """The event that stands for a turn found by meaning alone, its first record, and that
    record. Its offset is the one entry of the log's `.idx` (the record read there must have
    that seq), else the whole index made current (logfile.offsets)."""
    offset = _indexed(log, seq)
    record = None if offset is None else seq_at(handle, offset, seq)
    if record is None:
        table = logfile.offsets(log)
        if not 1 <= seq <= len(table):
            raise TaskNotFound(f"no record {seq} in {task}")
        offset = table[seq - 1]
        handle.seek(offset)
        record = records.decode(handle.readline().rstrip(b"\n"))
    heading = wordindex.heading(record, {})
    return Hit(
        score=0.0, task=task, seq=seq, turn=seq, offset=offset, heading=heading, turn_at=offset
    ), record


def _indexed(log, seq: int) -> int | None:
    """The offset the log's `.idx` gives for `seq`, or None (no such entry)."""
    try:
        with open(logfile.seq_index_path(log), "rb") as idx:
            idx.seek((seq - 1) * 8)
            raw = idx.read(8)
    except (OSError, ValueError):
        return None
    return int.from_bytes(raw, sys.byteorder) if len(raw) == 8 and seq >= 1 else None
