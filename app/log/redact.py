"""Redaction of secrets: keys, tokens, private keys and passwords become `[redacted]`.

Applied to every record before it is written (on the encoded JSON line) and again to text
read for display or search. What counts as a secret is redact_rules.py's; this module applies
the rules fast and the same way every time. A JSON line stays valid JSON, and redacting twice
changes nothing.

Speed (every imported line passes here): each rule runs only on text that passes a cheap test
true wherever the rule could match (a substring, a count), and the rules anchored on a secret
word (a key name before `=` or `:`, prose) are tried only at the spots where the word stands
in the lower-cased text. tests/test_redact_gates.py checks the result equals applying every
rule to the whole text.
"""

import re

import ahocorasick_rs

from . import redact_rules as rules
from .redact_rules import MARK, RULES  # noqa: F401 (read as redact.MARK, redact.RULES)

# Each rule with the strings, lower-cased, of which one must be in the lower-cased text for
# the rule to match: found all at once by one Aho-Corasick pass over the text.
_RULES = [
    (rules.TOKEN, MARK, rules.TOKEN_HINTS),
    (rules.WEBHOOK, MARK, ("/services/t", "/api/webhooks/")),
    (rules.BEARER, r"\1" + MARK, ("bearer",)),
    (rules.AUTHORIZATION, rules.authorization, ("authorization",)),
    (rules.BASIC, rules.basic, ("basic",)),
    (rules.PEM, MARK, ("private key",)),
    (rules.URL_PASSWORD, r"\1" + MARK + "@", ("://",)),
    (rules.KEYPAIR, rules.keypair, ()),  # gated by its commas
    (rules.CURL_USER, rules.curl_user, ("-u",)),
    (rules.FLAG, rules.flag, ("--",)),
    # the two below are tried at the spots of their words only (see _sub_at)
    (rules.NAMED, rules.named, rules.NAMED_WORDS),
    (rules.PROSE, rules.prose, rules.PROSE_WORDS),
]
_PATTERNS = [(pattern, replacement) for pattern, replacement, _ in _RULES]
_NEEDLES = sorted({needle.lower() for *_, needles in _RULES for needle in needles})
_RULE_OF = [
    {i for i, (*_, needles) in enumerate(_RULES) if needle in map(str.lower, needles)}
    for needle in _NEEDLES
]
_FINDER = ahocorasick_rs.AhoCorasick(_NEEDLES)
_NAMED, _PROSE = len(_RULES) - 2, len(_RULES) - 1
_KEYPAIR = [pattern for pattern, *_ in _RULES].index(rules.KEYPAIR)
_STELLAR = re.compile(r"S[A-Z2-7]{55}")  # the one token without a literal part


def _fold(text: str) -> str:
    """The text lower-cased, each character where it was: a regular expression under
    IGNORECASE matches a letter where this has its lower case."""
    if "\u0130" in text:  # dotted capital I: lower() makes two characters of it, re an i
        text = text.replace("\u0130", "i")
    folded = text.lower()
    if "\u017f" in folded or "\u0131" in folded:  # long s and dotless i match s and i
        folded = folded.replace("\u017f", "s").replace("\u0131", "i")
    return folded


# Characters NAMED's `[A-Za-z0-9_\-]` takes under IGNORECASE.
_ID = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-\u0130\u0131\u017f\u212a"
)


def _scan(text: str, folded: str) -> tuple[set[int], list[int], list[int]]:
    """The rules whose strings are in the text, and the spots of NAMED's and PROSE's words."""
    seen: set[int] = set()
    named, prose = [], []
    for needle, start, _end in _FINDER.find_matches_as_indexes(folded, overlapping=True):
        found = _RULE_OF[needle]
        seen |= found
        if _NAMED in found and rules.NAMED_AT.match(folded, start):
            named.append(start)
        if _PROSE in found:
            prose.append(start)
    if text.count(",") >= 63:
        seen.add(_KEYPAIR)
    if _STELLAR.search(text):
        seen.add(0)
    return seen, sorted(named), sorted(prose)


def _named_start(text: str):
    """Where a NAMED match holding the word at `key` may start: in the run of identifier
    characters before it."""

    def start(key: int, last: int) -> int:
        while key > last and text[key - 1] in _ID:
            key -= 1
        return key

    return start


def _prose_start(key: int, last: int) -> int:
    return max(key - rules.PROSE_BACK, last)


def _sub_at(rule, text: str, spots, start) -> str:
    """`pattern.sub(replace, text)` for a pattern whose every match starts between
    `start(spot, last)` and a spot (spots in order). Trying those starts in order from the
    left gives the same matches as `sub` over the whole text."""
    pattern, replace = rule
    parts, last, tried = [], 0, 0
    for key in spots:
        if key < last:
            continue
        for begin in range(max(start(key, last), tried), key + 1):
            found = pattern.match(text, begin)
            if found:
                parts += (text[last:begin], replace(found))
                last = found.end()
                break
        tried = max(key + 1, last)
    return _joined(parts, text, last)


def _joined(parts: list[str], text: str, last: int) -> str:
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def redact(text: str) -> str:
    """`text` with every secret replaced by [redacted]."""
    folded = _fold(text)
    if len(folded) != len(text):  # lower-casing moved positions (never so far): the slow way
        return _every_rule(text)
    seen, named, prose = _scan(text, folded)
    before = text
    for rule in sorted(seen - {_NAMED, _PROSE}):
        pattern, replacement, _ = _RULES[rule]
        text = pattern.sub(replacement, text)
    if text != before:  # spots moved
        seen, named, prose = _scan(text, _fold(text))
    if named:
        before = text
        text = _sub_at(_PATTERNS[_NAMED], text, named, _named_start(text))
        if text != before:
            _, _, prose = _scan(text, _fold(text))
    if prose:
        text = _sub_at(_PATTERNS[_PROSE], text, prose, _prose_start)
    return text


def _every_rule(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redacted_count(before: str, after: str) -> int:
    """How many values redaction hid in `before` to give `after`."""
    return after.count(MARK) - before.count(MARK)
