"""Hostile lines in agents' files (#14 rows 1-3): odd timestamps, deep nesting, `type` of the
wrong kind. One bad line never stops an import, one bad file never stops the others, and the
person is told the file and the line: by the CLI, by the page's note after "Import a folder…",
by the worker's log."""

import json
import logging
import time
from pathlib import Path

import pytest
from importing import SESSION, age, log_of, session, write
from nodwyn import cli
from nodwyn.api import Server, Status
from nodwyn.background.worker import Worker
from nodwyn.importers.sync import import_paths
from nodwyn.log import records
from nodwyn.tasks.store import Store

DEEP = b'{"type":"user","content":' + b"[" * 3000 + b"]" * 3000 + b"}"


@pytest.fixture
def store() -> Store:
    return Store()


def claude_file(folder: Path, number: int, lines: list, extra: bytes = b"") -> Path:
    """A finished Claude session file whose session id ends in `number`."""
    session_id = SESSION[:-4] + f"{number:04d}"
    for line in lines:
        if "sessionId" in line:
            line["sessionId"] = session_id
    path = write(folder / f"{session_id}.jsonl", lines)
    if extra:
        body = path.read_bytes().split(b"\n")
        body.insert(2, extra)
        path.write_bytes(b"\n".join(body))
    return age(path)


def codex_file(path: Path, stamp: str) -> Path:
    lines = [
        {"timestamp": stamp, "type": "session_meta", "payload": {"id": "cx-one", "cwd": "/w"}},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "user_message", "message": "Tidy the kestrel module"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": "Tidied."}]}},
        {"timestamp": stamp, "type": "event_msg", "payload": {"type": "task_complete"}},
    ]  # fmt: skip
    return age(write(path, lines))


def test_claude_timestamps_without_milliseconds_import_in_the_logs_form(store, tmp_path):
    lines = session()
    for line in lines:
        if "timestamp" in line:
            line["timestamp"] = line["timestamp"].replace(".000Z", "Z")
    lines[2]["timestamp"] = "2026-05-01T12:00:02+02:00"  # an offset: the same moment in UTC
    report = import_paths(store, "claude", [claude_file(tmp_path, 1, lines)])
    assert report.created and not report.problems and not report.skipped
    stamps = {x.at for x in log_of(store, report.created[0])}
    assert stamps == {f"2026-05-01T10:00:0{n}.000Z" for n in (1, 2, 4, 5, 6)}  # 3: part of 2


def test_a_codex_rollout_with_utc_offsets_imports(store, tmp_path):
    report = import_paths(
        store, "codex", [codex_file(tmp_path / "r.jsonl", "2026-05-01T10:00:01+00:00")]
    )
    assert report.created == ["cx-cx-one"]
    assert log_of(store, "cx-cx-one")[0].at == "2026-05-01T10:00:01.000Z"


def test_one_file_of_each_hostile_kind_in_a_folder_leaves_the_others_imported(store, tmp_path):
    odd = session()
    odd[1]["timestamp"] = "2026-02-10T21:11:56Z"
    claude_file(tmp_path, 1, odd)
    claude_file(tmp_path, 2, session(), extra=DEEP)
    claude_file(tmp_path, 3, session(), extra=b'{"type":{"a":1},"sessionId":"x"}')
    claude_file(tmp_path, 4, session(), extra=b'{"type":["user"]}')
    for n in range(5, 30):
        claude_file(tmp_path, n, session())
    report = import_paths(store, "claude", [tmp_path])
    assert len(report.created) == 29 and not report.skipped
    said = {(Path(p.path).stem[-4:], p.line, p.count) for p in report.problems}
    assert said == {("0002", 3, 1), ("0003", 3, 1), ("0004", 3, 1)}
    assert "nested too deeply" in next(
        p.reason for p in report.problems if p.path.endswith("2.jsonl")
    )
    for task in report.created:  # every good line of every file is there
        assert [records.kind_of(x) for x in log_of(store, task)].count("message") == 1


def test_a_type_that_is_an_object_in_the_first_lines_is_no_traceback(store, tmp_path):
    path = tmp_path / "junk.jsonl"
    path.write_bytes(b'{"type":{"a":1}}\n{"type":[1,2]}\n' + DEEP + b"\n")
    report = import_paths(store, "claude", [path])
    assert [s.reason for s in report.skipped] == ["not a Claude Code session log"]


def test_an_attachment_whose_type_is_a_list_is_skipped_and_the_prompt_kept(store, tmp_path):
    lines = session()
    odd = dict(lines[1], type="attachment", attachment={"type": ["file"], "content": "x"})
    lines.insert(2, odd)
    report = import_paths(store, "claude", [claude_file(tmp_path, 1, lines)])
    assert not report.problems
    prompts = [x for x in log_of(store, report.created[0]) if isinstance(x, records.Message)]
    assert [x.text for x in prompts] == ["Fix the flaky TestPagerOrder"]


def test_the_cli_names_the_file_and_line_it_skipped(tmp_path, capsys):
    path = claude_file(tmp_path, 2, session(), extra=DEEP)
    assert cli.main(["import", "claude", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 created" in out and "1 lines unreadable" in out
    assert f"line skipped {path}:3: nested too deeply" in out


def test_the_cli_as_json_names_them_too(tmp_path, capsys):
    path = claude_file(tmp_path, 3, session(), extra=b"not json at all")
    assert cli.main(["import", "claude", str(path), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["problems"] == [
        {"path": str(path), "line": 3, "reason": "not a JSON line", "count": 1}
    ]


def test_import_a_folder_from_the_page_says_what_it_did_when_done(data_dir, tmp_path):
    from test_first_run import call

    folder = tmp_path / "sessions"
    claude_file(folder, 2, session(), extra=DEEP)
    (folder / "notes.jsonl").write_text('{"hello": "world"}\n')
    server = Server(Store(data_dir), status=Status()).start()
    try:
        status, answer = call(
            server, "POST", "/api/import", {"tool": "claude", "path": str(folder)}
        )
        assert status == 200 and answer["files"] == 2
        deadline = time.monotonic() + 20
        while not server.status.snapshot().note and time.monotonic() < deadline:
            time.sleep(0.05)
        _, shown = call(server, "GET", "/api/status")
    finally:
        server.stop()
    assert shown["note"].startswith("1 created, 0 extended, 0 unchanged, 1 skipped")
    assert "1 lines unreadable, first" in shown["note"] and ":3: nested too deeply" in shown["note"]


def test_import_of_only_unusable_files_says_nothing_was_imported(data_dir, tmp_path):
    from nodwyn.importers import agents

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "notes.jsonl").write_text('{"hello": "world"}\n')
    notes: list[str] = []
    agents.import_folder(Store(data_dir), "claude", str(folder), lambda *a: notes.append(a))
    deadline = time.monotonic() + 20
    while not any(len(a) == 4 and a[3] for a in notes) and time.monotonic() < deadline:
        time.sleep(0.05)
    said = next(a[3] for a in notes if len(a) == 4 and a[3])
    assert "nothing imported" in said and "not a Claude Code session log" in said


def test_the_worker_logs_the_file_and_line_it_skipped(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    path = claude_file(tmp_path / "claude" / "projects" / "-w", 2, session(), extra=DEEP)
    worker = Worker(Store(), interval=0.2)
    with caplog.at_level(logging.INFO, logger="nodwyn.worker"):
        worker.start()
        try:
            assert worker.wait_for_pass(0, timeout=30)
        finally:
            worker.stop(timeout=30)
    assert f"line skipped {path}:3: nested too deeply" in caplog.text
