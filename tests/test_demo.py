"""The demo's tasks: data in app/tasks/demo.toml (STYLE 16), written through the store like any
task."""

import tomllib
from pathlib import Path

import pytest
from nodwyn.tasks import demo
from nodwyn.tasks.store import Store

ROOT = Path(__file__).resolve().parents[1]


def test_a_second_demo_changes_nothing_and_covers_what_the_page_shows(data_dir):
    store = demo.make_demo(data_dir)
    before = {path.name: path.read_bytes() for path in store.sessions.glob("*.jsonl")}
    demo.make_demo(data_dir)
    assert {path.name: path.read_bytes() for path in store.sessions.glob("*.jsonl")} == before
    projects = {task.project for task in store.list(archived=None)}
    assert {"/home/ana/src/site", "/home/ana/work/site"} <= projects
    text = b"".join(before.values())
    for needed in (b'"context.compact"', b'"agent":"Explore"', b'"status":"failed"',
                   b"<script>alert(1)</script>", b"<img src=x onerror=alert(1)>"):  # fmt: skip
        assert needed in text


def test_each_task_of_the_file_becomes_one_task_with_its_title_and_archive(data_dir):
    written = tomllib.loads(demo.TASKS.read_text(encoding="utf-8"))["task"]
    store = demo.make_demo(data_dir)
    tasks = {task.id: task for task in store.list(archived=None)}
    assert set(tasks) == {task["id"] for task in written}
    for task in written:
        assert tasks[task["id"]].archived == task.get("archived", False)
        if task.get("title"):
            assert tasks[task["id"]].title == task["title"]


def test_a_step_of_no_known_kind_is_refused_with_the_file_named(data_dir, tmp_path, monkeypatch):
    tasks = tmp_path / "demo.toml"
    tasks.write_text('[[task]]\nid = "demo-x"\nproject = "/p"\ndays_ago = 1\n\n'
                     '[[task.step]]\nshout = "hello"\n', encoding="utf-8")  # fmt: skip
    monkeypatch.setattr(demo, "TASKS", tasks)
    with pytest.raises(ValueError, match="demo.toml: a step names one of ask, say, run"):
        demo.make_demo(data_dir)
    assert not Store(data_dir).exists("demo-x")


def test_the_package_ships_the_demo_tasks():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "demo.toml" in project["tool"]["setuptools"]["package-data"]["nodwyn.tasks"]
    assert demo.TASKS.parent == Path(demo.__file__).resolve().parent
