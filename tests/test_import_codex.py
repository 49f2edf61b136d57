"""Codex rollouts imported as tasks: every rollout of the fixture corpus (tests/data/corpus) and,
marked `corpus`, of the real one (../shared/corpus)."""

import json
import shutil
from pathlib import Path

import pytest
from corpora import FIXTURES, sessions
from importing import age, codex_prompts, imported_one, log_of, plain, raw_lines
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store

FILES = sessions("codex")
EMPLOYER = FIXTURES / "codex" / "soul__employer.jsonl"  # compaction, aborted turn, gpt-5.4
KNOWLEDGE = FIXTURES / "codex" / "raze__knowledge.jsonl"


@pytest.fixture
def source(tmp_path, request) -> Path:
    """A copy of one rollout, made old (not live), where Codex keeps it."""
    folder = tmp_path / "codex" / "sessions" / "2026" / "05" / "08"
    folder.mkdir(parents=True)
    copy = folder / request.param.name
    shutil.copyfile(request.param, copy)
    return age(copy)


def one(store: Store, path: Path) -> str:
    return imported_one(store, "codex", path)


def meta(path: Path) -> dict:
    return raw_lines(path)[0]["payload"]


@pytest.mark.parametrize("source", FILES, indirect=True)
def test_every_rollout_imports_with_its_turns_project_and_branch(source):
    store = Store()
    task = one(store, source)
    info = store.get(task)
    assert task == "cx-" + meta(source)["id"]
    assert info.turns == len(codex_prompts(source))
    assert info.project == meta(source)["cwd"]
    assert info.branch == ((meta(source).get("git") or {}).get("branch") or "")
    assert info.origin == "codex" and not info.machine
    start = log_of(store, task)[0]
    assert start.origin.version == meta(source)["cli_version"] and start.origin.path == str(source)


@pytest.mark.parametrize("source", FILES, indirect=True)
def test_a_rollout_imported_in_two_halves_gives_the_same_log(source, tmp_path, monkeypatch):
    whole = source.read_bytes()
    lines = whole.split(b"\n")
    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "once"))
    once = Store()
    task = one(once, source)
    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "halves"))
    halves = Store()
    source.write_bytes(b"\n".join(lines[: len(lines) // 2]) + b"\n")
    assert import_paths(halves, "codex", [source]).created == [task]
    source.write_bytes(whole)
    age(source)
    assert import_paths(halves, "codex", [source]).extended == [task]
    assert plain(halves, task) == plain(once, task)


@pytest.mark.parametrize("source", FILES, indirect=True)
def test_a_second_import_and_a_lost_import_state_change_nothing(source):
    store = Store()
    task = one(store, source)
    before = store.log_path(task).read_bytes()
    assert import_paths(store, "codex", [source]).unchanged == [task]
    store.log_path(task).with_suffix(".imp").unlink()
    assert import_paths(store, "codex", [source]).unchanged == [task]
    assert store.log_path(task).read_bytes() == before


@pytest.mark.parametrize("source", [KNOWLEDGE], indirect=True)
def test_a_deleted_task_stays_deleted(source):
    store = Store()
    path = source
    task = one(store, path)
    store.delete(task)
    report = import_paths(store, "codex", [path])
    assert not store.exists(task) and "deleted" in report.skipped[0].reason


@pytest.mark.parametrize("source", [EMPLOYER], indirect=True)
def test_compaction_aborted_turns_patches_and_exit_codes_are_kept(source):
    store = Store()
    events = log_of(store, one(store, source))
    raw = raw_lines(source)
    (compact,) = [e for e in events if isinstance(e, records.ContextCompact)]
    assert compact.last_seq == compact.seq - 1 and "kept" in compact.note
    ends = [e.status for e in events if isinstance(e, records.TurnEnd)]
    aborted = [x for x in raw if x.get("payload", {}).get("type") == "turn_aborted"]
    assert ends.count("cancelled") == len(aborted) and "completed" in ends
    patches = [e for e in events if isinstance(e, records.Result) and e.tool == "apply_patch"]
    assert patches and all(p.files for p in patches if not p.error)
    assert any(f.endswith("page.tsx") for p in patches for f in p.files)
    shells = [e for e in events if isinstance(e, records.Result) and e.tool == "exec_command"]
    assert all((s.exit is not None) == ("Process exited with code" in s.output) for s in shells)
    assert any(s.exit == 0 for s in shells) and any(s.exit not in (0, None) for s in shells)
    assert all(s.error == (s.exit not in (0, None)) for s in shells)


@pytest.mark.parametrize("source", [EMPLOYER], indirect=True)
def test_token_counts_are_priced_per_reply_and_per_turn(source):
    store = Store()
    task = one(store, source)
    events = log_of(store, task)
    priced = [e for e in events if isinstance(e, records.Reply) and e.usage is not None]
    assert priced and all(e.model == "gpt-5.4" and e.cost_usd > 0 for e in priced)
    u = priced[0].usage
    assert priced[0].cost_usd == pytest.approx(
        (u.input * 2.5 + u.cache_read * 0.25 + u.output * 15.0) / 1e6
    )
    turn_costs = [e.cost_usd for e in events if isinstance(e, records.TurnEnd) and e.cost_usd]
    assert turn_costs
    assert store.get(task).cost_usd == pytest.approx(sum(e.cost_usd for e in priced), rel=1e-6)


@pytest.mark.parametrize("source", [EMPLOYER], indirect=True)
def test_a_model_missing_from_the_price_table_has_no_cost_not_zero(source):
    source.write_bytes(source.read_bytes().replace(b'"gpt-5.4"', b'"gpt-unheard-of"'))
    age(source)
    store = Store()
    task = one(store, source)
    replies = [e for e in log_of(store, task) if isinstance(e, records.Reply) and e.usage]
    assert replies and all(e.cost_usd is None for e in replies)
    assert store.get(task).cost_usd is None


@pytest.mark.parametrize("source", [KNOWLEDGE], indirect=True)
def test_the_session_index_names_the_task_but_never_over_a_persons_name(source):
    home = source.parents[4]
    session = meta(source)["id"]
    index = home / "session_index.jsonl"
    index.write_text(json.dumps({"id": session, "thread_name": "Fix the employer page"}) + "\n")
    store = Store()
    task = one(store, source)
    assert (store.get(task).title, store.get(task).title_by) == ("Fix the employer page", "agent")
    store.rename(task, "My own name")
    with open(index, "a") as handle:
        handle.write(json.dumps({"id": session, "thread_name": "Another name"}) + "\n")
    import_paths(store, "codex", [source])
    assert store.get(task).title == "My own name"


@pytest.mark.parametrize("source", [KNOWLEDGE], indirect=True)
def test_an_exec_run_is_marked_as_a_machine_run(source):
    data = source.read_bytes()
    assert b'"source":"cli"' in data
    source.write_bytes(data.replace(b'"source":"cli"', b'"source":"exec"', 1))
    store = Store()
    assert store.get(one(store, source)).machine


@pytest.mark.parametrize("source", [KNOWLEDGE], indirect=True)
def test_a_rollout_moved_to_archived_sessions_is_the_same_task(source):
    store = Store()
    task = one(store, source)
    archived = source.parents[4] / "archived_sessions"
    archived.mkdir()
    moved = source.rename(archived / source.name)
    assert import_paths(store, "codex", [moved]).unchanged == [task]
