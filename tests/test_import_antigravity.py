"""Google Antigravity transcripts imported as tasks: the real files of
../shared/corpus/other/antigravity (and Xeus's copy) and small transcripts written here."""

import json
import os
import shutil
from pathlib import Path

import pytest
from agents_corpus import again_changes_nothing, finds, halves_equal_whole, one, refused, shown
from importing import OLD, log_of
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.tasks.store import Store

REPO = "surendrababuchittibomma__AI-Powered-Debt-Relief-Financial-Recovery-Platform__"
CONVERSATION = "ba5f3ba6-18ee-4772-b2d0-1e55a3d40b7a"
XEUS = "diiviikk5__Xeus__gemini-session.jsonl"


@pytest.fixture
def store() -> Store:
    return Store()


def brain(corpus: Path, tmp_path: Path, *names: str) -> Path:
    """The real files where the IDE keeps them: ~/.gemini/antigravity/brain/<id>/..."""
    root = tmp_path / ".gemini" / "antigravity"
    logs = root / "brain" / CONVERSATION / ".system_generated" / "logs"
    logs.mkdir(parents=True)
    source = corpus / "other" / "antigravity"
    for name in names:
        shutil.copyfile(source / (REPO + name), logs / name)
        os.utime(logs / name, (OLD, OLD))
    shutil.copyfile(
        source / (REPO + "agyhub_summaries_proto.pb"), root / "agyhub_summaries_proto.pb"
    )
    return logs


def copied(corpus: Path, tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name
    shutil.copyfile(corpus / "other" / name, copy)
    os.utime(copy, (OLD, OLD))
    return copy


def steps_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("name", ["transcript.jsonl", "transcript_full.jsonl"])
def test_a_real_conversation_has_its_turns_title_and_folder(corpus, tmp_path, store, name):
    path = brain(corpus, tmp_path, name) / name
    task = one(store, "antigravity", path)
    info = store.get(task)
    assert task == "ag-" + CONVERSATION and info.origin == "antigravity"
    assert info.turns == sum(s["type"] == "USER_INPUT" for s in steps_of(path)) == 9
    assert info.title == "Running Code In Visual Studio"
    assert info.project == r"C:\Users\LENOVO\.gemini\antigravity\scratch\finrelief-ai"
    assert info.cost_usd is None  # no tokens in either transcript
    replies = [e for e in log_of(store, task) if isinstance(e, r.Reply)]
    assert replies[0].model == "Gemini 3.5 Flash (Medium)"  # the person switched models twice
    assert {e.model for e in replies} == {
        "Gemini 3.5 Flash (Medium)", "Gemini 3.5 Flash (High)", "Gemini 3.1 Pro (High)",
    }  # fmt: skip


def test_the_full_transcript_is_read_and_its_truncated_twin_passed_over(corpus, tmp_path, store):
    logs = brain(corpus, tmp_path, "transcript.jsonl", "transcript_full.jsonl")
    report = import_paths(store, "antigravity", [tmp_path / ".gemini"])
    assert report.created == ["ag-" + CONVERSATION] and not report.skipped
    assert "transcript_full.jsonl beside it" in refused(
        store, "antigravity", logs / "transcript.jsonl"
    )
    view = next(
        e for e in log_of(store, "ag-" + CONVERSATION) if isinstance(e, r.Reply) and e.calls
    ).calls[0]
    assert view.input["AbsolutePath"].startswith("C:/Users/LENOVO/")  # decoded, not '"C:/…"'


@pytest.mark.parametrize("name", ["transcript.jsonl", "transcript_full.jsonl"])
def test_a_real_transcript_imported_again_adds_nothing(corpus, tmp_path, store, name):
    path = brain(corpus, tmp_path, name) / name
    again_changes_nothing(store, "antigravity", path, one(store, "antigravity", path))


@pytest.mark.parametrize("name", ["transcript.jsonl", "transcript_full.jsonl"])
def test_a_real_transcript_in_two_halves_gives_the_log_of_one_import(corpus, tmp_path, name):
    halves_equal_whole(tmp_path, "antigravity", brain(corpus, tmp_path, name) / name)


def test_xeus_s_copy_is_an_antigravity_conversation_with_its_72_turns(corpus, tmp_path, store):
    path = copied(corpus, tmp_path, XEUS)
    task = one(store, "antigravity", path)
    info = store.get(task)
    assert info.turns == 72 and info.project == r"d:\smoothop\Xeus"
    assert info.title.startswith("You said: will the Solana Foundation India Grants")
    events = log_of(store, task)
    assert sum(isinstance(e, r.ContextCompact) for e in events) == 2
    failed = [e for e in events if isinstance(e, r.Result) and e.exit not in (None, 0)]
    assert failed and all(e.error for e in failed)
    again_changes_nothing(store, "antigravity", path, task)


def test_xeus_s_copy_in_two_halves_gives_the_log_of_one_import(corpus, tmp_path):
    halves_equal_whole(tmp_path, "antigravity", copied(corpus, tmp_path, XEUS))


def test_a_real_conversation_is_found_by_search_and_shown_in_the_transcript(
    corpus, tmp_path, store
):
    path = brain(corpus, tmp_path, "transcript_full.jsonl") / "transcript_full.jsonl"
    task = one(store, "antigravity", path)
    assert finds(store, task, "visual studio")
    assert {"message", "reply", "result", "context.compact", "error"} <= {
        e["kind"] for e in shown(store, task)
    }


def test_other_agents_logs_and_antigravity_s_own_databases_are_refused(corpus, store):
    other = corpus / "other"
    for path in [
        other / "antigravity" / (REPO + "agyhub_summaries_proto.pb"),
        other / "antigravity" / (REPO + CONVERSATION + ".db"),
        other
        / "gemini-cli"
        / "wingorithm__Vibe-Coding-Comparison-Project__session-2026-04-25T08-46-c737eb36.jsonl",
        other
        / "copilot-cli"
        / "XEFF09__dotfiles__b87feda8-379e-4f8c-aa42-b4f7d12f253a__events.jsonl",
    ]:
        assert refused(store, "antigravity", path).startswith(
            ("not an Antigravity", "not a text file")
        )


# -- transcripts written here ------------------------------------------------------------
def step(n: int, source: str, kind: str, **fields) -> dict:
    return {"step_index": n, "source": source, "type": kind, "status": "DONE",
            "created_at": f"2026-07-07T06:5{n}:00Z", **fields}  # fmt: skip


def prompt(n: int, text: str) -> dict:
    return step(
        n, "USER_EXPLICIT", "USER_INPUT", content=f"<USER_REQUEST>\n{text}\n</USER_REQUEST>"
    )


def command(n: int, line: str) -> dict:
    args = {"CommandLine": json.dumps(line), "Cwd": json.dumps("/home/ana/pager")}
    return step(n, "MODEL", "PLANNER_RESPONSE", content="Running it.",
                tool_calls=[{"name": "run_command", "args": args}])  # fmt: skip


def transcript(folder: Path, steps: list[dict], live: bool = False) -> Path:
    path = folder / "brain" / "0a0a0a0a-0000-4000-8000-000000000001" / ".system_generated"
    path = path / "logs" / "transcript.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    if not live:
        os.utime(path, (OLD, OLD))
    return path


def test_calls_are_paired_with_the_steps_that_answer_them_in_order(tmp_path, store):
    out = (
        "Created At: 2026-07-07T06:52:00Z\nCompleted At: 2026-07-07T06:52:09Z\n"
        "The command failed with exit code: 2\nOutput:\nFAIL"
    )
    path = transcript(tmp_path, [
        prompt(0, "Run the tests"), command(1, "go test ./..."),
        step(2, "MODEL", "RUN_COMMAND", content=out, status="DONE"),
        step(3, "SYSTEM", "EPHEMERAL_MESSAGE", content="<EPHEMERAL_MESSAGE>remember"),
        step(4, "SYSTEM", "ERROR_MESSAGE", error="The model API is overloaded.", error_code=429),
        prompt(5, "Thanks"),
    ])  # fmt: skip
    task = one(store, "antigravity", path)
    events = log_of(store, task)
    call = next(e for e in events if isinstance(e, r.Reply)).calls[0]
    assert call.input == {"CommandLine": "go test ./...", "Cwd": "/home/ana/pager"}
    (result,) = [e for e in events if isinstance(e, r.Result)]
    assert (result.call, result.exit, result.error) == (call.id, 2, True)
    assert result.output.startswith("The command failed")
    assert [e.text for e in events if isinstance(e, r.Error)] == [
        "The model API is overloaded. (429)"
    ]
    assert store.get(task).project == "/home/ana/pager" and store.get(task).turns == 2
    assert not any("remember" in json.dumps(r.to_builtins(e)) for e in events)


def test_a_conversation_waits_for_its_working_folder_while_it_is_written(tmp_path, store):
    path = transcript(tmp_path, [prompt(0, "Run the tests")], live=True)
    assert "no conversation in it yet" in refused(store, "antigravity", path)
    path = transcript(tmp_path, [prompt(0, "Run the tests"), command(1, "go test")], live=True)
    task = one(store, "antigravity", path)
    assert [r.kind_of(e) for e in log_of(store, task)] == ["session.start", "message", "reply"]
    assert store.get(task).project == "/home/ana/pager"


def test_a_finished_conversation_that_names_no_folder_still_imports(tmp_path, store):
    answer = step(1, "MODEL", "PLANNER_RESPONSE", content="A mammal.")
    path = transcript(tmp_path, [prompt(0, "What is a pangolin?"), answer])
    task = one(store, "antigravity", path)
    assert store.get(task).project == "" and store.get(task).turns == 1
    assert finds(store, task, "pangolin")


def test_a_secret_in_a_command_s_output_is_redacted(tmp_path, store):
    out = "Created At: x\nOutput:\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    path = transcript(
        tmp_path,
        [prompt(0, "env"), command(1, "env"), step(2, "MODEL", "RUN_COMMAND", content=out)],
    )
    task = one(store, "antigravity", path)
    assert b"ghp_abcdefghijklmnop" not in store.log_path(task).read_bytes()
