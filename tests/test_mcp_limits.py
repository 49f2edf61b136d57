"""What a model sends over MCP is checked before it is read (issue 38): every argument's type,
and inputs over their limits cut with a word or refused, over a real MCP connection. Nothing
a model sent comes back whole."""

import time

import pytest
from mcp_client import call, server, talk
from nodwyn.log import logfile, records
from nodwyn.mcp.answer import LIMIT
from nodwyn.mcp.toolbox import ARGUMENTS, QUERY_MAX
from nodwyn.summarizing import recording
from nodwyn.tasks.store import Store
from test_mcp_name_task import make_task, titles

TEN_MB = 10_000_000


def calls(tmp_path, task: str, *given: tuple[str, dict]) -> list[tuple[bool, str, float]]:
    """Each call's (is_error, text, seconds), in one connection."""

    async def script(session):
        answers = []
        for name, arguments in given:
            started = time.perf_counter()
            error, text = await call(session, name, **arguments)
            answers.append((error, text, time.perf_counter() - started))
        return answers

    return talk(server(tmp_path, {"NODWYN_SESSION": task}), script)


@pytest.fixture
def task(tmp_path, data_dir) -> str:
    return make_task(Store(), str(tmp_path), "the login page keeps failing with a redirect loop")


def test_a_ten_megabyte_query_is_cut_and_the_answer_says_so_without_echoing_it(tmp_path, task):
    query = "login " + "x" * TEN_MB
    [_, (error, text, seconds), (_, found, _)] = calls(
        tmp_path, task, ("index-search", {"query": "login"}),  # the index and model loaded
        ("index-search", {"query": query}),
        ("index-search", {"query": "login " * 400 + "redirect"}),
    )  # fmt: skip
    assert not error and len(text) < 1_000 and "xxxx" not in text
    assert f"cut to its first 5 of {len(query):,} characters" in text
    print(f"a 10 MB query answered in {seconds:.2f} s")  # the figure in ADR 0043
    # a long query of words is cut at a word (995 = 166 words), and still finds the turn
    assert (
        f"cut to its first 995 of 2,408 characters: a search reads at most {QUERY_MAX:,}" in found
    )
    assert "this conversation · " in found and len(found) < LIMIT + 200


def test_nothing_found_quotes_the_query_cut_short(tmp_path, task):
    [(error, text, _)] = calls(tmp_path, task, ("index-search", {"query": "zebra " * 150}))
    assert not error and text.startswith("Nothing in this conversation matches 'zebra zebra")
    assert "…'" in text and len(text) < 300


TYPE_CASES = [
    ("index-search", {"query": 5}, "query must be text, not a number"),
    ("index-search", {"query": ["login"]}, "query must be text, not a list"),
    ("index-search", {"query": "login", "scope": 1}, "scope must be text"),
    ("recall", {"seq": "3"}, "seq must be a whole number, not text"),
    ("recall", {"seq": True}, "seq must be a whole number, not true or false"),
    ("recall", {"seq": 1, "task": 7}, "task must be text"),
    ("name-task", {"title": {"a": 1}}, "title must be text, not an object"),
    ("record-summary", {"text": 4, "level": "digest"}, "text must be text"),
    ("record-summary", {"text": "Done.", "level": 2}, "level must be text"),
    ("who-wrote", {"file": 3, "start": 1}, "file must be text"),
    ("who-wrote", {"file": "a.py", "start": "1"}, "start must be a whole number"),
    ("who-wrote", {"file": "a.py", "start": 1, "end": 2.5}, "end must be a whole number"),
]


@pytest.mark.parametrize(("name", "arguments", "said"), TYPE_CASES)
def test_every_argument_of_the_wrong_type_is_refused_by_name(tmp_path, task, name, arguments,
                                                              said):  # fmt: skip
    [(error, text, _)] = calls(tmp_path, task, (name, arguments))
    assert error and text.startswith(said), text


def test_the_cases_cover_every_argument_of_every_tool():
    wrong = {(name, key) for name, arguments, _ in TYPE_CASES for key, value in arguments.items()
             if not isinstance(value, ARGUMENTS[name][key]) or isinstance(value, bool)}  # fmt: skip
    assert wrong == {(name, key) for name, keys in ARGUMENTS.items() for key in keys}


def test_a_summary_over_its_limit_is_recorded_cut_and_the_answer_says_so(tmp_path, task):
    text = "The pager now keeps a ring buffer. " * 300_000
    [(error, said, _)] = calls(tmp_path, task, ("record-summary",
                                                {"text": text, "level": "digest"}))  # fmt: skip
    assert not error and "Recorded this task's digest" in said
    kept = len(text.strip()[: recording.LIMIT].rstrip())
    assert f"cut to its first {kept:,} of {len(text.strip()):,} characters" in said
    assert len(said) < 300
    [summary] = [r for _, _, r in logfile.read(Store().log_path(task))
                 if isinstance(r, records.Summary)]  # fmt: skip
    assert len(summary.text) == kept <= recording.LIMIT


def test_a_title_over_its_limit_is_cut_and_the_answer_says_so(tmp_path, task):
    [(error, said, _)] = calls(tmp_path, task, ("name-task", {"title": "Fix the pager " * 1000}))
    assert not error and "(cut to 119 of 13,999 characters: a name is 3-7 words)" in said
    assert len(titles(Store(), task)[0][0]) == 119


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("who-wrote", {"file": "a/" * 2_500, "start": 1}, "file is at most 4,096 characters"),
        ("recall", {"seq": 1, "task": "t" * TEN_MB}, "task is at most 200 characters"),
        ("record-summary", {"text": "Done.", "level": "d" * TEN_MB}, "level is at most 100"),
        ("index-search", {"query": "login", "scope": "s" * 1000}, "scope is at most 100"),
        ("name-task", {"title": "x", "y" * TEN_MB: 1}, "name-task takes title; not yyy"),
    ],
)
def test_a_name_a_path_or_an_unknown_argument_over_its_limit_is_refused_not_echoed(
    tmp_path, task, name, arguments, said
):
    [(error, text, _)] = calls(tmp_path, task, (name, arguments))
    assert error and text.startswith(said) and len(text) < 300, text[:300]
