"""numpy stays in the sentence model's process: the app's worker encodes every task and writes
its .vec, the self-check's step by meaning asks the model, and a search by meaning is ranked
in the model's process, without the app importing numpy; the rows it writes are bit for bit
those the model makes here, and its searches answer what a search in one process answers."""

import json
import subprocess
import sys

import msgspec
import numpy as np
from memory_logs import turn, write
from nodwyn import memory
from nodwyn.memory.cards import mem
from nodwyn.memory.meaning import encoder, model_process, vectors
from nodwyn.tasks.store import Store
from test_worker import ClaudeSession

DEADLINE = 120.0  # seconds the app's process is given for its first pass and the check


THE_APP = """
import json, sys
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.desktop import selfcheck
from nodwyn.memory.meaning import encoder
from nodwyn.tasks.store import Store
encoder.keep_in_a_child()  # as the app does
worker = Worker(Store(sys.argv[1]), Status(), interval=0.2, watch=False)
worker.start()
passed = worker.wait_for_pass(0, 90)
after_the_pass = "numpy" in sys.modules
kind = selfcheck.by_meaning()
print(json.dumps({"passed": passed, "numpy_after_the_pass": after_the_pass, "kind": kind,
                  "numpy": "numpy" in sys.modules, "onnxruntime": "onnxruntime" in sys.modules,
                  "child": type(encoder._builtin).__name__}))
worker.stop(timeout=30)
"""


def test_the_apps_worker_encodes_every_task_without_importing_numpy(
    tmp_path, data_dir, monkeypatch
):
    agents = tmp_path / "agents"  # the agents' folders the app's worker follows
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(agents / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(agents / "codex"))  # none of the person's own
    ClaudeSession(agents).turn("Why does the zebrafish test flake?", "A race in the pager.")
    ClaudeSession(agents).turn("Install the cuda toolkit", "Installed nvcc 12.4.").turn(
        "And the drivers?", "Driver 550 is in."
    )
    done = subprocess.run([sys.executable, "-c", THE_APP, str(data_dir)],
                          capture_output=True, text=True, timeout=DEADLINE)  # fmt: skip
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["passed"] and said["child"] == "Child" and said["kind"] == "Child"
    assert said["numpy_after_the_pass"] is False and said["numpy"] is False
    assert said["onnxruntime"] is False
    store, model = Store(data_dir), encoder.Sentence()
    logs = sorted(store.sessions.glob("*.jsonl"))
    assert len(logs) == 2
    for log in logs:
        vec = vectors.load(log)
        assert (
            vec.model == model.id and vec.dims == model.dims and vectors.fresh(log, vec, vec.model)
        )
        cards, episodes = mem.cards_of(log)
        texts = [text for *_, text in vectors.texts_of(cards, episodes, vectors.project_of(log))]
        assert len(vec.entries) == len(texts) > 0
        assert np.array_equal(vec.matrix(), model.encode(texts).astype(np.float16))


def test_a_child_answers_float16_rows_as_the_model_here_rounds_them(data_dir):
    texts = ["install the cuda toolkit on the laptop", "", "héllo wörld 🙂"]
    child = model_process.Child(encoder.MODEL, wait=-1)
    try:
        made = child.encode_half(texts)
        assert child.encode_half([]) == b""
        assert encoder.half_rows(child, texts) == made
    finally:
        child.stop()
    here = encoder.Sentence().encode(texts).astype(np.float16)
    assert made == here.tobytes() and encoder.half_rows(encoder.Sentence(), texts) == made


def test_a_fold_through_the_child_keeps_the_rows_it_made_before_and_adds_the_new(data_dir):
    store = Store(data_dir)
    write(store, "gpu", turn("install the cuda toolkit on the laptop", reply="installed nvcc"))
    log = store.log_path("gpu")
    child = model_process.Child(encoder.MODEL, wait=-1)
    try:
        first = vectors.update(log, child)
        write(store, "gpu", turn("and the drivers", reply="driver 550", t0=100))
        folded = vectors.update(log, child)
    finally:
        child.stop()
    rebuilt = vectors.update(log, encoder.Sentence(), vectors.Vec())
    assert len(folded.entries) > len(first.entries)
    assert folded.vectors.startswith(first.vectors[: 2 * first.dims])
    assert folded.entries == rebuilt.entries and folded.vectors == rebuilt.vectors


SEARCHES = [
    ("cuda toolkit", "both", {}),
    ("graphics card drivers", "meaning", {}),
    ("why does the pager flake", "both", {"limit": 3}),
    ("graphics card drivers", "both", {"scope": "task", "task": "gpu"}),
    ("quokka sourdough", "meaning", {}),
]

THE_SERVER = """
import json, sys
import msgspec
from nodwyn import memory
from nodwyn.memory.meaning import encoder
from nodwyn.tasks.store import Store
encoder.keep_in_a_child()  # as the app, `nodwyn serve` and the search service do
store = Store(sys.argv[1])
memory.encode(store)
found = [memory.search(store, text, memory.Where(**where), mode=mode)
         for text, mode, where in json.loads(sys.argv[2])]
print(json.dumps({"found": msgspec.to_builtins(found), "numpy": "numpy" in sys.modules,
                  "child": type(encoder._builtin).__name__}))
"""


def test_a_search_by_meaning_ranked_in_the_models_process_answers_as_one_ranked_here(data_dir):
    store = Store(data_dir)
    write(store, "gpu", turn("install the cuda toolkit on the laptop", reply="installed nvcc"))
    write(store, "gpu", turn("and the nvidia drivers", reply="driver 550 is in", t0=100))
    write(store, "pager", turn("why does the pager test flake", reply="a race on the clock"))
    write(store, "bread", turn("a sourdough starter schedule", reply="feed it at 9"))
    done = subprocess.run([sys.executable, "-c", THE_SERVER, str(data_dir), json.dumps(SEARCHES)],
                          capture_output=True, text=True, timeout=DEADLINE)  # fmt: skip
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["child"] == "Child" and said["numpy"] is False
    here = [memory.search(store, text, memory.Where(**where), mode=mode)
            for text, mode, where in SEARCHES]  # fmt: skip
    assert said["found"] == json.loads(json.dumps(msgspec.to_builtins(here)))
    assert [found["mode"] for found in said["found"]] == [mode for _, mode, _ in SEARCHES]
    assert [hit["task"] for hit in said["found"][0]["turns"]][:1] == ["gpu"]
    assert said["found"][3]["searched"] == 1 and said["found"][0]["covered"] == 3
