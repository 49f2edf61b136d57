"""The catalogue is derived: rebuilt when missing or damaged, folded on when a log changes."""

import json
import os
import time

import pytest
from nodwyn.log import records
from nodwyn.tasks.catalogue import Summary, fold_log
from nodwyn.tasks.store import Store


@pytest.fixture
def store():
    return Store()


def make(store, text):
    start = records.SessionStart(project="/p", origin=records.Origin(tool="nodwyn"))
    with store.create(start) as writer:
        writer.append([records.Message(text=text)])
        return writer.path.stem


def listing(store):
    return [(t.id, t.title, t.turns, t.archived) for t in store.list(archived=None)]


def fresh_listing(store):
    """What a listing from the logs alone says (the oracle: a fold of each log from the start)."""
    found = []
    for path in store.sessions.glob("*.jsonl"):
        summary = fold_log(path)
        title = summary.title or summary.first_message
        found.append((path.stem, title, summary.turns, summary.archived, summary.last_at))
    found.sort(key=lambda t: (t[4], t[0]), reverse=True)
    return [t[:4] for t in found]


def test_listing_writes_a_catalogue_that_the_next_listing_reads(store):
    make(store, "one")
    make(store, "two")
    assert not store.cache.file.exists()
    first = listing(store)
    assert store.cache.file.exists()
    assert listing(store) == first == fresh_listing(store)


def test_a_deleted_catalogue_is_rebuilt(store):
    make(store, "one")
    listing(store)
    store.cache.file.unlink()
    assert listing(store) == fresh_listing(store)
    assert store.cache.file.exists()


@pytest.mark.parametrize("damage", [b"", b"\x00\x01garbage", b"\x92\x01\x80"])
def test_a_damaged_catalogue_is_rebuilt(store, damage):
    make(store, "one")
    make(store, "two")
    listing(store)
    store.cache.file.write_bytes(damage)
    assert listing(store) == fresh_listing(store)


def test_a_log_that_grew_behind_the_catalogues_back_is_folded_on(store):
    task = make(store, "one")
    listing(store)
    with open(store.log_path(task), "ab") as handle:
        handle.write(
            b'{"kind":"session.title","seq":3,"at":"","title":"Renamed","actor":"person"}\n'
        )
    assert listing(store) == [(task, "Renamed", 1, False)] == fresh_listing(store)


def test_a_log_replaced_behind_the_catalogues_back_is_folded_again(store):
    task = make(store, "one")
    other = make(store, "a different first message")
    listing(store)
    path = store.log_path(task)
    replacement = store.log_path(other).read_bytes() + (
        b'{"kind":"message","seq":3,"at":"","text":"more"}\n'
    )
    path.write_bytes(replacement)  # larger than before, with a different last line
    assert listing(store) == fresh_listing(store)
    assert dict((t[0], t[1]) for t in listing(store))[task] == "a different first message"


def test_a_log_changed_in_place_with_the_same_size_is_folded_again(store):
    task = make(store, "aaaa")
    listing(store)
    path = store.log_path(task)
    stat = path.stat()
    path.write_bytes(path.read_bytes().replace(b'"aaaa"', b'"bbbb"'))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert listing(store)[0][1] == "bbbb"


def test_a_log_deleted_behind_the_catalogues_back_leaves_the_list(store):
    task = make(store, "one")
    keep = make(store, "two")
    listing(store)
    store.log_path(task).unlink()
    assert [t[0] for t in listing(store)] == [keep]


def test_the_fast_listing_answers_only_from_a_current_catalogue(store):
    from nodwyn.tasks import listing

    task = make(store, "one")
    assert listing.fast_json(store.root, None) is None  # no catalogue yet
    slow = store.list_json(None)
    assert listing.fast_json(store.root, None) == slow.encode()
    with store.writer(task) as writer:
        writer.append([records.Message(text="two")])
    assert listing.fast_json(store.root, None) is None  # the log grew since
    assert '"turns":2' in store.list_json(None)


def test_an_imported_task_stops_running_between_two_listings_without_a_fold(store):
    import json

    from nodwyn.tasks import listing

    start = records.SessionStart(project="/p", origin=records.Origin(tool="codex"))
    with store.create(start) as writer:
        writer.append([records.Message(text="live")])
    store.list_json(None)
    assert json.loads(listing.fast_json(store.root, None))[0]["state"] == "running"
    fields = listing.read(store.cache.file)
    (line,) = fields.values()
    line[listing.LAST_AT] = "2020-01-01T00:00:00.000Z"  # as if five minutes went by
    listing.write(store.cache.file, fields)
    assert json.loads(listing.fast_json(store.root, None))[0]["state"] == "closed"


def test_the_fast_listing_steps_aside_once_a_row_written_as_running_has_gone_quiet(store):
    import json

    from nodwyn.tasks import listing

    start = records.SessionStart(project="/p", origin=records.Origin(tool="codex"))
    with store.create(start) as writer:
        writer.append([records.Message(text="live")])
    store.list_json(None)
    text = store.cache.file.read_text()
    head, rest = text.split("\n", 1)
    meta = json.loads(head)
    assert meta["running_from"] is not None
    meta["running_from"] = "2020-01-01T00:00:00.000Z"  # as if five minutes went by
    store.cache.file.write_text(json.dumps(meta, separators=(",", ":")) + "\n" + rest)
    assert listing.fast_json(store.root, None) is None  # the row written says "running"
    assert json.loads(store.list_json(None))[0]["state"] == "running"  # the log says so still
    (line,) = listing.read(store.cache.file).values()
    line[listing.LAST_AT] = "2020-01-01T00:00:00.000Z"
    assert listing.stale({"t": line}, listing.running_since())


def test_the_fast_listing_equals_the_slow_one_for_archived_and_unarchived_tasks(store):
    from nodwyn.tasks import listing

    tasks = [make(store, f"task {n}") for n in range(6)]
    for task in tasks[1::2]:
        store.close(task)
        store.archive(task)
    time.sleep(0.002)  # times in logs are in milliseconds
    with store.writer(tasks[0]) as writer:  # newest activity now, though made first
        writer.append([records.Message(text="again")])
    for archived in (None, False, True):
        slow = store.list_json(archived)
        assert listing.fast_json(store.root, archived) == slow.encode(), archived
    import json

    everything = [t["id"] for t in json.loads(listing.fast_json(store.root, None))]
    assert everything[0] == tasks[0] and sorted(everything) == sorted(tasks)
    assert [t["id"] for t in json.loads(listing.fast_json(store.root, True))] == [
        t for t in everything if t in tasks[1::2]
    ]


def test_asking_about_one_task_folds_on_from_the_kept_summary_only_while_it_holds(store):
    task = make(store, "one")
    other = make(store, "a different first message")
    listing(store)  # keeps each log's summary
    path = store.log_path(task)
    with open(path, "ab") as handle:
        handle.write(b'{"kind":"message","seq":3,"at":"","text":"two"}\n')
    assert (store.get(task).title, store.get(task).turns) == ("one", 2)
    path.write_bytes(
        store.log_path(other).read_bytes() + b'{"kind":"message","seq":3,"at":"","text":"x"}\n'
        + b'{"kind":"message","seq":4,"at":"","text":"y"}\n'
    )  # fmt: skip
    assert (store.get(task).title, store.get(task).turns) == ("a different first message", 3)


def test_a_tasks_cost_is_the_sum_of_its_turns_costs_as_their_cards_say(store):
    from nodwyn import memory

    start = records.SessionStart(project="/p", origin=records.Origin(tool="nodwyn"))
    with store.create(start) as writer:
        writer.append(
            [
                records.Message(text="one"),
                records.Reply(text="a", cost_usd=0.10),
                records.Reply(text="b", cost_usd=0.03),
                records.TurnEnd(cost_usd=0.41),  # the whole turn, sub-calls included
                records.Message(text="two"),
                records.Reply(text="c", cost_usd=0.05),
                records.TurnEnd(),  # says no cost: the replies' sum stands
                records.Message(text="three"),
                records.Reply(text="d", cost_usd=0.02),  # under way
            ]
        )
        task = writer.path.stem
    cards = memory.turn_cards(store, task)
    assert [card.cost_usd for card in cards] == pytest.approx([0.41, 0.05, 0.02])
    (listed,) = store.list()
    assert listed.cost_usd == pytest.approx(0.48)
    assert store.get(task).cost_usd == pytest.approx(0.48)


def test_summaries_kept_by_other_fold_rules_are_folded_again(store):
    import msgspec

    task = make(store, "one")
    listing(store)
    folds = store.cache.folds_file
    version, kept = msgspec.msgpack.decode(folds.read_bytes(), type=tuple[int, dict[str, Summary]])
    kept[task].title = "from older rules"  # as if folded by rules since changed
    folds.write_bytes(msgspec.msgpack.encode((version - 1, kept)))
    store.cache.file.unlink()
    assert [t[1] for t in listing(store)] == ["one"]


@pytest.mark.parametrize(
    "head",
    [b"", b"{", b'{"nodwyn-catalogue":6,"running_from":2026,"unarchived":"x"}', b"\xff\xfe"],
)
def test_a_damaged_catalogue_head_sends_the_listing_the_slow_way(store, head):
    from nodwyn.tasks import listing

    make(store, "one")
    slow = store.list_json(None)
    data = store.cache.file.read_bytes()
    store.cache.file.write_bytes(head + data[data.index(b"\n") :])
    assert listing.fast_json(store.root, None) is None
    assert store.list_json(None) == slow
    assert listing.fast_json(store.root, None) == slow.encode()  # written whole again


@pytest.mark.skipif(os.name != "posix", reason="a file name of raw bytes needs a POSIX system")
def test_a_log_whose_name_is_not_utf8_is_left_out_of_the_listing(store):
    task = make(store, "one")
    odd = os.path.join(os.fsencode(store.sessions), b"odd\xff.jsonl")
    with open(odd, "wb") as out:
        out.write((store.sessions / f"{task}.jsonl").read_bytes())
    assert [t[0] for t in listing(store)] == [task]
    assert [row["id"] for row in json.loads(store.list_json(None))] == [task]


def test_a_catalogue_another_process_holds_open_leaves_the_listing_right(store, monkeypatch):
    task = make(store, "one")
    replace = os.replace

    def held(src, dst):  # Windows refuses to replace a file another process has open
        if os.path.basename(os.fspath(dst)).startswith("catalogue."):
            raise PermissionError(13, "in use by another process", os.fspath(dst))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", held)
    assert [t[0] for t in listing(store)] == [task]
    assert [row["id"] for row in json.loads(store.list_json(None))] == [task]
    assert not [p.name for p in store.root.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    "odd", ["2099-01-01T00:00:00,000Z", '2099-01-01T00:00:00"Z', "2099-01-01T00:00:00.000Z\u00e9"]
)
def test_an_odd_time_in_a_running_imported_task_keeps_the_catalogue_readable(store, odd):
    from nodwyn.tasks import listing

    start = records.SessionStart(project="/p", origin=records.Origin(tool="codex"))
    with store.create(start) as writer:
        writer.append([records.Message(text="live", at=odd)])
    slow = store.list_json(None)
    assert '"state":"running"' in slow
    assert listing.read(store.cache.file) is not None  # not rebuilt at every listing
    assert listing.fast_json(store.root, None) is None  # it steps aside while that row runs
    assert store.list_json(None) == slow


def test_an_import_keeps_the_new_tasks_rows_as_a_fold_of_their_logs_gives_them(
    store, corpus, tmp_path
):
    """The import folds each new task's list row as it writes the log, so the first listing
    reads no log again; the rows are those a fold of the logs alone gives, a secret in a
    first message redacted in both."""
    from importing import age, prompt, session, write
    from nodwyn.importers.sync import import_paths

    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    named = session()
    age(write(tmp_path / "s" / "11111111-2222-3333-4444-555555555555.jsonl", named))
    first = [prompt("u1", None, 1, f"Use the token {secret} to push."), *named[2:]]
    age(write(tmp_path / "s" / "11111111-2222-3333-4444-555555555556.jsonl", first))
    import_paths(store, "claude", [tmp_path / "s", corpus / "claude"])
    kept = store.cache.file.read_bytes()
    assert store.cache.folds_file.exists()  # written by the import: no listing ran
    rows = {t.id: t for t in store.list(archived=None)}
    assert store.cache.file.read_bytes() == kept  # the list read the catalogue as it was
    store.cache.file.unlink()
    store.cache.folds_file.unlink()
    again = {t.id: t for t in store.list(archived=None)}  # every log folded from its start
    assert len(rows) > 10 and rows == again
    shown = store.list_json(archived=None)
    assert secret not in shown and "Pager order fix" in shown and "Use the token" in shown
