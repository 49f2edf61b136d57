"""Claude Code 2.1's `attachment` and `queue-operation` lines on hand-written files: a person's
queued words and the context sent with a prompt are kept where they belong (0003)."""

from pathlib import Path

import pytest
from importing import (
    SESSION,
    age,
    env,
    log_of,
    plain,
    prompt,
    reply,
    result,
    text,
    use,
    write,
)
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store


def attachment(uuid, parent, ts, **data) -> dict:
    return env(uuid, parent, ts, type="attachment", attachment=data)


def queue(operation, ts, content=None, **extra) -> dict:
    line = {"type": "queue-operation", "operation": operation, "sessionId": SESSION}
    line["timestamp"] = f"2026-05-01T10:00:{ts:02d}.000Z"
    return line | ({"content": content} if content is not None else {}) | extra


@pytest.fixture
def src(tmp_path) -> Path:
    return tmp_path / "projects" / "-home-ana-pager" / f"{SESSION}.jsonl"


def events(store: Store, path: Path) -> list:
    report = import_paths(store, "claude", [path])
    assert not report.skipped, report.skipped
    (task,) = report.created + report.extended + report.unchanged
    return [e for e in log_of(store, task) if not isinstance(e, records.SessionStart)]


def messages(found: list) -> list[records.Message]:
    return [e for e in found if isinstance(e, records.Message)]


def working() -> list[dict]:
    """A prompt whose agent runs a command: a person may type while it runs."""
    return [
        prompt("u1", None, 1, "Run the tests"),
        reply("u2", "u1", 2, "m1", [use("c1", "Bash", command="go test ./...")]),
        result("u3", "u2", 3, "c1", "FAIL TestPagerOrder"),
    ]


def test_ide_context_sent_with_a_prompt_is_an_attachment_of_it_and_listings_are_not(src):
    lines = [
        prompt("u1", None, 1, "Why is this slow?"),
        attachment("a1", "u1", 1, type="deferred_tools_delta", addedNames=["WebFetch"]),
        attachment("a2", "a1", 1, type="skill_listing", content="- simplify: review code"),
        attachment(
            "a3", "a2", 1, type="selected_lines_in_ide", ideName="VS Code",
            filename="/home/ana/pager/order.go", lineStart=10, lineEnd=12,
            content="for i := range pages {",
        ),
        attachment("a4", "a3", 1, type="opened_file_in_ide", filename="/home/ana/pager/doc.md"),
        {"type": "ai-title", "aiTitle": "Slow pager", "sessionId": SESSION},
        reply("u2", "a4", 2, "m1", [text("The loop copies each page.")]),
        attachment("a5", "u2", 3, type="todo_reminder", content=[], itemCount=0),
    ]  # fmt: skip
    found = events(Store(), age(write(src, lines)))
    (message,) = messages(found)
    assert [(a.name, a.text) for a in message.attachments] == [
        ("selected_lines_in_ide", "/home/ana/pager/order.go:10-12\nfor i := range pages {"),
        ("opened_file_in_ide", "/home/ana/pager/doc.md"),
    ]
    assert message.text == "Why is this slow?" and message.src.line == 1
    kinds = [records.kind_of(e) for e in found]
    assert kinds == ["message", "session.title", "reply", "turn.end"]  # in source order


def test_an_at_mentioned_file_keeps_its_path_and_content(src):
    content = {"type": "text", "file": {"filePath": "/a/b.py", "content": "def b(): ..."}}
    lines = [
        prompt("u1", None, 1, "Explain @b.py"),
        attachment("a1", "u1", 1, type="file", filename="/a/b.py", content=content),
    ]
    (message,) = messages(events(Store(), age(write(src, lines))))
    assert message.attachments == [records.Attachment(name="file", text="/a/b.py\ndef b(): ...")]


def test_a_prompt_typed_while_the_agent_worked_is_a_message_where_the_agent_read_it(src):
    lines = [
        queue("enqueue", 2, "also check the race detector"),
        *working(),
        attachment(
            "q1", "u3", 4, type="queued_command", commandMode="prompt",
            prompt="also check the race detector", origin={"kind": "human"},
        ),
        queue("remove", 4, "also check the race detector", reason="absorbed_mid_turn"),
        attachment("n1", "q1", 4, type="queued_command", commandMode="task-notification",
                   prompt="<task-notification><status>completed</status></task-notification>"),
        reply("u4", "n1", 5, "m2", [text("Both pass now.")]),
    ]  # fmt: skip
    found = events(Store(), age(write(src, lines)))
    kinds = [records.kind_of(e) for e in found]
    assert kinds == ["message", "reply", "result", "message", "reply", "turn.end"]
    queued = messages(found)[1]
    assert queued.text == "also check the race detector" and queued.src.line == 5
    assert not queued.attachments


def test_queued_words_absorbed_with_no_queued_command_line_are_a_message_there(src):
    lines = [
        *working(),
        queue("enqueue", 3, "and the docs"),
        queue("remove", 4, "and the docs", reason="absorbed_mid_turn"),
        reply("u4", "u3", 5, "m2", [text("Done, docs too.")]),
    ]
    found = events(Store(), age(write(src, lines)))
    assert [(m.text, m.src.line) for m in messages(found)] == [
        ("Run the tests", 1),
        ("and the docs", 5),
    ]


def test_queued_words_sent_as_the_next_prompt_are_that_prompt_and_nothing_more(src):
    lines = [
        *working(),
        queue("enqueue", 3, "now push it"),
        reply("u4", "u3", 4, "m2", [text("Fixed.")]),
        queue("dequeue", 5),
        prompt("u5", "u4", 5, "now push it"),
    ]
    found = events(Store(), age(write(src, lines)))
    assert [(m.text, m.attachments) for m in messages(found)] == [
        ("Run the tests", []),
        ("now push it", []),
    ]


def test_withdrawn_queued_words_join_the_next_prompt_as_an_attachment(src):
    lines = [
        *working(),
        queue("enqueue", 3, "use the old parser"),
        queue("popAll", 4),
        reply("u4", "u3", 4, "m2", [text("Fixed.")]),
        prompt("u5", "u4", 6, "use the new parser instead"),
        queue("enqueue", 7, "<task-notification>done</task-notification>"),
        queue("popAll", 7),
        prompt("u6", "u5", 8, "thanks"),
    ]
    found = events(Store(), age(write(src, lines)))
    later = messages(found)[1:]
    assert later[0].attachments == [records.Attachment(name="queued", text="use the old parser")]
    assert later[1].attachments == []  # a task notification is the harness's, not a person's


def test_a_live_import_that_ends_on_a_prompt_gives_it_at_once_without_later_context(src):
    lines = [
        prompt("u1", None, 1, "Why is this slow?"),
        attachment("a1", "u1", 1, type="opened_file_in_ide", filename="/a.go"),
        reply("u2", "a1", 2, "m1", [text("It copies.")]),
    ]
    store = Store()
    (message,) = messages(events(store, write(src, lines[:1])))  # live: shown while it works
    assert message.text == "Why is this slow?"
    (message,) = messages(events(store, age(write(src, lines))))
    assert message.attachments == []  # written after the import took the prompt: 0003


@pytest.mark.parametrize("cut", [1, *range(3, 9)])  # not 2: the case above
def test_any_live_cut_then_the_whole_file_gives_the_log_of_one_import(tmp_path, src, cut):
    lines = [
        queue("enqueue", 1, "withdrawn words"),
        prompt("u1", None, 1, "Why is this slow?"),
        attachment("a1", "u1", 1, type="opened_file_in_ide", filename="/a.go"),
        queue("popAll", 2),
        reply("u2", "a1", 2, "m1", [use("c1", "Bash", command="go test")]),
        result("u3", "u2", 3, "c1", "ok"),
        attachment("q1", "u3", 4, type="queued_command", prompt="and the docs"),
        reply("u4", "q1", 5, "m2", [text("Done.")]),
        prompt("u5", "u4", 6, "thanks"),
    ]
    once = Store(tmp_path / "once")
    task = f"cc-{SESSION}"
    events(once, age(write(src, lines)))
    halves = Store(tmp_path / "halves")
    import_paths(halves, "claude", [write(src, lines[:cut])])  # fresh: live
    import_paths(halves, "claude", [age(write(src, lines))])
    assert plain(halves, task) == plain(once, task)
    texts = [m.text for m in messages(log_of(once, task))]
    assert texts == ["Why is this slow?", "and the docs", "thanks"]
    assert messages(log_of(once, task))[1].attachments[0].text == "withdrawn words"
