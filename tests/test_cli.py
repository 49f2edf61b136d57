"""The command line: sessions, rename, archive, delete, and one-line errors."""

import json
import os
import subprocess
import sys

import pytest
from corpora import FIXTURES
from nodwyn.log import records
from nodwyn.tasks.store import Store


def nodwyn(*args, data_dir=None, check=True):
    command = [sys.executable, "-m", "nodwyn.cli"]
    if data_dir:
        command += ["--data-dir", str(data_dir)]
    done = subprocess.run(
        command + list(args), capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def task(data_dir):
    start = records.SessionStart(project="/home/ana/pager", origin=records.Origin(tool="nodwyn"))
    with Store().create(start) as writer:
        writer.append([records.Message(text="Fix the flaky TestPagerOrder")])
        return writer.path.stem


def test_sessions_json_lists_the_tasks_a_test_wrote(task):
    (listed,) = json.loads(nodwyn("sessions", "--json").stdout)
    assert listed["id"] == task
    assert listed["title"] == "Fix the flaky TestPagerOrder"
    assert set(listed) >= {
        "id", "title", "title_by", "project", "archived", "state", "created",
        "last_activity", "turns", "origin",
    }  # fmt: skip


def test_the_data_dir_flag_beats_the_environment(task, tmp_path):
    other = tmp_path / "elsewhere"
    assert json.loads(nodwyn("sessions", "--json", data_dir=other).stdout) == []
    assert len(json.loads(nodwyn("sessions", "--json").stdout)) == 1


def test_rename_close_archive_and_delete_from_the_command_line(task):
    assert "Pager order" in nodwyn("rename", task, "Pager order").stdout
    nodwyn("close", task)
    nodwyn("archive", task)
    assert json.loads(nodwyn("sessions", "--json").stdout) == []
    (archived,) = json.loads(nodwyn("sessions", "--all", "--json").stdout)
    assert archived["archived"] and archived["title"] == "Pager order"
    nodwyn("unarchive", task)
    nodwyn("delete", task, "--yes")
    assert json.loads(nodwyn("sessions", "--all", "--json").stdout) == []


def test_an_expected_error_prints_one_line_and_exits_1(task):
    done = nodwyn("archive", task, check=False)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "close it" in done.stderr
    assert "Traceback" not in done.stderr
    done = nodwyn("rename", "no-such-task", "x", check=False)
    assert done.returncode == 1 and done.stderr.startswith("nodwyn: no task no-such-task (")
    assert "nodwyn sessions --all" in done.stderr  # what to do: where the task ids are


def test_delete_without_yes_and_without_a_terminal_asks_for_yes(task):
    nodwyn("close", task)
    done = nodwyn("delete", task, check=False)
    assert done.returncode == 1 and "--yes" in done.stderr
    assert len(json.loads(nodwyn("sessions", "--json").stdout)) == 1


def test_sessions_on_an_empty_data_dir_says_what_to_do():
    assert "nodwyn import" in nodwyn("sessions").stdout


def test_import_without_arguments_says_only_the_agent_is_required():
    done = nodwyn("import", check=False)
    assert done.returncode == 2
    usage = " ".join(done.stderr.split())  # argparse wraps the agents' names
    assert "usage: nodwyn import [-h] [--json] {claude,codex,gemini," in usage
    assert ",cursor," in usage and "} [PATH ...]" in usage
    assert done.stderr.rstrip().endswith("the following arguments are required: agent")


def test_an_import_says_where_it_looked_and_how_to_point_it_elsewhere(tmp_path):
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "nowhere")}
    done = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", "import", "claude"],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # no agent folder yet: nothing wrong
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"Looked in {tmp_path / 'nowhere' / 'projects'}: not there")
    assert "set CLAUDE_CONFIG_DIR" in first and "nodwyn import claude PATH" in first


def test_an_import_of_a_named_path_that_does_not_exist_fails_and_names_it(tmp_path):
    session = FIXTURES / "claude" / "vsla__interrupted__9dd861b1-71f8-41ee-bb93-7d3724bcb337.jsonl"
    done = nodwyn("import", "claude", str(tmp_path / "typo"), str(session), check=False)
    assert done.returncode == 1
    assert done.stdout.startswith(f"Looked in {tmp_path / 'typo'}, {session}\n1 created")
    assert done.stderr == f"nodwyn: no such file or folder: {tmp_path / 'typo'} (check the path)\n"


def test_a_data_directory_that_cannot_be_made_is_named_with_what_to_do(tmp_path):
    (tmp_path / "file").write_text("")
    done = nodwyn("sessions", data_dir=tmp_path / "file" / "data", check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == (
        f"nodwyn: {tmp_path / 'file' / 'data'}: not a directory; "
        "a part of the path is a file, not a folder: check the path\n"
    )
