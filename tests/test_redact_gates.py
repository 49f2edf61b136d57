"""Redaction's cheap gates and key=value shortcut change nothing: same text as the full patterns.

The oracle applies every pattern of `redact._PATTERNS` to the whole text with `re.sub`, as
redaction did before the shortcut; real corpus lines and made-up awkward strings must agree.
"""

import random

import pytest
from corpora import both
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
    "DB_PASS=abc123xy bypass=abc123xy dbPass: abc123xy4 --api-key 1234abcd5678",
    "API key `jup_1234abcd5678efgh` and **Secret Key**: `SABCDEFGH234567ABCDEFGH2345`",
    '\\"private_key_hex\\": \\"0a1b2c3d4e5f\\" x-api-key: 9f8e7d6c5b4a api_key: Optional[str]',
    "Authorization: Basic dXNlcjpwYXNz curl -u me:pa55word https://u:p/w@h.io",
    "encryption_key `a1b2c3d4e5f6g7h8` seed phrase: abcd1234efgh5678 mnemonic 'x1y2z3w4v5u6t7'",
]


def test_awkward_strings_are_redacted_exactly_as_by_the_full_patterns():
    for text in AWKWARD:
        assert redaction.redact(text) == full(text), text


def test_random_strings_are_redacted_exactly_as_by_the_full_patterns():
    rng = random.Random(3)
    pieces = ["token", "key", "api_", "Secret", "=", " ", "'", '"', "\\", "-", "_", "ab12",
              "PASSWORD", "x", "&", "İ", "ſ", "ı", "\u212a", "sk-", "://", "@", "\\n", ":", "`",
              "--", "API key", "pass", "Pwd", "**", "seed", "Basic ", "-u ", "Authorization",
              "1234567890ab", "ABCDEFGH", "private", "/"]  # fmt: skip
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        assert redaction.redact(text) == full(text), text


@pytest.mark.parametrize("root", both())
def test_session_lines_are_redacted_exactly_as_by_the_full_patterns(root):
    for path in sorted((root / "claude").glob("*.jsonl"))[:8]:
        for line in raw_lines(path):
            text = _encoder.encode(line).decode()
            assert redaction.redact(text) == full(text)
