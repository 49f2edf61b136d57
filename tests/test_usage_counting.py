"""How tokens are counted (issue 35): each Claude Code message once at its last streamed usage,
each reply on the day of its own time, replies in no turn counted all the same; and on the real
corpus, every day equal to the plain count (tests/plain_count.py) and one cost everywhere."""

import datetime as dt

import plain_count
import pytest
from importing import SESSION, age, env, imported_one, prompt, result, text, use, write
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store
from nodwyn.usage import figures as usage


def said(uuid, parent, ts, msg, blocks, output, request="req_1", when=None, **extra):
    """An assistant line of message `msg` whose usage so far has `output` tokens."""
    line = env(uuid, parent, ts, type="assistant", requestId=request, **extra, message={
        "id": msg, "role": "assistant", "model": "claude-sonnet-4-20250514", "content": blocks,
        "usage": {"input_tokens": 10, "output_tokens": output, "cache_read_input_tokens": 1000},
    })  # fmt: skip
    return line | ({"timestamp": when} if when else {})


def test_a_message_split_by_a_tool_result_counts_its_last_streamed_usage_once(tmp_path, data_dir):
    lines = [
        prompt("u1", None, 1, "Fix the pager"),
        said("u2", "u1", 2, "m1", [use("c1", "Bash", command="ls")], output=3),
        result("u3", "u2", 3, "c1", "order.go"),
        said("u4", "u3", 4, "m1", [text("Done: one file.")], output=120),  # the same message
        said("u5", "u4", 5, "m1", [text("Done: one file.")], output=120),  # copied again later
    ]
    store = Store()
    task = imported_one(store, "claude", age(write(tmp_path / f"{SESSION}.jsonl", lines)))
    (card,) = memory.turn_cards(store, task)
    assert (card.tokens.input, card.tokens.output, card.tokens.cache_read) == (10, 120, 1000)
    full = (10 * 3 + 120 * 15 + 1000 * 0.3) / 1e6
    assert card.cost_usd == pytest.approx(full)


def test_a_forked_files_copy_of_its_parents_messages_is_counted_once(tmp_path, data_dir):
    parent = "aaaaaaaa-1111-2222-3333-444444444444"
    before = [
        prompt("u1", None, 1, "Fix the pager", sessionId=parent),
        said("u2", "u1", 2, "m1", [text("Fixed.")], output=40, sessionId=parent),
    ]
    forked = [  # the parent's lines, copied with its session id, then its own
        *before,
        prompt("u3", "u2", 3, "Now the tests"),
        said("u4", "u3", 4, "m2", [text("Tested.")], output=7, request="req_2"),
    ]
    write(tmp_path / f"{parent}.jsonl", before)
    write(tmp_path / f"{SESSION}.jsonl", forked)
    for path in tmp_path.glob("*.jsonl"):
        age(path)
    store = Store()
    import_paths(store, "claude", [tmp_path])
    assert usage.report(store).total.output == 47
    assert sum(d["output"] for d in plain_count.days_of([tmp_path], []).values()) == 47


def test_a_turn_that_runs_past_midnight_counts_each_reply_on_its_own_day(tmp_path, data_dir):
    lines = [
        prompt("u1", None, 1, "Migrate the pager", timestamp="2026-05-01T23:50:00.000Z"),
        said(
            "u2",
            "u1",
            2,
            "m1",
            [use("c1", "Bash", command="make")],
            5,
            when="2026-05-01T23:55:00.000Z",
        ),  # fmt: skip
        result("u3", "u2", 3, "c1", "ok", timestamp="2026-05-02T00:20:00.000Z"),
        said(
            "u4",
            "u3",
            4,
            "m2",
            [text("Migrated.")],
            7,
            request="req_2",
            when="2026-05-02T00:25:00.000Z",
        ),  # fmt: skip
    ]
    store = Store()
    imported_one(store, "claude", age(write(tmp_path / f"{SESSION}.jsonl", lines)))
    days = {
        row.key: (row.turns, row.output)
        for row in usage.report(store).rows
        if row.key >= "2026-05-01"
    }
    first = dt.datetime(2026, 5, 1, 23, 55, tzinfo=dt.UTC).astimezone().date().isoformat()
    second = dt.datetime(2026, 5, 2, 0, 25, tzinfo=dt.UTC).astimezone().date().isoformat()
    if first != second:  # in zones where the two replies fall on two days
        assert days[first][1] == 5 and days[second][1] == 7
    assert sum(turns for turns, _ in days.values()) == 1
    assert sum(output for _, output in days.values()) == 12


def test_replies_after_a_resume_and_before_the_next_prompt_are_counted(data_dir):
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="claude-code"))
    spent = records.Usage(input=100, output=10)
    with store.create(start) as writer:
        writer.append([
            records.Message(text="one"),
            records.Reply(text="a", usage=spent, cost_usd=0.5),
            records.SessionResume(),
            records.Reply(text="b", usage=spent, cost_usd=0.25),  # no turn of its own
        ])  # fmt: skip
        task = writer.path.stem
    report = usage.report(store)
    assert report.total.cost_usd == pytest.approx(0.75)
    assert report.total.output == 20
    assert store.get(task).cost_usd == pytest.approx(0.75)


def test_a_turn_with_no_usage_in_its_log_is_not_counted_as_unpriced(data_dir):
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="cursor"))
    with store.create(start) as writer:
        writer.append([records.Message(text="one"), records.Reply(text="a", model="x")])
        task = writer.path.stem
    (card,) = memory.turn_cards(store, task)
    assert (card.unpriced, card.cost_usd, card.no_price) == (False, None, "")
    assert usage.report(store).total.unpriced == 0


def test_a_turn_with_tokens_and_no_price_names_the_model_that_lacks_one(data_dir):
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="opencode"))
    with store.create(start) as writer:
        spent = records.Usage(input=5)
        writer.append([records.Message(text="one"), records.Reply(model="glm-9", usage=spent)])
        task = writer.path.stem
    (card,) = memory.turn_cards(store, task)
    assert (card.unpriced, card.no_price) == (True, "glm-9")


# -- the real corpus ----------------------------------------------------------------------
CLAUDE, CODEX = ("claude", "extra/claude"), ("codex", "extra/codex")


@pytest.fixture(scope="module")
def imported(finished_corpus, tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NODWYN_DATA_DIR", str(tmp_path_factory.mktemp("usage") / "data"))
        store = Store()
        for tool, folders in (("claude", CLAUDE), ("codex", CODEX)):
            for folder in folders:
                import_paths(store, tool, [finished_corpus / folder])
        yield store, usage.report(store, by="day")


@pytest.mark.corpus
def test_every_days_tokens_are_the_plain_count_of_the_logs(imported, finished_corpus):
    _store, report = imported
    ours = {row.key: {f: getattr(row, f) for f in plain_count.FIELDS} for row in report.rows}
    plain = plain_count.days_of(
        [finished_corpus / f for f in CLAUDE], [finished_corpus / f for f in CODEX]
    )
    assert plain_count.differing(ours, plain) == []
    assert len(plain) >= 29


@pytest.mark.corpus
def test_the_usage_total_is_the_tasks_costs_summed_to_the_cent(imported):
    store, report = imported
    tasks = sum(info.cost_usd or 0.0 for info in store.list(archived=None))
    assert round(report.total.cost_usd, 2) == round(tasks, 2)
    assert report.total.cost_usd > 100


@pytest.mark.corpus
def test_the_corpus_sonnet_4_requests_over_200k_cost_the_long_context_rate(imported):
    from importing import log_of

    store, _report = imported
    long = []
    for info in store.list(archived=None):
        for record in log_of(store, info.id):
            u = getattr(record, "usage", None)
            model = getattr(record, "model", "")
            prompt = u and u.input + u.cache_read + u.cache_write
            if model.startswith("claude-sonnet-4-2025") and prompt and prompt > 200_000:
                long.append((record, u))
    assert len(long) >= 170  # the 2025-09-20 session's messages
    for record, u in long:
        rate = (u.input * 6 + u.output * 22.5 + u.cache_read * 0.6 + u.cache_write * 7.5) / 1e6
        assert record.cost_usd == pytest.approx(rate, abs=1e-7)


def test_the_list_says_no_usage_in_the_log_where_the_log_gives_none(data_dir, capsys):
    from nodwyn import cli

    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="cursor"))
    with store.create(start) as writer:
        writer.append([records.Message(text="one"), records.Reply(text="a", model="x")])
    assert store.list(archived=None)[0].cost_note == "no usage in the log"
    assert cli.main(["sessions"]) == 0
    assert "no usage in the log" in capsys.readouterr().out


@pytest.mark.corpus
def test_at_most_two_in_a_hundred_turns_with_tokens_have_no_price_in_all_eight_agents(
    finished_corpus, tmp_path, monkeypatch
):
    from corpora import ROOT

    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import eval_search

    monkeypatch.setattr(eval_search, "CORPUS", finished_corpus)
    store = Store()
    eval_search.imported(store, tmp_path / "shelf")
    cards = [c for info in store.list(archived=None) for c in memory.turn_cards(store, info.id)]
    with_tokens = [c for c in cards if c.tokens != records.Usage()]
    unpriced = [c for c in with_tokens if c.unpriced]
    assert len(with_tokens) > 200
    assert len(unpriced) <= 0.02 * len(with_tokens), {c.no_price for c in unpriced}
    assert all(c.no_price for c in unpriced)  # each names the model that has no price


def test_a_turns_cost_in_words_says_what_is_priced_and_what_is_not():
    from nodwyn.memory.cards.fold import Card, cost_words

    base = dict(first_seq=1, last_seq=2, at="", head="", asked="", outcome="completed")
    assert cost_words(Card(**base, cost_usd=0.4213)) == "$0.42"
    assert cost_words(Card(**base)) == "no usage in the log"
    assert cost_words(Card(**base, unpriced=True, no_price="glm-9")) == "no price for glm-9"
    both = Card(**base, cost_usd=1.5, unpriced=True, no_price="glm-9")
    assert cost_words(both) == "$1.50 + no price for glm-9"


def test_a_task_priced_in_part_gives_what_is_priced_as_usage_adds_it_and_names_the_rest(
    data_dir, capsys
):
    from nodwyn import cli

    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="opencode"))
    spent = records.Usage(input=5)
    with store.create(start) as writer:
        writer.append([
            records.Message(text="one"),
            records.Reply(model="gpt-5.4", usage=spent, cost_usd=1.25),
            records.Reply(model="glm-9", usage=spent),
        ])  # fmt: skip
    (info,) = store.list(archived=None)
    assert (info.cost_usd, info.cost_note) == (1.25, "no price for glm-9")
    assert usage.report(store).total.cost_usd == info.cost_usd
    assert cli.main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert "$1.25 + ?" in out and "no price for glm-9: 1 task" in out
