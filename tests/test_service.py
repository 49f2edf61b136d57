"""The search service (issue 23), with real processes: the first search by meaning with no app
starts it, later ones ask it, two at once start one, and it ends by itself: unused, when an
app (here `nodwyn serve`, which announces itself the same way) takes its place, when its data
directory is gone, at SIGHUP; `--no-service` keeps a search in its own process."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memory_logs import turn, write
from nodwyn import settings
from nodwyn.background import running
from nodwyn.tasks.store import Store

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the processes")
DEADLINE = 60.0  # seconds a process is given to do what is waited for


@pytest.fixture
def data(tmp_path):
    store = Store(tmp_path / "service-data")
    write(store, "gpu", turn("install the cuda toolkit on the laptop", reply="installed nvcc"))
    write(store, "paper", turn("the latex bibliography shows question marks", reply="fixed"))
    yield store.root
    for pid in services(store.root):  # what a failed test left: ended by its id
        os.kill(pid, signal.SIGTERM)


def env() -> dict:
    found = {key: value for key, value in os.environ.items() if key != "NODWYN_SERVICE"}
    found["NODWYN_MODEL_KEEP_ALIVE"] = "5"
    return found


def search(root: Path, *words: str, wait: bool = True):
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(root), "memory", "search",
               "--json", *words]  # fmt: skip
    if not wait:
        return subprocess.Popen(command, env=env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
    return subprocess.run(command, env=env(), capture_output=True, text=True, timeout=DEADLINE)


def services(root: Path) -> list[int]:
    """The running (not ended) `serve --service` processes of this data directory."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if b"--service" in line and str(root).encode() in line and state != "Z":
            found.append(int(entry.name))
    return found


def served_by(root: Path) -> int:
    return json.loads((root / running.FILE).read_text())["pid"]


def until(condition, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_the_first_search_by_meaning_starts_the_service_and_the_next_asks_it(data):
    first = search(data, "nvidia", "graphics", "drivers")
    assert first.returncode == 0, first.stderr
    assert "started the search service" in first.stderr
    assert json.loads(first.stdout)["mode"] == "both"
    [pid] = services(data)
    assert served_by(data) == pid
    second = search(data, "cuda", "toolkit")
    assert second.returncode == 0 and "started" not in second.stderr
    assert [turn["task"] for turn in json.loads(second.stdout)["turns"]][:1] == ["gpu"]
    assert services(data) == [pid]


def test_two_searches_at_once_start_one_service(data):
    both = [search(data, "cuda", "drivers", wait=False) for _ in range(2)]
    for process in both:
        assert process.wait(timeout=DEADLINE) == 0, process.stderr.read()
        process.stdout.close(), process.stderr.close()
    assert len(services(data)) == 1


def test_the_service_ends_once_unused_for_its_idle_time(data):
    settings.update(data, search_service_idle=1)
    assert search(data, "cuda").returncode == 0
    [pid] = services(data)
    until(lambda: pid not in services(data), "the service outlived its idle time")
    assert not (data / running.FILE).exists()  # withdrawn as it ended


def test_a_server_started_while_the_service_runs_takes_its_place(data):
    assert search(data, "cuda").returncode == 0
    [pid] = services(data)
    serve = subprocess.Popen([sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data),
                              "serve"], env=env(), stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert "nodwyn serves" in serve.stdout.readline()
        until(lambda: pid not in services(data), "the service did not hand over")
        assert served_by(data) == serve.pid
        found = search(data, "cuda")
        assert found.returncode == 0 and "started" not in found.stderr and not services(data)
    finally:
        serve.terminate()
        serve.wait(timeout=DEADLINE)
        serve.stdout.close()


def test_the_service_ends_when_its_data_directory_is_gone(data):
    assert search(data, "cuda").returncode == 0
    [pid] = services(data)
    shutil.rmtree(data)
    until(lambda: pid not in services(data), "the service outlived its data directory")


def test_the_service_ends_at_a_hangup(data):
    assert search(data, "cuda").returncode == 0
    [pid] = services(data)
    os.kill(pid, signal.SIGHUP)
    until(lambda: pid not in services(data), "the service outlived SIGHUP")


def test_no_service_keeps_the_search_in_its_own_process(data):
    found = search(data, "cuda", "--no-service")
    assert found.returncode == 0 and "loaded the sentence model in this process" in found.stderr
    assert not services(data) and not (data / running.FILE).exists()
    settings.update(data, search_service=False)
    assert search(data, "cuda").returncode == 0 and not services(data)


def test_a_search_by_words_starts_no_service(data):
    assert search(data, "cuda", "--mode", "words").returncode == 0
    assert not services(data)


def test_status_says_how_far_the_vectors_are_and_what_the_service_is_doing(data):
    said = status_line(data)
    assert "no app or search service is running; meaning covers 0 of 2 tasks" in said
    assert search(data, "cuda").returncode == 0
    until(lambda: "idle" in status_line(data), "the service's encoding did not end")
    assert json.loads(status_line(data, "--json"))["serving"] is True


def status_line(root: Path, *extra: str) -> str:
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(root), "status", *extra]
    return subprocess.run(command, env=env(), capture_output=True, text=True,
                          timeout=DEADLINE).stdout  # fmt: skip


def test_the_time_left_is_counted_at_the_pace_of_the_tasks_encoded_not_of_those_passed_over():
    from nodwyn.background.feed import Status

    status = Status()
    status.set("encoding", 0, 10)
    for done in (1, 2, 3):  # encoded before: passed over at once
        status.set("encoding", done, 10)
    began = time.monotonic()  # after the last pass: the pace is counted from there, not before
    while time.monotonic() - began < 0.2:
        pass  # the fourth task takes 0.2 s to encode
    status.set("encoding", 4, 10)
    assert 6 * 0.2 <= status.snapshot().left < 6 * 0.2 * 1.5  # six more at 0.2 s each
