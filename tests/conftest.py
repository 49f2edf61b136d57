"""Every test gets its own data directory; tests that read the real corpus ask for `corpus`."""

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
LONG_AGO = 1_600_000_000  # September 2020


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("NODWYN_DATA_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def finished_corpus(tmp_path_factory) -> Path:
    """A copy of the real corpus dated long ago. The importer holds back the last streamed
    reply of a source changed in the last minutes (the agent may still be writing it), and a
    freshly checked-out corpus is minutes old; the corpus stands for finished sessions."""
    if not CORPUS.is_dir():
        pytest.fail(f"the real corpus is missing at {CORPUS}")
    copy = tmp_path_factory.mktemp("corpus") / "corpus"
    shutil.copytree(CORPUS, copy, copy_function=shutil.copyfile)  # CI's corpus is read-only
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
        os.utime(path, (LONG_AGO, LONG_AGO))
    return copy


@pytest.fixture
def corpus(finished_corpus) -> Path:
    return finished_corpus
