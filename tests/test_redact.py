"""Redaction: every kind of secret goes, ordinary text stays, JSON stays JSON."""

import json

import pytest
from nodwyn.log.redact import redact

SECRETS = {
    "anthropic key": ("key sk-ant-api03-abcdefghijklmnopqrstuvwxyzABCD0123 end", "sk-ant-"),
    "openai key": ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx0123456789", "sk-proj-"),
    "other sk key": ("use sk-abcdefghijklmnopqrstuvwx01 here", "sk-abc"),
    "github classic": ("ghp_" + "a1B2" * 9, "ghp_"),
    "github oauth": ("token gho_" + "Z9y8" * 9, "gho_"),
    "github fine-grained": ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "github_pat_"),
    "aws key id": ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    "slack": ("xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-"),
    "google": ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSy"),
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGci",
    ),
    "bearer": ("Authorization: Bearer abcDEF123456.ghiJKL789_-", "abcDEF123456"),
    "pem": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nqwerty\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA7",
    ),
    "url password": ("git clone https://ana:hunter2secret@github.com/x/y", "hunter2secret"),
    "url token": ("GET https://api.example.com/v1?api-key=12345abcde&x=1", "12345abcde"),
    "password assignment": ("password=correct-horse-battery", "correct-horse"),
    "quoted secret": ('client_secret = "s3cr3t-value-here"', "s3cr3t-value"),
    "token in url": ("https://x.io/cb?token=abcd1234efgh", "abcd1234efgh"),
    # key names that do not end right before `=` in api_key/token/password/secret (issue 14)
    "org secret key": ("NILLION_ORG_SECRET_KEY=ae0ff463b03289cc118653e91bd8b1014", "ae0ff463b0"),
    "private key env": ("PRIVATE_KEY=5Kb8kLf9zgWQnogidDA76MzPL6Ts", "5Kb8kLf9zg"),
    "db pass": ("DB_PASS=Tr0ub4dor3xyz", "Tr0ub4dor3"),
    "auth key": ("AUTH_KEY=abcd1234efgh", "abcd1234efgh"),
    "spaced secret": ("MY_SECRET = hunter22-value", "hunter22"),
    "aws secret": ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "wJalrXUtnFEMI"),
    "camel case key": ('const apiKey = "f00dfeed1234beef"', "f00dfeed1234"),
    "flag": ("npx jup quote --api-key 7f3a9c2e-1b4d-4e8f-9a6b-2c5d8e1f3a7b", "7f3a9c2e"),
    "flag quoted": ('tool --token "tk9f8e7d6c5b4a" --verbose', "tk9f8e7d6c5b4a"),
    "prose api key": ("Use the API key `jup_4f8a2c9e7b1d3f5a6c8e0b2d` for quotes", "jup_4f8a2c9e"),
    "prose stellar seed": (
        "**Secret Key**: `SCZANGBA5YHTNYVVV4C3U252E2B6P6F5T3U6MM63WBSBZATAQI3EBTQ4`",
        "SCZANGBA5Y",
    ),
    "bare stellar seed": (
        "seed SCZANGBA5YHTNYVVV4C3U252E2B6P6F5T3U6MM63WBSBZATAQI3EBTQ4",
        "SCZANGBA5Y",
    ),
    "json private key hex": ('{"private_key_hex": "' + "0a1b" * 16 + '"}', "0a1b0a1b"),
    "yaml api key": ("api_key: a1b2c3d4e5f6g7h8", "a1b2c3d4e5"),
    "x-api-key header": ("x-api-key: 9f8e7d6c5b4a3210fedc", "9f8e7d6c5b"),
    "basic auth header": ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNz"),
    "stripe live": ("sk_live_" + "51H8abcdEFGHijkl", "51H8abcdEFGH"),
    "npm token": ("npm_" + "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnop"),
    "hugging face": ("hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH", "abcdefghijklmnop"),
    "gitlab": ("glpat-" + "abcdefghij0123456789", "abcdefghij0123"),
    "short sk key": ("key sk-abc123def456gh here", "abc123def456"),
    "pem without end": (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7",
        "MIIEvQIBADAN",
    ),
    "solana keypair": ("[" + ",".join(str(i * 37 % 256) for i in range(64)) + "]", "37,74,111"),
    "url password with slash": ("git clone https://ana:pa/ss%2Fw0rd@github.com/x/y", "pa/ss"),
    "curl user": ("curl -u admin:s3cretpass https://x.io", "s3cretpass"),
    "yaml password": ("password: P@ssw0rd!", "P@ssw0rd"),
    "slack webhook": (
        "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghij0123456789",
        "abcdefghij01",
    ),
    "groq": ("gsk_" + "a1" * 26, "a1a1a1a1"),
}


@pytest.mark.parametrize("name", SECRETS)
def test_each_kind_of_secret_is_redacted(name):
    text, secret = SECRETS[name]
    out = redact(text)
    assert secret not in out
    assert "[redacted]" in out


@pytest.mark.parametrize("name", SECRETS)
def test_a_secret_inside_a_json_line_is_redacted_and_the_line_stays_json(name):
    text, secret = SECRETS[name]
    line = json.dumps({"text": "first line\n" + text + "\nlast", "n": 1})
    out = redact(line)
    assert secret not in out
    assert json.loads(out)["text"].startswith("first line\n")


ORDINARY = [
    "Fix the flaky TestPagerOrder in pager_test.go",
    "The task-list uses max_tokens=4096 and a sk-learn pipeline",
    "git log --oneline | head; ssh user@host; https://github.com/x/y/pull/3",
    "the tokenizer=bert and password_hint='ask me' are settings",
    "if a == b: token_count += 1",
    "Bearer tokens are sent in a header",
    "AKIA is a prefix; see the docs",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----",
    "eyJ is how base64 JSON starts",
    "def check(password): return password == stored",
    "token = get_token()",
    "postgres://localhost:5432/db and http://example.com:8080/path",
    # ordinary text near the new rules (issue 14): hashes, ids, images, code, prose about keys
    "commit 3f2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a fixes it",
    "request 123e4567-e89b-12d3-a456-426614174000 done",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAC"
    "hwGA60e6kgAAAABJRU5ErkJggg==",
    "api_key: Optional[str] = None",
    "apiKey: config.apiKey,",
    "const apiKey = process.env.ANTHROPIC_API_KEY || process.env.OPENAI_API_KEY",
    "Set the API key in your environment, then rotate the secret key monthly",
    '"x-api-key": process.env.JUP_API_KEY!,',
    "encoded_jwt = jwt.encode(to_encode, settings.SECRET_KEY",
    "spring.datasource.password=${POSTGRES_PASSWORD:postgres}",
    "Basic Functionality and Basic authentication",
    "sk-exposure-screening-concepts sk-output-waiting-1770842794529 sk-notification",
    "https://registry.npmjs.org:443/@scope/pkg and http://localhost:3000/users/@me",
    "bypass=something",
    "public key `7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU`",
    "the keys `OPENAI_API_KEY` and `ANTHROPIC_API_KEY`",
    "max_tokens: 4096 and password: str",
    "--token-file ~/.tok --api-key $JUP_API_KEY",
    'SECRET_KEY: str = os.getenv("SECRET_KEY")',
    "keypair.secretKey and Authorization: Bearer ${token}",
    "[1, 2, 3, 4]",
    "0x" + "ab12" * 16,
    "eyJhbGciOiJIUzI1NiJ9 is only a header",
    "export ANTHROPIC_API_KEY=$(cat ~/.key)",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_a_keypair_that_is_a_json_value_becomes_a_string_so_the_line_stays_json():
    line = json.dumps({"input": {"keypair": list(range(64))}, "text": "ok"})
    out = redact(line)
    assert json.loads(out)["input"]["keypair"] == "[redacted]"


def test_a_key_inside_a_base64_blob_is_left_alone():
    blob = "iVBORw0KGgo" + "A1b2C3d4" * 8 + "sk-abcdefghijklmnopqrstuvwxyz0123" + "Zz9" * 10
    assert redact(blob) == blob


def test_redacting_twice_changes_nothing():
    text = " ".join(t for t, _ in SECRETS.values())
    once = redact(text)
    assert redact(once) == once
