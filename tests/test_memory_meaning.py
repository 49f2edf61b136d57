"""Search by meaning: the WordPiece tokenizer, the built-in model, .vec files, RRF, fail-open."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from corpora import both
from memory_logs import Counting
from nodwyn import cli, memory, settings
from nodwyn.errors import BadInput
from nodwyn.importers.sync import import_paths
from nodwyn.log import records as r
from nodwyn.memory import fusion
from nodwyn.memory.meaning import encoder, vectors
from nodwyn.memory.meaning.wordpiece import WordPiece, basic_words
from nodwyn.memory.words import index as wordindex
from nodwyn.memory.words.search import hits
from nodwyn.tasks.store import Store

VOCAB = (encoder.MODEL / "vocab.txt").read_text(encoding="utf-8").split("\n")


@pytest.fixture
def store(data_dir) -> Store:
    return Store(data_dir)


def at(second: int) -> str:
    return f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}.000Z"


def turn(text: str, reply: str, t0: int) -> list:
    return [
        r.Message(text=text, at=at(t0)),
        r.Reply(text=reply, at=at(t0 + 1)),
        r.TurnEnd(status="completed", duration_ms=2000, at=at(t0 + 2)),
    ]


def write(store: Store, task: str, items: list, project: str = "/work/p") -> None:
    if store.exists(task):
        with store.writer(task) as writer:
            writer.append(items)
    else:
        start = r.SessionStart(project=project, origin=r.Origin(tool="claude-code"))
        with store.create(start, task) as writer:
            writer.append(items)


@pytest.mark.parametrize(
    ("text", "pieces"),
    [  # written down by hand from BERT's rules (and checked against `tokenizers` 0.22.2)
        ("unaffable", ["una", "##ffa", "##ble"]),
        ("Héllo, World!", ["hello", ",", "world", "!"]),
        ("don't", ["don", "'", "t"]),
        ("東京 tokyo", ["東", "京", "tokyo"]),
        ("naïve café", ["naive", "cafe"]),
        ("tokenization", ["token", "##ization"]),
        ("vsla_tensor_t", ["vs", "##la", "_", "tensor", "_", "t"]),
        ("a\x00b\tc", ["ab", "c"]),
    ],
)
def test_wordpiece_splits_words_as_bert_uncased_does(text, pieces):
    assert WordPiece(VOCAB).tokenize(text) == pieces


def test_a_word_that_cannot_be_split_is_unknown_and_left_out_of_ids():
    pieces = WordPiece(["[UNK]", "ab", "##c"])
    assert pieces.tokenize("abc abd") == ["ab", "##c", "[UNK]"]
    assert pieces.ids("abc abd") == [1, 2]
    assert basic_words("x" * 101) == ["x" * 101]
    assert pieces.tokenize("x" * 101) == ["[UNK]"]


@pytest.mark.parametrize("root", both())
def test_wordpiece_agrees_with_the_tokenizers_package_on_corpus_text(root):
    import tokenizers  # a test dependency only: the runtime tokenizes in plain Python

    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece({t: i for i, t in enumerate(VOCAB)}))
    tok.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    mine = WordPiece(VOCAB)
    lines = [
        line
        for path in sorted((root / "codex").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    for line in lines[:60]:
        assert mine.tokenize(line) == tok.encode(line, add_special_tokens=False).tokens


def test_the_static_table_loads_and_makes_unit_vectors_that_put_like_texts_together():
    model = encoder.static()
    assert model is not None and model.dims == 256 and model.table.dtype == np.int8
    found = model.encode(
        ["install the cuda toolkit", "set up nvidia gpu drivers", "bake bread", ""]
    )
    assert found.shape == (4, 256) and found.dtype == np.float32
    assert np.allclose(np.linalg.norm(found[:3], axis=1), 1, atol=1e-5)
    assert not found[3].any()  # no token, no direction
    assert found[0] @ found[1] > found[0] @ found[2]


def test_rrf_orders_turns_as_computed_by_hand():
    words, meaning = ["a", "b", "c"], ["c", "a", "d"]
    fused = fusion.rrf([words, meaning], k=60)
    # a: 1/61 + 1/62 = 0.032516; c: 1/63 + 1/61 = 0.032266; b: 1/62 = 0.016129; d: 1/63
    assert [key for key, _ in fused] == ["a", "c", "b", "d"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1][1] == pytest.approx(1 / 63 + 1 / 61)
    # equal scores: the one ranked higher somewhere first, then by key
    assert [key for key, _ in fusion.rrf([["x", "y"], ["y", "x"]])] == ["x", "y"]
    assert [key for key, _ in fusion.rrf([["q"], ["p", "q"]], k=1)] == ["q", "p"]


def test_vectors_folded_turn_by_turn_equal_a_full_rebuild(store):
    log = store.log_path("t1")
    write(store, "t1", turn("install the cuda toolkit please", "ran apt install cuda", 0))
    model = encoder.builtin()
    first = vectors.update(log, model)
    assert [e.kind for e in first.entries] == ["card"]
    write(store, "t1", turn("the paper has broken references", "fixed bibtex", 10))
    write(store, "t1", [r.ContextCompact(note="we fixed the paper and cuda", at=at(20))])
    write(store, "t1", turn("push the branch", "pushed", 30))
    folded = vectors.update(log, model)
    assert folded.matrix()[:1].tobytes() == first.matrix().tobytes()
    vectors.path_of(log).unlink()
    rebuilt = vectors.update(log, model)
    assert folded.entries == rebuilt.entries
    assert folded.vectors == rebuilt.vectors
    kinds = [(e.kind, e.turn) for e in rebuilt.entries]
    assert kinds == [("card", 2), ("card", 5), ("card", 9), ("note", 5)]  # noted in turn 5


def test_a_fold_encodes_only_the_texts_that_changed(store):
    log = store.log_path("t1")
    write(store, "t1", turn("first prompt about wallets", "ok", 0))
    counting = Counting()
    vectors.update(log, counting)
    write(store, "t1", turn("second prompt about vaults", "ok", 10))
    vectors.update(log, counting)
    vectors.update(log, counting)  # unchanged log: nothing encoded
    assert [text.split("\n")[:2] for text in counting.texts] == [
        ["p", "first prompt about wallets"],  # the task's folder, /work/p, then the prompt
        ["p", "second prompt about vaults"],
    ]


def test_a_card_text_names_the_task_folder_and_the_errors_met(store):
    log = store.log_path("t1")
    items = [
        r.Message(text="deploy the site"),
        r.Error(text="rg is not recognized as the name of a cmdlet"),
        r.Reply(text="Deployed"),
        r.TurnEnd(status="completed"),
    ]
    write(store, "t1", items, project="C:\\Users\\kunal\\Empire-of-bits-main")
    counting = Counting()
    vectors.update(log, counting)
    (text,) = counting.texts
    lines = text.split("\n")
    assert lines[:2] == ["Empire-of-bits-main", "deploy the site"]
    assert "rg is not recognized as the name of a cmdlet" in lines


def test_a_damaged_or_foreign_vec_file_is_rebuilt(store):
    log = store.log_path("t1")
    write(store, "t1", turn("a prompt", "a reply", 0))
    vectors.path_of(log).write_bytes(b"not msgpack")
    assert vectors.load(log).entries == []
    assert len(vectors.update(log, encoder.builtin()).entries) == 1


def test_refresh_encodes_nothing_while_the_mode_is_words(store):
    write(store, "t1", turn("a prompt", "a reply", 0))
    settings.update(store.root, search_mode="words")
    memory.refresh(store)
    assert not vectors.path_of(store.log_path("t1")).exists()
    settings.update(store.root, search_mode="both")
    memory.refresh(store)
    assert vectors.path_of(store.log_path("t1")).exists()


def test_deleting_a_task_deletes_its_vectors(store):
    write(store, "t1", turn("a prompt", "a reply", 0))
    memory.refresh(store)
    assert vectors.path_of(store.log_path("t1")).exists()
    store.delete("t1")
    assert not vectors.path_of(store.log_path("t1")).exists()


def paraphrase_store(store: Store) -> None:
    write(store, "gpu", turn("install the cuda toolkit on the laptop", "installed nvcc", 0))
    write(store, "paper", turn("the latex bibliography shows question marks", "fixed refs", 0))
    write(store, "git", turn("rewrite commit author emails", "rebased with new author", 0))
    memory.encode(store)  # as the background does: a search encodes only its query


def test_meaning_finds_a_turn_that_shares_no_word_with_the_query(store):
    paraphrase_store(store)
    query = "set up nvidia graphics drivers"
    assert memory.search(store, query, mode="words").turns == []
    found = memory.search(store, query, mode="both")
    assert found.mode == "both"
    assert found.turns[0].task == "gpu"
    assert found.turns[0].events[0].lines == ["install the cuda toolkit on the laptop"]


def test_turns_read_while_the_query_is_encoded_are_those_read_after_it(store, corpus):
    for agent in ("claude", "codex"):
        import_paths(store, agent, [corpus / agent])
    memory.encode(store)
    state = wordindex.refresh(store)
    query = "why did the pager test fail"
    terms = set(memory.search(store, query, mode="both").terms)
    found = hits(store, state, query, None, fusion.DEPTH)
    made = fusion.turns_meanwhile(store, state, found, terms, 20, lambda: True)
    assert len(made) == 20  # the best 20 turns by words, read ahead
    assert fusion.turns_meanwhile(store, state, found, terms, 20, lambda: False) == {}
    meant, _ = fusion.meaning_ranking(store, state, query, None, encoder.current(store.root))
    order = fusion.weighted(fusion.word_scores(found), meant)[:20]
    shown = {key for key, _ in order}
    assert shown & made.keys() and shown - made.keys()  # some read ahead, some not
    ahead = fusion.assemble(store, state, order, found, terms, made)
    assert ahead == fusion.assemble(store, state, order, found, terms)
    assert [(turn.task, turn.first_seq) for turn in ahead] == [key for key, _ in order]


def test_a_turn_found_by_meaning_alone_shows_its_prompt_whatever_its_offset_index_says(store):
    paraphrase_store(store)
    query = "set up nvidia graphics drivers"
    first = memory.search(store, query, mode="both").turns[0]
    index = store.log_path("gpu").with_suffix(".idx")
    for wrong in (b"", b"\x00" * 16, index.read_bytes()[8:] + (1 << 40).to_bytes(8, sys.byteorder)):
        index.write_bytes(wrong)  # missing entries, the wrong offsets, one past the end
        again = memory.search(store, query, mode="both").turns[0]
        assert again == first
        assert again.events[0].lines == ["install the cuda toolkit on the laptop"]
    index.unlink()
    assert memory.search(store, query, mode="both").turns[0] == first


def test_search_fails_open_to_words_when_the_model_is_missing(store, tmp_path, monkeypatch):
    paraphrase_store(store)
    monkeypatch.setattr(encoder, "MODEL", tmp_path / "nothing")
    monkeypatch.setattr(encoder, "_builtin", None)
    found = memory.search(store, "cuda toolkit", mode="both")
    assert found.mode == "words"
    assert [turn.task for turn in found.turns] == ["gpu"]


def test_turns_of_tasks_not_encoded_yet_take_part_by_words_and_the_answer_says_so(store, capsys):
    write(store, "gpu", turn("install the cuda toolkit on the laptop", "installed nvcc", 0))
    vectors.update(store.log_path("gpu"), encoder.current(store.root))
    write(store, "git", turn("rewrite commit author emails", "rebased with new author", 0))
    found = memory.search(store, "commit author emails", mode="both")
    assert found.mode == "both"
    assert [turn.task for turn in found.turns] == ["git"]
    assert (found.covered, found.searched) == (1, 2)
    assert not vectors.path_of(store.log_path("git")).exists()  # the search encoded no card
    found = memory.search(store, "set up nvidia graphics drivers", mode="both")
    assert [turn.task for turn in found.turns] == ["gpu"]  # meaning, where it is made
    assert cli.main(["memory", "search", "--mode", "both", "commit", "author"]) == 0
    said = capsys.readouterr()
    assert "meaning: 1 of 2 tasks so far; the rest by words" in said.err and "git" in said.out


def test_the_mode_comes_from_settings_unless_given(store):
    paraphrase_store(store)
    assert settings.load(store.root).search_mode == "both"
    settings.update(store.root, search_mode="words")
    assert memory.search(store, "set up nvidia graphics drivers").turns == []
    assert memory.search(store, "set up nvidia graphics drivers", mode="meaning").turns
    with pytest.raises(BadInput):
        memory.search(store, "cuda", mode="vibes")
    with pytest.raises(BadInput):
        settings.update(store.root, search_mode="vibes")


def test_the_cli_takes_a_mode(store, capsys):
    paraphrase_store(store)

    def run(*argv) -> tuple[int, str]:
        code = cli.main(["memory", "search", *argv])
        return code, capsys.readouterr().out

    code, out = run("--mode", "meaning", "--json", "nvidia", "drivers")
    assert code == 0
    assert json.loads(out)["mode"] == "meaning"
    code, out = run("--mode", "words", "nvidia", "drivers")
    assert code == 0 and "Nothing found." in out
    code, out = run("--mode", "both", "nvidia", "drivers")
    assert code == 0 and "install the cuda toolkit on the laptop" in out
    with pytest.raises(SystemExit) as stopped:
        run("--mode", "vibes", "x")
    assert stopped.value.code == 2


@pytest.mark.parametrize(
    ("query", "asked"),
    [  # two paraphrases of tests/data/search_questions.tsv (tools/eval_search.py scores all)
        (
            "reword the code remarks that misled the person checking the pull request",
            "fix the comments that confused the reviewer?",
        ),
        ("strange quote marks showing up at the top of the document", "Page one has"),
    ],
)
def test_both_finds_corpus_paraphrases_that_words_alone_miss(store, corpus, query, asked):
    for agent in ("claude", "codex"):
        import_paths(store, agent, [corpus / agent])
    state = wordindex.refresh(store)
    by_words = fusion.word_ranking(hits(store, state, query, None, fusion.DEPTH))
    target = [
        (task, turn.first_seq)
        for task in state.tasks
        for turn in memory.turn_cards(store, task)
        if turn.asked.startswith(asked)
    ]
    assert len(target) == 1
    assert target[0] not in by_words[:5]
    memory.encode(store)  # the background's work: a search encodes only its query
    found = memory.search(store, query, memory.Where(limit=5), mode="both").turns
    assert target[0] in [(turn.task, turn.first_seq) for turn in found[:3]]


def test_tools_are_importable_without_the_build_venv():
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "tools"))
    try:
        import eval_search

        asked = eval_search.questions()
        assert len(asked) >= 171
        assert {q["kind"] for q in asked} == set(eval_search.KINDS)
        agents = {q["source"].split("/")[1] for q in asked if q["source"].count("/") == 2}
        assert {"gemini-cli", "copilot-cli", "opencode", "aider", "antigravity", "cursor"} <= agents
    finally:
        sys.path.remove(str(root / "tools"))


def test_the_windows_measured_come_first_from_failed_outputs_then_the_final_reply():
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "tools"))
    try:
        import eval_windows
    finally:
        sys.path.remove(str(root / "tools"))
    long_output = "x" * 250
    parts = [[2, long_output, 2], [0, "rg is not recognized", 3], [1, "done: the grant is sent", 4]]
    chosen = eval_windows.windows(parts, 100, 4)
    assert chosen == ["rg is not recognized", "done: the grant is sent", "x" * 100, "x" * 100]
    assert len(eval_windows.windows(parts, 100, 32)) == 5  # 250 characters: 0, 75, 150


def test_the_page_sets_the_search_mode_through_the_api(store):
    import urllib.error
    import urllib.request

    from nodwyn.api import Server

    paraphrase_store(store)
    server = Server(store, port=0, token="t0ken").start()
    try:

        def call(path, body=None):
            request = urllib.request.Request(
                f"http://127.0.0.1:{server.port}{path}",
                data=None if body is None else json.dumps(body).encode(),
                headers={"X-Nodwyn-Token": "t0ken", "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read())

        assert call("/api/search?q=nvidia+graphics+drivers")["mode"] == "both"
        assert call("/api/settings", {"search_mode": "words"})["search_mode"] == "words"
        found = call("/api/search?q=nvidia+graphics+drivers")
        assert (found["mode"], found["turns"]) == ("words", [])
        with pytest.raises(urllib.error.HTTPError) as refused:
            call("/api/settings", {"search_mode": "vibes"})
        assert refused.value.code == 400
        refused.value.close()
    finally:
        server.stop()


def test_the_cli_chooses_the_mode_and_the_embeddings(store, capsys):
    assert cli.main(["settings", "search-mode", "meaning"]) == 0
    assert settings.load(store.root).search_mode == "meaning"
    assert cli.main(["settings", "embeddings", "ollama", "http://127.0.0.1:11434", "nomic"]) == 0
    assert "will be sent there" in capsys.readouterr().out
    chosen = settings.load(store.root)
    assert (chosen.embeddings, chosen.embeddings_url, chosen.embeddings_model) == (
        "ollama", "http://127.0.0.1:11434", "nomic",
    )  # fmt: skip
    assert cli.main(["settings", "embeddings", "openai", "no-address", "m"]) != 0
    assert settings.load(store.root).embeddings == "ollama"
    assert cli.main(["settings", "embeddings", "builtin"]) == 0
    assert settings.load(store.root).embeddings == "builtin"
