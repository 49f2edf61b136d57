"""Turn cards (L1) and episodes (L2) folded from hand-written logs, one per outcome."""

from datetime import UTC, datetime, timedelta

import pytest
from memory_logs import at, stamp, turn, write
from nodwyn import memory
from nodwyn.errors import TaskNotFound
from nodwyn.log import records as r
from nodwyn.tasks.store import Store


@pytest.fixture
def store() -> Store:
    return Store()


def test_a_completed_turn_card_holds_what_the_turn_came_to(store):
    write(
        store,
        "T",
        [
            r.Message(text="Fix the flaky TestPagerOrder", at=at(0)),
            r.Plan(items=[r.PlanItem(text="find the race", status="completed"),
                          r.PlanItem(text="fix it", status="in_progress")], at=at(1)),
            r.Reply(text="Running the tests", at=at(1), cost_usd=0.25, calls=[
                r.Call(id="c1", tool="Bash", input={"command": "go test ./pager"}),
                r.Call(id="c2", tool="Edit", input={"file_path": "pager/order.go"})]),
            r.Result(call="c1", tool="Bash", output="FAIL TestPagerOrder\n", exit=1, error=True,
                     at=at(3)),
            r.Result(call="c2", tool="Edit", output="ok", files=["pager/order.go"], at=at(4)),
            r.Error(text="API overloaded, retrying", at=at(5)),
            r.Reply(text="The order is now stable.", at=at(5), cost_usd=0.5),
            r.TurnEnd(status="completed", duration_ms=6000, cost_usd=0.75, at=at(6)),
        ],
    )  # fmt: skip
    [card] = memory.turn_cards(store, "T")
    assert card.head == 'turn seq 2-9 · completed · 6s · asked "Fix the flaky TestPagerOrder"'
    assert (card.first_seq, card.last_seq, card.outcome) == (2, 9, "completed")
    assert card.duration_ms == 6000 and card.cost_usd == 0.75
    assert [(i.text, i.status) for i in card.plan] == [
        ("find the race", "completed"),
        ("fix it", "in_progress"),
    ]
    assert card.files == ["pager/order.go"]
    assert card.commands == [memory.Command(command="go test ./pager", exit=1, error=True)]
    assert card.errors == ["Bash (exit 1): FAIL TestPagerOrder", "API overloaded, retrying"]
    assert card.answer == "The order is now stable."
    assert card.at == at(0)


def test_a_card_keeps_a_commands_and_an_errors_words_without_their_terminal_colours(store):
    red, bold, reset = "\x1b[31m", "\x1b[1m", "\x1b[0m"
    write(
        store,
        "T",
        [
            r.Message(text="Run the tests", at=at(0)),
            r.Reply(text="Running", at=at(1), calls=[
                r.Call(id="c1", tool="Bash", input={"command": f"{bold}go test{reset} ./pager"})]),
            r.Result(call="c1", tool="Bash", output=f"{red}FAIL{reset} TestPagerOrder\n", exit=1,
                     error=True, at=at(2)),
            r.TurnEnd(status="failed", duration_ms=3000, at=at(3)),
        ],
    )  # fmt: skip
    [card] = memory.turn_cards(store, "T")
    assert card.commands == [memory.Command(command="go test ./pager", exit=1, error=True)]
    assert card.errors == ["Bash (exit 1): FAIL TestPagerOrder"]


def test_failed_and_cancelled_come_from_turn_end(store):
    write(store, "T", turn("one", end="failed") + turn("two", end="cancelled", t0=10))
    assert [c.outcome for c in memory.turn_cards(store, "T")] == ["failed", "cancelled"]


def test_a_turn_the_next_message_closed_is_unfinished(store):
    write(store, "T", turn("first", end=None) + turn("second", t0=30))
    first, second = memory.turn_cards(store, "T")
    assert (first.outcome, first.first_seq, first.last_seq) == ("unfinished", 2, 3)
    assert first.duration_ms == 1000  # from the times of its first and last events
    assert first.head == 'turn seq 2-3 · unfinished · 1s · asked "first"'
    assert second.outcome == "completed"


def test_a_turn_a_resume_closed_is_interrupted(store):
    write(store, "T", [*turn("first", end=None), r.SessionResume(), *turn("again", t0=20)])
    assert [c.outcome for c in memory.turn_cards(store, "T")] == ["interrupted", "completed"]


def test_the_last_turn_with_no_end_is_under_way_while_its_agent_writes(store):
    now = datetime.now(UTC)
    lately = [r.Message(text="still going", at=stamp(now - timedelta(minutes=2))),
              r.Reply(text="working", at=stamp(now - timedelta(minutes=1)))]  # fmt: skip
    write(store, "T", turn("done one") + lately)
    last = memory.turn_cards(store, "T")[-1]
    assert last.outcome == "under way"
    assert last.last_seq is None and last.duration_ms is None
    assert last.head == 'turn seq 5- · under way · asked "still going"'


def test_a_sub_agents_message_does_not_start_a_turn(store):
    write(
        store,
        "T",
        [
            r.Message(text="main ask", at=at(0)),
            r.Message(text="sub-agent prompt", agent="explorer", at=at(1)),
            r.Reply(text="sub-agent answer", agent="explorer", at=at(2)),
            r.Reply(text="main answer", at=at(3)),
            r.TurnEnd(status="completed", at=at(4)),
        ],
    )
    [card] = memory.turn_cards(store, "T")
    assert card.asked == "main ask" and card.answer == "main answer"
    assert card.duration_ms == 4000


def test_each_episode_covers_the_stretch_since_the_compaction_before_it(store):
    write(
        store,
        "T",
        [
            *turn("one"),
            r.ContextCompact(note="we set up the pager"),
            *turn("two", t0=10),
            r.ContextCompact(note="we fixed the order", first_seq=2, last_seq=9),
            *turn("three", t0=20),
            r.ContextCompact(note="under way note"),
        ],
    )
    episodes = memory.episodes(store, "T")
    assert [(e.seq, e.first_seq, e.last_seq, e.note) for e in episodes] == [
        (5, 1, 4, "we set up the pager"),
        (9, 2, 9, "we fixed the order"),
        (13, 10, 12, "under way note"),
    ]


def test_cards_of_a_missing_task_is_an_error(store):
    with pytest.raises(TaskNotFound):
        memory.turn_cards(store, "nope")
