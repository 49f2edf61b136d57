"""`nodwyn import gemini|copilot|antigravity [PATH...]` and `nodwyn sessions --agent NAME`
(issue 18), run as a person runs them, against the agents' folders moved under tmp_path."""

import json
import os

from test_cli import nodwyn

OLD = 1_600_000_000


def gemini_home(home):
    chats = home / ".gemini" / "tmp" / "pager" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text("/home/ana/pager")
    doc = {"sessionId": "5e55104e-2", "projectHash": "ab", "startTime": "2026-05-01T10:00:00.000Z",
           "lastUpdated": "2026-05-01T10:00:00.000Z",
           "messages": [{"id": "u1", "timestamp": "2026-05-01T10:00:00.000Z", "type": "user",
                         "content": [{"text": "Sort the pangolins"}]}]}  # fmt: skip
    path = chats / "session-2026-05-01T10-00-5e55104e.json"
    path.write_text(json.dumps(doc))
    os.utime(path, (OLD, OLD))


def test_import_gemini_reads_gemini_s_own_folder_by_default(agents_home):
    gemini_home(agents_home)  # GEMINI_CLI_HOME is agents_home (tests/conftest.py)
    done = nodwyn("import", "gemini")
    assert "\n1 created, 0 extended, 0 unchanged, 0 skipped" in "\n" + done.stdout
    assert "\n0 created, 0 extended, 1 unchanged" in "\n" + nodwyn("import", "gemini").stdout


def test_sessions_agent_lists_only_that_agent_s_tasks(agents_home, tmp_path):
    gemini_home(agents_home)
    nodwyn("import", "gemini")
    assert "Sort the pangolins" in nodwyn("sessions", "--agent", "gemini").stdout
    assert "pangolins" not in nodwyn("sessions", "--agent", "copilot").stdout
    (listed,) = json.loads(nodwyn("sessions", "--agent", "gemini", "--json").stdout)
    assert listed["origin"] == "gemini-cli" and listed["project"] == "/home/ana/pager"


def test_an_agent_nodwyn_does_not_know_is_refused_with_the_names_it_knows():
    done = nodwyn("sessions", "--agent", "notepad", check=False)
    assert done.returncode == 1 and "use one of claude, codex, gemini" in done.stderr
    done = nodwyn("import", "notepad", check=False)
    assert done.returncode == 2 and "antigravity" in done.stderr


def test_a_file_of_another_agent_is_skipped_with_its_reason(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "session.start", "data": {"sessionId": "x"}, "id": "e0"}\n')
    done = nodwyn("import", "gemini", str(path))
    assert "skipped" in done.stdout and "not a Gemini CLI session" in done.stdout
