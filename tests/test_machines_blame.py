"""Blame and commit for a task from another machine: its edits name files by that machine's
folder, and a checkout here under another name is the same project when git's history holds
the text the task's edits found (memory/provenance/checkouts.py), whatever machine it ran on."""

from machines_pair import Machine
from nodwyn.memory.provenance import ledgers
from test_blame_git import AFTER, BEFORE, NOTES, PLAN, claimed, committed, imported, notes_session


def test_blame_names_a_task_that_ran_on_another_machine_in_a_checkout_here(tmp_path, data_dir):
    laptop_store = imported(tmp_path, tmp_path / "laptop", notes_session())
    laptop = Machine(laptop_store.root, tmp_path / "Sync", "laptop")
    desk = Machine(data_dir, tmp_path / "Sync", "desk")
    laptop.sync()
    desk.sync()
    (task,) = [t.id for t in desk.store.list(archived=None)]
    assert desk.store.get(task).ran_on == laptop.id
    ledgers._books.clear()
    here = tmp_path / "desk-home" / "code" / "pager"  # not the laptop's /home/ana/pager
    committed(here, "notes.md", NOTES, BEFORE)
    committed(here, "notes.md", NOTES + PLAN, AFTER)
    assert claimed(desk.store, here / "notes.md") == [4, 5, 6, 7, 8, 9]
    other = tmp_path / "myapp"  # a repository with the lines, never the text it found
    committed(other, "notes.md", "# Other notes\n" + PLAN, AFTER)
    assert claimed(desk.store, other / "notes.md") == []
