"""What the tests of SSH machines share: the data directory pointed at the test server (the
`store` and `far` fixtures, imported by a module as `store_fixture` and `far_fixture`), the
tasks' starts, what a local import of the same folders makes, the command line, and a wait on
a condition with a deadline."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import ssh_sessions
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.log import records as r
from nodwyn.machines import remote
from nodwyn.tasks.store import Store


@pytest.fixture(name="store")
def store_fixture(server, data_dir, monkeypatch) -> Store:
    """The test's data directory, its ssh config the test server's (sshd.py)."""
    monkeypatch.setenv(remote.CONFIG, str(server.config))
    return Store(data_dir)


@pytest.fixture(name="far")
def far_fixture(tmp_path) -> dict[str, Path]:
    """The far end's agent folders: the fixture corpus's Claude Code and Codex sessions."""
    return ssh_sessions.fixture_corpus(tmp_path / "far end")


def folders(far: dict[str, Path]) -> list[str]:
    """The `--folder` words naming the far end's folders."""
    return [f"{agent}={path}" for agent, path in far.items()]


def starts(store: Store) -> dict[str, r.SessionStart]:
    """task -> its session.start, for every log of the store."""
    found = {}
    for log in sorted(store.sessions.glob("*.jsonl")):
        for _, _, record in logfile.read(log):
            found[log.stem] = record
            break
    return found


def local_tasks(tmp_path: Path, far: dict[str, Path]) -> set[str]:
    """The tasks the same folders make when imported on this machine."""
    here = Store(tmp_path / "here")
    for agent, path in far.items():
        import_paths(here, agent, [path])
    return set(starts(here))


def nodwyn(store: Store, *words: str) -> subprocess.CompletedProcess:
    """The `nodwyn` command run on the store's data directory."""
    return subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(store.root), *words],
        capture_output=True, text=True, timeout=120, env=os.environ.copy(),
    )  # fmt: skip


def wait_for(condition, timeout: float = 60) -> bool:
    """Poll `condition` until it holds or `timeout` seconds have gone."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
