"""Usage (issue 24): `nodwyn usage` and GET /api/usage give the same figures, made of the turn
cards; a turn with tokens and no price is "cost unknown", never free."""

import json

from nodwyn import api, memory
from nodwyn.log import records
from nodwyn.tasks import demo
from nodwyn.tasks.store import Store
from test_api import TOKEN, Client
from test_cli import nodwyn


def unpriced_task(store):
    start = records.SessionStart(
        project="/home/ana/src/gem", origin=records.Origin(tool="gemini-cli")
    )
    usage = records.Usage(input=1000, output=200)
    with store.create(start, "unpriced") as writer:
        reply = records.Reply(text="Seven.", model="gemini-2.5-pro", usage=usage)
        writer.append([records.Message(text="Count the pangolins"), reply])


def test_the_cli_prints_the_figures_the_page_reads(data_dir):
    store = demo.make_demo(data_dir)
    unpriced_task(store)
    client = Client(api.make_app(store, TOKEN))
    for by in ("day", "week", "month", "project", "model", "agent"):
        page = client.get(f"/api/usage?by={by}").json
        printed = json.loads(nodwyn("usage", "--by", by, "--json", data_dir=data_dir).stdout)
        assert printed == page, by
    assert (
        json.loads(nodwyn("usage", "--json", data_dir=data_dir).stdout)
        == client.get("/api/usage").json
    )


def test_the_totals_are_the_sum_of_the_cards_costs_and_tokens(data_dir):
    store = demo.make_demo(data_dir)
    unpriced_task(store)
    cards = [
        card for info in store.list(archived=None) for card in memory.turn_cards(store, info.id)
    ]
    report = Client(api.make_app(store, TOKEN)).get("/api/usage?by=project&split=agent").json
    total = report["total"]
    assert round(total["cost_usd"], 6) == round(sum(c.cost_usd or 0 for c in cards), 6)
    assert total["turns"] == len(cards)
    assert total["input"] == sum(c.tokens.input for c in cards)
    assert round(sum(row["cost_usd"] for row in report["rows"]), 6) == round(total["cost_usd"], 6)
    assert sum(row["turns"] for row in report["rows"]) == total["turns"]
    assert round(sum(s["cost_usd"] for s in total["split"]), 6) == round(total["cost_usd"], 6)
    gem = next(row for row in report["rows"] if row["key"] == "/home/ana/src/gem")
    assert gem["unpriced"] == 1 and gem["cost_usd"] == 0 and gem["input"] == 1000


def test_the_table_reads_like_ccusages_with_cost_unknown(data_dir, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # the full form (tests/test_cli_widths.py: narrower)
    unpriced_task(Store(data_dir))
    out = nodwyn("usage", "--by", "model", data_dir=data_dir).stdout
    lines = out.splitlines()
    assert lines[0].startswith("┌") and lines[-1].startswith("└")
    assert "│ Model " in lines[1] and "Total Tokens" in lines[1] and "Cost (USD)" in lines[1]
    row = next(line for line in lines if "gemini-2.5-pro" in line)
    assert "1,000" in row and "1,200" in row and "unknown" in row
    assert any(line.startswith("│ Total") for line in lines)


def test_a_bad_period_or_day_is_one_line(data_dir):
    done = nodwyn("usage", "--since", "yesterday", data_dir=data_dir, check=False)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "nodwyn: since is a day as YYYY-MM-DD or YYYYMMDD, not 'yesterday'"
    )
    assert nodwyn("usage", data_dir=data_dir).stdout.strip() == "No turns yet."


def test_a_report_kept_from_before_follows_a_turn_added_and_a_task_deleted(data_dir):
    """The figures a process keeps of each log (the overview asks two or three times a draw)
    are those of the log as it is now: a turn appended since counts, a deleted task does not."""
    from nodwyn.usage import figures as usage

    store = Store(data_dir)
    unpriced_task(store)
    assert usage.report(store, by="model").total.turns == 1
    more = records.Usage(input=500, output=50)
    with store.writer("unpriced") as writer:
        writer.append([records.Message(text="And the okapis?"),
                       records.Reply(text="Two.", model="gemini-2.5-pro", usage=more)])  # fmt: skip
    grown = usage.report(store, by="model").total
    assert (grown.turns, grown.input, grown.output) == (2, 1500, 250)
    store.close("unpriced")
    store.delete("unpriced")
    assert usage.report(store, by="model").total.turns == 0


def test_an_import_keeps_the_new_tasks_cards_so_usage_reads_no_log_and_says_the_same(
    data_dir, corpus
):
    """The import folds each new task's turn cards as it writes its log and keeps them in its
    `.mem`, and their figures in the usage file: the first `nodwyn usage` reads those, and says
    what it says once they are gone and each log is folded from its start."""
    from nodwyn.importers.sync import import_paths
    from nodwyn.usage import figures

    store = Store(data_dir)
    import_paths(store, "claude", [corpus / "claude"])
    import_paths(store, "codex", [corpus / "codex"])
    kept = {mem: mem.read_bytes() for mem in store.sessions.glob("*.mem")}
    assert len(kept) == len(list(store.sessions.glob("*.jsonl"))) > 10
    assert (data_dir / figures.FILE).exists()  # each new task's figures, kept by the import
    for by in ("day", "model"):
        first = json.loads(nodwyn("usage", "--by", by, "--json", data_dir=data_dir).stdout)
        if kept:  # the import's cards were whole and current: usage had nothing to add
            assert {mem: mem.read_bytes() for mem in kept} == kept
            kept = {}
        for derived in [*store.sessions.glob("*.mem"), *store.sessions.glob("*.heads")]:
            derived.unlink()
        (data_dir / figures.FILE).unlink(missing_ok=True)
        folded = json.loads(nodwyn("usage", "--by", by, "--json", data_dir=data_dir).stdout)
        assert first == folded and first["total"]["turns"] > 50, by


def test_a_session_of_thousands_of_turns_keeps_its_cards_in_frames_that_read_as_the_log(
    data_dir, tmp_path
):
    """The import appends its cards to the `.mem` a frame every state.CARDS turns (so it holds
    no more), and the frames read back as a fold of the log from its start gives the cards."""
    from importing import age, session, write
    from nodwyn.importers.state import CARDS
    from nodwyn.importers.sync import import_paths
    from nodwyn.memory.cards import mem as memfile
    from test_import_crash import turns

    source = tmp_path / "s" / "11111111-2222-3333-4444-555555555555.jsonl"
    age(write(source, session() + turns(2 * CARDS + 500)))
    store = Store(data_dir)
    (task,) = import_paths(store, "claude", [source]).created
    log = store.log_path(task)
    kept = memfile.load(log)
    assert kept.frames >= 3
    _, every, _ = memfile.fold_log(log, memfile.Mem())  # the log alone, from its start
    assert kept.fold.cards == every[: len(kept.fold.cards)]
    assert len(kept.fold.cards) >= len(every) - 1 > 2 * CARDS  # the last turn may go on
