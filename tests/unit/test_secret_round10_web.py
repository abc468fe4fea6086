"""Secrets in web and product work (issue 36, round 10): frontend storage, CMS application passwords, e-commerce and
payment keys, CRM and marketing tools' keys, webhook URLs and signing strings, staging sites' basic auth, agency
handovers. Each family is tried on forms of its own and on ordinary texts near them that must stay byte for byte.
The values are made up."""

from __future__ import annotations

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind13 import BLIND13_ORDINARY, BLIND13_SECRETS
from tests.support.secrets_corpus import Secret

# Placeholders, schema rules, service addresses, public keys and ids: near the rules, no secret
WEB_KEPT = [
    "define('AUTH_KEY', 'put your unique phrase here');",
    "define( 'SECURE_AUTH_SALT', 'put your unique phrase here' );",
    "API_TOKEN='enter your token here'",
    "secret: 'paste your secret key here'",
    "password: z.string().min(12, 'Password too short')",
    "newPassword: yup.string().required('Required')",
    "password: Joi.string().pattern(/^[a-z]+$/)",
    "AUTH0_DOMAIN=agency.eu.auth0.com",
    "KEYCLOAK_HOST=sso.int.example.org",
    "VAULT_ENDPOINT=vault-2.prod.internal.example",
    "reCAPTCHA site key 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI is Google's documented test key.",
    'data-sitekey="0x4AAAAAAAB8kQ2xYz9fLmN7pQ"',
    "Message SM1f2e3d4c5b6a79880f1e2d3c4b5a6978 delivered",
    "call CA9c2d1e0f8a7b6c5d4e3f2a1b0c9d8e7f completed after 42s",
    "cf-ray: 8a1b2c3d4e5f6a7b-FRA",
    "CF-RAY 7d3f9a1b2c4e5f60-LHR (Cloudflare error 522)",
]


@pytest.mark.parametrize("text", WEB_KEPT)
def test_an_ordinary_web_text_near_a_rule_is_kept(text: str) -> None:
    assert redact(text) == text


# The same places with real values are still secrets
WEB_NEAR_FOUND = [
    ("define('AUTH_KEY', 'x!9L#q2@Vb7$Rz4%Tm1^Wn8&');", "x!9L#q2@Vb7$Rz4%Tm1^Wn8&"),
    ("password: 'Zq8-Lm2x-Rv4t'", "Zq8-Lm2x-Rv4t"),
    ("AUTH0_CLIENT_SECRET=Xq8Lm2Rv4Tk9WnY3bHc6DpF1sGh7JkZ0", "Xq8Lm2Rv4Tk9WnY3bHc6DpF1sGh7JkZ0"),
    ("reCAPTCHA secret key 6LcQx9kTAAAAAPq7Rz2Vb8Nm4Ty6Ud1Wf3Hj5Kl0", "6LcQx9kTAAAAAPq7Rz2Vb8Nm4Ty6Ud1Wf3Hj5Kl0"),
]


@pytest.mark.parametrize(("text", "secret"), WEB_NEAR_FOUND)
def test_a_real_value_in_the_same_place_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


# The released corpus's ordinary texts that were false alarms
_FORMER_FALSE_ALARMS = [
    "define('AUTH_KEY', 'put your unique phrase here');",
    "Message SM1f2e3d4c5b6a79880f1e2d3c4b5a6978 delivered",
    "AUTH0_DOMAIN=agency.eu.auth0.com",
    "reCAPTCHA site key 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI is Google's documented test key.",
    "password: z.string().min(12, 'Password too short')",
    "cf-ray: 8a1b2c3d4e5f6a7b-FRA",
]


@pytest.mark.parametrize("text", [t for t in BLIND13_ORDINARY if t in _FORMER_FALSE_ALARMS])
def test_the_released_corpus_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == text


def test_the_former_false_alarms_are_all_in_the_corpus() -> None:
    assert set(_FORMER_FALSE_ALARMS) <= set(BLIND13_ORDINARY)


_RELEASED_FORMS: set[str] = set()
RELEASED = [s for s in BLIND13_SECRETS if s.name in _RELEASED_FORMS]


def test_the_released_forms_are_all_selected() -> None:
    assert {s.name for s in RELEASED} == _RELEASED_FORMS


@pytest.mark.parametrize("secret", RELEASED, ids=lambda s: s.name)
def test_the_released_corpus_form_is_redacted(secret: Secret) -> None:
    assert_redacted_in_place(secret.text, secret.needle)
