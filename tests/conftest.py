"""Every test gets its own data directory. Tests on the real corpus are marked `corpus` (by a
param's mark, or by asking for the `corpus` fixture); where it is absent they are left out and
the run says so in one line (tests/corpora.py says where it is looked for)."""

import os
import shutil
from pathlib import Path

import pytest
from corpora import REAL, real_corpus_found

LONG_AGO = 1_600_000_000  # September 2020
NOT_RUN = pytest.StashKey[int]()


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "corpus: reads the real corpus (../shared/corpus)")
    config.addinivalue_line("markers", "slow: starts real sync engines (-m 'not slow' skips)")


def pytest_collection_modifyitems(config, items) -> None:
    real = []
    for item in items:
        if {"corpus", "finished_corpus"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.corpus)
        if item.get_closest_marker("corpus"):
            real.append(item)
    if real_corpus_found() or not real:
        return
    if os.environ.get("NODWYN_REQUIRE_CORPUS"):
        raise pytest.UsageError(f"the real corpus is missing at {REAL} (NODWYN_REQUIRE_CORPUS)")
    config.stash[NOT_RUN] = len(real)
    config.hook.pytest_deselected(items=real)
    left = set(map(id, real))
    items[:] = [item for item in items if id(item) not in left]


def pytest_terminal_summary(terminalreporter, config) -> None:
    if not real_corpus_found():
        left = config.stash.get(NOT_RUN, 0)
        terminalreporter.write_line(
            f"corpus suite not run: {REAL} not found (set NODWYN_CORPUS); "
            f"{left} tests and the real files' cases left out"
        )


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("NODWYN_DATA_DIR", str(path))
    # no test leaves a search service behind: those of tests/test_service.py start their own
    monkeypatch.setenv("NODWYN_SERVICE", "0")
    return path


@pytest.fixture(autouse=True)
def agents_home(tmp_path, monkeypatch) -> Path:
    """The agents' default folders (~/.gemini, ~/.copilot, ~/.local/share/opencode, Cursor's
    User folder, the aider file) moved to an empty folder by their own variables, so no test
    reads or follows the sessions of the person running the tests. (HOME itself is left alone:
    a browser given a new one rebuilds its font caches.)"""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.setenv("COPILOT_HOME", str(home / ".copilot"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))  # OpenCode's
    monkeypatch.setenv("CURSOR_USER_DIR", str(home / "Cursor" / "User"))
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", str(home / ".aider.chat.history.md"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / ".pi" / "agent"))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(home / ".local" / "share" / "crush"))
    monkeypatch.setenv("VSCODE_APPDATA", str(home / "Code"))  # Cline's, Roo Code's, Kilo Code's
    monkeypatch.setenv("CLINE_DIR", str(home / ".cline"))
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(home / ".continue"))
    return home


def finished_copy(source: Path, into: Path) -> Path:
    """A copy of a corpus dated long ago. The importer holds back the last streamed reply of a
    source changed in the last minutes (the agent may still be writing it), and a freshly
    checked-out corpus is minutes old; a corpus stands for finished sessions."""
    copy = into / "corpus"
    shutil.copytree(source, copy, copy_function=shutil.copyfile)  # CI's corpus is read-only
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
        os.utime(path, (LONG_AGO, LONG_AGO))
    return copy


@pytest.fixture(scope="session")
def finished_corpus(tmp_path_factory) -> Path:
    return finished_copy(REAL, tmp_path_factory.mktemp("real"))


@pytest.fixture
def corpus(finished_corpus) -> Path:
    return finished_corpus


@pytest.fixture(scope="session")
def finished(tmp_path_factory):
    """finished(root): a copy of that corpus (the fixtures' or the real one), dated long ago."""
    made = {}

    def copy(root: Path) -> Path:
        if root not in made:
            made[root] = finished_copy(root, tmp_path_factory.mktemp("corpus"))
        return made[root]

    return copy
