"""Where Claude Code writes no turn end (1.0/2.0), the importer derives one from the log:
a final answer before the next prompt ends its turn as completed (docs/decisions/0003)."""

import shutil
from collections import Counter
from pathlib import Path

import pytest
from corpora import FIXTURES, REAL, sessions
from importing import (
    age,
    claude_answered,
    env,
    log_of,
    plain,
    prompt,
    raw_lines,
    reply,
    result,
    text,
    use,
    write,
)
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store

OLD = "1.0.98"  # a version that writes no turn_duration
FILES = sessions("claude")


def two_turns() -> list[dict]:
    return [
        prompt("u1", None, 1, "Fix the flaky TestPagerOrder", version=OLD),
        reply("u2", "u1", 2, "m1", [text("Looking."), use("c1", "Bash", command="go test")]),
        result("u3", "u2", 3, "c1", "ok"),
        reply("u4", "u3", 4, "m2", [text("Fixed: the order was random.")]),
        prompt("u5", "u4", 20, "Thanks, now the docs", version=OLD),
        reply("u6", "u5", 21, "m3", [text("Done.")]),
    ]


@pytest.fixture
def src(tmp_path) -> Path:
    return tmp_path / "projects" / "-home-ana-pager" / "11111111-2222-3333-4444-555555555555.jsonl"


def events(store: Store, path: Path) -> list:
    report = import_paths(store, "claude", [path])
    assert not report.skipped, report.skipped
    (task,) = report.created + report.extended + report.unchanged
    return log_of(store, task)


def kinds(found: list) -> list[str]:
    return [records.kind_of(e) for e in found if not isinstance(e, records.SessionStart)]


def ends(found: list) -> list[records.TurnEnd]:
    return [e for e in found if isinstance(e, records.TurnEnd)]


def test_a_final_answer_before_the_next_prompt_ends_its_turn_as_completed(src):
    found = events(Store(), age(write(src, two_turns())))
    assert kinds(found) == [
        "message", "reply", "result", "reply", "turn.end", "message", "reply", "turn.end",
    ]  # fmt: skip
    first, last = ends(found)
    assert first.status == last.status == "completed" and first.duration_ms is None
    assert first.src.line == 4 and first.at == "2026-05-01T10:00:04.000Z"  # the answer's line
    assert last.src.line == 6  # a quiet source's last answer ends its turn too
    replies = [e for e in found if isinstance(e, records.Reply)]
    assert first.cost_usd == pytest.approx(replies[0].cost_usd + replies[1].cost_usd)


def test_a_turn_whose_last_word_is_a_call_or_its_result_has_no_end(src):
    lines = two_turns()
    del lines[3]  # the answer: the turn stops at a tool result
    found = events(Store(), age(write(src, lines)))
    assert kinds(found)[:4] == ["message", "reply", "result", "message"]
    assert len(ends(found)) == 1  # the second turn's answer only


def test_a_response_that_goes_on_after_a_prompt_typed_mid_stream_is_no_final_answer(src):
    lines = [
        prompt("u1", None, 1, "Why does streaming break?", version=OLD),
        reply("u2", "u1", 2, "m1", [text("I see! It encodes twice.")]),
        prompt("u3", "u2", 3, "only the token stream", version=OLD),  # typed while m1 streams
        reply("u4", "u3", 4, "m1", [use("c1", "Edit", file_path="/a.ts")]),
        result("u5", "u4", 5, "c1", "edited"),
        reply("u6", "u5", 6, "m2", [text("Fixed the token stream.")]),
    ]
    found = events(Store(), age(write(src, lines)))
    assert kinds(found) == ["message", "reply", "message", "reply", "result", "reply", "turn.end"]
    assert ends(found)[0].src.line == 6


def test_an_answer_cut_at_max_tokens_or_with_a_call_does_not_end_its_turn(src):
    lines = two_turns()
    lines[3]["message"]["stop_reason"] = "max_tokens"
    found = events(Store(), age(write(src, lines)))
    assert [e.src.line for e in ends(found)] == [6]


def test_an_interruption_after_an_answer_cancels_the_turn_once(src):
    lines = two_turns()
    lines.insert(4, prompt("i1", "u4", 5, [text("[Request interrupted by user]")]))
    found = events(Store(), age(write(src, lines)))
    assert [(e.status, e.src.line) for e in ends(found)] == [("cancelled", 5), ("completed", 7)]


def test_a_recorded_turn_duration_is_the_turns_one_end(src):
    lines = two_turns()[:4] + [
        env("s1", "u4", 5, type="system", subtype="stop_hook_summary", hookCount=0),
        env("s2", "s1", 6, type="system", subtype="turn_duration", durationMs=4800),
    ]
    (end,) = ends(events(Store(), age(write(src, lines))))
    assert end.duration_ms == 4800 and end.src.line == 6


def test_a_live_source_gives_a_turn_end_when_the_next_prompt_or_quiet_shows_it(src):
    lines = two_turns()
    store = Store()
    found = events(store, write(src, lines[:4]))  # fresh: live, the answer may go on
    assert not ends(found)
    found = events(store, write(src, lines[:5]))  # the next prompt: the answer was final
    assert [e.src.line for e in ends(found)] == [4] and kinds(found)[-1] == "message"
    found = events(store, write(src, lines))  # live: the new answer may go on
    assert [e.src.line for e in ends(found)] == [4]
    found = events(store, age(write(src, lines)))  # quiet: the last answer ends its turn
    assert [e.src.line for e in ends(found)] == [4, 6]


def test_a_live_import_that_ends_on_a_prompt_typed_mid_stream_ends_the_turn_too_soon(tmp_path, src):
    lines = [
        prompt("u1", None, 1, "Why does streaming break?", version=OLD),
        reply("u2", "u1", 2, "m1", [text("I see! It encodes twice.")]),
        prompt("u3", "u2", 3, "only the token stream", version=OLD),  # typed while m1 streams
        reply("u4", "u3", 4, "m1", [use("c1", "Edit", file_path="/a.ts")]),
    ]
    store = Store()
    events(store, write(src, lines[:3]))  # live, and the prompt is shown at once
    found = events(store, age(write(src, lines)))
    assert [e.src.line for e in ends(found)] == [2]  # 0003: the one case a cut decides


@pytest.mark.parametrize("cut", range(1, 7))
def test_any_live_cut_then_the_whole_file_gives_the_log_of_one_import(tmp_path, src, cut):
    lines = two_turns()
    lines.insert(4, prompt("i1", "u4", 5, [text("[Request interrupted by user]")]))
    once = Store(tmp_path / "once")
    task = events(once, age(write(src, lines)))[0].origin.id
    halves = Store(tmp_path / "halves")
    import_paths(halves, "claude", [write(src, lines[:cut])])  # fresh: live
    import_paths(halves, "claude", [age(write(src, lines))])
    assert plain(halves, f"cc-{task}") == plain(once, f"cc-{task}")


@pytest.mark.parametrize("path", FILES)
def test_corpus_turns_that_end_in_a_final_answer_end_as_completed(path):
    copy = age(Path(shutil.copy(path, Path(Store().root).parent / path.name)))
    report = import_paths(Store(), "claude", [copy])
    if not report.created:
        assert claude_answered(copy) == 0
        return
    found = log_of(Store(), report.created[0])
    written = [x for x in raw_lines(copy) if x.get("subtype") == "turn_duration"]
    if written:  # 2.1 writes its turn ends: each is one, with its duration
        timed = [e.duration_ms for e in ends(found) if e.duration_ms is not None]
        assert timed == [x["durationMs"] for x in written]
        return
    completed = [e for e in ends(found) if e.status == "completed" and e.duration_ms is None]
    assert len(completed) == claude_answered(copy)


@pytest.mark.parametrize(
    ("root", "completed", "cancelled", "unfinished"),
    [
        pytest.param(FIXTURES, 8, 1, 1, id="fixture-corpus"),
        pytest.param(REAL, 64, 6, 3, id="real-corpus", marks=pytest.mark.corpus),
    ],
)
def test_corpus_cards_read_completed_where_the_log_shows_a_final_answer(
    finished, root, completed, cancelled, unfinished
):
    store, outcomes, answered = Store(), Counter(), 0
    for path in sorted((finished(root) / "claude").glob("*.jsonl")):
        report = import_paths(store, "claude", [path])
        answered += claude_answered(path)
        for task in report.created:
            outcomes.update(card.outcome for card in memory.turn_cards(store, task))
    assert outcomes["completed"] == answered == completed  # none before the rule (0003)
    assert outcomes["cancelled"] == cancelled and outcomes["unfinished"] == unfinished


@pytest.mark.parametrize("cut", range(1, 4))
def test_a_title_written_just_after_a_prompt_follows_it_whatever_the_cut(tmp_path, src, cut):
    lines = [
        prompt("u1", None, 1, "Help me apply for the grant"),
        {"type": "ai-title", "aiTitle": "Apply for the grant", "sessionId": "s"},  # 2.1 does
        reply("u2", "u1", 2, "m1", [text("Gathering the project's context.")]),
        reply("u3", "u2", 3, "m2", [text("Done: the application is drafted.")]),
    ]
    once = Store(tmp_path / "once")
    found = events(once, age(write(src, lines)))
    assert kinds(found)[:2] == ["message", "session.title"]  # in the source's order
    halves = Store(tmp_path / "halves")
    events(halves, write(src, lines[:cut]))  # fresh: live
    again = events(halves, age(write(src, lines)))
    task = found[0].origin.id
    assert kinds(again) == kinds(found)
    assert plain(halves, f"cc-{task}") == plain(once, f"cc-{task}")
