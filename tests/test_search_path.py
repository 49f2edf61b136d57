"""One search path: a search from the command line, from the page (the HTTP route) and from an
agent's MCP tool all come to the same function, memory.search (fusion.search), whether it runs
in the app or in the caller's own process. Read from the call stack each time that function is
entered (a profile hook on every thread), with the real app on 127.0.0.1 and no stand-ins."""

import json
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from memory_logs import turn, write
from nodwyn import api, cli, memory
from nodwyn.errors import BadInput
from nodwyn.mcp.toolbox import Toolbox
from nodwyn.memory import fusion
from nodwyn.tasks.store import Store

TASK = "cc-pager"


@pytest.fixture
def store(data_dir, monkeypatch):
    monkeypatch.setenv("NODWYN_SESSION", TASK)  # the agent's conversation, for its MCP tool
    monkeypatch.setenv("NODWYN_SERVICE", "0")  # a search by words never starts one anyway
    store = Store(data_dir)
    write(store, TASK, turn("Fix the flaky TestPagerOrder", reply="the pager sorts by time now"))
    write(store, "cc-other", turn("Release notes for the pager", reply="written"))
    return store


class Entered:
    """The call stacks (function names, outermost first) with which fusion.search was entered,
    on any thread, while this is on."""

    def __init__(self):
        self.stacks: list[list[str]] = []
        self._lock = threading.Lock()

    def hook(self, frame, event, _arg):
        if event != "call" or frame.f_code is not fusion.search.__code__:
            return
        names = []
        while frame is not None:
            names.append(f"{frame.f_globals.get('__name__')}.{frame.f_code.co_qualname}")
            frame = frame.f_back
        with self._lock:
            self.stacks.append(names[::-1])

    def __enter__(self):
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)
        return self

    def __exit__(self, *_):
        sys.setprofile(None)
        threading.setprofile(None)

    def taken(self) -> list[list[str]]:
        with self._lock:
            taken, self.stacks = self.stacks, []
        return taken


def cli_search(store, capsys) -> dict:
    argv = ["--data-dir", str(store.root), "memory", "search", "pager", "--mode", "words"]
    assert cli.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def page_search(server) -> dict:
    query = urllib.parse.urlencode({"q": "pager", "mode": "words"})
    asked = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/search?{query}",
                                   headers={"X-Nodwyn-Token": server.token})  # fmt: skip
    with urllib.request.urlopen(asked, timeout=30) as answer:
        return json.loads(answer.read())


def mcp_search(store) -> str:
    return Toolbox(store, "claude", Path("/work/p")).run("index-search", {"query": "pager"}).text


SEARCH = "nodwyn.memory.fusion.search"
ROUTE = "nodwyn.api.routes.Handlers.search"


def test_cli_page_and_mcp_searches_all_enter_memory_search(store, capsys):
    with Entered() as entered:
        alone = cli_search(store, capsys)
        [cli_here] = entered.taken()
        mcp_alone = mcp_search(store)
        [mcp_here] = entered.taken()
        server = api.Server(store).start()
        try:
            asked = cli_search(store, capsys)
            [cli_app] = entered.taken()
            paged = page_search(server)
            [page] = entered.taken()
            mcp_asked = mcp_search(store)
            [mcp_app] = entered.taken()
        finally:
            server.stop()
    assert memory.search is fusion.search
    for stack in (cli_here, mcp_here, cli_app, page, mcp_app):
        assert stack[-1] == SEARCH and SEARCH not in stack[:-1]  # entered once, from outside
    # in its own process: from the command, from the agent's tool
    assert "nodwyn.cli.memory.search_here" in cli_here and ROUTE not in cli_here
    assert "nodwyn.mcp.toolbox.Toolbox.searched" in mcp_here and ROUTE not in mcp_here
    # in the app, which the command, the page and the agent's tool asked: from its route alone
    assert [stack[-2] for stack in (cli_app, page, mcp_app)] == [ROUTE] * 3
    assert alone == asked and paged["turns"] == asked["turns"] != []
    assert mcp_alone == mcp_asked and "TestPagerOrder" in mcp_alone


def test_a_search_while_an_import_runs_is_by_words_over_what_is_indexed(store):
    memory.search(store, "pager")  # the index made
    write(store, TASK, turn("the zeppelin arrived", t0=20))  # not indexed yet
    during = memory.search(store, "zeppelin", mode="both", importing=True)
    after = memory.search(store, "zeppelin", mode="words")
    assert during.mode == "words" and during.turns == []
    assert [hit.task for hit in after.turns] == [TASK]


def test_a_mode_not_known_is_refused_by_the_search_itself(store):
    server = api.Server(store).start()
    try:
        query = urllib.parse.urlencode({"q": "pager", "mode": "vibes"})
        asked = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/search?{query}",
                                       headers={"X-Nodwyn-Token": server.token})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as page:
            urllib.request.urlopen(asked, timeout=30)
    finally:
        server.stop()
    said = json.loads(page.value.read())["error"]
    assert page.value.code == 400 and said == "mode is one of words, meaning, both, not 'vibes'"
    with pytest.raises(BadInput, match="not 'vibes'"):
        memory.search(store, "pager", mode="vibes", importing=True)


def test_no_export_of_memory_is_shadowed_by_a_submodule():
    import importlib

    for name in ("cards.fold", "readback", "fusion", "words.search", "cards", "meaning"):
        importlib.import_module(f"nodwyn.memory.{name}")
    assert type(memory) is type(sys)  # a plain module, its class left alone
    for name in memory.__all__:
        assert not isinstance(getattr(memory, name), type(sys)), name
