"""A first search in the default mode (the `.mem` files, their `.heads`, the word index being
made) and the background encoding (the `.vec` files, the vector stack) killed with SIGKILL at
seeded random moments, then the same work run to its end: every mode's hits for a set of
queries equal a clean build's (#27). Every kill comes while the work writes its files.
NODWYN_SEARCH_KILLS=40 runs the issue's 40 first searches (and 40 encodings) by hand; the suite
runs 2 of each on a smaller history."""

import os

from kill_search import SEARCH, kills

ROUNDS = int(os.environ.get("NODWYN_SEARCH_KILLS") or 2)
BY_HAND = "NODWYN_SEARCH_KILLS" in os.environ


def test_a_killed_first_search_or_encoding_leaves_the_answers_of_a_clean_build(tmp_path):
    queries = None if BY_HAND else (SEARCH, "socket timeout")
    given = {} if BY_HAND else {"tasks": 8, "queries": queries}
    tally = kills(tmp_path, ROUNDS, **given)
    assert tally.tried == 2 * ROUNDS
    assert tally.stopped == tally.tried, "a kill came after the work had ended, every try"
    assert tally.failed == 0, "\n".join(tally.said)
