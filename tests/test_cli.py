"""The command line: sessions, rename, archive, delete, and one-line errors."""

import json
import subprocess
import sys

import pytest
from nodwyn.log import records
from nodwyn.store import Store


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
    assert (done.returncode, done.stderr.strip()) == (1, "nodwyn: no task no-such-task")


def test_delete_without_yes_and_without_a_terminal_asks_for_yes(task):
    nodwyn("close", task)
    done = nodwyn("delete", task, check=False)
    assert done.returncode == 1 and "--yes" in done.stderr
    assert len(json.loads(nodwyn("sessions", "--json").stdout)) == 1


def test_sessions_on_an_empty_data_dir_says_what_to_do():
    assert "nodwyn import" in nodwyn("sessions").stdout
