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
from test_live_hooks import until  # noqa: E402
from test_tray import app as tray_app  # noqa: E402, F401 (its app fixture)
from test_tray import click  # noqa: E402

TASK = "cc-" + SESSION
ASKED = {"session_id": SESSION, "cwd": "/home/ana/pager", "hook_event_name": "PermissionRequest",
         "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}  # fmt: skip


@pytest.fixture
def desk(tray_app):  # noqa: F811 (the fixture imported above)
    """The tray's own app (test_tray's fixture): a real server and worker, a stand-in window."""
    return tray_app


@pytest.fixture
def notify_send(tmp_path, monkeypatch):
    """A notify-send that notes what it was asked and answers as a click on "Open" does."""
    said = tmp_path / "notified.jsonl"
    script = tmp_path / "notify-send"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> {said}\necho open\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(answers, "NOTIFY_SEND", str(script))
    return said


def hear(desk, payload: dict) -> None:
    desk.server.app.board.note(Line(agent="claude", payload=payload, at=time.time()))


def test_a_session_asking_badges_the_icon_and_its_menu_line_opens_it(desk, tmp_path, notify_send):
    import_paths(desk.store, "claude", [write(tmp_path / "c" / "s.jsonl", session())])
    plain = desk.icon.icon.tobytes()
    hear(desk, ASKED)
    assert desk.icon.icon.tobytes() != plain  # the badge
    assert "1 session needs your answer" in desk.icon.title
    words = "Needs your answer: Claude Code in pager: Bash: rm -rf build"
    click(desk, words)
    assert until(lambda: any(json.dumps(TASK) in s for s in desk.window.scripts))
    notified = until(lambda: notify_send.exists() and notify_send.read_text())
    assert "Needs your answer Claude Code in pager: Bash: rm -rf build" in notified
    last = desk.store.get(TASK)  # the click on "Open" opens the task at its last event
    assert until(lambda: sum(json.dumps(TASK) in s for s in desk.window.scripts) == 2)
    assert last is not None and "'seq'" in desk.window.scripts[-1]
    hear(desk, ASKED | {"hook_event_name": "PostToolUse"})  # answered
    assert desk.icon.icon.tobytes() == plain
    assert words not in [item.text for item in desk.icon.menu.items]


def test_no_notification_when_the_person_turned_them_off(desk, notify_send):
    settings.update(desk.store.root, notify_answers=False)
    hear(desk, ASKED)
    assert "1 session needs your answer" in desk.icon.title
    # a notification is started inside hear(), in a thread of its own: none was
    assert not any(t.name == "nodwyn-notify" for t in threading.enumerate())
    assert not notify_send.exists()
