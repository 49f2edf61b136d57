"""Past tasks summarized by a provider the person chose (ADR 0033): each provider's real
request and answer against a local server, the estimate checked against the tokens that
server received, nothing sent before the confirmation (the sockets watched), resumable,
cancellable, never twice for the same turns, and `nodwyn summarize`."""

import math
import socket
import subprocess
import sys

import pytest
from nodwyn import settings
from nodwyn.log import records
from nodwyn.memory.cards import summaries
from nodwyn.summarizing import estimate as estimating
from nodwyn.summarizing.job import Job, Unconfirmed, summarizer_of
from nodwyn.summarizing.providers import THINKING, Summarizer, SummarizerFailed
from nodwyn.tasks.store import Store
from provider_servers import ProviderServer


def task_with_turns(store: Store, project: str, prompts: list[str]) -> str:
    start = records.SessionStart(project=project, origin=records.Origin(tool="claude-code"))
    with store.create(start) as writer:
        for prompt in prompts:
            writer.append([records.Message(text=prompt), records.Reply(text=f"Done: {prompt}."),
                           records.TurnEnd(status="completed")])  # fmt: skip
        return writer.path.stem


def add_turn(store: Store, task: str, prompt: str) -> None:
    with store.writer(task) as writer:
        writer.append([records.Message(text=prompt), records.Reply(text="Done."),
                       records.TurnEnd(status="completed")])  # fmt: skip


@pytest.fixture
def server():
    with ProviderServer() as running:
        yield running


def test_ollama_is_asked_on_api_chat_without_streaming(server):
    answer = Summarizer("ollama", server.url, "llama3.2").summarize("Summarize this.", 400)
    [(path, headers, body)] = server.requests
    assert path == "/api/chat" and "authorization" not in headers
    assert body == {"model": "llama3.2", "stream": False, "options": {"num_predict": 400},
                    "messages": [{"role": "user", "content": "Summarize this."}]}  # fmt: skip
    assert answer.text == server.text and answer.input_tokens == 4


def test_an_openai_format_server_gets_the_key_as_a_bearer_token(server):
    answer = Summarizer("openai", server.url, "gpt-5-mini", "sk-test1").summarize("Sum.", 300)
    [(path, headers, body)] = server.requests
    assert path == "/v1/chat/completions" and headers["authorization"] == "Bearer sk-test1"
    assert headers["content-type"] == "application/json"
    # a reasoning model: max_completion_tokens, with room to think before the summary
    assert body == {"model": "gpt-5-mini", "max_completion_tokens": 300 + THINKING,
                    "messages": [{"role": "user", "content": "Sum."}]}  # fmt: skip
    assert answer.text == server.text and answer.output_tokens == 9


def test_anthropics_messages_api_gets_x_api_key_and_anthropic_version(server):
    answer = Summarizer("anthropic", server.url, "claude-haiku-4-5", "sk-ant-1").summarize(
        "S.", 400
    )
    [(path, headers, body)] = server.requests
    assert path == "/v1/messages" and "authorization" not in headers
    assert headers["x-api-key"] == "sk-ant-1" and headers["anthropic-version"] == "2023-06-01"
    assert body == {"model": "claude-haiku-4-5", "max_tokens": 400,
                    "messages": [{"role": "user", "content": "S."}]}  # fmt: skip
    assert answer.text == server.text


def test_a_server_answering_another_shape_is_one_sentence(server):
    with pytest.raises(SummarizerFailed, match="404"):
        Summarizer("ollama", server.url + "/elsewhere", "llama3.2").summarize("S.", 10)


def test_the_estimate_is_the_tokens_the_server_received(tmp_path, data_dir, server):
    store = Store()
    one = task_with_turns(store, str(tmp_path), ["the pager drops pages", "fix the login test"])
    two = task_with_turns(store, str(tmp_path), ["write the changelog"])
    summarizer = Summarizer("openai", server.url, "gpt-5-mini")
    plan = estimating.estimate(store, summarizer, [], project=str(tmp_path))
    assert (plan.tasks, plan.turns, len(plan.requests)) == (2, 3, 2)
    assert plan.output_tokens == 2 * (estimating.MAX_TOKENS + THINKING) and plan.cost_usd > 0
    assert server.url + "/v1/chat/completions" in plan.sentence
    done = Job(store, summarizer).run(plan)
    assert done.state == "done" and done.done == 2 and done.finished == [one, two] or \
        done.finished == [two, one]  # fmt: skip
    assert server.tokens_received() == plan.input_tokens
    assert [body["messages"][0]["content"] for _, _, body in server.requests] == [
        r.prompt for r in plan.requests]  # fmt: skip
    [written] = summaries.of_log(store.log_path(one))
    assert (written.by, written.provider, written.model, written.level) == (
        "provider",
        "openai",
        "gpt-5-mini",
        "close",
    )
    assert (written.first_seq, written.turns, written.text) == (2, 2, server.text)


def test_nothing_is_sent_anywhere_before_the_confirmation(tmp_path, data_dir, server,
                                                          monkeypatch):  # fmt: skip
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages"])
    connected = []
    real = socket.socket.connect
    monkeypatch.setattr(
        socket.socket,
        "connect",
        lambda self, address: connected.append(address) or real(self, address),
    )
    job = Job(store, Summarizer("ollama", server.url, "llama3.2"))
    plan = estimating.estimate(store, job.summarizer, [task])
    for wrong in ("", "0" * 32):
        with pytest.raises(Unconfirmed):
            job.confirm([task], "", wrong)
    assert connected == [] and server.connections == 0 and server.requests == []
    job.run(job.confirm([task], "", plan.token))
    assert len(connected) == 1 and server.connections == 1


def test_a_run_is_refused_when_the_tasks_changed_since_the_estimate(tmp_path, data_dir, server):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages"])
    job = Job(store, Summarizer("ollama", server.url, "llama3.2"))
    seen = estimating.estimate(store, job.summarizer, [task])
    add_turn(store, task, "and the login test")
    with pytest.raises(Unconfirmed):
        job.confirm([task], "", seen.token)
    assert server.requests == []


def test_a_second_run_sends_only_the_turns_no_summary_covers(tmp_path, data_dir, server):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages", "the login test"])
    job = Job(store, Summarizer("ollama", server.url, "llama3.2"))
    job.run(estimating.estimate(store, job.summarizer, [task]))
    again = estimating.estimate(store, job.summarizer, [task])
    assert again.requests == [] and again.input_tokens == 0
    add_turn(store, task, "now the flaky upload")
    [only] = estimating.estimate(store, job.summarizer, [task]).requests
    turns = only.prompt.split("\n## Turn")[1:]
    assert only.turns == 1 and len(turns) == 1 and "flaky upload" in turns[0]


def test_a_cancelled_run_stops_before_the_next_task_and_goes_on_later(tmp_path, data_dir, server):
    store = Store()
    tasks = [task_with_turns(store, str(tmp_path), [p]) for p in ("pager", "login", "upload")]
    job = Job(store, Summarizer("ollama", server.url, "llama3.2"))
    plan = estimating.estimate(store, job.summarizer, tasks)
    stopped = job.run(plan, each_task=lambda request, progress: job.cancel())
    assert stopped.state == "cancelled" and stopped.done == 1 and len(server.requests) == 1
    rest = estimating.estimate(store, job.summarizer, tasks)
    assert len(rest.requests) == 2 and plan.requests[0].task not in {r.task for r in rest.requests}


def test_the_cost_is_the_models_price_unknown_or_free(tmp_path, data_dir, server):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages"])
    priced = estimating.estimate(store, Summarizer("anthropic", server.url, "claude-haiku-4-5"),
                                 [task])  # fmt: skip
    assert priced.cost_usd > 0 and priced.price.startswith("at most $")
    unknown = estimating.estimate(store, Summarizer("openai", server.url, "my-local-7b"), [task])
    assert unknown.cost_usd is None and "price unknown" in unknown.price
    free = estimating.estimate(store, Summarizer("ollama", server.url, "llama3.2"), [task])
    assert free.cost_usd == 0 and "free" in free.price
    assert priced.input_tokens == math.ceil(len(priced.requests[0].prompt) / 4)
    assert server.requests == []


def test_summaries_are_off_until_a_provider_is_chosen(tmp_path, data_dir):
    store = Store()
    with pytest.raises(Exception, match="summaries are off"):
        summarizer_of(store.root)
    settings.update(store.root, summaries="anthropic", summaries_model="claude-haiku-4-5")
    settings.set_embeddings_key(store.root, "sk-ant-2", "summaries")
    chosen = summarizer_of(store.root)
    assert chosen.address == "https://api.anthropic.com/v1/messages"
    assert chosen.headers()["x-api-key"] == "sk-ant-2"
    assert settings.embeddings_key(store.root) == ""  # the embeddings' key is another file


def nodwyn(data_dir, *args, stdin=subprocess.DEVNULL):
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), *args]
    return subprocess.run(command, capture_output=True, text=True, stdin=stdin, timeout=120)


def test_nodwyn_summarize_estimates_then_sends_only_with_yes(tmp_path, data_dir, server):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages", "the login test"])
    settings.update(store.root, summaries="ollama", summaries_url=server.url,
                    summaries_model="llama3.2")  # fmt: skip
    shown = nodwyn(data_dir, "summarize", "--project", str(tmp_path), "--estimate")
    assert shown.returncode == 0, shown.stderr
    assert "1 task(s), 2 turn(s), 1 request(s)" in shown.stdout
    assert f"{server.url}/api/chat for the model llama3.2" in shown.stdout
    assert "free" in shown.stdout
    texts = nodwyn(data_dir, "summarize", task, "--estimate", "--texts").stdout
    [plan] = estimating.estimate(store, summarizer_of(store.root), [task]).requests
    assert plan.prompt in texts and server.connections == 0
    asked = nodwyn(data_dir, "summarize", task)
    assert "nothing was sent" in asked.stdout and server.connections == 0
    sent = nodwyn(data_dir, "summarize", task, "--yes")
    assert sent.returncode == 0, sent.stderr
    assert f"summarized {task}" in sent.stdout and len(server.requests) == 1
    again = nodwyn(data_dir, "summarize", task, "--yes")
    assert "nothing to summarize" in again.stdout and len(server.requests) == 1


def test_nodwyn_summarize_with_summaries_off_says_so_in_one_line(tmp_path, data_dir):
    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager"])
    done = nodwyn(data_dir, "summarize", task)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "nodwyn: summaries are off: choose a provider in Settings > Summaries first"
    ]


def test_the_api_estimates_then_runs_only_with_the_estimates_token(tmp_path, data_dir, server):
    import time

    from nodwyn import api
    from test_api import TOKEN, Client

    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages", "the login test"])
    settings.update(store.root, summaries="ollama", summaries_url=server.url,
                    summaries_model="llama3.2")  # fmt: skip
    client = Client(api.make_app(store, TOKEN))
    shown = client.post("/api/summaries/estimate", {"tasks": [task]}).json
    assert (shown["tasks"], shown["turns"], shown["address"]) == (1, 2, server.url + "/api/chat")
    refused = client.post("/api/summaries/run", {"tasks": [task], "token": "guessed"})
    assert refused.status == 400 and "not confirmed" in refused.json["error"]
    assert server.connections == 0
    started = client.post("/api/summaries/run", {"tasks": [task], "token": shown["token"]}).json
    assert started["state"] == "running" and started["requests"] == 1
    deadline = time.monotonic() + 30
    while client.get("/api/summaries/progress").json["state"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    done = client.get("/api/summaries/progress").json
    assert done["state"] == "done" and done["finished"] == [task]
    assert server.tokens_received() == shown["input_tokens"]
    assert client.post("/api/summaries/cancel").json["state"] == "done"


def test_settings_keep_the_summaries_key_apart_and_never_show_it(tmp_path, data_dir):
    from nodwyn.api import settings_form

    root = Store().root
    change = settings_form.SettingsChange(
        summaries="openai",
        summaries_url="http://127.0.0.1:9",
        summaries_model="gpt-5-mini",
        summaries_key="sk-9",
    )
    shown = settings_form.change(root, change)  # fmt: skip
    assert shown["summaries_key_set"] is True and "sk-9" not in repr(shown)
    assert settings.embeddings_key(root, "summaries") == "sk-9"
    moved = settings_form.SettingsChange(summaries_url="http://127.0.0.1:10")
    assert settings_form.change(root, moved)["summaries_key_set"] is False
    with pytest.raises(Exception, match="address and a model"):
        settings_form.change(root, settings_form.SettingsChange(summaries_model=""))


def test_the_board_carries_each_turns_close_summary_and_the_tasks_digest(tmp_path, data_dir):
    from nodwyn.summarizing import recording
    from nodwyn.tasks import board

    store = Store()
    task = task_with_turns(store, str(tmp_path), ["the pager drops pages", "the login test"])
    recording.record(store, task, "close", "Pager: backpressure.", by="provider",
                     provider="ollama", model="llama3.2", seqs=(2, 4, 1))  # fmt: skip
    recording.record(store, task, "digest", "The task: pager and login.", model="claude")
    newest, oldest = board.board(store, task=task).cards
    assert (oldest.summary, oldest.digest) == ("Pager: backpressure.", "")
    assert (newest.summary, newest.digest) == ("", "The task: pager and login.")


def summarize_stopped(tmp_path, data_dir, server, presses: int):
    """Two tasks, and `nodwyn summarize --yes` sent Ctrl+C `presses` times (1 or 2) while its
    first request is under way, that request answered only after; the store, the tasks, and
    the exit code, stdout and stderr."""
    import signal

    store = Store()
    tasks = [task_with_turns(store, str(tmp_path), [p]) for p in ("pager", "login")]
    settings.update(store.root, summaries="ollama", summaries_url=server.url,
                    summaries_model="llama3.2")  # fmt: skip
    server.hold.clear()  # the first request is answered only once Ctrl+C was pressed
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "summarize",
               *tasks, "--yes"]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True) as running:  # fmt: skip
        assert server.arrived.wait(timeout=60)
        running.send_signal(signal.SIGINT)
        heard = running.stderr.readline()  # the first press was heard
        if presses == 2:  # it stops at once: it ends while the answer is still held back
            running.send_signal(signal.SIGINT)
            out, err = running.communicate(timeout=60)
            server.hold.set()
        else:
            server.hold.set()
            out, err = running.communicate(timeout=60)
    return store, tasks, (running.returncode, out, heard + err)


def test_ctrl_c_keeps_the_answer_under_way_and_the_next_run_goes_on(tmp_path, data_dir, server):
    store, tasks, (code, out, err) = summarize_stopped(tmp_path, data_dir, server, presses=1)
    assert code == 130 and "Traceback" not in err, (out, err)
    assert "stopping after the summary under way (Ctrl+C again stops at once)" in err
    assert "cancelled: 1 of 2 summaries recorded; run it again to go on" in err
    assert len(server.requests) == 1  # the second was never sent
    kept = [summaries.of_log(store.log_path(task)) for task in tasks]
    assert [len(each) for each in kept] == [1, 0] and kept[0][0].text == server.text
    again = nodwyn(data_dir, "summarize", *tasks, "--yes")
    assert again.returncode == 0 and "done: 1 summaries recorded for 1 task(s)" in again.stdout


def test_a_second_ctrl_c_stops_at_once(tmp_path, data_dir, server):
    _, _, (code, _, err) = summarize_stopped(tmp_path, data_dir, server, presses=2)
    assert code == 130 and "Traceback" not in err
    assert "cancelled: 0 of 2 summaries recorded" in err
