"""A task for the reading tests (issue 17), written here: a reply in Markdown with a table,
a task list and code; hostile Markdown; a Claude Edit and a Codex apply_patch; tool output
with terminal colours; a compaction note; a second turn."""

from pathlib import Path

from nodwyn.log import records
from nodwyn.tasks.store import Store

DATA = Path(__file__).resolve().parent / "data"
TASK = "reading-task"
REPLY = (DATA / "reading_reply.md").read_text(encoding="utf-8")
HOSTILE = (DATA / "reading_hostile.md").read_text(encoding="utf-8")
PATCH = """*** Begin Patch
*** Update File: pager/order.go
@@ func less(a, b Page) bool {
-	return a.At.Before(b.At)
+	return a.At.Before(b.At) || (a.At.Equal(b.At) && a.ID < b.ID)
 }
*** Add File: pager/order_test.go
+package pager
*** End Patch
"""
COLOURED = "\x1b[1;31mFAIL\x1b[0m TestPagerOrder (0.01s)\n\x1b[32mok\x1b[0m  pager 0.2s\n"


def write_reading_log(root, source: Path | None = None, origin: str = "claude-code") -> str:
    """The task's log in `root`; `source` stands for the agent's own session file."""
    origin = records.Origin(
        tool=origin, path=str(source or ""), id="5f1c0de0-aaaa-bbbb-cccc-000000000001"
    )
    start = records.SessionStart(project="/home/ana/src/pager", origin=origin)
    edit = records.Call(id="e1", tool="Edit", input={
        "file_path": "/home/ana/src/pager/order.go",
        "old_string": "func less(a, b Page) bool {\n\treturn a.At.Before(b.At)\n}",
        "new_string": "func less(a, b Page) bool {\n\treturn a.At.Before(b.At) || a.ID < b.ID\n}",
    })  # fmt: skip
    patch = records.Call(id="p1", tool="apply_patch", input=PATCH)
    test = records.Call(id="t1", tool="Bash", input={"command": "go test ./pager"})
    at = "2026-11-29T10:00:{:02d}Z".format
    with Store(root).create(start, task=TASK) as writer:
        writer.append([
            records.Message(at=at(1), text="Fix the flaky TestPagerOrder"),
            records.Reply(at=at(2), text="I'll fix the ordering.", calls=[edit, patch, test]),
            records.Result(at=at(3), call="e1", tool="Edit", output="edited"),
            records.Result(at=at(4), call="p1", tool="apply_patch", output="Done!"),
            records.Result(at=at(5), call="t1", tool="Bash", output=COLOURED, exit=1, error=True),
            records.Reply(at=at(6), text=REPLY),
            records.TurnEnd(at=at(7), status="completed", duration_ms=6000),
            records.ContextCompact(at=at(8), note="We fixed **TestPagerOrder**.", first_seq=2,
                                   last_seq=8),  # fmt: skip
            records.Message(at=at(9), text="Now show me something odd"),
            records.Reply(at=at(10), text=HOSTILE),
        ])  # fmt: skip
    return TASK
