"""Summaries and digests are searched and read: events of the word index, texts with vectors,
and the close summary covering a turn beside it in search results (ADR 0033)."""

from nodwyn import memory
from nodwyn.log import records
from nodwyn.memory.meaning import vectors
from nodwyn.summarizing import recording
from nodwyn.tasks.store import Store


def task_with_two_turns(store: Store, project: str) -> str:
    start = records.SessionStart(project=project, origin=records.Origin(tool="claude-code"))
    with store.create(start) as writer:
        writer.append([
            records.Message(text="the pager drops pages under load"),
            records.Reply(text="Looking."), records.TurnEnd(status="completed"),
            records.Message(text="and now the flaky login test"),
            records.Reply(text="Fixed."), records.TurnEnd(status="completed"),
        ])  # fmt: skip
        return writer.path.stem


def test_a_digest_is_found_by_its_words_and_shown_as_a_summary_event(tmp_path, data_dir):
    store = Store()
    task = task_with_two_turns(store, str(tmp_path))
    recording.record(store, task, "digest", "We decided the pager keeps a ringbuffer of 64.")
    found = memory.search(store, "ringbuffer", mode="words")
    [turn] = found.turns
    [event] = turn.events
    assert event.kind == "memory.summary" and "digest" in event.heading
    assert any("ringbuffer" in line for line in event.lines)


def test_a_turns_close_summary_is_shown_beside_it_in_search_results(tmp_path, data_dir):
    store = Store()
    task = task_with_two_turns(store, str(tmp_path))
    recording.record(store, task, "close", "Chat: pager fixed by backpressure; login flaky.")
    found = memory.search(store, "pager drops", mode="words")
    first = next(turn for turn in found.turns if turn.first_seq == 2)
    assert first.summary == "Chat: pager fixed by backpressure; login flaky."


def test_summaries_have_texts_for_vectors_in_the_turn_they_were_written_in(tmp_path, data_dir):
    store = Store()
    task = task_with_two_turns(store, str(tmp_path))
    recording.record(store, task, "digest", "What we decided about the pager: a ringbuffer.")
    log = store.log_path(task)
    cards = memory.turn_cards(store, task)
    [(kind, seq, turn, text)] = vectors.summary_texts(log, cards)
    assert (kind, seq, turn) == ("summary", 8, 5)
    assert "ringbuffer" in text


def test_recall_and_export_show_a_summary_with_who_wrote_it(tmp_path, data_dir):
    from nodwyn.reading import export

    store = Store()
    task = task_with_two_turns(store, str(tmp_path))
    recording.record(store, task, "digest", "The pager keeps a ringbuffer.", model="codex")
    found = memory.recall(store, task, 8)
    assert found.event["kind"] == "memory.summary" and found.event["model"] == "codex"
    text = export.export(store, task, "md")
    assert "Digest of seqs 1–7, by codex (agent)" in text and "ringbuffer" in text
    assert "ringbuffer" in export.export(store, task, "html")
