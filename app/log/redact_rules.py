"""The rules of redaction: what a secret looks like, as regular expressions and small checks.

Written here from the published formats of the keys (prefixes and lengths); no rule set of
another project is copied. Two kinds of rule:

- tokens that carry their own prefix (`sk-`, `ghp_`, `npm_`, `AKIA`, `-----BEGIN`...), found
  wherever they stand, but never glued to a word before them (so a key-like run inside a
  base64 image or an encrypted blob is left alone);
- values named as secret: a key name ending in a secret word before `=`, `:`, `:=` or `=>`
  (`NILLION_ORG_SECRET_KEY=`, `"private_key_hex": "..."`, `x-api-key: ...`), a flag
  (`--api-key VALUE`), or prose ("API key `jup_...`", "**Secret Key**: `SC...`").

A value named as secret in code (`api_key: Optional[str]`, `token = get_token()`,
`apiKey: config.apiKey`) is a reference, not a secret: unquoted values in code form must look
like a literal (`literal()`). No pattern matches a quote or a backslash inside a secret, so a
JSON line stays JSON; `[redacted]` matches none of them, so redacting twice changes nothing.

RULES numbers this rule set: when it changes, logs written under older rules are scrubbed once
(scrub.py).

Each expression is compiled when it is first used, not at import: compiling all of them is a
good part of a new `nodwyn memory search` process, which uses few of them (a rule runs only on
text holding one of its strings, see redact.py; figures in ADR 0027).
"""

import os
import re

RULES = 2  # 1: the first rules (key names only right before `=`); 2: this set
MARK = "[redacted]"
SCRUBBED = "redaction.json"  # in the data directory: the rules its logs were last scrubbed with


def scrubbed_rules(root) -> int:
    """The rules the logs of the data directory `root` were last scrubbed with (0: never).
    Here, beside RULES, so that a quick command reads it without scrub.py (logging, msgspec);
    the file holds the number alone."""
    try:
        with open(os.path.join(root, SCRUBBED), "rb") as handle:  # no text codec to load
            return int(handle.read())
    except (FileNotFoundError, ValueError):
        return 0


class Lazy:
    """A regular expression compiled on its first use: `Lazy(source).sub(...)` is
    `re.compile(source).sub(...)`; after that first use its attributes are the compiled
    pattern's own (kept on the instance, so later calls go straight to them)."""

    def __init__(self, source: str):
        self.source = source

    def __getattr__(self, name: str):  # only for names not yet on the instance
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.__dict__.get("compiled")
        if compiled is None:
            compiled = self.__dict__["compiled"] = re.compile(self.source)
        value = getattr(compiled, name)
        self.__dict__[name] = value
        return value


# Start of a secret: not glued to a word before it, except after an escaped \n, \t or \r.
_B = r"(?:(?<![A-Za-z0-9_\-])|(?<=\\[ntr]))"

# A run of key characters that is a key, not a word: a digit in it, or both cases, or 20 long.
_KEYISH = (
    r"(?:(?=[A-Za-z_]*[0-9])|(?=[a-z0-9_]*[A-Z])(?=[A-Z0-9_]*[a-z])|(?=[A-Za-z0-9_]{20}))"
    r"[A-Za-z0-9_]{10,}[A-Za-z0-9_\-]*"
)

TOKENS = [
    # OpenAI, Anthropic, OpenRouter, DeepSeek and other `sk-` keys, short ones too
    r"sk-(?:ant-(?:api|admin|oat)\d\d-|ant-|proj-|svcacct-|admin-|or-v1-|None-)?" + _KEYISH,
    r"[sr]k_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe secret and restricted keys
    r"whsec_[A-Za-z0-9]{20,}",  # Stripe webhook secrets
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"gl(?:pat|dt|rt|ptt|ft|soat|agent)-[A-Za-z0-9_\-]{20,}",  # GitLab tokens
    r"npm_[A-Za-z0-9]{36}",  # npm access tokens
    r"hf_[A-Za-z0-9]{30,}",  # Hugging Face tokens
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,}",  # PyPI API tokens (a macaroon)
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}(?![0-9A-Z])",  # AWS access key ids
    r"xox[abposre]-[A-Za-z0-9\-]{10,}",  # Slack tokens
    r"AIza[0-9A-Za-z_\-]{35}",  # Google API keys
    r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",  # SendGrid
    r"gsk_[A-Za-z0-9]{40,}",  # Groq
    r"r8_[A-Za-z0-9]{30,}",  # Replicate
    r"xai-[A-Za-z0-9]{40,}",  # xAI
    r"pplx-[A-Za-z0-9]{40,}",  # Perplexity
    r"dop_v1_[a-f0-9]{64}",  # DigitalOcean
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",  # Shopify
    r"lin_api_[A-Za-z0-9]{40}",  # Linear
    r"sbp_[a-f0-9]{40}",  # Supabase
    r"ntn_[A-Za-z0-9]{40,}",  # Notion
    r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # JWTs
    r"S[A-Z2-7]{55}(?![A-Za-z0-9])",  # Stellar secret seeds (StrKey, 56 characters)
]
# Literal parts, one of which every token above holds (in any case: the engine looks for them
# in the lower-cased text), but the Stellar seed's.
TOKEN_HINTS = ("sk-", "k_live_", "k_test_", "whsec_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
               "github_pat_", "glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-",
               "glagent-", "npm_", "hf_", "pypi-", "akia", "asia", "agpa", "aida", "aroa", "xox",
               "aiza", "sg.", "gsk_", "r8_", "xai-", "pplx-", "dop_v1_", "shp", "lin_api_",
               "sbp_", "ntn_", "eyj")  # fmt: skip  # a table

TOKEN = Lazy(_B + "(?:" + "|".join(TOKENS) + ")")
WEBHOOK = Lazy(
    r"https://(?:hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"
    r"|(?:discord(?:app)?\.com|[a-z0-9.\-]*\.office\.com)/api/webhooks/[0-9]+/[A-Za-z0-9_\-]{40,})"
)

BEARER = Lazy(r"(?<![A-Za-z])(Bearer\s+)[A-Za-z0-9._~+/=\-]{12,}")

# Authorization headers with any scheme; Basic's credentials are base64 of `user:password`.
AUTHORIZATION = Lazy(
    r"(?i)(?<![a-z])(authorization\\*[\"']?\s*[:=]\s*\\*[\"']?(?:(?:basic|token|digest)\s+)?)"
    r"([A-Za-z0-9+/=._~\-]{8,})"
)
BASIC = Lazy(r"(?<![A-Za-z])(Basic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")

# PEM private keys, in plain text or inside one JSON string; without its END line, the block
# ends where its base64 lines do.
PEM = Lazy(
    r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----"
    r"(?:[^\"]*?-----END \1PRIVATE KEY\2-----"
    r"|[A-Za-z0-9+/=]*(?:(?:\\[nr]|[ \t\r\n])+(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+: [^\s\\\"]+))*)"
)

# Passwords in URLs: scheme://user:password@host. A password may hold `/`, but a port
# (`host:8080/path/@scope`) is not one.
URL_PASSWORD = Lazy(r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"\\]+:)(?![0-9]+(?:/|@))([^\s@\"\\]+)@")

# A Solana keypair as JSON: an array of 64 numbers.
KEYPAIR = Lazy(r"\[\s*(?:[0-9]{1,3}\s*,\s*){63}[0-9]{1,3}\s*\]")

# key names ending in a secret word; `key` only after a word that makes it secret
_QUALIFIED_KEY = (
    r"(?:api|secret|private|access|auth|signing|master|encryption|client|account|license"
    r"|service|session|admin|bot|deploy|webhook|ssh|wallet|app|org|shared|consumer|x-api)"
    r"[_\-.]?key"
)
_SECRET_WORD = rf"(?:apikey|{_QUALIFIED_KEY}|secret|token|password|passwd|passphrase|pass|pwd)"
_SUFFIX = r"(?:[_\-.]?(?:hex|b64|base64|base|pem|bytes|raw|value|str|string))?"
NAMED = Lazy(
    r"(?i)(?P<name>(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]*?(?P<word>"
    + _SECRET_WORD
    + ")"
    + _SUFFIX
    + ")"
    r"(?P<sep>\\*[\"']?[ \t]*(?::=|=>|=(?!=)|:(?![:/]))[ \t]*)"
    r"(?P<quote>\\*[\"'])?(?P<value>[^\s\"'\\&;,()<>\[\]{}`]+)"
)
NAMED_WORDS = ("key", "token", "secret", "pass", "pwd")
# Where NAMED can match, in the lower-cased text: a secret word (and suffix) before the sign.
NAMED_AT = Lazy(
    r"(?:key|token|secret|passw(?:or)?d|passphrase|pass|pwd)"
    + _SUFFIX.lower()
    + r"\\*[\"']?[ \t]*[:=]"
)

# --api-key VALUE, --token "VALUE"
FLAG = Lazy(
    r"--(?<![A-Za-z0-9_\-]--)(?:[A-Za-z0-9]+-)*"
    r"(?:api-?key|access-key|secret-key|private-key|auth-token|token|secret|password|passwd)"
    r"([ \t]+\\*[\"']?)(?![\-$<{(\[])([^\s\"'\\]{6,})"
)

# prose: API key `jup_...`, **Secret Key**: `SC...`, password is "..."; not a public key
_PROSE_KEY = r"(?:api|secret|private|access|auth|signing|master|wallet|license|account|encryption)"
PROSE = Lazy(
    r"(?i)(?<![A-Za-z0-9])(?:" + _PROSE_KEY + r"[ _\-]?key"
    r"|(?:api|access|auth|bot|refresh|session|secret)[ _\-]?token"
    r"|secret|password|passphrase|seed(?:[ _\-]phrase)?|mnemonic)s?(?:\*\*|__)?[ \t]{0,3}"
    r"(?:(?:[:=]|is|was)?[ \t]{0,3}(?:\*\*)?[ \t]{0,2}(?:`|\\*[\"'])|[:=][ \t]{1,3})"
    r"(?P<value>[A-Za-z0-9_\-+/=.]{12,})"
)
PROSE_BACK = 11  # a match starts at most this far before its secret word (`encryption_`)
PROSE_WORDS = ("key", "token", "secret", "pass", "seed", "mnemonic")  # where a match may be

# curl -u user:password
CURL_USER = Lazy(
    r"-(?<![A-Za-z0-9_\-]-)(?:u|-user)([ \t]+\\*[\"']?[A-Za-z0-9._@\-]+:)([^\s\"'\\]{4,})"
)

_REFERENCE = Lazy(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+[!?]?")  # a.b.c
_PLAIN = frozenset(("true", "false", "null", "none", "nil", "undefined", "empty", "required"))


_VERSION = Lazy(r"[\^~<>=v]*[0-9]+(?:\.[0-9x*]+)+(?:-[A-Za-z0-9.]+)?")


def _reference(value: str) -> bool:
    """`a.b.c` (a name in code), not a key that holds dots."""
    return _REFERENCE.fullmatch(value) is not None and sum(c.isdigit() for c in value) < 3


def literal(value: str, least: int = 6) -> bool:
    """Whether an unquoted value in code looks like a secret, not a name or a reference:
    long enough, holding a letter and a digit, not `a.b.c`."""
    return (
        len(value) >= least
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not _reference(value)
    )


def named(found: re.Match) -> str:
    """The replacement of a NAMED match: the value hidden if it is one, else the match as is."""
    name, word, value = found["name"], found["word"].lower(), found["value"]
    if word in ("pass", "pwd"):
        before = found.start("word") - found.start("name")
        if before and not _boundary(name, before):
            return found[0]  # bypass=, compass=: not a password
    if _VERSION.fullmatch(value):
        return found[0]  # "jsonwebtoken": "^9.0.0" in a package.json
    if found["quote"]:  # a quoted value is a literal; a short word is a name (USDC, omit)
        secret = len(value) >= 6 or literal(value, 4)
    elif found["sep"] == "=":  # NAME=value: a shell, an .env file, a URL's query
        secret = len(value) >= 4 and value[0] not in "$%" and value.lower() not in _PLAIN
        secret = secret and not _reference(value)
    else:  # `name = value`, `name: value`, `name := value`: code, where names are common
        secret = literal(value)
    return hide(found, "value", secret)


def hide(found: re.Match, group: str | int, secret: bool = True) -> str:
    """The match with one group replaced by MARK (the match as is when not `secret`)."""
    if not secret:
        return found[0]
    start = found.start()
    return found[0][: found.start(group) - start] + MARK + found[0][found.end(group) - start :]


def _boundary(name: str, at: int) -> bool:
    """Whether a word of `name` starts at `at`: after a separator, or camelCase."""
    before, first = name[at - 1], name[at]
    return not before.isalnum() or (first.isupper() and not before.isupper())


def prose(found: re.Match) -> str:
    return hide(found, "value", literal(found["value"], 12))


def flag(found: re.Match) -> str:
    return hide(found, 2)


def curl_user(found: re.Match) -> str:
    return hide(found, 2)


def authorization(found: re.Match) -> str:
    value = found[2]
    if not (literal(value, 8) or _is_basic(value)):
        return found[0]
    return found[1] + MARK


def basic(found: re.Match) -> str:
    return found[1] + MARK if _is_basic(found[2]) else found[0]


def _is_basic(value: str) -> bool:
    """Whether `value` is base64 of `user:password`."""
    import base64  # here: only a Basic credential needs it
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    text = decoded.decode("utf-8", "replace")
    return ":" in text and text.isprintable() and "\ufffd" not in text


def keypair(found: re.Match) -> str:
    """A keypair's array becomes [redacted]; a quoted one when it stood as a JSON value."""
    numbers = [int(n) for n in re.findall(r"[0-9]+", found[0])]
    if max(numbers) > 255:
        return found[0]
    return MARK if _in_string(found.string, found.start()) else f'"{MARK}"'


def _in_string(text: str, at: int) -> bool:
    """Whether position `at` of a JSON line lies inside a string (unescaped quotes before it)."""
    quotes = 0
    escaped = False
    for char in text[:at]:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quotes += 1
    return quotes % 2 == 1
