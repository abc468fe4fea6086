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


# Web and product work: each family in forms of its own (other tools, other phrasings)
WEB_FOUND = [
    ('localStorage.getItem("access_token") -> "Zq8Lm2Rv4Tk9WnY3bHc6DpF1"', "Zq8Lm2Rv4Tk9WnY3bHc6DpF1"),
    ("sessionStorage.setItem('jwt', 'Xw7Pk2Lm9Qr4Tz8Vb3Nc')", "Xw7Pk2Lm9Qr4Tz8Vb3Nc"),
    ('localStorage["authToken"] = "Hq4Lp8Zx2Vm7Rt9Kb3Wd"', "Hq4Lp8Zx2Vm7Rt9Kb3Wd"),
    ("Nextcloud app password: Kq7Ht-Zp3Wm-Lx9Rv-Bn2Fs", "Kq7Ht-Zp3Wm-Lx9Rv"),
    ("WordPress application password abcD 12ef GH34 ijKL 5m6N op7Q", "abcD 12ef GH34 ijKL 5m6N op7Q"),
    ("Gmail app password is qxzv bkrw tmfp lgjn", "qxzv bkrw tmfp lgjn"),
    ("curl --user Zq8Lm2Rv4Tk9WnY3bHc6D: https://api.harvest.example/v2/me", "Zq8Lm2Rv4Tk9WnY3bHc6D"),
    ("http -a 9fHq2LmXr7TbVw3KcZp1: https://shop.example/api/orders", "9fHq2LmXr7TbVw3KcZp1"),
    ("sdk.setAccessToken('EAAb7Lm2Qp9Rv4Tk8Wn3');", "EAAb7Lm2Qp9Rv4Tk8Wn3"),
    ('client.with_api_key("k7Lp2Qm9Rv4Tx8Wn3Bz")', "k7Lp2Qm9Rv4Tx8Wn3Bz"),
    ("Shopify admin token (keep server-side): 7c1e9a3f5b2d8c4e6a0f1b3d5e7a9c2b", "7c1e9a3f5b2d8c4e6a0f1b3d5e7a9c2b"),
    ("Plesk API key for the reseller panel: 8F3K2M9Q7R4T1V6W5X0Z3B8N", "8F3K2M9Q7R4T1V6W5X0Z3B8N"),
    ("htaccess protection, basic auth user client and password Plum-Sky-77", "Plum-Sky-77"),
    ("Basic auth for the preview: demo / Tulip-Rain-42", "Tulip-Rain-42"),
    ("FTP login webagency / Orchid-Bay-93 (port 21)", "Orchid-Bay-93"),
    ("mysql -h db.example -u shop   # pwd Qz8mLx2Rv4", "Qz8mLx2Rv4"),
    ("support chat, the customer wrote: pw sunflower88", "sunflower88"),
    ("FTP PASSWORD ........ Cedar-Lake-31", "Cedar-Lake-31"),
    ("the Wi-Fi password is the word MARIGOLD in capitals", "MARIGOLD"),
    ("the HMAC secret we agreed with Shopify for the order webhook is cobalt-river-falls", "cobalt-river-falls"),
    ("~/.pgpass on the runner: db.shop.example:5432:*:app_user:Vx8qLm2Rz4", "Vx8qLm2Rz4"),
    ('{"config":"{\\"mail\\":{\\"password\\":\\"Rk7pWq2Lz9Xv\\"}}"}', "Rk7pWq2Lz9Xv"),
    ("POST https://hooks.zapier.com/hooks/catch/987654/3xk9qpm/ with the order", "3xk9qpm"),
    ("https://hook.eu2.make.com/a8k3m9q2w7z4x1c6v5b8n3m2l9k7j4h1", "a8k3m9q2w7z4x1c6v5b8n3m2l9k7j4h1"),
    ("https://maker.ifttt.com/trigger/door_open/with/key/dK8mQ2xL9vR4tZ7wN3bH", "dK8mQ2xL9vR4tZ7wN3bH"),
    ("build hook: https://api.netlify.com/build_hooks/65f1a2b3c4d5e6f7a8b9c0d1", "65f1a2b3c4d5e6f7a8b9c0d1"),
    ("klaviyo.ApiKey = 'pk_0a1b2c3d4e5f60718293a4b5c6d7e8f9a0'", "pk_0a1b2c3d4e5f60718293a4b5c6d7e8f9a0"),
    ("DEEPL_AUTH_KEY 7c9e2a4b-1d3f-4a5b-8c6d-9e0f1a2b3c4d:fx", "7c9e2a4b-1d3f-4a5b-8c6d-9e0f1a2b3c4d:fx"),
    (
        "new MollieClient().setApiKey(process.env.X) // was test_Hq4Lp8Zx2Vm7Rt9Kb3WdY6Jc5Ns1Qa",
        "Hq4Lp8Zx2Vm7Rt9Kb3WdY6Jc5Ns1Qa",
    ),
    ("mg = MailgunClient('api', 'c2f8e1a7b3d94f6e8a0b1c2d3e4f5a6b')", "c2f8e1a7b3d94f6e8a0b1c2d3e4f5a6b"),
    ("Visa ending soon, full number 4539-1488-0343-6467, exp 11/27", "4539-1488-0343-6467"),
    ("Kreditkarte: 5425233430109903", "5425233430109903"),
    ("card no. 4916 0032 1188 7719 valid thru 03/29", "4916 0032 1188 7719"),
    ("the demo shop is locked, its password is bluepelican.", "bluepelican"),
    ("the office printer's passcode was lemonade", "lemonade"),
    ("X-Partner-Auth: 3c9e1a7f5b2d8c4e6a0f1b3d5e7a9c2b4d6f8a0c1e2f", "3c9e1a7f5b2d8c4e6a0f1b3d5e7a9c2b4d6f8a0c1e2f"),
    ("the ftp thing: user=ci-runner -- Rm4-Qz8x-Lp2v (from the wiki)", "Rm4-Qz8x-Lp2v"),
    ("username: webmaster | Hx7!kq2Lpz", "Hx7!kq2Lpz"),
    ("09:14 Jo: the admin login is jo@shop.fr\n09:15 Jo: Winter.Shop.2024\n09:15 Bot: Got it", "Winter.Shop.2024"),
    ("backup codes for Maria's Google account: 7k2p-9x4m 3q8r-1z5w", "7k2p-9x4m"),
    ("pay the invoice to IBAN FR76 3000 6000 0112 3456 7890 189", "FR76 3000 6000 0112 3456 7890 189"),
    ("Kontoverbindung NL91ABNA0417164300 (Rabo)", "NL91ABNA0417164300"),
]


@pytest.mark.parametrize(("text", "secret"), WEB_FOUND)
def test_a_web_credential_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


# Near those rules, no secret
WEB_RULES_KEPT = [
    "const token = localStorage.getItem('token');",
    'localStorage.setItem("theme", "dark-high-contrast")',
    "sessionStorage.getItem('cartId') => \"c1a2b3c4d5e6f7a8\"",
    "Application passwords were added in WordPress 5.6; read this page then create one",
    "curl -u $STRIPE_KEY: https://api.stripe.com/v1/charges",
    "curl -u admin: https://localhost:8080/health",
    "client.setApiKey(process.env.MOLLIE_KEY);",
    "API token (name: deploy): created 2024-05-01, expires never",
    "key fingerprint (sha256): 3f9a1c7e5b2d8f4a6c0e1b3d5f7a9c2e",
    "htpasswd -c /etc/nginx/.htpasswd admin   # prompts for the password",
    "basic auth: username / password from the vault",
    "ssh deploy@host -p 2222   # password prompted",
    "reset the password (see ticket 4512)",
    "the password is required",
    "PASSWORD ........ see the vault",
    "the shared secret is rotated every 90 days",
    "SELECT 1; -- 5432:5432 mapped",
    '{"settings":"{\\"smtp\\":{\\"pass\\":\\"${SMTP_PASS}\\"}}"}',
    "see https://zapier.com/help/create/code-webhooks/trigger-zaps-from-webhooks",
    "Stripe test card 4242 4242 4242 4242, any CVC",
    "order 4929183744102287 shipped to the card holder",
    "card 4929 1837 4410 2287 failed the check, retry",
    "credit limit raised, ref 1234567890123",
    "IBAN example from the standard: DE89 3704 0044 0532 0130 00",
    "our IBAN starts with ES91, ask finance for the rest",
    "pk_test_TYooMQauvdEDq54NiTphI7jx is Stripe's documented publishable key",
    "test_abcdefghijklmnopqrstuvwxyzabcd",
    "Client('AC' + sid, os.environ['TWILIO_AUTH_TOKEN'])",
    "the password is required.",
    "user: alice | role: admin2",
    "the cache key for the session: a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
    "if password == request:",
    "das Passwort ist abgelaufen",
    "Basic auth: disabled / see nginx.conf",
    "user: admin / password: see 1Password",
    "sessionStorage.setItem('token', token)",
    "x-api-version: 0d77461b178770aa918eabfd",
    "x-request-id: 7d3f9a1b2c4e5f607d3f9a1b2c4e5f607d3f9a1b2c4e5f60",
    "x-content-sha256: 757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    "x-checksum-md5: 0d77461b178770aa918eabfd04a769b6",
    "username: deploy, uid 1001",
    "user:root / group:wheel",
    "10:01 Tom: my login is tom@x.io\n10:02 Tom: thanks, all good",
    "login via sso@corp.example\nBot: Welcome back",
    "your password is incorrect",
    "the password is hashed, the salt is random",
    "password is mandatory, email is optional",
    "the new password was rejected.",
    "recovery codes for the old account are gone",
    "Backup codes for your account: 10 remaining",
]


@pytest.mark.parametrize("text", WEB_RULES_KEPT)
def test_an_ordinary_text_near_a_web_rule_is_kept(text: str) -> None:
    assert redact(text) == text


_RELEASED_FORMS = set(
    """devtools/session_storage cms/wp_app_password ecommerce/prestashop_ws ecommerce/storefront_private payments/mollie
    payments/card_number payments/iban_prose messaging/twilio_auth messaging/klaviyo_private crm/gorgias
    webhooks/zapier_catch webhooks/teams_connector webhooks/signing_hand staging/htpasswd_creds
    obfuscated/caps_word handover/cpanel_token handover/dns_provider database/pgpass_line hosting/render_deploy_hook
    hosting/kinsta_ssh hosting/wpengine_sftp product_api/deepl obfuscated/json_escaped hard/backtick_markdown
    hard/colon_space_table ticket/intercom_convo staging/password_protect two_factor/recovery_codes
    handover/noisy ticket/chat_export hard/lowercase_hex_no_label""".split()
)
RELEASED = [s for s in BLIND13_SECRETS if s.name in _RELEASED_FORMS]


def test_the_released_forms_are_all_selected() -> None:
    assert {s.name for s in RELEASED} == _RELEASED_FORMS


@pytest.mark.parametrize("secret", RELEASED, ids=lambda s: s.name)
def test_the_released_corpus_form_is_redacted(secret: Secret) -> None:
    assert_redacted_in_place(secret.text, secret.needle)
