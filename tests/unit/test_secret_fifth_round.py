"""The rule families behind the fifth blind corpus's misses and false alarms (issue 36), in other words and values.

``tests/support/secrets_blind5.py`` measured the rules blind, then became a tuning set. For each form it found
missed, and each ordinary text it found changed, the rule that was missing or too broad was written for the whole
family; the cases here are that family written with other vendors, tools, names and values (none of blind5's), each
with ordinary look-alikes that must stay exactly as they are. Pure unit tests of ``kernel.privacy.redact``.
"""

from __future__ import annotations

import hashlib

import pytest

from kernel.privacy import redact


def _alnum(seed: str, length: int) -> str:
    """A format-valid random-looking value, made from a seeded hash (never a real credential)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    raw = b"".join(hashlib.sha256(f"fifth-round:{seed}:{n}".encode()).digest() for n in range(length // 32 + 1))
    return "".join(alphabet[b % 62] for b in raw[:length])


def _hex(seed: str, length: int) -> str:
    return hashlib.sha256(f"fifth-round-hex:{seed}".encode()).hexdigest()[:length]


# Ordinary text near a secret's place: examples, placeholders, references to a secret kept elsewhere.
LOOK_ALIKES = [
    # a token's shape filled with x, y or z, as a README or a template shows it
    "OPENAI_API_KEY=sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "aws_access_key_id = AKIAZZZZZZZZZZZZZZZZ",
    "webhook: https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
    "a personal token looks like glpat-xxxxxxxxxxxxxxxxxxxx and expires",
    # a key shown elided, its first characters then '...'
    "export GROQ_API_KEY=gsk_...",
    # the shell's message for a missing variable, and a value that says where the secret is
    "SMTP_PASSWORD=${SMTP_PASSWORD:?set SMTP_PASSWORD before starting}",
    "db_password: stored in the ops vault",
    "Generated admin password: check the first boot log",
    # a secret's name as a flag's value, and a value read from a file
    "acme-cli secrets read --token=github-deploy-token",
    "vault write auth/userpass/users/ana password=@ana-pw.txt",
    "curl -X POST https://api.acme.dev/login -d password=@/run/secrets/pw",
]


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[t[:40] for t in LOOK_ALIKES])
def test_look_alikes_of_the_fifth_round_stay_intact(text: str) -> None:
    assert redact(text) == text


def test_a_token_made_of_zeros_or_one_letter_is_still_a_token() -> None:
    """Only x, y and z read as an example's filler: a body of another repeated character is still redacted."""
    for body in ("0" * 36, "a" * 36, "Q" * 36):
        assert "ghp_" + body not in redact(f"token ghp_{body} here")
    assert _alnum("real", 36) not in redact(f"GITHUB_TOKEN=ghp_{_alnum('real', 36)}")
