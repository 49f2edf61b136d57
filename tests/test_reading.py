"""Reading a task (issue 17): Markdown as safe trees, edits as diffs, terminal colours, the
exports, the agent's resume command and starred turns, on a log written here."""

import json
import re
import shutil
from html.parser import HTMLParser

import pytest
from nodwyn import memory
from nodwyn.errors import BadInput
from nodwyn.reading import ansi, edits, markdown, resume, shown
from nodwyn.reading import export as export_module
from nodwyn.reading.export import export
from nodwyn.tasks import starred
from nodwyn.tasks.store import Store
from reading_logs import COLOURED, HOSTILE, PATCH, REPLY, TASK, write_reading_log


def tags(nodes) -> set[str]:
    out = set()
    for node in nodes:
        if isinstance(node, list):
            out |= {node[0]} | tags(node[2:])
    return out


def attrs(nodes) -> list[dict]:
    out = []
    for node in nodes:
        if isinstance(node, list):
            out += [node[1], *attrs(node[2:])]
    return out


def elements(html: str) -> list[tuple[str, list]]:
    """Every start tag of a page with its attributes, as a browser's parser sees them."""
    found = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    Parser().feed(html)
    return found


def test_a_reply_with_a_table_a_task_list_and_code_becomes_its_elements():
    nodes = markdown.tree(REPLY)
    assert {"h2", "strong", "table", "th", "td", "ul", "li", "input", "pre", "code", "a"} <= tags(
        nodes
    )
    assert markdown.plain(nodes).count("tie-break on id") == 1
    kinds = {a.get("class") for a in attrs(nodes)}
    assert "hl-k" in kinds  # `func` and `return` highlighted as keywords
    assert "align-right" in kinds
    boxes = [a for a in attrs(nodes) if a.get("type") == "checkbox"]
    assert [box["checked"] for box in boxes] == [True, False]


def test_hostile_markdown_is_text_links_only_http_and_no_image_is_an_image():
    nodes = markdown.tree(HOSTILE)
    text = markdown.plain(nodes)
    assert "<script>window.pwned = 1</script>" in text  # raw HTML stays its own text
    assert '<img src="http://127.0.0.1:9/tracker.png"' in text
    assert "img" not in tags(nodes) and "script" not in tags(nodes)
    hrefs = [a["href"] for a in attrs(nodes) if "href" in a]
    assert hrefs == ["http://127.0.0.1:9/chart.png"]  # the image's address as a link, never fetched
    assert "[image: a chart]" in text
    assert "javascript:" in text and "data:text/html" in text  # said, not linked
    assert tags(nodes) <= markdown.TAGS


def test_code_in_an_unknown_language_stays_plain_text():
    nodes = markdown.tree("```no-such-language\nx = 1\n```")
    assert nodes == [
        ["pre", {"class": "code", "data-lang": "no-such-language"}, ["code", {}, "x = 1"]]
    ]


def test_claude_edit_multiedit_and_write_read_as_diffs():
    diff = edits.diff_of(
        "Edit", {"file_path": "a.go", "old_string": "a\nb\nc", "new_string": "a\nB\nc"}
    )
    [file] = diff["files"]
    assert (file["path"], file["added"], file["removed"]) == ("a.go", 1, 1)
    assert [line[:2] for line in file["hunks"][0]["lines"]] == [
        [" ", "a"],
        ["-", "b"],
        ["+", "B"],
        [" ", "c"],
    ]
    both = [{"old_string": "x", "new_string": "y"}, {"old_string": "p", "new_string": "q"}]
    multi = edits.diff_of("MultiEdit", {"file_path": "a.go", "edits": both})
    assert len(multi["files"][0]["hunks"]) == 2
    write = edits.diff_of("Write", {"file_path": "n.go", "content": "package n\n\nfunc A() {}"})
    assert [line[3] for line in write["files"][0]["hunks"][0]["lines"]] == [
        1,
        2,
        3,
    ]  # new line numbers


def test_a_codex_patch_reads_as_one_diff_per_file():
    diff = edits.diff_of("apply_patch", PATCH)
    assert [(f["path"], f["op"], f["added"], f["removed"]) for f in diff["files"]] == [
        ("pager/order.go", "update", 1, 1),
        ("pager/order_test.go", "add", 1, 0),
    ]
    assert diff["files"][0]["hunks"][0]["head"] == "func less(a, b Page) bool {"


def test_an_edit_of_a_shape_no_reader_knows_is_left_as_its_input():
    assert edits.diff_of("Edit", "not a dict") is None
    assert edits.diff_of("Bash", {"command": "ls"}) is None
    assert edits.diff_of("apply_patch", "no patch here") is None


def test_terminal_colours_become_runs_and_other_escapes_go():
    assert ansi.runs(COLOURED)[:2] == [
        ["ansi-b ansi-31", "FAIL"],
        ["", " TestPagerOrder (0.01s)\n"],
    ]
    assert ansi.plain("\x1b]0;title\x07a\x1b[2Kb\x1b[38;5;200mc\x1b[0m") == "abc"
    assert "\x1b" not in "".join(text for _, text in ansi.runs("\x1b[38;2;1;2;3mx\x1b[K"))


def test_the_transcript_window_carries_trees_diffs_and_runs(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    window = shown.window(store, TASK, None, 0, 0)
    by_seq = {event["seq"]: event for event in window.events}
    assert "table" in tags(by_seq[7]["md"])
    assert [call.get("diff") is not None for call in by_seq[3]["calls"]] == [True, True, False]
    assert by_seq[6]["ansi"][0] == ["ansi-b ansi-31", "FAIL"]
    assert by_seq[6]["output"] == COLOURED  # the record itself is unchanged beside them
    assert "strong" in tags(by_seq[9]["md"])


def test_a_task_exports_as_markdown_with_its_diffs_and_output(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    text = export(store, TASK, "md")
    assert text.startswith("# Fix the flaky TestPagerOrder\n")
    assert "| equal stamps | tie-break on id |" in text  # the reply's own Markdown
    assert "```diff\n--- pager/order.go\n+++ pager/order.go\n@@ func less" in text
    assert "FAIL TestPagerOrder" in text and "\x1b" not in text
    turns = re.findall(r"^\*.* · (\$\d+\.\d\d|no usage in the log|no price for .+)\*$", text, re.M)
    assert turns  # each turn's cost, as the board and the MCP cards say it (issue 35)
    heads = re.findall(r"^## (Turn .*)$", text, re.M)
    assert heads[:2] == ["Turn 1 of 2", "Turn 2 of 2"]  # as people count them, not records
    assert re.search(r"^\*turn 1 of 2 · ", text, re.M) and "turn seq" not in text
    one = export(store, TASK, "md", turn=10)
    assert "Now show me something odd" in one and "TestPagerOrder (0.01s)" not in one


def test_a_task_exports_as_one_html_file_that_needs_nothing_else(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    html = export(store, TASK, "html")
    assert html.startswith("<!doctype html>") and "<style>" in html
    assert "<table" in html and 'class="hl-k"' in html and 'class="diff-del"' in html
    seen = elements(html)
    assert not {"script", "img", "link", "iframe", "object"} & {tag for tag, _ in seen}
    names = {name for _, found in seen for name, _ in found}
    assert "src" not in names and not any(name.startswith("on") for name in names)
    assert all(
        value.startswith(("http", "mailto"))
        for _, found in seen
        for name, value in found
        if name == "href"
    )
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html
    assert 'href="https://go.dev/ref/spec#Order_of_evaluation"' in html


def test_an_export_of_a_seq_that_starts_no_turn_is_refused(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    with pytest.raises(BadInput, match="no prompt"):
        export(store, TASK, "md", turn=3)
    with pytest.raises(BadInput, match="formats"):
        export(store, TASK, "pdf")


def test_an_export_hides_a_secret_as_everywhere(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    key = "sk-ant-api03-" + "x" * 40
    store.star(TASK, 2, note=f"the key was {key}")
    assert key not in export(store, TASK, "md") and key not in export(store, TASK, "html")


def test_the_resume_command_is_the_agents_own_in_the_tasks_folder(data_dir, tmp_path):
    store = Store(data_dir)
    source = tmp_path / "5f1c0de0.jsonl"
    source.write_text("{}\n")
    write_reading_log(data_dir, source)
    found = resume.command(store, TASK)
    assert (
        found.command
        == "cd /home/ana/src/pager && claude --resume 5f1c0de0-aaaa-bbbb-cccc-000000000001"
    )
    source.unlink()
    gone = resume.command(store, TASK)
    assert gone.command == "" and "log is gone" in gone.reason


@pytest.mark.parametrize(
    ("origin", "words"),
    [
        ("codex", "codex resume 5f1c0de0-"),
        ("gemini-cli", "gemini --resume 5f1c"),
        ("aider", "aider --restore"),
    ],
)
def test_each_agent_resumes_with_its_own_words(data_dir, origin, words):
    write_reading_log(data_dir, origin=origin)
    assert words in resume.command(Store(data_dir), TASK).command


def test_an_agent_with_no_resume_command_says_why(data_dir):
    write_reading_log(data_dir, origin="cursor")
    found = resume.command(Store(data_dir), TASK)
    assert found.command == "" and "Cursor" in found.reason


def test_a_starred_turn_is_listed_with_its_note_and_unstarred_again(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    store.star(TASK, 2, note="the  ordering   fix")
    [turn] = starred.listing(store)
    assert (turn.task, turn.turn, turn.note, turn.asked) == (
        TASK,
        2,
        "the ordering fix",
        "Fix the flaky TestPagerOrder",
    )
    assert starred.of_task(store, TASK) == {2: "the ordering fix"}
    store.star(TASK, 2, starred=False)
    assert starred.listing(store) == []


def test_only_a_persons_prompt_can_be_starred(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    with pytest.raises(BadInput, match="no person's prompt"):
        store.star(TASK, 3)
    with pytest.raises(BadInput, match="events 1 to"):
        store.star(TASK, 999)


def test_a_bookmark_survives_deleting_every_derived_file_and_is_found_by_its_note(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    store.star(TASK, 10, note="zebra crossing idea")
    for derived in [
        *data_dir.glob("*.json*"),
        *store.sessions.glob("*.mem"),
        *store.sessions.glob("*.idx"),
    ]:
        derived.unlink()
    shutil.rmtree(data_dir / "index", ignore_errors=True)
    [turn] = starred.listing(Store(data_dir))
    assert (turn.turn, turn.note) == (10, "zebra crossing idea")
    found = memory.search(Store(data_dir), "zebra crossing", mode="words")
    assert [(t.task, t.first_seq) for t in found.turns] == [(TASK, 10)]


def test_starring_is_no_activity_and_the_cards_stay_as_they_were(data_dir):
    store = Store(data_dir)
    write_reading_log(data_dir)
    before = (
        store.get(TASK).last_activity,
        [(c.first_seq, c.last_seq) for c in memory.turn_cards(store, TASK)],
    )
    store.star(TASK, 10, note="later")
    after = (
        store.get(TASK).last_activity,
        [(c.first_seq, c.last_seq) for c in memory.turn_cards(store, TASK)],
    )
    assert after == before


def test_the_cli_exports_prints_the_resume_command_and_stars(data_dir, tmp_path, capsys):
    from nodwyn.cli import main

    write_reading_log(data_dir, tmp_path / "deleted-by-the-agent.jsonl")
    out = tmp_path / "task.html"
    assert main(["export", TASK, "--format", "html", "-o", str(out)]) == 0
    assert out.read_text().startswith("<!doctype html>")
    assert main(["star", TASK, "2", "--note", "keep"]) == 0
    assert main(["starred"]) == 0
    assert f"{TASK}  turn 2" in capsys.readouterr().out
    assert main(["resume-command", TASK]) == 1  # the agent deleted its own log
    assert "log is gone" in capsys.readouterr().err
    assert json.loads(json.dumps(starred.of_task(Store(data_dir), TASK))) == {"2": "keep"}


def test_the_html_export_reads_as_a_person_would_in_local_time(data_dir, monkeypatch):
    """Issue 37: the times in this computer's zone (India's, +05:30, here) with the zone said,
    the agent by its name, and each call with its command or file beside the tool."""
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        store = Store(data_dir)
        write_reading_log(data_dir)
        html = export(store, TASK, "html")
        text = export(store, TASK, "md")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    at = html.find("2026-11-29T10:00")
    assert at < 0 and "#2 · 2026-11-29 15:30<" in html
    assert "(times in UTC+05:30)" in html and "· Claude Code ·" in html
    assert "claude-code" not in html.split("<body>")[1].split("</header>")[0]
    assert '<strong>Bash</strong><code class="call-line">go test ./pager</code>' in html
    assert "**Bash** `go test ./pager`" in text and "· Claude Code ·" in text


def test_a_calls_line_is_its_command_file_or_query_in_every_agents_spelling():
    line = export_module.call_line
    assert line({"input": {"command": "ls", "description": "list"}}) == "ls"
    assert line({"input": {"cmd": ["bash", "-lc", "go test ./..."]}}) == "bash -lc go test ./..."
    assert line({"input": {"CommandLine": "npm run build", "Cwd": "/w"}}) == "npm run build"
    assert line({"input": {"AbsolutePath": "/w/a.py", "StartLine": 1}}) == "/w/a.py"
    assert line({"input": {"filePath": "/w/b.ts"}}) == "/w/b.ts"
    assert line({"input": {"command": "view", "path": "/w/c.go"}}) == "view /w/c.go"
    assert line({"input": "echo one\necho two"}) == "echo one"
    code = 'const r = await tools.exec_command({"cmd":"pwd && printf \'\\\\n\'","workdir":"/w"});'
    assert line({"tool": "exec", "input": code}) == "pwd && printf '\\n'"
    assert line({"input": {"todos": []}}) == "" and line({"input": None}) == ""
    patch = {"tool": "apply_patch", "input": PATCH}
    assert line(patch, edits.diff_of("apply_patch", PATCH)) == "pager/order.go, pager/order_test.go"
