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

import json
import threading
from pathlib import Path

from ... import settings as settingsmod
from ...errors import NodwynError
from .models import (  # noqa: F401 (read as encoder.X)
    MODEL,
    THREADS,
    Builtin,
    Sentence,
    Unavailable,
    give_back,
    half_rows,
    normalised,
)

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
        return Builtin(MODEL)
    except (OSError, ValueError, KeyError):
        return None


def fallback() -> str | None:
    """Why search by meaning uses the static table instead of the sentence model (once the
    built-in model was asked for), or None."""
    if not _why or not isinstance(_builtin, Builtin):
        return None
    return (
        f"the sentence model could not be loaded ({_why[0]}): search by meaning uses the "
        "static table, which finds less"
    )


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
