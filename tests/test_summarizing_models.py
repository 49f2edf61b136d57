"""Summaries that reach today's models (issue 38, ADR 0043), against a local server that answers
as OpenAI-format servers do (tests/provider_servers.py: OpenAI's own 400 for `max_tokens` to a
reasoning model, a strict server's 422 for a parameter it does not know): the cap each model
takes, the other one tried once when a server refuses the one sent, a provider chosen from a
terminal, and the answer under way kept when a run is stopped."""

import os
import stat
import subprocess
import sys
import threading

import pytest
from nodwyn import settings
from nodwyn.importers.prices import price_of
from nodwyn.memory.cards import summaries
from nodwyn.summarizing import estimate as estimating
from nodwyn.summarizing.providers import THINKING, Summarizer, SummarizerFailed
from nodwyn.summarizing.runs import Runs
from nodwyn.tasks.store import Store
from provider_servers import ProviderServer
from test_summarizing import task_with_turns

CAP = estimating.MAX_TOKENS


def caps(server) -> list[dict]:
    """The cap's parameter and value of each request the server got."""
    return [
        {k: v for k, v in body.items() if k.startswith("max_")} for _, _, body in server.requests
    ]


@pytest.mark.parametrize(
    "model", ["gpt-5-mini", "gpt-5", "gpt-5.1", "gpt-5-nano-2025-08-07", "o3-mini", "o4-mini",
              "o1", "openai/gpt-5-mini"],
)  # fmt: skip
def test_openai_s_reasoning_models_get_max_completion_tokens_in_one_request(model):
    with ProviderServer() as server:
        answer = Summarizer("openai", server.url, model, "sk-1").summarize("Sum this.", CAP)
    assert answer.text == server.text
    assert caps(server) == [{"max_completion_tokens": CAP + THINKING}]  # no refused first try


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4.1", "llama3.2", "qwen2.5-coder:7b"])
def test_other_models_get_max_tokens_which_every_openai_format_server_reads(model):
    with ProviderServer() as server:
        Summarizer("openai", server.url, model).summarize("Sum this.", CAP)
    assert caps(server) == [{"max_tokens": CAP}]


def test_a_deployment_refused_max_tokens_by_openai_is_asked_again_and_remembered():
    """An Azure deployment's own name says nothing of its model: OpenAI's 400 does."""
    with ProviderServer() as server:
        summarizer = Summarizer("openai", server.url, "prod-o3-summaries", "sk-1")
        first = summarizer.summarize("One.", CAP)
        summarizer.summarize("Two.", CAP)
    assert first.text == server.text
    assert caps(server) == [{"max_tokens": CAP}, {"max_completion_tokens": CAP + THINKING},
                            {"max_completion_tokens": CAP + THINKING}]  # fmt: skip


def test_a_server_that_does_not_know_max_completion_tokens_gets_max_tokens():
    with ProviderServer(refuse={"max_completion_tokens"}) as server:
        Summarizer("openai", server.url, "gpt-5-mini").summarize("One.", CAP)
    assert caps(server) == [{"max_completion_tokens": CAP + THINKING}, {"max_tokens": CAP}]


def test_a_refusal_of_something_else_is_not_asked_again_and_its_words_are_said():
    with (
        ProviderServer(refuse={"messages"}) as server,
        pytest.raises(SummarizerFailed, match="422.*body.messages: Extra inputs"),
    ):
        Summarizer("openai", server.url, "gpt-5-mini").summarize("One.", CAP)
    assert len(server.requests) == 1


def test_the_estimate_bounds_a_reasoning_model_s_output_with_room_to_think(tmp_path, data_dir):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages"])
    thinking = estimating.estimate(store, Summarizer("openai", "http://x", "gpt-5-mini"), [task])
    plain = estimating.estimate(store, Summarizer("openai", "http://x", "gpt-4o-mini"), [task])
    assert (thinking.output_tokens, plain.output_tokens) == (CAP + THINKING, CAP)
    price = price_of("gpt-5-mini")  # the cost is what the most output would cost
    most = (thinking.input_tokens * price["input"] + (CAP + THINKING) * price["output"]) / 1e6
    assert thinking.cost_usd == round(most, 6)


def nodwyn(data_dir, *args, stdin: str = ""):
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), *args]
    return subprocess.run(command, capture_output=True, text=True, input=stdin, timeout=120)


def test_a_provider_chosen_from_a_terminal_summarizes_with_gpt_5_mini(tmp_path, data_dir):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages"])
    with ProviderServer() as server:
        chosen = nodwyn(data_dir, "settings", "summaries", "openai", server.url, "gpt-5-mini",
                        "--key", stdin="sk-from-the-terminal\n")  # fmt: skip
        assert chosen.returncode == 0, chosen.stderr
        assert f"gpt-5-mini at {server.url}/v1/chat/completions" in chosen.stdout
        assert "API key: set" in chosen.stdout and "sk-from" not in chosen.stdout
        done = nodwyn(data_dir, "summarize", task, "--yes")
    assert done.returncode == 0 and "done: 1 summaries recorded" in done.stdout
    [(path, headers, body)] = server.requests
    assert headers["authorization"] == "Bearer sk-from-the-terminal"
    assert body["model"] == "gpt-5-mini" and "max_tokens" not in body
    assert body["max_completion_tokens"] == CAP + THINKING
    key = settings.key_path(store.root, "summaries")
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    shown = nodwyn(data_dir, "settings").stdout
    assert '"summaries": "openai"' in shown and '"summaries_key_set": true' in shown
    assert "sk-from" not in shown


def test_the_terminal_setting_checks_before_it_keeps_and_forgets_a_key_for_another_provider(
    data_dir,
):
    root = Store().root
    assert nodwyn(data_dir, "settings", "summaries", "openai", "gpt-5-mini", "--key",
                  stdin="sk-1\n").returncode == 0  # fmt: skip
    assert settings.load(root).summaries_url == ""  # OpenAI's own address
    for wrong in (["openai", "ftp://x", "gpt-5-mini"], ["anthropic"], ["ollama", "a", "b"]):
        refused = nodwyn(data_dir, "settings", "summaries", *wrong)
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
        assert "Traceback" not in refused.stderr
    assert settings.load(root).summaries == "openai"
    assert settings.embeddings_key(root, "summaries") == "sk-1"
    # an OpenAI key is not sent to Anthropic
    moved = nodwyn(data_dir, "settings", "summaries", "anthropic", "claude-haiku-4-5")
    assert moved.returncode == 0 and "API key: not set" in moved.stdout
    assert nodwyn(data_dir, "settings", "summaries", "off").returncode == 0
    assert settings.load(root).summaries == "off"


def test_a_run_cancelled_in_the_app_keeps_the_answer_under_way(tmp_path, data_dir):
    store = Store()
    tasks = [task_with_turns(store, str(tmp_path), [p]) for p in ("pager", "login")]
    with ProviderServer() as server:
        settings.update(store.root, summaries="openai", summaries_url=server.url,
                        summaries_model="gpt-5-mini")  # fmt: skip
        runs = Runs(store, poke=lambda: None)
        plan = runs.estimate(tasks, "")
        server.hold.clear()
        runs.start(tasks, "", plan.token)
        assert server.arrived.wait(timeout=60)
        assert runs.cancel().state == "running"  # the request under way is awaited
        server.hold.set()
        [worker] = [t for t in threading.enumerate() if t.name == "nodwyn-summaries"]
        worker.join(timeout=60)
    stopped = runs.progress()
    assert (stopped.state, stopped.done, len(server.requests)) == ("cancelled", 1, 1)
    kept = [summaries.of_log(store.log_path(task)) for task in tasks]
    assert sorted(len(each) for each in kept) == [0, 1]
    assert len(runs.estimate(tasks, "").requests) == 1  # the other goes on in a later run
