"""No secret of the real corpus survives an import: not in a log, a .mem, the index or any file.

The corpus holds live-looking secrets its authors committed (issue 14). This project must not
hold them, so each is named here only by where it is, its first characters, its length and a
hash: the test finds it in the corpus, checks the hash, then looks for it in the data directory.
"""

import hashlib
import re
from pathlib import Path

import pytest
import tantivy
from nodwyn import memory
from nodwyn.importers import registry
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store

# (file in the corpus, first characters, length, first 16 hex digits of its sha256)
SECRETS = [
    ("extra/codex/obitoo2005__Solit__codex-session.jsonl", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
     392, "fd68ece0b06d73ba"),  # a copilot token (JWT) in a .env
    ("extra/claude/sempervincere__lokal__claude-session.jsonl",
     "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", 403, "cb75fa2ddea0293e"),  # the same kind
    ("codex/swarnasn29__soulpass__codex-session.jsonl", "ae0ff4", 64,
     "6b31207c3563d2fa"),  # NILLION_ORG_SECRET_KEY=
    ("extra/codex/AkashJana18__edgerunner__codex-session.jsonl", "080808", 64,
     "3191ff9688cad7cc"),  # "private_key_hex": "..."
    ("other/antigravity/surendrababuchittibomma__AI-Powered-Debt-Relief-Financial-Recovery-"
     "Platform__transcript.jsonl", "9a2d6b", 64, "9c12b612e1cc2eee"),  # SECRET_KEY=
    ("other/gemini-cli/sharthak-sev__sat-test-app__my-session.json", "dcb317", 32,
     "4653b03a002322f9"),  # apiKey= in a URL
]  # fmt: skip


def found_in(corpus: Path, name: str, prefix: str, length: int, digest: str) -> str:
    """The secret itself, read from the corpus and checked against its hash."""
    text = (corpus / name).read_text(encoding="utf-8", errors="replace")
    at = text.find(prefix)
    while at >= 0:
        value = text[at : at + length]
        if hashlib.sha256(value.encode()).hexdigest()[:16] == digest:
            return value
        at = text.find(prefix, at + 1)
    raise AssertionError(f"the secret {prefix}... is no longer in {name}")


@pytest.fixture(scope="module")
def imported(finished_corpus, tmp_path_factory) -> Path:
    """A data directory holding the whole corpus, imported by every agent's importer, with
    its memory (cards, word index, vectors) built."""
    store = Store(tmp_path_factory.mktemp("secrets") / "data")
    for agent in registry.agent_keys():
        import_paths(store, agent, [finished_corpus])
    memory.refresh(store)
    return store.root


def test_the_corpus_is_imported_and_indexed(imported):
    assert len(list((imported / "sessions").glob("*.jsonl"))) >= 30
    assert list((imported / "sessions").glob("*.mem"))
    assert (imported / "index" / "meta.json").exists()


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s[0].split("/")[-1][:40])
def test_no_secret_of_the_corpus_is_anywhere_in_the_data_directory(corpus, imported, secret):
    value = found_in(corpus, *secret)
    forms = {value.encode(), value.lower().encode(), value[-24:].encode()}
    for path in imported.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for form in forms:
                assert form not in data, f"{secret[1]}... is in {path.relative_to(imported)}"


def test_no_word_of_a_secret_is_a_term_of_the_word_index(corpus, imported):
    index = tantivy.Index.open(str(imported / "index"))
    searcher = index.searcher()
    for secret in SECRETS:
        value = found_in(corpus, *secret)
        for word in {part.lower() for part in re.findall(r"[A-Za-z0-9]{16,}", value)}:
            if word.startswith("eyjhbgcioijiuzi1niisinr5cci6ikpxvcj9"):
                continue  # the header every HS256 JWT shares, no secret
            for field in ("words", "parts"):
                query = tantivy.Query.term_query(index.schema, field, word)
                assert searcher.search(query, 1).count == 0, f"{secret[1]}... in {field}"
