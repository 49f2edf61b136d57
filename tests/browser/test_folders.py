"""A folder for every task (issue 37), in Chromium at a desktop window's size and a phone's:
tasks whose logs name no folder sit under a heading that says "No folder" (not a bare "▾"), the
header says so where its details began with a "·", and a long project folder in Settings >
Agents' memory stays inside the dialog."""

import pytest
from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve

SIZES = {"desktop": (1400, 900), "phone": (390, 844)}
DEEP = "/Users/ana/Documents/GitHub/projects/exampleproject/.worktrees/aratherlongbranchname"


def task(root, name: str, project: str, tool: str = "cursor") -> None:
    start = records.SessionStart(project=project, origin=records.Origin(tool=tool))
    with Store(root).create(start, name) as writer:
        asked = records.Message(text=f"Sort the sidebar ({name})")
        writer.append([asked, records.Reply(text="Sorted."), records.TurnEnd(status="completed")])


def drawer(page, size: str) -> None:
    """On a phone the task list and its Settings button are in the drawer: opened."""
    if size == "phone":
        page.get_by_role("button", name="Tasks").click()
        expect(page.locator("[data-sidebar]")).to_be_in_viewport()


@pytest.fixture
def served_folders(data_dir, tmp_path):
    for name in ("cu-one", "cu-two"):
        task(data_dir, name, "")
    task(data_dir, "cc-deep", DEEP, tool="claude-code")
    task(data_dir, "cc-deep-2", DEEP, tool="claude-code")
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


@pytest.fixture(params=list(SIZES))
def sized(browser, request):
    """(a page at a desktop window's size or a phone's, that size's name)."""
    width, height = SIZES[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20000)
    yield context.new_page(), request.param
    context.close()


def test_tasks_with_no_folder_are_under_a_heading_that_says_so(sized, served_folders):
    page, size = sized
    page.goto(served_folders.at(task="cu-one"))
    expect(page.locator("[data-meta]")).to_contain_text("Cursor")
    drawer(page, size)
    heading = page.locator('[data-group=""]')
    expect(heading).to_be_visible()
    expect(heading).to_have_text("▾No folder")
    meta = page.locator("[data-meta]")
    expect(meta.locator('[data-field="project"]')).to_have_text("No folder")
    # the first field's "·" is the one clipped off: the details start with a word
    first = meta.locator(".meta-item").first
    assert first.locator('[data-field="project"]').count() == 1
    expect(meta.locator('[data-field="agent"]')).to_contain_text("Cursor")


def test_a_long_project_folder_stays_inside_the_settings_dialog(sized, served_folders):
    page, size = sized
    page.goto(served_folders.url)
    drawer(page, size)
    page.get_by_role("button", name="Settings").click()
    tick = page.locator("[data-earlier-tasks]").get_by_role("checkbox", name=DEEP)
    expect(tick).to_be_attached()
    code = page.locator("[data-earlier-tasks] code", has_text="aratherlongbranchname")
    code.scroll_into_view_if_needed()
    inside = page.evaluate(
        """() => {
            const dialog = document.querySelector("dialog.settings").getBoundingClientRect();
            return [...document.querySelectorAll("[data-earlier-tasks] code")].map((c) => {
                const box = c.getBoundingClientRect();
                return box.right <= dialog.right && box.left >= dialog.left;
            });
        }"""
    )
    assert inside and all(inside), inside
    dialog = page.locator("dialog.settings")
    assert page.evaluate("(d) => d.scrollWidth <= d.clientWidth", dialog.element_handle())
