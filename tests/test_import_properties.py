"""Hostile copies of real sessions (#14 Deliver 4): hypothesis mutates real lines and whole
files (cut, nest, retype fields, change encodings, insert huge values, drop, repeat), imports
them through the CLI's own code, then lists, searches and opens every task through the API.

- No traceback anywhere: the CLI answers 0, no line or file is skipped for an "unexpected"
  reason (what problems.py says for an error nobody foresaw), every API answer is 200.
- Nothing lost: the words of every line left as it was (a person's prompt, an agent's
  answer) are in the task's log, byte for byte.

Sources: the project's own hand-written sessions (tests/importing.py), and the real corpus
(`corpus` fixture) where it is present. The budget: the default run tries 50 copies per
test (the `ci` profile: 9 s for the three tests on this 2-core machine); by hand,
`NODWYN_PROPERTIES=long pytest tests/test_import_properties.py` tries 400 per test (3.5
minutes here).
"""

import contextlib
import io
import json
import os
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from importing import age, session
from nodwyn import api, cli
from nodwyn.log import logfile, records
from nodwyn.log.redact import redact
from nodwyn.tasks.store import Store
from test_api import TOKEN, Client
from test_import_hostile import codex_file

settings.register_profile(
    "ci", max_examples=50, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
settings.register_profile(
    "long", max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
SIZES = [10_000, 300_000, 3_000_000]  # characters of an inserted huge value
PROFILE = os.environ.get("NODWYN_PROPERTIES", "ci")
FIELDS = ("type", "message", "content", "timestamp", "sessionId", "payload", "uuid",
          "parentUuid", "attachment", "toolUseResult", "summary", "isSidechain")  # fmt: skip
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just({"type": ["user"]}), st.just([{"type": {"a": 1}}]),
)  # fmt: skip


# -- the mutations: each takes the file's lines (bytes) and gives them changed ---------------
def _json(line: bytes):
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def cut(lines, index, at):
    line = lines[index]
    lines[index] = line[: at % max(len(line), 1)]


def nest(lines, index, depth, field):
    value = _json(lines[index])
    if value is not None:
        value[field if field in value else "content"] = "NESTED"
        deep = "[" * depth + "]" * depth
        lines[index] = json.dumps(value).replace('"NESTED"', deep, 1).encode()


def retype(lines, index, field, new):
    value = _json(lines[index])
    if value is not None:
        value[field] = new
        lines[index] = json.dumps(value).encode()


def encode(lines, index, how):
    text = lines[index].decode("utf-8", "replace")
    lines[index] = {
        "utf-16": lambda: text.encode("utf-16"),
        "latin-1": lambda: text.encode("latin-1", "replace") + b"\xe9\xff",
        "bom": lambda: b"\xef\xbb\xbf" + lines[index],
        "broken": lambda: lines[index][:3] + b"\xc3\x28\xa0\xa1" + lines[index][3:],
        "nul": lambda: lines[index] + b"\x00",
    }[how]()


def huge(lines, index, size, field):
    value = _json(lines[index])
    if value is not None:
        value[field] = "huge " * (size // 5)
        lines[index] = json.dumps(value).encode()


def drop(lines, index):
    del lines[index]


def repeat(lines, index):
    lines.insert(index, lines[index])


MUTATION = st.one_of(
    st.tuples(st.just(cut), st.integers(0, 10**6)),
    st.tuples(st.just(nest), st.sampled_from([3, 200, 1500, 5000]), st.sampled_from(FIELDS)),
    st.tuples(st.just(retype), st.sampled_from(FIELDS), VALUES),
    st.tuples(st.just(encode), st.sampled_from(["utf-16", "latin-1", "bom", "broken", "nul"])),
    st.tuples(st.just(huge), st.sampled_from(SIZES), st.sampled_from(FIELDS)),
    st.tuples(st.just(drop)),
    st.tuples(st.just(repeat)),
)  # fmt: skip


def mutated(lines: list[bytes], plan: list) -> tuple[list[bytes], set[bytes]]:
    """The lines with the plan applied (each step at an index), and the lines left whole."""
    original, lines = set(lines), list(lines)
    touched = set()
    for index, (step, *args) in plan:
        if not lines:
            break
        at = index % len(lines)
        touched.add(lines[at])
        step(lines, at, *args)
    return lines, {line for line in lines if line in original and line not in touched}


# -- the words a line gives that must reach the log ------------------------------------------
def kept_words(line: bytes) -> list[str]:
    """A person's prompt or an agent's answer of a line left whole, as the log keeps it."""
    value = _json(line) or {}
    message, payload = value.get("message"), value.get("payload")
    found = []
    if value.get("type") == "assistant" and isinstance(message, dict):
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "text":
                found.append(block.get("text"))
    said = payload if isinstance(payload, dict) else {}
    if value.get("type") == "event_msg" and said.get("type") == "user_message":
        found.append(said.get("message"))
    if value.get("type") == "response_item" and said.get("role") == "assistant":
        for block in said.get("content") or [] if said.get("type") == "message" else []:
            if isinstance(block, dict) and block.get("type") == "output_text":
                found.append(block.get("text"))
    return [w for w in found if isinstance(w, str) and w.strip() and redact(w) == w]


# -- sources ----------------------------------------------------------------------------------
def own_sources() -> list[tuple[str, str, list[bytes]]]:
    folder = Path(tempfile.mkdtemp())
    claude = [json.dumps(x).encode() for x in session()]
    codex = codex_file(folder / "r.jsonl", "2026-05-01T10:00:01Z").read_bytes().splitlines()
    return [("claude", "own", claude), ("codex", "own", codex)]


def corpus_sources(corpus: Path) -> list[tuple[str, str, list[bytes]]]:
    found = []
    for agent in ("claude", "codex"):
        files = sorted((corpus / agent).glob("*.jsonl"), key=lambda p: p.stat().st_size)
        for path in [p for p in files if 20_000 < p.stat().st_size < 150_000][:2]:
            found.append((agent, path.name, path.read_bytes().splitlines()))
    return found


def imported_through_the_cli(agent: str, source: Path, data: Path) -> tuple[Store, Client, list]:
    """`nodwyn import TOOL SOURCE` (made old first), which must succeed and say nothing
    unexpected; the store, an API client of it, and the tasks the page lists."""
    age(source)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        code = cli.main(["--data-dir", str(data), "import", agent, str(source)])
    assert code == 0, said.getvalue()
    assert "unexpected" not in said.getvalue(), said.getvalue()
    store = Store(data)
    client = Client(api.make_app(store, TOKEN))
    listed = client.get("/api/tasks")
    assert listed.status == 200, listed.body
    return store, client, [t["id"] for t in listed.json["tasks"]]


def log_text(store: Store, task: str) -> str:
    """A task's log as one JSON text, to look for words in."""
    return json.dumps([records.to_builtins(r) for _, _, r in logfile.read(store.log_path(task))])


def check(agent: str, lines: list[bytes], plan: list) -> None:
    """Import the mutated copy through the CLI; list, search and open it; check what holds."""
    lines, whole = mutated(lines, plan)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        name = f"{uuid.uuid4()}.jsonl" if agent == "claude" else "rollout-2026-x.jsonl"
        source = root / "agent" / name
        source.parent.mkdir()
        source.write_bytes(b"\n".join(lines) + b"\n")
        store, client, tasks = imported_through_the_cli(agent, source, root / "data")
        for task in tasks:
            text = log_text(store, task)
            for line in whole:
                for words in kept_words(line):
                    assert json.dumps(words)[1:-1] in text, (task, words[:80])
            opened = client.get(f"/api/tasks/{task}/context")
            assert opened.status == 200, opened.body
            for word in ("the", "huge", "Tidied", "zzzz"):
                found = client.get(f"/api/search?q={word}&mode=words&task={task}")
                assert found.status == 200, found.body


@pytest.mark.parametrize("kind", ["claude", "codex"])
@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=4))
def test_mutated_copies_of_our_own_sessions_import_and_open_without_a_traceback(kind, plan):
    (lines,) = [lines for agent, _name, lines in own_sources() if agent == kind]
    check(kind, lines, plan)


@settings(settings.get_profile(PROFILE))
@given(
    pick=st.integers(0, 3),
    plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=4),
)
def test_mutated_copies_of_real_sessions_import_and_open_without_a_traceback(corpus, pick, plan):
    sources = corpus_sources(corpus)
    agent, _name, lines = sources[pick % len(sources)]
    check(agent, lines, plan)
