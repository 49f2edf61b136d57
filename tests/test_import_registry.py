"""The importers' registry and the shared core, on a toy agent whose source is rewritten whole."""

import json
import os
from pathlib import Path

import msgspec
import pytest
from importing import OLD, log_of
from nodwyn.errors import BadInput
from nodwyn.importers import names, registry, sync
from nodwyn.importers.agent import Agent, Found, Session
from nodwyn.log import records as r
from nodwyn.tasks.store import Store


class Notes(Agent):
    """A made-up agent keeping each session as one JSON document rewritten in place."""

    name, origin, label, prefix, whole = "notes", "notes-cli", "Notes", "nt-", True

    def sources(self, folder: Path):
        return folder.rglob("*.json")

    def read(self, path: Path, live: bool):
        try:
            doc = json.loads(path.read_bytes())
        except ValueError:
            return "not JSON"
        if not isinstance(doc, dict) or "notes" not in doc:
            return "not a Notes session"
        found = Found(self.task_id(doc["id"]), doc["id"])
        start = r.SessionStart(project="/p", origin=r.Origin(tool=self.origin, path=str(path)))
        kept = [start]
        for note in doc["notes"]:
            kind = r.Message if note["who"] == "me" else r.Reply
            kept.append(kind(src=r.Src(id=note["id"]), at=note["at"], text=note["text"]))
        if doc.get("title"):
            kept.append(r.SessionTitle(src=r.Src(id="title"), title=doc["title"], actor="agent"))
        return [Session(found, kept)]


NOTES = Notes()


def note(n: int, who: str = "me") -> dict:
    return {"id": f"n{n}", "who": who, "text": f"note {n}", "at": f"2026-05-01T10:00:0{n}.000Z"}


def rewrite(path: Path, notes: list[dict], title: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"id": "s1", "notes": notes, "title": title}))
    os.utime(path, (OLD, OLD))
    return path


@pytest.fixture
def store() -> Store:
    return Store()


def texts(store: Store) -> list[str]:
    return [e.text for e in log_of(store, "nt-s1") if isinstance(e, r.Message | r.Reply)]


def test_every_registered_agent_has_its_own_name_prefix_and_tool():
    agents = registry.all_agents().values()
    for field in ("name", "prefix", "origin", "label"):
        values = [getattr(agent, field) for agent in agents]
        assert all(values) and len(set(values)) == len(values), field
    assert registry.agent_keys()[:2] == ("claude", "codex")
    assert registry.by_origin("claude-code") is registry.get("claude")


def test_every_agent_s_names_are_written_once_and_only_for_registered_agents():
    assert tuple(names.AGENTS) == registry.agent_keys()
    for agent in registry.all_agents().values():
        assert (agent.origin, agent.label) == names.AGENTS[agent.name]
        assert names.label_of_origin(agent.origin) == agent.label
    assert names.label_of_origin("nodwyn") == "nodwyn" and names.label("notepad") == "notepad"


def test_an_unknown_agent_is_refused_with_the_names_nodwyn_knows():
    with pytest.raises(BadInput, match="use one of claude, codex"):
        registry.get("notepad")


def test_a_source_rewritten_whole_imports_once_and_again_adds_nothing(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1), note(2, "ai")])
    assert sync.import_source(store, NOTES, path) == [("created", "nt-s1")]
    assert sync.import_source(store, NOTES, path) == [("unchanged", "nt-s1")]
    os.utime(path)  # touched, the same bytes: still nothing new
    assert sync.import_source(store, NOTES, path) == [("unchanged", "nt-s1")]
    assert texts(store) == ["note 1", "note 2"]


def test_a_rewrite_that_adds_notes_appends_only_the_new_ones(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1), note(2, "ai")])
    sync.import_source(store, NOTES, path)
    rewrite(path, [note(1), note(2, "ai"), note(3), note(4, "ai")], title="Pager")
    assert sync.import_source(store, NOTES, path) == [("extended", "nt-s1")]
    assert texts(store) == ["note 1", "note 2", "note 3", "note 4"]
    assert store.get("nt-s1").title == "Pager"


def test_without_its_imp_state_the_log_decides_what_is_new(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1)])
    sync.import_source(store, NOTES, path)
    store.log_path("nt-s1").with_suffix(".imp").unlink()
    rewrite(path, [note(1), note(2, "ai")])
    sync.import_source(store, NOTES, path)
    assert texts(store) == ["note 1", "note 2"]


def test_a_rewrite_that_lost_imported_notes_is_refused_and_the_log_kept(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1), note(2, "ai")])
    sync.import_source(store, NOTES, path)
    before = store.log_path("nt-s1").read_bytes()
    rewrite(path, [note(2, "ai"), note(3)])
    ((outcome, reason),) = sync.import_source(store, NOTES, path)
    assert outcome == "skipped" and "no longer holds 1 records" in reason
    assert store.log_path("nt-s1").read_bytes() == before


def test_a_person_s_name_is_not_replaced_by_the_agent_s_title(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1)], title="Agent's name")
    sync.import_source(store, NOTES, path)
    store.rename("nt-s1", "Mine")
    rewrite(path, [note(1), note(2, "ai")], title="Agent's new name")
    sync.import_source(store, NOTES, path)
    assert store.get("nt-s1").title == "Mine" and texts(store)[-1] == "note 2"


def test_a_file_the_agent_does_not_know_is_refused_with_its_reason(store, tmp_path):
    path = tmp_path / "s1.json"
    path.write_text('{"id": "s1"}')
    assert sync.import_source(store, NOTES, path) == [("skipped", "not a Notes session")]
    assert not store.log_path("nt-s1").exists()


def test_a_task_deleted_in_nodwyn_is_not_imported_again(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1)])
    sync.import_source(store, NOTES, path)
    store.close("nt-s1")
    store.delete("nt-s1")
    rewrite(path, [note(1), note(2, "ai")])
    ((outcome, reason),) = sync.import_source(store, NOTES, path)
    assert outcome == "skipped" and "deleted" in reason


def test_the_import_state_of_a_whole_source_is_plain_msgspec_json(store, tmp_path):
    path = rewrite(tmp_path / "s1.json", [note(1)])
    sync.import_source(store, NOTES, path)
    state = msgspec.json.decode(store.log_path("nt-s1").with_suffix(".imp").read_bytes())
    assert state["tool"] == "notes" and len(state["whole"]) == 24
