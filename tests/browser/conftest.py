"""Browser tests: Debian's Chromium driven by Playwright against `nodwyn serve` on a free port.

Each test gets its own data directory (the autouse fixture) with the demo tasks, and its own
server process, so tests that rename, archive or delete never see each other's changes.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="package")
def browser():
    """One Chromium for the browser tests (Playwright's own browser download is never used).

    Package scope: Playwright's sync API runs an event loop in this thread while it lives,
    which other tests' asyncio code (the MCP tests) would trip over.
    """
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Debian's Chromium is missing at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh context per test (its own localStorage), at a desktop window's size."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    # a deadline for each event, not a wait: on CI's two cores the server beside the page
    # encodes the demo's turns with the sentence model, and a key press once took over 10 s
    context.set_default_timeout(20000)
    yield context.new_page()
    context.close()


class Served:
    """A running `nodwyn serve`: its page URL and its data directory."""

    def __init__(self, url: str, root: Path):
        self.url, self.root = url, root

    def at(self, **state) -> str:
        return self.url + "".join(f"&{key}={value}" for key, value in state.items())


@contextlib.contextmanager
def serve(*extra: str, root: Path, log: Path):
    """`nodwyn serve` in a subprocess until the block ends; its stderr goes to `log`."""
    with open(log, "w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "nodwyn.cli", "serve", "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        with process:
            try:
                line = process.stdout.readline()
                found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
                if not found:
                    pytest.fail(f"nodwyn serve printed no URL: {line!r} {log.read_text()}")
                # keep the pipe drained so the server never blocks on a full pipe
                drain = threading.Thread(target=process.stdout.read, daemon=True)
                drain.start()
                yield Served(found.group(0), root)
            finally:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:  # killed, so the teardown never hangs on it
                    process.kill()
                    process.wait()
                    pytest.fail(f"nodwyn serve outlived its SIGTERM by 30 s: {log.read_text()}")


@pytest.fixture(scope="session")
def encoded_demo(tmp_path_factory) -> Path:
    """The demo's tasks with their memory, word index and vectors made once for the session.
    A served demo copied from it starts with nothing left to encode, so a page's search ranks
    as it does once the background encoding is done, whatever the machine's load (the demo
    made anew by each `serve --demo` was encoded while the test searched: another ranking
    while meaning covered only part of it, and a model starting beside the page)."""
    from nodwyn import memory
    from nodwyn.tasks import demo

    root = demo.demo_dir(tmp_path_factory.mktemp("demo-made") / "data")
    memory.refresh(demo.make_demo(root))
    return root


@pytest.fixture
def served(data_dir, tmp_path, encoded_demo):
    shutil.copytree(encoded_demo, data_dir / "demo")  # `--demo` adds only the tasks missing
    with serve("--demo", root=data_dir / "demo", log=tmp_path / "serve.log") as server:
        yield server


@pytest.fixture
def served_empty(data_dir, tmp_path):
    with serve(root=data_dir, log=tmp_path / "serve.log") as server:
        yield server


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def open_tool_calls(page) -> None:
    """Open every folded run of tool calls in the transcript, as a person clicks each row."""
    runs = page.locator("details.run:not([open]) > summary")
    while runs.count():
        runs.first.click()
