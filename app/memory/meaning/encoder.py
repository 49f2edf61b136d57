"""Text -> vector: the sentence model shipped in nodwyn, its static table where that cannot
run, or a provider's embeddings if chosen.

The built-in model is all-MiniLM-L6-v2 itself (model/minilm.onnx, int8 weights with one scale
per channel, minilm-vocab.txt, minilm.json; exported by tools/export_onnx.py, see model/NOTICE),
run by onnxruntime: a text is tokenised by wordpiece.py over the model's own vocabulary
([CLS] text [SEP], at most 256 tokens), and the graph returns the masked mean of the last
layer's token vectors, normalised to length 1, as sentence-transformers computes it. Texts go
one at a time (BATCH, below: the vector of a text never depends on others; batch 32 of long
cards peaked at 700 MB). An empty text gets the zero vector (it matches nothing).

Where onnxruntime cannot be imported or the graph cannot be loaded, the static table (model/:
table.npy int8 rows, vocab.txt, meta.json; built by tools/build_model.py from the same model)
serves instead: the mean of the rows of a text's WordPiece tokens, normalised to length 1
(numpy only; the int8 table has one global scale, which normalising removes). `fallback()`
says why, so the CLI and the app can tell the person.

Every encoder has an `id` naming the model (and for a provider its address): vectors made by
one encoder are never compared with another's (vectors.py rebuilds on a change of id).
`current(root)` is the encoder the settings choose; `None` when the built-in model is missing.
"""

import ctypes
import json
import sys
import threading
from pathlib import Path

import numpy as np

from ... import settings as settingsmod
from ...errors import NodwynError
from .wordpiece import WordPiece

MODEL = Path(__file__).with_name("model")
MAX_TOKENS = 512  # tokens of one text averaged by the static table
# Texts the sentence model runs at once. One: its int8 graph quantises activations with one
# scale per run, so a text's vector would depend on the texts beside it (cosine down to 0.987
# between batch 8 and alone), and a fold would not equal a rebuild; alone, nothing is padded,
# and on this machine it was as fast as 2, 4 or 8 (14-38 texts/s each, under load).
BATCH = 1
TABLE_BATCH = 256  # texts whose token rows the static table gathers at once
THREADS = 1  # onnxruntime threads: the app encodes in the background on a shared machine


class Unavailable(NodwynError):
    """No vectors can be made now (model missing or damaged, provider failing)."""


class Sentence:
    """all-MiniLM-L6-v2 run by onnxruntime (raises ImportError, OSError or a RuntimeError of
    onnxruntime's when it cannot be loaded)."""

    def __init__(self, folder: Path | None = None):
        import onnxruntime

        folder = folder or MODEL

        meta = json.loads((folder / "minilm.json").read_text(encoding="utf-8"))
        tokens = (folder / "minilm-vocab.txt").read_text(encoding="utf-8").splitlines()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = THREADS
        options.enable_cpu_mem_arena = False  # memory goes back after each batch
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(folder / "minilm.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.pieces = WordPiece(tokens)
        self.dims = meta["dims"]
        self.tokens = meta["tokens"]
        self.id = f"minilm:{meta['id']}"
        self.ends = self.pieces.ids_of["[CLS]"], self.pieces.ids_of["[SEP]"]

    def encode(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dims) float32, each row of length 1 (or 0 for an empty text)."""
        rows = [self.pieces.ids(text, self.tokens - 2, unknown=True) for text in texts]
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        order = sorted((at for at, row in enumerate(rows) if row), key=lambda at: len(rows[at]))
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            out[chosen] = self._run([rows[at] for at in chosen])
        if len(order) > 1:
            give_back()
        return out

    def _run(self, rows: list[list[int]]) -> np.ndarray:
        width = max(map(len, rows)) + 2
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        first, last = self.ends
        for at, row in enumerate(rows):
            ids[at, : len(row) + 2] = [first, *row, last]
            mask[at, : len(row) + 2] = 1
        return self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


def give_back() -> None:
    """Hand freed memory back to the system: glibc keeps the model's freed activations (a few
    MB a text) in its heap, which held 30-50 MB more after encoding cards (43 MB added by the
    model with this, 87-111 MB without, measured). Elsewhere a no-op."""
    if _libc[0] is None:
        try:
            _libc[0] = ctypes.CDLL("libc.so.6").malloc_trim if sys.platform == "linux" else False
        except (OSError, AttributeError):
            _libc[0] = False
    if _libc[0]:
        _libc[0](0)


_libc: list = [None]


class Builtin:
    """The shipped static table (the fallback where the sentence model cannot run)."""

    def __init__(self, folder: Path | None = None):
        folder = folder or MODEL
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        tokens = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[: meta["rows"]]
        self.table = np.load(folder / "table.npy", mmap_mode="r")  # rows read as used
        if self.table.shape != (meta["rows"], meta["dims"]) or len(tokens) != meta["rows"]:
            raise ValueError(f"the model in {folder} is damaged: its parts do not agree")
        self.pieces = WordPiece(tokens)
        self.dims = meta["dims"]
        self.id = f"builtin:{meta['id']}"

    def encode(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dims) float32, each row of length 1 (or 0 for a text with no token)."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for at in range(0, len(texts), TABLE_BATCH):
            out[at : at + TABLE_BATCH] = self._sums(texts[at : at + TABLE_BATCH])
        return normalised(out)

    def _sums(self, texts: list[str]) -> np.ndarray:
        """Sums of the texts' token rows (a mean's direction), in int32 so the int8 rows are
        gathered and added without a float copy of each."""
        ids, counts = [], []
        for text in texts:
            found = self.pieces.ids(text, MAX_TOKENS)
            ids.extend(found)
            counts.append(len(found))
        sums = np.zeros((len(texts), self.dims), dtype=np.int32)
        present = np.asarray(counts) > 0
        if ids:
            rows = self.table[np.asarray(ids, dtype=np.intp)]
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[present]
            sums[present] = np.add.reduceat(rows, starts, axis=0, dtype=np.int32)
        return sums


def normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


_builtin: "Sentence | Builtin | None" = None
_static: Builtin | None = None
_why: list[str] = []  # why the sentence model could not be loaded, if it could not
_lock = threading.Lock()


_in_a_child: list[bool] = [False]


def keep_in_a_child() -> None:
    """Run the sentence model in a child process from now on (model_process.py): what the
    app and `nodwyn serve` choose, so that their process never holds onnxruntime."""
    _in_a_child[0] = True


def builtin() -> "Sentence | Builtin | None":
    """The shipped model, loaded once per process: the sentence model (in this process, or in
    a child after keep_in_a_child()), else the static table (fallback() says why); None when
    both are missing or damaged. Raises Unavailable when the child cannot be started (the
    next call tries again)."""
    global _builtin
    with _lock:
        if _builtin is None:
            _why.clear()
            try:
                _builtin = _sentence()
            except Unavailable:
                raise
            except Exception as exc:  # noqa: BLE001  onnxruntime's errors have no common base
                _why[:] = [f"{type(exc).__name__}: {exc}".splitlines()[0][:200]]
                _builtin = _load_static()
        return _builtin


def _sentence():
    """The sentence model here, or its child (which raises NotLoadable as Sentence would
    raise, or Gone, an Unavailable, when it cannot be started)."""
    if not _in_a_child[0]:
        return Sentence(MODEL)
    from .model_process import Child

    return Child(MODEL)


def static() -> Builtin | None:
    """The static table alone, loaded once per process; None when it is missing or damaged."""
    global _static
    with _lock:
        if _static is None:
            _static = _load_static()
        return _static


def _load_static() -> Builtin | None:
    if not (MODEL / "table.npy").exists():
        return None
    try:
        return Builtin()
    except (OSError, ValueError, KeyError):
        return None


def fallback() -> str | None:
    """Why search by meaning uses the static table instead of the sentence model (once the
    built-in model was asked for), or None."""
    if not _why or not isinstance(_builtin, Builtin):
        return None
    return (f"the sentence model could not be loaded ({_why[0]}): search by meaning uses the "
            "static table, which finds less")  # fmt: skip


def expected_id(root: Path) -> str | None:
    """The id `current(root)` would give, without loading a model: the vectors of a task
    made by it need no model at all (an app whose tasks are all encoded never loads one:
    about 60 MB of its process). None when only loading can tell (a provider's)."""
    if settingsmod.load(root).embeddings != "builtin":
        return None
    if _builtin is not None:
        return _builtin.id
    try:
        return f"minilm:{json.loads((MODEL / 'minilm.json').read_text(encoding='utf-8'))['id']}"
    except (OSError, ValueError, KeyError, TypeError):
        return None


def current(root: Path):
    """The encoder the settings choose: the built-in model, or a provider's (providers.py);
    raises Unavailable when there is none to use."""
    chosen = settingsmod.load(root)
    if chosen.embeddings == "builtin":
        found = builtin()
        if found is None:
            raise Unavailable(f"the built-in model is missing or damaged in {MODEL}")
        return found
    from .providers import Provider

    try:
        key = settingsmod.embeddings_key(root)
        return Provider(chosen.embeddings, chosen.embeddings_url, chosen.embeddings_model, key)
    except NodwynError as exc:
        raise Unavailable(str(exc)) from exc
