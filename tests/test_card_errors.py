"""A card's errors say what failed (issue 48): the line that names the failure with the exit
code, each once; over the real corpus, no error is a banner line such as pdfTeX's."""

import json
from pathlib import Path

import pytest
from corpora import REAL
from nodwyn import memory
from nodwyn.log import records as r
from nodwyn.memory.cards import failures

PDFTEX = """This is pdfTeX, Version 3.141592653-2.6-1.40.25 (TeX Live 2023)
 restricted \\write18 enabled.
entering extended mode
(./paper.tex
! Undefined control sequence.
l.42 \\nnz
Output written on paper.pdf"""
TRACEBACK = """Traceback (most recent call last):
  File "x.py", line 1, in <module>
    import nope
ModuleNotFoundError: No module named 'nope'"""


@pytest.mark.parametrize(
    ("output", "line"),
    [
        (PDFTEX, "! Undefined control sequence."),
        (TRACEBACK, "ModuleNotFoundError: No module named 'nope'"),
        (
            "building\nsrc/a.c:3: error: expected ';'\nmake: *** [all] Error 1",
            "src/a.c:3: error: expected ';'",
        ),
        ("<tool_use_error>File does not exist.</tool_use_error>", "File does not exist."),
        ("step one\nstep two", "step two"),
        (
            "\x1b[31mFAIL\x1b[0m TestPagerOrder (0.01s)\nok  pager 0.2s",
            "FAIL TestPagerOrder (0.01s)",
        ),
        ("", ""),
    ],
)
def test_the_failing_line_is_the_one_that_says_what_failed(output, line):
    assert failures.failing_line(output) == line


def test_a_cards_errors_name_the_exit_and_say_each_failure_once(tmp_path):
    from nodwyn.tasks.store import Store

    store = Store(tmp_path)
    start = r.SessionStart(project="/p", origin=r.Origin(tool="claude-code"))
    calls = [
        r.Call(id=f"c{n}", tool="Bash", input={"command": "pdflatex paper.tex"}) for n in range(4)
    ]
    with store.create(start, "T") as writer:
        writer.append([r.Message(text="build the paper"), r.Reply(calls=calls)])
        writer.append(
            [r.Result(call=f"c{n}", tool="Bash", output=PDFTEX, exit=1) for n in range(4)]
        )
        writer.append([r.Reply(text="It fails."), r.TurnEnd(status="completed")])
    [card] = memory.turn_cards(store, "T")
    assert card.errors == ["Bash (exit 1): ! Undefined control sequence."]


@pytest.mark.corpus
def test_no_card_of_the_real_corpus_names_a_banner_as_its_error(tmp_path, monkeypatch):
    import sys

    from nodwyn.tasks.store import Store

    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "data"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import eval_search

    monkeypatch.setattr(eval_search, "CORPUS", REAL)
    store = Store()
    eval_search.imported(store, tmp_path / "shelf")
    errors = [
        e
        for info in store.list(archived=None)
        for c in memory.turn_cards(store, info.id)
        for e in c.errors
    ]
    assert errors
    assert not [e for e in errors if "This is pdfTeX" in e]
    for info in store.list(archived=None):
        for card in memory.turn_cards(store, info.id):
            assert len(card.errors) == len(set(card.errors)), json.dumps(card.errors)
