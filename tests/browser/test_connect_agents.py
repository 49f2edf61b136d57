"""Settings > Agents' memory: an agent found on this computer is connected with one click,
its configuration written as `nodwyn mcp install AGENT --write` writes it (issue 29)."""

import json

from playwright.sync_api import expect


def test_connect_adds_nodwyn_to_a_found_agents_configuration(page, agents_home, served):
    settings = agents_home / ".gemini" / "settings.json"  # the server was given this home
    settings.parent.mkdir()
    settings.write_text('{\n  // mine\n  "theme": "GitHub"\n}\n')
    page.goto(served.url)
    page.get_by_role("button", name="Settings").click()
    row = page.locator('[data-agent-connection="gemini"]')
    expect(row).to_contain_text("Gemini CLI")
    expect(row).to_contain_text(str(settings))
    expect(page.locator('[data-agent-connection="copilot"]')).to_have_count(0)  # not here
    row.get_by_role("button", name="Connect Gemini CLI").click()
    expect(row.get_by_role("status")).to_contain_text("Added mcpServers.nodwyn")
    expect(row.get_by_role("button", name="Connect Gemini CLI")).to_be_disabled()
    expect(row.get_by_role("button", name="Connect Gemini CLI")).to_have_text("Connected")
    text = settings.read_text()
    assert "// mine" in text
    entry = json.loads(text.replace("// mine", ""))["mcpServers"]["nodwyn"]
    assert entry["args"][-2:] == ["--agent", "gemini"]
