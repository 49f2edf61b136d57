"""The store: listing, names, archive, close, delete, and a task held by another writer."""

import os

import pytest
from nodwyn.errors import BadInput, TaskBusy, TaskNotClosed, TaskNotFound
from nodwyn.log import logfile, records
from nodwyn.tasks.catalogue import first_sentence
from nodwyn.tasks.store import Store, new_id


def start(project="/home/ana/pager", tool="nodwyn", at=""):
    return records.SessionStart(project=project, origin=records.Origin(tool=tool), at=at)


def make(store, *texts, at=None, tool="nodwyn", project="/home/ana/pager", task=None):
    with store.create(start(project, tool, at or ""), task=task) as writer:
        writer.append([records.Message(text=t, at=at or "") for t in texts])
        return writer.path.stem


@pytest.fixture
def store():
    return Store()


def test_a_new_task_is_listed_with_what_the_sidebar_needs(store):
    task = make(store, "Fix the flaky TestPagerOrder. It fails on CI.", "And the docs")
    (listed,) = store.list()
    assert listed.id == task
    assert listed.title == "Fix the flaky TestPagerOrder."
    assert listed.title_by == "message"
    assert (listed.project, listed.origin, listed.state) == ("/home/ana/pager", "nodwyn", "open")
    assert listed.turns == 2 and not listed.archived
    assert listed.created <= listed.last_activity


def test_tasks_are_listed_newest_activity_first(store):
    old = make(store, "old", at="2026-01-01T00:00:00.000Z")
    new = make(store, "new", at="2026-03-01T00:00:00.000Z")
    middle = make(store, "middle", at="2026-02-01T00:00:00.000Z")
    assert [t.id for t in store.list()] == [new, middle, old]
    with store.writer(old) as writer:
        writer.append([records.Message(text="again")])
    assert store.list()[0].id == old


def test_ids_are_ulids_that_sort_by_creation():
    first, second = new_id(), new_id()
    assert len(first) == 26 and first[:9] <= second[:9]


class TestTitles:
    def test_a_person_names_a_task_and_the_name_is_cleaned(self, store):
        task = make(store, "hey so the login page keeps sending me back")
        renamed = store.rename(task, "  Login\n  redirect   loop ")
        assert (renamed.title, renamed.title_by) == ("Login redirect loop", "person")

    def test_a_name_longer_than_120_characters_is_refused(self, store):
        task = make(store, "x")
        with pytest.raises(BadInput, match="at most 120"):
            store.rename(task, "a" * 121)
        assert store.rename(task, "a" * 120).title == "a" * 120

    def test_an_empty_name_takes_the_name_back(self, store):
        task = make(store, "Fix the pager. Now.")
        store.rename(task, "Pager")
        back = store.rename(task, "   ")
        assert (back.title, back.title_by) == ("Fix the pager.", "message")

    def test_a_model_or_an_import_never_replaces_a_persons_name(self, store):
        task = make(store, "x")
        store.rename(task, "Mine")
        store.rename(task, "The model's idea", actor="model")
        store.rename(task, "From the agent", actor="import")
        assert (store.get(task).title, store.get(task).title_by) == ("Mine", "person")

    def test_a_person_replaces_the_models_name_and_the_model_replaces_the_agents(self, store):
        task = make(store, "x")
        store.rename(task, "Agent title", actor="agent")
        assert store.rename(task, "Model title", actor="model").title == "Model title"
        assert store.rename(task, "Later agent title", actor="agent").title == "Model title"
        assert store.rename(task, "Person title").title == "Person title"

    def test_the_first_message_gives_its_first_sentence_on_one_line(self):
        assert first_sentence("\n\n  Fix  the bug! Then test.") == "Fix the bug!"
        assert first_sentence("line one\nline two") == "line one"
        long = first_sentence("word " * 50)
        assert len(long) == 120 and long.endswith("…")


class TestLifecycle:
    def test_archive_is_refused_for_an_open_task(self, store):
        task = make(store, "x")
        with pytest.raises(TaskNotClosed, match="close it"):
            store.archive(task)
        with pytest.raises(TaskNotClosed):
            store.delete(task)
        assert store.exists(task)

    def test_a_closed_task_is_archived_unarchived_and_resumed(self, store):
        task = make(store, "x")
        assert store.close(task).state == "closed"
        assert store.archive(task).archived
        assert store.list() == [] and [t.id for t in store.list(archived=True)] == [task]
        assert not store.archive(task, False).archived
        assert store.resume(task).state == "open"

    def test_a_task_waiting_on_an_approval_needs_an_answer_until_answered(self, store):
        task = make(store, "x")
        with store.writer(task) as writer:
            writer.append([records.ApprovalAsk(call="c1", tool="Bash")])
        assert store.get(task).state == "needs an answer"
        with store.writer(task) as writer:
            writer.append([records.ApprovalAnswer(call="c1", allowed=True)])
        assert store.get(task).state == "open"

    def test_deleting_removes_the_log_and_every_derived_file(self, store):
        task = make(store, "x")
        store.close(task)
        logfile.by_seq(store.log_path(task), 1)  # makes <id>.idx
        (store.sessions / f"{task}.mem").write_bytes(b"derived")
        other = make(store, "y")
        store.delete(task)
        assert sorted(p.name for p in store.sessions.iterdir()) == [f"{other}.jsonl"]
        assert [t.id for t in store.list(archived=None)] == [other]
        assert store.was_deleted(task) and not store.was_deleted(other)
        with pytest.raises(TaskNotFound):
            store.get(task)

    def test_every_change_is_refused_while_another_writer_holds_the_task(self, store):
        task = make(store, "x")
        store.close(task)
        with store.writer(task):
            for change in (
                lambda: store.rename(task, "n"),
                lambda: store.archive(task),
                lambda: store.delete(task),
            ):
                with pytest.raises(TaskBusy, match="open in another process"):
                    change()
        assert store.exists(task) and store.get(task).title == "x"


class TestImportedTasks:
    def test_an_imported_task_is_closed_unless_it_moved_in_the_last_minutes(self, store):
        old = make(store, "a", at="2020-01-01T00:00:00.000Z", tool="claude-code")
        live = make(store, "b", tool="codex")
        assert store.get(old).state == "closed"
        assert store.get(live).state == "running"

    def test_naming_or_archiving_an_old_imported_task_is_not_activity_in_it(self, store):
        task = make(store, "a", at="2020-01-01T00:00:00.000Z", tool="claude-code")
        store.rename(task, "Old work")
        archived = store.archive(task)
        assert (archived.state, archived.last_activity) == ("closed", "2020-01-01T00:00:00.000Z")

    def test_an_imported_task_can_be_archived_and_deleted_like_a_closed_one(self, store):
        task = make(store, "a", at="2020-01-01T00:00:00.000Z", tool="claude-code", task="cc-1")
        assert store.archive(task).archived
        store.delete(task)
        assert not store.exists(task) and store.was_deleted("cc-1")
        with pytest.raises(BadInput, match="was deleted"):
            make(store, "again", tool="claude-code", task="cc-1")


def test_an_id_that_could_leave_the_sessions_folder_is_refused(store):
    for bad in ("../x", "a/b", "", ".hidden"):
        with pytest.raises(BadInput):
            store.log_path(bad)


def test_a_log_written_behind_the_stores_back_is_listed(store):
    path = store.sessions / "hand.jsonl"
    path.write_text(
        '{"kind":"session.start","seq":1,"at":"2026-01-01T00:00:00.000Z","project":"/q",'
        '"origin":{"tool":"nodwyn"}}\n{"kind":"message","seq":2,"at":"","text":"by hand"}\n'
    )
    os.utime(path, ns=(1, 1))
    (listed,) = store.list()
    assert (listed.id, listed.title, listed.project) == ("hand", "by hand", "/q")
