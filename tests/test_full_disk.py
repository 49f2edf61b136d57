"""A full disk loses nothing (#28): on a real 3 MB tmpfs, import until it is full, import
again, list, make room, import once more; the logs then equal a clean import's byte for byte,
with no temporary file left and no traceback on the way. Needs root (mount); skipped elsewhere.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from importing import age, env, prompt, reply, result, text, use, write

SIZE = "3m"
SESSIONS = 14  # about 5 MB of logs: more than the tmpfs holds
LEFT = re.compile(r".+\.\d+(\.\d+)?\.(tmp|new|rewrite)")


def session_lines(number: int) -> list[dict]:
    """A Claude Code session with long Bash results (about 40 KB a turn)."""
    session = f"{number:08d}-2222-3333-4444-555555555555"
    lines, parent = [], None
    for n in range(9):
        ts = n % 50
        output = "\n".join(f"line {k} of build step {n} in session {number}" for k in range(900))
        lines += [
            prompt(f"p{n}", parent, ts, f"Step {n}: fix the failing build", sessionId=session),
            reply(
                f"a{n}",
                f"p{n}",
                ts,
                f"m{n}",
                [use(f"c{n}", "Bash", command="make")],
                sessionId=session,
            ),  # fmt: skip
            result(f"r{n}", f"a{n}", ts, f"c{n}", output, sessionId=session),
            reply(f"b{n}", f"r{n}", ts, f"n{n}", [text(f"Step {n} builds.")], sessionId=session),
            env(
                f"e{n}",
                f"b{n}",
                ts,
                type="system",
                subtype="turn_duration",
                durationMs=900,
                sessionId=session,
            ),  # fmt: skip
        ]
        parent = f"e{n}"
    return lines


def nodwyn(data: Path, *args: str) -> subprocess.CompletedProcess:
    environ = dict(os.environ, NODWYN_DATA_DIR=str(data))
    command = [sys.executable, "-m", "nodwyn.cli", *args]
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=300)


def mount(point: Path, size: str, again: bool = False) -> bool:
    options = f"remount,size={size}" if again else f"size={size}"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
                          capture_output=True, check=False)  # fmt: skip
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    point = tmp_path / "disk"
    point.mkdir()
    if os.geteuid() != 0 or not mount(point, SIZE):
        pytest.skip("a real full disk needs root and mount -t tmpfs (CI runs it as root)")
    yield point
    subprocess.run(["umount", "-l", str(point)], check=False)


def logs(data: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((data / "sessions").glob("*.jsonl"))}


def test_a_full_disk_loses_nothing_and_the_import_after_room_is_made_equals_a_clean_one(
    tmp_path, small_disk
):
    source = tmp_path / "projects" / "-home-ana-pager"
    for number in range(SESSIONS):
        age(write(source / f"{number:08d}-2222-3333-4444-555555555555.jsonl",
                  session_lines(number)))  # fmt: skip
    data = small_disk / "data"

    for attempt in ("first", "second"):
        run = nodwyn(data, "import", "claude", str(source))
        said = run.stdout + run.stderr
        assert run.returncode == 1, f"{attempt}: {said}"
        assert "Traceback" not in said, said
        assert "the disk is full" in run.stderr and "nothing already written is lost" in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr

    listed = nodwyn(data, "sessions", "--all")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    assert listed.stdout.count("Step 0: fix the failing build") >= 1, listed.stdout

    assert mount(small_disk, "64m", again=True)
    done = nodwyn(data, "import", "claude", str(source))
    assert done.returncode == 0, done.stdout + done.stderr

    clean = tmp_path / "clean"
    assert nodwyn(clean, "import", "claude", str(source)).returncode == 0
    assert logs(data) == logs(clean)
    assert len(logs(clean)) == SESSIONS
    left = [p for p in data.rglob("*") if LEFT.fullmatch(p.name)]
    assert left == [], left


def test_a_read_only_data_folder_still_lists_searches_recalls_and_exports(
    tmp_path, small_disk, monkeypatch
):
    source = tmp_path / "projects" / "-home-ana-pager"
    for number in range(2):
        age(write(source / f"{number:08d}-2222-3333-4444-555555555555.jsonl",
                  session_lines(number)))  # fmt: skip
    data = small_disk / "data"
    assert mount(small_disk, "64m", again=True)
    assert nodwyn(data, "import", "claude", str(source)).returncode == 0
    before = nodwyn(data, "memory", "search", "failing build", "--mode", "words", "--json")
    assert before.returncode == 0, before.stderr
    task = f"cc-{0:08d}-2222-3333-4444-555555555555"

    remounted = subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=False)
    assert remounted.returncode == 0
    listed = nodwyn(data, "sessions", "--all")
    found = nodwyn(data, "memory", "search", "failing build", "--mode", "words", "--json")
    recalled = nodwyn(data, "memory", "recall", task, "2")
    exported = nodwyn(data, "export", task)
    monkeypatch.delenv("NODWYN_SERVICE", raising=False)  # by meaning: it would start a service
    meaning = nodwyn(data, "memory", "search", "failing build", "--mode", "both")
    for run in (listed, found, recalled, exported, meaning):
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert "Step 0: fix the failing build" in listed.stdout
    assert found.stdout == before.stdout  # the same hits, read from a copy of the index
    assert "read-only" in found.stderr
    assert "could not be started: searched in this process" in meaning.stderr
    assert "fix the failing build" in recalled.stdout + exported.stdout
