"""The fast compound finder (words.compounds) gives exactly what its one-regex definition
(words.COMPOUND's matches, cut by words.PART) gives, on odd strings and on real-looking text."""

import random
import re

from nodwyn.memory import words

COMPOUND, PART = re.compile(words.COMPOUND), re.compile(words.PART)


def by_definition(text: str) -> str:
    return " ".join(PART.findall(" ".join(COMPOUND.findall(text))))


def test_compounds_are_cut_into_parts_for_the_parts_field():
    text = "Fix TestPagerOrder in parse_config.py for http2 and HTTPServer v1.2 getX 42 ABC9d"
    assert words.compounds(text) == "Test Pager Order http 2 v 1 get X ABC 9 d"
    assert words.compounds(text) == by_definition(text)


def test_compounds_agree_with_the_definition_on_random_strings():
    rng = random.Random(4)
    alphabet = "aAbZz09_ .-/éÉ\n"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert words.compounds(text) == by_definition(text), text


def test_compounds_agree_with_the_definition_on_code_and_prose():
    pieces = [
        "parseConfig", "XMLHttpRequest2", "utf8", "Fix", "HTTPServer", "12345", "v2", "the",
        "café", "snake_case_name", "CamelCase42x", "A1b2C3", "ÉtéX", "x" * 70, "README.md",
        "src/http2/Server.go", "0xFF", "IPv6", "aB", "Ab", "AB", "a1",
    ]  # fmt: skip
    rng = random.Random(5)
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) + rng.choice(" ._/-\n(") for _ in range(12))
        assert words.compounds(text) == by_definition(text), text
        assert words.parts(text) == [
            t for t in (p.lower() for p in by_definition(text).split()) if words._keep(t)
        ]
