"""name-task over a real MCP connection: the model names its own task once, never over a name."""

import json

from mcp_client import call, server, talk
from nodwyn import cli
from nodwyn.log import logfile, records
from nodwyn.mcp.toolbox import tidy_title
from nodwyn.tasks.store import Store


def make_task(
    store: Store, project: str, text: str = "hey, so the login page keeps failing"
) -> str:
    start = records.SessionStart(project=project, origin=records.Origin(tool="claude-code"))
    with store.create(start) as writer:
        writer.append([records.Message(text=text), records.Reply(text="Looking at it.")])
        return writer.path.stem


def titles(store: Store, task: str) -> list[tuple[str, str]]:
    path = store.log_path(task)
    return [
        (record.title, record.actor)
        for _, _, record in logfile.read(path)
        if isinstance(record, records.SessionTitle)
    ]


def listed(capsys, task: str) -> dict:
    capsys.readouterr()
    assert cli.main(["sessions", "--json", "--all"]) == 0
    return next(item for item in json.loads(capsys.readouterr().out) if item["id"] == task)


def name_twice(tmp_path, task: str, first: str, second: str):
    async def script(session):
        return (
            await call(session, "name-task", title=first),
            await call(session, "name-task", title=second),
        )

    return talk(server(tmp_path, {"NODWYN_SESSION": task}), script)


def test_a_model_names_a_fresh_task_once_and_a_second_call_records_nothing(
    tmp_path, data_dir, capsys
):
    store = Store()
    task = make_task(store, str(tmp_path))
    (error1, text1), (error2, text2) = name_twice(
        tmp_path, task, '  "Fix   the login\nredirect loop."  ', "Another name entirely"
    )
    assert not error1 and "Fix the login redirect loop" in text1
    assert not error2 and "has a name already" in text2
    assert titles(store, task) == [("Fix the login redirect loop", "model")]
    shown = listed(capsys, task)
    assert (shown["title"], shown["title_by"]) == ("Fix the login redirect loop", "model")


def test_a_persons_later_rename_wins_and_an_empty_one_takes_the_models_name_back(
    tmp_path, data_dir, capsys
):
    store = Store()
    task = make_task(store, str(tmp_path))
    name_twice(tmp_path, task, "Fix the login redirect loop", "unused")
    assert cli.main(["rename", task, "Login bug"]) == 0
    assert listed(capsys, task)["title"] == "Login bug"
    assert cli.main(["rename", task, ""]) == 0
    shown = listed(capsys, task)
    assert (shown["title"], shown["title_by"]) == (
        "hey, so the login page keeps failing",
        "message",
    )


def test_a_task_a_person_named_is_left_alone(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    store.rename(task, "My own name")
    (error, text), _ = name_twice(tmp_path, task, "Model name here", "and again")
    assert not error and "has a name already" in text
    assert titles(store, task) == [("My own name", "person")]


def test_a_name_a_person_took_back_is_not_given_by_the_model(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    store.rename(task, "")
    (_, text), _ = name_twice(tmp_path, task, "Model name here", "and again")
    assert "has a name already" in text
    assert titles(store, task) == [("", "person")]


def test_an_empty_title_is_refused_and_the_model_is_told(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    (error1, text1), (error2, text2) = name_twice(tmp_path, task, "  \n ", '""')
    assert error1 and error2
    assert "empty" in text1 and "three to seven words" in text1
    assert titles(store, task) == []


def test_a_title_is_tidied_cut_to_120_characters_and_redacted(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))
    secret = "sk-ant-" + "a" * 30
    name_twice(tmp_path, task, f"Rotate {secret} " + "word " * 40, "x")
    [(title, actor)] = titles(store, task)
    assert actor == "model" and len(title) <= 120
    assert secret not in title and "[redacted]" in title


def test_titles_lose_quotes_a_final_full_stop_and_extra_whitespace():
    assert tidy_title(" “Fix  the\tpager.” ") == "Fix the pager"
    assert tidy_title("'Wait...'") == "Wait..."
    assert tidy_title("x" * 200) == "x" * 120
    assert tidy_title(" . ") == ""


def test_arguments_the_tool_does_not_take_are_refused_and_nothing_is_recorded(tmp_path, data_dir):
    store = Store()
    task = make_task(store, str(tmp_path))

    async def script(session):
        return await call(session, "name-task", label="Fix the pager")

    error, text = talk(server(tmp_path, {"NODWYN_SESSION": task}), script)
    assert error and "title" in text
    assert titles(store, task) == []
