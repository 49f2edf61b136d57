"""True states and durations of turns, and what the History board counts (issue 35, ADR 0039).

A turn with no end reads "under way" only while its agent still writes the session; otherwise
what the agent last said settles it. A duration comes from the agent's own record times only.
The board counts as Failed a turn that ended failed, as its card says, and apart from it the
turns whose cards show a failed command or an error (With errors), and says its
newest turn's time so that the page opens on a range that has turns. Checked on hand-written
logs (through the real Store), on the search's heads, and over the real corpus."""

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from corpora import REAL
from memory_logs import at, stamp, write
from nodwyn import memory
from nodwyn.log import records as r
from nodwyn.memory.cards.headline import LIVE_FOR, ending
from nodwyn.tasks import board
from nodwyn.tasks.store import Store


def ago(minutes: float) -> str:
    return stamp(datetime.now(UTC) - timedelta(minutes=minutes))  # now: not when collected


def last_card(store: Store, task: str):
    return memory.turn_cards(store, task)[-1]


def searched(store: Store, word: str):
    """The head a search by words shows for the one turn it finds."""
    (found,) = memory.search(store, word, mode="words").turns
    return found


@pytest.fixture
def store() -> Store:
    return Store()


CALL = r.Call(id="c1", tool="Bash", input={"command": "make test"})


@pytest.mark.parametrize(
    ("said", "outcome"),
    [
        ([r.Reply(text="It passes now.", at=at(5))], "completed"),
        ([r.Reply(text="Running it", calls=[CALL], at=at(5))], "interrupted"),
        (
            [r.Reply(calls=[CALL], at=at(4)), r.Result(call="c1", tool="Bash", at=at(5))],
            "interrupted",
        ),  # fmt: skip
        ([r.Error(text="API overloaded", at=at(5))], "no answer"),
        ([], "no answer"),
    ],
)
def test_a_last_turn_its_agent_left_long_ago_is_settled_by_what_it_last_said(store, said, outcome):
    write(store, "T", [r.Message(text="make the zebra test pass", at=at(0)), *said])
    card = last_card(store, "T")
    assert (card.outcome, card.last_seq) == (outcome, 2 + len(said))
    assert "under way" not in card.head
    assert searched(store, "zebra").head == card.head  # search shows what the transcript shows


def test_a_turn_its_agent_wrote_in_lately_is_under_way_with_no_duration(store):
    write(store, "T", [r.Message(text="make the zebra test pass", at=ago(3)),
                       r.Reply(text="Running it", calls=[CALL], at=ago(2))])  # fmt: skip
    card = last_card(store, "T")
    assert (card.outcome, card.last_seq, card.duration_ms) == ("under way", None, None)
    assert (
        searched(store, "zebra").head
        == 'turn seq 2- · under way · asked "make the zebra test pass"'
    )


def test_it_settles_once_its_agent_has_written_nothing_for_five_minutes():
    now = datetime.now(UTC)
    wrote = now.timestamp()
    args = (stamp(now - timedelta(minutes=1)), 3, stamp(now), "", None, None, "answer")
    assert ending(*args, now=wrote + LIVE_FOR - 1)[1] == "under way"
    assert ending(*args, now=wrote + LIVE_FOR + 1) == (3, "completed", 60000)
    assert LIVE_FOR == 300  # the task list's "running" (listing.RUNNING_FOR): one rule


def test_a_session_closed_ends_its_turn_at_once(store):
    write(store, "T", [r.Message(text="make the zebra test pass", at=ago(3)),
                       r.Reply(text="It passes now.", at=ago(2)),
                       r.SessionClose(at=ago(1))])  # fmt: skip
    assert last_card(store, "T").outcome == "completed"
    assert searched(store, "zebra").last_seq == 4


def test_nodwyns_own_task_is_under_way_until_it_is_closed(store):
    start = r.SessionStart(project="/work/p", origin=r.Origin(tool="nodwyn"))
    with store.create(start, "N") as writer:  # waiting for the person for a day: still open
        writer.append([r.Message(text="delete the zebra branches", at=at(0)),
                       r.ApprovalAsk(call="c1", tool="Bash", at=at(1))])  # fmt: skip
    assert last_card(store, "N").outcome == "under way"
    assert searched(store, "zebra").last_seq is None
    store.close("N")
    assert last_card(store, "N").outcome == "interrupted"  # it asked, and got no answer
    assert searched(store, "zebra").last_seq == 4


def test_a_rename_or_an_archive_later_is_no_part_of_a_turns_duration(store):
    write(store, "T", [r.Message(text="make the zebra test pass", at=at(0)),
                       r.Reply(text="It passes now.", at=at(7)),
                       r.TurnEnd(status="completed", at=at(8)),
                       r.Message(text="and the yak one", at=at(20)),
                       r.Reply(text="That too.", at=at(23))])  # fmt: skip
    store.rename("T", "Zebra and yak")
    store.archive("T", True)
    first, second = memory.turn_cards(store, "T")
    assert (first.outcome, first.duration_ms) == ("completed", 8000)
    assert (second.outcome, second.duration_ms) == ("completed", 3000)
    assert searched(store, "zebra").head.startswith("turn seq 2-4 · completed · 8s ·")


def test_a_turn_whose_log_gives_it_one_time_has_no_duration(store):
    write(store, "T", [r.Message(text="make the zebra test pass", at=at(0)),
                       r.Reply(text="It passes now.", at=at(0)),
                       r.TurnEnd(status="completed", at=at(0))])  # fmt: skip
    card = last_card(store, "T")
    assert card.duration_ms is None
    assert card.head == 'turn seq 2-4 · completed · asked "make the zebra test pass"'


def test_the_agents_own_duration_stands(store):
    write(store, "T", [r.Message(text="make the zebra test pass", at=at(0)),
                       r.Reply(text="It passes now.", at=at(0)),
                       r.TurnEnd(status="completed", duration_ms=4200, at=at(0))])  # fmt: skip
    assert last_card(store, "T").duration_ms == 4200


# The History board


def test_the_board_counts_failed_the_turns_that_ended_failed_and_apart_those_with_errors(store):
    write(store, "T", [
        r.Message(text="a command failed", at=at(0)),
        r.Reply(calls=[CALL], at=at(1)),
        r.Result(call="c1", tool="Bash", output="make: *** [test] Error 2", exit=2, at=at(2)),
        r.Reply(text="It fails.", at=at(3)), r.TurnEnd(status="completed", at=at(4)),
        r.Message(text="an error", at=at(10)), r.Error(text="API overloaded", at=at(11)),
        r.TurnEnd(status="completed", at=at(12)),
        r.Message(text="it failed", at=at(20)), r.TurnEnd(status="failed", at=at(21)),
        r.Message(text="all well", at=at(30)), r.Reply(text="Done.", at=at(31)),
        r.TurnEnd(status="completed", at=at(32)),
    ])  # fmt: skip
    shown = board.board(store, task="T")
    assert {c.card.asked: c.failed for c in shown.cards} == {
        "a command failed": False, "an error": False, "it failed": True, "all well": False,
    }  # fmt: skip
    assert all(c.failed == (c.card.outcome == "failed") for c in shown.cards)  # they agree
    assert {c.card.asked: c.errored for c in shown.cards} == {
        "a command failed": True, "an error": True, "it failed": False, "all well": False,
    }  # fmt: skip
    errors = {c.card.asked: c.card.errors for c in shown.cards}
    assert errors["a command failed"] == ["Bash (exit 2): make: *** [test] Error 2"]


def test_the_board_says_its_newest_turn_whatever_the_range(store):
    write(store, "T", [r.Message(text="an old turn", at="2025-03-02T10:00:00.000Z"),
                       r.Reply(text="Done.", at="2025-03-02T10:00:05.000Z")])  # fmt: skip
    write(store, "U", [r.Message(text="an older turn", at="2024-01-02T10:00:00.000Z")])
    found = board.board(store, project="/work/p", since="2026-11-01")
    assert (found.cards, found.latest) == ([], "2025-03-02T10:00:00.000Z")


# The real corpus


@pytest.mark.corpus
def test_over_the_real_corpus_no_old_turn_is_under_way_and_every_duration_is_the_agents(
    tmp_path,
):
    """Every agent's sessions imported as `nodwyn import` would: none is being written now, so
    no turn is under way, no duration reads 0ms and none is longer than its agent's times."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import eval_search

    eval_search.CORPUS = REAL
    store = Store(tmp_path / "data")
    eval_search.imported(store, tmp_path / "shelf")
    cards = [
        card for info in store.list(archived=None) for card in memory.turn_cards(store, info.id)
    ]
    assert len(cards) > 400
    assert [c.head for c in cards if c.outcome == "under way"] == []
    assert [c.head for c in cards if c.duration_ms is not None and c.duration_ms <= 0] == []
    assert max(c.duration_ms or 0 for c in cards) < 24 * 3600 * 1000
