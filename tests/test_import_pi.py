"""Pi sessions imported as tasks: the real file of ../shared/corpus/more/pi held to a plain count
of it (tests/plain_count_more.py), and small sessions written here (ADR 0053)."""

import json
import os
import shutil
from pathlib import Path

import plain_count_more as plain
import pytest
from agents_corpus import again_changes_nothing, finds, halves_equal_whole, one, refused, shown
from importing import OLD, log_of
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.reading import edits, resume
from nodwyn.tasks.store import Store
from nodwyn.usage import limits

REAL = "marcpadz__dexter-v3__pi-session.jsonl"
SESSION = "019ea92d-1182-7fe2-a214-9fc88c28832f"


@pytest.fixture
def store() -> Store:
    return Store()


def laid_out(corpus: Path, tmp_path: Path) -> Path:
    """The real file where Pi keeps it: sessions/--<cwd>--/<time>_<uuid>.jsonl."""
    path = tmp_path / ".pi" / "agent" / "sessions" / "--Volumes-Dev-v2--" / f"2026_{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    shutil.copyfile(corpus / "more" / "pi" / REAL, path)
    os.utime(path, (OLD, OLD))
    return path


def replies(events) -> list[r.Reply]:
    return [e for e in events if isinstance(e, r.Reply)]


@pytest.mark.corpus
def test_the_real_session_has_the_plain_counts_turns_folder_tokens_and_cost(
    corpus, tmp_path, store
):
    path = laid_out(corpus, tmp_path)
    task = one(store, "pi", path)
    count, info, events = plain.pi(path), store.get(task), log_of(store, task)
    assert task == "pi-" + SESSION and info.origin == "pi"
    assert (
        (info.turns, info.project)
        == (count["turns"], count["folder"])
        == (58, "/Volumes/Marc's SSD/Dev/2026/v2")
    )
    assert info.title.startswith("Can you continue where we ended")  # no session name: the prompt
    for field in ("input", "output", "cache_read", "cache_write"):
        assert sum(getattr(x.usage, field) for x in replies(events) if x.usage) == count[field]
    given = {}  # entry id -> the cost Pi wrote, where above 0
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        cost = ((entry.get("message") or {}).get("usage") or {}).get("cost", {}).get("total", 0)
        if cost > 0:
            given[entry["id"]] = cost
    ours = {x.src.id: x.cost_usd for x in replies(events) if x.src.id in given}
    assert ours == {k: round(v, 8) for k, v in given.items()} and len(given) == 118
    assert sum(given.values()) == pytest.approx(count["cost"])


@pytest.mark.corpus
def test_the_real_session_s_compactions_models_errors_and_start(corpus, tmp_path, store):
    events = log_of(store, one(store, "pi", laid_out(corpus, tmp_path)))
    assert len([e for e in events if isinstance(e, r.ContextCompact)]) == 3
    assert all(e.note.startswith("## Goal") for e in events if isinstance(e, r.ContextCompact))
    assert {x.model for x in replies(events)} >= {
        "glm-5.1",
        "deepseek-v4-pro",
        "gemini-3.1-pro-preview",
    }
    assert sum(len(x.calls) for x in replies(events)) == 629
    assert len([e for e in events if isinstance(e, r.Result)]) == 629
    errors = [e.text for e in events if isinstance(e, r.Error)]
    assert len(errors) == 24 and "Connection error." in errors
    assert any(x.thinking for x in replies(events))
    start = events[0]
    assert start.at == "2026-06-08T21:39:24.417Z"  # the first entry, not the re-headed header
    assert [e.status for e in events if isinstance(e, r.TurnEnd)].count("cancelled") == 2


@pytest.mark.corpus
def test_the_providers_usage_limit_errors_read_as_a_five_hour_window_used_up(
    corpus, tmp_path, store
):
    events = log_of(store, one(store, "pi", laid_out(corpus, tmp_path)))
    found = [limits.of_record("pi", e) for e in events if isinstance(e, r.Error)]
    hit = [x for x in found if x is not None]
    assert len(hit) == 8 and all((x.window, x.reached, x.resets) == (300, True, "") for x in hit)
    assert hit[0].at == "2026-06-09T22:57:10.853Z"


@pytest.mark.corpus
def test_the_real_session_again_and_in_halves(corpus, tmp_path, store):
    path = laid_out(corpus, tmp_path)
    again_changes_nothing(store, "pi", path, one(store, "pi", path))
    halves_equal_whole(tmp_path / "h", "pi", path)


@pytest.mark.corpus
def test_the_real_session_is_found_shown_and_resumed(corpus, tmp_path, store):
    task = one(store, "pi", laid_out(corpus, tmp_path))
    assert finds(store, task, "CopilotKit LangGraph")
    assert {"message", "reply", "result", "error"} <= {e["kind"] for e in shown(store, task)}
    said = resume.command(store, task)
    assert (
        said.run == f"pi --session {SESSION}" and said.folder == "/Volumes/Marc's SSD/Dev/2026/v2"
    )


# -- sessions written here ---------------------------------------------------------------
CWD = "/home/ana/pager"


def entry(kind: str, n: int, **fields) -> dict:
    at = f"2026-06-08T02:3{n // 10}:{n % 10}0.000Z"
    return {"type": kind, "id": f"e{n:07d}", "parentId": f"e{n - 1:07d}" if n else None,
            "timestamp": at, **fields}  # fmt: skip


def said(n: int, role: str, content, **more) -> dict:
    return entry("message", n, message={"role": role, "content": content, **more})


def usage(inputs: int, output: int, cost: float = 0.0) -> dict:
    return {"input": inputs, "output": output, "cacheRead": 100, "cacheWrite": 0,
            "totalTokens": inputs + output + 100, "cost": {"total": cost}}  # fmt: skip


def session(*entries: dict, headed: str = "2026-06-08T02:30:00.000Z") -> list[dict]:
    header = {"type": "session", "version": 3, "id": "pi-s-1", "timestamp": headed, "cwd": CWD}
    return [header, entry("model_change", 0, provider="anthropic", modelId="claude-sonnet-4-5"),
            *entries]  # fmt: skip


def write(folder: Path, entries: list[dict], live: bool = False) -> Path:
    path = folder / ".pi" / "agent" / "sessions" / "--home-ana-pager--" / "2026_pi-s-1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(plain.jsonl(entries))
    if not live:
        os.utime(path, (OLD, OLD))
    return path


EDIT = {"path": f"{CWD}/pager.go", "edits": [{"oldText": "a := 1\n", "newText": "a := 2\n"}]}


def test_a_named_session_with_an_edit_a_shell_run_and_a_compaction(tmp_path, store):
    lines = session(
        said(1, "user", "Fix the pager"),
        said(2, "assistant", [{"type": "thinking", "thinking": "Look first."},
                              {"type": "text", "text": "Editing."},
                              {"type": "toolCall", "id": "c1", "name": "edit", "arguments": EDIT}],
             model="claude-sonnet-4-5", usage=usage(1000, 50, 0.0123), stopReason="toolUse"),
        said(3, "toolResult", [{"type": "text", "text": "Successfully replaced text"}],
             toolCallId="c1", toolName="edit", isError=False),
        entry("compaction", 4, summary="The pager was fixed.", firstKeptEntryId="e0000002",
              tokensBefore=9000),
        entry("message", 5, message={"role": "bashExecution", "command": "go test",
                                     "output": "FAIL", "exitCode": 1, "cancelled": False}),
        entry("session_info", 6, name="Pager fix"),
        said(7, "assistant", [], model="claude-sonnet-4-5", usage=usage(10, 0),
             stopReason="error", errorMessage="Connection error."),
    )  # fmt: skip
    task = one(store, "pi", write(tmp_path, lines))
    events, info = log_of(store, task), store.get(task)
    assert (info.title, info.project, info.turns) == ("Pager fix", CWD, 1)
    reply = replies(events)[0]
    assert (reply.thinking, reply.text, reply.cost_usd) == ("Look first.", "Editing.", 0.0123)
    assert reply.usage == r.Usage(input=1000, output=50, cache_read=100)
    result = next(e for e in events if isinstance(e, r.Result) and e.call == "c1")
    assert result.files == [f"{CWD}/pager.go"] and not result.error
    (diff,) = edits.diff_of("edit", EDIT)["files"]
    assert (diff["added"], diff["removed"]) == (1, 1)
    assert [e.note for e in events if isinstance(e, r.ContextCompact)] == ["The pager was fixed."]
    shell = next(e for e in events if isinstance(e, r.Result) and e.tool == "bash")
    assert shell.exit == 1 and shell.error and shell.output == "FAIL"
    assert [e.text for e in events if isinstance(e, r.Error)] == ["Connection error."]


def test_the_session_starts_at_its_first_entry_when_the_header_is_later(tmp_path, store):
    lines = session(said(1, "user", "hi"), headed="2026-06-11T16:57:31.561Z")
    events = log_of(store, one(store, "pi", write(tmp_path, lines)))
    assert events[0].at == "2026-06-08T02:30:00.000Z"


def test_an_aborted_reply_cancels_the_turn(tmp_path, store):
    stopped = said(
        2, "assistant", [], model="m", stopReason="aborted", errorMessage="Operation aborted"
    )
    events = log_of(
        store, one(store, "pi", write(tmp_path, session(said(1, "user", "go"), stopped)))
    )
    assert [e.status for e in events if isinstance(e, r.TurnEnd)] == ["cancelled"]
    assert not any(isinstance(e, r.Error) for e in events)


def test_while_pi_writes_a_turn_it_is_not_ended(tmp_path, store):
    task = one(store, "pi", write(tmp_path, session(said(1, "user", "go")), live=True))
    assert not any(isinstance(e, r.TurnEnd) for e in log_of(store, task))


def test_a_torn_line_is_skipped_and_the_rest_kept(tmp_path, store):
    path = write(tmp_path, session(said(1, "user", "one"), said(2, "user", "two")))
    text = path.read_text().splitlines()
    path.write_text("\n".join([*text[:3], '{"type":"message","id":', *text[3:]]) + "\n")
    os.utime(path, (OLD, OLD))
    report = import_paths(store, "pi", [path])
    assert store.get(report.created[0]).turns == 2


def test_other_files_are_refused_with_one_line(tmp_path, store):
    other = tmp_path / "x.jsonl"
    other.write_text('{"type":"session.start","data":{}}\n')
    assert refused(store, "pi", other) == "not a Pi session (no session header on its first line)"
    other.write_text("not json\n")
    assert refused(store, "pi", other) == "not a Pi session (its first line is not JSON)"
