"""record-summary over a real MCP connection: the agent writes its task's digest and a chat's
close summary; nothing new records nothing, and the person's digest stays shown."""

from mcp_client import call, server, talk
from nodwyn.log import logfile, records
from nodwyn.summarizing import recording
from nodwyn.tasks.store import Store
from test_mcp_name_task import make_task


def summaries(store: Store, task: str) -> list[records.Summary]:
    return [r for _, _, r in logfile.read(store.log_path(task)) if isinstance(r, records.Summary)]


def calls(tmp_path, task: str, *arguments: dict) -> list[tuple[bool, str]]:
    async def script(session):
        return [await call(session, "record-summary", **given) for given in arguments]

    return talk(server(tmp_path, {"NODWYN_SESSION": task}), script)


def another_turn(store: Store, task: str, text: str = "now the pager") -> None:
    with store.writer(task) as writer:
        writer.append([records.Message(text=text), records.Reply(text="Done."),
                       records.TurnEnd(status="completed")])  # fmt: skip


def test_an_agents_digest_is_recorded_once_and_shown_as_the_tasks_digest(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    digest = "Login redirect loop fixed: the cookie path was wrong. Left: a test for it."
    (error1, text1), (error2, text2) = calls(
        tmp_path, task, {"text": digest, "level": "digest"}, {"text": "again", "level": "digest"}
    )
    assert not error1 and "digest of seqs 1-3" in text1
    assert error2 and "nothing new" in text2
    [written] = summaries(store, task)
    assert (written.level, written.by, written.model) == ("digest", "agent", "claude")
    assert (written.first_seq, written.last_seq, written.turns) == (1, 3, 1)
    shown = store.get(task)
    assert (shown.digest, shown.digest_by) == (digest, "agent")


def test_a_later_digest_replaces_the_shown_one_and_both_stay_in_the_log(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    calls(tmp_path, task, {"text": "First digest.", "level": "digest"})
    another_turn(store, task)
    [(error, _)] = calls(tmp_path, task, {"text": "Second digest: pager too.", "level": "digest"})
    assert not error
    assert [s.text for s in summaries(store, task)] == [
        "First digest.",
        "Second digest: pager too.",
    ]
    assert summaries(store, task)[1].turns == 2
    assert store.get(task).digest == "Second digest: pager too."


def test_a_close_summary_covers_the_seqs_after_the_last_close_summary(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    calls(tmp_path, task, {"text": "Chat one: the login bug.", "level": "close"})
    another_turn(store, task)
    [(error, text)] = calls(tmp_path, task, {"text": "Chat two: the pager.", "level": "close"})
    assert not error and "close summary of seqs 5-7" in text
    first, second = summaries(store, task)
    assert (first.first_seq, first.last_seq, second.first_seq, second.turns) == (1, 3, 5, 1)
    assert store.get(task).digest == ""  # a close summary is no digest


def test_the_persons_digest_stays_shown_and_the_agents_is_refused(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    recording.record(store, task, "digest", "My own words on this task.", by="person")
    another_turn(store, task)
    [(error, text)] = calls(tmp_path, task, {"text": "Agent's digest.", "level": "digest"})
    assert error and "the person wrote this task's digest" in text
    assert [s.by for s in summaries(store, task)] == ["person"]
    assert store.get(task).digest == "My own words on this task."


def test_an_empty_summary_a_wrong_level_and_secrets_are_handled(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    secret = "sk-ant-" + "b" * 30
    (e1, t1), (e2, t2), (e3, _) = calls(
        tmp_path, task, {"text": "  \n", "level": "digest"}, {"text": "x", "level": "weekly"},
        {"text": f"Rotated the key {secret}.", "level": "digest"},
    )  # fmt: skip
    assert e1 and "empty" in t1 and e2 and "close or digest" in t2 and not e3
    [written] = summaries(store, task)
    assert secret not in written.text and "[redacted]" in written.text
    assert secret not in store.log_path(task).read_text()


def test_the_servers_instructions_say_when_to_write_a_digest_and_a_close_summary(tmp_path):
    from nodwyn.mcp.server import INSTRUCTIONS

    assert "record-summary" in INSTRUCTIONS and "digest" in INSTRUCTIONS
    assert "compacted" in INSTRUCTIONS and len(INSTRUCTIONS.splitlines()) <= 7
