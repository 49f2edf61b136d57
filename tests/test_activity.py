"""The archive's activity (issue 48): tasks, turns, active days, cost and cache share, turns by
day and by weekday and hour, and the top tasks, from the turn cards, as usage's figures are."""

import datetime as dt

from nodwyn.log import records as r
from nodwyn.tasks.store import Store
from nodwyn.usage import activity, figures


def local(at: str) -> dt.datetime:
    return dt.datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone()


def test_the_archives_activity_is_counted_from_its_cards(tmp_path):
    store = Store(tmp_path)
    usage = r.Usage(input=10, output=5, cache_read=80, cache_write=10)
    days = ["2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z", "2026-03-09T10:00:00Z"]
    for task, agent, ats in (("A", "codex", days[:2]), ("B", "claude-code", days[2:])):
        start = r.SessionStart(project="/p", origin=r.Origin(tool=agent))
        with store.create(start, task) as w:
            for at in ats:
                w.append([r.Message(text="go", at=at),
                          r.Reply(text="done", usage=usage, cost_usd=0.5, model="m", at=at),
                          r.TurnEnd(status="completed", duration_ms=60000, at=at)])  # fmt: skip
    a = activity.activity(store)
    assert (a.tasks, a.turns, a.active_days) == (2, 3, 2)
    assert a.cost_usd == 1.5 == figures.report(store).total.cost_usd  # the overview's totals agree
    assert a.cache_read / a.input_tokens == 0.8
    assert [(c.key, c.turns, c.tasks) for c in a.days] == [
        (local(days[0]).date().isoformat(), 2, ["A"]),
        (local(days[2]).date().isoformat(), 1, ["B"]),
    ]
    when = local(days[0])
    assert f"{when.weekday()}-{when.hour}" in {c.key for c in a.hours}
    assert [(t.task, t.value) for t in a.by_turns] == [("A", 2), ("B", 1)]
    assert [(t.task, t.value) for t in a.by_duration] == [("A", 120000), ("B", 60000)]
    assert a.by_cost[0].agent == "codex"


def test_an_empty_archive_has_no_activity(tmp_path):
    a = activity.activity(Store(tmp_path))
    assert (a.tasks, a.turns, a.days, a.first_day) == (0, 0, [], "")
