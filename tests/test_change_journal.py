"""The change journal: a search looks only at the logs writers said they changed, and at every
log when the journal cannot be trusted, when asked, or when the periodic full check is due."""

import os
import subprocess
import sys
import time

import pytest
from memory_logs import turn, write
from nodwyn import memory
from nodwyn.log import journal
from nodwyn.log import records as r
from nodwyn.memory.words import changes
from nodwyn.memory.words import index as wordindex
from nodwyn.tasks.store import Store


def found(store: Store, words: str) -> set[str]:
    return {hit.task for hit in memory.search(store, words, mode="words").turns}


def append_behind_nodwyns_back(store: Store, task: str, seq: int, text: str) -> None:
    """A line added by something other than nodwyn (a restore, an editor): no note."""
    line = f'{{"kind":"message","seq":{seq},"at":"2026-11-29T10:09:00.000Z","text":"{text}"}}\n'
    with open(store.log_path(task), "a", encoding="utf-8") as handle:
        handle.write(line)


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(tmp_path / "data")
    for number in range(20):
        write(store, f"t{number:02d}", turn(f"configure pager number {number}"))
    return store


_listings: list[list] = []  # where the audit hook notes listings of folders, while a test looks


def _audit(event: str, args: tuple) -> None:
    if _listings and event in ("os.scandir", "os.listdir"):
        _listings[-1].append(_folder(args[0] if args else None))


def _folder(given) -> object:
    """The folder listed: a path as given, or the open folder a descriptor stands for (its
    device and inode, which StatsOfLogs.listings compares with the sessions folder's)."""
    if given is None:
        return "."
    if isinstance(given, int):
        found = os.fstat(given)
        return (found.st_dev, found.st_ino)
    return os.fspath(given)


sys.addaudithook(_audit)  # a real audit hook: it stays for the session, idle when unused


class StatsOfLogs:
    """Notes the task logs os.stat is called on while installed (os.stat itself answers), and
    each listing of the sessions folder (through Python's audit hooks)."""

    def __init__(self, monkeypatch, store: Store):
        self.logs: set[str] = set()
        self._listed: list = []
        monkeypatch.setitem(globals(), "_listings", [self._listed])  # given back at the end
        real, sessions = os.stat, str(store.sessions)
        self.sessions = sessions

        def counted(path, *args, **kwargs):
            name = os.fspath(path) if not isinstance(path, int) else ""
            if isinstance(name, str) and name.startswith(sessions) and name.endswith(".jsonl"):
                self.logs.add(os.path.basename(name))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(os, "stat", counted)

    @property
    def listings(self) -> int:
        """Listings of the sessions folder so far."""
        folder_id = (os.lstat(self.sessions).st_dev, os.lstat(self.sessions).st_ino)
        return sum(1 for folder in self._listed if folder in (self.sessions, folder_id))


def test_a_search_after_no_change_looks_at_no_log(store, monkeypatch):
    assert len(found(store, "pager")) == 20
    stats = StatsOfLogs(monkeypatch, store)
    assert len(found(store, "pager")) == 20
    assert stats.logs == set() and stats.listings == 0


def test_a_search_after_one_change_looks_at_that_log_alone(store, monkeypatch):
    found(store, "pager")
    write(store, "t07", turn("rename the quokka handler"))
    stats = StatsOfLogs(monkeypatch, store)
    assert found(store, "quokka") == {"t07"}
    assert stats.logs == {"t07.jsonl"} and stats.listings == 0


def test_a_new_process_after_no_change_looks_at_no_log(store):
    found(store, "pager")
    script = (
        "import os, sys; from nodwyn import memory; from nodwyn.tasks.store import Store\n"
        "store = Store(sys.argv[1]); real = os.stat; calls = []\n"
        "def counted(path, *a, **k):\n"
        "    if str(path).endswith('.jsonl'): calls.append(path)\n"
        "    return real(path, *a, **k)\n"
        "os.stat = counted\n"
        "hits = memory.search(store, 'pager', mode='words').turns\n"
        "print(len(hits), len(calls))"
    )
    done = subprocess.run([sys.executable, "-c", script, str(store.root)], capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    assert done.stdout.split() == ["20", "0"]


def test_deleting_a_task_is_noted_and_the_search_leaves_it_out(store):
    found(store, "pager")
    store.delete("t03")
    assert "t03" not in found(store, "pager")
    assert "t03" not in wordindex.load_state(store.root).tasks


def test_a_log_changed_behind_nodwyns_back_is_found_by_a_full_check(store):
    found(store, "pager")
    append_behind_nodwyns_back(store, "t05", 5, "the wombat came back")
    assert found(store, "wombat") == set()  # no note: the journal is trusted until...
    wordindex.refresh(store, full=True)  # ...the app's start, or the periodic check
    assert found(store, "wombat") == {"t05"}


def test_the_periodic_full_check_finds_a_change_behind_nodwyns_back(store, monkeypatch):
    found(store, "pager")
    append_behind_nodwyns_back(store, "t05", 5, "the wombat came back")
    monkeypatch.setattr(changes, "FULL_EVERY_NS", 0)  # as if ten minutes had gone by
    assert found(store, "wombat") == {"t05"}


def test_a_note_that_is_not_a_task_id_makes_the_next_search_check_every_log(store):
    found(store, "pager")
    append_behind_nodwyns_back(store, "t05", 5, "the wombat came back")
    with open(journal.path_of(store.root), "ab") as handle:
        handle.write(b"\x00\xff half a note\n")  # a torn write, after a crash of the machine
    assert found(store, "wombat") == {"t05"}


def test_a_note_being_written_is_read_once_it_is_whole(store):
    found(store, "pager")
    write(store, "t09", turn("rename the quokka handler"))
    with open(journal.path_of(store.root), "ab") as handle:
        handle.write(b"t0")  # another writer's note, half written
    assert found(store, "quokka") == {"t09"}
    with open(journal.path_of(store.root), "ab") as handle:
        handle.write(b"2\n")
    write(store, "t02", [r.Message(text="and the ocelot")], project="/work/p")
    assert found(store, "ocelot") == {"t02"}


def test_a_journal_past_its_limit_starts_anew_and_readers_check_every_log(store, monkeypatch):
    found(store, "pager")
    before = journal.since(store.root, "", 0)[0]
    append_behind_nodwyns_back(store, "t05", 5, "the wombat came back")
    monkeypatch.setattr(journal, "LIMIT", 200)
    for _ in range(10):
        write(store, "t01", turn("more words"))
    assert journal.path_of(store.root).stat().st_size <= 200 + 40
    assert journal.since(store.root, "", 0)[0] != before
    assert found(store, "wombat") == {"t05"}


def test_a_removed_journal_makes_the_next_search_check_every_log(store):
    found(store, "pager")
    append_behind_nodwyns_back(store, "t05", 5, "the wombat came back")
    journal.path_of(store.root).unlink()
    assert found(store, "wombat") == {"t05"}


NOTER = """
import sys
from pathlib import Path
from nodwyn.log import journal
root, name = Path(sys.argv[1]), sys.argv[2]
for number in range(400):
    journal.note(root, f"{name}-{number:04d}")
"""


def test_notes_of_processes_writing_at_once_are_whole_lines(tmp_path):
    journal.start(journal.path_of(tmp_path))
    writers = [
        subprocess.Popen([sys.executable, "-c", NOTER, str(tmp_path), f"w{n}"]) for n in range(4)
    ]
    assert all(writer.wait(timeout=60) == 0 for writer in writers)
    first_line = journal.path_of(tmp_path).read_bytes().index(b"\n") + 1
    generation = journal.since(tmp_path, "", 0)[0]
    _, _, noted = journal.since(tmp_path, generation, first_line)
    assert noted == {f"w{n}-{i:04d}" for n in range(4) for i in range(400)}


def test_the_change_feed_lists_no_log_while_the_journal_says_nothing_changed(store, monkeypatch):
    from nodwyn.background import feed

    changes_feed = feed.Feed(store.sessions, feed.Status(), interval=0.0)
    version = changes_feed.wait(0, 0).version
    stats = StatsOfLogs(monkeypatch, store)
    assert changes_feed.wait(version, 0).tasks == []
    assert stats.listings == 0
    write(store, "t04", turn("rename the quokka handler"))
    assert changes_feed.wait(version, 0).tasks == ["t04"]
    assert stats.listings == 1


def test_the_change_feed_finds_a_change_behind_nodwyns_back_at_its_next_full_look(
    store, monkeypatch
):
    from nodwyn.background import feed

    changes_feed = feed.Feed(store.sessions, feed.Status(), interval=0.0)
    version = changes_feed.wait(0, 0).version
    append_behind_nodwyns_back(store, "t05", 5, "the wombat came back")
    assert changes_feed.wait(version, 0).tasks == []  # no note: trusted for FULL_EVERY
    monkeypatch.setattr(feed, "FULL_EVERY", 0.0)
    assert changes_feed.wait(version, 0).tasks == ["t05"]


def test_a_watched_change_feed_looks_only_after_a_notification(store):
    from nodwyn.background import feed

    changes_feed = feed.Feed(store.sessions, feed.Status(), interval=0.05)
    version = changes_feed.wait(0, 0).version
    changes_feed.watched()
    write(store, "t06", turn("rename the quoll handler"))  # noted in the journal, no stir()
    began = time.monotonic()
    assert changes_feed.wait(version, 0.6).tasks == []  # a polling feed would have looked
    assert time.monotonic() - began >= 0.6
    changes_feed.stir()
    assert changes_feed.wait(version, 5).tasks == ["t06"]
