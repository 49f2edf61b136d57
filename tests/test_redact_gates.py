"""Redaction's cheap gates and key=value shortcut change nothing: same text as the full patterns.

The oracle applies every pattern of `redact._PATTERNS` to the whole text with `re.sub`, as
redaction did before the shortcut; real corpus lines and made-up awkward strings must agree.
"""

import random

from importing import raw_lines
from nodwyn.log import redact as redaction
from nodwyn.log.records import _encoder


def full(text: str) -> str:
    for pattern, replacement in redaction._PATTERNS:
        text = pattern.sub(replacement, text)
    return text


AWKWARD = [
    "api_key=abcd1234 and x_TOKEN = 'qwerty12' then password=hunter22;",
    "my-secret-key=zzzz9999 secret_key='s3cr3t-value' PASSWD=longenough",
    'token==notasecret token= spaced key=abc token=\\"quoted1234\\"',
    "a_b_c_d_e_token=1234abcd-e_token=5678efgh",
    "İ_token=abcdef12 ſecret=abcdef12 \u212aey=abcdef12 ıapi_key=abcdef12",
    "\\napi_key=abcdef12 \\tAKIAIOSFODNN7EXAMPLE sk-" + "a" * 30,
    "https://user:pa55word@host/path?access-key=12345678&token=abcdefgh",
    "x" * 50 + "token" + " " * 3 + "=" + " " * 2 + '"value-with-quote"',
]


def test_awkward_strings_are_redacted_exactly_as_by_the_full_patterns():
    for text in AWKWARD:
        assert redaction.redact(text) == full(text), text


def test_random_strings_are_redacted_exactly_as_by_the_full_patterns():
    rng = random.Random(3)
    pieces = ["token", "key", "api_", "Secret", "=", " ", "'", '"', "\\", "-", "_", "ab12",
              "PASSWORD", "x", "&", "İ", "ſ", "ı", "\u212a", "sk-", "://", "@", "\\n"]  # fmt: skip
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        assert redaction.redact(text) == full(text), text


def test_real_session_lines_are_redacted_exactly_as_by_the_full_patterns(corpus):
    for path in sorted((corpus / "claude").glob("*.jsonl"))[:8]:
        for line in raw_lines(path):
            text = _encoder.encode(line).decode()
            assert redaction.redact(text) == full(text)
