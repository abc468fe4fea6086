"""Every credential in the realistic corpus is redacted by ``kernel.privacy``.

The same corpus is pushed through every write path of a live stack in
``tests/reliability/test_secret_containment.py``; this is the fast, pure check
that tells which recogniser misses which format.
"""

from __future__ import annotations

import pytest

from kernel.privacy import contains_secret, redact
from tests.support.secrets_corpus import ORDINARY, SECRETS, Secret

MISSED: dict[str, str] = {}  # every format in the corpus is recognised now


def _case(secret: Secret) -> object:
    reason = MISSED.get(secret.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(secret, id=secret.name, marks=marks)


def test_corpus_has_at_least_sixty_distinct_forms() -> None:
    assert len(SECRETS) >= 60
    assert len({s.name for s in SECRETS}) == len(SECRETS)


# The forms issue 27 found stored verbatim (19 of 26): each one is in the corpus, so each is tested above.
ISSUE_27_MISSES = [
    "aws-credentials-csv",
    "aws-session-token",
    "github-token-env-hex",
    "vault-token",
    "slack-token-env-other",
    "putty-private-key",
    "mysql-p-short",
    "docker-login-p",
    "sshpass-quoted",
    "netrc-one-line",
    "url-password-with-slash",
    "url-password-with-at",
    "password-several-words",
    "password-with-semicolon",
    "password-short",
    "password-in-prose",
    "github-token-zero-width",
]


def test_every_form_issue_27_found_is_in_the_corpus() -> None:
    assert set(ISSUE_27_MISSES) <= {s.name for s in SECRETS}


@pytest.mark.parametrize("text", ORDINARY, ids=[t[:40] for t in ORDINARY])
def test_ordinary_developer_text_survives_unchanged(text: str) -> None:
    """False positives: code that names a password, commit hashes, UUIDs, base64 of ordinary data, prose."""
    assert redact(text) == text
    assert not contains_secret(text)


def test_the_ordinary_corpus_is_large_enough_to_measure_false_positives() -> None:
    assert len(ORDINARY) >= 40


@pytest.mark.parametrize("secret", [_case(s) for s in SECRETS])
def test_secret_material_is_redacted(secret: Secret) -> None:
    cleaned = redact(secret.text)
    assert secret.needle not in cleaned, cleaned
    assert "[REDACTED:" in cleaned
    assert contains_secret(secret.text)


@pytest.mark.parametrize("secret", [_case(s) for s in SECRETS])
def test_secret_is_redacted_inside_a_longer_message(secret: Secret) -> None:
    message = f"Here is what I ran yesterday:\n\n{secret.text}\n\nand then the deploy finished fine."
    cleaned = redact(message)
    assert secret.needle not in cleaned
    assert cleaned.startswith("Here is what I ran yesterday:")
    assert cleaned.endswith("and then the deploy finished fine.")


def test_ordinary_engineering_notes_are_left_alone() -> None:
    notes = [
        "Run pytest -q tests/unit before pushing; CI uses Python 3.11.",
        "The billing service listens on port 8080 and talks to postgres on db.internal:5432.",
        "Use the token bucket rate limiter from utils/ratelimit.py for outbound calls.",
        "The password reset flow sends an email through the notifications worker.",
        "git log --oneline | head -20 shows the recent history.",
    ]
    for note in notes:
        assert redact(note) == note
        assert not contains_secret(note)


COMPOUND_BUG = (
    "BUG: the generic 'assignment' value ([^\\s\"',;]{6,}) can swallow the next 'KEY=' or '(Key:' so the real "
    "secret after it is left in place; forbid values that are themselves a key followed by ':'/'=' and '(' in values"
)
COMPOUND = {
    "labelled-dotenv-line": ('Password: PGPASSWORD="PgS3cretValue99"', "PgS3cretValue99"),
    "observation-of-a-header": (
        "Ran X-Shopify-Access-Token: (X-Shopify-Access-Token: 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)",
        "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",
    ),
}


@pytest.mark.parametrize("name", sorted(COMPOUND))
def test_an_assignment_cannot_hide_the_secret_that_follows_it(name: str) -> None:
    text, needle = COMPOUND[name]
    assert needle not in redact(text)


QUOTED_BUG = (
    "BUG: 'assignment' needs [:=] right after an unquoted key and (since 0c7ce44) a space/,/;/)/]/} right after the "
    "value, so JSON and dict keys, quoted headers and values followed by a quote are stored verbatim"
)
QUOTED = {
    "json-config": ('{"db": {"password": "Hunter2Hunter77"}}', "Hunter2Hunter77"),
    "python-dict": ("settings = {'api_key': 'abcdef1234567890'}", "abcdef1234567890"),
    "yaml-quoted-key": ('"client_secret": "cs_9f8e7d6c5b4a3210"', "cs_9f8e7d6c5b4a3210"),
    "curl-header-in-quotes": ("curl -H 'X-Api-Key: abcdef1234567890' https://api.acme.dev", "abcdef1234567890"),
    "shell-quoted-assignment": ("""echo 'SMTP_PASSWORD="Env98bu5iT45OxQjQPC"' >> .env""", "Env98bu5iT45OxQjQPC"),
    "repr-of-a-header": (
        "Searched the web for 'X-Shopify-Access-Token: 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'",
        "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",
    ),
    "xml-element": ("<server><password>Mvn4Deploy2024</password></server>", "Mvn4Deploy2024"),
}


@pytest.mark.parametrize("name", sorted(QUOTED))
def test_quoted_keys_and_quoted_values_are_redacted(name: str) -> None:
    text, needle = QUOTED[name]
    assert needle not in redact(text)
