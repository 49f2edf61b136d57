"""The terminal's tables (issue 37): `nodwyn usage` and `nodwyn sessions` as wide as the
terminal (COLUMNS, or a real pty's size), the compact form below 100 columns, agents by their
names; and a reader that closes the pipe ends every command quietly, exit 0."""

import os
import pty
import select
import subprocess
import sys

import pytest
from nodwyn.cli import columns
from nodwyn.log import records
from nodwyn.tasks.store import Store

LONG = "/home/ana/src/a-rather-long-folder-name/with/many/parts/that/runs/on/and/on/gem"


def task(store, name: str, origin: str, model: str, title: str, project: str, turns: int = 1):
    start = records.SessionStart(project=project, origin=records.Origin(tool=origin))
    with store.create(start, name) as writer:
        for n in range(turns):
            usage = records.Usage(input=12_345_678, output=2_000 + n, cache_read=98_765_432)
            reply = records.Reply(text="Done.", model=model, usage=usage)
            writer.append([records.Message(text=f"{title} ({n})"), reply])


@pytest.fixture
def data(data_dir):
    store = Store(data_dir)
    task(store, "cc-one", "claude-code", "claude-sonnet-4-20250514", "Fix the pager " * 12, LONG)
    task(store, "cx-two", "codex", "gpt-5-codex", "轻量策略游戏引擎选择" * 4, "/w/x", turns=3)
    task(store, "ag-three", "antigravity", "Gemini 3.1 Pro (High)", "Plan", "")
    return data_dir


def nodwyn(data_dir, *args: str, columns: int | None = 80) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = str(columns)
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), *args]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done


def widest(text: str) -> int:
    return max(columns.cells(line) for line in text.splitlines())


@pytest.mark.parametrize("by", ["day", "week", "month", "project", "model", "agent"])
def test_usage_fits_80_and_120_columns_with_the_compact_form_below_100(data, by):
    narrow = nodwyn(data, "usage", "--by", by).stdout
    wide = nodwyn(data, "usage", "--by", by, columns=120).stdout
    assert widest(narrow) <= 80 and widest(wide) <= 120
    assert "Cache Read" not in narrow and "left out to fit" in narrow
    assert "Cache Read" in wide and "Total Tokens" in wide and "left out" not in wide
    assert "61,728,390" in narrow  # a figure (the total of 5 turns) is never cut
    assert ("│ Models" in wide) == (by != "model")


def test_by_model_names_the_model_once_and_by_agent_names_the_agents(data):
    by_model = nodwyn(data, "usage", "--by", "model", columns=120).stdout
    assert "Models" not in by_model and by_model.count("gpt-5-codex") == 1
    by_agent = nodwyn(data, "usage", "--by", "agent").stdout
    assert "│ Claude Code " in by_agent and "│ Antigravity " in by_agent and "│ Codex " in by_agent
    assert "claude-code" not in by_agent


def test_a_long_project_keeps_its_last_folders_and_no_folder_is_said(data):
    out = nodwyn(data, "usage", "--by", "project").stdout
    assert "…" in out and "on/gem " in out and "No folder" in out


def test_sessions_at_80_columns_are_two_lines_of_columns_with_the_title_cut(data):
    out = nodwyn(data, "sessions").stdout.splitlines()
    assert max(columns.cells(line) for line in out) <= 80
    assert out[0].split() == ["WHEN", "AGENT", "TURNS", "COST", "TITLE"]
    one = next(line for line in out if "Claude Code" in line)
    assert one.endswith("…") and "Fix the pager" in one and " 1 " in one
    at = out.index(one)
    assert out[at + 1].split()[0] == "cc-one" and out[at + 1].rstrip().endswith("on/and/on/gem")
    cjk = next(line for line in out if "Codex" in line)
    assert columns.cells(cjk) <= 80 and cjk.endswith("…")
    assert "turns" not in " ".join(out[1:]) and "claude-code" not in " ".join(out)


def test_sessions_from_100_columns_are_one_line_each_in_columns(data):
    out, notes = nodwyn(data, "sessions", columns=120).stdout.split("\nno ", 1)
    out = out.splitlines()  # the tasks' lines; below them why a cost reads "no price"
    assert len(out) == 4 and max(columns.cells(line) for line in out) <= 120
    assert notes.startswith("price for ") and notes.endswith(": 1 task\n")
    assert out[0].split()[:6] == ["ID", "WHEN", "AGENT", "TURNS", "COST", "TITLE"]
    assert all(line.startswith(("cc-one", "cx-two", "ag-three")) for line in out[1:])
    agent_at = out[0].index("AGENT")
    assert all(line[agent_at:].split("  ")[0] in ("Claude Code", "Codex", "Antigravity")
               for line in out[1:])  # fmt: skip


def test_the_width_is_the_ptys_when_no_columns_is_set(data):
    """A real terminal 80 columns wide (a pty), COLUMNS unset: the compact form."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    for args in (["usage"], ["sessions"]):
        pid, fd = pty.fork()
        if pid == 0:  # the child: its stdout is the pty
            os.execve(sys.executable, [sys.executable, "-m", "nodwyn.cli", "--data-dir",
                                       str(data), *args], env)  # fmt: skip
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        text = _read_all(fd)
        os.waitpid(pid, 0)
        assert text and widest(text) <= 80, text
        assert args == ["sessions"] or "left out to fit" in text


def _read_all(fd: int) -> str:
    out = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            got = os.read(fd, 65536)
        except OSError:  # the child is gone: the pty's end
            break
        if not got:
            break
        out += got
    return out.decode().replace("\r\n", "\n")


COMMANDS = [
    ["usage"], ["usage", "--by", "project"], ["usage", "--json"], ["sessions"],
    ["sessions", "--json"], ["sessions", "--all"], ["sessions", "--agent", "codex"], ["status"],
    ["quota"], ["starred"], ["settings"], ["export", "cc-one"], ["--help"], ["usage", "--help"],
    ["memory", "search", "pager", "--mode", "words", "--no-service"], ["--version"],
]  # fmt: skip


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_reader_that_closed_the_pipe_ends_every_command_quietly(data, args):
    read, write = os.pipe()
    os.close(read)  # `| head -0`: every write finds the pipe closed
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data), *args]
    try:
        done = subprocess.run(command, stdout=write, stderr=subprocess.PIPE, timeout=60,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    finally:
        os.close(write)
    assert done.returncode == 0 and done.stderr.decode() == "", done.stderr.decode()


def test_an_agent_whose_logs_give_no_tokens_costs_no_usage_not_nothing(data_dir):
    start = records.SessionStart(project="/w/c", origin=records.Origin(tool="cursor"))
    with Store(data_dir).create(start, "cu-four") as writer:
        writer.append([records.Message(text="Fix it"), records.Reply(text="Done.")])
    out = nodwyn(data_dir, "usage", "--by", "agent").stdout
    row = next(line for line in out.splitlines() if "│ Cursor " in line)
    assert row.rstrip("│ ").endswith("no usage") and "$0.00" not in row
