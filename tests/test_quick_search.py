"""The search by words without msgspec (memory/words/quick.py) answers as the full search does, or
leaves the search to it: compared over hand-written logs and the real corpus, line by line
(records), turn by turn (heads) and answer by answer (the JSON bytes)."""

import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from memory_logs import at, stamp, turn, write
from nodwyn import memory
from nodwyn.background import scrub
from nodwyn.importers.sync import import_paths
from nodwyn.log import journal, logfile, plain, records
from nodwyn.log import records as r
from nodwyn.memory.cards import heads
from nodwyn.memory.words import changes, documents, quick
from nodwyn.memory.words import index as wordindex
from nodwyn.tasks.store import Store

QUESTIONS = ["pager order", "flaky TestPagerOrder", "ls -la", "kangaroo", "parseConfig v2",
             "the the", "secret token", "sub agent notes", "interrupted work", "zzz"]  # fmt: skip


def lately(minutes: int) -> str:
    """A time `minutes` ago: the agent still writes a turn it wrote in then (ADR 0039)."""
    return stamp(datetime.now(UTC) - timedelta(minutes=minutes))


def full(store: Store, text: str, **options) -> bytes:
    return msgspec.json.encode(memory.search(store, text, mode="words", **options))


def quick_bytes(store: Store, text: str, scope="all", task=None, limit=20, mode="words"):
    found = quick.answer(str(store.root), text, scope, task, limit, mode)
    return None if found is None else plain.encoded(found)


@pytest.fixture
def store(tmp_path) -> Store:
    """Logs of most shapes a search meets: finished turns, one under way, an interrupted one,
    sub-agent lines, calls with JSON-string and plain inputs, tool output, a kind this
    version does not know, a secret in a prompt."""
    store = Store(tmp_path / "data")
    write(store, "cc-pager", turn("Fix the flaky TestPagerOrder", reply="sorted by time now"))
    write(store, "cc-pager", [
        r.Message(text="now the pager order again, with ls -la", at=at(10)),
        r.Reply(text="calling", calls=[r.Call(id="c1", tool="exec", input='{"cmd": "ls -la"}')],
                at=at(11)),
        r.Result(call="c1", tool="exec", output="total 0\npager.py order.py", at=at(12)),
        r.Reply(text="sub agent notes on the pager", agent="helper", at=at(13)),
        r.Message(text="sub agent asks about kangaroo", agent="helper", at=at(14)),
        r.TurnEnd(status="failed", duration_ms=4000, at=at(15)),
        r.Message(text="interrupted work on parseConfig v2", at=at(20)),
        r.Reply(text="patching", calls=[r.Call(id="c2", tool="apply_patch", input="*** Begin")],
                at=at(21)),
        r.SessionResume(at=at(30)),
        r.Message(text="my secret token is sk-abcdefghijklmnopqrstuvwxyz012345 for the pager",
                  at=lately(2)),
        r.Reply(text="the pager is under way", at=lately(1)),
    ])  # fmt: skip
    write(store, "cx-other", [r.Message(text="kangaroo facts", at=lately(2)),
                              r.Reply(text="order of the pager", at=lately(1))])  # fmt: skip
    with open(store.log_path("cx-other"), "ab") as handle:  # a kind from a later version
        handle.write(b'{"kind":"future.thing","seq":4,"at":"2026-11-29T10:01:00.000Z",'
                     b'"note":"kangaroo pager zzz"}\n')  # fmt: skip
    journal.note(store.root, "cx-other")
    scrub.scrub_if_due(store)
    memory.refresh_words(store)
    return store


def test_the_quick_search_answers_as_the_full_search_does(store):
    for question in QUESTIONS:
        for options in ({}, {"scope": "task", "task": "cc-pager"}, {"limit": 2}):
            answered = quick_bytes(store, question, **options)
            assert answered is not None, (question, options)
            assert answered == full(store, question, **options), (question, options)


def test_it_shows_finished_turns_from_heads_and_others_from_their_lines(store):
    shown = {}
    for question in ("pager", "parseConfig"):
        found = quick.answer(str(store.root), question, "all", None, 20, "words")
        shown |= {(turn["task"], turn["first_seq"]): turn for turn in found["turns"]}
    assert "· failed · 4s ·" in shown[("cc-pager", 5)]["head"]
    assert "· interrupted ·" in shown[("cc-pager", 11)]["head"]
    assert shown[("cc-pager", 14)]["head"].startswith('turn seq 14- · under way · asked "my ')
    assert "sk-" not in shown[("cc-pager", 14)]["asked"]


def test_a_last_turn_its_agent_left_reads_as_in_the_full_search(tmp_path):
    """Settled by what the agent last said (ADR 0039): quick.py reads it as the fold does,
    but leaves nodwyn's own task (open until closed, which its start says) to the full one."""
    store = Store(tmp_path / "data")
    call = r.Call(id="c1", tool="Bash", input={"command": "ls"})
    write(
        store,
        "answered",
        [
            r.Message(text="zebra one", at=at(0)),
            r.Reply(text="sub", agent="helper", at=at(1)),
            r.Reply(text="done", at=at(2)),
            r.Reply(text="helper again", agent="helper", at=at(3)),
        ],
    )
    write(store, "cut", [r.Message(text="zebra two", at=at(0)), r.Reply(calls=[call], at=at(2))])
    write(store, "silent", [r.Message(text="zebra three", at=at(0)), r.Error(text="x", at=at(1))])
    with store.create(r.SessionStart(project="/w", origin=r.Origin(tool="nodwyn")), "own") as w:
        w.append([r.Message(text="zebra four", at=at(0))])
    scrub.scrub_if_due(store)
    memory.refresh_words(store)
    assert quick_bytes(store, "zebra") is None  # nodwyn's own task among the hits
    assert quick_bytes(store, "zebra", scope="task", task="own") is None
    for task, outcome in (
        ("answered", "completed"),
        ("cut", "interrupted"),
        ("silent", "no answer"),
    ):
        answered = quick_bytes(store, "zebra", scope="task", task=task)
        assert answered == full(store, "zebra", scope="task", task=task)
        assert f" · {outcome} · ".encode() in answered


def test_a_change_not_yet_indexed_leaves_the_search_to_the_full_one(store):
    assert quick_bytes(store, "pager") is not None
    write(store, "cc-pager", turn("a new turn about the pager", t0=50))
    assert quick_bytes(store, "pager") is None
    memory.refresh_words(store)
    assert quick_bytes(store, "pager") == full(store, "pager")


@pytest.mark.parametrize("case", ["check due", "meaning", "project", "no index", "settings",
                                  "bad limit", "no task", "rules"])  # fmt: skip
def test_what_it_cannot_answer_exactly_is_left_to_the_full_search(store, case):
    root = str(store.root)
    if case == "check due":
        state = wordindex.load_state(store.root)
        state.checked_ns = time.time_ns() - changes.FULL_EVERY_NS - 1
        wordindex.save_state(store.root, state)
    elif case == "no index":
        os.remove(os.path.join(root, "index", "meta.json"))
    elif case == "settings":
        with open(os.path.join(root, "settings.json"), "w") as file:
            file.write('{"search_tool_output": "yes"}')
    elif case == "rules":
        os.remove(os.path.join(root, "redaction.json"))
    options = {
        "meaning": dict(mode=None), "project": dict(scope="project"),
        "bad limit": dict(limit=0), "no task": dict(scope="task", task="cc-nothing"),
    }.get(case, {})  # fmt: skip
    assert quick_bytes(store, "pager", **options) is None


ODD_LINES = [
    b'{"kind":"message","seq":3,"at":"x","text":5}',  # a field that does not fit: Opaque
    b'{"kind":"reply","seq":4,"usage":"lots","text":"pager"}',
    b'{"kind":"nope","seq":5,"x":["y",{"z":"pager"}]}',
    b'{"seq":6,"at":7}',
    b'{"kind":"message","seq":0,"text":"pager"}',  # no seq: Damaged
    b'{"kind":"message","seq":true}',
    b"[1, 2]",
    b'{"kind":"reply","seq":8,"calls":[{"id":"a","tool":"t","input":"NaN"}]}',
    b'{"kind":"reply","seq":9,"calls":[{"id":"a","tool":"t","input":"[1e400]"}]}',
    b'{"kind":"reply","seq":10,"calls":[{"id":"a","tool":"t","input":"{\\"a\\": {\\"b\\": 2}}"}]}',
    b'{"kind":"reply","seq":11,"calls":[{"tool":"t"}]}',  # a call without its id
    b'{"kind":"turn.end","seq":12,"duration_ms":true}',
    b'{"kind":"turn.end","seq":13,"cost_usd":1}',
    b'{"kind":"result","seq":14,"exit":99999999999999999999999}',
    b'{"kind":"plan","seq":15,"items":[{"text":"a","status":"done"},{"status":"x"}]}',
    b'{"kind":"message","seq":16,"attachments":[{"name":"f","text":"pager"}],"command":"/x"}',
    b'{"kind":"bookmark","seq":17,"note":"pager","starred":false}',
    b'{"kind":"reply","seq":18,"text":"\\ud83d\\ude00 pager"}',  # json and msgspec differ on some
    b'{"kind":"error","seq":19,"text":"bad \\u0001 pager"}',
    b'{"kind":"message","seq":20,"text":"pager"} trailing',
]


def same_reading(line: bytes, tool_output: bool = True) -> None:
    """quick's reading of a line is records.decode's, or it leaves the line to it."""
    try:
        kind, fields = plain.decoded_record(line)
    except (plain.NotPlain, ValueError):
        if b"\\ud" not in line:
            with pytest.raises(records.Damaged):
                records.decode(line)
        return
    record = records.decode(line)
    assert (kind is None) == isinstance(record, records.Opaque), line
    if kind is not None:
        assert kind == records.kind_of(record) and fields.get("at", "") == record.at
    try:
        text = quick.text_of(kind, fields, tool_output)
    except plain.NotPlain:
        return
    assert text == documents.text_of(record, tool_output, clean=False), line


@pytest.mark.parametrize("line", ODD_LINES)
def test_an_odd_line_reads_as_records_reads_it(line):
    same_reading(line)
    same_reading(line, tool_output=False)


def every_line(store: Store):
    for log in sorted(store.sessions.glob("*.jsonl")):
        with open(log, "rb") as handle:
            yield from (line.rstrip(b"\n") for line in handle if line.strip())


def same_heads(store: Store) -> int:
    """Each turn's head, from the .heads and from the lines, is heads.py's; the turns seen."""
    seen = 0
    for log in sorted(store.sessions.glob("*.jsonl")):
        with open(log, "rb") as handle:
            from_mem = heads._finished_heads(handle, log.with_suffix(".mem"))
            from_heads = quick.finished_heads(handle, str(log))
            expected = {seq: list(msgspec.structs.astuple(head)) for seq, head in from_mem.items()}
            assert {seq: list(head) for seq, head in from_heads.items()} == expected
            for start, _end, record in logfile.read(log):
                if isinstance(record, records.Message) and record.agent is None:
                    card = heads.turn_card(handle, log, start, record.seq)
                    want = (card.first_seq, card.last_seq, card.at, card.asked, card.outcome,
                            card.duration_ms)  # fmt: skip
                    assert quick.turn_head(handle, start, record.seq) == want
                    seen += 1
    return seen


def test_every_line_and_turn_of_the_logs_reads_alike(store):
    for line in every_line(store):
        same_reading(line)
    assert same_heads(store) == 5


@pytest.fixture(scope="module")
def real_store(tmp_path_factory, finished_corpus) -> Store:
    store = Store(tmp_path_factory.mktemp("quick") / "data")
    import_paths(store, "claude", [finished_corpus / "claude"])
    import_paths(store, "codex", [finished_corpus / "codex"])
    scrub.scrub_if_due(store)
    memory.refresh_words(store)
    return store


def test_on_the_real_corpus_every_line_turn_and_answer_is_the_full_searchs(real_store):
    for line in every_line(real_store):
        same_reading(line)
    assert same_heads(real_store) > 80  # 87 turns
    with open(os.path.join(os.path.dirname(__file__), "data", "search_questions.tsv")) as file:
        header, *rows = file.read().splitlines()
    column = header.split("\t").index("question")
    answered = 0
    for row in rows[:60]:
        question = row.split("\t")[column]
        found = quick_bytes(real_store, question)
        if found is not None:
            answered += 1
            assert found == full(real_store, question), question
    assert answered >= 50


def test_the_answer_is_written_as_msgspec_writes_it():
    rng = random.Random(16)
    scores = [rng.uniform(1e-4, 1e3) for _ in range(20_000)]
    scores += [10.0 ** rng.uniform(-4, 15.9) for _ in range(20_000)] + [0.0, 1e-4, 1.5]
    text = "".join(map(chr, range(0, 0x250))) + "\u2028\u2029\ufeff\U0001f600 \"'\\/"
    for score in scores:
        value = {"turns": [{"score": score, "head": text, "last_seq": None}], "terms": [text]}
        assert plain.encoded(value) == msgspec.json.encode(value)
    with pytest.raises(plain.NotPlain):
        plain.encoded({"turns": [{"score": 2e-5}]})


def test_its_record_types_agree_with_the_logs_records():
    base = {field.name for field in msgspec.structs.fields(records.Record)}
    for tag, cls in records.KINDS.items():
        fields, required = plain.RECORDS[tag]
        assert notation(msgspec.inspect.type_info(cls), skip=base) == (fields, required), tag
    assert notation(msgspec.inspect.type_info(records.Record)) == (plain._BASE, ())


def notation(info, skip=()):
    """A msgspec type as plain.RECORDS writes it."""
    from msgspec import inspect

    simple = {inspect.StrType: "str", inspect.IntType: "int", inspect.BoolType: "bool",
              inspect.FloatType: "float", inspect.AnyType: "any"}  # fmt: skip
    if type(info) in simple:
        return simple[type(info)]
    if isinstance(info, inspect.UnionType):
        (kind,) = [t for t in info.types if not isinstance(t, inspect.NoneType)]
        return ("?", notation(kind))
    if isinstance(info, inspect.ListType):
        return ("list", notation(info.item_type))
    fields = {f.encode_name: notation(f.type) for f in info.fields if f.name not in skip}
    return fields, tuple(f.encode_name for f in info.fields if f.required)


def test_a_new_process_search_by_words_prints_what_the_full_search_prints(store):
    from nodwyn.background import running
    from nodwyn.cli import memory as cli_memory

    def printed(*args: str) -> str:
        command = [sys.executable, "-X", "importtime", "-m", "nodwyn.cli", "--data-dir",
                   str(store.root), "memory", "search", "--mode", "words", *args]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
        assert "msgspec" not in done.stderr  # answered by quick.py
        return done.stdout

    answer = full(store, "pager order")
    assert printed("pager", "order") == cli_memory.found_text(running.decoded(answer))
    assert printed("--json", "pager", "order") == answer.decode() + "\n"
    answer = full(store, "zzz", scope="task", task="cx-other")
    assert printed("--task", "cx-other", "zzz") == cli_memory.found_text(running.decoded(answer))


def test_an_index_made_before_has_its_state_and_heads_made_readable_by_the_next_search(store):
    folder = wordindex.folder(store.root)
    state = wordindex.load_state(store.root)
    (folder / "state.msgpack").write_bytes(msgspec.msgpack.encode(state))  # as before
    (folder / wordindex.STATE).unlink()
    for log in store.sessions.glob("*.heads"):
        log.unlink()
    assert wordindex.load_state(store.root) == state
    assert quick_bytes(store, "pager") is None  # no state.json yet: the full search's
    before = full(store, "pager")
    assert (folder / wordindex.STATE).exists() and not (folder / "state.msgpack").exists()
    assert store.log_path("cc-pager").with_suffix(".heads").exists()
    assert quick_bytes(store, "pager") == before == full(store, "pager")


def test_a_heads_line_lost_or_raced_leaves_the_older_heads_or_the_lines(store):
    heads_file = store.log_path("cc-pager").with_suffix(".heads")
    kept = heads_file.read_bytes()
    with open(heads_file, "ab") as handle:  # a frame from a raced writer: skipped
        handle.write(b'[999, 5, 1234, 1000, 77, [[2, 4, "x", "a raced head", "completed", 1]]]\n')
        handle.write(b"[1234, 6, 2000")  # a line being written: not read
    assert quick_bytes(store, "pager") == full(store, "pager")
    heads_file.write_bytes(kept.replace(b'"completed"', b'"fabled"'))  # its log line unchanged
    log = store.log_path("cc-pager")
    with open(log, "rb") as handle:
        assert quick.finished_heads(handle, str(log))[2][4] == "fabled"
    log.write_bytes(log.read_bytes()[:300])  # cut behind nodwyn's back: its lines are read
    with open(log, "rb") as handle:
        assert quick.finished_heads(handle, str(log)) == {}


def test_the_memory_package_keeps_its_exports_whichever_submodule_comes_first():
    code = (
        "import nodwyn.memory.words.search, nodwyn.memory.cards.fold; from nodwyn import memory; "
        "from nodwyn.memory import cards; "
        "print(memory.search.__module__, memory.cards.__module__, cards.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)  # fmt: skip
    assert done.stdout.split() == [
        "nodwyn.memory.fusion", "nodwyn.memory.recall", "nodwyn.memory.recall"
    ]  # fmt: skip
    light = "import nodwyn.memory.words.quick, sys; print('msgspec' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", light], capture_output=True, text=True,
                          check=True, timeout=60)  # fmt: skip
    assert done.stdout.strip() == "False"
