"""Which turn wrote each line (issue 25): sessions written here in Claude Code's shape (a Write,
then Edits of the same file, a commit, a rename), imported, and the file they leave rebuilt by
applying the edits to text, in order (tests/blame_sessions.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from blame_sessions import EDITS, FULL, PROMPTS, SHA, applied, pager_session
from corpus_writers import dump
from nodwyn import memory
from nodwyn.errors import BadInput
from nodwyn.importers.sync import import_paths
from nodwyn.memory.provenance import commits, ledger, ledgers
from nodwyn.memory.provenance.blame import blame
from nodwyn.tasks.store import Store


@pytest.fixture
def pager(tmp_path, data_dir) -> tuple[Store, Path]:
    """The session imported, and its file on this machine: pages.py in a checkout named as the
    session's folder was (pager), on another path, after the session's `git mv`."""
    source = tmp_path / "claude" / "-home-ana-pager" / "5e55a0e1.jsonl"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"".join(dump(line) for line in pager_session().lines))
    store = Store(data_dir)
    import_paths(store, "claude", [tmp_path / "claude"])
    memory.refresh_words(store)
    checkout = tmp_path / "src" / "pager"
    checkout.mkdir(parents=True)
    content, _ = applied()
    (checkout / "pages.py").write_text(content, encoding="utf-8")
    return store, checkout / "pages.py"


def turn_of_prompt(store: Store, origin) -> str:
    return origin.asked


def test_every_line_is_the_turn_of_the_last_edit_that_wrote_it(pager):
    store, file = pager
    _, expected = applied()
    done = blame(store, file)
    assert [line.status for line in done.lines] == ["session"] * len(expected)
    for line, want in zip(done.lines, expected, strict=True):
        origin = done.origins[line.origin]
        prompt = PROMPTS[0] if want == -1 else PROMPTS[EDITS[want][0]]
        assert origin.asked == prompt, (line.line, line.text)
        assert origin.agent == "claude-code" and origin.model.startswith("claude")
        assert origin.tool == ("Write" if want == -1 else ("Edit", "MultiEdit", "MultiEdit",
                                                            "Edit")[want])  # fmt: skip


def test_a_line_changed_by_hand_reads_changed_since_with_the_edit_that_wrote_it(pager):
    store, file = pager
    lines = file.read_text().splitlines()
    at = lines.index("    return sorted(numbered, key=lambda p: p.number)")
    lines[at] = "    return sorted(numbered, key=lambda p: (p.number, p.name))"
    lines.insert(0, "# pager: orders pages")
    file.write_text("\n".join(lines) + "\n")
    done = blame(store, file)
    added, changed = done.lines[0], done.lines[at + 1]
    assert added.status == "not from a session" and added.origin is None
    assert changed.status == "changed since"
    assert done.origins[changed.origin].asked == PROMPTS[1]
    assert done.lines[at].status == "session"  # the line before it is still the edit's


def test_a_failed_edit_writes_nothing(pager):
    store, file = pager
    file.write_text(file.read_text() + "\ndef never_written():\n    pass\n")
    done = blame(store, file)
    assert [line.status for line in done.lines[-2:]] == ["not from a session"] * 2


def test_a_range_of_lines_is_blamed_alone_and_bad_ranges_are_refused(pager):
    store, file = pager
    done = blame(store, file, 3, 4)
    assert [line.line for line in done.lines] == [3, 4]
    with pytest.raises(BadInput, match="not in"):
        blame(store, file, 40, 50)
    with pytest.raises(BadInput, match="no file"):
        blame(store, file.with_name("gone.py"))


def test_a_commit_made_in_a_turn_is_found_by_its_short_and_its_whole_hash(pager):
    store, _ = pager
    for sha in (SHA, FULL, FULL[:10]):
        answer = commits.find(store, sha)
        (found,) = answer.found
        assert found.how == "commit line" and found.origin.asked == PROMPTS[2]
        assert found.sha == FULL and found.message == "Print pages by number"
    assert commits.find(store, "deadbeef").found == []
    with pytest.raises(BadInput):
        commits.find(store, "not-a-sha")


def test_a_commit_no_output_names_is_found_by_the_lines_it_added(tmp_path, data_dir, pager):
    store, file = pager
    repo = file.parent
    git = ["git", "-C", str(repo), "-c", "user.name=A", "-c", "user.email=a@b.c"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "pages.py"], check=True)
    env = {"GIT_COMMITTER_DATE": "2026-11-20T10:05:00Z", "GIT_AUTHOR_DATE": "2026-11-20T10:05:00Z",
           "PATH": "/usr/bin:/bin"}  # fmt: skip
    subprocess.run([*git, "commit", "-q", "-m", "by hand"], check=True, env=env)
    sha = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    answer = commits.find(store, sha.strip(), repo)
    assert answer.found and {found.how for found in answer.found} == {"lines"}
    assert answer.found[0].files == ["pages.py"] and answer.found[0].lines >= 2


def test_the_ledger_is_kept_beside_the_log_and_rebuilt_when_its_format_differs(pager):
    store, file = pager
    (log,) = store.sessions.glob("*.jsonl")
    saved = ledger.path_of(log)
    assert saved.read_bytes().startswith(ledger.MAGIC)
    saved.write_bytes(b"nodwyn-lines 0\nold")
    ledgers._books.clear()
    assert blame(store, file).edits == 4  # Write, Edit, MultiEdit, Edit: the failed one left out
    assert saved.read_bytes().startswith(ledger.MAGIC)


def test_moves_and_commits_are_read_from_shell_commands():
    assert ledger.moves_in("git mv a.py b.py && mv -f c d/") == [("a.py", "b.py"), ("c", "d/c")]
    assert ledger.moves_in("mv a b c/") == []  # several into a folder: not followed


def test_nodwyn_blame_prints_each_line_and_json(pager, data_dir):
    store, file = pager
    run = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "blame", str(file)]
    done = subprocess.run([*run, "-L", "1,3"], capture_output=True, text=True, check=True)
    assert f"asked '{PROMPTS[0]}'" in done.stdout and " 1) import sys" in done.stdout
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True).stdout)
    assert len(data["lines"]) == len(applied()[1]) and data["origins"][0]["turn"] == 1
    assert data["origins"][0]["turn_seq"] > 1  # the record number, beside the turn
    bad = subprocess.run([*run, "-L", "x"], capture_output=True, text=True)
    assert bad.returncode == 1 and "START,END" in bad.stderr and "Traceback" not in bad.stderr
    commit = [sys.executable, "-m", "nodwyn.cli", "--data-dir", str(data_dir), "commit", SHA]
    done = subprocess.run(commit, capture_output=True, text=True, cwd=file.parent)
    assert "(commit line)" in done.stdout and PROMPTS[2] in done.stdout
    assert ledgers.book(store).ledgers


def test_pasted_code_opens_the_turns_whose_edits_hold_it_with_the_lines_marked(pager):
    from nodwyn.memory.provenance.holders import Asked, holders

    store, file = pager
    code = "    for page in order(pages):\n        print(page.number, page.name)\n}\nnot in any log"
    found = holders(store, Asked(code=code))
    assert [held.origin.asked for held in found.turns] == [PROMPTS[2]]
    assert found.turns[0].lines == [0, 1]  # the brace is alone, the last line no edit's
    (line,) = holders(store, Asked(file=str(file), line=1)).turns
    assert line.origin.asked == PROMPTS[0] and line.lines == [1]
    with pytest.raises(BadInput, match="paste some code"):
        holders(store, Asked(code="  \n"))
