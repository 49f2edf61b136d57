"""Two data directories sharing one folder, in one process: what one machine does reaches the
other, and what a sync engine does to files (half-synced lines, files replaced, temporary
files, conflict copies, clocks apart) makes no task twice and loses no line."""

import json
import os

import pytest
from importing import age, imported_one, log_of, session, write
from machines_pair import Machine, make_pair
from nodwyn import machines
from nodwyn.errors import BadInput
from nodwyn.log import records
from nodwyn.machines import share, status


@pytest.fixture
def pair(tmp_path):
    return make_pair(tmp_path)


def test_a_task_made_on_one_machine_appears_on_the_other_with_its_machine(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix the flaky pager test")
    laptop.sync()
    desk.sync()
    (shown,) = desk.store.list(archived=None)
    assert shown.id == task and shown.title == "Fix the flaky pager test"
    assert shown.ran_on == laptop.id
    assert machines.names(desk.store.root)[shown.ran_on] == "laptop"
    assert laptop.store.list()[0].ran_on == ""  # its own machine's task


def test_a_second_sync_writes_nothing_and_a_grown_log_sends_only_its_new_lines(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    before = laptop.published(task).stat().st_size
    assert laptop.sync().published == 0
    with laptop.store.writer(task) as writer:
        writer.append([records.SessionResume(), records.Message(text="Again")])
    laptop.sync()
    assert laptop.published(task).read_bytes() == laptop.store.log_path(task).read_bytes()
    assert laptop.published(task).stat().st_size > before
    desk.sync()
    assert desk.store.get(task).turns == 2
    assert len(log_of(desk.store, task)) == len(log_of(laptop.store, task))


def test_a_line_cut_mid_way_waits_and_is_read_whole_once_it_grows(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    whole = laptop.published(task).read_bytes()
    cut = whole.rfind(b"\n", 0, len(whole) - 1) + 10  # into the last line
    laptop.published(task).write_bytes(whole[:cut])  # as a half-finished sync leaves it
    desk.sync()
    assert len(log_of(desk.store, task)) == 3 and desk.store.get(task).state == "open"
    laptop.published(task).write_bytes(whole)
    desk.sync()
    assert [r.seq for r in log_of(desk.store, task)] == [1, 2, 3, 4]
    assert desk.store.get(task).state == "closed"


def test_a_file_replaced_under_the_reader_adds_nothing_twice(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    data = laptop.published(task).read_bytes()
    tmp = laptop.published(task).with_name(f".syncthing.{task}.jsonl.tmp")
    tmp.write_bytes(data.replace(b'"Fix it"', b'"Fix It"'))  # another copy, another head
    os.replace(tmp, laptop.published(task))
    report = desk.sync()
    assert len(log_of(desk.store, task)) == 4  # its lines are known by their keys
    assert not report.problems


@pytest.mark.parametrize(
    "name",
    [
        "{task}.sync-conflict-20261207-101010-ABCDEFG.jsonl",
        "{task} (desk's conflicted copy 2026-12-07).jsonl",
        "{task}_conflict-20261207-101010.jsonl",
        "{task} (conflicted copy 2026-12-07 101010).jsonl",
    ],
)
def test_a_conflict_copy_is_reported_once_and_never_imported(pair, name):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    copy = laptop.published(task).with_name(name.format(task=task))
    copy.write_bytes(laptop.published(task).read_bytes() + b"")
    report = desk.sync()
    assert any("conflict copy" in p and copy.name in p for p in report.problems)
    assert len(desk.store.list(archived=None)) == 1
    assert not desk.sync().problems  # said once, and shown as the machine's error meanwhile
    (row,) = [r for r in status.rows(desk.store) if r.name == "laptop"]
    assert row.error.startswith(copy.name) and "conflict copy" in row.error
    copy.unlink()
    desk.sync()
    (row,) = [r for r in status.rows(desk.store) if r.name == "laptop"]
    assert row.error == ""


@pytest.mark.parametrize(
    "name",
    [
        ".syncthing.x.jsonl.tmp",  # Syncthing
        "~syncthing~x.jsonl.tmp",  # Syncthing on Windows
        ".x.jsonl.~1a2b3c",  # Nextcloud, ownCloud
        "x.jsonl.partial",
        ".~x.jsonl",
        "~$x.jsonl",  # OneDrive, Office
        ".x.jsonl.icloud",  # iCloud Drive, not downloaded yet
        "x.jsonl.part",
    ],
)
def test_the_engines_temporary_files_are_passed_over_quietly(pair, name):
    laptop, desk = pair
    laptop.sync()
    (laptop.folder / laptop.id / "sessions" / name).write_text('{"seq":1}\n')
    report = desk.sync()
    assert not report.problems and not desk.store.list(archived=None)


def test_a_rename_and_an_archive_on_either_machine_reach_the_task_on_both(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    desk.store.rename(task, "Pager fix (named on the desk)")
    desk.sync()
    laptop.sync()
    assert laptop.titles()[task] == "Pager fix (named on the desk)"
    laptop.store.archive(task)
    laptop.sync()
    desk.sync()
    assert desk.store.get(task).archived
    assert desk.titles()[task] == "Pager fix (named on the desk)"


def test_with_clocks_hours_apart_the_later_rename_wins_everywhere(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    # the laptop's clock is five hours ahead: its rename says a later time than the desk's
    ahead = records.SessionTitle(title="Named first", actor="person", at="2026-12-07T15:00:00.000Z")
    with laptop.store.writer(task) as writer:
        writer.append([ahead])
    laptop.sync()
    desk.sync()
    behind = records.SessionTitle(
        title="Named second", actor="person", at="2026-12-07T10:01:00.000Z"
    )
    with desk.store.writer(task) as writer:
        writer.append([behind])
    desk.sync()
    laptop.sync()
    assert laptop.titles()[task] == desk.titles()[task] == "Named second"


def test_a_delete_is_made_where_the_task_lives_and_then_leaves_the_others(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    with pytest.raises(BadInput, match="ran on laptop: delete it there"):
        desk.store.delete(task)
    laptop.published(task).unlink()  # a file gone mid-sync removes nothing
    desk.sync()
    assert desk.store.exists(task)
    laptop.store.delete(task)
    laptop.sync()
    assert not laptop.published(task).exists()
    report = desk.sync()
    assert not desk.store.exists(task) and report.machines[laptop.id].deleted == [task]


def test_a_session_reached_two_ways_is_one_task_counted_once(pair, tmp_path):
    laptop, desk = pair
    # the same Claude Code session on both machines (copied over, or pulled there too)
    source = age(write(tmp_path / "claude" / "s.jsonl", session()))
    task = imported_one(laptop.store, "claude", source)
    assert imported_one(desk.store, "claude", source) == task
    alone = len(log_of(laptop.store, task))
    laptop.sync()
    desk.sync()
    laptop.sync()
    desk.sync()
    for machine in pair:
        assert machine.store.get(task).turns == 1
        assert sum(isinstance(r, records.Message) for r in log_of(machine.store, task)) == 1
        assert len(log_of(machine.store, task)) == alone


def test_a_machine_forgotten_leaves_with_its_tasks_and_its_folder_untouched(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    name, removed = status.forget(desk.store, "laptop")
    assert (name, removed) == ("laptop", 1)
    assert not desk.store.exists(task) and laptop.published(task).exists()
    desk.sync()
    assert not desk.store.exists(task)  # not read again
    rows = {row.name: row for row in status.rows(desk.store)}
    assert rows["laptop"].forgotten and rows["desk"].kind == "this"
    share.choose(desk.store.root, desk.folder)  # shared again: read again, the task back
    desk.sync()
    assert desk.store.get(task).ran_on == laptop.id


def test_the_status_rows_say_tasks_size_and_last_seen(pair):
    laptop, desk = pair
    laptop.new_task("One")
    laptop.new_task("Two")
    laptop.sync()
    desk.sync()
    rows = {row.name: row for row in status.rows(desk.store)}
    assert rows["laptop"].tasks == 2 and rows["laptop"].size > 0
    assert rows["laptop"].last_seen.startswith("20") and rows["desk"].tasks == 0
    card = json.loads((laptop.folder / laptop.id / "machine.json").read_text())
    assert card["name"] == "laptop" and card["tasks"] == 2


# -- the shared folder is input like any file ---------------------------------------------


def test_a_name_with_dot_dots_or_a_link_out_of_the_folder_is_never_followed(pair, tmp_path):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    outside = tmp_path / "secret.jsonl"
    outside.write_bytes(laptop.published(task).read_bytes().replace(task.encode(), b"X"))
    sessions = laptop.folder / laptop.id / "sessions"
    (sessions / "link.jsonl").symlink_to(outside)
    (sessions / "..%2Fescape.jsonl").write_bytes(b"")
    (laptop.folder / "0123456789abcdef").symlink_to(tmp_path, target_is_directory=True)
    report = desk.sync()
    said = "\n".join(report.problems)
    assert "link.jsonl: a link or not a plain file: never followed" in said
    assert "..%2Fescape.jsonl: not a task's log" in said
    assert "0123456789abcdef: a link, not a folder" in said
    assert [t.id for t in desk.store.list(archived=None)] == [task]


def test_a_sub_folder_claiming_another_machines_id_is_not_read(pair):
    laptop, desk = pair
    laptop.new_task("Fix it")
    laptop.sync()
    impostor = laptop.folder / "fedcba9876543210"
    impostor.mkdir()
    (impostor / "machine.json").write_text(json.dumps({"id": laptop.id, "name": "laptop"}))
    report = desk.sync()
    assert f"fedcba9876543210: its machine.json claims to be machine {laptop.id}" in "\n".join(
        report.problems
    )
    assert len(desk.store.list(archived=None)) == 1


def test_a_log_claiming_to_have_run_on_another_sharing_machine_is_refused(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    forged = (
        laptop.published(task)
        .read_bytes()
        .replace(b'"tool":"nodwyn"', f'"tool":"nodwyn","machine":"{desk.id}"'.encode(), 1)
    )
    laptop.published(task).write_bytes(forged)
    report = desk.sync()
    assert any(f"claims to have run on machine {desk.id}" in p for p in report.problems)
    assert not desk.store.list(archived=None)


def test_a_line_of_a_gigabyte_is_skipped_without_being_held(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    published = laptop.published(task)
    whole = published.read_bytes()
    first = whole.index(b"\n") + 1
    with open(published, "wb") as handle:  # sparse: a gigabyte of zeros that takes no disk
        handle.write(whole[:first])
        handle.seek(first + (1 << 30))
        handle.write(b"\n" + whole[first:])
    report = desk.sync()
    assert any("longer than 64 MB" in p for p in report.problems)
    assert desk.store.get(task).turns == 1 and desk.store.get(task).state == "closed"


def test_marks_that_would_delete_another_machines_tasks_are_ignored(pair, tmp_path):
    laptop, desk = pair
    mine = desk.new_task("The desk's own")
    theirs = laptop.new_task("The laptop's own")
    laptop.sync()
    third = Machine(tmp_path / "third", laptop.folder, "third")
    third.sync()
    marks = third.folder / third.id / "marks.jsonl"
    marks.write_text(
        "".join(
            json.dumps({"n": n, "task": t, "deleted": True}) + "\n"
            for n, t in enumerate([mine, theirs], 1)
        )  # fmt: skip
    )
    report = desk.sync()
    assert sum("not that machine's: ignored" in p for p in report.problems) == 2
    assert desk.store.exists(mine) and desk.store.exists(theirs)


def test_the_apps_worker_publishes_and_reads_the_shared_folder_on_its_passes(pair):
    from nodwyn.background.worker import Worker

    laptop, desk = pair
    task = laptop.new_task("Fix it")
    Worker(laptop.store, watch=False).run_pass()
    assert laptop.published(task).exists()
    Worker(desk.store, watch=False).run_pass()
    assert desk.store.get(task).ran_on == laptop.id


def test_a_second_sync_at_once_is_refused_in_one_line(pair):
    from nodwyn.errors import TaskBusy
    from nodwyn.log import locks

    laptop, _desk = pair
    fd = os.open(machines.folder(laptop.store.root) / "pass.lock", os.O_RDWR | os.O_CREAT)
    locks.lock(fd)
    try:
        with pytest.raises(TaskBusy, match="another nodwyn is syncing the shared folder"):
            laptop.sync()
    finally:
        os.close(fd)


def test_a_pass_stopped_before_it_kept_its_state_adds_nothing_twice(pair):
    from nodwyn.machines import ledger

    laptop, desk = pair
    task = laptop.new_task("Fix it")
    laptop.sync()
    desk.sync()
    kept = {p: p.read_bytes() for p in machines.folder(desk.store.root).glob("read-*.json")}
    published = ledger.published_file(laptop.store.root)
    before = published.read_bytes()
    with laptop.store.writer(task) as writer:
        writer.append([records.SessionResume(), records.Message(text="Again")])
    laptop.sync()
    published.write_bytes(before)  # the laptop stopped after its append, before its state
    laptop.sync()
    desk.sync()
    for path, data in kept.items():
        path.write_bytes(data)  # and the desk likewise
    desk.sync()
    assert laptop.published(task).read_bytes() == laptop.store.log_path(task).read_bytes()
    assert len(log_of(desk.store, task)) == len(log_of(laptop.store, task)) == 6
    assert desk.store.get(task).turns == 2


def test_a_file_replaced_by_a_shorter_copy_and_grown_back_adds_nothing_twice(pair):
    laptop, desk = pair
    task = laptop.new_task("Fix it")
    with laptop.store.writer(task) as writer:
        writer.append([records.SessionResume(), records.Message(text="Again")])
    laptop.sync()
    desk.sync()
    whole = laptop.published(task).read_bytes()
    older = whole[: whole.index(b"\n", whole.index(b"\n") + 1) + 1]  # its first two lines
    tmp = laptop.published(task).with_name(f".syncthing.{task}.jsonl.tmp")
    tmp.write_bytes(older)
    os.replace(tmp, laptop.published(task))  # an older copy put back by the engine
    desk.sync()
    laptop.published(task).write_bytes(whole)  # and the whole file again
    desk.sync()
    assert len(log_of(desk.store, task)) == len(log_of(laptop.store, task)) == 6
