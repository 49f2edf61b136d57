"""The agent a task came from, named in the sidebar row, the header and search results
(issue 18), for sessions of Gemini CLI and Copilot CLI imported into the served data folder."""

import json
import os

from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

OLD = 1_600_000_000


def gemini_session(folder):
    path = folder / "session-2026-05-01T10-00-5e55104e.json"
    messages = [
        {"id": "u1", "timestamp": "2026-05-01T10:00:00.000Z", "type": "user",
         "content": [{"text": "Why do pangolins curl up?"}]},
        {"id": "g1", "timestamp": "2026-05-01T10:00:05.000Z", "type": "gemini",
         "content": "To shield their soft bellies.", "model": "gemini-2.5-pro"},
    ]  # fmt: skip
    doc = {"sessionId": "5e55104e-1", "projectHash": "ab", "startTime": "2026-05-01T10:00:00.000Z",
           "lastUpdated": "2026-05-01T10:00:05.000Z", "messages": messages}  # fmt: skip
    path.write_text(json.dumps(doc))
    os.utime(path, (OLD, OLD))
    return path


def copilot_session(folder):
    path = folder / "c0ffee00" / "events.jsonl"
    path.parent.mkdir()
    start = {"sessionId": "c0ffee00", "copilotVersion": "1.0.60", "context": {"cwd": "/home/ana"}}
    lines = [
        {"type": "session.start", "data": start, "id": "e0",
         "timestamp": "2026-05-02T10:00:00.000Z", "parentId": None},
        {"type": "user.message", "data": {"content": "List the armadillos"}, "id": "e1",
         "timestamp": "2026-05-02T10:00:01.000Z", "parentId": "e0"},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    os.utime(path, (OLD, OLD))
    return path


def test_each_task_says_which_agent_it_came_from(page, served_empty, tmp_path):
    store = Store(served_empty.root)
    assert import_paths(store, "gemini", [gemini_session(tmp_path)]).created
    assert import_paths(store, "copilot", [copilot_session(tmp_path)]).created
    page.goto(served_empty.url)
    row = page.locator('[data-task="gm-5e55104e-1"]')
    # the row's chip drops "CLI" (the list is narrow); the whole name is its tooltip
    expect(row.locator(".agent-label")).to_have_text("Gemini")
    expect(row.locator(".agent-label")).to_have_attribute("title", "Gemini CLI")
    expect(page.locator('[data-task="cp-c0ffee00"] .agent-label')).to_have_text("Copilot")
    row.click()
    expect(page.locator('[data-field="agent"]')).to_have_text("Gemini CLI · gemini-2.5-pro")
    expect(page.get_by_text("To shield their soft bellies.")).to_be_visible()
    box = page.get_by_label("Search", exact=True)
    box.fill("pangolins")
    box.press("Enter")
    hit = page.locator('[data-result-task="gm-5e55104e-1"]')
    expect(hit.locator(".agent-label")).to_have_text("Gemini CLI")
