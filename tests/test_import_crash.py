"""An import that cannot double a record (#14 row 4, Deliver 2).

A real `nodwyn import` process is stopped at each of its writes in turn (the test hook
`NODWYN_STOP_AT_WRITE=N` of nodwyn.log.faults ends it there with `os._exit`, a torn point
after writing half its bytes), and at random moments with SIGKILL; then a new import runs.
The log must then be byte for byte one clean import's: nothing lost, nothing twice, and no
torn fragment kept (the next writer cuts it off, writer.py; #27).
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from importing import age, env, prompt, reply, session, text, write
from nodwyn.importers.state import BATCH
from nodwyn.importers.sync import import_paths
from nodwyn.log import faults, records
from nodwyn.tasks.store import Store

KILLS = int(os.environ.get("NODWYN_KILLS") or 4)  # random SIGKILLs (more by hand)
# kills of an extending import; NODWYN_EXTEND_KILLS=47 runs the count (#27) by hand
EXTEND_KILLS = int(os.environ.get("NODWYN_EXTEND_KILLS") or 8)


def turns(count: int, first: int = 0) -> list[dict]:
    """More turns for `session()`: prompt, streamed answer, turn end."""
    lines = []
    for n in range(first, first + count):
        ts = 10 + n % 40
        lines += [
            prompt(f"p{n}", f"e{n - 1}", ts, f"Step {n}: make the ocelot handler faster"),
            reply(f"a{n}", f"p{n}", ts, f"m{n}", [text(f"Made step {n} faster.")]),
            env(f"e{n}", f"a{n}", ts, type="system", subtype="turn_duration", durationMs=900),
        ]
    return lines


def whole_lines(store: Store, task: str) -> list[bytes]:
    """The log's lines, every one a record: a torn fragment left by a stop is cut off by the
    next writer (kept aside in `.torn`), so none may stay (#27)."""
    data = store.log_path(task).read_bytes()
    assert data.endswith(b"\n"), "the log ends with a whole record"
    kept = data.split(b"\n")[:-1]
    for line in kept:
        records.decode(line)  # raises on a torn line
    return kept


def run_import(data: Path, source: Path, stop_at: int = 0) -> subprocess.CompletedProcess:
    environ = dict(os.environ, NODWYN_DATA_DIR=str(data), NODWYN_STOP_AT_WRITE=str(stop_at))
    command = [sys.executable, "-m", "nodwyn.cli", "import", "claude", str(source)]
    return subprocess.run(command, env=environ, capture_output=True, timeout=120, check=False)


def clean(tmp_path: Path, source: Path) -> dict[str, list[bytes]]:
    """What one import of `source` into a fresh data directory gives, task by task."""
    data = tmp_path / "clean"
    os.environ["NODWYN_DATA_DIR"] = str(data)
    try:
        report = import_paths(Store(data), "claude", [source])
        return {task: whole_lines(Store(data), task) for task in report.created}
    finally:
        os.environ.pop("NODWYN_DATA_DIR")


def stopped_then_imported(data: Path, source: Path, stop_at: int) -> int:
    """Import with the process stopped at write `stop_at`, then import again; its exit code."""
    code = run_import(data, source, stop_at).returncode
    assert code in (0, faults.STOPPED), code
    again = run_import(data, source)
    assert again.returncode == 0, again.stderr
    return code


def each_stop(data_for, source: Path, expected: dict) -> int:
    """Stop at write 1, 2, ... until an import runs to its end; check every outcome."""
    stop_at = 0
    while True:
        stop_at += 1
        data = data_for(stop_at)
        code = stopped_then_imported(data, source, stop_at)
        store = Store(data)
        got = {task: whole_lines(store, task) for task in expected}
        assert got == expected, f"stopped at write {stop_at}"
        if code == 0:
            return stop_at - 1


def test_a_new_task_stopped_at_any_write_then_imported_again_is_one_clean_import(tmp_path):
    source = age(write(tmp_path / "s" / "11111111-2222-3333-4444-555555555555.jsonl",
                       session() + turns(30)))  # fmt: skip
    expected = clean(tmp_path, source)
    points = each_stop(lambda n: tmp_path / f"data-{n}", source, expected)
    assert points >= 5  # before and mid start, before and mid the rest, around `.imp`


def extended_at_each_stop(tmp_path: Path, lines: list[dict], first: int) -> int:
    """Import `lines[:first]`, then all of them stopped at each write in turn: the points."""
    folder = tmp_path / "s"
    name = "11111111-2222-3333-4444-555555555555.jsonl"
    expected = clean(tmp_path, age(write(folder / name, lines)))

    def half_imported(n: int) -> Path:
        data = tmp_path / f"data-{n}"
        age(write(folder / name, lines[:first]))
        assert run_import(data, folder / name).returncode == 0
        age(write(folder / name, lines))
        return data

    return each_stop(half_imported, folder / name, expected)


def test_a_task_extended_and_stopped_at_any_write_then_imported_again_is_one_clean_import(
    tmp_path,
):
    assert extended_at_each_stop(tmp_path, session() + turns(30), 40) >= 5


@pytest.mark.parametrize("attempt", range(KILLS))
def test_an_import_killed_at_a_random_moment_then_imported_again_is_one_clean_import(
    tmp_path, attempt
):
    folder = tmp_path / "s"
    for n in range(30):
        age(write(folder / f"11111111-2222-3333-4444-5555555500{n:02d}.jsonl",
                  session() + turns(100)))  # fmt: skip
    expected = clean(tmp_path, folder)
    data = tmp_path / "data"
    environ = dict(os.environ, NODWYN_DATA_DIR=str(data))
    command = [sys.executable, "-m", "nodwyn.cli", "import", "claude", str(folder)]
    running = subprocess.Popen(command, env=environ, stdout=subprocess.DEVNULL)
    sessions = data / "sessions"
    made = random.Random(attempt).randint(1, 20)  # killed once this many logs exist
    deadline = time.monotonic() + 60
    while not (sessions.is_dir() and len(list(sessions.glob("*.jsonl"))) >= made):
        assert time.monotonic() < deadline and running.poll() is None
        time.sleep(0.001)
    os.kill(running.pid, signal.SIGKILL)
    assert running.wait(timeout=30) == -signal.SIGKILL  # killed mid-import, not after it
    assert run_import(data, folder).returncode == 0
    store = Store(data)
    assert {task: whole_lines(store, task) for task in expected} == expected


def test_imp_deleted_then_a_shorter_copy_then_the_whole_adds_nothing_twice(tmp_path, data_dir):
    lines = session() + turns(30)
    name = "11111111-2222-3333-4444-555555555555.jsonl"
    whole = age(write(tmp_path / "whole" / name, lines))
    shorter = age(write(tmp_path / "shorter" / name, lines[:50]))
    expected = clean(tmp_path, whole)
    store = Store(data_dir)
    (task,) = import_paths(store, "claude", [whole]).created
    store.log_path(task).with_suffix(".imp").unlink()
    assert import_paths(store, "claude", [shorter]).unchanged == [task]
    assert import_paths(store, "claude", [whole]).unchanged == [task]
    assert whole_lines(store, task) == expected[task]
    turns_shown = [x for x in whole_lines(store, task) if b'"kind":"turn.end"' in x]
    assert len(turns_shown) == 31


def test_a_shorter_copy_after_a_clean_import_adds_nothing_and_the_whole_grows_on(
    tmp_path, data_dir
):
    lines = session() + turns(30)
    name = "11111111-2222-3333-4444-555555555555.jsonl"
    source = age(write(tmp_path / "s" / name, lines[:61]))  # cut between turns
    store = Store(data_dir)
    (task,) = import_paths(store, "claude", [source]).created
    store.log_path(task).with_suffix(".imp").unlink()
    age(write(source, lines[:31]))  # the agent's file cut back
    assert import_paths(store, "claude", [source]).unchanged == [task]
    age(write(source, lines))
    assert import_paths(store, "claude", [source]).extended == [task]
    assert whole_lines(store, task) == clean(tmp_path, source)[task]


def half_then_whole(folder: Path, count: int = 30) -> list[list[dict]]:
    """`count` sources whose first halves are on disk now; their whole lines returned."""
    wholes = []
    for n in range(count):
        lines = session() + turns(100)
        age(
            write(folder / f"11111111-2222-3333-4444-5555555500{n:02d}.jsonl", lines[:157])
        )  # cut between turns
        wholes.append(lines)
    return wholes


@pytest.fixture(scope="module")
def extending(tmp_path_factory):
    """A data directory holding the first halves (to be copied), the whole sources, the clean
    import's logs, and how long an extending import takes here."""
    base = tmp_path_factory.mktemp("extending")
    folder = base / "s"
    wholes = half_then_whole(folder)
    half = base / "half"
    assert run_import(half, folder).returncode == 0
    for n, lines in enumerate(wholes):
        age(write(folder / f"11111111-2222-3333-4444-5555555500{n:02d}.jsonl", lines))
    expected = clean(base, folder)
    timed = base / "timed"
    shutil.copytree(half, timed)
    began = time.monotonic()
    assert run_import(timed, folder).returncode == 0
    return half, folder, expected, time.monotonic() - began


@pytest.mark.parametrize("attempt", range(EXTEND_KILLS))
def test_an_extending_import_killed_at_a_random_moment_then_imported_again_is_one_clean_import(
    tmp_path, extending, attempt
):
    half, folder, expected, span = extending
    data = tmp_path / "data"
    shutil.copytree(half, data)
    environ = dict(os.environ, NODWYN_DATA_DIR=str(data))
    command = [sys.executable, "-m", "nodwyn.cli", "import", "claude", str(folder)]
    running = subprocess.Popen(command, env=environ, stdout=subprocess.DEVNULL)
    time.sleep(random.Random(attempt).uniform(0.0, span))  # a seeded moment of the import
    running.send_signal(signal.SIGKILL)
    running.wait(timeout=30)
    assert run_import(data, folder).returncode == 0
    store = Store(data)
    assert {task: whole_lines(store, task) for task in expected} == expected


def test_a_session_of_several_batches_stopped_at_any_write_then_imported_again_is_one_clean(
    tmp_path,
):
    """An import appends a batch at a time (state.BATCH records): stopped after any batch, the
    next import reads the source again and appends only what follows the log's last record,
    holding what waits for a later match in a temporary file past a batch."""
    lines = session() + turns(1500)
    assert len(lines) > 2 * BATCH
    source = age(write(tmp_path / "s" / "11111111-2222-3333-4444-555555555555.jsonl", lines))
    expected = clean(tmp_path, source)
    points = each_stop(lambda n: tmp_path / f"data-{n}", source, expected)
    assert points >= 9  # three batches: before and in the middle of each, around `.imp`


def test_a_session_extended_by_several_batches_and_stopped_at_any_write_is_one_clean_import(
    tmp_path,
):
    assert extended_at_each_stop(tmp_path, session() + turns(1200), 301) >= 7
