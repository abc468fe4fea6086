"""Issue 36, round 9: operations texts (the tenth blind corpus, blind10). First its ordinary texts the redactor
changed (a value that only points at a secret, a public key, a shell's pipe or message, a directory's bookkeeping),
each with forms of our own that must stay and secrets near them that must still go; then secrets told in incident
chats, runbooks and support tickets. The values are made up."""

from __future__ import annotations

import base64

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind10 import BLIND10_ORDINARY, BLIND10_SECRETS


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
    # the shell's default for an unset variable is a value, not its message
    ("DB_PASS=${DB_PASS:-Hunter2x9}", "Hunter2x9"),
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


# secrets handed over in an incident's chat, a runbook or a ticket (kernel.redaction.incident_chat)
INCIDENT_FOUND = [
    # an answer after an arrow, to a question or after a credential's word
    ("which one was the iDRAC admin? -> Qz7!vRt2pLx", "Qz7!vRt2pLx"),
    ("vcsa root pw => mK4$wq9Zt", "mK4$wq9Zt"),
    ("as spelled on the bridge call: upper T, r, 3, x, hash -> Tr3x#Walnut", "Tr3x#Walnut"),
    # typed at the wrong prompt: a terminal's lines, a shell's history
    ("$ su -\nBr4v0!Tango", "Br4v0!Tango"),
    (" 1041  psql -h db02 -U reporting\n 1042  Pq8rLw2Zs\n 1043  exit", "Pq8rLw2Zs"),
    ("ops@bastion:~$ ssh root@10.1.2.3\nN0v3mber!Rain", "N0v3mber!Rain"),
    # a remote-support session's password or code
    ("RustDesk id 412 889 301, one-time password 7hq2mz", "7hq2mz"),
    ("Remote in via VNC, the password is Lx9vQ2rT", "Lx9vQ2rT"),
    ("ScreenConnect session 88213 — access code: 5t8kpw", "5t8kpw"),
    # host, user and password joined by colons
    ("sw-edge-02.corp.example:netadmin:Sw1tch#2024", "Sw1tch#2024"),
    ("192.168.50.2:22:root:r00tB0x9", "r00tB0x9"),
    # a user's key, then a sibling key with a generated value
    ("{'host': 'ups-3', 'user': 'apc', 'k': 'Vb7nQx2LpR'}", "Vb7nQx2LpR"),
    ("username=svc_backup&secret_value=Hj8Kq2mNx5", "Hj8Kq2mNx5"),
    ("pdu-a:\n  url: http://10.2.0.9\n  user: apc\n  token2: Wm4xRt9QzL", "Wm4xRt9QzL"),
    ("- login: monitor\n  mark: Xc8vB2nM4q", "Xc8vB2nM4q"),
    ("login: backup_ro\nsee the sealed note, rest is Gt5hY8uJ2kL", "Gt5hY8uJ2kL"),
    # characters spelt out
    ("slowly, letter by letter: Q 7 m x R 2 p", "Q 7 m x R 2 p"),
    ("spelled out: a 9 B c 3 d E", "a 9 B c 3 d E"),
    # disguised to slip past a filter
    ("reversed so the DLP filter ignores it: 9zQmL2xVk7", "9zQmL2xVk7"),
    ("rot13 version for the channel: Ny8mQxP2vL", "Ny8mQxP2vL"),
    # a password named earlier, its value later
    ("The switch password got rotated by the script last night; it is now Sw4nLake!9", "Sw4nLake!9"),
    ("the printer uses what the guest wifi uses, namely bluebird2024", "bluebird2024"),
    # a break-glass or emergency credential
    ("emergency password for the console: Vx9!kQ2mRt", "Vx9!kQ2mRt"),
    ("break glass passphrase: amber willow tundra quartz", "amber willow tundra quartz"),
    # letters that are no word after a password's noun and its verb, in any language
    ("das Passwort für den Switch im Keller ist Qxmvbrtkel", "Qxmvbrtkel"),
    ("the password for the lab NAS is Wzhqplorte", "Wzhqplorte"),
]


@pytest.mark.parametrize(("text", "secret"), INCIDENT_FOUND)
def test_a_secret_handed_over_in_an_incident_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


INCIDENT_KEPT = [
    # an arrow's answer that is no password
    "what happened to the db? -> see INC-4411",
    "login page -> LoginPageV2",
    "admin? -> yes",
    "build -> deploy -> verify",
    "root cause? -> expired certificate",
    # a prompting command, then its own output or the next command
    "$ ssh bastion\nLast login: Tue Mar  4 10:12:01 2025 from 10.0.0.5",
    "  99  mysql -u root -p\n 100  ls -la",
    "$ su -\nPassword:",
    "$ sudo -i\n[sudo] password for ops:",
    "$ ssh web01\nWelcome to Ubuntu 22.04.3 LTS",
    "$ ssh -i key.pem ec2-user@203.0.113.4\nubuntu@ip-10-0-0-1:~$",
    "  20  sudo systemctl restart nginx\n  21  htop\n  22  Get-Process",
    # a remote-support tool with no password given
    "TeamViewer password is required for unattended access",
    "AnyDesk asks for the password on each connection",
    "Install TeamViewer 15 and send me the ID",
    "VNC password length must be 8 characters",
    "TeamViewer code review at 3pm",
    # colons that join no host, user and password: Maven coordinates, a registry, a port, a word
    "org.apache.commons:commons-lang3:3.12.0",
    "com.google.guava:guava:31.1-jre",
    "registry.example.com:5000/app:latest",
    "db01.internal:postgres:5432",
    "10.0.0.1:admin:UPDATE",
    # a user's siblings that are ids, words or names
    '{"user": "alice", "id": "a8Fj2kLq9Z", "role": "ops"}',
    '{"user": "alice", "role": "DevOpsLead"}',
    "- login: monitor\n  name: Monitoring Bot\n  group: noc",
    "user: jdoe\nsee the onboarding doc",
    "user: jdoe\ncommit 3f9a2b7c1d",
    '{"user": "bob", "etag": "W7xYz9AbCd", "traceId": "Qm8Zx2LpVw"}',
    "user=bob; build_no=Xk29LmQp7Z",
    "user: alice\nrequest id: Xk29LmQp7Z",
    "User: alice\nSession ID Ab3dEf9GhJ",
    # characters spelt out that are a list, digits, or letters in one case
    "read the letters: a b c d e f",
    "read it back: 4 8 1 5 1 6",
    "the variables in order: x y z a b c",
    # words that say "disguised" or "now" about something else
    "reversed the order of the list: step3",
    "the bot doesn't respond: check webhook",
    "it's now: fixed",
    "i.e. Python3",
    "i.e. the one in the vault",
    "the new build is out, it's now v2.4.1",
    "the wifi password policy changed, i.e. WPA3-Personal only",
    # a break-glass credential that is only pointed at
    "emergency password: stored in the safe, envelope 4",
    "break-glass account: admin-bg",
    "emergency phrase: ask the duty manager",
    "fallback login: see runbook section 4",
    # a word after a password's noun and its verb, in any language
    "das Passwort ist abgelaufen",
    "le mot de passe du compte est incorrect",
    "het wachtwoord is verlopen",
    "Passwort des Routers ist Pflanzenschutz",
]


@pytest.mark.parametrize("text", INCIDENT_KEPT)
def test_text_near_an_incident_handover_stays(text: str) -> None:
    assert redact(text) == text


_BLIND10_INCIDENT_FORMS = (
    "incident/hard_cli_history",
    "incident/hard_colon_triplet",
    "incident/hard_it_is",
    "incident/hard_json_short_key",
    "incident/hard_keyword_far",
    "incident/hard_phonetic",
    "incident/hard_reverse",
    "incident/hard_same_as_wifi",
    "incident/hard_spaced_out",
    "incident/hard_two_line",
    "incident/hard_words_passphrase",
    "incident/hard_yaml_odd_key",
    "incident/hard_french",
    "ticket/anydesk",
    "ticket/vendor_remote",
)


@pytest.mark.parametrize("name", _BLIND10_INCIDENT_FORMS)
def test_blind10_incident_forms_are_caught(name: str) -> None:
    form = next(secret for secret in BLIND10_SECRETS if secret.name == name)
    assert_redacted_in_place(form.text, form.needle)
