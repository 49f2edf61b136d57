"""The fixture corpus (tests/data/corpus) is what tests/corpus_maker.py writes, and it holds
every record kind and layout the importer tests rely on, so they need no real corpus."""

import corpus_maker
from corpora import FIXTURES
from importing import raw_lines
from nodwyn.importers import formats


def test_the_files_in_the_repository_are_what_the_maker_writes(tmp_path):
    corpus_maker.write_all(tmp_path)
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    kept = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*") if p.is_file())
    assert kept == sorted([*made, "README.md"])
    for name in made:
        assert (FIXTURES / name).read_bytes() == (tmp_path / name).read_bytes(), name


def test_every_claude_record_kind_and_layout_is_there():
    lines = [x for p in (FIXTURES / "claude").rglob("*.jsonl") for x in raw_lines(p)]
    assert {x["type"] for x in lines} == formats.CLAUDE_TYPES
    subtypes = {x.get("subtype") for x in lines if x["type"] == "system"}
    assert {"turn_duration", "stop_hook_summary", "api_error", "compact_boundary"} <= subtypes
    assert any(x.get("isSidechain") and "agentId" not in x for x in lines)  # 1.0 inline
    assert list((FIXTURES / "claude").glob("*/subagents/agent-*.jsonl"))  # 2.1 files
    assert sum(bool(x.get("isCompactSummary")) for x in lines) == 2  # 1.0 and 2.x layouts
    assert any(x.get("isApiErrorMessage") for x in lines)
    ids = [x["message"]["id"] for x in lines if x["type"] == "assistant"]
    assert len(ids) > len(set(ids))  # streamed replies split over lines
    cut = [p for p in (FIXTURES / "claude").glob("*.jsonl") if not p.read_bytes().endswith(b"\n")]
    assert len(cut) == 1  # a copy taken mid-write


def test_every_codex_record_kind_is_there():
    lines = [x for p in (FIXTURES / "codex").glob("*.jsonl") for x in raw_lines(p)]
    assert {x["type"] for x in lines} == formats.CODEX_TYPES
    payloads = {x["payload"].get("type") for x in lines}
    assert {"function_call", "custom_tool_call", "web_search_call", "reasoning"} <= payloads
    assert {"task_complete", "turn_aborted", "token_count", "context_compacted"} <= payloads
