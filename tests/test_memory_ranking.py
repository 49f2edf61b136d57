"""Ranking where the answer is one event among many: a word counts once per event, and in
`both` a word match far above the rest is not outvoted by cards that only read alike."""

import math

import pytest
from memory_logs import turn, write
from nodwyn.log import records as r
from nodwyn.memory import fusion
from nodwyn.memory.words.search import search as word_search
from nodwyn.tasks.store import Store


@pytest.fixture
def store() -> Store:
    return Store()


def test_a_word_inside_identifiers_counts_once_so_the_reply_that_answers_ranks_first(store):
    """Two near-duplicate runs of one prompt, told apart by the reply naming the folder."""
    listing = "grant draft: GrantDraft.md grantDraftV2.md"
    write(store, "cc-first", turn("help me apply for the grant", reply="Reading the skill")
          + [r.Result(call="c1", output=listing)])  # fmt: skip
    write(store, "cc-second", turn("help me apply for the grant",
                                   reply="The grant draft is in the kosh folder"))  # fmt: skip
    for other in range(6):
        write(store, f"cc-notes{other}", turn("kosh notes", reply="noted"))
    found = word_search(store, "grant draft kosh")
    assert [hit.task for hit in found.turns[:2]] == ["cc-second", "cc-first"]


def test_a_word_match_far_above_the_rest_stays_first_though_other_cards_read_closer():
    """The answer is one tool output (bm25 30 against 9-12): its card is only fifth by
    meaning, yet it leads, while among turns whose words score alike meaning decides."""
    words = {"answer": 30.0, "b": 12.0, "c": 11.5, "d": 10.0, "e": 9.0}
    meant = [("b", 0.62), ("c", 0.60), ("d", 0.45), ("f", 0.40), ("answer", 0.30), ("e", 0.2)]
    fused = [key for key, _ in fusion.weighted(words, meant, 0.5, alone=0.3, floor=0.15)]
    assert fused[:3] == ["answer", "b", "c"]


def test_the_weighted_sum_of_standard_scores_is_as_computed_by_hand():
    words = {"a": 10.0, "b": 5.0, "c": 3.0}
    meant = [("c", 0.8), ("a", 0.5), ("d", 0.5), ("e", 0.2)]
    # words: mean 6, deviation sqrt(26/3); meaning (from the floor 0.3, so not e): mean 0.6,
    # deviation sqrt(0.02); a turn missing from a ranking gets its lowest
    spread, apart = math.sqrt(26 / 3), math.sqrt(0.02)
    za, zb, zc = 4 / spread, -1 / spread, -3 / spread
    ma, mc, md = -0.1 / apart, 0.2 / apart, -0.1 / apart
    fused = dict(fusion.weighted(words, meant, 0.5, alone=0.3, floor=0.3))
    assert fused == pytest.approx({"a": (za + ma) / 2, "b": (zb + ma) / 2,
                                   "c": (zc + mc) / 2, "d": (zc + md) / 2})  # fmt: skip
    # a turn no word found needs `alone`; ties go to the higher word score
    assert {key for key, _ in fusion.weighted(words, meant, 0.5, alone=0.6)} == {"a", "b", "c"}
    assert [key for key, _ in fusion.weighted({"x": 1.0, "y": 1.0}, [], 0.5)] == ["x", "y"]


def test_a_common_word_inside_a_tools_name_weighs_as_common_so_the_output_that_answers_wins(
    store,
):
    """`ToolSearch` and `WebSearch` give `parts` the words tool, web and search, which few
    events hold inside an identifier: scored with `parts`' own idf they read as rare, and a
    reply that only calls those tools outranked the output quoting the error. A word has one
    idf, the same in both fields."""
    calls = [r.Call(id="c1", tool="ToolSearch", input={"query": "select:WebSearch"})]
    write(store, "cc-calls", [r.Message(text="look around"), r.Reply(text="", calls=calls),
                              r.TurnEnd(status="completed")])  # fmt: skip
    output = "the web search tool answered with an error again, Internal Error"
    write(store, "cc-answer", turn("explore the docs") + [r.Result(call="x", output=output)])
    for n, word in enumerate(["web", "search", "tool", "error", "internal"] * 12):
        write(store, f"cc-plain{n}", turn(f"a {word} note", reply=f"{word} seen in parseConfig"))
    found = word_search(store, "the web search tool kept answering Internal Error")
    assert [hit.task for hit in found.turns[:2]] == ["cc-answer", "cc-calls"]
