"""The tray when a live session needs your answer: a badge with the count, a menu line that
opens the task, and a desktop notification naming the agent, the folder and what it asks,
which opens the task at its last event when clicked (a stand-in notify-send prints the action
a person's click gives); none when notifications are off."""

import os

os.environ["PYSTRAY_BACKEND"] = "dummy"  # before pystray loads (through nodwyn.desktop.tray)

import json  # noqa: E402
import stat  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402
from importing import SESSION, session, write  # noqa: E402
from nodwyn import settings  # noqa: E402
from nodwyn.desktop import answers  # noqa: E402
from nodwyn.importers.sync import import_paths  # noqa: E402
from nodwyn.live.events import Line  # noqa: E402
from test_tray import app, click  # noqa: E402, F401 (the tray's own app fixture)

TASK = "cc-" + SESSION
ASKED = {"session_id": SESSION, "cwd": "/home/ana/pager", "hook_event_name": "PermissionRequest",
         "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}  # fmt: skip


@pytest.fixture
def notify_send(tmp_path, monkeypatch):
    """A notify-send that notes what it was asked and answers as a click on "Open" does."""
    said = tmp_path / "notified.jsonl"
    script = tmp_path / "notify-send"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> {said}\necho open\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(answers, "NOTIFY_SEND", str(script))
    return said


def until(probe, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := probe():
            return value
        time.sleep(0.02)
    return probe()


def hear(app, payload: dict) -> None:
    app.server.app.board.note(Line(agent="claude", payload=payload, at=time.time()))


def test_a_session_asking_badges_the_icon_and_its_menu_line_opens_the_task(app, tmp_path,
                                                                           notify_send):  # fmt: skip
    import_paths(app.store, "claude", [write(tmp_path / "c" / "s.jsonl", session())])
    plain = app.icon.icon.tobytes()
    hear(app, ASKED)
    assert app.icon.icon.tobytes() != plain  # the badge
    assert "1 session needs your answer" in app.icon.title
    words = "Needs your answer: Claude Code in pager: Bash: rm -rf build"
    click(app, words)
    assert until(lambda: any(json.dumps(TASK) in s for s in app.window.scripts))
    notified = until(lambda: notify_send.exists() and notify_send.read_text())
    assert "Needs your answer Claude Code in pager: Bash: rm -rf build" in notified
    last = app.store.get(TASK)  # the click on "Open" opens the task at its last event
    assert until(lambda: sum(json.dumps(TASK) in s for s in app.window.scripts) == 2)
    assert last is not None and "'seq'" in app.window.scripts[-1]
    hear(app, ASKED | {"hook_event_name": "PostToolUse"})  # answered
    assert app.icon.icon.tobytes() == plain
    assert words not in [item.text for item in app.icon.menu.items]


def test_no_notification_when_the_person_turned_them_off(app, notify_send):
    settings.update(app.store.root, notify_answers=False)
    hear(app, ASKED)
    assert "1 session needs your answer" in app.icon.title
    # a notification is started inside hear(), in a thread of its own: none was
    assert not any(t.name == "nodwyn-notify" for t in threading.enumerate())
    assert not notify_send.exists()
