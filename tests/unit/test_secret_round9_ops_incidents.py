"""Issue 36, round 9: operations texts (the tenth blind corpus, blind10). First its ordinary texts the redactor
changed (a value that only points at a secret, a public key, a shell's pipe or message, a directory's bookkeeping),
each with forms of our own that must stay and secrets near them that must still go; then secrets told in incident
chats, runbooks and support tickets. The values are made up."""

from __future__ import annotations

import base64

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind10 import BLIND10_ORDINARY


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


_PRIVATE_KEY_B64 = _b64("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA")
_WG_KEY = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="

# values that point at a secret instead of being one, and texts that only look like a key and its value
KEPT = [
    # a call or a note in brackets: PowerShell reads or fetches the secret, a person will tell it
    'Set-ADAccountPassword -Identity jdoe -Reset -NewPassword (Read-Host -AsSecureString "New password")',
    "$env:API_TOKEN = (Get-AzKeyVaultSecret -VaultName kv1 -Name api -AsPlainText)",
    "client_secret = (ask the platform team)",
    "PrivateKey = (generate it with wg genkey on the peer)",
    # the shell's message when a variable is unset, or its alternative
    ': "${ADMIN_PASSWORD:?set ADMIN_PASSWORD before running}"',
    "REDIS_PASS=${REDIS_PASS:?missing}",
    "exec app ${SMTP_PASS:+--smtp-pass-file=/run/secrets/smtp}",
    # a shell's pipe is no table's border
    "kubectl get secret app -o json | jq .data",
    "vault kv get -format=json secret/db | jq -r .data.password",
    "aws secretsmanager get-secret-value --secret-id prod/db | jq -r .SecretString",
    # a certificate or a public key, in base64 or as WireGuard prints it
    "client-certificate-data: " + _b64("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuT"),
    "ca_auth_bundle: " + _b64("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC"),
    "peer: 10.0.0.2\n  Public Key: xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\n  endpoint: 198.51.100.7:51820",
    # a directory's password bookkeeping (LDAP, Active Directory)
    "pwdChangedTime: 20240101120000Z",
    "badPasswordTime: 133768243210000000",
    "pwdLastSet: 0",
    "pwdFailureTime: 20240312083000Z",
    # a lookup table's type and file (Postfix)
    "lmtp_sasl_password_maps = proxy:mysql:/etc/postfix/mysql-sasl.cf",
    "smtp_sasl_password_maps = lmdb:/etc/postfix/sasl_passwd",
    # psql's variable put in as a literal
    "ALTER ROLE app WITH PASSWORD :'app_pw';",
    # a password manager's name, and a note in brackets where a table's password would be
    "| Host | User | Password |\n|---|---|---|\n| jenkins | admin | (in Bitwarden: Ops/Jenkins) |",
    "| Host | Login | Password |\n|---|---|---|\n| nas01 | root | (see KeePass: infra.kdbx, entry NAS) |",
    "KeePass: Infra/NAS",
    "LastPass: Shared-Ops/Firewall",
    # a log's bracketed fields after a credential's noun: the colon is the field's
    "sshd: login failed [user: admin] [reason: bad password]",
    "Login failed {user: deploy, src: 10.0.0.1}",
]


@pytest.mark.parametrize("text", KEPT)
def test_a_value_that_only_points_at_a_secret_stays(text: str) -> None:
    assert redact(text) == text


# secrets next to the kept forms: still redacted
FOUND = [
    ("client-key-data: " + _PRIVATE_KEY_B64, _PRIVATE_KEY_B64),
    ("[Interface]\nPrivateKey = " + _WG_KEY, _WG_KEY),
    ("private key: " + _WG_KEY, _WG_KEY),
    ("smtp_sasl_password_maps = static:relay:Hunter2x!", "Hunter2x!"),
    ("ALTER ROLE app WITH PASSWORD 'Hunter2x!';", "Hunter2x!"),
    ("| Host | User | Password |\n|---|---|---|\n| jenkins | admin | Tr0ub4dor&3 |", "Tr0ub4dor&3"),
    ("userPassword: Hunter2x!", "Hunter2x!"),
    ('$env:DB_PASSWORD = "Hunter2x!"', "Hunter2x!"),
    ("New-LocalUser -Name kiosk -Password Hunter2x!", "Hunter2x!"),
    ("mysqldump -u root --password=Hunter2x! app | gzip > app.sql.gz", "Hunter2x!"),
    ("password | Hunter2x!", "Hunter2x!"),
    ("KeePass master password: Hunter2x!", "Hunter2x!"),
    ("password [prod]: Hunter2x9", "Hunter2x9"),
]


@pytest.mark.parametrize(("text", "secret"), FOUND)
def test_a_secret_beside_those_forms_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


# blind10's ordinary texts that round 9 found changed
_BLIND10_FALSE_ALARMS = [
    text
    for text in BLIND10_ORDINARY
    if text.startswith(
        (
            "New-LocalUser -Name kiosk",
            "$env:DB_PASSWORD = (Get-Secret",
            "DB_PASS=${DB_PASS:?",
            "WARNING! Using --password via",
            "kubectl get secret db -o yaml | grep",
            "certificate-authority-data: LS0t",
            "%SEC_LOGIN-4-LOGIN_FAILED",
            "wg show wg0",
            "PrivateKey = (run",
            "dn: CN=John Doe",
            "smtpd_sasl_auth_enable = yes",
            "CREATE USER reporting WITH PASSWORD :'pw'",
            "| System | User | Password |",
        )
    )
]


def test_the_false_alarms_are_all_selected() -> None:
    assert len(_BLIND10_FALSE_ALARMS) == 13


@pytest.mark.parametrize("text", _BLIND10_FALSE_ALARMS)
def test_blind10_ordinary_texts_stay(text: str) -> None:
    assert redact(text) == text
