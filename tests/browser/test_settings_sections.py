"""Settings in sections (issue 48): a side navigation, a filter that keeps the settings whose
words hold it, the project folders sorted and filterable, and a section a module adds with one
line (settingsections.js) listed with the others."""

import pytest
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve


@pytest.fixture
def folders_served(data_dir, tmp_path):
    store = Store(data_dir)
    for n, name in enumerate(
        ["zeta", "Alpha", "mango", "beta", "kiwi", "delta", "omega", "pear", "fig"]
    ):
        start = r.SessionStart(project=f"/home/ana/src/{name}", origin=r.Origin(tool="claude-code"))
        with store.create(start, f"t{n}") as w:
            w.append([r.Message(text=f"work on {name}")])
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


def test_settings_has_sections_a_side_navigation_and_a_filter(page, folders_served):
    page.goto(folders_served.url)
    page.get_by_role("button", name="Settings").click()
    nav = page.get_by_role("navigation", name="Settings sections")
    expect(nav.get_by_role("link")).to_have_text(
        [
            "Agents",
            "Live states",
            "Search",
            "Summaries",
            "Agents' memory",
            "Machines",
            "Task list",
            "Terminal",
            "Window",
        ]
    )
    tray = page.locator('[data-setting="close_to_tray"]')
    expect(page.locator('[data-settings-section="window"]')).to_contain_text("tray")
    assert (
        page.locator('[data-settings-section="search"] [data-setting="close_to_tray"]').count() == 0
    )
    nav.get_by_role("link", name="Window").click()
    expect(tray).to_be_in_viewport()
    page.get_by_label("Filter settings").fill("tray")
    expect(page.locator('[data-settings-section="window"]')).to_be_visible()
    expect(page.locator('[data-settings-section="search"]')).to_be_hidden()
    expect(nav.get_by_role("link", name="Search")).to_be_hidden()
    page.get_by_label("Filter settings").fill("")
    folders = page.locator("[data-earlier]")
    names = [f.split("/")[-1] for f in folders.evaluate_all("ns => ns.map(n => n.dataset.earlier)")]
    assert names == sorted(names, key=str.lower)
    page.get_by_label("Filter projects").fill("ango")
    shown = [n for n in folders.all() if n.is_visible()]
    assert [n.get_attribute("data-earlier").split("/")[-1] for n in shown] == ["mango"]


def test_a_module_adds_a_section_with_one_line(page, folders_served):
    page.goto(folders_served.url)
    expect(page.locator(".task-item").first).to_be_visible()
    page.evaluate(
        """async () => {
          const { addSettingsSection } = await import("/static/js/settingsections.js");
          addSettingsSection({ id: "machines", title: "Machines", draw: () => {
            const p = document.createElement("p"); p.textContent = "This machine"; return p; } });
        }"""
    )
    page.get_by_role("button", name="Settings").click()
    nav = page.get_by_role("navigation", name="Settings sections")
    expect(nav.get_by_role("link", name="Machines")).to_be_visible()
    expect(page.locator('[data-settings-section="machines"]')).to_contain_text("This machine")
