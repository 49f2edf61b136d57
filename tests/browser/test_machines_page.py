"""Machines on the page, in Chromium against `nodwyn serve`: a task from another machine says
where it ran (its row, its header), the list's filter finds it by the machine's name, and
Settings > Machines lists the machines in words, renames this one and syncs now."""

import os
import re
from pathlib import Path

import pytest
from machines_pair import Machine
from playwright.sync_api import expect


@pytest.fixture
def two_machines(data_dir, tmp_path):
    """The served data directory is the desk's; a laptop shares tmp_path / "Sync" with it."""
    laptop = Machine(tmp_path / "laptop", tmp_path / "Sync", "laptop")
    desk = Machine(data_dir, tmp_path / "Sync", "desk")
    task = laptop.new_task("Tune the plover cache on the laptop")
    desk.new_task("Sweep the desk's old branches")
    laptop.sync()
    desk.sync()
    return laptop, desk, task


def test_a_task_from_another_machine_says_where_it_ran(two_machines, page, served_empty):
    laptop, _desk, task = two_machines
    page.goto(served_empty.url)
    row = page.locator(f'[data-task="{task}"]')
    expect(row.locator("[data-ran-on]")).to_have_text("laptop")
    expect(page.locator('.task-item:not([data-task="' + task + '"]) [data-ran-on]')).to_have_count(
        0
    )
    page.locator("[data-filter]").fill("laptop")
    expect(page.locator(".task-item")).to_have_count(1)
    page.locator("[data-filter]").fill("desk")  # this machine's own, by its name too
    expect(page.locator(".task-item")).to_have_text(re.compile("Sweep the desk"))
    page.locator("[data-filter]").fill("")
    row.click()
    expect(page.locator('[data-field="machine"]')).to_have_text("on laptop")


def test_settings_list_the_machines_and_rename_this_one(two_machines, page, served_empty):
    laptop, desk, _task = two_machines
    page.goto(served_empty.url)
    page.get_by_role("button", name="Settings").click()
    machines = page.locator("[data-machines]")
    expect(machines.locator(f'[data-machine="{desk.id}"]')).to_contain_text("desk (this machine)")
    expect(machines.locator(f'[data-machine="{laptop.id}"]')).to_contain_text("1 task")
    expect(machines.locator("[data-share-folder]")).to_have_value(str(desk.folder))
    machines.locator("[data-machine-name]").fill("big desk")
    machines.get_by_role("button", name="Rename").click()
    expect(machines.locator(f'[data-machine="{desk.id}"]')).to_contain_text(
        "big desk (this machine)"
    )
    laptop.sync()
    from nodwyn import machines as machines_of

    assert machines_of.names(laptop.store.root)[desk.id] == "big desk"
    laptop.new_task("A second one from the laptop")
    laptop.sync()
    machines.get_by_role("button", name="Sync now").click()
    expect(machines.locator(f'[data-machine="{laptop.id}"]')).to_contain_text("2 tasks")


@pytest.mark.parametrize("size", [(1400, 900), (390, 844)])
def test_machines_look_right_wide_and_narrow(two_machines, browser, served_empty, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(served_empty.url)
    if size[0] < 600:  # a phone: the list is in its drawer
        page.locator("[data-drawer-button]").click()
    expect(page.locator("[data-ran-on]").first).to_be_visible()
    shots = Path(os.environ.get("NODWYN_SHOTS", "/tmp"))
    page.screenshot(path=shots / f"machines-list-{size[0]}.png")
    page.get_by_role("button", name="Settings").click()
    page.locator("[data-machines]").scroll_into_view_if_needed()
    expect(page.locator("[data-machines] li")).to_have_count(2)
    page.screenshot(path=shots / f"machines-settings-{size[0]}.png")
    context.close()
