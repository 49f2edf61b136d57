"""`nodwyn serve --follow`: the page served with the app's own worker following the agents'
folders, for a dev server, a container or a test; one follower a data directory."""

import json
import subprocess
import sys
import time
import urllib.request

from importing import session as claude_session
from importing import write as write_lines

TASK = "cc-11111111-2222-3333-4444-555555555555"


def tasks(url: str) -> list[str]:
    base, token = url.split("/?token=")
    request = urllib.request.Request(base + "/api/tasks", headers={"X-Nodwyn-Token": token})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return [task["id"] for task in json.load(answer)["tasks"]]


def test_a_served_page_follows_the_agents_folders_and_a_second_follower_is_refused(
    tmp_path, data_dir, monkeypatch
):
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (claude / "projects").mkdir(parents=True)
    command = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir)]
    command += ["serve", "--follow"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        try:
            url = serve.stdout.readline().split(" at ")[1].strip()
            write_lines(claude / "projects" / "-home-ana-pager" / "s.jsonl", claude_session())
            deadline = time.monotonic() + 60
            while TASK not in tasks(url) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert TASK in tasks(url)  # written after the start: followed, not read once
            second = subprocess.run(command, capture_output=True, text=True, timeout=60)
            assert second.returncode == 1
            assert "already follows" in second.stderr
        finally:
            serve.terminate()
            serve.wait(timeout=60)
