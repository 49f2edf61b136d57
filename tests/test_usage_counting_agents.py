"""How Gemini CLI's, Copilot CLI's, OpenCode's and Aider's tokens are counted (issue 35, ADR
0038): on the real corpus every day's four fields equal the plain count of the agent's own log
(tests/plain_count_agents.py), the log's own cost is the cost, and local and free models cost
$0; on small logs written here, each fix."""

import json
import os

import plain_count
import plain_count_agents as plain
import pytest
from importing import OLD
from nodwyn.importers import prices
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from nodwyn.usage import figures as usage

FOLDERS = {"gemini": "gemini-cli", "copilot": "copilot-cli", "opencode": "opencode",
           "aider": "aider"}  # fmt: skip


def ours(store: Store) -> dict[str, dict[str, int]]:
    rows = usage.report(store, by="day").rows
    return {row.key: {f: getattr(row, f) for f in plain_count.FIELDS} for row in rows}


def aged(*paths):
    for path in paths:
        os.utime(path, (OLD, OLD))
    return paths[0]


# -- the real corpus ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def imported(finished_corpus, tmp_path_factory):
    """Each agent's folder imported into a data directory of its own: {agent: (store, days)}."""
    found = {}
    with pytest.MonkeyPatch.context() as patch:
        for agent, folder in FOLDERS.items():
            patch.setenv("NODWYN_DATA_DIR", str(tmp_path_factory.mktemp(agent) / "data"))
            store = Store()
            import_paths(store, agent, [finished_corpus / "other" / folder])
            found[agent] = store, usage.report(store, by="day")
    return found


@pytest.mark.corpus
@pytest.mark.parametrize("agent", FOLDERS)
def test_every_days_tokens_are_the_plain_count_of_the_agents_log(imported, finished_corpus, agent):
    store, _report = imported[agent]
    days = plain.days_of(agent, finished_corpus / "other" / FOLDERS[agent])
    assert days and plain_count.differing(ours(store), days) == []


@pytest.mark.corpus
def test_opencodes_own_cost_is_the_days_cost_where_its_log_gives_one(imported, finished_corpus):
    _store, report = imported["opencode"]
    costs = {row.key: row.cost_usd for row in report.rows}
    given = plain.costs_by_day("opencode", finished_corpus / "other" / "opencode")
    positive = {day: cost for day, cost in given.items() if cost > 0}
    assert len(positive) == 2
    for day, cost in positive.items():
        assert costs[day] == pytest.approx(cost, rel=0.005)


@pytest.mark.corpus
def test_aiders_local_and_free_models_cost_nothing_and_are_priced(imported):
    _store, report = imported["aider"]
    assert report.total.tokens > 100_000
    assert (report.total.cost_usd, report.total.unpriced) == (0.0, 0)


# -- logs written here --------------------------------------------------------------------
def copilot_event(kind: str, n: int, **data) -> dict:
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-06-08T12:3{n}:00.000Z"}


def copilot_session(tmp_path, shutdown: dict):
    start = {"sessionId": "c0ffee00-0000-4000-8000-000000000001", "copilotVersion": "1.0.60",
             "context": {"cwd": "/home/ana/pager"}}  # fmt: skip
    lines = [
        copilot_event("session.start", 0, **start),
        copilot_event("user.message", 1, content="Fix the pager"),
        *(
            copilot_event(
                "assistant.message",
                n,
                messageId=f"m{n}",
                content=words,
                outputTokens=tokens,
                model="claude-sonnet-4.6",
            )
            for n, words, tokens in ((2, "Looking.", 300), (3, "Fixed.", 45))
        ),  # fmt: skip
        copilot_event("session.shutdown", 4, shutdownType="routine", **shutdown),
    ]
    path = tmp_path / "session-state" / "c0ffee00-0000-4000-8000-000000000001" / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return aged(path)


DETAILS = {
    "input": {"tokenCount": 345},
    "cache_read": {"tokenCount": 10_000},
    "cache_write": {"tokenCount": 2_000},
    "output": {"tokenCount": 345},
}
METRICS = {
    "claude-sonnet-4.6": {
        "usage": {
            "inputTokens": 12_345,
            "outputTokens": 345,
            "cacheReadTokens": 10_000,
            "cacheWriteTokens": 2_000,
        }
    }
}


@pytest.mark.parametrize(
    "shutdown",
    [{"tokenDetails": DETAILS, "modelMetrics": METRICS}, {"tokenDetails": DETAILS}],
    ids=["as-written", "no-model-metrics"],
)  # fmt: skip
def test_copilots_input_and_cache_tokens_come_from_its_shutdown(tmp_path, data_dir, shutdown):
    path = copilot_session(tmp_path, shutdown)
    store = Store()
    import_paths(store, "copilot", [path])
    assert ours(store) == {
        "2026-06-08": {"input": 345, "output": 345, "cache_write": 2_000, "cache_read": 10_000}
    }
    assert plain.days_of("copilot", path.parent) == ours(store)
    (model,) = usage.report(store, by="model").rows
    assert (model.key, model.tokens) == ("claude-sonnet-4.6", 12_690)


def test_aiders_sent_tokens_hold_its_cache_hits_and_writes(tmp_path, data_dir):
    chat = tmp_path / ".aider.chat.history.md"
    chat.write_text(
        "\n# aider chat started at 2026-05-01 10:00:00\n\n"
        "> Model: anthropic/claude-sonnet-4-5 with diff edit format  \n\n"
        "#### Fix the pager  \n\nFixed: the pages sort by number.\n\n"
        "> Tokens: 12k sent, 2.0k cache write, 9.5k cache hit, 310 received. "
        "Cost: $0.02 message, $0.02 session.  \n"
    )
    typed = tmp_path / ".aider.input.history"
    typed.write_text("\n# 2026-05-01 10:00:09.25\n+Fix the pager\n")
    aged(chat, typed)
    store = Store()
    import_paths(store, "aider", [chat])
    day = dict(input=500, output=310, cache_write=2_000, cache_read=9_500)
    assert ours(store) == {"2026-05-01": day} == plain.days_of("aider", tmp_path)
    assert usage.report(store).total.cost_usd == pytest.approx(0.02)  # aider's own cost


def test_gemini_tool_prompt_tokens_are_input(tmp_path, data_dir):
    chats = tmp_path / ".gemini" / "tmp" / "pager" / "chats"
    path = chats / "session-2026-05-01T10-00-5e55104e.jsonl"
    path.parent.mkdir(parents=True)
    tokens = {"input": 1000, "output": 100, "cached": 400, "thoughts": 50, "tool": 70,
              "total": 1220}  # fmt: skip
    lines = [
        {"sessionId": "5e55104e-0000-4000-8000-000000000001", "projectHash": "ab" * 32,
         "startTime": "2026-05-01T10:00:00.000Z", "lastUpdated": "2026-05-01T10:01:00.000Z",
         "kind": "main"},
        {"id": "u1", "timestamp": "2026-05-01T12:00:10.000Z", "type": "user",
         "content": [{"text": "Fix the pager"}]},
        {"id": "g1", "timestamp": "2026-05-01T12:00:30.000Z", "type": "gemini",
         "content": "Fixed.", "model": "gemini-2.5-pro"},
        {"id": "g1", "timestamp": "2026-05-01T12:00:31.000Z", "type": "gemini",
         "content": "Fixed.", "model": "gemini-2.5-pro", "tokens": tokens},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    store = Store()
    import_paths(store, "gemini", [aged(path)])
    day = dict(input=670, output=150, cache_write=0, cache_read=400)
    assert ours(store) == {"2026-05-01": day} == plain.days_of("gemini", path.parent)


def opencode_step(pid: str, input: int, output: int, cost: float) -> dict:
    tokens = {"input": input, "output": output, "reasoning": 5, "cache": {"read": 900, "write": 0}}
    return {
        "id": pid,
        "type": "step-finish",
        "reason": "tool-calls",
        "tokens": tokens,
        "cost": cost,
    }


def test_opencodes_steps_are_counted_each_at_its_own_cost_and_a_zero_cost_is_priced(
    tmp_path, data_dir
):
    at = 1_785_412_800_000  # 2026-07-30 12:00 UTC
    last = opencode_step("prt_3", 300, 60, 0.02)
    asked = {"id": "msg_1", "role": "user", "time": {"created": at}}
    steps = {  # OpenCode keeps the last step's tokens on the message and adds up the costs
        "id": "msg_2", "role": "assistant", "parentID": "msg_1", "modelID": "claude-sonnet-4-5",
        "providerID": "anthropic", "cost": 0.03, "tokens": last["tokens"], "finish": "stop",
        "time": {"created": at + 100, "completed": at + 900},
    }  # fmt: skip
    custom = steps | {"id": "msg_3", "providerID": "my-proxy", "cost": 0, "time": {
        "created": at + 1000, "completed": at + 1900}}  # fmt: skip
    free = opencode_step("prt_4", 300, 60, 0)
    export = {
        "info": {"id": "ses_1", "directory": "/home/ana/pager", "title": "Pager", "time": {
            "created": at, "updated": at + 1900}},
        "messages": [
            {"info": asked, "parts": [{"id": "prt_1", "type": "text", "text": "Fix the pager"}]},
            {"info": steps, "parts": [opencode_step("prt_2", 200, 40, 0.01), last]},
            {"info": custom | {"tokens": free["tokens"]}, "parts": [free]},
        ],
    }  # fmt: skip
    path = tmp_path / "opencode-session.json"
    path.write_text(json.dumps(export))
    store = Store()
    import_paths(store, "opencode", [aged(path)])
    day = dict(input=800, output=175, cache_write=0, cache_read=2_700)
    assert ours(store) == plain.days_of("opencode", tmp_path) == {"2026-07-30": day}
    unpriced = prices.cost("claude-sonnet-4-5", r.Usage(input=300, output=65, cache_read=900))
    assert usage.report(store).total.cost_usd == pytest.approx(0.03 + unpriced)
