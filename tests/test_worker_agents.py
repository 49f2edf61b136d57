"""The background worker following the agents of issue 18 in folders of their own (the
autouse `agents_home` moves ~/.gemini and ~/.copilot under tmp_path): a Gemini session
rewritten whole and a Copilot session appended to, as the agents do while they run."""

import json
import os

import pytest
from nodwyn import settings
from nodwyn.background.feed import Status
from nodwyn.background.worker import Worker
from nodwyn.log import logfile
from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from test_worker import eventually

SESSION = "5e55104e-0000-4000-8000-00000000beef"
TASK = "gm-" + SESSION


@pytest.fixture
def worker(data_dir):
    worker = Worker(Store(data_dir), Status(), interval=0.2)
    yield worker
    worker.stop(timeout=30)


def gemini_file(home, prompts: list[str]):
    chats = home / ".gemini" / "tmp" / "pager" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    (chats.parent / ".project_root").write_text("/home/ana/pager")
    messages = []
    for n, text in enumerate(prompts):
        messages.append({"id": f"u{n}", "timestamp": f"2026-05-01T10:0{n}:00.000Z", "type": "user",
                         "content": [{"text": text}]})  # fmt: skip
        messages.append({"id": f"g{n}", "timestamp": f"2026-05-01T10:0{n}:09.000Z",
                         "type": "gemini", "content": f"Done: {text}"})  # fmt: skip
    doc = {"sessionId": SESSION, "projectHash": "ab", "startTime": "2026-05-01T10:00:00.000Z",
           "lastUpdated": "2026-05-01T10:09:00.000Z", "messages": messages}  # fmt: skip
    path = chats / f"session-2026-05-01T10-00-{SESSION[:8]}.json"
    path.write_text(json.dumps(doc, indent=2))  # rewritten in place, as Gemini CLI does
    return path


def messages(store: Store) -> list[str]:
    if not store.exists(TASK):
        return []
    return [e.text for _o, _e, e in logfile.read(store.log_path(TASK)) if isinstance(e, r.Message)]


def test_a_gemini_session_rewritten_whole_is_followed_without_doubling(agents_home, worker):
    gemini_file(agents_home, ["Fix the pager"])
    worker.start()
    assert eventually(lambda: messages(worker.store) == ["Fix the pager"], timeout=30)
    assert worker.store.get(TASK).project == "/home/ana/pager"
    passes = worker.passes
    gemini_file(agents_home, ["Fix the pager", "Now the tests"])
    worker.wake()
    assert worker.wait_for_pass(passes, timeout=30)
    assert eventually(
        lambda: messages(worker.store) == ["Fix the pager", "Now the tests"], timeout=30
    )


def test_an_agent_switched_off_in_settings_is_not_followed(agents_home, worker, data_dir):
    settings.update(data_dir, follow={"gemini": False})
    gemini_file(agents_home, ["Fix the pager"])
    worker.start()
    assert worker.wait_for_pass(0, timeout=30)
    assert not worker.store.exists(TASK)


def test_a_copilot_session_appended_to_is_followed_turn_by_turn(agents_home, worker):
    folder = agents_home / ".copilot" / "session-state" / "c0ffee00"
    folder.mkdir(parents=True)
    path = folder / "events.jsonl"
    (folder / "workspace.yaml").write_text("id: c0ffee00\nname: Pager work\n")
    start = {"sessionId": "c0ffee00", "copilotVersion": "1.0.60", "context": {"cwd": "/home/ana"}}

    def append(n: int, kind: str, **data):
        at = f"2026-05-02T10:00:0{n}.000Z"
        line = {"type": kind, "data": data, "id": f"e{n}", "timestamp": at,
                "parentId": f"e{n - 1}" if n else None}  # fmt: skip
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")

    append(0, "session.start", **start)
    append(1, "user.message", content="List the armadillos")
    worker.start()

    def named():
        return worker.store.exists("cp-c0ffee00") and worker.store.get("cp-c0ffee00").title

    assert eventually(lambda: named() == "Pager work", timeout=30)
    append(2, "user.message", content="And the pangolins")
    os.utime(path)
    worker.wake()
    assert eventually(lambda: worker.store.get("cp-c0ffee00").turns == 2, timeout=30)
