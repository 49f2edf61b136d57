"""Hostile copies (tests/test_import_properties.py's mutations) of Cline's task files and
Continue's sessions, real and written here: each message one line of the JSON array, cut,
nested deep or given a field of another type; imported through the CLI, then listed, searched
and opened through the API. No traceback, no file skipped for an "unexpected" reason, every
answer 200: a file the mutation broke is refused in a line, one it left JSON is read."""

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_import_cline import PAGER
from test_import_properties import PROFILE, VALUES, cut, imported_through_the_cli, mutated

FIELDS = ("type", "say", "ask", "text", "ts", "role", "content", "metrics", "modelInfo",
          "message", "toolCalls", "toolCallStates", "usage", "promptLogs")  # fmt: skip


def retype(lines, index, field, new):
    """The message on that line given `field` = `new` (a line cut before is left as it is)."""
    try:
        value = json.loads(lines[index])
    except ValueError:
        return
    if isinstance(value, dict):
        value[field] = new
        lines[index] = json.dumps(value).encode()


def nest(lines, index, depth, field):
    retype(lines, index, field, json.loads("[" * depth + "]" * depth))


MUTATION = st.one_of(
    st.tuples(st.just(cut), st.integers(0, 10**6)),
    st.tuples(st.just(nest), st.sampled_from([3, 200, 900]), st.sampled_from(FIELDS)),
    st.tuples(st.just(retype), st.sampled_from(FIELDS), VALUES),
)
CONTINUE = {"sessionId": "c0ffee00-0000-4000-8000-000000000009", "title": "Pager",
            "workspaceDirectory": "file:///home/ana/pager"}  # fmt: skip
HISTORY = [
    {"message": {"role": "user", "content": "Fix the pager", "id": "u1"}, "contextItems": []},
    {"message": {"role": "thinking", "content": "It sorts by id.", "id": "t1"}},
    {"message": {"role": "assistant", "content": "", "id": "a1", "toolCalls": [
        {"id": "c1", "type": "function",
         "function": {"name": "read_file", "arguments": "{\"filepath\": \"pager.go\"}"}}]},
     "toolCallStates": [{"toolCallId": "c1", "status": "done"}]},
    {"message": {"role": "tool", "content": "package pager", "toolCallId": "c1", "id": "r1"}},
    {"message": {"role": "assistant", "content": "Done.", "id": "a2"}},
]  # fmt: skip
WHERE = {
    "cline": "Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1700000000000/ui_messages.json",
    "continue": ".continue/sessions/c0ffee00-0000-4000-8000-000000000009.json",
}


def as_lines(agent: str, messages: list) -> list[bytes]:
    return [json.dumps(m).encode() for m in messages]


def written(agent: str, lines: list[bytes]) -> bytes:
    items = b"[\n" + b",\n".join(lines) + b"\n]"
    if agent == "cline":
        return items
    head = json.dumps(CONTINUE)[:-1].encode()
    return head + b', "history": ' + items + b"}"


def check(agent: str, lines: list[bytes], plan: list) -> None:
    lines, _whole = mutated(lines, plan)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        source = root / "agent" / WHERE[agent]
        source.parent.mkdir(parents=True)
        source.write_bytes(written(agent, lines))
        _store, client, tasks = imported_through_the_cli(agent, source, root / "data")
        for task in tasks:
            assert client.get(f"/api/tasks/{task}/context").status == 200
            assert client.get(f"/api/search?q=pager&mode=words&task={task}").status == 200


OWN = {"cline": as_lines("cline", PAGER), "continue": as_lines("continue", HISTORY)}


@pytest.mark.parametrize("agent", sorted(OWN))
@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=4))
def test_mutated_copies_of_our_own_tasks_import_and_open_without_a_traceback(agent, plan):
    check(agent, OWN[agent], plan)


@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=3))
def test_mutated_copies_of_a_real_cline_task_import_and_open_without_a_traceback(corpus, plan):
    real = corpus / "more" / "cline" / "Jeehunter__mcp-vscode-server__ui_messages.json"
    check("cline", as_lines("cline", json.loads(real.read_text())), plan)
