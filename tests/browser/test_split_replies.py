"""A response an import cut in two (two `reply` records with one `src.id`) reads as one reply.

docs/decisions/0003-imported-sessions.md ("split replies"): the log keeps both parts, the
transcript joins the parts that follow each other (same response id, same agent).
"""

import re

import pytest
from nodwyn.log import records
from nodwyn.tasks.store import Store
from playwright.sync_api import expect

from .conftest import serve

TASK = "split-reply"


def write_split_log(root) -> None:
    """A turn whose response msg_x was cut in two, a sub-agent's part of msg_x, then a
    prompt, and msg_y cut in two with that prompt between its parts (they stay apart)."""
    start = records.SessionStart(
        project="/home/ana/src/pager", origin=records.Origin(tool="claude")
    )
    usage = records.Usage(input=1200, output=300)
    read = records.Call(id="c1", tool="Read", input={"file_path": "pager/order.go"})
    bash = records.Call(id="c2", tool="Bash", input={"command": "go test ./pager"})
    at = "2026-11-29T10:00:0{}Z".format
    with Store(root).create(start, task=TASK) as writer:
        writer.append(
            [
                records.Message(at=at(1), text="Fix the flaky TestPagerOrder"),
                records.Reply(
                    at=at(2),
                    src=records.Src(line=3, id="msg_x"),
                    text="First half.",
                    calls=[read],
                    usage=usage,
                    cost_usd=0.25,
                ),
                records.Reply(
                    at=at(3), src=records.Src(line=9, id="msg_x"), text="Second half.", calls=[bash]
                ),
                records.Reply(
                    at=at(3),
                    src=records.Src(line=10, id="msg_x"),
                    agent="Explore",
                    text="A sub-agent's words.",
                ),
                records.Result(at=at(4), call="c1", tool="Read", output="package pager"),
                records.Result(at=at(5), call="c2", tool="Bash", output="ok pager", exit=0),
                records.Reply(at=at(6), src=records.Src(line=12, id="msg_y"), text="Before."),
                records.Message(at=at(7), text="And list.go?"),
                records.Reply(at=at(8), src=records.Src(line=14, id="msg_y"), text="After."),
            ]
        )


@pytest.fixture
def split_served(data_dir, tmp_path):
    write_split_log(data_dir)
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


def test_one_response_cut_in_two_by_an_import_shows_as_one_reply(page, split_served):
    page.goto(split_served.at(task=TASK))
    replies = page.locator("[data-events] .turn > .event.reply")  # the main agent's
    expect(replies.first).to_be_visible()
    # msg_x once; msg_y twice, since a prompt sits between its parts
    expect(replies).to_have_count(3)
    joined = replies.first
    assert joined.locator(":scope > .prose p").all_inner_texts() == ["First half.", "Second half."]
    calls = joined.locator("xpath=following-sibling::*[1]")  # its calls, folded as one row
    expect(calls.locator("> summary")).to_have_text("2 tool calls: Read, Bash · parallel")
    tools = calls.locator("details.call > summary .tool").all_text_contents()
    assert tools == ["Read", "Bash"]  # the calls in order, each with its result
    bash = calls.locator("details.call", has_text="go test")
    expect(bash.locator("> summary")).to_contain_text("exit 0")
    expect(joined.locator(".speaker time")).to_have_attribute(
        "title", re.compile(r"record #3 \+ #4$")
    )
    # the sub-agent's part of the same id is another agent's: not joined, nested as ever
    expect(page.locator('.subagent[data-agent="Explore"] .event.reply')).to_have_text(
        re.compile("A sub-agent's words.")
    )
    assert "A sub-agent" not in joined.locator(":scope > .prose").inner_text()
    expect(replies.nth(1)).to_contain_text("Before.")
    expect(replies.nth(2)).to_contain_text("After.")


def test_a_hit_on_the_second_part_highlights_the_joined_reply(page, split_served):
    page.goto(split_served.at(task=TASK, seq=4, q="second", scope="task"))
    hit = page.locator("[data-events] [data-hit]")
    expect(hit).to_have_count(1)
    expect(hit).to_contain_text("First half.")
    expect(hit.locator("mark")).to_have_text("Second")
