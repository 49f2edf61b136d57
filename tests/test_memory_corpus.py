"""On the real corpus, imported: a distinctive phrase of a turn's prompt, reply or tool output
finds that turn first."""

import re
from collections import Counter

import pytest
from nodwyn import memory
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile, records
from nodwyn.memory.words import index, tokens
from nodwyn.memory.words.search import search as word_search
from nodwyn.tasks.store import Store


@pytest.fixture(scope="module")
def imported(tmp_path_factory, finished_corpus) -> Store:
    corpus = finished_corpus
    store = Store(tmp_path_factory.mktemp("corpus") / "data")
    import_paths(store, "claude", [corpus / "claude"])
    import_paths(store, "codex", [corpus / "codex"])
    memory.refresh(store)
    return store


def phrase(text: str, common: Counter, size: int = 6) -> str | None:
    """The `size` rarest distinct words (letters only, 5 or more) of a text, as a query; None
    unless one of them is in no other event (else the phrase is not distinctive)."""
    found = [w for w in dict.fromkeys(tokens.words(text)) if re.fullmatch(r"[a-z]{5,}", w)]
    rarest = sorted(found, key=lambda w: (common[w], w))[:size]
    if len(rarest) < size or common[rarest[0]] > 1:
        return None
    return " ".join(rarest)


def samples(store: Store, kind: type) -> list[tuple[str, int, str]]:
    """(task, turn's first seq, text) of each task's first events of `kind` in a turn, one
    per turn, at most three per task."""
    out = []
    for task in sorted(log.stem for log in store.sessions.glob("*.jsonl")):
        firsts = [card.first_seq for card in memory.turn_cards(store, task)]
        taken: set[int] = set()
        for _, _, record in logfile.read(store.log_path(task)):
            text = index.text_of(record) if isinstance(record, kind) else ""
            turn = max((seq for seq in firsts if seq <= record.seq), default=0)
            if turn and turn not in taken and record.agent is None and len(text) > 200:
                out.append((task, turn, text))
                taken.add(turn)
                if len(taken) == 3:
                    break
    return out


@pytest.mark.parametrize("kind", [records.Message, records.Reply, records.Result])
def test_a_distinctive_phrase_of_a_turn_finds_that_turn_first(imported, kind):
    common = Counter()
    for log in imported.sessions.glob("*.jsonl"):
        for _, _, record in logfile.read(log):
            common.update(set(tokens.words(index.text_of(record))))
    tried = found = 0
    for task, turn, text in samples(imported, kind):
        query = phrase(text, common)
        if query is None:
            continue
        tried += 1
        best = word_search(imported, query).turns[0]
        found += (best.task, best.first_seq) == (task, turn)
    assert tried >= 10
    assert found == tried
