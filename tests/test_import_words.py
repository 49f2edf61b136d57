"""Import in plain words (issue 48): every reason the importers give for a file of the real
corpus they refuse names what it is, never "its first line is not JSON" for a YAML file; a
second copy of a session is named as such."""

import shutil
import sys
from pathlib import Path

import pytest
from corpora import REAL
from nodwyn.importers import kinds
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store

TOOLS = Path(__file__).resolve().parents[1] / "tools"


@pytest.mark.parametrize(
    ("name", "head", "said"),
    [
        ("workspace.yaml", b"id: x\n", "a workspace.yaml"),
        ("notes.yml", b"a: 1\n", "a YAML file"),
        ("x.pb", b"\x08\x01\x00", "a protobuf file (binary)"),
        ("x", b"SQLite format 3\x00", "a SQLite database"),
        ("x", b"---\na: 1\n", "a YAML file"),
    ],
)
def test_a_file_is_named_as_a_person_knows_it(name, head, said):
    assert kinds.named(Path(name), head).startswith(said)


def test_a_second_copy_of_a_session_is_named_as_such(tmp_path):
    codex = sorted((Path(__file__).parent / "data" / "corpus" / "codex").rglob("*.jsonl"))[0]
    first, second = tmp_path / "a" / codex.name, tmp_path / "b" / codex.name
    first.parent.mkdir()
    second.parent.mkdir()
    shutil.copy(codex, first)
    lines = codex.read_bytes().splitlines(keepends=True)
    second.write_bytes(lines[0] + b"\n" + b"".join(lines[1:]))  # the same session, told otherwise
    store = Store(tmp_path / "data")
    assert import_paths(store, "codex", [first]).created
    skipped = import_paths(store, "codex", [second]).skipped
    assert (
        skipped and skipped[0].reason == f"a second copy of a session already imported from {first}"
    )


@pytest.mark.corpus
def test_the_real_corpus_refused_files_are_said_in_plain_words(tmp_path, monkeypatch):
    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "data"))
    sys.path.insert(0, str(TOOLS))
    import eval_search

    monkeypatch.setattr(eval_search, "CORPUS", REAL)
    _, refused = eval_search.imported(Store(), tmp_path / "shelf")
    said = "\n".join(refused.values())
    assert "first line is not JSON" not in said
    assert "headers of" not in said and "binary content" not in said
    yaml = next(why for path, why in refused.items() if path.endswith("workspace.yaml"))
    assert "not a Copilot CLI session: a workspace.yaml" in yaml
    copy = next(why for path, why in refused.items() if path.endswith("__transcript.jsonl"))
    assert "a second copy" in copy
