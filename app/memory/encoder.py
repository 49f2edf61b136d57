"""Text -> vector: the static model shipped in nodwyn, or a provider's embeddings if chosen.

The built-in model (model/: table.npy int8 rows, vocab.txt, meta.json; built by
tools/build_model.py from all-MiniLM-L6-v2, see model/NOTICE) encodes a text as the mean of
the rows of its WordPiece tokens, normalised to length 1: numpy only, no network, no torch.
The int8 table has one global scale, which normalising removes, so the rows are used as they
are. A text with no known token gets the zero vector (it matches nothing).

Every encoder has an `id` naming the model (and for a provider its address): vectors made by
one encoder are never compared with another's (vectors.py rebuilds on a change of id).
`current(root)` is the encoder the settings choose; `None` when the built-in model is missing.
"""

import json
import threading
from pathlib import Path

import numpy as np

from .. import settings as settingsmod
from ..errors import NodwynError
from .wordpiece import WordPiece

MODEL = Path(__file__).with_name("model")
MAX_TOKENS = 512  # tokens of one text averaged (the rest adds little to a mean)
BATCH = 256  # texts whose token rows are gathered at once (bounds the memory used)


class Unavailable(NodwynError):
    """No vectors can be made now (model missing or damaged, provider failing)."""


class Builtin:
    """The shipped static table."""

    def __init__(self, folder: Path = MODEL):
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
        for at in range(0, len(texts), BATCH):
            out[at : at + BATCH] = self._sums(texts[at : at + BATCH])
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


_builtin: Builtin | None = None
_lock = threading.Lock()


def builtin() -> Builtin | None:
    """The shipped model, loaded once per process; None when it is missing or damaged."""
    global _builtin
    with _lock:
        if _builtin is None and (MODEL / "table.npy").exists():
            try:
                _builtin = Builtin()
            except (OSError, ValueError, KeyError):
                return None
        return _builtin


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
