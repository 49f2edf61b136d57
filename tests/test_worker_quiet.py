"""What an importer held back while a session was live is written once the session goes quiet,
by the app's own worker, without the file changing and without a restart: for every agent
whose importer holds anything back (the live window narrowed to a few seconds)."""

import os
import time
from pathlib import Path

import pytest
from importing import session as claude_session
from importing import write as write_lines
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.importers import agent as core
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from test_import_aider import write as write_aider
from test_import_antigravity import command, transcript
from test_import_antigravity import prompt as antigravity_prompt
from test_import_copilot import event
from test_import_copilot import session as copilot_session
from test_import_copilot import write as write_copilot
from test_import_opencode import SESSION, write_db
from test_import_opencode import conversation as opencode_chat
from test_worker import eventually
from test_worker_agents import gemini_file

WINDOW = 6.0  # seconds a source stays live in these tests


@pytest.fixture
def narrow(monkeypatch):
    monkeypatch.setattr(core, "LIVE_FOR", WINDOW)


def now(*paths: Path) -> None:
    """The agent wrote them just now: they are live."""
    for path in paths:
        os.utime(path)


def written_live(home: Path, claude: Path) -> dict[str, list[Path]]:
    """A session of each agent that holds something back, written just now where it keeps it."""
    turn = claude_session()[:-1]  # the last reply, its turn not ended yet
    cc = write_lines(claude / "projects" / "-home-ana-pager" / "session.jsonl", turn)
    cp = write_copilot(home, copilot_session(event("user.message", 1, content="Fix it")), live=True)
    ag = transcript(
        home / ".gemini" / "antigravity",
        [antigravity_prompt(0, "Run the tests"), command(1, "go test")],
        live=True,
    )
    gm = gemini_file(home, ["Fix the pager"])
    ai = write_aider(home)
    now(ai, home / ".aider.input.history")
    oc = home / ".local" / "share" / "opencode" / "opencode.db"
    oc.parent.mkdir(parents=True)
    write_db(oc, {SESSION: opencode_chat(int(time.time() * 1000))})
    now(*oc.parent.iterdir())
    return {"claude": [cc], "copilot": [cp], "antigravity": [ag], "gemini": [gm],
            "aider": [ai], "opencode": [oc]}  # fmt: skip


def kinds(store: Store) -> dict[str, list[str]]:
    return {
        info.id: [r.kind_of(x) for _o, _e, x in logfile.read(store.log_path(info.id))]
        for info in store.list()
    }


def test_a_session_that_goes_quiet_is_written_whole_without_changing(
    agents_home, tmp_path, data_dir, monkeypatch, narrow
):
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    sources = written_live(agents_home, claude)
    written = {path: path.stat().st_mtime_ns for paths in sources.values() for path in paths}
    worker = Worker(Store(data_dir), Status(), interval=600.0)  # no polling comes to help
    worker.start()
    try:
        assert eventually(lambda: len(worker.store.list()) == 7, timeout=WINDOW)  # aider: 2 runs
        live = kinds(worker.store)
        oracle = Store(tmp_path / "oracle")
        assert eventually(lambda: all(not _live(p) for p in written), timeout=WINDOW + 5)
        for tool, paths in sources.items():
            import_paths(oracle, tool, paths)  # the same files, quiet: everything written
        whole = kinds(oracle)
        held = {task for task in whole if len(live[task]) < len(whole[task])}
        assert {task[:3] for task in held} == {"cc-", "cp-", "ag-", "gm-", "ad-", "oc-"}
        assert eventually(lambda: kinds(worker.store) == whole, timeout=WINDOW)
    finally:
        assert worker.stop(timeout=30)
    assert {path: path.stat().st_mtime_ns for path in written} == written  # nothing touched


def _live(path: Path) -> bool:
    return path.stat().st_mtime > time.time() - WINDOW
