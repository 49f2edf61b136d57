"""The record kinds: round trips, unknown kinds kept, damaged lines named."""

import msgspec
import pytest
from nodwyn.log import records

EXAMPLES = [
    records.Bookmark(turn=2, note="the ordering fix"),
    records.SessionStart(
        project="/home/ana/pager",
        origin=records.Origin(tool="claude-code", path="/x.jsonl", id="abc", version="2.1.3"),
        model="claude-opus-4-7",
        branch="main",
        machine=True,
    ),
    records.SessionTitle(title="Fix the pager", actor="model"),
    records.SessionArchive(archived=True),
    records.SessionClose(),
    records.SessionResume(),
    records.Message(
        text="Fix the flaky TestPagerOrder",
        attachments=[records.Attachment(name="ide_selection", text="func TestPagerOrder")],
        command="/fix",
    ),
    records.Reply(
        text="Done.",
        thinking="look at the sort",
        calls=[records.Call(id="c1", tool="Bash", input={"command": "go test ./pager"})],
        model="claude-opus-4-7",
        usage=records.Usage(input=10, output=20, cache_read=30, cache_write=40),
        cost_usd=0.0123,
    ),
    records.Result(call="c1", tool="Bash", output="ok", error=True, exit=1, files=["a.go"]),
    records.Plan(items=[records.PlanItem(text="read", status="completed")]),
    records.ApprovalAsk(call="c2", tool="Bash", input={"command": "rm -rf build"}),
    records.ApprovalAnswer(call="c2", allowed=True),
    records.TurnEnd(status="failed", duration_ms=6000, cost_usd=0.5),
    records.ContextCompact(note="we fixed the pager", first_seq=1, last_seq=40),
    records.Error(text="overloaded", agent="explorer", src=records.Src(line=7, id="u1")),
]


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda r: records.kind_of(r))
def test_every_kind_survives_a_round_trip(record):
    record = msgspec.structs.replace(record, seq=3, at="2026-11-29T10:00:00.000Z")
    line = records.encode(record)
    assert records.decode(line) == record
    assert msgspec.json.decode(line)["kind"] == records.kind_of(record)


def test_the_union_covers_every_kind_of_the_design():
    assert set(records.KINDS) == {
        "session.start", "session.title", "session.archive", "session.close",
        "session.resume", "message", "reply", "result", "plan", "approval.ask",
        "approval.answer", "turn.end", "context.compact", "error", "bookmark", "memory.summary",
        "limit",
    }  # fmt: skip


def test_a_line_of_an_unknown_kind_is_kept_whole_as_an_opaque_event():
    line = b'{"kind":"tool.progress","seq":9,"at":"2026-11-29T10:00:00.000Z","pct":40}'
    event = records.decode(line)
    assert isinstance(event, records.Opaque)
    assert (event.seq, event.kind, event.raw["pct"]) == (9, "tool.progress", 40)


def test_a_known_kind_with_fields_of_another_shape_is_kept_as_opaque():
    event = records.decode(b'{"kind":"message","seq":2,"at":"","text":["a","b"]}')
    assert isinstance(event, records.Opaque) and event.raw["text"] == ["a", "b"]


def test_unknown_fields_of_a_known_kind_are_ignored():
    event = records.decode(b'{"kind":"message","seq":2,"at":"","text":"hi","mood":"happy"}')
    assert event == records.Message(seq=2, text="hi")


@pytest.mark.parametrize(
    "line, reason",
    [(b'{"kind":"message","seq":2,"te', "not JSON"), (b"[1,2]", "not a JSON object"),
     (b'{"kind":"message","text":"no seq"}', "no seq"), (b'{"seq":0}', "no seq")],
)  # fmt: skip
def test_a_line_that_is_no_record_is_damaged_with_a_reason(line, reason):
    with pytest.raises(records.Damaged, match=reason):
        records.decode(line)


def test_now_is_rfc3339_utc_with_milliseconds():
    import re

    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", records.now())
