"""Redact values that look like credentials from text the model or the traces would see.

What counts (each a table-tested rule): provider tokens by their shape (AWS access key ids,
GitHub/GitLab/Slack/Stripe/OpenAI/Anthropic/Google/Hugging Face/npm/PyPI/SendGrid tokens,
JWTs, Azure storage keys; the shapes follow Yelp's detect-secrets plugins), the body of a
private-key block, the password in ``scheme://user:password@host``, ``Bearer``/``Basic``
authorization values, and literal values assigned to names such as ``*SECRET*``,
``*TOKEN*``, ``*PASSWORD*``, ``*API_KEY*``, ``*ACCESS_KEY*``, ``*CREDENTIAL*``.

Why not detect-secrets itself: its line scanner took ~34 ms per 3,000-character output here
and reports partial values for some plugins (``ghp`` for a GitHub token), so it cannot be used
to cut the value out; importing its plugins took ~0.55 s and pulls ``requests`` into
``safety/``. A pass over a 3,000-character output takes 0.3-0.6 ms here (only long runs of
token characters are matched against the token shapes, only lines with a hint against the
name rules).

Line count is kept (a redacted private key keeps its lines), so line numbers stay right.

A token written backwards, base64- or hex-encoded (what code that has read a secret can
print to get it past the shapes above) is redacted too: each long run of token characters
is also looked at reversed and decoded. This bounds the trivial transformations only; see
the README's security model for what redaction does not promise.
"""

from __future__ import annotations

import base64
import binascii
import re

REDACTED = "[REDACTED]"

_TOKENS = re.compile(
    "|".join(
        (
            r"\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key id
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36,255}\b",  # GitHub
            r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b",
            r"\b(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt)-[A-Za-z0-9_\-]{20,64}",
            r"\bxox[aboprs]-(?:[0-9]+-)+[A-Za-z0-9]+",  # Slack
            r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
            r"\b[rs]k_live_[0-9a-zA-Z]{24,}",  # Stripe
            r"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_\-]{20,}",
            r"\bAIza[0-9A-Za-z_\-]{35}",  # Google API key
            r"\bhf_[A-Za-z0-9]{34,}",  # Hugging Face
            r"\bnpm_[A-Za-z0-9]{36}\b",
            r"\bpypi-AgE[A-Za-z0-9_\-]{50,}",
            r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",  # SendGrid
            r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",  # JWT
            r"AccountKey=[A-Za-z0-9+/=]{86,88}",  # Azure storage
            r"\b[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}\b",  # Telegram bot
        )
    )
)
_PRIVATE_KEY = re.compile(
    r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(.*?)(-----END [A-Z0-9 ]*PRIVATE KEY"
    r"(?: BLOCK)?-----|\Z)",
    re.S,
)
_URL_PASSWORD = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^:/?#\[\]@\s]+:)([^/?#\[\]@\s]+)(@)")
_AUTH_HEADER = re.compile(r"(?i)(\b(?:bearer|basic|token)\s+)([A-Za-z0-9\-._~+/]{16,}=*)")
_SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*(?:secret|token|passw(?:or)?d|pwd|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|credential|auth[_\-]?key|client[_\-]?key)[A-Za-z0-9_.\-]*"
)
# NAME = "literal" / NAME: 'literal' / "NAME": "literal" (quoted: no spaces, 6+ characters)
_QUOTED_ASSIGNMENT = re.compile(
    rf"(?i)(\b{_SECRET_NAME}[\"']?\s*(?::|=|=>|:=)\s*)([\"'])([^\"'\s]{{6,}})\2"
)
# NAME=literal (unquoted: 8+ characters with a letter and a digit, up to the end of the value)
_BARE_ASSIGNMENT = re.compile(
    rf"(?i)(\b{_SECRET_NAME}\s*(?:=|:)[ \t]*)"
    r"(?=[A-Za-z0-9_+/=.\-@:]*[0-9])(?=[A-Za-z0-9_+/=.\-@:]*[A-Za-z])"
    r"([A-Za-z0-9_+/=.\-@:]{8,})(?=[\s,;]|$)",
    re.M,
)
# Tokens are long runs of these characters: only such runs are matched against _TOKENS.
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-.:/+=@]{16,}")
# A line is matched against the name- and header-based rules only if it holds one of these.
_LINE_HINTS = ("secret", "token", "passw", "pwd", "key", "credential", "bearer", "basic", "://")


# Every token shape starts with one of these (or a run of digits and ":AA", Telegram's): a
# cheap first look before the token shapes run over a reversed or decoded form.
_TOKEN_STARTS = (
    "gh",
    "github_pat_",
    "gl",
    "xox",
    "hooks.slack.com",
    "_live_",
    "sk-",
    "AIza",
    "hf_",
    "npm_",
    "pypi-",
    "SG.",
    "eyJ",
    "AccountKey=",
    "A3T",
    "ABIA",
    "ACCA",
    "AKIA",
    "ASIA",
    ":AA",
)
_BASE64 = re.compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){16,}")


def _hidden_forms(run: str) -> list[str]:
    """`run` reversed, and decoded from base64 or hex when it is that (as text)."""
    forms = [run[::-1]]
    if _HEX.fullmatch(run):
        forms.append(binascii.unhexlify(run).decode("latin-1"))
    elif _BASE64.fullmatch(run):
        padded = run + "=" * (-len(run) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                forms.append(decode(padded).decode("latin-1"))
            except (binascii.Error, ValueError):
                continue
    return forms


def _redact_run(match: re.Match[str]) -> str:
    run = _TOKENS.sub(REDACTED, match.group(0))
    if REDACTED not in run and any(
        any(start in form for start in _TOKEN_STARTS) and _TOKENS.search(form)
        for form in _hidden_forms(run)
    ):
        return REDACTED
    return run


def _private_key(match: re.Match[str]) -> str:
    body = "\n".join(REDACTED if line.strip() else line for line in match.group(2).split("\n"))
    return match.group(1) + body + match.group(3)


def redact_secrets(text: str) -> str:
    """``text`` with every credential-looking value replaced by ``[REDACTED]``."""
    if not text:
        return text
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(_private_key, text)
    text = _CANDIDATE.sub(_redact_run, text)
    lines = text.split("\n")
    for index, line in enumerate(lines):
        lowered = line.lower()
        if any(hint in lowered for hint in _LINE_HINTS):
            lines[index] = _redact_line(line)
    return "\n".join(lines)


def _redact_line(line: str) -> str:
    if "://" in line:
        line = _URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + m.group(3), line)
    if " " in line:
        line = _AUTH_HEADER.sub(lambda m: m.group(1) + REDACTED, line)
    if "=" in line or ":" in line:
        line = _QUOTED_ASSIGNMENT.sub(
            lambda m: m.group(1) + m.group(2) + REDACTED + m.group(2), line
        )
        line = _BARE_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, line)
    return line


def contains_private_key(text: str) -> bool:
    """True when ``text`` holds a private-key block (PEM, OpenSSH, PGP) or a PuTTY key."""
    return "PuTTY-User-Key-File-" in text or _PRIVATE_KEY.search(text) is not None
