"""The transcript read as a conversation (issue 48): each message under its speaker's head with
its time, a reply's model and tokens; a reply's tool calls folded as one row that opens to a
line per call with its time and exit; copy buttons; "(no output)"; no record numbers in the
text; bookkeeping folded; a checkpoint note folded at the text's size without its template
markup; Aider's code shown as code, never as Markdown."""

import re

import pytest
from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve

R = records
AT = "2026-05-04T10:00:{:02d}Z"
NOTE = (
    "{{ CHECKPOINT 0 }}\n **The earlier parts of this conversation have been truncated. **\n\n"
    "# USER Objective:\nMake the pager steady\n\n# Progress\n"
    + "\n".join(f"- step {n}" for n in range(12))
)
AIDER = (
    "backend/__init__.py\n<source>\n# Package initializer for backend.\nPATH = __file__\n"
    "</source>\n"
    "pager/order.go\n<<<<<<< SEARCH\n# old comment\n=======\n# new comment\n>>>>>>> REPLACE\n"
)


def claude_log(store: Store) -> None:
    start = R.SessionStart(project="/home/ana/src/pager", origin=R.Origin(tool="claude-code"))
    calls = [
        R.Call(id="r1", tool="Read", input={"file_path": "/home/ana/src/pager/order.go"}),
        R.Call(id="r2", tool="Read", input={"file_path": "/home/ana/src/pager/list.go"}),
        R.Call(id="b1", tool="Bash", input={"command": "go test ./pager"}),
    ]
    usage = R.Usage(input=12, output=450, cache_read=12000, cache_write=300)
    model = "claude-sonnet-4-5"
    mkdir = R.Call(id="b2", tool="Bash", input={"command": "mkdir -p out"})
    task = R.Call(id="t1", tool="Task", input={"subagent_type": "Explore", "prompt": "find maps"})
    sub = "a1b2c3d4"
    with store.create(start, "talk") as w:
        w.append([
            R.SessionTitle(title="Steady pager", actor="person", at=AT.format(0)),
            R.SessionResume(at=AT.format(0)),
            R.Message(text="Why does TestPagerOrder fail?", at=AT.format(1)),
            R.Reply(text="Let me look.", calls=calls, model=model, usage=usage, at=AT.format(2)),
            R.Result(call="r1", tool="Read", output="package pager", at=AT.format(3)),
            R.Result(call="r2", tool="Read", output="package pager", at=AT.format(3)),
            R.Result(call="b1", tool="Bash", output="FAIL", exit=1, error=True, at=AT.format(9)),
            R.Reply(calls=[mkdir], at=AT.format(10)),
            R.Result(call="b2", tool="Bash", output="", exit=0, at=AT.format(11)),
            R.Reply(calls=[task], at=AT.format(12)),
            R.Message(text="find maps", agent=sub, at=AT.format(13)),
            R.Reply(text="order.go:41 ranges over a map.", agent=sub, at=AT.format(14)),
            R.Result(call="t1", tool="Task", output="order.go:41", at=AT.format(15)),
            R.Reply(text="Sort the keys.", model=model, usage=usage, at=AT.format(16)),
            R.ContextCompact(note=NOTE, first_seq=1, last_seq=16, at=AT.format(17)),
            R.Message(text="Go on", at=AT.format(18)),
            R.Reply(text="Done.", at=AT.format(19)),
        ])  # fmt: skip
    aider = R.SessionStart(project="/home/ana/src/pager", origin=R.Origin(tool="aider"))
    with store.create(aider, "aider") as w:
        w.append(
            [
                R.Message(text="Make a package", at=AT.format(1)),
                R.Reply(text=AIDER, at=AT.format(2)),
            ]
        )


@pytest.fixture
def talk(data_dir, tmp_path):
    claude_log(Store(data_dir))
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


def test_each_message_is_headed_by_its_speaker_with_time_model_and_tokens(page, talk):
    page.goto(talk.at(task="talk"))
    heads = page.locator("[data-events] .speaker")
    expect(heads.first).to_be_visible()
    names = heads.locator(".speaker-name").all_text_contents()  # folded ones too
    assert names[:2] == ["You", "Claude Code"]
    assert "Explore" in names and "Claude Code → Explore" in names  # the sub-agent by its name
    reply = page.locator(".event.reply", has_text="Let me look.")
    expect(reply.locator(".speaker-model")).to_have_text("claude-sonnet-4-5")
    expect(reply.locator(".speaker-tokens")).to_have_text("12k in · 450 out")
    expect(reply.locator(".speaker time")).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))
    text = page.locator("[data-events]").inner_text()
    assert not re.search(r"#\d", text)  # record numbers on hover only
    assert "claude-code" not in text and "a1b2c3d4" not in text  # no internal ids


def test_a_replys_calls_fold_as_one_row_that_opens_to_a_line_per_call(page, talk):
    page.goto(talk.at(task="talk"))
    run = page.locator("details.tool-group").first
    summary = run.locator("> summary")
    expect(summary).to_have_text("5 tool calls: Read ×2, Bash ×2, Task · 3 in parallel · 1 failed")
    expect(run.locator("details.call").first).to_be_hidden()
    summary.click()
    rows = run.locator("details.call > summary")
    expect(rows).to_have_count(5)
    expect(rows.nth(0)).to_contain_text("/home/ana/src/pager/order.go")
    bash = run.locator('details.call[data-call="b1"]')
    expect(bash).to_have_attribute("data-parallel", "3")
    expect(bash.locator(".call-time")).to_have_text("7s")
    expect(bash.locator(".call-status")).to_have_text("error · exit 1")
    quiet = run.locator('details.call[data-call="b2"]')
    quiet.locator("> summary .call-line").click()
    expect(quiet.locator(".no-output")).to_have_text("(no output)")


def test_copy_buttons_put_a_message_a_command_and_code_on_the_clipboard(browser, talk):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(talk.at(task="talk"))
    message = page.locator(".event.message", has_text="Why does")
    message.hover()
    message.get_by_role("button", name="Copy message").click()
    assert page.evaluate("navigator.clipboard.readText()") == "Why does TestPagerOrder fail?"
    page.locator("details.tool-group > summary").first.click()
    command = page.locator('details.call[data-call="b1"]')
    command.get_by_role("button", name="Copy command").click()
    assert page.evaluate("navigator.clipboard.readText()") == "go test ./pager"
    expect(command).not_to_have_attribute("open", "")  # copying never opens the call
    page.goto(talk.at(task="aider"))
    block = page.locator(".code-box").first
    block.hover()
    block.get_by_role("button", name="Copy code").click()
    assert page.evaluate("navigator.clipboard.readText()") == (
        "# Package initializer for backend.\nPATH = __file__"
    )
    context.close()


def test_bookkeeping_folds_and_a_checkpoint_note_reads_at_the_texts_size(page, talk):
    page.goto(talk.at(task="talk"))
    meta = page.locator("details.meta-run > summary")
    said = "started in /home/ana/src/pager · Claude Code, named “Steady pager” by you, resumed"
    expect(meta).to_have_text(f"3 events: {said}")
    note = page.locator("[role=separator]")
    expect(note.locator(".compaction-line")).to_contain_text("Checkpoint 0 · the agent's note")
    text = note.inner_text()
    assert "{{" not in text and "**" not in text
    heading = note.locator(".compaction-note h1").first
    size = heading.evaluate("n => getComputedStyle(n).fontSize")
    body = page.locator(".event.message .prose").first.evaluate("n => getComputedStyle(n).fontSize")
    assert abs(float(size[:-2]) - float(body[:-2])) < 1.5  # a heading of the note, not a banner
    assert (
        note.locator(".compaction-note").evaluate("n => getComputedStyle(n).fontStyle") == "normal"
    )
    expect(note.locator(".clip")).to_have_class(re.compile("clipped"))  # its first lines
    note.get_by_role("button", name=re.compile("^Show all")).click()
    expect(note).to_contain_text("step 11")


def test_aiders_code_and_edit_blocks_read_as_code(page, talk):
    page.goto(talk.at(task="aider"))
    reply = page.locator(".event.reply")
    expect(reply.locator("pre.code").first).to_contain_text("# Package initializer for backend.")
    expect(reply.locator("pre.code").first).to_contain_text("PATH = __file__")
    expect(reply.locator("pre.code").nth(1)).to_contain_text("<<<<<<< SEARCH")
    assert reply.locator("h1, strong").count() == 0  # no heading or bold made of the code
