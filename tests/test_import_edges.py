"""Importer edges on small hand-written files: torn lines, time going back, junk, sub-agents."""

import json
from pathlib import Path

import pytest
from corpora import FIXTURES, sessions
from importing import (
    MODEL,
    SESSION,
    age,
    env,
    log_of,
    plain,
    prompt,
    reply,
    result,
    session,
    text,
    use,
    write,
)
from nodwyn import cli
from nodwyn.importers import prices
from nodwyn.importers.sync import default_paths, import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store


@pytest.fixture
def store() -> Store:
    return Store()


@pytest.fixture
def src(tmp_path) -> Path:
    return tmp_path / "projects" / "-home-ana-pager" / f"{SESSION}.jsonl"


def only(store, path, tool="claude") -> str:
    report = import_paths(store, tool, [path])
    assert not report.skipped, report.skipped
    (task,) = report.created + report.extended + report.unchanged
    return task


def test_a_hand_written_session_maps_to_every_record_kind(store, src):
    task = only(store, age(write(src, session())))
    kinds = [records.kind_of(e) for e in log_of(store, task)]
    assert kinds == [
        "session.start", "session.title", "message", "reply", "result", "reply", "turn.end",
    ]  # fmt: skip
    events = log_of(store, task)
    assert events[3].text == "Looking." and events[3].calls[0].tool == "Edit"
    assert events[4].files == ["/home/ana/pager/order.go"] and events[4].src.line == 5
    end = events[6]
    assert end.duration_ms == 5000
    per_reply = prices.cost(MODEL, events[3].usage)
    assert end.cost_usd == pytest.approx(per_reply * 2)
    assert events[1].title == "Pager order fix" and events[1].at == events[0].at
    assert task == f"cc-{SESSION}" and store.get(task).branch == "main"


def test_a_torn_last_line_waits_for_the_rest_of_it(store, src, tmp_path):
    lines = [json.dumps(x).encode() + b"\n" for x in session()]
    whole = b"".join(lines)
    cut = len(b"".join(lines[:4])) + 30
    src.parent.mkdir(parents=True)
    src.write_bytes(whole[:cut])
    task = only(store, age(src))
    last = log_of(store, task)[-1]  # lines 3 and 4 are one response; line 5 is torn
    assert isinstance(last, records.Reply) and last.src.line == 3 and len(last.calls) == 1
    src.write_bytes(whole)
    assert import_paths(store, "claude", [age(src)]).extended == [task]
    once = Store(tmp_path / "once")
    only(once, src)
    assert plain(store, task) == plain(once, task)


def test_records_follow_the_parent_chain_where_timestamps_go_backwards(store, src):
    lines = session()
    lines[2]["timestamp"] = "2026-05-01T09:59:00.000Z"  # the reply claims to be older
    task = only(store, age(write(src, lines)))
    events = log_of(store, task)
    message = next(e for e in events if isinstance(e, records.Message))
    first_reply = next(e for e in events if isinstance(e, records.Reply))
    assert message.seq < first_reply.seq and first_reply.at < message.at


def test_unknown_record_types_fields_and_blocks_are_skipped_not_fatal(store, src):
    lines = session()
    lines.insert(2, {"type": "brand-new-thing", "payload": [1, 2], "sessionId": SESSION})
    lines[3]["message"]["content"].append({"type": "hologram", "data": 1})
    lines[3]["newField"] = {"x": 1}
    task = only(store, age(write(src, lines)))
    assert store.get(task).turns == 1
    assert len([e for e in log_of(store, task) if isinstance(e, records.Reply)]) == 2


def test_a_damaged_line_in_the_middle_is_skipped_and_the_rest_imported(store, src):
    lines = [json.dumps(x) for x in session()]
    lines.insert(3, '{"type": "assistant", "message": {"content": [oops')
    src.parent.mkdir(parents=True)
    src.write_text("\n".join(lines) + "\n")
    task = only(store, age(src))
    assert records.kind_of(log_of(store, task)[-1]) == "turn.end"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"# Notes\n\nSome *Markdown* about a session.\n", "not a Claude Code session log"),
        (bytes(range(256)) * 8, "binary"),
        (b'{"event": "PreToolUse", "tool": "Bash"}\n{"event": "Stop"}\n', "not a Claude Code"),
        (b'{"type": "summary", "summary": "Only a title", "leafUuid": "x"}\n', "no conversation"),
    ],
)
def test_files_that_are_not_sessions_are_skipped_with_a_reason(store, tmp_path, content, reason):
    path = tmp_path / "notes.jsonl"
    path.write_bytes(content)
    report = import_paths(store, "claude", [path])
    assert not report.created and report.skipped[0].path == str(path)
    assert reason in report.skipped[0].reason
    assert store.list(archived=None) == []


@pytest.mark.parametrize("path", sessions("codex"))
def test_a_codex_file_given_as_claude_is_skipped_with_the_right_command(store, path):
    (skipped,) = import_paths(store, "claude", [path]).skipped
    assert "nodwyn import codex" in skipped.reason


def test_a_streamed_response_cut_in_two_is_held_back_while_the_source_is_live(store, src):
    lines = session()[:3]  # the response m1 has one of its two parts so far
    task = only(store, write(src, lines))  # fresh: live
    assert not any(isinstance(e, records.Reply) for e in log_of(store, task))
    write(src, session())
    import_paths(store, "claude", [src])
    (first, second) = [e for e in log_of(store, task) if isinstance(e, records.Reply)][:2]
    assert first.text == "Looking." and [c.id for c in first.calls] == ["c1"]
    assert first.usage is not None and second.usage is not None


def test_a_quiet_source_gives_its_last_reply_at_once(store, src):
    task = only(store, age(write(src, session()[:3])))
    (reply_,) = [e for e in log_of(store, task) if isinstance(e, records.Reply)]
    assert reply_.text == "Looking."


def test_a_response_cut_by_an_import_of_a_quiet_source_is_two_replies_of_one_response(store, src):
    lines = [
        prompt("u1", None, 1, "Run both checks"),
        reply("u2", "u1", 2, "m1", [use("c1", "Bash", command="go vet")]),
        reply("u3", "u2", 3, "m1", [use("c2", "Bash", command="go test")]),
        result("u4", "u3", 4, "c1", "ok"),
        result("u5", "u4", 5, "c2", "ok"),
    ]
    task = only(store, age(write(src, lines[:2])))  # quiet: its last reply is given out
    import_paths(store, "claude", [age(write(src, lines))])
    first, second = [e for e in log_of(store, task) if isinstance(e, records.Reply)]
    assert first.src.id == second.src.id == "m1"  # a reader can tell they are one response
    assert first.usage is not None and second.usage is None  # counted once
    assert [c.id for c in first.calls + second.calls] == ["c1", "c2"]


def test_a_log_imported_before_replies_carried_their_response_id_is_not_doubled(store, src):
    task = only(store, age(write(src, session()[:4])))  # it ends with a reply
    log = store.log_path(task)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    for line in lines:
        line.get("src", {}).pop("id", None)  # as the importer wrote them before
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    log.with_suffix(".imp").unlink()
    before = log.read_bytes()
    assert import_paths(store, "claude", [src]).unchanged == [task]
    assert log.read_bytes() == before


def test_sub_agent_files_are_events_of_the_session_under_their_call(store, src):
    lines = session()[:2] + [
        reply("u2", "u1", 2, "m1", [use("c9", "Agent", prompt="Find the test", subagent_type="x")]),
        result("u3", "u2", 9, "c9", "found it", {"agentId": "a1b2", "status": "completed"}),
    ]
    write(src, lines)
    agent = src.parent / SESSION / "subagents" / "agent-a1b2.jsonl"
    write(
        agent,
        [
            prompt("s1", None, 3, "Find the test", isSidechain=True, agentId="a1b2"),
            reply("s2", "s1", 4, "m7", [use("c10", "Grep", pattern="Pager")], isSidechain=True),
            result("s3", "s2", 5, "c10", "order_test.go", isSidechain=True),
            reply("s4", "s3", 6, "m8", [text("It is in order_test.go")], isSidechain=True),
        ],
    )
    report = import_paths(store, "claude", [age(src).parent])
    assert report.created == [f"cc-{SESSION}"]
    assert "sub-agent" in report.skipped[0].reason  # the agent file is not a task of its own
    events = log_of(store, report.created[0])
    kinds = [(records.kind_of(e), e.agent) for e in events[3:]]
    assert kinds == [
        ("reply", None), ("reply", "a1b2"), ("result", "a1b2"), ("reply", "a1b2"),
        ("result", None),
    ]  # fmt: skip
    assert events[4].src.file == f"{SESSION}/subagents/agent-a1b2.jsonl"
    assert events[4].src.line == 2


def test_a_sub_agent_file_beside_the_session_is_found_by_its_prompt(store, src):
    lines = session()[:2] + [
        reply("u2", "u1", 2, "m1", [use("c9", "Task", prompt="Count files")]),
        result("u3", "u2", 9, "c9", "12 files", {"totalTokens": 5}),
    ]
    write(src, lines)
    write(
        src.parent / "agent-77.jsonl",
        [
            prompt("s1", None, 3, "Count files", isSidechain=True),
            reply("s2", "s1", 4, "m7", [text("12")], isSidechain=True),
        ],
    )
    task = only(store, age(src))
    agents = [e for e in log_of(store, task) if e.agent]
    assert [(records.kind_of(e), e.agent, e.text) for e in agents] == [
        ("reply", "agent-77.jsonl", "12")
    ]


def test_an_sdk_run_is_a_machine_run(store, src):
    lines = [x | {"entrypoint": "sdk-ts"} if "uuid" in x else x for x in session()]
    assert store.get(only(store, age(write(src, lines)))).machine


def test_a_custom_title_is_the_persons_and_outranks_later_agent_titles(store, src):
    lines = session() + [
        {"type": "custom-title", "customTitle": "Pager work", "sessionId": SESSION},
        {"type": "ai-title", "aiTitle": "Fixing order", "sessionId": SESSION},
    ]
    task = only(store, age(write(src, lines)))
    info = store.get(task)
    assert (info.title, info.title_by) == ("Pager work", "person")
    titles = [e for e in log_of(store, task) if isinstance(e, records.SessionTitle)]
    assert [t.title for t in titles] == ["Pager order fix", "Pager work"]


def test_a_name_given_in_nodwyn_survives_a_later_import(store, src):
    task = only(store, age(write(src, session())))
    store.rename(task, "Mine")
    write(src, session() + [{"type": "ai-title", "aiTitle": "Theirs", "sessionId": SESSION}])
    assert import_paths(store, "claude", [age(src)]).unchanged == [task]  # nothing to add
    assert store.get(task).title == "Mine"
    assert "Theirs" not in store.log_path(task).read_text()


def test_a_source_changed_before_the_imported_part_is_reported_and_left_alone(store, src):
    task = only(store, age(write(src, session())))
    before = store.log_path(task).read_bytes()
    lines = session()
    lines[1]["message"]["content"] = "Something else entirely"
    write(src, lines + [prompt("u7", "u6", 7, "more")])
    (skipped,) = import_paths(store, "claude", [age(src)]).skipped
    assert "its start changed since it was imported" in skipped.reason
    assert store.log_path(task).read_bytes() == before


def test_a_source_the_agent_deleted_leaves_its_task(store, src):
    task = only(store, age(write(src, session())))
    src.unlink()
    report = import_paths(store, "claude", [src.parent])
    assert report == type(report)() and store.get(task).turns == 1


def test_a_lost_import_state_after_a_partial_import_still_gives_the_whole_log(store, src, tmp_path):
    task = only(store, write(src, session()[:4]))
    store.log_path(task).with_suffix(".imp").unlink()
    write(src, session())
    import_paths(store, "claude", [age(src)])
    once = Store(tmp_path / "once")
    only(once, src)
    assert plain(store, task) == plain(once, task)


def test_secrets_in_imported_sessions_are_redacted(store, src):
    key = "sk-ant-api03-" + "a1B2" * 12
    lines = session()
    lines[1]["message"]["content"] = f"use the key {key} please"
    task = only(store, age(write(src, lines)))
    assert key not in store.log_path(task).read_text()
    assert "[redacted]" in store.log_path(task).read_text()


def test_api_errors_compaction_boundaries_and_interruptions(store, src):
    lines = session()[:3] + [
        env("e1", "u2", 3, type="system", subtype="api_error", level="error", error="overloaded"),
        env("b1", "e1", 4, type="system", subtype="compact_boundary",
            compactMetadata={"trigger": "auto", "preTokens": 150000}),
        prompt("k1", "b1", 5, "Summary of before", isCompactSummary=True),
        prompt("i1", "k1", 6, [text("[Request interrupted by user]")]),
    ]  # fmt: skip
    task = only(store, age(write(src, lines)))
    events = log_of(store, task)
    kinds = [records.kind_of(e) for e in events]
    assert kinds[-4:] == ["reply", "error", "context.compact", "turn.end"]
    assert events[-2].note == "Summary of before" and events[-1].status == "cancelled"


def test_the_command_prints_a_json_report(store, src, capsys):
    age(write(src, session()))
    assert cli.main(["import", "claude", str(src.parent), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["created"] == [f"cc-{SESSION}"] and report["skipped"] == []
    assert cli.main(["import", "claude", str(src)]) == 0
    assert "0 created, 0 extended, 1 unchanged, 0 skipped" in capsys.readouterr().out


def test_the_list_names_the_model_that_has_no_price(store, src, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # one line a task, the cost in its column
    lines = session()
    for line in lines:
        if line.get("type") == "assistant":
            line["message"]["model"] = "claude-from-the-future-9"
    task = only(store, age(write(src, lines)))
    assert store.get(task).cost_usd is None
    assert cli.main(["sessions"]) == 0
    assert "no price for claude-from-the-future-9" in capsys.readouterr().out
    age(write(src, session()))
    other = Store(src.parent / "other")
    assert other.get(only(other, src)).cost_usd > 0


def test_a_whole_last_line_without_its_newline_is_imported_and_the_file_goes_on(
    store, src, tmp_path
):
    lines = [json.dumps(x).encode() for x in session()]
    src.parent.mkdir(parents=True)
    src.write_bytes(b"\n".join(lines[:5]))  # the fifth line is whole JSON but not ended
    task = only(store, age(src))
    assert log_of(store, task)[-1].src.line == 5
    src.write_bytes(b"\n".join(lines) + b"\n")
    assert import_paths(store, "claude", [age(src)]).extended == [task]
    once = Store(tmp_path / "once")
    only(once, src)
    assert plain(store, task) == plain(once, task)


def test_without_paths_the_agents_own_folders_are_imported(store, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert default_paths("claude") == [tmp_path / "claude-home" / "projects"]
    assert default_paths("codex") == [
        tmp_path / "codex-home" / "sessions", tmp_path / "codex-home" / "archived_sessions",
    ]  # fmt: skip
    age(write(tmp_path / "claude-home" / "projects" / "-home-ana" / f"{SESSION}.jsonl", session()))
    rollout = tmp_path / "codex-home" / "archived_sessions" / "rollout-x.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_bytes((FIXTURES / "codex" / "raze__knowledge.jsonl").read_bytes())
    assert import_paths(store, "claude").created == [f"cc-{SESSION}"]
    assert len(import_paths(store, "codex").created) == 1
    assert import_paths(store, "claude", []) == type(import_paths(store, "claude", []))()


def test_a_request_is_priced_at_the_prices_in_force_at_its_own_time():
    """DeepSeek's prices changed on dated days and are higher at hours of the day (genai-prices'
    constraints): a reply is priced by when it was answered, not by when it is imported."""
    usage = records.Usage(input=1_000_000)
    model = "deepseek-v4-flash"
    assert prices.cost(model, usage, "2026-05-01T12:00:00Z") == pytest.approx(0.14)
    assert prices.cost(model, usage, "2026-09-20T12:00:00.000Z") == pytest.approx(0.15)
    assert prices.cost(model, usage, "2026-05-01T02:30:00Z") == pytest.approx(0.30)  # 01-04 UTC


@pytest.mark.parametrize(
    ("model", "input_price"),
    [
        ("claude-sonnet-4-20250514", 3.0),
        ("claude-opus-4-1-20250805", 15.0),
        ("claude-opus-4-5-20251101", 5.0),
        ("claude-opus-4-6[1m]", 5.0),
        ("claude-opus-4-6-thinking", 5.0),  # a gateway's name for Opus 4.6 (issue 35)
        ("gpt-5.4", 2.5),
        ("gpt-5-codex", 1.25),
        ("monkeycode-basic/deepseek-v4-flash", 0.14),  # a provider's prefix taken off
        ("lm_studio/qwen3.6-35b-a3b", 0.0),  # runs on the person's own machine
        ("openrouter/openrouter/horizon-beta", 0.0),  # offered free
        ("no-such-model-9", None),
        ("<synthetic>", None),
        ("", None),
    ],
)
def test_prices_match_models_by_name_and_know_what_they_do_not_know(model, input_price):
    usage = records.Usage(input=100_000)  # under every long-context threshold
    at = "2026-05-01T12:00:00.000Z"  # the prices of a day and an hour: some change with them
    assert prices.cost(model, usage, at) == pytest.approx(input_price and input_price / 10)
    if input_price is not None:
        both = records.Usage(input=1_000, output=1_000, cache_read=10, cache_write=10)
        table = prices.price_of(model)
        expected = (table["input"] * 1_000 + table["output"] * 1_000 + 10 * table["cache_read"]
                    + 10 * table["cache_write"]) / 1e6  # fmt: skip
        assert prices.cost(model, both) == pytest.approx(expected)


def test_a_sonnet_4_request_over_200k_prompt_tokens_costs_the_long_context_rate():
    """Anthropic bills every token of a Sonnet 4 request whose prompt (input, cache reads and
    writes) is over 200k at $6 / $22.50 / $7.50 / $0.60 a million (issue 35)."""
    over = records.Usage(input=10, output=1_000, cache_read=190_000, cache_write=10_000)
    under = records.Usage(input=10, output=1_000, cache_read=180_000, cache_write=10_000)
    assert prices.cost("claude-sonnet-4-20250514", over) == pytest.approx(
        (10 * 6 + 1_000 * 22.5 + 190_000 * 0.6 + 10_000 * 7.5) / 1e6
    )
    assert prices.cost("claude-sonnet-4-20250514", under) == pytest.approx(
        (10 * 3 + 1_000 * 15 + 180_000 * 0.3 + 10_000 * 3.75) / 1e6
    )
    assert (
        prices.cost("claude-sonnet-4-5-20250929", over)
        > prices.cost("claude-sonnet-4-5-20250929", under) * 1.9
    )  # the library's own tiers, for the models it has them for


def test_a_claude_time_without_milliseconds_is_kept_and_an_unreadable_one_falls_back():
    from nodwyn.importers.claude.lines import at_of

    assert at_of("2026-11-29T10:00:00Z", "fallback") == "2026-11-29T10:00:00.000Z"
    assert at_of("2026-11-29T11:00:00+01:00", "fallback") == "2026-11-29T10:00:00.000Z"
    assert at_of("not a time", "fallback") == "fallback"


@pytest.mark.parametrize("session_id", ["huge " * 100, "../../../etc/passwd", "a/b"])
def test_a_line_naming_a_session_no_file_could_be_is_read_as_a_line_of_this_one(
    store, src, capsys, session_id
):
    """A damaged or foreign sessionId (too long for a file name, or a path) names no copied
    session: the line is read, nothing is looked up outside the folder, no unexpected error."""
    lines = session()
    for line in lines[1:]:
        line["sessionId"] = session_id
    age(write(src, lines))
    assert cli.main(["import", "claude", str(src)]) == 0
    said = capsys.readouterr().out
    assert "1 created" in said and "unexpected" not in said and "unreadable" not in said
