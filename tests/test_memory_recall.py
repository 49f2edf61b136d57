"""recall (one event whole, or a turn as its card and outline) and context (windows of events),
and the `nodwyn memory` commands."""

import json

import pytest
from memory_logs import at, turn, write
from nodwyn import memory
from nodwyn.cli import main
from nodwyn.errors import BadInput, TaskNotFound
from nodwyn.log import records as r
from nodwyn.tasks.store import Store


@pytest.fixture
def store() -> Store:
    return Store()


def test_recall_of_a_turns_first_message_gives_its_card_and_one_line_per_event(store):
    write(store, "T", [
        r.Message(text="Fix the flaky TestPagerOrder", at=at(0)),
        r.Reply(text="running", calls=[r.Call(id="c1", tool="Bash", input={"command": "go test"})]),
        r.Result(call="c1", tool="Bash", output="ok\n"),
        r.TurnEnd(status="completed", duration_ms=6000),
    ])  # fmt: skip
    found = memory.recall(store, "T", 2)
    assert found.event["text"] == "Fix the flaky TestPagerOrder"
    assert found.card == memory.turn_cards(store, "T")[0]
    assert found.lines == [
        "2 message: Fix the flaky TestPagerOrder",
        "3 reply · calls Bash: running Bash go test",
        "4 result · Bash: go test: ok",
        "5 turn.end",
    ]


def test_recall_of_another_event_gives_it_whole_cut_and_redacted(store):
    write(store, "T", [r.Message(text="go"), r.Reply(text="x" * 20_000)])
    found = memory.recall(store, "T", 3)
    assert found.card is None and found.lines == []
    assert found.event["cut"] is True and len(found.event["text"]) < 20_000
    secret = "sk-ant-" + "a" * 30
    with open(store.log_path("T"), "a") as log:  # a line no writer redacted
        log.write(json.dumps({"seq": 4, "at": at(1), "kind": "error", "text": f"key {secret}"}))
        log.write("\n")
    assert memory.recall(store, "T", 4).event["text"] == "key [redacted]"
    assert "cut" not in memory.recall(store, "T", 2).event


def test_recall_of_a_seq_the_log_has_not_is_an_error(store):
    write(store, "T", turn("one"))
    with pytest.raises(TaskNotFound):
        memory.recall(store, "T", 99)


def test_context_is_a_window_around_a_seq_with_its_bounds(store):
    items = []
    for number in range(300):
        items += turn(f"ask {number}", t0=number)
    write(store, "T", items)  # 1 + 900 events
    window = memory.context(store, "T", 450, before=5, after=3)
    assert [e["seq"] for e in window.events] == list(range(445, 454))
    assert (window.first_seq, window.last_seq, window.total) == (445, 453, 901)
    assert window.has_earlier and window.has_later
    last = memory.context(store, "T")
    assert [e["seq"] for e in last.events] == list(range(821, 902))
    assert last.has_earlier and not last.has_later
    page = memory.context(store, "T", 900, before=10_000, after=10_000)
    assert (page.first_seq, page.last_seq) == (400, 901)
    start = memory.context(store, "T", 1, before=40, after=0)
    assert (start.first_seq, start.last_seq, start.has_earlier) == (1, 1, False)
    with pytest.raises(BadInput):
        memory.context(store, "T", 902)
    with pytest.raises(BadInput):
        memory.context(store, "T", 5, before=-1)


def test_memory_search_json_prints_turns_best_first(store, capsys):
    write(store, "T", turn("Fix the flaky TestPagerOrder", reply="pager fixed"))
    write(store, "U", turn("pager pager pager"))
    assert main(["memory", "search", "--json", "pager"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["task"] for t in data["turns"]] == ["U", "T"]
    first = data["turns"][0]
    assert set(first) >= {"task", "title", "project", "first_seq", "last_seq", "head", "asked",
                          "score", "events"}  # fmt: skip
    assert set(first["events"][0]) >= {"seq", "kind", "heading", "lines"}
    assert data["incomplete"] == []


def test_memory_search_text_and_scopes_from_the_command_line(store, capsys):
    write(store, "T", turn("Fix the flaky TestPagerOrder"))
    write(store, "U", turn("pager again"))
    assert main(["memory", "search", "--task", "T", "pager"]) == 0
    out = capsys.readouterr().out
    assert 'turn seq 2-4 · completed · 2s · asked "Fix the flaky TestPagerOrder"' in out
    assert "U " not in out
    assert main(["memory", "search", "--task", "T", "--project", "/work/p", "pager"]) == 0
    assert "pager again" in capsys.readouterr().out
    assert main(["memory", "search", "-n", "0", "pager"]) == 1
    assert "limit" in capsys.readouterr().err


def test_memory_recall_pages_the_turns_lines(store, capsys):
    write(store, "T", turn("ask", reply="answer"))
    assert main(["memory", "recall", "T", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["2 message: ask", "3 reply: answer",
                                                        "4 turn.end"]  # fmt: skip
    assert main(["memory", "recall", "T", "2", "1", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "2 message: ask"
    assert main(["memory", "recall", "--json", "T", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["event"]["text"] == "answer"
