"""The built-in models that turn text into vectors, and what the encoder, the model's own
process and the providers share: the sentence model (all-MiniLM-L6-v2 run by onnxruntime),
the static table, `Unavailable`, `normalised` and `half_rows`.

encoder.py chooses among them (and a provider's) by the settings, model_process.py runs the
sentence model in a child, providers.py asks a server; each imports this module and none of
them imports another at load time, so none waits on a half-loaded one (ADR 0045). See
encoder.py's docstring for the models' files and the batch and thread choices.
"""

import ctypes
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import NodwynError
from .wordpiece import WordPiece

if TYPE_CHECKING:  # numpy is imported where rows are made: the app's process makes none
    import numpy as np

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

    def encode(self, texts: list[str]) -> "np.ndarray":
        """(len(texts), dims) float32, each row of length 1 (or 0 for an empty text)."""
        import numpy as np

        rows = [self.pieces.ids(text, self.tokens - 2, unknown=True) for text in texts]
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        order = sorted((at for at, row in enumerate(rows) if row), key=lambda at: len(rows[at]))
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            out[chosen] = self._run([rows[at] for at in chosen])
        if len(order) > 1:
            give_back()
        return out

    def _run(self, rows: list[list[int]]) -> "np.ndarray":
        import numpy as np

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
        import numpy as np

        folder = folder or MODEL
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        tokens = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[: meta["rows"]]
        self.table = np.load(folder / "table.npy", mmap_mode="r")  # rows read as used
        if self.table.shape != (meta["rows"], meta["dims"]) or len(tokens) != meta["rows"]:
            raise ValueError(f"the model in {folder} is damaged: its parts do not agree")
        self.pieces = WordPiece(tokens)
        self.dims = meta["dims"]
        self.id = f"builtin:{meta['id']}"

    def encode(self, texts: list[str]) -> "np.ndarray":
        """(len(texts), dims) float32, each row of length 1 (or 0 for a text with no token)."""
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for at in range(0, len(texts), TABLE_BATCH):
            out[at : at + TABLE_BATCH] = self._sums(texts[at : at + TABLE_BATCH])
        return normalised(out)

    def _sums(self, texts: list[str]) -> "np.ndarray":
        """Sums of the texts' token rows (a mean's direction), in int32 so the int8 rows are
        gathered and added without a float copy of each."""
        import numpy as np

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


def normalised(matrix: "np.ndarray") -> "np.ndarray":
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def half_rows(encoder, texts: list[str]) -> bytes:
    """The encoder's rows of `texts` as float16, one after another (what a .vec holds): made
    in the model's process when the encoder runs there (`encode_half`), so that this process
    needs no numpy; else here, from its float32 rows."""
    made = getattr(encoder, "encode_half", None)
    if made is not None:
        return made(texts)
    import numpy as np

    return encoder.encode(texts).astype(np.float16).tobytes()
