"""Every test gets its own data directory; tests that read the real corpus ask for `corpus`."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("NODWYN_DATA_DIR", str(path))
    return path


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"the real corpus is missing at {CORPUS}")
    return CORPUS
