"""Cursor: the chats and composers of `state.vscdb` imported as tasks, reading only the chat
keys; the real workspace databases of ../shared/corpus/other/cursor checked against them."""

import json
import os
import sqlite3
from pathlib import Path

import pytest
from importing import OLD, log_of
from nodwyn.importers import registry
from nodwyn.importers.cursor import folders, keys
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.memory.words.search import search
from nodwyn.tasks.catalogue import fold_log
from nodwyn.tasks.store import Store

ACCESS = "eyJhbGciOiJIUzI1NiJ9.cursor-access-7Qw2"  # the person's login: never read
REFRESH = "cursor-refresh-token-9Zk4Lm"
COMPOSER = "c0ffee00-0000-4000-8000-000000000001"
T0 = 1_757_000_000_000


@pytest.fixture
def store() -> Store:
    return Store()


def bubble(bid: str, kind: int, text: str, at: int, **extra) -> dict:
    return {"bubbleId": bid, "type": kind, "text": text, "createdAt": at} | extra


def conversation() -> list[dict]:
    shell = {
        "tool": 15,
        "name": "run_terminal_cmd",
        "toolCallId": "toolu_1",
        "status": "completed",
        "rawArgs": json.dumps({"command": "go test ./pager"}),
        "result": json.dumps({"output": "FAIL TestPagerOrder", "exitCode": 1}),
    }
    return [
        bubble("b1", 1, "Fix the flaky TestPagerOrder", T0),
        bubble(
            "b2",
            2,
            "",
            T0 + 1000,
            toolFormerData=shell,
            thinking={"text": "Run it first."},
            tokenCount={"inputTokens": 1200, "outputTokens": 80},
        ),
        bubble("b3", 2, "The pager sorted after paging; fixed in order.go.", T0 + 5000),
    ]


def user_dir(tmp_path: Path, bubbles: list[dict], *, generating=(), children=None) -> Path:
    """A Cursor User folder: a global database with the composer, a workspace naming it."""
    user = tmp_path / "Cursor" / "User"
    (user / "globalStorage").mkdir(parents=True)
    db = sqlite3.connect(user / "globalStorage" / "state.vscdb")
    db.executescript(
        "create table ItemTable (key text unique, value blob);"
        "create table cursorDiskKV (key text unique, value blob);"
    )
    db.execute("insert into ItemTable values ('cursorAuth/accessToken', ?)", (ACCESS,))
    db.execute("insert into ItemTable values ('cursorAuth/refreshToken', ?)", (REFRESH,))
    db.execute(
        "insert into cursorDiskKV values ('aiSettings:login', ?)", (json.dumps({"token": ACCESS}),)
    )
    head = {
        "_v": 9,
        "name": "Pager order fix",
        "createdAt": T0,
        "lastUpdatedAt": T0 + 5000,
        "modelConfig": {"modelName": "claude-4-sonnet"},
        "status": "completed",
        "generatingBubbleIds": list(generating),
        "subComposerIds": list(children or {}),
        "fullConversationHeadersOnly": [
            {"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles
        ],
    }
    composers = {COMPOSER: (head, bubbles)} | {
        cid: (
            {
                "name": "explore",
                "createdAt": T0 + 2000,
                "fullConversationHeadersOnly": [
                    {"bubbleId": b["bubbleId"], "type": b["type"]} for b in kids
                ],
            },
            kids,
        )
        for cid, kids in (children or {}).items()
    }
    for cid, (data, rows) in composers.items():
        db.execute(
            "insert into cursorDiskKV values (?, ?)", (f"composerData:{cid}", json.dumps(data))
        )
        for b in rows:
            db.execute(
                "insert into cursorDiskKV values (?, ?)",
                (f"bubbleId:{cid}:{b['bubbleId']}", json.dumps(b)),
            )
    db.commit()
    db.close()
    space = user / "workspaceStorage" / "9f3a"
    space.mkdir(parents=True)
    (space / "workspace.json").write_text(json.dumps({"folder": "file:///home/ana/my%20pager"}))
    db = sqlite3.connect(space / "state.vscdb")
    db.execute("create table ItemTable (key text unique, value blob)")
    heads = {"allComposers": [{"type": "head", "composerId": COMPOSER, "name": "Pager order fix"}]}
    db.execute("insert into ItemTable values ('composer.composerData', ?)", (json.dumps(heads),))
    db.commit()
    db.close()
    for file in user.rglob("*"):
        os.utime(file, (OLD, OLD))
    return user


def test_a_global_composer_becomes_a_task_in_its_workspace_folder(store, tmp_path):
    user = user_dir(tmp_path, conversation())
    report = import_paths(store, "cursor", [user / "globalStorage"])
    assert report.created == ["cu-" + COMPOSER]
    start, title, asked, call, result, answer, end = log_of(store, "cu-" + COMPOSER)
    assert start.project == "/home/ana/my pager" and start.model == "claude-4-sonnet"
    assert (title.title, title.actor) == ("Pager order fix", "agent")
    assert asked.text == "Fix the flaky TestPagerOrder"
    assert (
        call.calls[0].input == {"command": "go test ./pager"} and call.thinking == "Run it first."
    )
    assert call.usage == r.Usage(input=1200, output=80)
    assert (result.call, result.error, result.exit) == ("toolu_1", True, 1)
    assert answer.text.startswith("The pager sorted") and end.status == "completed"
    assert fold_log(store.log_path("cu-" + COMPOSER)).turns == 1


def test_the_login_tokens_beside_the_chats_are_never_read_copied_or_indexed(store, tmp_path):
    user = user_dir(tmp_path, conversation())
    import_paths(store, "cursor", [user])
    search(store, "pager")  # the index is built too
    for file in store.root.rglob("*"):
        if file.is_file():
            data = file.read_bytes()
            assert ACCESS.encode() not in data and REFRESH.encode() not in data, file
    chats = keys.Chats(user / "globalStorage" / "state.vscdb")
    assert ACCESS not in repr(vars(chats)) and REFRESH not in repr(vars(chats))
    assert sorted(p.name for p in (user / "globalStorage").iterdir()) == ["state.vscdb"]


def test_a_composer_still_generating_is_read_up_to_the_bubble_being_written(tmp_path):
    user = user_dir(tmp_path, conversation(), generating=["b3"])
    agent = registry.get("cursor")
    (held,) = agent.read(user / "globalStorage" / "state.vscdb", live=True)
    assert [x.src.id for x in held.records if isinstance(x, r.Reply)] == ["b2"]


def test_importing_again_adds_nothing_and_a_new_bubble_adds_only_itself(store, tmp_path):
    user = user_dir(tmp_path, conversation())
    db = user / "globalStorage" / "state.vscdb"
    import_paths(store, "cursor", [db])
    before = log_of(store, "cu-" + COMPOSER)
    assert import_paths(store, "cursor", [db]).unchanged == ["cu-" + COMPOSER]
    more = bubble("b4", 1, "Now the pager docs", T0 + 9000)
    with sqlite3.connect(db) as made:
        made.execute(
            "insert into cursorDiskKV values (?, ?)", (f"bubbleId:{COMPOSER}:b4", json.dumps(more))
        )
        (data,) = made.execute(
            "select value from cursorDiskKV where key=?", (f"composerData:{COMPOSER}",)
        ).fetchone()
        head = json.loads(data)
        head["fullConversationHeadersOnly"].append({"bubbleId": "b4", "type": 1})
        made.execute(
            "update cursorDiskKV set value=? where key=?",
            (json.dumps(head), f"composerData:{COMPOSER}"),
        )
    os.utime(db, (OLD + 60, OLD + 60))
    assert import_paths(store, "cursor", [db]).extended == ["cu-" + COMPOSER]
    added = log_of(store, "cu-" + COMPOSER)[len(before) :]
    assert [(r.kind_of(x), x.src.id) for x in added] == [("message", "b4")]


def test_a_sub_composer_is_folded_into_its_parent_as_its_sub_agent(store, tmp_path):
    kids = [
        bubble("k1", 1, "Find the pager", T0 + 2000),
        bubble("k2", 2, "pager/order.go", T0 + 3000),
    ]
    user = user_dir(tmp_path, conversation(), children={"kid-1": kids})
    report = import_paths(store, "cursor", [user / "globalStorage"])
    assert report.created == ["cu-" + COMPOSER]
    mine = [x for x in log_of(store, "cu-" + COMPOSER) if x.agent == "explore"]
    assert [r.kind_of(x) for x in mine] == ["message", "reply"]


@pytest.mark.parametrize("kind", ["a text file", "a database of another program"])
def test_what_is_no_cursor_database_is_refused_with_a_reason(store, tmp_path, kind):
    path = tmp_path / "state.vscdb"
    if kind == "a text file":
        path.write_text("# SpecStory export\n")
    else:
        with sqlite3.connect(path) as made:
            made.execute("create table notes (key text)")
    (skipped,) = import_paths(store, "cursor", [path]).skipped
    assert "not a" in skipped.reason
    assert not list(store.root.glob("sessions/*.jsonl"))


# -- the real files -------------------------------------------------------------------------
def chats_by_hand(path: Path) -> dict[str, tuple[int, str]]:
    """Each chat tab and inline composer of a real workspace database: (prompts, title)."""
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    get = dict(
        db.execute(
            "select key, value from ItemTable where key in (?, ?)", (keys.CHAT_TABS, keys.COMPOSERS)
        ).fetchall()
    )
    out = {}
    for tab in json.loads(get.get(keys.CHAT_TABS, "{}")).get("tabs", []):
        if tab.get("bubbles"):
            asked = sum(1 for b in tab["bubbles"] if b.get("type") == "user")
            out[tab["tabId"]] = (asked, tab.get("chatTitle") or "")
    for c in json.loads(get.get(keys.COMPOSERS, "{}")).get("allComposers", []):
        if c.get("conversation"):
            out[c["composerId"]] = (
                sum(1 for b in c["conversation"] if b["type"] == 1),
                c.get("name") or "",
            )
    return out


def test_the_real_2024_workspace_imports_every_chat_tab_and_composer(store, corpus):
    path = corpus / "other" / "cursor" / "slevin48__cursor-history__state.vscdb"
    expected = chats_by_hand(path)
    report = import_paths(store, "cursor", [path])
    assert sorted(report.created) == sorted("cu-" + sid for sid in expected)
    for sid, (asked, title) in expected.items():
        summary = fold_log(store.log_path("cu-" + sid))
        assert summary.turns == asked, sid
        if title:
            assert (summary.title, summary.title_by) == (" ".join(title.split())[:120], "agent")
    assert import_paths(store, "cursor", [path]).unchanged
    assert search(store, "ionic sidebar").turns


def test_the_real_2025_workspace_holding_only_headers_is_refused_and_says_where_they_are(
    store, corpus
):
    path = corpus / "other" / "cursor" / "choigoyoon__Oifunding__state.vscdb"
    (skipped,) = import_paths(store, "cursor", [path]).skipped
    assert "list of 3 chats" in skipped.reason and "globalStorage" in skipped.reason


@pytest.mark.parametrize(
    "name",
    [
        "edobry__minsky__2025-04-27_20-17-minsky-task-workflow-rule-creation.md",
        "pratikbuilds__trade_arena__claude-session.jsonl",
        "therealjhay__Soul__claude-session.jsonl",
        "opencode/suhd550-dev__stunning-memory__opencode.db",
    ],
)
def test_look_alikes_and_other_agents_files_are_refused_with_a_reason(store, corpus, name):
    (skipped,) = import_paths(store, "cursor", [corpus / "other" / name]).skipped
    assert "not a" in skipped.reason
    assert not list(store.root.glob("sessions/*.jsonl"))


def test_a_secret_in_a_bubble_is_redacted(store, tmp_path):
    key = "ghp_" + "Xy7Q" * 9
    chat = cursor_chat_with(f"Push with token {key} to the pager repo")
    user = user_dir(tmp_path, chat)
    import_paths(store, "cursor", [user / "globalStorage"])
    text = store.log_path("cu-" + COMPOSER).read_text()
    assert key not in text and "[redacted]" in text


def cursor_chat_with(prompt: str) -> list[dict]:
    chat = conversation()
    chat[0] = chat[0] | {"text": prompt}
    return chat


def test_a_real_workspace_without_its_workspace_json_is_in_the_folder_it_debugged(store, corpus):
    """The corpus's database was copied without workspace.json: its launch configuration's
    folder (read here by hand) is every one of its tasks' folder."""
    path = corpus / "other" / "cursor" / "slevin48__cursor-history__state.vscdb"
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    (root,) = db.execute("select value from ItemTable where key = 'debug.selectedroot'").fetchone()
    db.close()
    folder = root.replace("file:///c%3A", "c:").removesuffix("/.vscode/launch.json")
    assert folder == "c:/Users/ydebray/Documents/mobilechat"
    report = import_paths(store, "cursor", [path])
    assert len(report.created) == 31
    assert {fold_log(store.log_path(t)).project for t in report.created} == {folder}


def opened(*uris: str) -> list[dict]:
    return [{"editor": {"resource": uri, "forceFile": True}} for uri in uris]


def test_without_a_launch_configuration_the_opened_files_shared_folder_is_the_project():
    files = opened(
        "file:///home/ana/pager/src/order.go", "file:///home/ana/pager/README.md",
        "file:///home/ana/pager/src/page/page.go",
    )  # fmt: skip
    assert folders.folder_in("", files) == "/home/ana/pager"
    assert folders.folder_in("file:///d%3A/w/x/.vscode/launch.json", files) == "d:/w/x"


def test_files_that_share_no_more_than_a_home_folder_name_no_project():
    assert folders.folder_in("", opened("file:///home/ana/a/x.go", "file:///home/ana/b/y")) == ""
    assert folders.folder_in("", opened("file:///c%3A/Users/ana/a.txt")) == ""
    assert folders.folder_in("", opened("vscode-userdata:/settings.json")) == ""
    assert folders.folder_in("", [{"editor": 3}, "x"]) == ""
    assert folders.folder_in("", opened("file:///srv/app/main.py")) == "/srv/app"


def test_a_global_composer_whose_workspace_lost_its_workspace_json_keeps_its_folder(
    store, tmp_path
):
    user = user_dir(tmp_path, conversation())
    space = user / "workspaceStorage" / "9f3a"
    (space / "workspace.json").unlink()
    db = sqlite3.connect(space / "state.vscdb")
    root = "file:///home/ana/my%20pager/.vscode/launch.json"
    db.execute("insert into ItemTable values ('debug.selectedroot', ?)", (root,))
    db.commit()
    db.close()
    os.utime(space / "state.vscdb", (OLD, OLD))
    report = import_paths(store, "cursor", [user / "globalStorage"])
    assert report.created == ["cu-" + COMPOSER]
    assert fold_log(store.log_path("cu-" + COMPOSER)).project == "/home/ana/my pager"
