"""Writes tests/data/corpus: small Claude Code and Codex logs made here, in the layouts and record
kinds FORMATS.md describes, so the importer tests need nothing outside the repository.

Run `python tests/corpus_maker.py` after changing it; tests/test_fixture_corpus.py checks that
the files in tests/data/corpus are what this module writes. What each file stands for is in
tests/data/corpus/README.md.
"""

import sys
from pathlib import Path

import corpus_claude as claude
import corpus_codex as codex
from corpus_writers import dump

HERE = Path(__file__).resolve().parent / "data" / "corpus"


def files() -> dict[str, bytes]:
    """Every fixture file: its path under tests/data/corpus, and its bytes."""
    out = {}

    def transcript(name: str, lines: list) -> None:
        out[f"claude/{name}"] = b"".join(dump(x) for x in lines)

    for maker, name in [
        (claude.todo_app, "demo__todo-app"),
        (claude.claude_md, "demo__claude-md"),
        (claude.vsla_compacted, "vsla__compacted"),
        (claude.vsla_interrupted, "vsla__interrupted"),
        (claude.raze_windows, "raze__windows"),
        (claude.cut_mid_turn, "vsla__cut-mid-turn"),
    ]:
        made = maker()
        transcript(f"{name}__{made.session}.jsonl", made.lines)
    main, side = claude.grants_2_1()
    transcript(f"grants__{main.session}.jsonl", main.lines)
    transcript(f"grants__{main.session}/subagents/agent-{side.extra['agentId']}.jsonl", side.lines)
    transcript(
        "vsla__summaries-only__c001d2c0-fa59-4098-9d96-e46afcfa1170.jsonl", claude.summaries_only()
    )
    transcript("obra__snapshots-only.jsonl", claude.snapshots_only())
    for maker, name in [
        (codex.soul_employer, "soul__employer"),
        (codex.raze_knowledge, "raze__knowledge"),
    ]:
        out[f"codex/{name}.jsonl"] = b"".join(dump(x) for x in maker().lines)
    for name, data in codex.LOOK_ALIKES.items():
        out[f"other/{name}"] = data
    return out


def write_all(root: Path = HERE) -> None:
    for name, data in files().items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


if __name__ == "__main__":
    write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
