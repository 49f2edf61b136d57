"""The page marks words as search matches them: frontend/js/marks.js's stop words are words.py's."""

import re
from pathlib import Path

from nodwyn.memory.words import words

MARKS = Path(__file__).resolve().parents[1] / "frontend" / "js" / "marks.js"


def test_the_pages_stop_words_are_the_searchs():
    source = MARKS.read_text(encoding="utf-8")
    listed = re.search(r"const COMMON = `([^`]*)`", source).group(1)
    assert frozenset(listed.split()) == words.STOP
    assert f"const LONG = {words.LONG};" in source
