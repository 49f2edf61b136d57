"""Check nodwyn's plain-Python WordPiece against the `tokenizers` package, offline.

Run in the build venv (it has `tokenizers` and `model2vec`), after tools/build_model.py:
    /tmp/buildvenv/bin/python tools/check_tokenizer.py [--work /tmp/nodwyn-model-work]

Tokenises the first 80 lines of every corpus file (as JSON text: accents, CJK, control
characters, code) both ways and reports how many differ (expected: 0); then compares the
shipped table's mean vectors with model2vec's encoding of the plain distill's directions.
"""

import argparse
import glob
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app" / "memory" / "meaning"))

import wordpiece  # noqa: E402  (imports nothing of nodwyn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/nodwyn-model-work"))
    args = parser.parse_args()
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(args.work / "distill" / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    model = ROOT / "app" / "memory" / "meaning" / "model"
    vocab = (model / "vocab.txt").read_text().split("\n")[:-1]
    mine = wordpiece.WordPiece(vocab)
    texts = [
        json.dumps(json.loads(line), ensure_ascii=False)[:2000]
        for name in sorted(glob.glob(str(ROOT.parent / "shared" / "corpus" / "*" / "*.jsonl")))
        for line in Path(name).read_text(encoding="utf-8").splitlines()[:80]
    ]
    texts += ["Héllo Wörld! naïve café — 東京 ##weird\x00 \u200b text", "unaffable"]
    differ = [
        text
        for text in texts
        if mine.tokenize(text) != tok.encode(text, add_special_tokens=False).tokens
    ]
    print(f"{len(texts)} texts, {len(differ)} tokenised differently")
    model = StaticModel.from_pretrained(str(args.work / "distill"))
    theirs = model.encode(texts)
    table = model.embedding.astype(np.float32)
    ours = np.stack([table[mine.ids(t, 512)].mean(0) for t in texts])
    ours /= np.linalg.norm(ours, axis=1, keepdims=True)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    cosine = (ours * theirs).sum(1)
    print(f"mean vectors vs model2vec: cosine mean {cosine.mean():.4f}, min {cosine.min():.4f}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
