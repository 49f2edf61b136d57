"""Redaction of secrets: keys, tokens, private keys and passwords become `[redacted]`.

Applied to every record before it is written (on the encoded JSON line) and again to text
read for display or search. The patterns work on plain text and on JSON text alike: none of
them matches a quote or a backslash inside the secret, and a secret that follows an escaped
newline (`\\n` in JSON) is still found. `[redacted]` itself contains neither, so redacting a
JSON line keeps it valid JSON, and redacting twice changes nothing.

Each pattern is anchored on a prefix that ordinary prose does not contain (`sk-`, `ghp_`,
`AKIA`, `-----BEGIN`), or on a key name right before `=`, so ordinary text is left alone.
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

# Cheap test first: most lines have none of these, and one `in` per hint is fast.
_HINTS = (
    "sk-", "gh", "github_pat_", "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "xox", "AIza", "eyJ",
    "Bearer", "PRIVATE KEY", "://", "=",
)  # fmt: skip


def redact(text: str) -> str:
    """`text` with every secret replaced by [redacted]."""
    if not any(hint in text for hint in _HINTS):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
