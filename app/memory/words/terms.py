"""The word query tantivy runs: each word scored once with one idf, and a task's folder name.

BM25 (Robertson & Zaragoza 2009, eq. 3.15, Lucene's idf) per event, summed over the query's
words, each word in the better of its two fields (`words`, `parts`: a disjunction max, so a
word an event holds both plain and inside an identifier counts once):

    score(D, Q) = sum over words w of  max over fields f of  idf(w) * tf(w,D,f) * (k1 + 1)
                                       / (tf(w,D,f) + k1 * (1 - b + b * |D|_f / avgdl_f))
                  + sum over words w naming D's task folder of  idf(w)
    idf(w) = ln(1 + (N - n(w) + 0.5) / (n(w) + 0.5)),   n(w) = max over fields of n(w, f)

k1 = 1.2, b = 0.75 (tantivy's), N the events of the index, n(w, f) those holding w in field f.

- **One idf per word.** tantivy computes idf per field, and few events hold a common word
  inside an identifier, so "search" or "tool" in `parts` (from `WebSearch`, `ToolSearch`)
  scored as a rare word, and short calls naming such tools ranked above the output that
  answers. Each field's term is boosted by idf(w) / idf_f(w), which gives it the word's own
  idf (tools/eval_search.py: words alone, action questions MRR@5 0.938 -> 0.959, pick 0.818
  -> 0.864; ADR 0010).
- **The task's folder.** A word of the query that is a word of the name of the folder a task
  ran in (its last part: `trezo-ai`, `Empire-of-bits-main`) adds idf(w) to every event of
  that task that holds another word of the query (an event that holds only that word, as the
  folder's own paths do, gets nothing: "test" in `sat-test-app` no longer lifts its paths
  over the turn about a flaky test, ADR 0057): "the grant run inside the trezo-ai folder" finds that
  run among a dozen alike (pick questions, hit@5 0.909 -> 1.000). It never matches an event on
  its own, and a folder name is a few words, so it cannot make a task's turns rank alike the
  way a title did (foundations: task memory keeps titles out of the index).
"""

import functools
import math

import tantivy

from . import tokens

FOLDER_WEIGHT = 1.0  # of idf(w), for a word naming the task's folder


def idf(having: int, total: int) -> float:
    return math.log(1 + (total - having + 0.5) / (having + 0.5))


@functools.lru_cache(maxsize=65536)
def folder_words(project: str) -> frozenset[str]:
    """The words and parts of the last part of a project folder's path (POSIX or Windows)."""
    name = tokens.folder_name(project)
    return frozenset(tokens.words(name) + tokens.parts(name))


def folders_of(projects) -> dict[str, list[str]]:
    """{word: tasks whose folder name holds it} of (task, project folder) pairs."""
    found: dict[str, list[str]] = {}
    for task, project in projects:
        for word in folder_words(project):
            found.setdefault(word, []).append(task)
    return found


def query(searcher, schema, fields: dict[str, list[str]], tasks: set[str] | None, folders: dict):
    """The query of `fields` (tokens.query_fields) within `tasks` (None: all); `folders` is
    folders_of the index's tasks. Imports nothing but tantivy (a search's start)."""
    total, should = searcher.num_docs, []
    weights, own_of = {}, {}
    for term in fields["parts"]:  # every word and part of the query
        held = {field: searcher.doc_freq(field, term) for field in ("words", "parts")}
        weights[term] = idf(max(held.values()), total)
        looked = ("words", "parts") if term in fields["words"] else ("parts",)
        own = [
            _term(schema, field, term, weights[term], held[field], total)
            for field in looked
            if held[field]
        ]
        if own:
            own_of[term] = tantivy.Query.disjunction_max_query(own)
            should.append((tantivy.Occur.Should, own_of[term]))
    matched = tantivy.Query.boolean_query(should)
    bonus = [
        (tantivy.Occur.Should, _folder_bonus(schema, folders[term], weight, term, own_of))
        for term, weight in weights.items() if term in folders and own_of.keys() - {term}
    ]  # fmt: skip  # a table
    if bonus:
        matched = tantivy.Query.boolean_query([(tantivy.Occur.Must, matched), *bonus])
    if tasks is None:
        return matched
    allowed = tantivy.Query.term_set_query(schema, "task", sorted(tasks))
    return tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Must, tantivy.Query.const_score_query(allowed, 0.0)),
            (tantivy.Occur.Must, matched),
        ]
    )


def _folder_bonus(schema, tasks: list[str], weight: float, term: str, own_of: dict):
    """idf(term) for an event of a task whose folder the term names, when the event also holds
    another word of the query: a word the folder's name and its paths share ("test" in
    sat-test-app) adds nothing to an event that holds no other word asked for."""
    others = [(tantivy.Occur.Should, query) for word, query in own_of.items() if word != term]
    return tantivy.Query.boolean_query([
        (tantivy.Occur.Must, tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(schema, "task", tasks), FOLDER_WEIGHT * weight)),
        (tantivy.Occur.Must,
         tantivy.Query.const_score_query(tantivy.Query.boolean_query(others), 0.0)),
    ])  # fmt: skip


def _term(schema, field: str, term: str, weight: float, having: int, total: int):
    """A term query in one field that scores with the word's idf, not the field's."""
    found = tantivy.Query.term_query(schema, field, term)
    return tantivy.Query.boost_query(found, weight / idf(having, total))
