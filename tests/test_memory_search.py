"""Search: BM25 scores against an independent computation, grouping, snippets, scopes,
deleted tasks, what is indexed and what is not."""

import json
import math
import os
import subprocess

import msgspec
import pytest
from memory_logs import at, write
from nodwyn import memory, settings
from nodwyn.errors import BadInput, TaskNotFound
from nodwyn.log import records as r
from nodwyn.log.redact import redact
from nodwyn.memory.words import index, matching, tokens
from nodwyn.memory.words.search import Where, snippet
from nodwyn.memory.words.search import search as word_search
from nodwyn.tasks.store import Store

K1, B = 1.2, 0.75


@pytest.fixture
def store() -> Store:
    return Store()


def bm25(docs: dict, query: str, folders: dict | None = None) -> dict:
    """Okapi BM25 (Lucene's idf), each of the query's words in the better of the two fields
    with one idf (that of the field more events hold it in), its compounds' parts in `parts`,
    and each word naming a task's folder adding its idf to that task's matched events
    (`folders`: task -> folder name): written here from the formula."""
    fields = tokens.query_fields(query)
    scores = dict.fromkeys(docs, 0.0)
    for term in fields["parts"]:
        looked = ("words", "parts") if term in fields["words"] else ("parts",)
        best = [term_scores(docs, field, term) for field in looked]
        for key in docs:
            scores[key] += max(found.get(key, 0.0) for found in best)
    matched = {key: score for key, score in scores.items() if score > 0}
    for key in matched:
        name = (folders or {}).get(key[0], "")
        folder = set(tokens.words(name)) | set(tokens.parts(name))
        matched[key] += sum(idf(docs, term) for term in fields["parts"] if term in folder)
    return matched


def idf(docs: dict, term: str) -> float:
    """A word's idf: from the events holding it in the field where most events do."""
    having = max(sum(1 for t in docs.values() if term in t[field]) for field in ("words", "parts"))
    return math.log(1 + (len(docs) - having + 0.5) / (having + 0.5))


def term_scores(docs: dict, field: str, term: str) -> dict:
    """One term's BM25 in one field, by document holding it, with the word's idf."""
    n_docs = len(docs)
    avgdl = sum(len(tokens[field]) for tokens in docs.values()) / n_docs
    having = [key for key, tokens in docs.items() if term in tokens[field]]
    out = {}
    for key in having:
        tf = docs[key][field].count(term)
        dl = len(docs[key][field])
        out[key] = idf(docs, term) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
    return out


TEXTS = {
    "A": [
        ("Fix the flaky TestPagerOrder", "The pager order test races on the clock"),
        ("Now tidy parse_config.py", "Tidied the config parser and its config tests"),
    ],
    "B": [
        ("Why is the pager slow?", "Pager pages are fetched one by one"),
        ("Add a retry to the fetcher", "Retry added with backoff"),
        ("Order the pages by date", "Pages are ordered by date now, pager untouched"),
    ],
}


def fill(store: Store) -> dict:
    """Write TEXTS as completed turns; return the indexed events' tokens by (task, seq)."""
    docs = {}
    for task, turns in TEXTS.items():
        items, seq = [], 2
        for ask, answer in turns:
            items += [r.Message(text=ask), r.Reply(text=answer), r.TurnEnd(status="completed")]
            docs[(task, seq)], docs[(task, seq + 1)] = tokens.streams(ask), tokens.streams(answer)
            seq += 3
        write(store, task, items)
    return docs


@pytest.mark.parametrize("query", ["pager", "TestPagerOrder", "config tests", "pages order date"])
def test_turn_scores_are_bm25_of_their_best_event_computed_independently(store, query):
    docs = fill(store)
    expected = bm25(docs, query)
    found = word_search(store, query)
    got = {(hit.task, event.seq) for hit in found.turns for event in hit.events}
    assert got == set(expected)
    for hit in found.turns:
        best = max(expected[(hit.task, event.seq)] for event in hit.events)
        assert hit.score == pytest.approx(best, rel=1e-5)
    best_turn = max(expected, key=expected.get)
    assert (found.turns[0].task, found.turns[0].first_seq) == (
        best_turn[0],
        (best_turn[1] - 2) // 3 * 3 + 2,
    )


def test_a_word_naming_a_task_folder_lifts_that_tasks_matched_events_by_its_idf(store):
    ask, answer = "help me apply for the grant", "Drafted the grant application"
    docs = {}
    for task, project in (("near", "/home/a/Projects/trezo-ai"), ("other", "C:\\work\\EdgeRunner")):
        items = [r.Message(text=ask), r.Reply(text=answer), r.TurnEnd(status="completed")]
        write(store, task, items, project=project)
        docs[(task, 2)], docs[(task, 3)] = tokens.streams(ask), tokens.streams(answer)
    folders = {"near": "trezo-ai", "other": "EdgeRunner"}
    for query, first in (("the grant run in trezo-ai", "near"), ("grant for edge runner", "other")):
        expected = bm25(docs, query, folders)
        found = word_search(store, query)
        assert found.turns[0].task == first
        for hit in found.turns:
            best = max(expected[(hit.task, event.seq)] for event in hit.events)
            assert hit.score == pytest.approx(best, rel=1e-5)
    assert found.turns[0].score > found.turns[1].score
    assert word_search(store, "trezo").turns == []  # a folder's name alone matches no event


def test_results_group_by_task_then_turn_in_order_of_best_event_with_events_in_seq_order(store):
    fill(store)
    found = word_search(store, "pager pages order")
    tasks = list(dict.fromkeys(hit.task for hit in found.turns))
    best_of = {t: max(h.score for h in found.turns if h.task == t) for t in tasks}
    assert tasks == sorted(tasks, key=best_of.get, reverse=True)
    for task in tasks:
        scores = [hit.score for hit in found.turns if hit.task == task]
        assert scores == sorted(scores, reverse=True)
    for hit in found.turns:
        seqs = [event.seq for event in hit.events]
        assert seqs == sorted(seqs)
        assert all(hit.first_seq <= seq <= hit.last_seq for seq in seqs)


def test_at_most_limit_events_are_returned_and_the_best_are_kept(store):
    fill(store)
    everything = word_search(store, "pager pages order")
    two = word_search(store, "pager pages order", Where(limit=2))
    assert sum(len(hit.events) for hit in two.turns) == 2
    assert two.turns[0].score == everything.turns[0].score


def test_a_turn_carries_its_card_head_and_whole_prompt(store):
    fill(store)
    hit = word_search(store, "TestPagerOrder").turns[0]
    assert hit.head == memory.turn_cards(store, "A")[0].head
    assert hit.asked == "Fix the flaky TestPagerOrder"
    assert (hit.title, hit.project) == ("Fix the flaky TestPagerOrder", "/work/p")
    assert word_search(store, "TestPagerOrder").terms == [
        "testpagerorder",
        "test",
        "pager",
        "order",
    ]


def test_a_snippet_keeps_the_matched_words_of_a_very_long_line(store):
    line = "filler " * 2000 + "the needle_haystack is here " + "more " * 2000
    write(store, "T", [r.Message(text="look"), r.Reply(text=f"first\n{line}\nlast")])
    [hit] = word_search(store, "haystack").turns
    [snip] = hit.events[0].lines
    assert "needle_haystack" in snip and len(snip) < 300
    assert snip.startswith("…") and snip.endswith("…")


def test_a_snippet_has_at_most_three_lines_those_with_most_matched_words_in_text_order():
    text = "\n".join(["alpha one", "beta two", "alpha beta gamma", "gamma", "nothing", "alpha"])
    lines = snippet(text, {"alpha", "beta", "gamma"})
    assert lines == ["alpha one", "beta two", "alpha beta gamma"]


def test_result_headings_name_the_call_they_answer(store):
    write(store, "T", [
        r.Message(text="run it"),
        r.Reply(calls=[r.Call(id="c1", tool="Bash", input={"command": "make quokka"})]),
        r.Result(call="c1", tool="Bash", output="quokka built"),
    ])  # fmt: skip
    events = word_search(store, "quokka").turns[0].events
    assert [(e.kind, e.heading) for e in events] == [
        ("reply", "reply · calls Bash"),
        ("result", "result · Bash: make quokka"),
    ]


def test_tool_output_is_not_searched_when_the_person_turned_it_off(store):
    write(store, "T", [
        r.Message(text="run it"),
        r.Result(call="c1", tool="Bash", output="wombat output"),
    ])  # fmt: skip
    assert word_search(store, "wombat").turns
    settings.update(store.root, search_tool_output=False)
    assert word_search(store, "wombat").turns == []


def test_a_tasks_title_is_not_indexed_but_unknown_kinds_are(store):
    write(store, "T", [r.Message(text="plain words")])
    store.rename("T", "Platypus migration")
    with open(store.log_path("T"), "a") as log:
        log.write(json.dumps({"seq": 4, "at": at(0), "kind": "future.note", "body": "echidna"}))
        log.write("\n")
    assert word_search(store, "platypus").turns == []
    [hit] = word_search(store, "echidna").turns
    assert hit.events[0].kind == "future.note"


def test_a_deleted_task_never_shows_and_its_documents_leave_the_index(store):
    fill(store)
    assert {hit.task for hit in word_search(store, "pager").turns} == {"A", "B"}
    store.delete("B")
    assert {hit.task for hit in word_search(store, "pager").turns} == {"A"}
    state = index.load_state(store.root)
    searcher = index.open_index(store.root, state).searcher()
    assert searcher.num_docs == 4  # A's two turns, a message and a reply each


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_project_scope_is_the_other_tasks_of_the_repository_worktrees_and_archived_included(
    store, tmp_path
):
    repo, tree, other = tmp_path / "repo", tmp_path / "tree", tmp_path / "other"
    other.mkdir()
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x",
        cwd=repo)  # fmt: skip
    git("worktree", "add", "-q", str(tree), cwd=repo)
    (repo / "sub").mkdir()
    for task, folder in (("A", repo), ("B", tree), ("C", other), ("D", repo / "sub")):
        write(store, task, [r.Message(text="kiwi")], project=str(folder))
    store.archive("B")
    by_task = word_search(store, "kiwi", Where(scope="project", task="A"))
    assert {hit.task for hit in by_task.turns} == {"B", "D"}
    by_folder = word_search(store, "kiwi", Where(scope="project", project=str(tree)))
    assert {hit.task for hit in by_folder.turns} == {"A", "B", "D"}
    only = word_search(store, "kiwi", Where(scope="task", task="C"))
    assert {hit.task for hit in only.turns} == {"C"}
    assert {hit.task for hit in word_search(store, "kiwi").turns} == {"A", "B", "C", "D"}


def test_a_folder_that_is_no_repository_is_its_own_project(store, tmp_path):
    write(store, "A", [r.Message(text="kiwi")], project="/gone/one")
    write(store, "B", [r.Message(text="kiwi")], project="/gone/one")
    write(store, "C", [r.Message(text="kiwi")], project="/gone/two")
    found = word_search(store, "kiwi", Where(scope="project", task="A"))
    assert {hit.task for hit in found.turns} == {"B"}


def test_bad_arguments_are_refused_in_words(store):
    fill(store)
    with pytest.raises(BadInput):
        word_search(store, "pager", Where(scope="everything"))
    with pytest.raises(BadInput):
        word_search(store, "pager", Where(scope="task"))
    with pytest.raises(BadInput):
        word_search(store, "pager", Where(limit=0))
    with pytest.raises(BadInput):
        word_search(store, "   ")
    with pytest.raises(TaskNotFound):
        word_search(store, "pager", Where(scope="task", task="nope"))
    assert word_search(store, "the of and").turns == []


def test_a_log_with_unreadable_lines_is_named_incomplete(store):
    fill(store)
    with open(store.log_path("A"), "ab") as log:
        log.write(b"not json at all\n")
    assert word_search(store, "pager").incomplete == ["A"]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("\n \n\tfirst words\nsecond", "first words"),
        ("\r\n\x0c" + "x" * 5000 + "\u2028after", "x" * 239 + "…"),  # cut as any long line
        ("\n" * 4000 + "y" * 200 + "\nnext", "y" * 200),  # whole across the first piece's end
        ("\n" * 9000 + "late line", "late line"),  # past the first pieces looked at
        (" \n" * 3000, None),
        ("no match and one line", "no match and one line"),
    ],
)
def test_a_text_without_the_words_shows_its_first_line_that_is_not_blank(text, first):
    assert snippet(text, {"quokka"}) == ([first] if first else [])


def test_snippets_headings_and_prompts_are_redacted_again_when_shown(store):
    secret = "sk-ant-" + "b" * 30
    write(store, "T", [r.Message(text="deploy it")])
    with open(store.log_path("T"), "a") as log:  # lines no writer redacted
        lines = [
            {"seq": 3, "kind": "message", "text": f"deploy with {secret}"},
            {"seq": 4, "kind": "reply", "text": f"used {secret} to deploy"},
        ]
        for line in lines:
            log.write(json.dumps({"at": at(line["seq"]), **line}) + "\n")
    found = word_search(store, "deploy")
    shown = json.dumps([msgspec.to_builtins(hit) for hit in found.turns])
    assert "deploy" in shown and secret not in shown and "[redacted]" in shown


def test_a_long_line_shown_by_many_tasks_is_redacted_in_each_and_kept_once(store):
    """The same long output in three tasks (written raw, as no writer redacted it): every hit
    shows it redacted, and its redaction is kept once, not three times; past KEPT_CHARS the
    kept lines are let go."""
    secret = "sk-ant-" + "c" * 30
    line = "filler " * 400 + f"the quokka deploy used {secret} " + "tail " * 400
    for task in ("A", "B", "C"):
        write(store, task, [r.Message(text="look")])
        with open(store.log_path(task), "a") as log:
            log.write(json.dumps({"seq": 3, "at": at(3), "kind": "reply", "text": line}) + "\n")
    matching.redacted.kept.clear()
    found = word_search(store, "quokka").turns
    assert sorted(hit.task for hit in found) == ["A", "B", "C"]
    for hit in found:
        [snip] = hit.events[0].lines
        assert "quokka" in snip and secret not in snip and "[redacted]" in snip
    assert list(matching.redacted.kept) == [line]
    assert matching.redacted.kept[line] == redact(line)
    other = "x" * (matching.KEPT_CHARS - len(line) + 1)  # one character over the bound
    assert matching.redacted(other) == other and list(matching.redacted.kept) == [other]


@pytest.mark.skipif(os.name != "posix", reason="a file name of raw bytes needs a POSIX system")
def test_a_log_whose_name_is_not_utf8_is_not_searched_and_breaks_nothing(store):
    fill(store)
    odd = os.path.join(os.fsencode(store.sessions), b"odd\xff.jsonl")
    with open(odd, "wb") as out:
        out.write((store.sessions / "A.jsonl").read_bytes())
    assert {hit.task for hit in word_search(store, "pager").turns} == {"A", "B"}
