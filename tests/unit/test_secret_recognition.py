"""Redaction recognises secrets, not a list (issue 36 item 2): the held-out corpus as assertions.

``tests/reliability/secrets_heldout.py`` was written before the recognisers
changed and is never tuned on. Before issue 36, ``redact`` kept 70 of its 120
secret forms (41.7 % never kept) and changed 4 of its 200 ordinary texts.
Pure unit tests of ``kernel.privacy.redact``: no stack, no network.
"""

from __future__ import annotations

import time

import pytest

from kernel.privacy import contains_secret, redact
from kernel.secret_context import high_entropy
from kernel.secret_rules import DETECT_SECRETS_RULES
from tests.reliability.secrets_corpus import Secret
from tests.reliability.secrets_heldout import HELDOUT_ORDINARY, HELDOUT_SECRETS, changed_ordinary, kept_secrets

# Forms the recognisers still miss, measured once and left as they are (no tuning on this corpus). The first two
# are written malformed (a Twilio SID reversed, an Azure AD secret reversed), so only context could give them away;
# the third is a 32-hex Twilio auth token after "auth token", which the entropy rule leaves alone (hex is how
# hashes look).
KNOWN_MISSES = {"twilio-sid-alone", "azure-ad-client-secret-prose", "twilio-account-sid-and-token"}
TARGET = 0.98  # issue 36: >= 98 % of the held-out forms never kept


def test_the_heldout_corpus_is_the_size_the_issue_asks_for() -> None:
    assert len(HELDOUT_SECRETS) >= 100
    assert len(HELDOUT_ORDINARY) == 200


def test_no_heldout_form_is_kept_beyond_the_known_misses() -> None:
    kept = kept_secrets(redact)
    assert set(kept) <= KNOWN_MISSES, sorted(set(kept) - KNOWN_MISSES)
    never_kept = 1 - len(kept) / len(HELDOUT_SECRETS)
    assert never_kept >= 0.975, f"{never_kept:.1%} never kept"


@pytest.mark.xfail(strict=True, reason="3 of 120 kept (97.5 %): see KNOWN_MISSES")
def test_the_issue_target_of_98_percent_is_met() -> None:
    assert 1 - len(kept_secrets(redact)) / len(HELDOUT_SECRETS) >= TARGET


def test_no_ordinary_text_is_changed() -> None:
    """0 of 200: code, logs, commit hashes, UUIDs, digests, URLs, base64 of ordinary data, prose about passwords."""
    assert changed_ordinary(redact) == []


@pytest.mark.parametrize("secret", [s for s in HELDOUT_SECRETS if s.name not in KNOWN_MISSES], ids=lambda s: s.name)
def test_heldout_secret_never_survives(secret: Secret) -> None:
    cleaned = redact(secret.text)
    assert secret.needle not in cleaned, cleaned
    assert contains_secret(secret.text)
    assert redact(cleaned) == cleaned  # idempotent: a marker is not redacted again


@pytest.mark.parametrize("secret", [s for s in HELDOUT_SECRETS if s.name not in KNOWN_MISSES], ids=lambda s: s.name)
def test_heldout_secret_is_removed_inside_a_longer_message(secret: Secret) -> None:
    message = f"Notes from the incident:\n\n{secret.text}\n\nThe deploy finished fine after that."
    cleaned = redact(message)
    assert secret.needle not in cleaned
    assert cleaned.startswith("Notes from the incident:")
    assert cleaned.endswith("The deploy finished fine after that.")


# The forms the held-out probe of issue 36 found stored verbatim, written again here (not from the corpus).
ISSUE_36_FORMS = {
    "pgpass": ("db1.acme.dev:5432:orders:svc:Qw7!pRt9z", "Qw7!pRt9z"),
    "password-is-words": ("my password is lemon river castle", "lemon river castle"),
    "bitbucket": ("ATBB" + "x7Kq2" * 6 + "AB12CD34", "x7Kq2x7Kq2"),
    "slack-xapp": ("xapp-1-A01BC2DEF3G-1234567890123-" + "ab12" * 16, "ab12ab12ab12"),
    "square": ("sq0csp-" + "Z9y8X7w6V5" * 4 + "abc", "Z9y8X7w6V5Z9y8"),
    "mailchimp": ("0f1e2d3c4b5a69788796a5b4c3d2e1f0-us21", "0f1e2d3c4b5a6978"),
    "fcm": ("AAAAbc12Def:APA91b" + "Gh3Ij4Kl5M" * 14, "Gh3Ij4Kl5MGh3Ij4"),
    "k8s-secret": ("kind: Secret\ndata:\n  token: c3VwZXJzZWNyZXR0b2tlbjEyMw==\n", "c3VwZXJzZWNyZXR0b2tlbjEyMw=="),
    "key-body-no-begin": (
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n",
        "QUJDREVGR0hJSktMTU5P",
    ),
    "cli-P": ("sqlcmd -S db -U sa -P Zx9!kLm2", "Zx9!kLm2"),
    "cli-w": ("ldapwhoami -x -D cn=ro -w Ro4dOnly!", "Ro4dOnly!"),
    "passin": ("openssl pkey -in k.pem -passin pass:Kp7#vault", "Kp7#vault"),
    "passphrase": ("gpg --passphrase Gp9-secret --batch -d x.gpg", "Gp9-secret"),
    "az-login": ("az login -u me@acme.dev -p Az5$ecret", "Az5$ecret"),
    "sudo-S": ("echo Su9do!pw | sudo -S whoami", "Su9do!pw"),
    "net-user": ("net user backup Nu7s3r!x /add", "Nu7s3r!x"),
    "auth-tuple": ('httpx.get(u, auth=("bot", "Bt4!auth"))', "Bt4!auth"),
    "webhook-no-scheme": ("hooks.slack.com/services/T01ABCDEF/B02GHIJKL/" + "Xy9" * 8, "Xy9Xy9Xy9"),
    "password-with-semicolon": ("password: ab;Cd9;ef", "ab;Cd9;ef"),
    "key-in-session-id": ("session_id=run_ghp_" + "Ab1" * 12, "Ab1Ab1Ab1"),
}


@pytest.mark.parametrize("name", sorted(ISSUE_36_FORMS))
def test_each_form_issue_36_found_is_redacted(name: str) -> None:
    text, needle = ISSUE_36_FORMS[name]
    assert needle not in redact(text), redact(text)


@pytest.mark.parametrize(
    "value",
    [
        "9f2c1e7a4b3d5f6e8a9b0c1d2e3f4a5b6c7d8e9f",  # a git SHA
        "4f9c2a1e-7b3d-4c5e-9a8b-1c2d3e4f5a6b",  # a UUID
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # sha256
        "sentence-transformers/all-MiniLM-L6-v2",
        "release-2026-11-27-build-1234",
        "/usr/local/lib/python3.11/site-packages",
    ],
)
def test_hashes_ids_and_names_are_not_high_entropy(value: str) -> None:
    assert not high_entropy(value)


@pytest.mark.parametrize(
    "value", ["Xk9Lm2Pq7Rt4Vw8Yz3Ab6Cd", "hQ9b-W0xX4c7oJ3l5XkQvY2Zl8s1nT6r", "aB3dE5gH7jK9mN1pQ3sT5v=="]
)
def test_random_tokens_are_high_entropy(value: str) -> None:
    assert high_entropy(value)


def test_a_random_flag_value_is_redacted_but_a_digest_is_not() -> None:
    assert "Xk9Lm2Pq7Rt4Vw8Yz3Ab6Cd" not in redact("acme deploy --credential Xk9Lm2Pq7Rt4Vw8Yz3Ab6Cd")
    digest = "pip download --hash sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert redact(digest) == digest


def test_the_detect_secrets_table_matches_the_pinned_package() -> None:
    """The vendored rules are detect-secrets' own: a version bump that changes one fails here."""
    pytest.importorskip("detect_secrets")
    from kernel.secret_rules import installed_rules

    assert installed_rules() == DETECT_SECRETS_RULES


# Hostile inputs for the context rules and blocks, inside the memory service's 50,000-char limit for one memory.
HOSTILE = {
    "flag-chain": "--password-x " * 4_000,
    "dash-values": "-p x" * 10_000,
    "pipe-chain": "echo x | " * 5_000,
    "net-user-chain": "net user " * 5_000,
    "prose-chain": "my password is " * 3_000,
    "auth-chain": "auth=(" * 8_000,
    "pgpass-fields": "a:1:b:c:" * 5_000,
    "key-body": "MIIEpAIBAAKCAQEA" + ("A" * 99 + "\n") * 450,
    "end-lines": ("A" * 50 + "\n") * 400 + "-----END RSA PRIVATE KEY-----\n" * 400,
    "k8s-data": "kind: Secret\ndata:\n" + "  a: b\n" * 6_000,
    "npm-slashes": "//a/:_authToken=" + "//" * 20_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_context_rules_stay_linear_on_hostile_input(name: str) -> None:
    text = HOSTILE[name]
    started = time.process_time()
    redact(text)
    assert time.process_time() - started < 1.5, f"{len(text):,} chars of {name!r}"
