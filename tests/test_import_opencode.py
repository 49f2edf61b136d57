"""OpenCode: its database, its older JSON files and its exports imported as tasks; the real
files of ../shared/corpus/other/opencode checked against what they hold."""

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from importing import OLD, OPENCODE_TABLES, log_of
from nodwyn.importers import registry
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.memory.words.search import search
from nodwyn.tasks.catalogue import fold_log
from nodwyn.tasks.store import Store

TOKEN = "oc-account-token-4f1d9a2b7c"  # planted in the account table: never read
START = 1_785_420_000_000
SESSION = "ses_0000test0001"


@pytest.fixture
def store() -> Store:
    return Store()


def message(mid: str, role: str, at: int, **data) -> dict:
    base = {"id": mid, "role": role, "time": {"created": at, "completed": at + 900}}
    if role == "assistant":
        base |= {"modelID": "claude-sonnet-4-5", "providerID": "anthropic", "finish": "stop"}
    return base | data


def text(pid: str, words: str) -> dict:
    return {"id": pid, "type": "text", "text": words}


def tool(pid: str, name: str, status: str = "completed", **state) -> dict:
    given = {"status": status, "input": {"command": "go test ./..."}, "output": "ok",
             "time": {"start": START + 500, "end": START + 700}} | state  # fmt: skip
    return {"id": pid, "type": "tool", "tool": name, "callID": "call_" + pid, "state": given}


def finish(pid: str, cost: float = 0.0125) -> dict:
    tokens = {"input": 100, "output": 40, "reasoning": 10, "cache": {"read": 2000, "write": 0}}
    return {"id": pid, "type": "step-finish", "reason": "stop", "tokens": tokens, "cost": cost}


def conversation(start: int = START) -> list[tuple[dict, list[dict]]]:
    """A prompt answered with a shell call (exit 2), a step's usage and a final answer."""
    failed = {"exit": 2, "output": "FAIL TestPagerOrder"}
    return [
        (message("msg_001", "user", start), [text("prt_001", "Fix the flaky TestPagerOrder")]),
        (
            message("msg_002", "assistant", start + 100),
            [
                {"id": "prt_002", "type": "reasoning", "text": "The order test races."},
                tool("prt_003", "bash", output="FAIL TestPagerOrder", metadata=failed),
                text("prt_004", "The pager sorts after paging: fixed in order.go."),
                finish("prt_005"),
            ],
        ),
    ]


def write_db(path: Path, convs: dict[str, list], title="Pager order fix", parent=None, wal=True):
    """An opencode.db of v1.2+ tables (only the columns read) and an account with a token."""
    db = sqlite3.connect(path)
    if wal:
        db.execute("pragma journal_mode=wal")
    db.executescript(
        OPENCODE_TABLES
        + "create table if not exists account (id text primary key, email text, access_token text);"
    )
    db.execute("insert or replace into account values ('a1', 'ana@example.org', ?)", (TOKEN,))
    for sid, messages in convs.items():
        db.execute(
            "insert or replace into session values (?, 'p1', ?, 'calm-fox', '/home/ana/pager', ?,"
            " '1.16.0', ?, ?, ?, 0.0125)",
            (sid, parent if sid != SESSION else None, title, START, START + 1000,
             json.dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"})),
        )  # fmt: skip
        for info, parts in messages:
            data = {k: v for k, v in info.items() if k != "id"}
            created = info["time"]["created"]
            db.execute("insert or replace into message values (?, ?, ?, ?, ?)",
                       (info["id"], sid, created, created, json.dumps(data)))  # fmt: skip
            for n, part in enumerate(parts):
                body = {k: v for k, v in part.items() if k != "id"}
                db.execute("insert or replace into part values (?, ?, ?, ?, ?, ?)",
                           (part["id"], info["id"], sid, created + n, created + n,
                            json.dumps(body)))  # fmt: skip
    db.commit()
    db.execute("pragma wal_checkpoint(truncate)") if wal else None
    db.close()
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)  # OpenCode not running: only the database is there
    os.utime(path, (OLD, OLD))
    return path


def only_task(store: Store, path: Path) -> str:
    report = import_paths(store, "opencode", [path])
    assert not report.skipped, report.skipped
    (task,) = report.created
    return task


def test_a_database_session_becomes_a_task_with_its_prompt_calls_result_and_cost(store, tmp_path):
    task = only_task(store, write_db(tmp_path / "opencode.db", {SESSION: conversation()}))
    assert task == "oc-" + SESSION
    kinds = [r.kind_of(x) for x in log_of(store, task)]
    assert kinds == ["session.start", "session.title", "message", "reply", "reply", "result",
                     "reply", "reply", "turn.end"]  # fmt: skip
    start, title, asked, thought, call, result, answer, usage, end = log_of(store, task)
    assert (start.project, start.origin.tool, start.origin.version) == (
        "/home/ana/pager",
        "opencode",
        "1.16.0",
    )
    assert (title.title, title.actor) == ("Pager order fix", "agent")
    assert (
        asked.text == "Fix the flaky TestPagerOrder" and thought.thinking == "The order test races."
    )
    assert call.calls[0].tool == "bash" and call.calls[0].input == {"command": "go test ./..."}
    assert (result.call, result.error, result.exit) == ("call_prt_003", True, 2)
    assert (
        usage.usage == r.Usage(input=100, output=50, cache_read=2000) and usage.cost_usd == 0.0125
    )
    assert (end.status, end.cost_usd, end.duration_ms) == ("completed", 0.0125, 1000)
    assert fold_log(store.log_path(task)).turns == 1


def test_kilo_code_s_database_is_found_where_it_keeps_it_and_read_as_opencode_s(store, agents_home):
    kilo = agents_home / ".local" / "share" / "kilo"
    kilo.mkdir(parents=True)
    write_db(kilo / "kilo.db", {SESSION: conversation()}, title="Kilo pager fix")
    assert kilo in registry.get("opencode").roots()
    report = import_paths(store, "opencode")
    assert report.created == ["oc-" + SESSION] and not report.skipped
    assert store.get("oc-" + SESSION).title == "Kilo pager fix"


def test_importing_again_adds_nothing_and_a_new_message_adds_only_itself(store, tmp_path):
    db = write_db(tmp_path / "opencode.db", {SESSION: conversation()})
    task = only_task(store, db)
    before = store.log_path(task).read_bytes()
    assert import_paths(store, "opencode", [db]).unchanged == [task]
    assert store.log_path(task).read_bytes() == before
    more = [(message("msg_003", "user", START + 5000), [text("prt_006", "Now the pager docs")])]
    write_db(db, {SESSION: conversation() + more})
    assert import_paths(store, "opencode", [db]).extended == [task]
    added = log_of(store, task)[len(before.splitlines()) :]
    assert [r.kind_of(x) for x in added] == ["message"] and added[0].text == "Now the pager docs"


def test_a_reply_still_streaming_waits_and_then_comes_in_whole(tmp_path):
    started = int(time.time() * 1000) - 60_000  # a minute ago: the session is live
    streaming = conversation(started)
    streaming[1][0]["time"] = {"created": started + 100}  # not completed yet
    db = write_db(tmp_path / "opencode.db", {SESSION: streaming})
    agent = registry.get("opencode")
    (held,) = agent.read(db, live=True)
    assert [r.kind_of(x) for x in held.records][-1] == "message"  # the answer waits
    (whole,) = agent.read(write_db(db, {SESSION: conversation(started)}), live=True)
    assert [r.kind_of(x) for x in whole.records][-1] == "reply"  # its turn ends once quiet
    (quiet,) = agent.read(db, live=False)
    assert [r.kind_of(x) for x in quiet.records][-1] == "turn.end"


def test_reading_the_database_writes_nothing_beside_it_and_never_reads_the_account(store, tmp_path):
    folder = tmp_path / "opencode"
    folder.mkdir()
    db = write_db(folder / "opencode.db", {SESSION: conversation()})
    listing, content = sorted(p.name for p in folder.iterdir()), db.read_bytes()
    only_task(store, db)
    assert sorted(p.name for p in folder.iterdir()) == listing  # no -wal, no -shm, no copy
    assert db.read_bytes() == content
    for file in store.root.rglob("*"):
        assert not file.is_file() or TOKEN.encode() not in file.read_bytes(), file


def test_a_task_call_s_child_session_is_folded_in_as_its_sub_agent(store, tmp_path):
    child = "ses_0000child001"
    call = tool("prt_010", "task", input={"subagent_type": "explore", "prompt": "Find the pager"},
                output=f'<task id="{child}" state="completed">found</task>',
                metadata={"sessionId": child, "parentSessionId": SESSION})  # fmt: skip
    parent = conversation()
    parent[1][1].insert(1, call)
    kid = [
        (message("msg_101", "user", START + 200), [text("prt_101", "Find the pager")]),
        (
            message("msg_102", "assistant", START + 300),
            [text("prt_102", "It is in pager/order.go")],
        ),
    ]
    db = write_db(tmp_path / "opencode.db", {SESSION: parent, child: kid}, parent=SESSION)
    task = only_task(store, db)  # the child is no task of its own
    records = log_of(store, task)
    mine = [x for x in records if x.agent == "explore"]
    assert [r.kind_of(x) for x in mine] == ["message", "reply"]
    assert records.index(mine[0]) == 1 + next(
        i for i, x in enumerate(records) if isinstance(x, r.Result) and x.call == "call_prt_010"
    )
    assert fold_log(store.log_path(task)).turns == 1


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ("create table session_message (id text, session_id text, type text, data text);"
         "insert into session_message values ('m1', 's1', 'user', '{}');"
         "create table session (id text);", "OpenCode 2.x"),
        ("create table sessions (id text); create table messages (id text);", "Go OpenCode"),
        ("create table notes (id text);", "not an OpenCode database"),
    ],
)  # fmt: skip
def test_a_database_of_a_schema_not_known_is_refused_whole(store, tmp_path, schema, reason):
    db = tmp_path / "opencode.db"
    with sqlite3.connect(db) as made:
        made.executescript(schema)
    (skipped,) = import_paths(store, "opencode", [db]).skipped
    assert reason in skipped.reason
    assert not list(store.root.glob("sessions/*.jsonl"))


def test_the_json_files_before_1_2_import_as_the_database_does(store, tmp_path):
    storage = tmp_path / "opencode" / "storage"
    info = {"id": SESSION, "directory": "/home/ana/pager", "title": "Pager order fix",
            "version": "0.15.2", "time": {"created": START, "updated": START + 1000}}  # fmt: skip
    (storage / "session" / "p1").mkdir(parents=True)
    (storage / "session" / "p1" / f"{SESSION}.json").write_text(json.dumps(info))
    for msg, parts in conversation():
        folder = storage / "message" / SESSION
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{msg['id']}.json").write_text(json.dumps(msg | {"sessionID": SESSION}))
        for part in parts:
            (storage / "part" / msg["id"]).mkdir(parents=True, exist_ok=True)
            (storage / "part" / msg["id"] / f"{part['id']}.json").write_text(json.dumps(part))
    for file in storage.rglob("*.json"):
        os.utime(file, (OLD, OLD))
    report = import_paths(store, "opencode", [tmp_path / "opencode"])
    assert report.created == ["oc-" + SESSION]
    from_db = Store(tmp_path / "db")
    only_task(from_db, write_db(tmp_path / "opencode.db", {SESSION: conversation()}))

    def kinds(s):
        return [r.kind_of(x) for x in log_of(s, "oc-" + SESSION)]

    assert kinds(store) == kinds(from_db)


def test_secrets_in_a_session_are_redacted_and_its_words_are_found(store, tmp_path):
    key = "sk-ant-api03-" + "Zq9x" * 12
    convs = conversation()
    convs[0][1][0]["text"] = f"Fix the flaky TestPagerOrder with key {key}"
    task = only_task(store, write_db(tmp_path / "opencode.db", {SESSION: convs}))
    assert key not in store.log_path(task).read_text()
    found = search(store, "pager sorts after paging")
    assert [hit.task for hit in found.turns][:1] == [task]


# -- the real files -------------------------------------------------------------------------
def real(corpus: Path) -> list[Path]:
    return sorted((corpus / "other" / "opencode").iterdir())


def typed(parts: list[dict]) -> bool:
    """A person's message: one of its parts is words not made by OpenCode, or a file."""
    return any(
        (p["type"] == "text" and p.get("text") and not p.get("synthetic") and not p.get("ignored"))
        or p["type"] == "file"
        for p in parts
    )


def truth(path: Path) -> list[dict]:
    """What a real file holds, read here independently: each session's prompts, cost, title."""
    if path.suffix == ".db":
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        sessions = db.execute("select id, title, directory, cost from session").fetchall()
        out = []
        for sid, title, directory, cost in sessions:
            prompts = 0
            query = "select id, data from message where session_id = ?"
            for mid, data in db.execute(query, (sid,)).fetchall():
                rows = db.execute("select data from part where message_id = ?", (mid,))
                parts = [json.loads(part) for (part,) in rows]
                prompts += json.loads(data)["role"] == "user" and typed(parts)
            out.append(
                {"id": sid, "title": title, "folder": directory, "prompts": prompts, "cost": cost}
            )
        return out
    data = json.loads(path.read_bytes())
    info = data["info"]
    prompts = sum(m["info"]["role"] == "user" and typed(m["parts"]) for m in data["messages"])
    return [
        {
            "id": info["id"],
            "title": info["title"],
            "folder": info["directory"],
            "prompts": prompts,
            "cost": info["cost"],
        }
    ]


def test_every_real_opencode_file_imports_as_its_sessions_say(store, corpus):
    for path in real(corpus):
        report = import_paths(store, "opencode", [path])
        assert not report.skipped, (path.name, report.skipped)
        for session in truth(path):
            task = "oc-" + session["id"]
            summary = fold_log(store.log_path(task))
            assert summary.turns == session["prompts"], path.name
            assert summary.project == session["folder"]
            if not session["title"].startswith("New session - "):
                assert (summary.title, summary.title_by) == (session["title"], "agent")
            if session["cost"]:
                assert summary.cost_usd == pytest.approx(session["cost"], abs=1e-6)
        assert import_paths(store, "opencode", [path]).unchanged, path.name


def test_the_real_aborted_and_failed_calls_are_kept(store, corpus):
    path = corpus / "other" / "opencode" / "w12z__Cap__opencode-session.json"
    (task,) = import_paths(store, "opencode", [path]).created
    records = log_of(store, task)
    ends = [x.status for x in records if isinstance(x, r.TurnEnd)]
    assert ends.count("cancelled") == 3  # the three MessageAbortedError
    assert sum(1 for x in records if isinstance(x, r.Result) and x.error) >= 2
    assert search(store, "winget").turns


@pytest.mark.parametrize(
    "name",
    [
        "edobry__minsky__2025-04-27_20-17-minsky-task-workflow-rule-creation.md",
        "pratikbuilds__trade_arena__claude-session.jsonl",
        "pratikbuilds__trade_arena__codex-session.jsonl",
        "therealjhay__Soul__claude-session.jsonl",
        "cursor/slevin48__cursor-history__state.vscdb",
        "gemini-cli/sharthak-sev__sat-test-app__my-session.json",
    ],
)
def test_look_alikes_and_other_agents_files_are_refused_with_a_reason(store, corpus, name):
    (skipped,) = import_paths(store, "opencode", [corpus / "other" / name]).skipped
    assert "not an OpenCode" in skipped.reason
    assert not list(store.root.glob("sessions/*.jsonl"))


def test_a_message_opencode_wrote_itself_goes_on_the_turn_under_way(store, tmp_path):
    convs = conversation()
    made = {
        "id": "prt_c",
        "type": "text",
        "text": "Continue if you have next steps",
        "synthetic": True,
    }
    convs.insert(1, (message("msg_0015", "user", START + 50), [made]))
    task = only_task(store, write_db(tmp_path / "opencode.db", {SESSION: convs}))
    assert fold_log(store.log_path(task)).turns == 1
    assert "Continue if" not in store.log_path(task).read_text()
