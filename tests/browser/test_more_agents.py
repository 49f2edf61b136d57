"""A task of Pi, of Qwen Code and of Crush on the page (ADR 0053): named by their agent, their
tool calls in words (the edit as its file with its counts, the command as typed), Qwen Code's
slash command as the person typed it, and no JSON of the source on the page."""

import json

import test_import_crush as crush
import test_import_pi as pi
import test_import_qwen as qwen
from nodwyn.importers.sync import import_paths
from nodwyn.tasks.store import Store
from playwright.sync_api import expect


def sessions(tmp_path) -> dict[str, str]:
    """One session of each, written where the agent keeps it: {task: its agent's label}."""
    shell = {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "go test"}}
    edit = {"type": "toolCall", "id": "c1", "name": "edit", "arguments": pi.EDIT}
    pi_file = pi.write(tmp_path / "pi", pi.session(
        pi.said(1, "user", "Fix the pager"),
        pi.said(2, "assistant", [{"type": "text", "text": "Editing."}, edit, shell], model="m",
                usage=pi.usage(10, 5)),
    ))  # fmt: skip
    slash = qwen.record(
        "system",
        0,
        subtype="slash_command",
        systemPayload={"phase": "invocation", "rawCommand": "/review pager.go"},
    )
    qwen_file = qwen.write(tmp_path / "qwen", [
        slash, qwen.record("user", 1, **qwen.parts({"text": "## Review\nRead the file $ARGS"})),
        qwen.record("assistant", 2, model="m", **qwen.parts({"text": "Reviewed."}, role="model")),
    ])  # fmt: skip
    crush_db = crush.database(tmp_path / "crush", [
        ("s1", "user", [crush.part("text", text="Sort the pager")]),
        ("s1", "assistant", [crush.part("tool_call", id="c1", name="view",
                                        input=json.dumps({"file_path": "/home/ana/pager/p.go"})),
                             crush.part("finish", reason="tool_use")]),
    ])  # fmt: skip
    store = Store()
    for agent, path in (("pi", pi_file), ("qwen", qwen_file), ("crush", crush_db)):
        assert import_paths(store, agent, [path]).created
    return {"pi-pi-s-1": "Pi", "qw-qw-s-1": "Qwen Code", "cr-s1": "Crush"}


def test_a_task_of_each_reads_in_words_with_its_agent_named(page, served_empty, tmp_path):
    for task, label in sessions(tmp_path).items():
        page.goto(served_empty.at(task=task))
        chip = page.locator(f'[data-task="{task}"] .agent-label')
        expect(chip).to_have_attribute("title", label)  # the row shows "Qwen" for "Qwen Code"
        expect(chip).to_have_text(label.removesuffix(" Code"))
        expect(page.locator('[data-field="agent"]')).to_contain_text(label)
        shown = page.locator("main")
        expect(page.locator("[data-events]")).not_to_be_empty()  # drawn before groups are opened
        expect(page.locator("[data-events]")).to_contain_text("turn")
        for group in shown.locator("details.tool-group:not([open]) > summary").all():
            group.click()  # a reply's calls are folded as one row: opened to read each
        if task.startswith("pi-"):
            expect(shown.get_by_text("pager.go +1 −1")).to_be_visible()
            expect(shown.locator(".call-line", has_text="go test")).to_be_visible()
        elif task.startswith("qw-"):
            expect(shown.locator("p", has_text="/review pager.go")).to_be_visible()
            expect(page.locator("h1.task-name")).to_have_text("/review pager.go")
        else:
            expect(shown.locator(".call-line", has_text="/home/ana/pager/p.go")).to_be_visible()
        text = shown.inner_text()
        assert '{"' not in text and '"type"' not in text, text[:400]
