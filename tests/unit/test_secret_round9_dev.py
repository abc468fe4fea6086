"""Secrets in software-development work (issue 36, round 9): SDK initialisers and client constructors, test
assertions, build settings, debugging dumps, developer tools' files, hand-built Basic credentials, function keys in
URLs, recovery codes, hex-encoded credentials. Each family is tried on forms of its own and on ordinary texts near
them that must stay byte for byte; the examples that providers' docs and RFCs print stay as they are. The values
are made up."""

from __future__ import annotations

import time

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind9 import BLIND9_ORDINARY, BLIND9_SECRETS
from tests.support.secrets_blind11 import BLIND11_SECRETS
from tests.support.secrets_corpus import Secret

# The docs' examples, and sentences about a flag, that stay as they are
DOCUMENTED_KEPT = [
    "curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:",
    'Stripe.apiKey = "sk_test_BQokikJOvBiI2HlWgH4olfQ2"; // the key Stripe\'s API reference shows',
    "RFC 6749 section 2.3.1: Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW",
    "RFC 2617 shows: Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    "Warning: passing --token via the command line leaves it in your shell history",
    "error: --password through an environment file is not supported, use --password-file",
    "Don't pass --secret using argv, read it from stdin instead",
]


@pytest.mark.parametrize("text", DOCUMENTED_KEPT)
def test_a_documented_example_or_a_sentence_about_a_flag_is_kept(text: str) -> None:
    assert redact(text) == text


# The same shapes with values no docs print are still secrets
DOCUMENTED_NEAR_FOUND = [
    ("curl https://api.stripe.com/v1/charges -u sk_test_9fHq2LmXr7TbVw3KcZp1Ns4d:", "sk_test_9fHq2LmXr7TbVw3KcZp1Ns4d"),
    ("Authorization: Basic YWRtaW46U3VubnktUmFpbjQ0", "YWRtaW46U3VubnktUmFpbjQ0"),
    ("docker login --password Fern-Rock-2219 registry.acme.io", "Fern-Rock-2219"),
]


@pytest.mark.parametrize(("text", "secret"), DOCUMENTED_NEAR_FOUND)
def test_a_value_no_docs_print_is_still_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


def test_the_released_corpus_ordinary_texts_of_the_docs_stay() -> None:
    documented = [t for t in BLIND9_ORDINARY if "EXAMPLE" in t or "TYooMQ" in t or "RFC 7617" in t or " via " in t]
    assert len(documented) == 5
    assert [redact(t) for t in documented] == documented


# Code: SDK initialisers, positional credentials, Basic auth setters in any language
CODE_FOUND = [
    ('req.SetBasicAuth("ci-bot", "Gopher!Lake21")', "Gopher!Lake21"),
    ('let res = client.get(url).basic_auth("ci", Some("Rusty-Crab-88")).send()?;', "Rusty-Crab-88"),
    ('val creds = Credentials.basic("bot", "Okio-Pass-42")', "Okio-Pass-42"),
    ("http.setBasicAuth('svc', 'Dart#Wing55');", "Dart#Wing55"),
    ("const db = new Sequelize('app', 'app_rw', 'Maria-Db-661', { dialect: 'mysql' });", "Maria-Db-661"),
    ('ftp = Net::FTP.new("ftp.acme.io", "uploader", "Ruby-Ftp-93")', "Ruby-Ftp-93"),
    ("const idx = algoliasearch('QX81ZP', 'c0f2d8a1b7e94356a1d2c3b4e5f60718');", "c0f2d8a1b7e94356a1d2c3b4e5f60718"),
    ('Parse.initialize("shopApp", "Zq8xLm2PvR7tKw9NcY4bHs6D");', "Zq8xLm2PvR7tKw9NcY4bHs6D"),
    ('Purchases.configure("appl_Kd82hQm1Zx7PvR4tLw9NcY")', "appl_Kd82hQm1Zx7PvR4tLw9NcY"),
    ('Bugsnag.start(this, "9c1e7a53f0b24d68a1c3e5f7b9d2a4c6")', "9c1e7a53f0b24d68a1c3e5f7b9d2a4c6"),
    ('Instabug.start("b7e94356a1d2c3b4e5f60718c0f2d8a1", [InvocationEvent.shake])', "b7e94356a1d2c3b4e5f60718c0f2d8a1"),
    (
        'Amplitude.getInstance().initialize(this, "e5f60718c0f2d8a1b7e94356a1d2c3b4")',
        "e5f60718c0f2d8a1b7e94356a1d2c3b4",
    ),
]

CODE_KEPT = [
    'req.SetBasicAuth(user, os.Getenv("DEPLOY_PW"))',
    'index.search("query", "facets")',
    "const db = new Sequelize(process.env.DB, process.env.USER, process.env.PW, {});",
    "Parse.initialize(APP_ID, JS_KEY);",
    'http.setBasicAuth("svc", password);',
    'Timer.start("2024-01-01T00:00:00Z")',
    'Server.start("0.0.0.0", 8080)',
    'App.initialize("com.acme.shop.production")',
    'Worker.start("queue-name-for-the-jobs")',
    'Deploy.start("4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c")',
]


@pytest.mark.parametrize(("text", "secret"), CODE_FOUND)
def test_a_credential_given_to_a_client_or_an_auth_setter_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", CODE_KEPT)
def test_a_client_given_variables_is_kept(text: str) -> None:
    assert redact(text) == text


# Build settings, test assertions, fixtures' accounts, debugging dumps, files written by a shell, a REPL's echo
PLACED_FOUND = [
    ('resValue("string", "stripe_token", "tok9Hq2LmXr7TbVw3KcZp1Ns")', "tok9Hq2LmXr7TbVw3KcZp1Ns"),
    ("buildConfigField 'String', 'SENTRY_SECRET', '\"Qm4Zx8Lp2Rv7Tk9WnY3b\"'", "Qm4Zx8Lp2Rv7Tk9WnY3b"),
    (
        '<meta-data android:name="com.acme.push.API_KEY" android:value="Hx7Lm2Qp9Rt4Vw8Zk3Nb6Yc" />',
        "Hx7Lm2Qp9Rt4Vw8Zk3Nb6Yc",
    ),
    ("assert resp.json()['access_token'] == 'Kq2Lm9Xv7Tb4Rw8Zp3Nc6Yd1Hs5Jf0G'", "Kq2Lm9Xv7Tb4Rw8Zp3Nc6Yd1Hs5Jf0G"),
    ('self.assertEqual(creds.api_key, "9c1e7a53f0b24d68a1c3e5f7b9d2a4c6")', "9c1e7a53f0b24d68a1c3e5f7b9d2a4c6"),
    ('assert_eq!(cfg.db_password, "Tern&Cove71");', "Tern&Cove71"),
    ("expect(session.token).to eq('p8Qz2Lx7Vm4Rt9Kw3Nb6Yc1H')", "p8Qz2Lx7Vm4Rt9Kw3Nb6Yc1H"),
    ("USERS = [('admin', 'Quince-Pond-40'), ('guest', 'guest')]", "Quince-Pond-40"),
    ('{"postgres", "Pg$Harbor2024"},', "Pg$Harbor2024"),
    ('  ["db_password"]=>\n  string(12) "Vole&Marsh88"', "Vole&Marsh88"),
    ('["api_token"]=> string(24) "Zr5Kq8Lm2Xv7Tb4Rw9Np3Hc6"', "Zr5Kq8Lm2Xv7Tb4Rw9Np3Hc6"),
    ("printf '%s' 'Birch-Kiln-5521' | sudo tee /etc/app/db_password", "Birch-Kiln-5521"),
    ('echo "ghost-lamp-7731" >> ~/.config/tool/token', "ghost-lamp-7731"),
    (">>> os.environ[\"SMTP_PASSWORD\"]\n'Larch#Fell38'", "Larch#Fell38"),
    ('In [3]: vault.read_secret("ci/deploy")\nOut[3]: "Zq8xLm2PvR7tKw9N"', "Zq8xLm2PvR7tKw9N"),
]

PLACED_KEPT = [
    'buildConfigField("String", "API_URL", "\\"https://api.acme.io\\"")',
    'buildConfigField("boolean", "USE_TOKEN_AUTH", "true")',
    "expect(user.password).toBeUndefined()",
    "assert resp.json()['token_type'] == 'bearer'",
    "expect(res.body.token).toBe(token)",
    "self.assertEqual(settings.TOKEN_HEADER, 'Authorization')",
    "USERS = [('admin', password), ('guest', 'guest'), ('root', 'root')]",
    '["password_length"]=> string(2) "12"',
    'echo "$DEPLOY_TOKEN" > token.txt',
    "echo hello > secret.txt",
    'echo "at least 12 characters" > password_policy.md',
    ">>> len(token)\n32",
    ">>> settings.TOKEN_HEADER\n'Authorization'",
]


@pytest.mark.parametrize(("text", "secret"), PLACED_FOUND)
def test_a_secret_in_a_build_setting_a_test_a_dump_or_a_shell_line_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", PLACED_KEPT)
def test_a_setting_a_check_or_a_dump_without_a_secret_is_kept(text: str) -> None:
    assert redact(text) == text


# An environment lookup's fallback under a password's short name; Basic credentials encoded by hand; name/value pairs
LOOKUP_AND_PAIR_FOUND = [
    ('smtp_pass = os.getenv("SMTP_PASS", "Mail-Tern-42")', "Mail-Tern-42"),
    ('const pw = process.env.REDIS_PW || "Redis&Kite7";', "Redis&Kite7"),
    ("password: <%= ENV.fetch('PG_PW') { 'Erb-Owl-6612' } %>", "Erb-Owl-6612"),
    ("PGPASSWORD=${DB_PW:-Fallback#9x} psql -h db", "Fallback#9x"),
    ("      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-Compose#77x}", "Compose#77x"),
    ("redis: ${REDIS_PASS:=Redis&Kite7}", "Redis&Kite7"),
    ("curl -H \"Authorization: Basic $(printf '%s' 'ci:Hollow-Ash-90' | base64)\" https://ci", "Hollow-Ash-90"),
    (
        "echo -n ':x7kq2mzp9w4rt8vbn3yc6hdl5jgf1se0ua7oiqzx2wm4' | openssl base64",
        "x7kq2mzp9w4rt8vbn3yc6hdl5jgf1se0ua7oiqzx2wm4",
    ),
    ('headers: { Authorization: "Basic " + btoa("bot:Kestrel-Fen-81") }', "Kestrel-Fen-81"),
    ('auth = base64.b64encode(b"svc:Orca#Reef7").decode()', "Orca#Reef7"),
    ("Base64.strict_encode64(':Qz8Lm2Xv7Tb4Rw9Np3Hc6Kd1')", "Qz8Lm2Xv7Tb4Rw9Np3Hc6Kd1"),
    ('{"name": "DB_PASSWORD", "value": "Tide!Mill29"}', "Tide!Mill29"),
    ('{"ParameterKey": "DbPassword", "ParameterValue": "Cfn-Stack-77"}', "Cfn-Stack-77"),
    ('{"key": "stripeKey", "value": "_Hq2LmXr7TbVw3KcZp1Ns4d", "enabled": true}', "_Hq2LmXr7TbVw3KcZp1Ns4d"),
    ('{"key": "sig", "value": "Hq2LmXr7TbVw3KcZp1Ns4d", "type": "secret"}', "Hq2LmXr7TbVw3KcZp1Ns4d"),
]

LOOKUP_AND_PAIR_KEPT = [
    'x = os.getenv("DB_PW", "")',
    'mode = ENV.fetch("PWA_MODE", "standalone")',
    'flag = os.getenv("BYPASS", "false")',
    "echo ${DB_PW:-}",
    "Y=${PASSWORD_MIN_LENGTH:-12}",
    "W=${DB_PW:?set DB_PW first}",
    "url=${AUTH_URL:-https://auth.acme.io}",
    "t=${GITHUB_TOKEN:-$GH_TOKEN}",
    'echo -n "$USER:$TOKEN" | base64',
    'printf %s "$1:$2" | base64',
    'btoa(user + ":" + pw)',
    'echo "12:30" | base64',
    '{"key": "baseUrl", "value": "https://api.acme.io", "type": "default"}',
    '{"key": "apiKey", "value": "{{API_KEY}}", "type": "secret"}',
    '{"name": "PASSWORD_MIN_LENGTH", "value": "12"}',
    '{"name": "api_key_header", "value": "X-Api-Key"}',
]


@pytest.mark.parametrize(("text", "secret"), LOOKUP_AND_PAIR_FOUND)
def test_a_fallback_an_encoded_credential_or_a_named_pair_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", LOOKUP_AND_PAIR_KEPT)
def test_a_lookup_an_encoding_or_a_pair_without_a_secret_is_kept(text: str) -> None:
    assert redact(text) == text


# The released corpora's forms of these families (blind9: developer workflows; blind11: people pasting secrets)
_RELEASED_FORMS = {
    "pkgmgr/composer_auth",
    "azure/devops_pat",
    "azure/functions_key",
    "flags/launchdarkly_sdk",
    "analytics/mixpanel_secret",
    "saas/algolia_admin",
    "db/rails_database_yml",
    "db/sequelize",
    "mq/confluent_cli",
    "mq/nats_creds",
    "http/postman_env",
    "http/go_setbasicauth",
    "jwt/refresh_in_test",
    "ci/ansible_vault_pw",
    "trace/php_var_dump",
    "mobile/ios_plist",
    "code/kotlin_buildconfig",
    "hard/hex_escaped_bytes",
    "hard/no_keyword_argv",
    "hard/dict_numbered",
    "hard/recovery_codes",
    "bearer/jwt_split",
    "private_key/wallet_hex",
    "tool_output/keyring",
    "private_key/ssh_passphrase",
    "hard/prose_password",
}
RELEASED = [s for s in BLIND9_SECRETS + BLIND11_SECRETS if s.name in _RELEASED_FORMS]


def test_the_released_forms_are_all_selected() -> None:
    assert {s.name for s in RELEASED} == _RELEASED_FORMS


@pytest.mark.parametrize("secret", RELEASED, ids=lambda s: s.name)
def test_the_released_corpus_form_is_redacted(secret: Secret) -> None:
    assert_redacted_in_place(secret.text, secret.needle)


# Tool files, function keys in URLs, a single recovery code, hex-encoded credentials, named hex keys, a JWT in pieces
FILES_AND_BYTES_FOUND = [
    ("<key>SegmentWriteKey</key>\n\t<string>Qm8Zx2Lp7Rv4Tk9WnY3bHc6D</string>", "Qm8Zx2Lp7Rv4Tk9WnY3bHc6D"),
    ("<key>API_TOKEN</key><string>tk_9Hq2LmXr7TbVw3KcZp1Ns4d</string>", "tk_9Hq2LmXr7TbVw3KcZp1Ns4d"),
    (
        '{\n  "gitlab-token": {\n    "gitlab.acme.io": "Zx8Lm2Qp7Rv4Tk9WnY3bHc6D"\n  }\n}',
        "Zx8Lm2Qp7Rv4Tk9WnY3bHc6D",
    ),
    (
        "seed: SAAJ7K2Q3ZLX5M4PNRW6TV2Y7HB3C4D5E6F7G2H3J4K5L6M7N2P3Q4RAB",
        "SAAJ7K2Q3ZLX5M4PNRW6TV2Y7HB3C4D5E6F7G2H3J4K5L6M7N2P3Q4RAB",
    ),
    (
        "-----BEGIN OPERATOR SECRET-----\nQm8Zx2Lp7Rv4Tk9WnY3bHc6DQm8Zx2Lp\n-----END OPERATOR SECRET-----",
        "Qm8Zx2Lp7Rv4Tk9WnY3bHc6DQm8Zx2Lp",
    ),
    (
        "POST https://thumbs.azurewebsites.net/api/HttpTrigger1?code=Zk3Lm8Qp2Rv7Tx9Wn4Yb6Hc1Jd5Fg0Ks==",
        "Zk3Lm8Qp2Rv7Tx9Wn4Yb6Hc1Jd5Fg0Ks==",
    ),
    ("Your backup code:\n  4f7a2-9c1d8", "4f7a2-9c1d8"),
    ("frame body 70617373776f72643d4b7c9e01ff23a8", "70617373776f72643d4b7c9e01ff23a8"),
    ("wireshark: 544f4b454e3a20a1b2c3d4e5f60718293a", "544f4b454e3a20a1b2c3d4e5f60718293a"),
    (
        "sent b'\\x74\\x6f\\x6b\\x65\\x6e\\x3d\\x51\\x7a\\x38\\x78\\x4c\\x6d\\x32'",
        "\\x74\\x6f\\x6b\\x65\\x6e\\x3d\\x51\\x7a\\x38\\x78\\x4c\\x6d\\x32",
    ),
    (
        "the deployer's privkey is 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
        "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    ),
    (
        "header: eyJhbGciOiJSUzI1NiJ9\npayload: eyJzdWIiOiJvcHMiLCJyb2xlIjoiYWRtaW4ifQ\n",
        "eyJzdWIiOiJvcHMiLCJyb2xlIjoiYWRtaW4ifQ",
    ),
]

FILES_AND_BYTES_KEPT = [
    "<key>NSCameraUsageDescription</key>\n<string>Scan receipts</string>",
    "<key>PublicKeyPath</key>\n<string>keys/app.pub</string>",
    "<key>APIKeyHeaderName</key>\n<string>X-Api-Key</string>",
    '"require": {"acme/lib": "^2.1"}, "repositories": {"acme.io": "https://repo.acme.io"}',
    '{"github-oauth": {"github.com": "${GITHUB_TOKEN}"}}',
    "SUCCESS_CODE_FOR_THE_PIPELINE_STAGE_THAT_RUNS_AFTER_BUILD_IS",
    "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256",
    "https://github.com/search?q=x&type=code&code=python",
    "https://sourcegraph.com/search?code=d41d8cd98f00b204e9800998ecf8427e0000aaaa",
    "Backup codes are stored in:\n1Password",
    "Recovery codes\n- Download them\n- Print them",
    "sha256 of the release: 7365637265747320617265206e6f742068657265",
    "hex dump: 48656c6c6f2c20776f726c6421",
    "b'\\x70\\x61\\x73\\x73\\x20\\x74\\x68\\x65\\x20\\x73\\x61\\x6c\\x74'",
    "private key fingerprint: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "tx 0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b sent from the private key's address",
    "a JWT's header, eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9, decodes to the algorithm",
]


@pytest.mark.parametrize(("text", "secret"), FILES_AND_BYTES_FOUND)
def test_a_secret_in_a_tool_file_a_url_or_raw_bytes_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", FILES_AND_BYTES_KEPT)
def test_a_tool_file_a_url_or_bytes_without_a_secret_is_kept(text: str) -> None:
    assert redact(text) == text


# A key given as curl's user with no password, a CLI that stores a credential, LaunchDarkly's keys
CLI_AND_FORMAT_FOUND = [
    ("curl https://api.mailgun.net/v3/domains -u Hq2LmXr7TbVw3KcZp1Ns4dQx: -G", "Hq2LmXr7TbVw3KcZp1Ns4dQx"),
    ("acme-cli token add ci-bot Zq8xLm2PvR7tKw9NcY4bHs6D", "Zq8xLm2PvR7tKw9NcY4bHs6D"),
    (
        "confluent api-key store --resource lkc-9x2 PK7QWERT Qm8Zx2Lp7Rv4Tk9WnY3bHc6DQm8Zx2Lp",
        "Qm8Zx2Lp7Rv4Tk9WnY3bHc6DQm8Zx2Lp",
    ),
    (
        'LDClient.start(config: LDConfig(mobileKey: "mob-1f0e2d3c-4b5a-4697-8877-665544332211"))',
        "mob-1f0e2d3c-4b5a-4697-8877-665544332211",
    ),
]

CLI_AND_FORMAT_KEPT = [
    'curl -u "$MIXPANEL_SECRET:" https://data.mixpanel.com/api/2.0/export',
    "curl -u admin: https://localhost:9200",
    "confluent api-key store --help",
    "git config --global credential.helper store",
    "ccloud api-key store ABCD1234 $SECRET",
    "the sdk-based client reads its key from LD_SDK_KEY",
]


@pytest.mark.parametrize(("text", "secret"), CLI_AND_FORMAT_FOUND)
def test_a_key_given_to_a_cli_or_an_sdk_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", CLI_AND_FORMAT_KEPT)
def test_a_cli_line_without_a_literal_key_is_kept(text: str) -> None:
    assert redact(text) == text


SCRIPT_FOUND = [
    ("$ ./release.sh 2.4.1 Zq8xLm2PvR7tKw9NcY4bHs6D", "Zq8xLm2PvR7tKw9NcY4bHs6D"),
    (
        "% python3 upload_artifacts.py --bucket builds 9c1e7a53f0b24d68a1c3e5f7b9d2a4c6",
        "9c1e7a53f0b24d68a1c3e5f7b9d2a4c6",
    ),
]

SCRIPT_KEPT = [
    "$ ./deploy.sh prod 4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
    "$ ./deploy.sh prod eu-west-1",
    "$ ./sync.sh /data/backups/2024-01-01/full-archive-name",
    "$ ./upload.sh build/outputs/apk/release/app-release-unsigned.apk",
    "docker push registry.acme.io/team/service-name:1.2.3",
]


@pytest.mark.parametrize(("text", "secret"), SCRIPT_FOUND)
def test_a_token_handed_to_a_deploy_script_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", SCRIPT_KEPT)
def test_a_deploy_script_given_a_commit_a_place_or_a_file_is_kept(text: str) -> None:
    assert redact(text) == text


# a question or a label about a password, then "it's" and the value
ITS_FOUND = [
    ("gpg wants the passphrase: it's copper lantern 4471", "copper lantern 4471"),
    ("the wifi password? it is Gravel#Moon8", "Gravel#Moon8"),
    ("keystore pw - that's Tern&Cove71", "Tern&Cove71"),
    ("the jenkins login is ci-bot and it's heron-quarry-lamp, all lower case", "heron-quarry-lamp"),
    ("username is deploy and the password is copper lantern sings", "copper lantern sings"),
]

ITS_KEPT = [
    "password: it's the same as before",
    "password? it's complicated",
    "passphrase: it's too short",
    "password: it's stored in 1Password",
    "password: it's 12 characters long",
    "the password? it is 'changeme' by default",
    "Passcode: it's the 6-digit code from the app",
    "passphrase - that is what ssh-keygen asks for",
    "the login is admin and it's expired",
    "login is admin and it's locked out since monday",
    "my account is alice and it's fine",
    "the user is admin and it's the same as last year",
]


@pytest.mark.parametrize(("text", "secret"), ITS_FOUND)
def test_a_password_given_after_its_label_and_its_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", ITS_KEPT)
def test_words_about_a_password_after_its_are_kept(text: str) -> None:
    assert redact(text) == text


# Long runs built to make this round's rules retry at every position: each must be read in linear time
HOSTILE = {
    "hex": "7365637265743a" + "ab" * 20000,
    "assert": "expect(" + "a." * 20000 + "token",
    "deploy": "$ ./deploy.sh " + "a " * 20000,
    "echo": "echo " + "a" * 20000 + " > token",
    "repl": ">>> token\n" * 5000,
    "pair": '{"key": "apikey", ' * 5000,
    "host map": '"github-oauth" ' + '"a.b": ' * 10000,
    "encoded": "echo -n " + ":" * 20000 + " | base64",
    "btoa": "btoa(" + "(" * 20000,
    "private key": "private key " + "0" * 20000,
    "cli": "token add " + "x " * 20000,
    "curl": "curl -u " + "a" * 20000 + ":",
    "its": "password: it's " + "a " * 20000,
    "seed": "SU" + "A1" * 20000,
    "account": "('root', " * 5000,
    "build": 'buildConfigField("String", ' * 5000,
    "plist": "<key>apikey</key>" * 5000,
    "jwt call": "jwt.sign({" * 5000,
    "hmac": "hash_hmac('x', " * 5000,
    "sdk start": "Bugsnag.start(" + "a," * 10000,
    "shell default": "${DB_PW:-" * 5000,
    "signed string": "SignedString(" * 5000,
    "for key": 'set("a", forKey: ' * 5000,
    "escaped bytes": "\\x70\\x61\\x73" * 10000,
}


@pytest.mark.parametrize("name", HOSTILE)
def test_the_developer_rules_stay_linear_on_hostile_input(name: str) -> None:
    text = HOSTILE[name]
    started = time.process_time()
    redact(text)
    assert time.process_time() - started < 2.0, f"{len(text):,} chars of {name!r}"


# A JWT signed or an HMAC keyed with a literal, in any language
SIGNING_FOUND = [
    ('encoded = jwt.encode(claims, "Jw7-Sign#Key-2024", algorithm="HS512")', "Jw7-Sign#Key-2024"),
    ("const t = jwt.sign({ sub: user.id }, 'Node#Jwt-Key-88', { expiresIn: '1h' });", "Node#Jwt-Key-88"),
    ('Algorithm alg = Algorithm.HMAC512("Java#Hmac-Key-31");', "Java#Hmac-Key-31"),
    ('s, err := token.SignedString([]byte("Go#Sign-Key-64"))', "Go#Sign-Key-64"),
    ("JWT.encode(payload, 'Ruby#Jwt-Key-19', 'HS256')", "Ruby#Jwt-Key-19"),
    ('sig = hmac.new(b"Py#Hmac-Key-42", body, hashlib.sha256).hexdigest()', "Py#Hmac-Key-42"),
    ("crypto.createHmac('sha256', 'Webhook#Key-55').update(raw)", "Webhook#Key-55"),
    ("$sig = hash_hmac('sha256', $payload, 'Php#Hmac-Key-23');", "Php#Hmac-Key-23"),
    ('new SecretKeySpec("Spec#Hmac-Key-71".getBytes(UTF_8), "HmacSHA256")', "Spec#Hmac-Key-71"),
]

SIGNING_KEPT = [
    "jwt.sign(payload, process.env.JWT_SECRET)",
    'jwt.encode(payload, private_key, algorithm="RS256")',
    'jwt.encode({"some": "payload"}, "secret", algorithm="HS256")',
    'crypto.createHmac("sha256", secret).update(body).digest("hex")',
    "hmac.new(key, msg, hashlib.sha256)",
    'jwt.decode(token, options={"verify_signature": False})',
    "token.SignedString(signingKey)",
]


@pytest.mark.parametrize(("text", "secret"), SIGNING_FOUND)
def test_a_literal_signing_key_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", SIGNING_KEPT)
def test_a_signing_call_given_a_variable_or_a_tutorial_word_is_kept(text: str) -> None:
    assert redact(text) == text


# A mobile app's key-value store given a secret: SharedPreferences, PlayerPrefs, UserDefaults, a keychain wrapper
MOBILE_STORE_FOUND = [
    ('UserDefaults.standard.set("sunflower22", forKey: "password")', "sunflower22"),
    ('prefs.edit().putString("db_password", "marigold44").apply()', "marigold44"),
    ('PlayerPrefs.SetString("password", "kestrel2024");', "kestrel2024"),
    ('keychain.set("Zq8xLm2PvR7tKw9NcY4bHs6D", forKey: "apiToken")', "Zq8xLm2PvR7tKw9NcY4bHs6D"),
]

MOBILE_STORE_KEPT = [
    'UserDefaults.standard.set(true, forKey: "passwordSaved")',
    'UserDefaults.standard.set("dark", forKey: "theme")',
    'prefs.edit().putString("password_hint", "your pet").apply()',
    'UserDefaults.standard.set("2024-01-01", forKey: "passwordChangedAt")',
    'PlayerPrefs.SetString("password", password);',
]


@pytest.mark.parametrize(("text", "secret"), MOBILE_STORE_FOUND)
def test_a_secret_put_in_a_mobile_store_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


@pytest.mark.parametrize("text", MOBILE_STORE_KEPT)
def test_a_mobile_store_given_no_secret_is_kept(text: str) -> None:
    assert redact(text) == text
