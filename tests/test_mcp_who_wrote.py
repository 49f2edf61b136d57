"""who-wrote over a real MCP connection (issue 25): lines of a file answered with the card of
the turn that wrote them, under the same per-project leave as index-search."""

import pytest
from blame_sessions import PROJECT, PROMPTS, applied, pager_session
from corpus_writers import Claude, dump, text
from mcp_client import call, server, talk
from nodwyn import cli
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store


@pytest.fixture
def setup(tmp_path):
    """The pager session and a later one of the same project, imported; the file they left in
    a checkout named as the project's folder; the two task ids."""
    later = Claude("5e55a0e1-0000-4000-8000-00000000a002", PROJECT, "2.1.20", "2026-11-21")
    later.prompt("What does pages.py do?")
    later.reply("msg_x", text("It prints pages by number."))
    for session in (pager_session(), later):
        source = tmp_path / "claude" / "-home-ana-pager" / f"{session.session}.jsonl"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_bytes(b"".join(dump(line) for line in session.lines))
    report = import_paths(Store(), "claude", [tmp_path / "claude"])
    work = tmp_path / "src" / "pager"
    work.mkdir(parents=True)
    (work / "pages.py").write_text(applied()[0], encoding="utf-8")
    wrote, asks = sorted(report.created, key=lambda task: "a002" in task)
    return {"work": work, "wrote": wrote, "asks": asks}


def asked(setup, task: str, **arguments):
    async def script(session):
        return await call(session, "who-wrote", **arguments)

    return talk(server(setup["work"], {"NODWYN_SESSION": task}), script)


def test_lines_written_in_this_conversation_come_with_their_turns_card(setup):
    error, answer = asked(setup, setup["wrote"], file="pages.py", start=3, end=5)
    assert not error, answer
    assert "this conversation" in answer and f"asked: {PROMPTS[1]}" in answer
    assert "3: session · turn" in answer and "<nodwyn-data>" in answer


def test_an_earlier_tasks_turn_needs_the_persons_leave(setup):
    error, answer = asked(setup, setup["asks"], file="pages.py", start=1)
    assert error and "not allowed" in answer and PROMPTS[0] not in answer
    assert cli.main(["settings", "earlier-tasks", PROJECT, "on"]) == 0
    error, answer = asked(setup, setup["asks"], file="pages.py", start=1)
    assert not error and f"earlier task {setup['wrote']}" in answer and PROMPTS[0] in answer


def test_bad_arguments_are_refused_in_a_line(setup):
    error, answer = asked(setup, setup["wrote"], file="pages.py", start=0)
    assert error and "line numbers" in answer
    error, answer = asked(setup, setup["wrote"], file="nothing.py", start=1)
    assert error and "no file" in answer
