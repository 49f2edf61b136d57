"""Settings > Machines over SSH, in Chromium against `nodwyn serve`, pulling from a real sshd on
127.0.0.1 (tests/sshd.py): the hosts of the ssh config offered, a machine added and pulled with
its last pull shown, a refused one with its error in one line, and Pull now."""

import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import serve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ssh_sessions  # noqa: E402
from sshd import server_fixture  # noqa: E402, F401 (the fixture)


@pytest.fixture
def served(server, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("NODWYN_SSH_CONFIG", str(server.config))
    with serve(root=data_dir, log=tmp_path / "serve.log") as running:
        yield running


def test_a_machine_is_added_from_the_offered_hosts_and_pulled(page, served, tmp_path, artifacts):
    far = ssh_sessions.fixture_corpus(tmp_path / "far end")
    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    section = page.locator("[data-ssh-machines]")
    expect(section).to_contain_text("From your ssh config: plain, norsync, slow, home, changed")
    section.get_by_role("combobox", name="Host").fill("plain")
    section.get_by_role("textbox", name="Folders there, one AGENT=PATH a line").fill(
        f"claude={far['claude']}\ncodex={far['codex']}"
    )
    section.get_by_role("textbox", name="Name").fill("dev box")
    section.get_by_role("button", name="Add and pull").click()
    row = section.locator('[data-ssh-machine="plain"]')
    expect(row).to_contain_text("dev box")
    expect(row).to_contain_text("Last pull: now (rsync)", timeout=60000)
    expect(page.locator("[data-task]").first).to_be_visible()  # its tasks in the list
    section.get_by_role("combobox", name="Host").fill("closed")
    section.get_by_role("textbox", name="Folders there, one AGENT=PATH a line").fill("claude=/x")
    section.get_by_role("textbox", name="Name").fill("")
    section.get_by_role("button", name="Add and pull").click()
    refused = section.locator('[data-ssh-machine="closed"]')
    expect(refused.get_by_role("alert")).to_have_text(
        "closed: connection refused; is sshd running there, on the port ~/.ssh/config says?",
        timeout=60000,
    )
    row.get_by_role("button", name="Pull dev box now").click()
    expect(row).not_to_contain_text("pulling…", timeout=60000)
    expect(row).to_contain_text("Last pull: now (rsync)")
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        section.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"ssh-machines-{width}.png"))
