"""One app per data directory: the handshake between a running app and a second launch.

The first process here is a small Python program holding the real claim (instance.claim) and
writing each request it is asked into a file; the second is the real `nodwyn app` command.
"""

import os
import socket
import subprocess
import sys
import textwrap
import time

import msgspec
import pytest
from nodwyn.background import instance

FIRST = textwrap.dedent(
    """
    import sys, pathlib
    from nodwyn.background import instance
    root, heard = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    claim = instance.claim(root)
    assert claim is not None, "the first process could not claim the data directory"
    claim.serve(lambda request: heard.open("a").write(request + "\\n"))
    print("ready", flush=True)
    sys.stdin.read()  # until the test closes our stdin
    claim.close()
    """
)


@pytest.fixture
def first(data_dir, tmp_path):
    data_dir.mkdir(parents=True, exist_ok=True)
    heard = tmp_path / "heard.txt"
    process = subprocess.Popen(
        [sys.executable, "-c", FIRST, str(data_dir), str(heard)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "ready"
    yield process, heard
    process.stdin.close()
    process.wait(timeout=10)
    process.stdout.close()


def launch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", "app", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_second_launch_brings_the_first_window_forward_and_exits(first):
    process, heard = first
    started = time.monotonic()
    second = launch()
    assert second.returncode == 0, second.stderr
    assert "already running" in second.stdout
    assert heard.read_text() == "show\n"
    assert process.poll() is None, "the first process must keep running"
    assert time.monotonic() - started < 30


def test_a_second_launch_with_search_asks_for_the_search_box(first):
    _, heard = first
    assert launch("--search").returncode == 0
    assert heard.read_text() == "search\n"


def test_a_request_without_the_secret_is_not_answered(first, data_dir):
    _, heard = first
    handoff = msgspec.json.decode(instance.handoff_path(data_dir).read_bytes())
    with socket.create_connection(("127.0.0.1", handoff["port"]), timeout=5) as conn:
        conn.sendall(b"not-the-secret show\n")
        assert conn.recv(16) == b""  # closed without a word
    assert not heard.exists()


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX; Windows keeps it per user")
def test_the_secret_is_readable_by_its_owner_only(first, data_dir):
    assert instance.handoff_path(data_dir).stat().st_mode & 0o777 == 0o600


def test_the_claim_is_free_again_once_the_first_process_is_gone(first, data_dir):
    process, _ = first
    assert instance.claim(data_dir) is None
    process.kill()  # a crash: nothing cleans up, the system drops the lock
    process.wait(timeout=10)
    claim = instance.claim(data_dir)
    assert claim is not None
    claim.close()


def test_asking_when_nobody_answers_says_so(data_dir):
    data_dir.mkdir(parents=True, exist_ok=True)
    with pytest.raises(instance.NotAnswered, match="does not answer"):
        instance.ask(data_dir, "show", wait=0.5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is Linux's")
def test_a_first_launch_without_a_display_says_so_and_leaves_no_claim(data_dir, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    done = launch()
    assert done.returncode == 1
    assert "no display to open a window on" in done.stderr and "nodwyn serve" in done.stderr
    assert not instance.handoff_path(data_dir).exists()
    claim = instance.claim(data_dir)
    assert claim is not None
    claim.close()
