"""The page marks words as search matches them: marks.js's stop words are tokens.py's."""

import re
from pathlib import Path

from nodwyn.memory.words import tokens

MARKS = Path(__file__).resolve().parents[1] / "frontend" / "js" / "marks.js"


def test_the_pages_stop_words_are_the_searchs():
    source = MARKS.read_text(encoding="utf-8")
    listed = re.search(r"const COMMON = `([^`]*)`", source).group(1)
    assert frozenset(listed.split()) == tokens.STOP
    assert f"const LONG = {tokens.LONG};" in source
