"""Two machines whose shared folders two real Syncthings keep in sync over loopback: a task made
on one appears on the other, and a rename made on the second reaches the first."""

import time

import pytest
from machines_pair import Machine
from syncthing_pair import syncthing_pair

DEADLINE = 180.0  # seconds: Syncthing's watcher, its index exchange and the copy, on a busy CI


def until(what, check, engines) -> None:
    """Poll `check` (each time asking both Syncthings to scan) until it holds, under a deadline."""
    end = time.monotonic() + DEADLINE
    while not check():
        if time.monotonic() > end:
            pytest.fail(f"not within {DEADLINE:.0f} s: {what}")
        for engine in engines:
            engine.scan()
        time.sleep(0.5)


@pytest.mark.slow
def test_two_syncthings_carry_a_task_one_way_and_its_rename_back(tmp_path):
    with syncthing_pair(tmp_path) as engines:
        one, two = engines
        laptop = Machine(tmp_path / "laptop", one.folder / "nodwyn", "laptop")
        desk = Machine(tmp_path / "desk", two.folder / "nodwyn", "desk")
        task = laptop.new_task("Fix the flaky pager test")
        laptop.sync()

        def arrived() -> bool:
            desk.sync()
            return desk.store.exists(task) and desk.store.get(task).state == "closed"

        until("the laptop's task on the desk", arrived, engines)
        assert desk.store.get(task).ran_on == laptop.id
        desk.store.rename(task, "Pager fix, named on the desk")
        desk.sync()

        def renamed() -> bool:
            laptop.sync()
            return laptop.titles()[task] == "Pager fix, named on the desk"

        until("the desk's rename on the laptop", renamed, engines)
        assert len(laptop.store.list(archived=None)) == len(desk.store.list(archived=None)) == 1
