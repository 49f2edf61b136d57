"""`nodwyn mcp --agent gemini|copilot|opencode|cursor` over a real MCP connection (the SDK's
stdio client), each agent's "this conversation" found as its own logs allow (issue 29):
sessions written in each agent's layout (tests/mcp_sessions.py), one under way and one
earlier task of the same folder, which is refused until the person allows the project."""

import mcp_sessions as write
import pytest
from mcp_client import call, server, talk
from nodwyn import cli
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store

NOW, BEFORE = "zebrafish filter for the pager", "kestrel cache eviction order"
LIVE_ID, OLD_ID = "5e55104e-0000-4000-8000-00000000000a", "5e55104e-0000-4000-8000-00000000000b"


def switch(folder, state: str) -> None:
    assert cli.main(["settings", "earlier-tasks", str(folder), state]) == 0


async def three_calls(session, folder):
    """Tools listed; this conversation searched; earlier tasks asked before and after the
    person allows the project."""
    tools = [tool.name for tool in (await session.list_tools()).tools]
    own = await call(session, "index-search", query="zebrafish")
    refused = await call(session, "index-search", query="kestrel", scope="earlier")
    switch(folder, "on")
    allowed = await call(session, "index-search", query="kestrel", scope="earlier")
    return tools, own, refused, allowed


def check(answers, earlier_task: str) -> None:
    tools, (error1, own), (error2, refused), (error3, allowed) = answers
    assert tools[:3] == ["index-search", "recall", "name-task"]
    assert not error1 and "this conversation" in own and "zebrafish" in own
    assert "kestrel" not in own  # the conversation scope is this session only
    assert error2 and "Only the person" in refused and "earlier-tasks" in refused
    assert not error3 and f"earlier task {earlier_task}" in allowed and "kestrel" in allowed


@pytest.fixture
def work(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def test_gemini_s_conversation_is_its_session_of_the_folder_being_written(agents_home, work):
    old = write.gemini(agents_home, work, OLD_ID, BEFORE, live=False)
    (earlier,) = import_paths(Store(), "gemini", [old]).created
    write.gemini(agents_home, work, LIVE_ID, NOW)
    check(talk(server(work, {}, agent="gemini"), lambda s: three_calls(s, work)), earlier)


def test_copilot_s_conversation_is_the_session_whose_workspace_is_the_folder(agents_home, work):
    old = write.copilot(agents_home, work, OLD_ID, BEFORE, live=False)
    (earlier,) = import_paths(Store(), "copilot", [old]).created
    write.copilot(agents_home, work, LIVE_ID, NOW)
    # newer, but in another folder: not this conversation
    write.copilot(agents_home, work.parent, "c0ffee00-0000-4000-8000-0000000000cc", "osprey")
    check(talk(server(work, {}, agent="copilot"), lambda s: three_calls(s, work)), earlier)


def test_opencode_s_conversation_is_the_session_id_it_sends_with_each_call(agents_home, work):
    # both sessions are being written: only the id OpenCode sends tells them apart
    write.opencode(agents_home, work, {"ses_old": (BEFORE, True), "ses_now": (NOW, True)})

    async def script(session):
        meta = {"sessionID": "ses_now"}
        own = await call(session, "index-search", meta=meta, query="zebrafish")
        other = await call(session, "index-search", meta=meta, query="kestrel")
        switch(work, "on")
        allowed = await call(session, "index-search", meta=meta, query="kestrel", scope="earlier")
        return own, other, allowed

    (error1, own), (_, other), (error3, allowed) = talk(server(work, {}, agent="opencode"), script)
    assert not error1 and "this conversation" in own and "zebrafish" in own
    assert "Nothing in this conversation" in other
    assert not error3 and "earlier task oc-ses_old" in allowed


def test_opencode_without_an_id_takes_the_folders_session_being_written(agents_home, work):
    write.opencode(agents_home, work, {"ses_old": (BEFORE, False), "ses_now": (NOW, True)})
    check(talk(server(work, {}, agent="opencode"), lambda s: three_calls(s, work)), "oc-ses_old")


def test_cursor_s_conversation_is_the_composer_of_the_folder_it_names(agents_home, work):
    composers = {"c0ffee00-0000-4000-8000-00000000000b": (BEFORE, False),
                 "c0ffee00-0000-4000-8000-00000000000a": (NOW, True)}  # fmt: skip
    write.cursor(agents_home / "Cursor" / "User", work, composers)
    # Cursor starts the server in the home folder and names the workspace in its arguments
    params = server(agents_home, {}, agent="cursor")
    params.args += ["--folder", str(work)]
    earlier = "cu-c0ffee00-0000-4000-8000-00000000000b"
    check(talk(params, lambda s: three_calls(s, work)), earlier)


def test_with_no_session_being_written_only_earlier_tasks_are_searched(agents_home, work):
    old = write.gemini(agents_home, work, OLD_ID, BEFORE, live=False)
    (earlier,) = import_paths(Store(), "gemini", [old]).created

    async def script(session):
        own = await call(session, "index-search", query="kestrel")
        named = await call(session, "name-task", title="Pager cache order")
        refused = await call(session, "index-search", query="kestrel", scope="earlier")
        switch(work, "on")
        allowed = await call(session, "index-search", query="kestrel", scope="earlier")
        recalled = await call(session, "recall", seq=2, task=earlier)
        return own, named, refused, allowed, recalled

    answers = talk(server(work, {}, agent="gemini"), script)
    (e1, own), (e2, named), (e3, refused), (e4, allowed), (e5, recalled) = answers
    assert e1 and own.startswith("this conversation is not known yet: earlier tasks only")
    assert "gemini (Gemini CLI)" in own and "nodwyn mcp install gemini" in own
    assert e2 and "not known yet" in named and Store().get(earlier).title != "Pager cache order"
    assert e3 and "Only the person" in refused
    assert not e4 and f"earlier task {earlier}" in allowed
    assert not e5 and earlier in recalled


def test_cursor_s_unfilled_folder_placeholder_falls_back_to_where_it_started(agents_home, work):
    composers = {"c0ffee00-0000-4000-8000-00000000000a": (NOW, True)}
    write.cursor(agents_home / "Cursor" / "User", work, composers)
    params = server(work, {}, agent="cursor")
    params.args += ["--folder", "${workspaceFolder}"]

    async def script(session):
        return await call(session, "index-search", query="zebrafish")

    error, text = talk(params, script)
    assert not error and "this conversation" in text and "zebrafish" in text
