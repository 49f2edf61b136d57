"""`nodwyn mcp install qwen|crush [--write]` into the agents' own settings files (Qwen Code's
`settings.json`, comments allowed as in Gemini CLI's; Crush's `crush.json` with its `mcp`
table of `{type: stdio, command, args, env}`), the server started from the written entry, and
the calling session found where each agent keeps it (ADR 0053)."""

import json
import os
import sqlite3
import time

import pytest
from mcp import StdioServerParameters
from mcp_client import talk
from nodwyn import cli
from nodwyn.mcp import jsonc
from nodwyn.mcp.conversation import conversation, not_known
from nodwyn.tasks.store import Store
from test_import_crush import SCHEMA

PERSONS = """{
  // the person's own settings and a server of theirs
  "theme": "GitHub",
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
  }
}
"""


def run(capsys, *argv) -> str:
    capsys.readouterr()
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def started(entry: dict, folder) -> list[str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env=keep | entry.get("env", {}), cwd=folder)  # fmt: skip

    async def script(session):
        return [tool.name for tool in (await session.list_tools()).tools]

    return talk(params, script)[:3]


def test_qwen_code_s_settings_get_nodwyn_s_server_and_keep_the_person_s(
    agents_home, capsys, tmp_path
):
    file = agents_home / ".qwen" / "settings.json"
    file.parent.mkdir(parents=True)
    file.write_text(PERSONS)
    said = run(capsys, "mcp", "install", "qwen", "--write")
    assert str(file) in said and "before-nodwyn" in said
    config = jsonc.loads(file.read_text(), "comments")
    assert config["theme"] == "GitHub" and "github" in config["mcpServers"]
    assert file.read_text().startswith("{\n  // the person's own settings")
    entry = config["mcpServers"]["nodwyn"]
    assert entry["args"][entry["args"].index("--agent") + 1] == "qwen"
    assert "already has" in run(capsys, "mcp", "install", "qwen", "--write")
    assert started(entry, tmp_path) == ["index-search", "recall", "name-task"]


def test_crush_s_global_config_gets_a_stdio_server_in_its_mcp_table(
    agents_home, capsys, monkeypatch
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(agents_home / ".config"))
    printed = run(capsys, "mcp", "install", "crush")
    file = agents_home / ".config" / "crush" / "crush.json"
    assert printed.startswith(f"Add to {file} ")
    run(capsys, "mcp", "install", "crush", "--write")
    entry = json.loads(file.read_text())["mcp"]["nodwyn"]
    assert entry["type"] == "stdio" and entry["args"][-2:] == ["--agent", "crush"]


def test_the_calling_qwen_chat_is_the_one_being_written_in_the_folder(
    agents_home, data_dir, tmp_path
):
    folder = tmp_path / "pager app"
    chats = (
        agents_home
        / ".qwen"
        / "projects"
        / "".join(c if c.isascii() and c.isalnum() else "-" for c in str(folder))
    )
    (chats / "chats").mkdir(parents=True)
    line = {"uuid": "u0", "parentUuid": None, "sessionId": "qs-1", "type": "user",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "cwd": str(folder), "version": "0.9.1",
            "message": {"role": "user", "parts": [{"text": "Fix the pager"}]}}  # fmt: skip
    (chats / "chats" / "qs-1.jsonl").write_text(json.dumps(line) + "\n")
    assert conversation(Store(), "qwen", folder) == "qw-qs-1"
    assert conversation(Store(), "qwen", tmp_path / "elsewhere", {"sessionId": "qs-1"}) == "qw-qs-1"


def test_the_calling_crush_session_is_the_project_database_s_newest(data_dir, tmp_path):
    folder = tmp_path / "pager"
    (folder / ".crush").mkdir(parents=True)
    db = sqlite3.connect(folder / ".crush" / "crush.db")
    db.executescript(SCHEMA)
    now = int(time.time())
    db.execute(
        "insert into sessions values ('old', null, 'Old', 0, 0, 0, 0, 1700000000, 1700000000)"
    )
    db.execute("insert into sessions values ('new', null, 'New', 0, 0, 0, 0, ?, ?)", (now, now))
    for sid, at in (("old", 1700000000), ("new", now)):
        parts = json.dumps([{"type": "text", "data": {"text": "Fix the pager"}}])
        db.execute("insert into messages values (?, ?, 'user', ?, null, ?, ?, null, null)",
                   (f"m-{sid}", sid, parts, at, at))  # fmt: skip
    db.commit()
    db.close()
    assert conversation(Store(), "crush", folder) == "cr-new"
    with pytest.raises(type(not_known("crush", folder, None))):
        conversation(Store(), "crush", tmp_path / "nowhere")
