"""Redaction recognises secrets, not a list (issue 36 item 2): the held-out corpus as assertions.

``tests/support/secrets_heldout.py`` was written before the recognisers
changed. Before issue 36, ``redact`` kept 70 of its 120 secret forms (41.7 %
never kept) and changed 4 of its 200 ordinary texts; it is a tuning set now
(a fresh held-out corpus is measured apart). The families added for issue 36
(provider formats, places a secret is written in, prose) have their own cases
below, each with ordinary look-alikes that must stay as they are.
Pure unit tests of ``kernel.privacy.redact``: no stack, no network.
"""

from __future__ import annotations

import base64
import hashlib
import time
import urllib.parse

import pytest

from kernel.privacy import contains_secret, redact
from kernel.redaction.detect_secrets_rules import DETECT_SECRETS_RULES
from kernel.redaction.entropy import high_entropy
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_corpus import Secret
from tests.support.secrets_heldout import HELDOUT_ORDINARY, HELDOUT_SECRETS, changed_ordinary, kept_secrets

# The form the recognisers still miss, left as it is: a Twilio SID written reversed (hex, then "AC") as the first
# argument of a call. Only the call could give it away, and a 32-hex argument is how a digest looks too.
KNOWN_MISSES = {"twilio-sid-alone"}
TARGET = 0.98  # issue 36: >= 98 % of the held-out forms never kept


def test_the_heldout_corpus_is_the_size_the_issue_asks_for() -> None:
    assert len(HELDOUT_SECRETS) >= 100
    assert len(HELDOUT_ORDINARY) == 200


def test_no_heldout_form_is_kept_beyond_the_known_misses() -> None:
    kept = kept_secrets(redact)
    assert set(kept) <= KNOWN_MISSES, sorted(set(kept) - KNOWN_MISSES)
    never_kept = 1 - len(kept) / len(HELDOUT_SECRETS)
    assert never_kept >= TARGET, f"{never_kept:.1%} never kept"


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


def test_most_random_tokens_are_high_entropy_whatever_runs_of_letters_they_hold() -> None:
    """A run of lower-case letters counts as a word only when it reads as one ("kkpdhiq" does not)."""
    tokens = [_alnum(f"entropy-{n}", 40) for n in range(400)]
    assert sum(high_entropy(t) for t in tokens) >= 0.95 * len(tokens)
    assert high_entropy("DNxril3RavGD5MfvJ7NScUykT8C8UBkkpdhiG37L")


@pytest.mark.parametrize(
    "value",
    ["TestCaseForTheLoginFlow42", "AbstractSingletonProxyFactoryBean", "MNEMEX_EMBEDDING_PRECISION=fp32"],
)
def test_identifiers_made_of_words_are_not_high_entropy(value: str) -> None:
    assert not high_entropy(value)


def test_a_random_flag_value_is_redacted_but_a_digest_is_not() -> None:
    assert "Xk9Lm2Pq7Rt4Vw8Yz3Ab6Cd" not in redact("acme deploy --credential Xk9Lm2Pq7Rt4Vw8Yz3Ab6Cd")
    digest = "pip download --hash sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert redact(digest) == digest


def test_the_detect_secrets_table_matches_the_pinned_package() -> None:
    """The vendored rules are detect-secrets' own: a version bump that changes one fails here."""
    pytest.importorskip("detect_secrets")
    from kernel.redaction.detect_secrets_rules import installed_rules

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
    "csv-headers": "password,x\n" * 4_000,
    "csv-rows": "user,password\n" + "bob,Hx9!q\n" * 4_000,
    "sql-values": "INSERT INTO t (password) VALUES (" + "'a'," * 10_000 + ")",
    "yaml-blocks": "password: |\n" * 4_000,
    # long runs of blanks after a label, and of a webhook's or a name's segments
    "label-blanks": "password" + " " * 20_000,
    "app-password-blanks": "app password" + " " * 20_000,
    "quoted-blanks": '"value"' + " " * 20_000 + '"value"',
    "hook-segments": ("/hooks/" + "a1" * 65 + ".") * 370,
    "secret-names": "secret( " + "token-" * 8_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_context_rules_stay_linear_on_hostile_input(name: str) -> None:
    text = HOSTILE[name]
    started = time.process_time()
    redact(text)
    assert time.process_time() - started < 1.5, f"{len(text):,} chars of {name!r}"


def _alnum(seed: str, length: int) -> str:
    """A format-valid random-looking value, made from a seeded hash (never a real credential)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    raw = b"".join(hashlib.sha256(f"recognition:{seed}:{n}".encode()).digest() for n in range(length // 32 + 1))
    return "".join(alphabet[b % 62] for b in raw[:length])


def _hex(seed: str, length: int) -> str:
    return hashlib.sha256(f"recognition-hex:{seed}".encode()).hexdigest()[:length]


_PW = "Qv7;mz)Lp2"
# Provider formats added for issue 36 (written from the providers' documented shapes).
FORMAT_CASES = {
    "dockerhub": "dckr_pat_" + _alnum("dckr", 27),
    "vercel": "vcp_" + _alnum("vcp", 56),
    "rubygems": "rubygems_" + _hex("rg", 48),
    "nuget": "oy2" + _alnum("nuget", 43).lower(),
    "planetscale": "pscale_tkn_" + _alnum("ps", 43),
    "contentful": "CFPAT-" + _alnum("cf", 43),
    "shippo": "shippo_live_" + _hex("shippo", 40),
    "langsmith": "lsv2_pt_" + _hex("ls1", 32) + "_" + _hex("ls2", 10),
    "tavily": "tvly-" + _alnum("tvly", 32),
    "pinecone": "pcsk_" + _alnum("pc1", 6) + "_" + _alnum("pc2", 60),
    "posthog-personal": "phx_" + _alnum("phx", 43),
    "openrouter": "sk-or-v1-" + _hex("or", 64),
    "alibaba": "LTAI" + _alnum("ali", 20),
    "tencent": "AKID" + _alnum("tc", 32),
    "braintree": "access_token$production$" + _alnum("bt", 16).lower() + "$" + _hex("bt2", 32),
    "asana": "1/" + "1204" + "0" * 12 + ":" + _hex("asana", 32),
    "onepassword-service": "ops_eyJ" + _alnum("ops", 60),
    "circleci": "CCIPAT_" + _alnum("cci", 22) + "_" + _hex("cci2", 40),
    "sonar": "sqp_" + _hex("sonar", 40),
    "plaid": "access-production-"
    + "-".join((_hex("p1", 8), _hex("p2", 4), _hex("p3", 4), _hex("p4", 4), _hex("p5", 12))),
    "teams-webhook": "https://acme.webhook.office.com/webhookb2/"
    + "-".join((_hex("t1", 8), _hex("t2", 4), _hex("t3", 4), _hex("t4", 4), _hex("t5", 12)))
    + "@"
    + "-".join((_hex("u1", 8), _hex("u2", 4), _hex("u3", 4), _hex("u4", 4), _hex("u5", 12)))
    + "/IncomingWebhook/"
    + _hex("t6", 32)
    + "/"
    + "-".join((_hex("v1", 8), _hex("v2", 4), _hex("v3", 4), _hex("v4", 4), _hex("v5", 12))),
}


@pytest.mark.parametrize("name", sorted(FORMAT_CASES))
def test_each_added_provider_format_is_redacted(name: str) -> None:
    token = FORMAT_CASES[name]
    for text in (token, f"export TOKEN_{name.upper().replace('-', '_')}_X={token}", f"pasted: {token}."):
        assert token not in redact(text), redact(text)


_SENTRY_KEY = _hex("sentry", 32)
_TOKEN = _alnum("ctx-token", 40)
# (text, the secret that must not survive): the places a secret is written in.
PLACE_CASES = {
    "sentry-dsn": (f"SENTRY_DSN=https://{_SENTRY_KEY}@o4505.ingest.sentry.io/4506", _SENTRY_KEY),
    "sentry-dsn-in-call": (f'sentry_sdk.init(dsn="https://{_SENTRY_KEY}@o1.ingest.us.sentry.io/2")', _SENTRY_KEY),
    "token-as-url-user": (f"git clone https://{_TOKEN}@git.acme.dev/team/app.git", _TOKEN),
    "oracle-jdbc": (f"jdbc:oracle:thin:scott/{_PW}@db.acme.dev:1521:ORCL", _PW),
    "oracle-sqlplus": (f"sqlplus -s hr/{_PW}@//db:1521/pdb1", _PW),
    "xml-add-key": (f'<add key="DbPassword" value="{_PW}" />', _PW),
    "xml-property": (f'<property name="db.password" value="{_PW}"/>', _PW),
    "fish-set": (f"set -gx API_TOKEN {_TOKEN}", _TOKEN),
    "csh-setenv": (f"setenv DB_PASSWORD '{_PW}'", _PW),
    "aws-configure-set": (f"aws configure set aws_secret_access_key {_TOKEN}", _TOKEN),
    "npm-config-set": (f"npm config set //registry.npmjs.org/:_authToken {_TOKEN}", _TOKEN),
    "k8s-env": (f'env:\n  - name: DB_PASSWORD\n    value: "{_PW}"', _PW),
    "ecs-env-json": (f'{{"name": "API_TOKEN", "value": "{_TOKEN}"}}', _TOKEN),
    "terraform-default": (f'variable "db_password" {{\n  type = string\n  default = "{_PW}"\n}}', _PW),
    "url-encoded-json": (urllib.parse.quote(f'{{"password": "{_PW}"}}'), urllib.parse.quote(_PW)),
    "query-token": (f"https://api.acme.dev/v1?page=2&access_token={_TOKEN}", _TOKEN),
    "query-hex-key": (f"https://api.acme.dev/v1/q?api_key={_hex('qk', 32)}", _hex("qk", 32)),
    "sql-identified-by": (f"ALTER USER 'app'@'%' IDENTIFIED BY '{_PW}';", _PW),
    "sql-with-password": (f"CREATE ROLE app WITH LOGIN PASSWORD '{_PW}';", _PW),
    "redis-conf": (f"requirepass {_PW}", _PW),
    "redis-auth": (f"redis-cli -h cache AUTH default {_PW}", _PW),
    "openssl-passwd": (f"usermod -p $(openssl passwd -6 {_PW}) bob", _PW),
    "nmcli": (f"nmcli dev wifi connect Home password {_PW}", _PW),
    "gh-secret-body": (f"gh secret set DB_PASSWORD --body '{_PW}'", _PW),
    "sshpass-env": (f"SSHPASS={_PW} sshpass -e ssh bob@h", _PW),
    "wifi-qr": (f"WIFI:S:Home;T:WPA;P:{_PW};;", _PW),
    "secret-put-stdin": (f"echo {_TOKEN} | wrangler secret put API_TOKEN", _TOKEN),
    "use-as-password": (f"use {_PW} as the db password", _PW),
    "passphrase-words": ("the wifi password is correct horse battery staple", "correct horse battery"),
    "wpa-psk": (f'network={{\n  ssid="Home"\n  psk="{_PW}"\n}}', _PW),
    "german-key": (f"Passwort: {_PW}", _PW),
    "auth-token-hex-prose": (f"Twilio auth token {_hex('tw', 32)}", _hex("tw", 32)),
    "secret-value-prose": (f"the app's secret value is {_TOKEN}", _TOKEN),
    "php-array": (f"'password' => '{_PW}',", _PW),
    "json-pass-key": (f'{{"auth": {{"user": "bob", "pass": "{_PW}"}}}}', _PW),
    "env-subscript": (f'os.environ["API_KEY"] = "{_TOKEN}"', _TOKEN),
    "ruby-env-subscript": (f"ENV['SECRET_KEY_BASE'] = '{_TOKEN}'", _TOKEN),
    "props-put": (f'props.put("password", "{_PW}");', _PW),
    "set-property": (f'System.setProperty("javax.net.ssl.keyStorePassword", "{_PW}");', _PW),
    "header-set": (f'headers.set("X-Api-Key", "{_TOKEN}")', _TOKEN),
    "java-setter": (f'ds.setPassword("{_PW}");', _PW),
    "builder": (f'Client::builder().api_key("{_TOKEN}").build()', _TOKEN),
    "expect-send": (f'expect "*assword:*"\nsend "{_PW}\\r"', _PW),
    "plink": (f"plink -ssh bob@h -pw {_PW} uptime", _PW),
    "lftp": (f"lftp -u bob,{_PW} ftp.acme.dev", _PW),
    "mosquitto": (f"mosquitto_pub -h broker -u bob -P {_PW} -t x -m y", _PW),
    "sqlplus-connect": (f"CONNECT hr/{_PW}@orcl", _PW),
    "label-then-value": (f"Username: bob\nPassword:\n{_PW}\n", _PW),
    "tab-separated": (f"user\tbob\npassword\t{_PW}", _PW),
    "redis-server-flag": (f"command: redis-server --requirepass {_PW}", _PW),
    "jwk-private": (f'{{"kty": "EC", "crv": "P-256", "x": "f83O", "d": "{_alnum("jwk", 43)}"}}', _alnum("jwk", 43)),
    "seed-phrase": (
        "mnemonic: abandon ability able about above absent absorb abstract absurd abuse access accident",
        "abandon ability able",
    ),
    "csv-password-column": (f"username,password,email\nbob,{_PW},bob@acme.dev\n", _PW),
    "markdown-table": (f"| user | password |\n|---|---|\n| bob | {_PW} |\n", _PW),
    "aws-console-csv": (
        f"User name,Password,Access key ID,Secret access key\nbob,{_PW},AKIA{_alnum('csv', 16).upper()},{_TOKEN}\n",
        _PW,
    ),
    "sql-insert": (f"INSERT INTO users (name, password) VALUES ('bob', '{_PW}');", _PW),
    "yaml-block-scalar": (f"db:\n  password: |\n    {_PW}\n  user: bob\n", _PW),
    "odbc-braces": (f"Driver={{PostgreSQL}};Server=db;UID=bob;PWD={{{_PW}}};", _PW),
    "httpie-auth": (f"http -a bob:{_PW} GET https://api.acme.dev", _PW),
    "rust-const": (f'const API_TOKEN: &str = "{_TOKEN}";', _TOKEN),
    "basic-auth-b64": (f"Proxy-Authorization: Basic {base64.b64encode(_PW.encode()).decode()}", "UXY3O216KUxwMg=="),
}


@pytest.mark.parametrize("name", sorted(PLACE_CASES))
def test_each_place_a_secret_is_written_in_is_redacted(name: str) -> None:
    assert_redacted_in_place(*PLACE_CASES[name])


# Ordinary text that looks like the places above and must stay exactly as it is.
LOOK_ALIKES = [
    "git clone git@github.com:acme/app.git",
    "ssh://git@gitlab.acme.dev:2222/group/repo.git",
    "https://41898282+github-actions[bot]@users.noreply.github.com",
    "https://user-name-is-long-enough@acme.dev/path",
    "sqlplus / as sysdba",
    "sqlplus -s /nolog",
    "jdbc:oracle:thin:@db.acme.dev:1521/ORCLPDB1",
    "expdp system/${ORACLE_PWD}@orcl schemas=hr",
    '<add key="PasswordLength" value="12" />',
    '<add key="TokenEndpoint" value="https://login.acme.dev/token" />',
    '<property name="password.min.length" value="8"/>',
    '<add key="SecretName" value="db-password" />',
    "set -x PATH $HOME/bin $PATH",
    "setenv TOKEN_FILE ~/.config/token",
    "You need to set API_KEY before running the tests",
    "set password expiry to 90 days",
    "set -x SECRET_MANAGER aws",
    "aws configure set region eu-west-1",
    "aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID",
    "npm config set registry https://registry.npmjs.org/",
    "env:\n  - name: DB_HOST\n    value: db.internal",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}",
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
    "https://api.acme.dev/v1/items?page_token=2&sort=asc",
    "https://acme.dev/search?q=password+reset&keyword=token",
    "https://acme.dev/cb?state=xyz&code_challenge_method=S256",
    "the commit is 9f2c1e7a4b3d5f6e8a9b0c1d2e3f4a5b6c7d8e9f",
    "The session key hash is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "trace_id=4f9c2a1e7b3d4c5e9a8b1c2d3e4f5a6b span_id=1c2d3e4f5a6b7c8d",
    "x-request-id: 0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "auth token expired at 2024-05-01T10:00:00Z",
    "ALTER USER app PASSWORD EXPIRE;",
    "CREATE ROLE app WITH LOGIN PASSWORD NULL;",
    "requirepass is commented out in redis.conf",
    "use caution as the password reset flow is new",
    "the password is correct",
    "the password is wrong again today",
    "my password is too short to pass the new policy rules",
    "WIFI network Home has no password",
    "echo done | tee -a log.txt",
    "openssl passwd -6 -stdin < pw.txt",
    "alembic.util.exc.CommandError: Can't locate revision identified by '4f9c2a1e7b3d'",
    "pw = patch_width // 2",
    "# autosimplification if base is a number and exp odd/even",
    'env["MNEMEX_TOKEN"] = "operator-token-for-the-team-gateway"',
    'monkeypatch.setenv("MNEMEX_TOKEN", "operator-" + suffix)',
    'lexer.token("IDENT")',
    'os.environ["SECRET_MANAGER"] = "aws"',
    'props.put("password.policy", "strict");',
    "Password:\n  must be 12 characters or more",
    "password\trequired\tstring",
    "connect to/from the server",
    "--b-env MNEMEX_EMBEDDING_PRECISION=fp32",
    '{"kty": "RSA", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4", "e": "AQAB"}',
    "the seed phrase is written on paper in the safe",
    "see page 1/2024 of the report",
    "Field,Type,Required\npassword,string,yes\ntoken,string,no",
    "name,token_count\nbob,12",
    "def f(user, password):\n    return user, password",
    'f"Server=db;PWD={password};"',
    'log.info(f"password={pw}")',
    'password="****1234"',
    "description: |\n  our password policy is strict\n",
    "INSERT INTO users (name, password) VALUES ('bob', crypt('x', gen_salt('bf')));",
]


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[t[:40] for t in LOOK_ALIKES])
def test_look_alikes_of_the_added_places_stay_intact(text: str) -> None:
    assert redact(text) == text


def test_a_marker_is_never_redacted_again() -> None:
    """A marker's kind may hold "secret" or "key" ([REDACTED:detect-secrets:TwilioKeyDetector]): it is no key."""
    text = "Twilio: account AC" + _hex("ac", 32) + ", done"
    cleaned = redact(text)
    assert "[REDACTED:detect-secrets:TwilioKeyDetector]" in cleaned
    assert redact(cleaned) == cleaned


_TOK = _alnum("family", 40)
_UUID = "-".join((_hex("f1", 8), _hex("f2", 4), _hex("f3", 4), _hex("f4", 4), _hex("f5", 12)))
# The families behind the fresh corpus's misses, written with other words, tools and vendors.
FAMILY_CASES = {
    "aws-pair-slash": (f"AKIA{_alnum('pair', 16).upper()} / {_alnum('pair2', 40)}", _alnum("pair2", 40)),
    "aws-pair-and": (f"key AKIA{_alnum('pair3', 16).upper()} and {_alnum('pair4', 40)}", _alnum("pair4", 40)),
    "pat-variable": (f"GITEA_PAT={_hex('pat', 20)}{_alnum('pat2', 12).lower()}", _hex("pat", 20)),
    "vendor-header": (f"curl -H 'X-Acme-Api: {_TOK}' https://acme.dev", _TOK),
    "vendor-header-hex": (f"-H 'X-Service-Token: {_hex('hdr', 32)}'", _hex("hdr", 32)),
    "otel-headers": (f"OTEL_EXPORTER_OTLP_HEADERS=x-acme-key={_TOK},x-other=1", _TOK),
    "authorization-scheme": (f'-H "Authorization: GenieKey {_UUID}"', _UUID),
    "authorization-directive": (
        f'RequestHeader set Authorization "Basic {base64.b64encode(b"ops:Zq8-k2").decode()}"',
        "b3BzOlpxOC1rMg==",
    ),
    "asana-v2": ("2/" + "1204" + "1" * 12 + "/" + "9" * 16 + ":" + _hex("asana2", 32), _hex("asana2", 32)),
    "session-cookie": (
        f"Cookie: lang=en; PHPSESSID={_hex('sess', 8)}q{_alnum('sess', 17).lower()}; x=1",
        _alnum("sess", 17).lower(),
    ),
    "set-cookie": (f"Set-Cookie: remember_token={_TOK}; Path=/; HttpOnly", _TOK),
    "html-escaped-json": ("&quot;db_password&quot;:&quot;Kx9!vR2m&quot;", "Kx9!vR2m"),
    "pw-is": ("fyi the vpn pw is Lantern-Otter-77", "Lantern-Otter-77"),
    "password-for-several-words": ("our password for the build farm ui is Mx4.pq-Zr9", "Mx4.pq-Zr9"),
    "password-on-is-now": ("admin password on the old NAS is now Tk8#wq!Lm2", "Tk8#wq!Lm2"),
    "login-slash": ("jenkins login: deploy / Rq7.vLm2xZ", "Rq7.vLm2xZ"),
    "creds-are": ("creds are ci-bot / Hw3!kZp9", "Hw3!kZp9"),
    "credentials-and": ("the credentials for staging are qa@acme.dev and Vb6_tRk2!", "Vb6_tRk2!"),
    "password-after-comma": ("the backup is encrypted, passphrase Cobalt-River-Stone19", "Cobalt-River-Stone19"),
    "passphrase-words": ("enter passphrase amber cloud violet ember74 when asked", "amber cloud violet ember74"),
    "german": ("das Passwort ist Hz7-kLm2q!", "Hz7-kLm2q!"),
    "spanish": ("la contraseña es Pq9!xMz3", "Pq9!xMz3"),
    "italian": ("la password è Rt5-vBn8w", "Rt5-vBn8w"),
    "russian": ("пароль: Kd7-wQx2z", "Kd7-wQx2z"),
    "chinese": ("密码是Wm4!zRt8q", "Wm4!zRt8q"),
    "app-password-flag": ("mutt -p abcd-efgh-ijkl-mnop", "abcd-efgh-ijkl-mnop"),
    "app-password-spaced": ("app password: wxyz abcd efgh ijkl", "wxyz abcd efgh ijkl"),
    "mysqli-connect": ('$db = mysqli_connect("db", "shop", "plainpass", "shop");', "plainpass"),
    "pdo": ("$pdo = new PDO($dsn, 'app', 'appsecret');", "appsecret"),
    "connect-password-shaped": ('conn = pymssql.connect("db", "sa", "Yk8!pLq2")', "Yk8!pLq2"),
    "client-positional": (f'client = Client("AC{_hex("sid", 32)}", "{_hex("tw", 32)}")', _hex("tw", 32)),
    "client-one-key": (f'co = cohere.Client("{_TOK}")', _TOK),
    "new-client": (f'const c = new Client("{_TOK}");', _TOK),
    "gradle-key-password": ("keyPassword \"Jm3-pQ8z\"\nstorePassword 'Jm3-pQ8y'", "Jm3-pQ8z"),
    "split-token": (f'KEY = "ghx_" + "{_TOK}"', _TOK),
    "split-prefix": (f'token = "sk-live-" + "{_hex("split", 24)}"', _hex("split", 24)),
    "login-positional": (f"acme-cli login {_TOK}", _TOK),
    "vault-unseal": (f"vault operator unseal {_TOK}=", _TOK),
    "vault-init-output": (f"Unseal Key 2: {_TOK}", _TOK),
    "spanish-clave": ("la clave es Nv5!qTz8w", "Nv5!qTz8w"),
    "username-then-password": ("username deploy password Gx5-wLq9!", "Gx5-wLq9!"),
    "json-in-json": (f'{{"body": "{{\\"client_secret\\": \\"{_TOK}\\"}}"}}', _TOK),
    "json-in-json-tight": (f'"{{\\"password\\":\\"{_PW}\\"}}"', _PW),
    "continued-mysql": (f"mysql -h db \\\n  -u root \\\n  -p{_PW} shop", _PW),
    "continued-flag": (f"acme deploy \\\n  --client-secret \\\n  {_TOK}", _TOK),
    "continued-env": (f"export API_SECRET=\\\n  {_TOK}", _TOK),
    "wrapped-value": (f"the api token is {_TOK[:24]}\n{_TOK[24:]}", _TOK[24:]),
}


@pytest.mark.parametrize("name", sorted(FAMILY_CASES))
def test_each_family_of_the_fresh_corpus_is_redacted(name: str) -> None:
    assert_redacted_in_place(*FAMILY_CASES[name])


# Ordinary text that looks like those families and must stay exactly as it is.
FAMILY_LOOK_ALIKES = [
    "cache key: deps-1a7c60a500fdaca8",
    "restore key: node-modules-9f3e2a",
    'curl -u "$JENKINS_USER:$JENKINS_TOKEN" https://ci.acme.dev/api/json',
    "curl -u ${USER}:${API_TOKEN} https://ci.acme.dev",
    "refresh_token_expires_in: 2592000",
    "password_changed_at: 2024-05-01",
    "access_token_ttl_seconds = 3600",
    "X-Request-Id: 0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
    "X-Api-Version: 2024-01-01",
    "X-RateLimit-Remaining: 4999",
    "Cookie: theme=dark; lang=en-US; _ga=GA1.2.1234567890.1700000000",
    "Authorization: required for every route",
    "the authorization header carries a bearer token",
    "proxy_set_header Authorization $http_authorization;",
    '_HEX_PAT = "(?:{hex}:{hex}|{ipv4})"',
    "PATH=/usr/local/bin:/usr/bin",
    "login page / dashboard_v2",
    "login: yes / no",
    "credentials are read from the environment and rotated weekly",
    "the password reset flow is new",
    "encrypted, password protected",
    "password policy v2 is live",
    "use password managers when possible",
    "das Passwort ist zu kurz",
    "la contraseña es obligatoria",
    "git add -p then commit the rest",
    "app password: xxxx-xxxx-xxxx-xxxx",
    'conn = psycopg.connect("db", 5432, "mydb")',
    'sock.connect("localhost", 8080, "tcp")',
    'client = Client("https://api.acme.dev")',
    'Error: secret "db-creds" not found',
    'lexer.Token "IDENT"',
    'greeting = "hello" + "world, how are you today"',
    'url = "https://" + "acme.dev/some/long/path/here"',
    "npm login --registry https://npm.acme.dev",
    "vault operator unseal",
    "This module is self-contained: it only handles the token exchange.",
    "la clave es obligatoria",
    "username deploy password reset pending",
    '{"body": "{\\"password_policy\\": \\"strict\\"}"}',
    "ls -la \\\n  /tmp/build \\\n  --color=auto",
    "docker run \\\n  -e DB_PASSWORD=$DB_PASSWORD \\\n  app",
    "token: [REDACTED:assignment]\nnext step: deploy",
]


@pytest.mark.parametrize("text", FAMILY_LOOK_ALIKES, ids=[t[:40] for t in FAMILY_LOOK_ALIKES])
def test_look_alikes_of_the_fresh_families_stay_intact(text: str) -> None:
    assert redact(text) == text


# Families of the third tuning round (each in other words and for other tools or vendors than the corpus).
_RANDOM = "Qm7xK2pLw9ZtR4vN8sJd3HfY6bGc1Ae5"  # mixed case and digits, as a provider's token is
THIRD_ROUND_CASES = {
    "ci-debug-result": (
        "##[debug]Evaluating: secrets.DEPLOY_TOKEN\n##[debug]Result: '" + _RANDOM + "'",
        _RANDOM,
    ),
    "ci-debug-result-in-an-expression": (
        "##[debug]Evaluating: format('{0}', secrets.NPM_AUTH)\n##[debug]Result: 'Pw-" + _RANDOM[:12] + "'",
        "Pw-" + _RANDOM[:12],
    ),
    "pulumi-secret-flag-after": ("pulumi config set smtpPassword Tulip#harbor77 --secret", "Tulip#harbor77"),
    "doppler-secret": ("doppler secrets set SENDGRID_KEY " + _RANDOM, _RANDOM),
    "password-starting-with-percent": ("pymysql.connect('db', 'app', '%Kq8=vR2*tLm')", "%Kq8=vR2*tLm"),
    "password-starting-with-tilde": ('DB_PASS="~mK4.wQ9zP!r2"', "~mK4.wQ9zP!r2"),
    "long-key-first-to-a-client": ('svc = new ApiClient("' + _RANDOM * 2 + '", Mode.TEST);', _RANDOM * 2),
    "three-part-bot-token": ("bot.run('" + _RANDOM[:26] + ".Xk9_Pq." + _RANDOM + "Zz7')", _RANDOM[:26]),
    "wallet-key": ("privateKey: '0x" + "8c2f41e7d09ab3" * 4 + "91aa1c27'", "8c2f41e7d09ab3" * 4),
    "token-after-words-and-a-colon": ("here is the token for the staging bucket: gsk_" + _RANDOM, _RANDOM),
    "key-with-a-note": ("Access key (sandbox): " + _RANDOM, _RANDOM),
    "vpn-login": ("vpn: j.doe / Marble!fox93", "Marble!fox93"),
    "password-in-a-question": ("should I try password Lantern#owl58? it was the old one", "Lantern#owl58"),
    "foreign-noun-words-colon": ("Kennwort für den Server: Birke&Stein73", "Birke&Stein73"),
    "token-cut-in-three-literals": ('k = "rk_test_" + "' + _RANDOM[:16] + '" + "' + _RANDOM[16:] + '"', _RANDOM[:16]),
    "token-cut-across-lines": ("t = 'xoxp-2718281828-' +\n    '3141592653-" + _RANDOM + "'", _RANDOM),
    "token-cut-by-a-shell-backslash": (
        "export NPM_TOKEN=npm_" + _RANDOM[:14] + "\\\n" + _RANDOM[14:] + "Ab12",
        _RANDOM[14:],
    ),
}


@pytest.mark.parametrize("name", sorted(THIRD_ROUND_CASES))
def test_each_family_of_the_third_round_is_redacted(name: str) -> None:
    text, secret = THIRD_ROUND_CASES[name]
    cleaned = redact(text)
    assert secret not in cleaned, cleaned
    assert redact(cleaned) == cleaned


THIRD_ROUND_LOOK_ALIKES = [
    "password_history = 24",
    "secret_backend: hashicorp-vault",
    "token_provider: oidc",
    "credentials_store: osxkeychain",
    "ERROR 1045 (28000): Access denied for user 'app'@'10.0.0.7' (using password: NO)",
    "W1127 08:01:02.000001   1 reflector.go:324] failed to watch *v1.Secret: the server is unavailable",
    "| service | user | password |\n|---|---|---|\n| billing | svc | (see 1Password) |",
    "pulumi config set aws:region eu-west-1",
    "pulumi config set --stack dev replicas 3",
    "##[debug]Evaluating: secrets.GITHUB_TOKEN\n##[debug]Result: '***'",
    "##[debug]Evaluating: env.NODE_VERSION\n##[debug]Result: '20'",
    "accounts: ['0xa0Ee7A142d267C1f36714E4a8F75612F20a79720']",
    "tx hash: 0x" + "5b2e9c" * 10 + "d1f4",
    "logger.info.configure.something_long_enough_here_too",
    'client = Client("https://api.example.dev/v1/organisations/default")',
    "the token for the API calls: see the vault",
    "API key (prod): rotate monthly",
    "wifi: guest network / no password",
    "why does the password reset mail never arrive?",
    "Passwort für den Testaccount ändern",
    'msg = "hello " + "world and more words" + "ok"',
    'path = "src/" + "kernel/privacy.py"',
    "printf '%s\\n' \"$PASSWORD\"",
    "cd ~/projects && ls",
]


@pytest.mark.parametrize("text", THIRD_ROUND_LOOK_ALIKES, ids=[t[:40] for t in THIRD_ROUND_LOOK_ALIKES])
def test_look_alikes_of_the_third_round_stay_intact(text: str) -> None:
    assert redact(text) == text
