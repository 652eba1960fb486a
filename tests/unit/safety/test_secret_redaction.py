"""Credential-looking values are redacted; ordinary code and text are left alone (tables)."""

from __future__ import annotations

import base64
import time

import pytest

from safety.secret_redaction import REDACTED, contains_private_key, redact_secrets

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AKIA = "AKIAIOSFODNN7EXAMPLE"
SECRETS = [
    ("aws key id", "key = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("github token", f"export GH={GH}", GH),
    ("github pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG"),
    ("gitlab", "glpat-abcdefghij0123456789", "glpat-abcdefghij0123456789"),
    ("slack", "xoxb-1234567890-abcdefghijk", "xoxb-1234567890-abcdefghijk"),
    ("stripe", "sk_live_" + "a1" * 12, "sk_live_" + "a1" * 12),
    ("openai", "OPENAI=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "sk-proj-abcdefghijklmnop"),
    ("anthropic", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-ant-api03-abcdefghij"),
    ("google", "AIza" + "b" * 35, "AIza" + "b" * 35),
    ("huggingface", "hf_" + "c" * 34, "hf_" + "c" * 34),
    ("npm", "npm_" + "d1" * 18, "npm_" + "d1" * 18),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ),
    ("url password", "postgres://admin:hunter2hunter2@db:5432/x", "hunter2hunter2"),
    ("bearer", "Authorization: Bearer abcdefghijklmnop0123", "abcdefghijklmnop0123"),
    ("env assignment", "DB_PASSWORD=s3cr3tvalue99", "s3cr3tvalue99"),
    ("quoted assignment", 'API_KEY = "zz-top-Secret"', "zz-top-Secret"),
    ("json", '{"client_secret": "abc123def456"}', "abc123def456"),
    ("yaml", "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("npmrc", "//registry.npmjs.org/:_authToken=0123abcd-0123-abcd-0123-0123abcd0123", "0123abcd-"),
]
BENIGN = [
    "def add(a, b):\n    return a + b\n",
    "token = self.token",
    "password = None",
    'token = request.headers.get("Authorization")',
    "TOKEN_LIMIT = 100",
    'password_hint = "please enter your password"',
    "secret_count: int = 0",
    "sk-learn is a typo for scikit-learn",
    "see https://example.com/docs and http://localhost:8000/v1",
    "git log --oneline -n 20",
    "AUTHOR=alice",
    "the api_key parameter is optional",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host",
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_credentials_are_redacted(kind: str, text: str, secret: str) -> None:
    out = redact_secrets(text)
    assert secret not in out
    assert REDACTED in out


@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == text


def test_a_private_key_keeps_its_lines_but_not_its_body() -> None:
    key = (
        "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
        "QyNTUxOQAAACBXb3JsZA\n-----END OPENSSH PRIVATE KEY-----\nafter\n"
    )
    out = redact_secrets(key)
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in out and "QyNTUxOQ" not in out
    assert out.count("\n") == key.count("\n")
    assert out.startswith("before\n-----BEGIN OPENSSH PRIVATE KEY-----\n")
    assert contains_private_key(key)
    assert not contains_private_key("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----")


def test_a_3000_character_output_is_redacted_in_well_under_a_millisecond_each() -> None:
    text = ("def f(x):\n    return x + 1  # token handling\n" * 80)[:2950] + f"\n{GH}\n"
    start = time.perf_counter()
    for _ in range(200):
        out = redact_secrets(text)
    per_call_ms = (time.perf_counter() - start) / 200 * 1000
    assert GH not in out
    print(f"redact_secrets on {len(text)} chars: {per_call_ms:.3f} ms")


@pytest.mark.parametrize(
    "form",
    [
        GH[::-1],
        base64.b64encode(GH.encode()).decode(),
        base64.urlsafe_b64encode(GH.encode()).decode().rstrip("="),
        GH.encode().hex(),
        AKIA[::-1],
    ],
    ids=["reversed", "base64", "base64url", "hex", "aws reversed"],
)
def test_a_token_reversed_or_encoded_is_redacted(form: str) -> None:
    """What code that read a secret prints to get it past the token shapes (issue 28)."""
    assert redact_secrets(f"out: {form}\n") == f"out: {REDACTED}\n"


def test_hashes_and_long_names_are_not_mistaken_for_encoded_tokens() -> None:
    text = (
        "commit 0123456789abcdef0123456789abcdef01234567\n"
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
        "from safety.secret_redaction import contains_private_key_and_more_words\n"
    )
    assert redact_secrets(text) == text
