"""Logs written under older redaction rules are scrubbed once: the secret goes from the log and
from everything derived from it, every seq and every other byte stays, and the person is told.

"Older rules" are played by lines written past the writer (as a log written before a rule
existed holds them): a key name the first rules missed, `NILLION_ORG_SECRET_KEY=...`.
"""

import json

import tantivy
from nodwyn import memory
from nodwyn.background import scrub
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.cli import main
from nodwyn.log import logfile, records
from nodwyn.log.redact import MARK, RULES
from nodwyn.tasks.store import Store

SECRET = "ae0ff463b03289cc118653e91bd8b101473df59ec0565877f948effcd1f96aaa"  # made up
AT = "2026-05-01T10:00:0{}.000Z"


def old_lines(store: Store, task: str = "T") -> None:
    """A task whose log holds the secret twice (a prompt, a command), as older rules left it."""
    with store.create(
        records.SessionStart(project="/p", origin=records.Origin(tool="nodwyn")), task=task
    ):
        pass
    call = {"id": "c1", "tool": "Bash", "input": {"command": f"export AUTH_KEY={SECRET}"}}
    lines = [
        {"kind": "message", "text": f"set NILLION_ORG_SECRET_KEY={SECRET} now"},
        {"kind": "reply", "text": "done", "calls": [call]},
        {"kind": "result", "call": "c1", "tool": "Bash", "output": "ok"},
        {"kind": "turn.end", "status": "completed"},
    ]
    with open(store.log_path(task), "a", encoding="utf-8") as log:
        for seq, line in enumerate(lines, 2):
            line = {**line, "seq": seq, "at": AT.format(seq)}
            log.write(json.dumps(line, separators=(",", ":")) + "\n")


def everything(root) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file())


def derived(store: Store) -> None:
    """Build what is derived from the logs: catalogue, .mem, word index, vectors."""
    store.list()
    memory.refresh(store)
    memory.search(store, "NILLION", mode="words")


def test_a_scrub_takes_the_secret_out_of_the_log_and_everything_made_from_it(data_dir):
    store = Store(data_dir)
    old_lines(store)
    derived(store)
    assert SECRET.encode() in everything(data_dir)
    before = store.log_path("T").read_bytes().split(b"\n")

    done = scrub.scrub(store)
    assert (done.logs, done.values, done.busy) == (1, 2, [])

    after = store.log_path("T").read_bytes().split(b"\n")
    assert [old.replace(SECRET.encode(), MARK.encode()) for old in before] == after
    assert [r.seq for _, _, r in logfile.read(store.log_path("T"))] == [1, 2, 3, 4, 5]
    derived(store)
    assert SECRET.encode() not in everything(data_dir)
    assert SECRET[:16].encode() not in everything(data_dir)
    assert memory.search(store, "NILLION_ORG_SECRET_KEY", mode="words").turns  # still found
    index = tantivy.Index.open(str(data_dir / "index"))
    query = tantivy.Query.term_query(index.schema, "words", SECRET)
    assert index.searcher().search(query, 1).count == 0


def test_a_scrub_happens_once_per_rules_and_then_changes_nothing(data_dir):
    store = Store(data_dir)
    old_lines(store)
    assert scrub.due(data_dir)
    assert scrub.scrub_if_due(store).values == 2
    assert scrub.scrubbed_rules(data_dir) == RULES and not scrub.due(data_dir)
    assert scrub.scrub_if_due(store) is None
    stat = store.log_path("T").stat()
    assert scrub.scrub(store) == scrub.Done(rules=RULES)
    assert store.log_path("T").stat().st_mtime_ns == stat.st_mtime_ns


def test_a_log_held_by_another_writer_is_scrubbed_next_time(data_dir):
    store = Store(data_dir)
    old_lines(store, "A")
    old_lines(store, "B")
    with store.writer("B"):
        done = scrub.scrub_if_due(store)
    assert (done.logs, done.busy) == (1, ["B"])
    assert "1 open elsewhere" in scrub.said(done)
    assert scrub.due(data_dir)  # not every log is done
    assert scrub.scrub_if_due(store).busy == []
    assert SECRET not in store.log_path("B").read_text()


def test_appending_after_a_scrub_goes_on_from_the_last_seq(data_dir):
    store = Store(data_dir)
    old_lines(store)
    scrub.scrub(store)
    store.rename("T", "named after the scrub")
    assert [r.seq for _, _, r in logfile.read(store.log_path("T"))] == [1, 2, 3, 4, 5, 6]


def test_a_torn_last_line_stays_as_it_was(data_dir):
    store = Store(data_dir)
    old_lines(store)
    with open(store.log_path("T"), "a") as log:
        log.write('{"kind":"message","text":"PRIVATE_KEY=abcd1234ef')
    scrub.scrub(store)
    assert store.log_path("T").read_text().endswith('"text":"PRIVATE_KEY=[redacted]')


def test_the_command_line_says_how_many_values_were_redacted(data_dir, capsys):
    old_lines(Store(data_dir))
    assert main(["--data-dir", str(data_dir), "sessions"]) == 0
    said = capsys.readouterr().err
    assert f"redaction rules {RULES}: 2 secret values redacted in 1 existing log" in said
    assert main(["--data-dir", str(data_dir), "scrub"]) == 0
    assert capsys.readouterr().out.startswith(f"redaction rules {RULES}: 0 secret values")


def test_the_app_notes_it_and_the_worker_logs_it_on_its_first_pass(data_dir, caplog, tmp_path,
                                                                   monkeypatch):  # fmt: skip
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    store = Store(data_dir)
    old_lines(store)
    status = Status()
    Worker(store, status).run_pass()
    assert "2 secret values redacted in 1 existing log" in status.snapshot().note
    assert "2 secret values redacted" in caplog.text
    assert SECRET not in store.log_path("T").read_text()
