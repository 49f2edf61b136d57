"""Where the archive holds more than one machine, the lists say which one each task ran on and
can be narrowed to one; where it holds one, nothing changes."""

import json
import os

import pytest
from machines_pair import make_pair
from nodwyn import api
from nodwyn.cli import main
from nodwyn.log import records
from test_api import TOKEN, Client


@pytest.fixture
def pair(tmp_path):
    laptop, desk = make_pair(tmp_path)
    laptop.new_task("Written on the laptop")
    desk.new_task("Written on the desk")
    laptop.sync()
    desk.sync()
    return laptop, desk


def run(capsys, root, *argv) -> str:
    assert main(["--data-dir", str(root), *argv]) == 0
    return capsys.readouterr().out


def test_sessions_names_each_tasks_machine_and_narrows_to_one(pair, capsys, monkeypatch):
    laptop, desk = pair
    monkeypatch.setenv("COLUMNS", "120")
    listed = run(capsys, desk.store.root, "sessions")
    head, *rows = listed.splitlines()
    assert "MACHINE" in head
    assert any("laptop" in row and "Written on the laptop" in row for row in rows)
    assert any("desk" in row and "Written on the desk" in row for row in rows)
    only = json.loads(run(capsys, desk.store.root, "sessions", "--machine", "laptop", "--json"))
    assert [t["title"] for t in only] == ["Written on the laptop"]
    assert only[0]["ran_on"] == laptop.id
    mine = json.loads(run(capsys, desk.store.root, "sessions", "--machine", "desk", "--json"))
    assert [t["title"] for t in mine] == ["Written on the desk"]


def test_a_list_of_one_machine_has_no_machine_column(tmp_path, capsys, monkeypatch):
    from machines_pair import Machine

    monkeypatch.setenv("COLUMNS", "120")
    alone = Machine(tmp_path / "alone", tmp_path / "Sync", "alone")
    alone.new_task("Only here")
    assert "MACHINE" not in run(capsys, alone.store.root, "sessions")


def test_usage_by_machine_has_a_row_per_machine(pair, capsys):
    laptop, desk = pair
    for machine in pair:
        (own,) = [t.id for t in machine.store.list() if not t.ran_on]
        with machine.store.writer(own) as writer:
            used = records.Usage(input=100, output=50)
            reply = records.Reply(text="ok", usage=used, cost_usd=0.25, model="m")
            writer.append([records.SessionResume(), records.Message(text="more"), reply])
    laptop.sync()
    desk.sync()
    found = json.loads(run(capsys, desk.store.root, "usage", "--by", "machine", "--json"))
    assert {row["key"]: row["cost_usd"] for row in found["rows"]} == {"laptop": 0.25, "desk": 0.25}
    table = run(capsys, desk.store.root, "usage", "--by", "machine")
    assert "Machine" in table and "laptop" in table


def test_the_api_lists_the_machines_and_a_machines_tasks(pair):
    laptop, desk = pair
    client = Client(api.make_app(desk.store, TOKEN))
    shown = client.get("/api/machines").json
    assert shown["this"] == desk.id and shown["folder"] == str(desk.folder)
    assert [(m["name"], m["kind"], m["tasks"]) for m in shown["machines"]] == [
        ("desk", "this", 1),
        ("laptop", "folder", 1),
    ]
    tasks = client.get(f"/api/tasks?machine={laptop.id}").json["tasks"]
    assert [t["title"] for t in tasks] == ["Written on the laptop"]
    assert len(client.get("/api/tasks").json["tasks"]) == 2
    renamed = client.post("/api/machines/name", {"name": "big desk"}).json
    assert renamed["machines"][0]["name"] == "big desk"
    laptop.sync()
    from nodwyn import machines

    assert machines.names(laptop.store.root)[desk.id] == "big desk"


def test_search_results_say_the_machine_a_found_task_ran_on(pair, capsys):
    laptop, desk = pair
    found = run(capsys, desk.store.root, "memory", "search", "laptop")
    assert "Written on the laptop" in found and "on laptop)" in found
    answer = json.loads(run(capsys, desk.store.root, "memory", "search", "laptop", "--json"))
    assert answer["turns"][0]["ran_on"] == laptop.id


def test_the_mcp_servers_answer_names_the_machine_an_earlier_task_ran_on(pair, monkeypatch):
    from nodwyn import settings
    from nodwyn.mcp.toolbox import Toolbox

    laptop, desk = pair
    (own,) = [t.id for t in desk.store.list() if not t.ran_on]
    monkeypatch.setenv("NODWYN_SESSION", own)  # the conversation asking is the desk's task
    settings.save(desk.store.root, settings.Settings(earlier_tasks={"/home/ana/pager": True}))
    box = Toolbox(desk.store, "claude", desk.store.root)
    answer = box.run("index-search", {"query": "laptop", "scope": "earlier"})
    assert not answer.error, answer.text
    assert "(ran on laptop)" in answer.text and "Written on the laptop" in answer.text


def test_the_machines_command_says_each_machine_in_words_and_as_json(pair, capsys):
    laptop, desk = pair
    said = run(capsys, desk.store.root, "machines")
    assert f"Shared folder: {desk.folder}" in said
    assert "desk (this machine): 1 task" in said
    assert "laptop (folder, last seen just now): 1 task" in said
    shown = json.loads(run(capsys, desk.store.root, "machines", "--json"))
    assert [m["name"] for m in shown["machines"]] == ["desk", "laptop"]
    synced = run(capsys, desk.store.root, "machines", "sync")
    assert "read 1 other machine: 0 new tasks, 0 grown, 0 deleted there" in synced
    assert "now named study" in run(capsys, desk.store.root, "machines", "rename", "study")
    forgot = run(capsys, desk.store.root, "machines", "forget", "laptop")
    assert "Forgot laptop: 1 task left this archive" in forgot


def test_machines_commands_without_a_shared_folder_say_what_to_do(tmp_path, capsys):
    root = tmp_path / "alone"
    assert main(["--data-dir", str(root), "machines", "sync"]) == 1
    assert "nodwyn machines share FOLDER" in capsys.readouterr().err
    assert main(["--data-dir", str(root), "machines", "forget", "nobody"]) == 1
    assert "no other machine named 'nobody'" in capsys.readouterr().err
    assert main(["--data-dir", str(root), "machines", "share", str(root / "inside")]) == 1
    assert "inside the data directory" in capsys.readouterr().err


def test_the_machines_names_are_read_again_only_when_a_file_they_come_from_changed(tmp_path):
    from nodwyn import machines
    from nodwyn.machines import ssh

    root = tmp_path / "data"
    root.mkdir()
    host = ssh.add(root, "laptop.local", name="laptop")
    assert machines.names(root)[host.id] == "laptop"
    listed = root / ssh.FOLDER / ssh.FILE
    before = listed.stat()
    listed.write_bytes(listed.read_bytes().replace(b'"laptop"', b'"lapdog"'))  # the same size
    os.utime(listed, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert machines.names(root)[host.id] == "laptop"  # its stamp unchanged: not read again
    os.utime(listed, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert machines.names(root)[host.id] == "lapdog"
    ssh.add(root, "laptop.local", name="the laptop")  # as a person renames it
    assert machines.names(root)[host.id] == "the laptop"
