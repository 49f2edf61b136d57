"""The sentence model in a process of its own (issue 16): the app and `nodwyn serve` never
load onnxruntime themselves; their child makes the same vectors, ends after its keep-alive, is
started again on the next need, and a child dying mid-request fails search open to words."""

import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import threading
import time

import numpy as np
import pytest
from memory_logs import turn, without_the_sentence_model, write
from nodwyn import memory
from nodwyn.memory.meaning import encoder, model_process, vectors
from nodwyn.memory.meaning.model_process import Child, Gone
from nodwyn.tasks.store import Store

TEXTS = [
    "install the cuda toolkit on the laptop",
    "",
    "why does the pager sort by time? " * 40,  # long enough to be cut at 256 tokens
    "héllo wörld, ünïcode and emoji 🙂",
]
DEADLINE = 30.0  # seconds a child is given to do what is waited for


@pytest.fixture
def child():
    made = Child(encoder.MODEL, wait=-1)
    yield made
    made.stop()


def ended(process: subprocess.Popen) -> int:
    """The return code of a child once it has ended (within DEADLINE)."""
    return process.wait(timeout=DEADLINE)


def test_the_child_makes_the_same_vectors_bit_for_bit_as_the_model_in_this_process(child):
    here = encoder.Sentence().encode(TEXTS)
    there = child.encode(TEXTS)
    assert there.dtype == np.float32 and there.shape == here.shape
    assert np.array_equal(there, here)
    assert child.id == encoder.Sentence().id


def test_the_child_ends_at_the_end_of_its_keep_alive_and_starts_again_on_the_next_need():
    model = Child(encoder.MODEL, wait=0.5)
    try:
        first = model.encode(TEXTS[:1])
        process, began = model.process, time.monotonic()
        assert ended(process) == 0  # it ended at the end of its stdin, not killed
        assert time.monotonic() - began >= 0.4 and model.pid is None
        assert np.array_equal(model.encode(TEXTS[:1]), first)
        assert model.process is not process and model.pid is not None
    finally:
        model.stop()


def test_a_request_keeps_the_child_for_another_keep_alive(child):
    child.wait = 60.0
    child.encode(TEXTS[:1])
    child.wait = 0.3  # the next request arms the shorter keep-alive
    child.encode(TEXTS[:1])
    assert ended(child.process) == 0


def test_the_keep_alive_is_read_from_the_environment(monkeypatch):
    from nodwyn.memory.meaning import model_process

    monkeypatch.setenv("NODWYN_MODEL_KEEP_ALIVE", "12.5")
    assert model_process.keep_alive() == 12.5
    for unset in ("", "soon"):
        monkeypatch.setenv("NODWYN_MODEL_KEEP_ALIVE", unset)
        assert model_process.keep_alive() == 300.0


def test_two_threads_encoding_at_once_each_get_their_own_vectors(child):
    expected = {text: encoder.Sentence().encode([text]) for text in TEXTS[::2]}
    got: dict = {}

    def encode(text):
        got[text] = [child.encode([text]) for _ in range(5)]

    threads = [threading.Thread(target=encode, args=(text,)) for text in expected]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    for text, rows in expected.items():
        assert all(np.array_equal(found, rows) for found in got[text])


def test_a_query_is_answered_while_the_cards_of_a_long_request_are_still_being_encoded(child):
    cards = [f"card {n}: why does the pager sort by time? " * 30 for n in range(40)]
    child.encode(TEXTS[:1])  # started
    done = threading.Event()
    thread = threading.Thread(target=lambda: (child.encode(cards), done.set()))
    thread.start()
    try:
        time.sleep(0.3)  # the cards' request is in the child (40 long texts: seconds of work)
        assert not done.is_set()
        query = child.encode_query("nvidia drivers")
        assert not done.is_set()  # answered ahead of the cards, not after them
        assert np.array_equal(query, encoder.Sentence().encode(["nvidia drivers"])[0])
    finally:
        thread.join(DEADLINE)
    assert done.is_set()


def waiting(process: subprocess.Popen) -> bool:
    """Whether a request waits unread in the child's stdin (Linux: FIONREAD on the pipe)."""
    unread = fcntl.ioctl(process.stdin.fileno(), termios.FIONREAD, b"\0\0\0\0")
    return int.from_bytes(unread, sys.byteorder) > 0


def kill_mid_request(child, work) -> list:
    """Run `work` in a thread while the child is stopped; kill the child once the request is
    in its pipe; what `work` returned or raised."""
    child.encode(TEXTS[:1])  # started
    process = child.process
    os.kill(process.pid, signal.SIGSTOP)
    out: list = []
    thread = threading.Thread(target=lambda: out.append(_outcome(work)))
    thread.start()
    deadline = time.monotonic() + DEADLINE
    while not waiting(process) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    thread.join(DEADLINE)
    return out


def _outcome(work):
    try:
        return work()
    except Exception as exc:  # noqa: BLE001  what the work raised is the outcome
        return exc


@pytest.mark.skipif(sys.platform != "linux", reason="FIONREAD on a pipe, SIGSTOP")
def test_a_child_dying_mid_request_raises_unavailable_and_the_next_request_starts_another(child):
    (outcome,) = kill_mid_request(child, lambda: child.encode(TEXTS))
    assert isinstance(outcome, Gone) and isinstance(outcome, encoder.Unavailable)
    assert "ended in the middle of a request" in str(outcome)
    assert np.array_equal(child.encode(TEXTS), encoder.Sentence().encode(TEXTS))


@pytest.mark.skipif(sys.platform != "linux", reason="FIONREAD on a pipe, SIGSTOP")
def test_a_search_whose_child_dies_falls_back_to_words_then_means_again(
    data_dir, child, monkeypatch
):
    store = Store(data_dir)
    write(store, "gpu", turn("install the cuda toolkit on the laptop", reply="installed nvcc"))
    monkeypatch.setattr(encoder, "_builtin", child)
    vectors.update(store.log_path("gpu"), child)  # only the query is left to encode
    (found,) = kill_mid_request(child, lambda: memory.search(store, "cuda toolkit", mode="both"))
    assert found.mode == "words" and [hit.task for hit in found.turns] == ["gpu"]
    again = memory.search(store, "graphics card drivers", mode="both")
    assert again.mode == "both" and child.pid is not None


def test_where_the_child_cannot_load_the_model_the_static_table_serves(tmp_path, monkeypatch):
    without_the_sentence_model(tmp_path / "model", monkeypatch)
    monkeypatch.setattr(encoder, "_in_a_child", [True])
    assert isinstance(encoder.builtin(), encoder.Builtin)
    assert "static table" in encoder.fallback()


SERVE_AND_SEARCH = """
import json, sys, threading, time
from nodwyn import cli
from nodwyn.background import running
from nodwyn.memory.meaning import encoder
root = sys.argv[1]
threading.Thread(target=cli.main, args=(["--data-dir", root, "serve"],), daemon=True).start()
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        body = running.ask(root, "search", {"q": "cuda toolkit", "mode": "both"})
    except running.Stale:
        body = None
    if body is not None:
        break
    time.sleep(0.05)
found = json.loads(body)
print(json.dumps({"mode": found["mode"], "tasks": [t["task"] for t in found["turns"]],
                  "onnxruntime": "onnxruntime" in sys.modules, "numpy": "numpy" in sys.modules,
                  "child": type(encoder._builtin).__name__, "pid": encoder._builtin.pid}))
"""


def test_nodwyn_serve_searches_by_meaning_without_importing_onnxruntime_or_numpy(data_dir):
    store = Store(data_dir)
    write(store, "gpu", turn("install the cuda toolkit on the laptop", reply="installed nvcc"))
    done = subprocess.run([sys.executable, "-c", SERVE_AND_SEARCH, str(data_dir)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["mode"] == "both" and said["tasks"] == ["gpu"]
    assert said["onnxruntime"] is False and said["child"] == "Child" and said["pid"]
    assert said["numpy"] is False  # the model's process encoded the cards and ranked them
    with pytest.raises(ProcessLookupError):
        os.kill(said["pid"], 0)  # the child ended with the process that started it


def test_a_bundle_starts_the_child_through_its_own_launcher(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert model_process.child_command() == [sys.executable, "--nodwyn-model"]
    monkeypatch.delattr(sys, "frozen")
    assert model_process.child_command()[1:] == ["-m", "nodwyn.memory.meaning.model_process"]
