"""Text work that runs per event, made fast, gives exactly what its plain definition gives:
the compound finder (tokens.compounds: tokens.COMPOUND's matches cut by tokens.PART; and
tokens.compounds_of, the same for many texts at once, by numpy past tokens.MANY characters) and
the one-line cut of cards (cards.one_line: white space collapsed, then cut)."""

import random
import re

from nodwyn.memory.cards.fold import one_line
from nodwyn.memory.words import tokens

COMPOUND, PART = re.compile(tokens.COMPOUND), re.compile(tokens.PART)


def by_definition(text: str) -> str:
    return " ".join(PART.findall(" ".join(COMPOUND.findall(text))))


def test_compounds_are_cut_into_parts_for_the_parts_field():
    text = "Fix TestPagerOrder in parse_config.py for http2 and HTTPServer v1.2 getX 42 ABC9d"
    assert tokens.compounds(text) == "Test Pager Order http 2 v 1 get X ABC 9 d"
    assert tokens.compounds(text) == by_definition(text)


def test_compounds_agree_with_the_definition_on_random_strings():
    rng = random.Random(4)
    alphabet = "aAbZz09_ .-/éÉ\n"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert tokens.compounds(text) == by_definition(text), text


def test_compounds_agree_with_the_definition_on_code_and_prose():
    pieces = [
        "parseConfig", "XMLHttpRequest2", "utf8", "Fix", "HTTPServer", "12345", "v2", "the",
        "café", "snake_case_name", "CamelCase42x", "A1b2C3", "ÉtéX", "x" * 70, "README.md",
        "src/http2/Server.go", "0xFF", "IPv6", "aB", "Ab", "AB", "a1",
    ]  # fmt: skip
    rng = random.Random(5)
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) + rng.choice(" ._/-\n(") for _ in range(12))
        assert tokens.compounds(text) == by_definition(text), text
        assert tokens.parts(text) == [
            t for t in (p.lower() for p in by_definition(text).split()) if tokens._keep(t)
        ]


def test_compounds_of_many_texts_at_once_are_each_texts_own():
    pieces = [
        "parseConfig", "XMLHttpRequest2", "utf8", "HTTPServer", "12345", "v2", "café", "ÉtéX",
        "CamelCase42x", "A1b2C3", "x" * 70, "0xFF", "aB", "Ab", "AB", "a1", "Ǆx9", "\x00",
        "\ud800", "日本X2", "",
    ]  # fmt: skip
    rng = random.Random(7)
    long = " ".join(pieces) * (tokens.MANY // len(" ".join(pieces)) + 1)  # numpy's way for all
    for _ in range(40):
        sizes = [rng.choice([0, 1, 5, 40, 900]) for _ in range(rng.randint(1, 200))]
        texts = ["".join(rng.choice(pieces) + rng.choice(" ._/-\n(") for _ in range(size))
                 for size in sizes]  # fmt: skip
        texts.insert(rng.randint(0, len(texts)), long)
        assert tokens.compounds_of(texts) == [by_definition(text) for text in texts]
    assert tokens.compounds_of([]) == []
    assert tokens.compounds_of(["plain words only " * 5000, "NOTHING HERE 42"]) == ["", ""]
    assert tokens.compounds_of(["a" * tokens.MANY, "getX"]) == ["", "get X"]


def one_line_by_definition(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def test_a_long_text_cut_to_one_line_is_what_collapsing_all_of_it_gives():
    rng = random.Random(6)
    for _ in range(20_000):
        limit = rng.choice([1, 2, 5, 10, 60])
        text = "".join(rng.choice("ab  \n\t\u3000x") for _ in range(rng.randint(0, 300)))
        assert one_line(text, limit) == one_line_by_definition(text, limit), (text, limit)
    long_prompt = "Fix   the pager\n" * 10_000
    assert one_line(long_prompt, 60) == one_line_by_definition(long_prompt, 60)
