"""The running app answers every search (issue 13): the CLI and `nodwyn mcp` ask it over the
local API when its address file is there and alive, and search in-process otherwise, with the
same output either way."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from memory_logs import turn, write
from nodwyn import api, memory
from nodwyn.background import running
from nodwyn.tasks.store import Store

TASK = "cc-pager"


@pytest.fixture
def store(data_dir):
    store = Store(data_dir)
    write(store, TASK, turn("Fix the flaky TestPagerOrder", reply="the pager sorts by time now"))
    write(store, TASK, turn("Now the grant application draft", reply="drafted it", t0=10))
    write(store, "cc-other", turn("Release notes for the pager", reply="written"), "/work/q")
    return store


@pytest.fixture
def served(store):
    server = api.Server(store).start()
    yield server
    server.stop()


def nodwyn(data_dir, *args, trace=False):
    """A new `nodwyn` process: (stdout, stderr, modules it imported when traced)."""
    command = [sys.executable, *(["-X", "importtime"] if trace else []), "-m", "nodwyn.cli"]
    done = subprocess.run(
        [*command, "--data-dir", str(data_dir), *args],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    lines = done.stderr.splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    said = "\n".join(line for line in lines if not line.startswith("import time:"))
    return done.returncode, done.stdout, said, imported


COMMANDS = [
    ("memory", "search", "pager"),
    ("memory", "search", "pager", "--json"),
    ("memory", "search", "pager", "--mode", "words", "-n", "1"),
    ("memory", "search", "grant", "--task", TASK, "--json"),
    ("memory", "recall", TASK, "2"),
    ("memory", "recall", TASK, "2", "1", "2", "--json"),
    ("memory", "recall", TASK, "3"),
]


def test_search_and_recall_print_the_same_with_the_app_running_as_without(store, data_dir):
    alone = [nodwyn(data_dir, *command) for command in COMMANDS]
    server = api.Server(store).start()
    try:
        asked = [nodwyn(data_dir, *command, trace=True) for command in COMMANDS]
    finally:
        server.stop()
    for command, (code, out, _, _), (code_app, out_app, said, imported) in zip(
        COMMANDS, alone, asked, strict=True
    ):
        assert (code_app, out_app) == (code, out), command
        assert out.strip() and "loaded the sentence model" not in said
        assert "msgspec" not in imported and "nodwyn.memory" not in imported, command


def test_an_error_the_app_answers_is_the_same_one_line_as_in_process(store, data_dir):
    command = ("memory", "recall", "cc-nobody", "2")
    alone = nodwyn(data_dir, *command)
    server = api.Server(store).start()
    try:
        asked = nodwyn(data_dir, *command)
    finally:
        server.stop()
    hinted = "nodwyn: no task cc-nobody (`nodwyn sessions --all` lists the task ids)"
    assert asked[:3] == alone[:3] == (1, "", hinted)


def test_the_address_file_is_the_persons_own_and_is_removed_when_the_app_stops(store, data_dir):
    server = api.Server(store).start()
    entry = json.loads((data_dir / running.FILE).read_text())
    mode = (data_dir / running.FILE).stat().st_mode & 0o777
    server.stop()
    assert entry == {"pid": os.getpid(), "port": server.port, "token": server.token}
    assert mode == 0o600
    assert not (data_dir / running.FILE).exists()


def test_a_served_process_that_is_ended_takes_its_address_file_with_it(store, data_dir):
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "serve"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        try:
            assert "nodwyn serves" in serve.stdout.readline()
            assert json.loads((data_dir / running.FILE).read_text())["pid"] == serve.pid
        finally:
            serve.terminate()
            serve.wait(timeout=30)
    assert serve.returncode == -15  # ended by the signal, as ever
    assert not (data_dir / running.FILE).exists()


def blocked_signals(pid: int, tid: int) -> int:
    for line in Path(f"/proc/{pid}/task/{tid}/status").read_text().splitlines():
        if line.startswith("SigBlk:"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no SigBlk for thread {tid}")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads Linux's /proc")
def test_every_thread_of_a_served_process_leaves_its_end_to_the_main_thread(store, data_dir):
    """A SIGTERM the kernel gives to a server thread must still end `nodwyn serve`: every
    thread blocks it and the main thread waits for it (once, a CI run's served process
    outlived its SIGTERM and the suite hung in the browser fixture's teardown)."""
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "serve"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        try:
            url = serve.stdout.readline().split(" at ")[1].strip()
            with urllib.request.urlopen(url, timeout=30) as page:  # a request's thread too
                assert page.status == 200
            tids = [int(tid) for tid in os.listdir(f"/proc/{serve.pid}/task")]
            others = [tid for tid in tids if tid != serve.pid]  # the main thread's tid is the pid
            assert others
            term = 1 << (signal.SIGTERM - 1)
            assert all(blocked_signals(serve.pid, tid) & term for tid in others)
        finally:
            serve.terminate()
            serve.wait(timeout=30)
    assert serve.returncode == -signal.SIGTERM


def test_ctrl_c_stops_a_served_process_and_takes_its_address_file_with_it(store, data_dir):
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "serve"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as serve:
        assert "nodwyn serves" in serve.stdout.readline()
        serve.send_signal(signal.SIGINT)
        _, said = serve.communicate(timeout=30)
    assert (serve.returncode, said) == (130, "nodwyn: stopped\n")
    assert not (data_dir / running.FILE).exists()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ended_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


@pytest.mark.parametrize(
    ("stale", "said"),
    [
        ("pid gone", "has ended (process"),
        ("nothing on the port", "does not answer on port"),
        ("another launch's token", "is another app's or launch's"),
        ("not JSON", "is not an app's address"),
    ],
)
def test_a_stale_address_file_is_known_at_once_and_the_search_runs_in_process_and_says_so(
    store, data_dir, stale, said
):
    alone = nodwyn(data_dir, "memory", "search", "pager", "--mode", "words")
    server = api.Server(store, announce=False).start()
    try:
        entry = {
            "pid gone": {"pid": ended_pid(), "port": server.port, "token": server.token},
            "nothing on the port": {"pid": os.getpid(), "port": closed_port(), "token": "t"},
            "another launch's token": {"pid": os.getpid(), "port": server.port, "token": "old"},
        }.get(stale)
        (data_dir / running.FILE).write_text(json.dumps(entry) if entry else "{half a file")
        began = time.perf_counter()
        with pytest.raises(running.Stale, match=re.escape(said)):
            running.ask(data_dir, "search", {"q": "pager"})
        assert time.perf_counter() - began < 0.3
        (data_dir / running.FILE).write_text(json.dumps(entry) if entry else "{half a file")
        fallen = nodwyn(data_dir, "memory", "search", "pager", "--mode", "words", trace=True)
    finally:
        server.stop()
    assert fallen[:2] == alone[:2] and "nodwyn.memory" in fallen[3]
    assert said in fallen[2] and fallen[2].endswith(": searched in this process)")
    assert (data_dir / running.FILE).exists() == (stale != "pid gone")  # a dead app's: removed


def test_the_cli_through_the_running_app_finds_the_same_hits_as_in_process(store, data_dir):
    searches = [("pager",), ("grant", "draft", "-n", "1"), ("pager", "--task", TASK)]
    memory.encode(store)  # as the app's worker does
    alone = [nodwyn(data_dir, "memory", "search", *words, "--json") for words in searches]
    server = api.Server(store).start()
    try:
        asked = [nodwyn(data_dir, "memory", "search", *words, "--json") for words in searches]
    finally:
        server.stop()
    for (code, out, said, _), (code_app, out_app, said_app, _) in zip(alone, asked, strict=True):
        assert code == code_app == 0 and said_app == "" and "loaded the sentence model" in said
        assert json.loads(out_app) == json.loads(out) and json.loads(out)["turns"] != []


def test_in_process_a_search_by_meaning_says_it_loaded_the_model_and_how_long_it_took(
    store, data_dir
):
    _, _, said, _ = nodwyn(data_dir, "memory", "search", "pager", "--mode", "both")
    _, _, said_words, _ = nodwyn(data_dir, "memory", "search", "pager", "--mode", "words")
    assert "loaded the sentence model in this process" in said and " s; " in said
    assert said_words == ""


AGENT = """
import sys
from pathlib import Path
from nodwyn.tasks.store import Store
from nodwyn.mcp.toolbox import Toolbox
box = Toolbox(Store(Path(sys.argv[1])), "claude", Path("/work/p"))
for name, arguments in (("index-search", {"query": "pager"}), ("recall", {"seq": 2})):
    print(box.run(name, arguments).text)
from nodwyn.memory.words import opened
print("closes its index when unused:", opened._closer is not None)
print("model loaded here:", "nodwyn.memory.meaning.encoder" in sys.modules)
"""


def test_the_agents_tools_ask_the_running_app_and_answer_the_same(store, data_dir):
    def agent():
        env = dict(os.environ, NODWYN_SESSION=TASK)
        done = subprocess.run([sys.executable, "-c", AGENT, str(data_dir)],
                              capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        text, said = done.stdout.split("closes its index when unused: ")
        return [text, *said.split("model loaded here: ")]

    alone = agent()
    server = api.Server(store).start()
    try:
        asked = agent()
    finally:
        server.stop()
    assert asked[0] == alone[0] and "TestPagerOrder" in alone[0]
    # the agent's server that searched itself closes its index when unused
    assert (alone[1], asked[1]) == ("True\n", "False\n")
    assert (alone[2], asked[2]) == ("True\n", "False\n")
