"""Blame on the real corpus (issue 25): every file a real session wrote with Write and then
changed with Edits is rebuilt from the log's own inputs, applied to text in order
(blame_sessions.rebuild), and put in a checkout named as the session's folder; blame must name
for each line the turn of the last edit that wrote it, and a line changed by hand reads
"changed since". A commit a real turn made is found by its hash."""

import pytest
from blame_sessions import rebuild
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile, records
from nodwyn.memory.cards.fold import call_input
from nodwyn.memory.provenance import commits, ledgers
from nodwyn.memory.provenance.blame import blame
from nodwyn.tasks.store import Store


@pytest.fixture(scope="module")
def imported(tmp_path_factory, finished_corpus) -> Store:
    store = Store(tmp_path_factory.mktemp("blame") / "data")
    for tool, folder in (("claude", "claude"), ("claude", "extra/claude"), ("codex", "codex")):
        import_paths(store, tool, [finished_corpus / folder])
    memory.refresh_words(store)
    return store


def steps_of(store: Store, task: str) -> tuple[str, dict[str, list]]:
    """The task's folder, and per file the Write and Edit steps that succeeded, each with its
    turn."""
    project, turn, calls, steps = "", 0, {}, {}
    for _, _, record in logfile.read(store.log_path(task)):
        if isinstance(record, records.SessionStart):
            project = record.project
        elif isinstance(record, records.Message) and record.agent is None:
            turn = record.seq
        elif isinstance(record, records.Reply):
            for call in record.calls:
                calls[call.id] = (turn, call.tool, call_input(call.input))
        elif isinstance(record, records.Result) and record.call in calls and not record.error:
            at, tool, data = calls.pop(record.call)
            path = data.get("file_path")
            if tool == "Write" and isinstance(data.get("content"), str):
                steps.setdefault(path, []).append((at, "write", "", data["content"]))
            elif tool == "Edit" and not data.get("replace_all") and path in steps:
                steps[path].append((at, "edit", data.get("old_string", ""), data["new_string"]))
    return project, steps


def rebuilt_files(store: Store, into) -> list[tuple[str, object, list]]:
    """(task, file here, each line's turn) for every file written and then edited twice or
    more in one task and in no other."""
    book, out = ledgers.book(store), []
    for task in sorted(book.ledgers):
        project, steps = steps_of(store, task)
        for path, done in steps.items():
            edited = sum(1 for step in done if step[1] == "edit")
            others = {t for t, e in book.edits.get(ledgers.name_of(path), ()) if e.path == path}
            if edited < 2 or others != {task} or not path.startswith(project + "/"):
                continue
            content, origins = rebuild(done)
            here = into / task / project.rstrip("/").rsplit("/", 1)[-1] / path[len(project) + 1 :]
            here.parent.mkdir(parents=True, exist_ok=True)
            here.write_text(content, encoding="utf-8")
            out.append((task, here, origins))
    return out


def test_every_rebuilt_line_is_the_turn_of_the_last_edit_that_wrote_it(imported, tmp_path):
    files = rebuilt_files(imported, tmp_path)
    assert len(files) >= 3, "the corpus has files written then edited"
    lines = 0
    for task, here, origins in files:
        done = blame(imported, here)
        for line, turn in zip(done.lines, origins, strict=True):
            origin = done.origins[line.origin] if line.origin is not None else None
            assert line.status == "session", (here, line)
            assert (origin.task, origin.turn_seq) == (task, turn), (here, line.line, line.text)
            lines += 1
    assert lines >= 100


def test_a_rebuilt_line_changed_by_hand_reads_changed_since(imported, tmp_path):
    task, here, origins = rebuilt_files(imported, tmp_path)[0]
    lines = here.read_text().splitlines()
    at = next(n for n, line in enumerate(lines) if len(line.strip()) > 10)
    lines[at] = lines[at] + "  # changed by hand"
    here.write_text("\n".join(lines) + "\n")
    line = blame(imported, here).lines[at]
    assert line.status == "changed since" and line.origin is not None


def test_a_commit_a_real_turn_made_is_found_by_its_hash(imported):
    book = ledgers.book(imported)
    made = [(task, c) for task, (_, held) in book.ledgers.items() for c in held.commits]
    assert made, "the corpus holds `[branch sha] message` lines"
    for task, commit in made[:10]:
        found = commits.find(imported, commit.sha).found
        assert any(f.origin.task == task and f.origin.turn_seq == commit.turn for f in found)
        assert all(f.how == "commit line" for f in found)
