"""The two corpora the importer tests read: the small one written here (tests/data/corpus, made
by tests/corpus_maker.py), always there, and the real one (../shared/corpus, or the folder
NODWYN_CORPUS names), only on this project's own machines. Tests on real files are marked
`corpus`; tests/conftest.py leaves them out, in one line, where the real corpus is absent."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "data" / "corpus"
REAL = Path(os.environ.get("NODWYN_CORPUS") or ROOT.parent / "shared" / "corpus")
NO_CONVERSATION = {  # files that hold only summaries or only snapshots, in both corpora
    "vsla__summaries-only__c001d2c0-fa59-4098-9d96-e46afcfa1170.jsonl",
    "obra__snapshots-only.jsonl",
    "Durban-Designer__vsla__c001d2c0-fa59-4098-9d96-e46afcfa1170.jsonl",
    "obra__episodic-memory__medium-conversation.jsonl",
}


def real_corpus_found() -> bool:
    return REAL.is_dir()


def sessions(agent: str, conversations_only: bool = False) -> list:
    """pytest params, one per session file of `agent` (sub-agent files go with their session):
    the fixtures' always, the real corpus's marked `corpus` where it is found."""
    found = []
    for root, marks in ((FIXTURES, ()), (REAL, (pytest.mark.corpus,))):
        folder = root / agent
        names = sorted(p.name for p in folder.glob("*.jsonl")) if folder.is_dir() else []
        for name in names:
            if conversations_only and name in NO_CONVERSATION:
                continue
            label = "real/" if marks else "fixture/"
            found.append(pytest.param(folder / name, id=label + name, marks=marks))
    return found


def both(name: str = "corpus") -> list:
    """pytest params for a test over a whole corpus: the fixtures, and the real one (marked)."""
    return [
        pytest.param(FIXTURES, id=f"fixture-{name}"),
        pytest.param(REAL, id=f"real-{name}", marks=pytest.mark.corpus),
    ]
