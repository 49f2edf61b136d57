"""Crush databases imported as tasks: the real project database of ../shared/corpus/more/crush
(its rows mostly in its WAL) held to a plain count (tests/plain_count_more.py) and read without
a byte of it or its WAL changed, and small databases written here (ADR 0053)."""

import hashlib
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import plain_count_more as plain
import pytest
from agents_corpus import finds, one, refused
from importing import OLD, log_of
from nodwyn.importers import registry
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.reading import resume
from nodwyn.tasks.store import Store

REAL = "e2chat__calcman__crush.db"


@pytest.fixture
def store() -> Store:
    return Store()


def laid_out(corpus: Path, tmp_path: Path) -> Path:
    """The real database where Crush keeps it: <project>/.crush/crush.db with its WAL."""
    folder = tmp_path / "calcman" / ".crush"
    folder.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(corpus / "more" / "crush" / f"{REAL}{suffix}", folder / f"crush.db{suffix}")
        os.utime(folder / f"crush.db{suffix}", (OLD, OLD))
    return folder / "crush.db"


def state(path: Path) -> list[tuple[str, int]]:
    return [(hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in (path, path.with_name("crush.db-wal"))]  # fmt: skip


@pytest.mark.corpus
def test_the_real_database_has_the_plain_counts_sessions_titles_turns_and_tokens(
    corpus, tmp_path, store
):
    path = laid_out(corpus, tmp_path)
    counts = plain.crush(path)
    before = state(path)
    report = import_paths(store, "crush", [path])
    assert state(path) == before  # neither the database nor its WAL written
    assert sorted(report.created) == sorted("cr-" + sid for sid in counts) and len(counts) == 2
    for sid, count in counts.items():
        info, events = store.get("cr-" + sid), log_of(store, "cr-" + sid)
        assert (info.title, info.turns) == (count["title"], count["turns"])
        assert info.project == str(tmp_path / "calcman")
        assert not any(e.usage for e in events if isinstance(e, r.Reply))  # no sum in the log
        assert count["cost"] == 0.0 and info.cost_usd == 0.0  # Horizon Alpha was free
    calls = [c for e in log_of(store, "cr-" + sid) if isinstance(e, r.Reply) for c in e.calls]
    assert calls and all(isinstance(c.input, dict) for c in calls)


@pytest.mark.corpus
def test_the_real_database_again_found_and_resumed(corpus, tmp_path, store):
    path = laid_out(corpus, tmp_path)
    task = "cr-5893253f-6351-4f2c-998d-2bae794714f9"
    import_paths(store, "crush", [path])
    before = store.log_path(task).read_bytes()
    again = import_paths(store, "crush", [path])
    assert len(again.unchanged) == 2 and not again.created and not again.extended
    store.log_path(task).with_suffix(".imp").unlink()
    import_paths(store, "crush", [path])
    assert store.log_path(task).read_bytes() == before
    assert finds(store, task, "calculator keyboard")
    said = resume.command(store, task)
    assert said.run == "crush --session 5893253f-6351-4f2c-998d-2bae794714f9"
    assert said.folder == str(tmp_path / "calcman")


@pytest.mark.corpus
def test_a_copy_away_from_its_project_is_placed_by_its_calls_paths(corpus, tmp_path, store):
    copy = tmp_path / "copy"
    copy.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(corpus / "more" / "crush" / f"{REAL}{suffix}", copy / f"{REAL}{suffix}")
    import_paths(store, "crush", [copy])
    info = store.get("cr-5893253f-6351-4f2c-998d-2bae794714f9")
    assert info.project == "/Users/davidliamterpin/Documents/Projects/calcman"


# -- databases written here --------------------------------------------------------------
SCHEMA = """
create table goose_db_version (id integer primary key, version_id integer, is_applied integer);
create table sessions (id text primary key, parent_session_id text, title text not null,
  message_count integer not null default 0, prompt_tokens integer not null default 0,
  completion_tokens integer not null default 0, cost real not null default 0.0,
  updated_at integer not null, created_at integer not null);
create table messages (id text primary key, session_id text not null, role text not null,
  parts text not null default '[]', model text, created_at integer not null,
  updated_at integer not null, finished_at integer, provider text);
"""


def part(kind: str, **data) -> dict:
    return {"type": kind, "data": data}


def database(folder: Path, messages: list[tuple], cost=0.25, updated=1754104900) -> Path:
    path = folder / "pager" / ".crush" / "crush.db"
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("insert into sessions values ('s1', null, 'Pager fix', 0, 1000, 50, ?, ?,"
               " 1754104800)", (cost, updated))  # fmt: skip
    db.execute("insert into sessions values ('m1$$c1', 's1', 'Explore', 0, 0, 0, 0, 1, 1)")
    for n, (sid, role, parts) in enumerate(messages):
        db.execute("insert into messages values (?, ?, ?, ?, 'gpt-5', ?, ?, null, 'openai')",
                   (f"m{n}", sid, role, json.dumps(parts), 1754104800 + n, 1754104800))  # fmt: skip
    db.commit()
    db.close()
    os.utime(path, (OLD, OLD))
    return path


EDIT = {"file_path": "/home/ana/pager/pager.go", "old_string": "a := 1", "new_string": "a := 2"}


def test_a_session_with_an_edit_a_sub_agent_its_cost_and_a_failed_call(tmp_path, store):
    path = database(tmp_path, [
        ("s1", "user", [part("text", text="Fix the pager")]),
        ("s1", "assistant", [part("reasoning", thinking="Look first."),
                             part("text", text="Editing."),
                             part("tool_call", id="c1", name="edit", input=json.dumps(EDIT)),
                             part("finish", reason="tool_use", time=1754104801)]),
        ("s1", "tool", [part("tool_result", tool_call_id="c1", content="done", is_error=False)]),
        ("m1$$c1", "assistant", [part("text", text="It sorts by id.")]),
        ("s1", "assistant", [part("finish", reason="error", message="Rate limited")]),
    ])  # fmt: skip
    task = one(store, "crush", path)
    events, info = log_of(store, task), store.get(task)
    assert (info.title, info.project, info.turns) == ("Pager fix", str(tmp_path / "pager"), 1)
    reply = next(e for e in events if isinstance(e, r.Reply) and e.calls)
    assert (reply.thinking, reply.text, reply.calls[0].input) == ("Look first.", "Editing.", EDIT)
    result = next(e for e in events if isinstance(e, r.Result))
    assert result.files == ["/home/ana/pager/pager.go"]
    assert (
        next(e for e in events if isinstance(e, r.Reply) and e.text == "It sorts by id.").agent
        == "Explore"
    )
    assert [e.text for e in events if isinstance(e, r.Error)] == ["Rate limited"]
    assert [e.status for e in events if isinstance(e, r.TurnEnd)] == ["failed"]
    assert info.cost_usd == 0.25
    assert not any(e.usage for e in events if isinstance(e, r.Reply))
    assert not path.with_name("crush.db-wal").exists()  # nothing made beside it


def test_an_answer_crush_still_streams_waits_and_then_comes_in_whole(tmp_path, store):
    now = int(time.time())
    rows = [("s1", "user", [part("text", text="hi")]),
            ("s1", "assistant", [part("text", text="Hel")])]  # fmt: skip
    path = database(tmp_path, rows, updated=now)
    task = one(store, "crush", path)
    assert not any(isinstance(e, r.Reply) for e in log_of(store, task))
    db = sqlite3.connect(path)
    whole = [part("text", text="Hello."), part("finish", reason="end_turn", time=now)]
    db.execute("update messages set parts = ? where id = 'm1'", (json.dumps(whole),))
    db.commit()
    db.close()
    assert import_paths(store, "crush", [path]).extended == [task]
    assert [e.text for e in log_of(store, task) if isinstance(e, r.Reply)] == ["Hello."]


def test_a_cost_of_0_for_a_model_not_offered_free_is_not_known(tmp_path, store):
    path = database(
        tmp_path,
        [
            ("s1", "user", [part("text", text="hi")]),
            ("s1", "assistant", [part("text", text="hello")]),
        ],
        cost=0.0,
    )
    assert store.get(one(store, "crush", path)).cost_usd is None


def test_an_unrelated_database_and_a_goose_table_alone_are_refused(tmp_path, store):
    other = tmp_path / "notes.db"
    db = sqlite3.connect(other)
    db.execute("create table notes (id integer, body text)")
    db.commit()
    db.close()
    assert refused(store, "crush", other) == (
        "not a Crush database (no sessions and messages tables of Crush's)"
    )
    goose = tmp_path / "goose.db"
    db = sqlite3.connect(goose)
    db.execute("create table goose_db_version (id integer primary key, version_id integer)")
    db.commit()
    db.close()
    assert refused(store, "crush", goose).startswith("a goose_db_version table alone")
    text = tmp_path / "crush.db"
    text.write_text("not a database")
    assert refused(store, "crush", text) == "not a Crush database (not SQLite)"


def test_the_projects_crush_lists_are_followed(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(tmp_path / "global"))
    (tmp_path / "global").mkdir()
    listed = {"projects": [{"path": "/home/ana/pager", "data_dir": "/home/ana/pager/.crush"},
                           {"path": "/srv/app"}]}  # fmt: skip
    (tmp_path / "global" / "projects.json").write_text(json.dumps(listed))
    roots = registry.get("crush").roots()
    assert roots == [tmp_path / "global", Path("/home/ana/pager/.crush"), Path("/srv/app/.crush")]
