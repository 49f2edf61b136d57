"""Words as search sees them: the same rules in Python (queries, tests) and in tantivy.

Two token streams are made of every text, one per index field:
- `words`: runs of letters and digits, lower-cased (tantivy's simple tokenizer), so
  `parse_config.py` is parse, config, py and `TestPagerOrder` is testpagerorder;
- `parts`: the pieces of compound identifiers, split at case changes and between letters and
  digits: `TestPagerOrder` -> test, pager, order; `http2` -> http, 2. Python picks the
  compounds out of the text and cuts them into parts (`compounds`), and tantivy's simple
  tokenizer reads those: tantivy's regex tokenizer over all text cost several times the CPU of
  its simple tokenizer, and even over the compounds alone it cost more than cutting them in
  Python, which the fold helper can take (figures in ADR 0059).
Both drop the commonest English words (STOP) and tokens of LONG bytes or more (base64 and
hashes would only bloat the index).

A query looks for its words in both fields and for its compounds' parts in `parts`
(`query_fields`), so "pager" finds both "pager" and "TestPagerOrder"; search.py scores each
word in the better of the two fields, so it counts once. `tokens()` is the Python
twin of what tantivy indexes, used by the tests' BM25 oracle. The two agree because `parts`
sees only ASCII and `[^\\W_]` is Python's reading of Rust's `char::is_alphanumeric` (they
differ only on rare combining marks).
"""

import re

WORD = r"[^\W_]+"
PART = r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+"
COMPOUND = r"(?<![A-Za-z0-9])[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z])[A-Za-z0-9]*"
LONG = 64  # tantivy's RemoveLongFilter drops tokens of this many bytes or more
# The word index's format, made anew when it changes (2: the simple tokenizer for `words`;
# 3: `parts` of compounds only; 4: turn_at).
FORMAT = 4

# The commonest English words (function words); they would match almost every event.
_COMMON = """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with i you he she we me my your our its them what
    which who whom do does did have has had been being were am so than too very can could
    would should just also from up out about over only own same any all both each few more most
    other some here when where why how again further once"""
STOP = frozenset(_COMMON.split())

_word = re.compile(WORD)
_part = re.compile(PART)
_compound = re.compile(COMPOUND)  # what `compounds` finds, as one regex (the tests' oracle)
# From a capital or digit that follows small letters (the rest of `parseConfig`, `v2`), or that
# starts a run unless the run is plain: capitals then small letters (`Fix`, `HTTPServer`) or
# all digits. Starting at a capital or digit skips the small letters of text at C speed.
_capital = re.compile(
    r"[A-Z0-9](?:(?<=[a-z].)|(?<![A-Za-z0-9].)(?!(?<=[A-Z])[A-Z]*[a-z]*(?![A-Za-z0-9])"
    r"|(?<=[0-9])[0-9]*(?![A-Za-z0-9])))[A-Za-z0-9]*"
)
_separator = re.compile(r"[\\/]")  # between the parts of a POSIX or Windows path
_SMALL = frozenset("abcdefghijklmnopqrstuvwxyz")


def _keep(token: str) -> bool:
    return token not in STOP and len(token.encode()) < LONG


def words(text: str) -> list[str]:
    """The `words` field's tokens of a text, in order."""
    return [t for t in (m.lower() for m in _word.findall(text)) if _keep(t)]


def compounds(text: str) -> str:
    """The parts of the compound identifiers of a text, space-separated: what the `parts`
    field is given (`TestPagerOrder in http2` -> `Test Pager Order http 2`).

    The compounds are COMPOUND's matches, found at 40% of that regex's CPU (this runs over
    every indexed text): a run of ASCII letters and digits is a compound unless it is all
    digits or a run of capitals then small letters (`HTTPServer`, `Fix`, `parse`), so only a
    run holding a capital or a digit can be one, and one with small letters before its first
    capital or digit is one at once. `_capital` finds those runs from that character on."""
    found = []
    for match in _capital.finditer(text):
        start, end = match.span()
        lead = start
        while lead and text[lead - 1] in _SMALL:
            lead -= 1
        found.append(text[lead:end])
    return " ".join(_part.findall(" ".join(found)))


MANY = 64 << 10  # characters from which compounds_of cuts texts' compounds with numpy
_tables: list = []  # compounds_of's: the class of each byte, and which class pairs are joins


def compounds_of(texts: list[str]) -> list[str]:
    """`compounds` of each text, found for all of them at once: what a first build asks for
    every event. Up to MANY characters in all, each by `compounds`; past it by whole-array
    steps in numpy over the texts' UTF-8 bytes (2.2x less CPU on the real corpus's 62 MB of
    indexed text, where the regex and its loop run at each capital and digit).

    Each byte gets a class (0 anything else, 1 small letter, 2 capital, 3 digit; bytes of
    characters past ASCII are 0, as COMPOUND sees them). A join is a pair of neighbours that
    makes a run a compound (small then capital or digit, letter then digit, digit then
    letter); the runs of non-zero classes holding a join are the compounds, and within them a
    part starts at the run's start, at a join, and at a small letter after two capitals (the
    `HTTPS|erver` that PART cuts); a space goes before each part, and each text's share of
    the result is cut out by where its bytes begin."""
    if sum(map(len, texts)) < MANY:
        return [compounds(text) for text in texts]
    import numpy as np

    data, sizes = _bytes_of(texts, np)
    raw = np.frombuffer(data, np.uint8)
    kept, cuts = _compound_bytes(raw, np)
    if not len(kept):
        return [""] * len(texts)
    out = np.insert(raw[kept], cuts, 32).tobytes()  # a space before each part
    starts = np.cumsum(sizes + 1) - sizes + 1  # where each text's bytes begin in `data`
    owner = np.searchsorted(starts, kept, "right") - 1
    shares = np.bincount(owner, minlength=len(texts))
    shares += np.bincount(owner[cuts], minlength=len(texts))
    last = np.cumsum(shares)
    return [
        out[a + 1 : b].decode()
        for a, b in zip((last - shares).tolist(), last.tolist(), strict=True)
    ]


def _bytes_of(texts: list[str], np) -> tuple[bytes, object]:
    """The texts' UTF-8 bytes, one zero between two and zeros around (every run then has a
    zero on each side), and each text's size in bytes."""
    joined = "\x00".join(texts)
    if joined.isascii():  # a text's bytes are its characters
        data = joined.encode()
        sizes = np.fromiter(map(len, texts), np.int64, len(texts))
    else:
        each = [text.encode("utf-8", "surrogatepass") for text in texts]
        data = b"\x00".join(each)
        sizes = np.fromiter(map(len, each), np.int64, len(texts))
    return b"\x00\x00" + data + b"\x00", sizes


def _compound_bytes(raw, np) -> tuple:
    """Where the bytes of compounds are in `raw` (in order), and which of those begin a part."""
    if not _tables:
        classes, joins = np.zeros(256, np.uint8), np.zeros(16, bool)
        classes[97:123], classes[65:91], classes[48:58] = 1, 2, 3
        joins[[1 * 4 + 2, 1 * 4 + 3, 2 * 4 + 3, 3 * 4 + 1, 3 * 4 + 2]] = True
        _tables[:] = [classes, joins]
    classes, joins = _tables
    kinds = np.take(classes, raw)
    pairs = kinds[:-1] << 2
    pairs |= kinds[1:]
    at = np.flatnonzero(np.take(joins, pairs)) + 1  # the second byte of each join
    if not len(at):
        return at, at
    gaps = np.flatnonzero(kinds == 0)
    ends = np.searchsorted(gaps, at)  # the zero after each join's run
    ends = ends[np.concatenate(([True], ends[1:] != ends[:-1]))]  # each run once
    begin, lengths = gaps[ends - 1] + 1, gaps[ends] - gaps[ends - 1] - 1
    before = np.cumsum(lengths) - lengths
    kept = np.arange(int(before[-1] + lengths[-1])) + np.repeat(begin - before, lengths)
    here, left = kinds[kept], kinds[kept - 1]
    cuts = np.flatnonzero(
        (left == 0)
        | np.take(joins, (left << 2) | here)
        | ((here == 1) & (left == 2) & (kinds[kept - 2] == 2))
    )
    return kept, cuts


def parts(text: str) -> list[str]:
    """The `parts` field's tokens of a text, in order."""
    return [t for t in compounds(text).lower().split() if _keep(t)]


def streams(text: str) -> dict[str, list[str]]:
    """Both token streams of a text as the index holds them, by field name."""
    return {"words": words(text), "parts": parts(text)}


def query_fields(text: str) -> dict[str, list[str]]:
    """The distinct terms a query looks for, by field."""
    found = words(text)
    return {"words": list(dict.fromkeys(found)), "parts": list(dict.fromkeys(found + parts(text)))}


def query_terms(text: str) -> list[str]:
    """The distinct words and parts of a query, in order, as the index matches them."""
    return list(dict.fromkeys(words(text) + parts(text)))


def folder_name(project: str) -> str:
    """The last part of a project folder's path, POSIX or Windows (`trezo-ai`)."""
    return _separator.split(project.rstrip("/\\"))[-1] if project else ""


def analyzers():
    """(name, analyzer) pairs for tantivy's `Index.register_tokenizer`."""
    import tantivy

    def build(tokenizer):
        return (
            tantivy.TextAnalyzerBuilder(tokenizer)
            .filter(tantivy.Filter.remove_long(LONG))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.custom_stopword(sorted(STOP)))
            .build()
        )

    # `parts` is given compounds already cut into parts (see compounds)
    return [(name, build(tantivy.Tokenizer.simple())) for name in ("words", "parts")]
