"""The command line imports only what its command needs on the hot paths: read from `python -X
importtime` of real `nodwyn` processes, so a heavy module that comes back on one of them fails
here."""

import subprocess
import sys

import pytest
from memory_logs import turn, write
from nodwyn import api, cli, memory
from nodwyn.background import scrub
from nodwyn.tasks.store import Store

# Each is tens of milliseconds of a new process, or a library only some commands need.
HEAVY = {
    "msgspec": "the store's records (35 ms with typing, inspect, uuid, decimal)",
    "typing": "typing machinery (msgspec's, pydantic's)",
    "inspect": "typing machinery (msgspec's, pydantic's)",
    "uuid": "msgspec's imports",
    "decimal": "msgspec's imports",
    "numpy": "search by meaning",
    "tantivy": "the word index",
    "bottle": "the local API's server",
    "mcp": "the MCP SDK",
    "ssl": "http.client's imports (a request to the running app)",
    "email": "http.client's imports (a request to the running app)",
    "argparse": "the parser",
    "shutil": "argparse's help width (with bz2, lzma, zlib)",
    "urllib": "a request's query, encoded (ipaddress, enum)",
    "ast": "inspect's, through typing_extensions (msgspec's optional import: 6 ms in all)",
    "logging": "scrub.py's log, wanted only when a scrub is due (with traceback: 2-3 ms)",
    "threading": "a lock made by _thread alone",
    "socket": "a request to the running app (selectors, enum's conversions)",
    "platform": "uuid's (msgspec's)",
    "pathlib": "paths as objects (fnmatch, urllib.parse, ipaddress: 2.5 ms)",
    "nodwyn.tasks.store": "the store (its catalogue, logs and records)",
    "nodwyn.memory.words.index": "the word index's writer (msgspec, the catalogue, the folds)",
}


def imported(data_dir, *args: str) -> set[str]:
    command = [sys.executable, "-X", "importtime", "-m", "nodwyn.cli", "--data-dir", str(data_dir)]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr
    return _modules(done.stderr)


def _modules(trace: str) -> set[str]:
    names = {line.split("|")[-1].strip() for line in trace.splitlines() if "|" in line}
    return {name.split(".")[0] for name in names} | names


@pytest.fixture(scope="module")
def python_itself() -> set[str]:
    """What this Python loads before any of nodwyn's code (site, .pth files, the editable
    install's finder): not nodwyn's to answer for."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return _modules(done.stderr)


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "data")
    write(store, "cc-pager", turn("Fix the flaky TestPagerOrder", reply="sorted by time now"))
    scrub.scrub_if_due(store)  # the logs redacted by today's rules, as any earlier command does
    store.list_json()  # the catalogue made current, as after any earlier command
    return store


def heavy(modules: set[str], python_itself: set[str], *allowed: str) -> dict[str, str]:
    return {
        name: why
        for name, why in HEAVY.items()
        if name in modules and name not in python_itself and name not in allowed
    }


@pytest.mark.parametrize("args", [("sessions", "--json"), ("sessions",), ("sessions", "--all")])
def test_a_listing_from_a_current_catalogue_imports_nothing_heavy(store, python_itself, args):
    assert heavy(imported(store.root, *args), python_itself) == {}


# What asking the running app takes: the parser, and a socket and json for the request line
# (not http.client, whose email package and ssl cost more than a whole SQLite FTS5 search).
ASKING = ("argparse", "socket")


def test_search_and_recall_with_the_app_running_import_no_store_index_or_model(
    store, python_itself
):
    server = api.Server(store).start()
    try:
        searched = imported(store.root, "memory", "search", "pager")
        recalled = imported(store.root, "memory", "recall", "cc-pager", "2")
    finally:
        server.stop()
    assert heavy(searched, python_itself, *ASKING) == {}
    assert heavy(recalled, python_itself, *ASKING) == {}


@pytest.mark.parametrize("changed", [False, True])
def test_a_search_by_words_in_process_imports_no_model_server_or_sdk(store, changed):
    """With the index current, and with a change not yet indexed (the search folds it in)."""
    memory.refresh_words(store)  # the index built, as after any earlier search or the app
    if changed:
        write(store, "cc-pager", turn("a later turn about the pager"))
    for args in (("pager",), ("pager", "--json"), ("--task", "cc-pager", "pager")):
        modules = imported(store.root, "memory", "search", *args, "--mode", "words")
        assert {"msgspec", "tantivy", "nodwyn.memory.fusion"} <= modules
        assert not {"numpy", "bottle", "mcp", "ssl", "email", "socket"} & modules


def test_only_the_parser_of_the_commands_own_group_is_built():
    def commands(parser) -> set[str]:
        return set(parser._subparsers._group_actions[0].choices)

    assert commands(cli.build_parser("sessions")) == {"sessions"}
    assert commands(cli.build_parser("memory")) == {"memory"}
    assert commands(cli.build_parser("rename")) == {
        "rename", "archive", "unarchive", "close", "resume", "delete"
    }  # fmt: skip
    assert commands(cli.build_parser(None)) == set(cli.GROUPS)


def test_the_quick_listing_prints_what_the_full_parser_prints(store):
    def listing(*args: str) -> str:
        command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(store.root), *args]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    quick = [listing("sessions"), listing("sessions", "--all"), listing("sessions", "--json")]
    (store.root / "catalogue.jsonl").unlink()  # the next listings fold it again, by argparse
    folded = [listing("sessions"), listing("sessions", "--all"), listing("sessions", "--json")]
    assert quick == folded and "[running] Fix the flaky TestPagerOrder" in quick[0]
