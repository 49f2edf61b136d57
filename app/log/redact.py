"""Redaction of secrets: keys, tokens, private keys and passwords become `[redacted]`.

Applied to every record before it is written (on the encoded JSON line) and again to text
read for display or search. The patterns work on plain text and on JSON text alike: none of
them matches a quote or a backslash inside the secret, and a secret that follows an escaped
newline (`\\n` in JSON) is still found. `[redacted]` itself contains neither, so redacting a
JSON line keeps it valid JSON, and redacting twice changes nothing.

Each pattern is anchored on a prefix that ordinary prose does not contain (`sk-`, `ghp_`,
`AKIA`, `-----BEGIN`), or on a key name right before `=`, so ordinary text is left alone.

Speed (every imported line passes here): each pattern runs only on text that passes a cheap
test true wherever the pattern could match, and key=value is tried only around the spots where
a key name stands before `=`; tests/test_redact_gates.py checks the result equals applying
every pattern to the whole text.
"""

import re

MARK = "[redacted]"

# Start of a secret: not glued to a word before it, except after an escaped \n, \t or \r.
_B = r"(?:(?<![A-Za-z0-9_\-])|(?<=\\[ntr]))"

_TOKENS = [
    r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",  # Anthropic, OpenAI, other sk-
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}(?![0-9A-Z])",  # AWS access key ids
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack tokens
    r"AIza[0-9A-Za-z_\-]{35}",  # Google API keys
    r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # JWTs
]

_PATTERNS = [
    (re.compile(_B + "(?:" + "|".join(_TOKENS) + ")"), MARK),
    # Bearer tokens: keep the word, hide the token.
    (re.compile(r"(?<![A-Za-z])(Bearer\s+)[A-Za-z0-9._~+/=\-]{12,}"), r"\1" + MARK),
    # PEM private key blocks, in plain text or inside one JSON string.
    (
        re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[^\"]*?-----END \1PRIVATE KEY-----"),
        MARK,
    ),
    # Passwords in URLs: scheme://user:password@host
    (
        re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"\\]+:)[^\s@/\"\\]+@"),
        r"\1" + MARK + "@",
    ),
    # key=value in URLs and assignments; a quoted value may have spaces around `=`.
    (
        re.compile(
            r"(?i)((?<![A-Za-z0-9])[A-Za-z0-9_\-]*?"
            r"(?:api[_\-]?key|access[_\-]?key|token|password|passwd|secret)"
            r"(?:=|\s*=\s*(?=\\?[\"'])))(?!=)(\\?[\"']?)([^\s\"'\\&;,)<>]{4,})"
        ),
        r"\1\2" + MARK,
    ),
]

# Cheap tests first, one per pattern: each is true wherever its pattern could match (a superset),
# and most lines pass none, so the regular expressions run on few lines.
_GITHUB = re.compile(r"gh[pousr]_")
_AMAZON_GOOGLE = re.compile(r"A(?:KIA|SIA|GPA|IDA|ROA|Iza)")


def _token_prefix(text: str) -> bool:
    """Whether one of the token patterns' literal prefixes is in the text."""
    return (
        "sk-" in text
        or "eyJ" in text
        or "xox" in text
        or "github_pat_" in text
        or ("gh" in text and _GITHUB.search(text) is not None)
        or ("A" in text and _AMAZON_GOOGLE.search(text) is not None)
    )


# The key names of the last pattern, lower-cased; re's IGNORECASE also folds these two letters.
_KEY_WORDS = ("key", "token", "passw", "secret")
_KEY_AT = re.compile(r"(?:key|token|passw(?:or)?d|secret)\s*=")
_KEYS = _PATTERNS[-1][0]


def _fold(text: str) -> str:
    folded = text.lower()
    if "\u017f" in folded or "\u0131" in folded:  # long s and dotless i match s and i
        folded = folded.replace("\u017f", "s").replace("\u0131", "i")
    return folded


# Characters the last pattern's `[A-Za-z0-9_\-]` takes under IGNORECASE.
_ID = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-\u0130\u0131\u017f\u212a"
)


def _sub_keys(pattern: re.Pattern, replacement: str, text: str, folded: str) -> str:
    """`pattern.sub` for the key=value pattern, tried only around `key=`-like spots.

    Every match of the pattern holds a key name followed by `=`, found quickly in the
    lower-cased text; the match starts in the run of identifier characters before it. Trying
    those starts in order from the left gives the same matches as `sub` over the whole text.
    """
    if len(folded) != len(text):  # lower-casing moved positions: take the slow way
        return pattern.sub(replacement, text)
    parts, last, tried = [], 0, 0
    for hit in _KEY_AT.finditer(folded):
        key = hit.start()
        if key < last:
            continue
        start = key
        while start > last and text[start - 1] in _ID:
            start -= 1
        for begin in range(max(start, tried), key + 1):
            found = pattern.match(text, begin)
            if found:
                parts += (text[last:begin], found.expand(replacement))
                last = found.end()
                break
        tried = max(key + 1, last)
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


_GATES = (
    _token_prefix,
    lambda text: "Bearer" in text,
    lambda text: "PRIVATE KEY" in text,
    lambda text: "://" in text and "@" in text,
)


def redact(text: str) -> str:
    """`text` with every secret replaced by [redacted]."""
    for gate, (pattern, replacement) in zip(_GATES, _PATTERNS, strict=False):
        if gate(text):
            text = pattern.sub(replacement, text)
    if "=" in text:  # the last pattern, key=value, needs a key name and `=`
        folded = _fold(text)
        if any(word in folded for word in _KEY_WORDS):
            text = _sub_keys(_KEYS, _PATTERNS[-1][1], text, folded)
    return text
