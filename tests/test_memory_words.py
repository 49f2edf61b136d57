"""Words: lower-cased, identifiers split into parts, common English words dropped; the index
(tantivy, in Rust) and the Python twin must cut text the same way."""

import tantivy
from nodwyn.memory.words import index, tokens


def test_identifiers_are_also_split_at_case_changes_digits_underscores_dots_and_slashes():
    assert tokens.parts("TestPagerOrder") == ["test", "pager", "order"]
    assert tokens.words("parse_config.py") == ["parse", "config", "py"]
    assert tokens.words("src/http2/Server.go") == ["src", "http2", "server", "go"]
    assert tokens.parts("src/http2/Server.go get_userName") == ["http", "2", "user", "name"]
    assert tokens.words("parse_config.py TestPagerOrder") == [
        "parse",
        "config",
        "py",
        "testpagerorder",
    ]


def test_the_commonest_english_words_count_for_nothing():
    assert tokens.words("What is the state of the pager") == ["state", "pager"]
    assert tokens.query_terms("the and of") == []


def test_query_terms_are_the_words_then_the_parts_without_repeats():
    assert tokens.query_terms("TestPagerOrder pager") == [
        "testpagerorder",
        "pager",
        "test",
        "order",
    ]
    fields = tokens.query_fields("TestPagerOrder pager")
    assert fields["words"] == ["testpagerorder", "pager"]
    assert fields["parts"] == ["testpagerorder", "pager", "test", "order"]


def test_very_long_tokens_are_dropped():
    blob = "a" * 100
    assert tokens.words(f"x {blob} y") == ["x", "y"]


def test_tantivy_tokenises_exactly_like_the_python_twin(tmp_path):
    text = (
        "Fix TestPagerOrder in parse_config.py at src/http2/Server.go; the HTTPServer's "
        "retry_count=3 and café CamelCase42x " + "z" * 70
    )
    built = tantivy.Index(index.SCHEMA, path=str(tmp_path))
    for name, analyzer in tokens.analyzers():
        built.register_tokenizer(name, analyzer)
    writer = built.writer(15_000_000, 1)
    doc = tantivy.Document()
    doc.add_text("words", text)
    doc.add_text("parts", tokens.compounds(text))
    writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    built.reload()
    searcher = built.searcher()
    for field, expected in tokens.streams(text).items():
        for token in expected:
            assert searcher.doc_freq(field, token) == 1, (field, token)
        for absent in ("the", "in", "at", "z" * 70, "Fix"):
            assert searcher.doc_freq(field, absent) == 0, (field, absent)
