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
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_redacting_twice_changes_nothing():
    text = " ".join(t for t, _ in SECRETS.values())
    once = redact(text)
    assert redact(once) == once
