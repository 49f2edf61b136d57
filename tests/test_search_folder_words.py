"""Content above a mere path match (issue 48): a word of the query that names a task's folder
lifts that task's events only when they hold another word asked for, so the folder's own
paths ("test" in sat-test-app) no longer rank above the turn about a flaky test."""

import sys
from pathlib import Path

import pytest
from corpora import REAL
from nodwyn import memory
from nodwyn.log import records as r
from nodwyn.tasks.store import Store


def task(store, name, project, text):
    start = r.SessionStart(project=project, origin=r.Origin(tool="claude-code"))
    with store.create(start, name) as w:
        w.append([r.Message(text="look"), r.Reply(text=text)])


def test_a_folder_word_alone_lifts_nothing_and_with_another_word_still_does(tmp_path):
    store = Store(tmp_path)
    task(store, "paths", "/home/ana/sat-test-app", "listed /home/ana/sat-test-app/index.html")
    task(store, "plain", "/home/ana/web", "listed /home/ana/web/test/index.html")
    task(store, "flaky", "/home/ana/pager", "the flaky test fails one run in five")
    for n in range(10):
        task(store, f"filler{n}", f"/home/ana/f{n}", f"a run {n} of the site")
    scores = {t.task: t.score for t in memory.search(store, "flaky test", mode="words").turns}
    assert max(scores, key=scores.get) == "flaky"
    assert scores["paths"] <= scores["plain"] < scores["flaky"]  # its folder's word: no lift
    # a word of the folder still lifts its task when the event holds another word asked for
    found = memory.search(store, "pager flaky", mode="words").turns
    assert found[0].task == "flaky" and found[0].score > 2 * scores["flaky"] / 3


@pytest.mark.corpus
def test_on_the_real_corpus_the_flaky_test_turn_ranks_above_the_test_folders_paths(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("NODWYN_DATA_DIR", str(tmp_path / "data"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import eval_search

    monkeypatch.setattr(eval_search, "CORPUS", REAL)
    store = Store()
    eval_search.imported(store, tmp_path / "shelf")
    found = memory.search(store, "flaky test", memory.Where(limit=10), mode="words").turns
    assert "flaky" in " ".join(found[0].events[0].lines).lower()
    top = [t.project for t in found[:5]]
    assert not [p for p in top if p.endswith("sat-test-app")], top
