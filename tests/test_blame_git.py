"""Blame checked against git (issue 36): the pager session (tests/blame_sessions.py, edits on
2026-11-20 from 10:00) imported, its file committed in a real git repository in tmp_path;
lines git dates before an edit, a repository elsewhere with the same path, a commit made days
later, a line changed inside, turns counted as people count them, and bad input refused."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from blame_sessions import PROJECT, applied, pager_session
from corpus_writers import Claude, dump, use
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.memory.provenance import commits, ledgers
from nodwyn.memory.provenance.blame import blame
from nodwyn.tasks.store import Store

BEFORE, AFTER, DAYS_LATER = "2026-11-19T09:00:00Z", "2026-11-20T11:00:00Z", "2026-11-27T09:00:00Z"


def imported(tmp_path: Path, data_dir: Path, *sessions: Claude) -> Store:
    for n, session in enumerate(sessions):
        source = tmp_path / "claude" / "-home-ana-pager" / f"{n}.jsonl"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_bytes(b"".join(dump(line) for line in session.lines))
        os.utime(source, (946684800, 946684800))  # finished long ago
    store = Store(data_dir)
    import_paths(store, "claude", [tmp_path / "claude"])
    memory.refresh_words(store)
    ledgers._books.clear()
    return store


def committed(folder: Path, name: str, content: str, when: str, message: str = "work") -> str:
    """The file written into the repository at `folder` and committed at `when`."""
    git = ["git", "-C", str(folder), "-c", "user.name=A", "-c", "user.email=a@b.c"]
    if not (folder / ".git").exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([*git, "init", "-q"], check=True)
    (folder / name).write_text(content, encoding="utf-8")
    subprocess.run([*git, "add", name], check=True)
    env = {"GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when, "PATH": os.environ["PATH"]}
    subprocess.run([*git, "commit", "-q", "-m", message], check=True, env=env)
    return subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


def claimed(store: Store, file: Path) -> list[int]:
    return [line.line for line in blame(store, file).lines if line.origin is not None]


def test_lines_git_dates_before_the_session_are_no_sessions(tmp_path, data_dir):
    store = imported(tmp_path, data_dir, pager_session())
    content, _ = applied()
    early = tmp_path / "early" / "pager"
    committed(early, "pages.py", content, BEFORE)
    assert claimed(store, early / "pages.py") == []  # committed the day before any edit
    late = tmp_path / "late" / "pager"
    committed(late, "pages.py", content, AFTER)
    done = blame(store, late / "pages.py")
    assert done.git and len(claimed(store, late / "pages.py")) == len(content.splitlines())


def test_a_repository_elsewhere_with_the_same_path_gets_no_claim(tmp_path, data_dir):
    store = imported(tmp_path, data_dir, pager_session())
    other = tmp_path / "myapp"
    committed(other, "pages.py", applied()[0], AFTER)
    assert claimed(store, other / "pages.py") == []


def test_a_commit_made_days_later_is_found_by_its_lines_and_one_by_hand_by_none(tmp_path, data_dir):
    store = imported(tmp_path, data_dir, pager_session())
    repo = tmp_path / "src" / "pager"
    content = applied()[0]
    sha = committed(repo, "pages.py", content, DAYS_LATER)
    answer = commits.find(store, sha, repo)
    assert answer.found and {found.how for found in answer.found} == {"lines"}
    assert {found.origin.turn for found in answer.found} <= {1, 2, 3}
    by_hand = committed(repo, "pages.py", content + "print('a line no session wrote')\n",
                        DAYS_LATER.replace("27", "28"))  # fmt: skip
    assert commits.find(store, by_hand, repo).found == []
    run = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "commit", by_hand]
    done = subprocess.run(run, capture_output=True, text=True, cwd=repo)
    assert done.returncode == 1 and "no session's edit is among its lines" in done.stdout


def test_turns_are_counted_as_people_count_them_and_the_record_number_is_in_json(
    tmp_path, data_dir
):
    imported(tmp_path, data_dir, pager_session())
    repo = tmp_path / "src" / "pager"
    committed(repo, "pages.py", applied()[0], AFTER)
    run = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "blame",
           str(repo / "pages.py")]  # fmt: skip
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "1st turn" in text and "2nd turn" in text and "3rd turn" in text
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True).stdout)
    numbers = {(o["turn"], o["turn_seq"]) for o in data["origins"]}
    assert {n for n, _ in numbers} == {1, 2, 3} and all(seq > n for n, seq in numbers)
    assert data["git"] is True


def test_a_line_an_edit_changed_inside_reads_changed_by_its_turn(tmp_path, data_dir):
    session = pager_session()
    session.prompt("Rename load to read_pages everywhere")
    path = PROJECT + "/pages.py"
    session.reply("msg_r", use("t_r", "Edit", file_path=path, old_string="load(",
                               new_string="read_pages(", replace_all=True))  # fmt: skip
    session.result("t_r", "The file has been updated.", {"type": "update"})
    store = imported(tmp_path, data_dir, session)
    repo = tmp_path / "src" / "pager"
    content = applied()[0].replace("load(", "read_pages(")
    committed(repo, "pages.py", content, AFTER)
    done = blame(store, repo / "pages.py")
    (line,) = [line for line in done.lines if "read_pages(" in line.text]
    assert line.status == "changed by" and done.origins[line.origin].turn == 4


@pytest.mark.parametrize("kind", ["binary", "device", "fifo", "folder", "huge"])
def test_bad_input_is_refused_in_one_line_without_reading_it(tmp_path, data_dir, kind):
    imported(tmp_path, data_dir, pager_session())
    path = tmp_path / "input"
    if kind == "binary":
        path.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(range(128, 256)) * 40)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        with path.open("wb") as handle:
            handle.truncate(50_000_000)  # sparse: 50 MB that takes no room
    run = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "blame", str(path)]
    started = time.monotonic()
    done = subprocess.run([*run, "-L", "1,5"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert time.monotonic() - started < 10


def test_a_file_rewritten_by_hand_keeps_the_lines_git_carries_from_the_sessions_version(
    tmp_path, data_dir
):
    """Every line but the blank ones rewritten by hand days later: git blame carries the blank
    lines the session's edit put there from the commit holding its version, and so does blame;
    the blank line older than the session stays no session's."""
    store = imported(tmp_path, data_dir, notes_session())
    repo = tmp_path / "src" / "pager"
    committed(repo, "notes.md", NOTES, BEFORE)
    committed(repo, "notes.md", NOTES + PLAN, AFTER)
    assert claimed(store, repo / "notes.md") == [4, 5, 6, 7, 8, 9]
    by_hand = ("# Notes, kept by hand\n\nthe intro was rewritten by a person\n\n## The plan as I "
               "see it\n\n- step one, reworded\n\n- step two, reworded\n")  # fmt: skip
    committed(repo, "notes.md", by_hand, DAYS_LATER)
    done = blame(store, repo / "notes.md")
    assert [line.line for line in done.lines if line.origin is not None] == [4, 6, 8]
    assert {done.origins[0].turn} == {1}


NOTES = "# Notes\n\nintro paragraph about the notes file\n"
PLAN = ("\n## Plan written by the session\n\n- the first step the session wrote down\n\n"
        "- the second step the session wrote down\n")  # fmt: skip


def notes_session() -> Claude:
    """A session of /home/ana/pager that adds a plan under the notes' first lines."""
    c = Claude("5e55a0e1-0000-4000-8000-00000000a002", PROJECT, "2.1.20", "2026-11-20")
    c.prompt("Add a plan to the notes")
    c.reply("msg_p", use("t_p", "Edit", file_path=PROJECT + "/notes.md", old_string=NOTES,
                         new_string=NOTES + PLAN))  # fmt: skip
    c.result("t_p", "The file has been updated.", {"type": "update", "originalFile": NOTES})
    return c


def test_a_checkout_under_another_name_is_told_by_git_and_a_lookalike_is_not(tmp_path, data_dir):
    """The folder's name is not the session's: a checkout whose history holds the notes as the
    session found them is its project; a repository with the same path that holds the lines
    the session wrote, but never the text it found, is not."""
    store = imported(tmp_path, data_dir, notes_session())
    copy = tmp_path / "checkouts" / "pager-review"
    committed(copy, "notes.md", NOTES, BEFORE)
    committed(copy, "notes.md", NOTES + PLAN, AFTER)
    assert claimed(store, copy / "notes.md") == [4, 5, 6, 7, 8, 9]
    lookalike = tmp_path / "myapp"
    committed(lookalike, "notes.md", "# Other notes\n" + PLAN, AFTER)
    assert claimed(store, lookalike / "notes.md") == []
    plain = tmp_path / "plain" / "pager-review"  # the same files, no git: the name rule alone
    plain.mkdir(parents=True)
    (plain / "notes.md").write_text(NOTES + PLAN, encoding="utf-8")
    assert claimed(store, plain / "notes.md") == []
