"""The config-shaped families issue 36's seventh blind corpus caught out (round 8), each tried on forms of its own
(other tools, languages and shapes than the corpus's) and on ordinary texts near them that must stay unchanged:
a setting named on one line and its value printed on the next or beside it, config directives whose name ends in a
secret's word, a data frame's password column, session cookies, base64 that decodes to a credential, and secrets
split across literals or variables. The values are made up."""

from __future__ import annotations

import base64
import json

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind7 import BLIND7_SECRETS

# a trace, an error page or a dump that names the setting, then prints its value
TRACE_FOUND = [
    (
        "Property: app.mail.smtp-password\n  Value: Hq4#Tarn-Ridge\n  Origin: System Environment Property",
        "Hq4#Tarn-Ridge",
    ),
    ("Setting: DATABASE_PASSWORD\nValue: 'Ulm3n!Coast'", "Ulm3n!Coast"),
    ('{"key": "stripe_secret", "value": "Wv8rKp2LmQ9zXt4Ns", "enabled": true}', "Wv8rKp2LmQ9zXt4Ns"),
    ("Variable: CI_DEPLOY_TOKEN\nValue: glpat-Xq8vNb3Lm1Kp7Rz2Wt5Y", "glpat-Xq8vNb3Lm1Kp7Rz2Wt5Y"),
    ("Name  : SMTP_PASSWORD\nValue : Brisk-Otter-93", "Brisk-Otter-93"),
    ("Key\tValue\nJWT_SECRET\t'f9Lq2#vR8mK!xT4p'", "f9Lq2#vR8mK!xT4p"),
    ("SECRET_KEY = 'k3#v9!qz@x'\nSettings\nSECRET_KEY\t\"k3#v9!qz@x-longer\"", "k3#v9!qz@x-longer"),
    (
        "Name                           Value\n----                           -----\nDB_PASSWORD   Marble!Fox42",
        "Marble!Fox42",
    ),
    ('REDIS_AUTH_PASSWORD        "Quartz_Lagoon_58"', "Quartz_Lagoon_58"),
    ("Property: db.password Value: Hx7!kq2 Origin: env", "Hx7!kq2"),
    (
        '"spring.mail.password": {\n  "value": "Hq4#Tarn-Ridge",\n  "origin": "System Environment Property"\n}',
        "Hq4#Tarn",
    ),
    ('{"DB_PASSWORD":{"value":"Ulm3n!Coast","source":"env"}}', "Ulm3n!Coast"),
    ("APP_KEY    base64:Zk9Lm2Xv7Rt4Wn8Zp3YbQx1Hc6Jd5Fg0Ks2Lq8Mv=", "Zk9Lm2Xv7Rt4Wn8Zp3YbQx1Hc6Jd5Fg0Ks2Lq8Mv="),
]


@pytest.mark.parametrize(("text", "secret"), TRACE_FOUND)
def test_a_setting_named_then_its_value_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


TRACE_KEPT = [
    "Property: spring.datasource.password\n    Value: ${DB_PASSWORD}\n    Origin: class path resource",
    "Property: spring.datasource.password\n    Reason: must not be empty",
    "Setting\tValue\nSECRET_KEY\t'********************'\nDEBUG\tTrue",
    "Name                           Value\n----                           -----\nPASSWORD_MIN_LENGTH            12",
    "password    required",
    "SECRET_KEY_FILE    /run/secrets/django_key",
    "| secrets | 86 secret forms through every write path | 0 | 0 |",
    "Passwörter   ->\nPasswörtern",
    "SORT_KEY   created_at\nPRIMARY_KEY    id\nFOREIGN_KEY    user_id2",
    "Key: api_token\nValue: see the team vault",
    '{"key": "api_token", "value": "", "type": "secret"}',
    "Property: spring.datasource.password\n    Value: (none)",
    "AWS_SECRET_ACCESS_KEY    (none)\nDB_PASSWORD    n/a\nJWT_SECRET    (not set)",
    "API_KEY    null",
    "GITHUB_TOKEN   [hidden]",
    '"spring.datasource.password": {"value": "******", "origin": "env"}',
    '"password_policy": {"value": "strong"}',
    '"api_token": {"value": null}',
    "+ password = (sensitive value)",
]


@pytest.mark.parametrize("text", TRACE_KEPT)
def test_a_named_setting_without_a_secret_stays(text: str) -> None:
    assert redact(text) == text


# a config directive whose name ends in a secret's word
DIRECTIVE_FOUND = [
    ("rootpw Slate.Heron.71\nsuffix dc=corp,dc=example", "Slate.Heron.71"),
    ("[remote]\nremoteuser = kim\nremotepassword = Ferro#Glade8", "Ferro#Glade8"),
    ("storepass Pickle_Anvil_29", "Pickle_Anvil_29"),
    ("  masterauth 4x!Rampart", "4x!Rampart"),
    ("smtp_authpass: Vesper-Knoll-6", "Vesper-Knoll-6"),
    ("BINDPW 'Cobalt Tern 55!'", "Cobalt Tern 55!"),
    ("hub_token  ghs_Zk3Lq8Wm2Np5Rx9Tv1Yb4Cd7Ef0Gh6Jk3Ls8", "ghs_Zk3Lq8Wm2Np5Rx9Tv1Yb4Cd7Ef0Gh6Jk3Ls8"),
    ("proxyauth = Rk7mQ2xLp9Wt4Nv8Zs3B", "Rk7mQ2xLp9Wt4Nv8Zs3B"),
]


@pytest.mark.parametrize(("text", "secret"), DIRECTIVE_FOUND)
def test_a_config_directive_named_for_a_secret_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


DIRECTIVE_KEPT = [
    "    proxy_pass http://127.0.0.1:8080;",
    "    fastcgi_pass unix:/run/php/php8.2-fpm.sock;",
    "bypass true",
    "compass N-NE",
    "rootpw {SSHA}placeholder",
    "bindpw ${LDAP_BIND_PASSWORD}",
    "remotepass = changeme",
    "remotepasseval = get_password('imap.example.org')",
    "masterauth yes",
    "next_token 2",
    "csrf_token {{ csrf_token }}",
    "auth required pam_unix.so",
    "storepass\nkeypass",
    "oauth 2",
    "bindpw is the password nslcd binds with",
]


@pytest.mark.parametrize("text", DIRECTIVE_KEPT)
def test_a_directive_without_a_password_stays(text: str) -> None:
    assert redact(text) == text


# session cookies in a console, a header, a curl line or code
COOKIE_FOUND = [
    ('> document.cookie\n"JSESSIONID=7F3C1A9E0B2D4F6A8C0E2B4D6F8A1C3E; lang=en"', "7F3C1A9E0B2D4F6A8C0E2B4D6F8A1C3E"),
    ("Set-Cookie: PHPSESSID=q8m2k4v9t1n7c3x5z0b6r2p4s8; path=/; HttpOnly", "q8m2k4v9t1n7c3x5z0b6r2p4s8"),
    ("curl -b PHPSESSID=q8m2k4v9t1n7c3x5z0b6r2p4s8 https://shop.example/cart", "q8m2k4v9t1n7c3x5z0b6r2p4s8"),
    ("ASPSESSIONIDSQTBRCAD=NLKMDJFOHBPAGEICKDMLBJOF", "NLKMDJFOHBPAGEICKDMLBJOF"),
    ('requests.get(url, cookies={"sessionid": "w1e2r3t4y5u6i7o8p9a0s1d2"})', "w1e2r3t4y5u6i7o8p9a0s1d2"),
    ('setcookie("PHPSESSID", "q8m2k4v9t1n7c3x5z0b6r2p4s8");', "q8m2k4v9t1n7c3x5z0b6r2p4s8"),
    (
        'driver.add_cookie({"name": "JSESSIONID", "value": "7F3C1A9E0B2D4F6A8C0E2B4D6F8A1C3E"})',
        "7F3C1A9E0B2D4F6A8C0E2B4D6F8A1C3E",
    ),
    (
        "# Netscape HTTP Cookie File\n#HttpOnly_.app.example\tTRUE\t/\tTRUE\t1767225600\tapp_session\tKq9Lm2Xv7Rt4Wn8Zp3Yb",
        "Kq9Lm2Xv7Rt4Wn8Zp3Yb",
    ),
]


@pytest.mark.parametrize(("text", "secret"), COOKIE_FOUND)
def test_a_session_cookie_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


COOKIE_KEPT = [
    "document.cookie\n'theme=dark; lang=en-GB'",
    "the PHPSESSID=deleted cookie is what logout sets",
    "JSESSIONID cookie is set on login, see session.timeout",
    'cookies={"sessionid": "expired"}',
    "session_id = 42",
    "inside=something_long_here_abcdef",
    ".example.com\tTRUE\t/\tFALSE\t1767225600\t_ga\tGA1.2.1234567890.1700000000\n.example.com\tTRUE\t/\tFALSE\t0\ttheme\tdark-mode",
]


@pytest.mark.parametrize("text", COOKIE_KEPT)
def test_a_cookie_without_a_session_stays(text: str) -> None:
    assert redact(text) == text


# a data frame printed as text with a credential column: every row's cell under it
FRAME_FOUND = [
    (
        "shape: (2, 3)\n┌─────┬─────────┬──────────┐\n│ id  ┆ email   ┆ password │\n│ --- ┆ ---     ┆ ---      │\n"
        "│ i64 ┆ str     ┆ str      │\n╞═════╪═════════╪══════════╡\n│ 1   ┆ a@x.org ┆ Abc!23kq │\n"
        "│ 2   ┆ b@x.org ┆ Zz9#kk1q │\n└─────┴─────────┴──────────┘",
        "Zz9#kk1q",
    ),
    ("# A tibble: 2 × 3\n     id email   password\n  <int> <chr>   <chr>   \n1     1 a@x.org Abc!23kq", "Abc!23kq"),
    (
        "  user_id          login          api_key  plan\n0  101  kim@example.net  Zr8-Kq2mVx91  pro\n"
        "1  102  lou@example.net  Tn5!Wb7pLc3  free",
        "Tn5!Wb7pLc3",
    ),
    ("  name    passwd\n1 jo    P1ne.Cone.9\n2 al   Vox-Rime-77", "P1ne.Cone.9"),
    ("       email  password\nid                    \n1    a@x.org  Abc!23kq\n2    b@x.org  Zz9#kk1q", "Zz9#kk1q"),
    (
        "+---+-------+--------+\n| id|  email|password|\n+---+-------+--------+\n|  1|a@x.org|Abc!23kq|\n"
        "|  2|b@x.org|Zz9#kk1q|\n+---+-------+--------+",
        "Zz9#kk1q",
    ),
    ("      host  port  password\n0  db1.int  5432  Gx9#fL2q\n1  db2.int  5433  Mn4$wR8z", "Mn4$wR8z"),
]


@pytest.mark.parametrize(("text", "secret"), FRAME_FOUND)
def test_a_data_frames_password_column_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


FRAME_KEPT = [
    "   user  password_hash  active\n0  ana  <bcrypt>  True\n[1 rows x 3 columns]",
    "   user  password\n0  ana        ...\n1  bob        NaN",
    "  name      password\nNote that the password must be rotated every 90 days ok",
    "   id  token_count  model\n0   1          512  small\n1   2         2048  large",
    "   user  password\n0  ana  required\n1  bob  optional",
    "   user  password\n0  ana  (none)\n1  bob  N/A",
    "+----+----------+\n| id | password |\n+----+----------+\n| 1  | NULL     |\n+----+----------+",
]


@pytest.mark.parametrize("text", FRAME_KEPT)
def test_a_data_frame_without_a_password_stays(text: str) -> None:
    assert redact(text) == text


# base64 that decodes to a text giving a credential a value is a secret wherever it stands; a data: URI's payload
# is the file it embeds
_DOCKER_CONFIG = base64.b64encode(
    json.dumps({"auths": {"registry.example.com": {"auth": "Ym90OlhrOXFaMnBM"}}}).encode()
)
_ENV_FILE = base64.b64encode(b"DB_HOST=db.internal\nDB_PASSWORD=Quill!Harbor8\n")
_JSON_LOGIN = base64.b64encode(b'{"username": "ci", "password": "Tundra-Vale-44"}')
ENCODED_FOUND = [
    (f'"auths.json": "{_DOCKER_CONFIG.decode()}"', _DOCKER_CONFIG.decode()),
    (f"  .env: {_ENV_FILE.decode()}", _ENV_FILE.decode()),
    (f"echo {_JSON_LOGIN.decode()} | base64 -d > login.json", _JSON_LOGIN.decode()),
    (f'<img src="data:application/json;base64,{_JSON_LOGIN.decode()}">', _JSON_LOGIN.decode()),
]


@pytest.mark.parametrize(("text", "secret"), ENCODED_FOUND)
def test_base64_of_a_credential_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


_FONT = "d09GMgABAAAAAAQ8AA0AAAAACGQAAAPnAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAP0ZGVE0cGh4GYACCeBEICoRMg3wLCgAB"
_SVG = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>').decode()
ENCODED_KEPT = [
    "@font-face { src: url(data:font/woff2;base64,Qz9x/Lm2Pq8+Vt4Kw1Zr7Ns3Yb6Hc0Jf5Dg9Ea2Sx8Mu4Tk1Wo7Ri3Fp6) }",
    f'<img alt="" src="data:image/webp;base64,{_FONT}">',
    f"background: url('data:image/svg+xml;charset=utf-8;base64,{_SVG}')",
    f"metadata: {base64.b64encode(json.dumps({'name': 'build-42', 'branch': 'main', 'ok': True}).encode()).decode()}",
]


@pytest.mark.parametrize("text", ENCODED_KEPT)
def test_base64_of_public_data_stays(text: str) -> None:
    assert redact(text) == text


# a literal given to a decoding call and kept under a secret's name, in several languages
DECODED_FOUND = [
    ('SMTP_PASS = base64.urlsafe_b64decode("UXVpbGwhSGFyYm9yOA==")', "UXVpbGwhSGFyYm9yOA=="),
    ('byte[] dbPass = Base64.getDecoder().decode("VHVuZHJhLVZhbGUtNDQ=");', "VHVuZHJhLVZhbGUtNDQ="),
    ('var adminPass = Encoding.UTF8.GetString(Convert.FromBase64String("TWFyYmxlIUZveDQy"));', "TWFyYmxlIUZveDQy"),
    ("$ftp_pass = base64_decode('QnJpc2stT3R0ZXItOTM=');", "QnJpc2stT3R0ZXItOTM="),
    ('ROOT_PASS = Base64.strict_decode64("U2xhdGUuSGVyb24uNzE=")', "U2xhdGUuSGVyb24uNzE="),
    ('const apiSecret = atob("c2tfbGl2ZV9hYmMxMjM0NTY=");', "c2tfbGl2ZV9hYmMxMjM0NTY="),
]


@pytest.mark.parametrize(("text", "secret"), DECODED_FOUND)
def test_a_decoded_literal_under_a_secrets_name_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


DECODED_KEPT = [
    'DB_PASS = base64.b64decode(os.environ.get("DB_PASS_B64")).decode()',
    'DB_PASS = os.environ.get("DB_PASS")',
    'password = raw.decode("utf-8")',
    'token_bytes = passphrase.encode("utf-8")',
    'byte[] keyBytes = secretKey.getBytes("UTF-8");',
    "DB_PASS = conn.get_pass(host).strip()",
    "String dbPass = new String(chars);",
    'bypass = codecs.decode("Uryyb", "rot13")',
]


@pytest.mark.parametrize("text", DECODED_KEPT)
def test_a_decoding_call_without_a_literal_secret_stays(text: str) -> None:
    assert redact(text) == text


# a secret's literal in pieces, one to a line, that the language joins; and a secret split over variables
SPLIT_FOUND = [
    ('GITHUB_TOKEN = (\n    "ghp_Xk9Lm2Qp"\n    "7Rv4Tz8Wn3Yb6Hc1Jd5Fg0Ks2Lq8Mv"\n)', "7Rv4Tz8Wn3Yb6Hc1Jd5Fg0Ks2Lq8Mv"),
    ('static const char *SIGNING_SECRET =\n    "Qv8#Lm2"\n    "Tz!9Wk";', "Tz!9Wk"),
    ('db_password = ("Marble!"\n               "Fox42")', "Fox42"),
    (
        'const left = "Zq4Xr8Lm2Vn7Kp3Tw9B";\nconst right = "Hc6Yd1Fj5Gs0Nu8Ra2E";\nconst accessKey = left + right;',
        "Zq4Xr8Lm2Vn7Kp3Tw9B",
    ),
    ('$p1 = "Marble!";\n$p2 = "Fox42";\n$db_password = $p1 . $p2;', "Marble!"),
    (
        'head = "xoxb-2048-9931"\ntail = "Kq7Lm3Xv9Rt2Wn8Zp4Yb"\nslack_token = "".join([head, tail])',
        "Kq7Lm3Xv9Rt2Wn8Zp4Yb",
    ),
    ('let x = "Wm3Kq8Lz1Vr6";\nlet y = "Tn4Xp9Hb2Jc7";\nlet apiKey = `${x}${y}`;', "Wm3Kq8Lz1Vr6"),
    ('DB_PASS="Marble!"\nDB_PASS+="Fox42"', "Fox42"),
    ('$secret = "Qx7";\n$secret .= "Lm9!kk";', "Lm9!kk"),
    ('api_key = "Rk2Vn8Lq"\napi_key += "Zt5Wm1Xp7Hc3"', "Rk2Vn8Lq"),
]


@pytest.mark.parametrize(("text", "secret"), SPLIT_FOUND)
def test_a_secret_split_over_lines_or_variables_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


SPLIT_KEPT = [
    'PASSWORD_HELP = (\n    "Your password must have 8 characters "\n    "and a digit."\n)',
    'SECRET_KEY_URL = (\n  "https://vault.example.com/"\n  "v1/secret/data"\n)',
    'api_key = (\n    "abc"\n    "def"\n)',
    'PASSWORD_PATTERN = (\n    "^(?=.*[A-Z])"\n    "(?=.*[0-9]).{8,}$"\n)',
    'const host = "db.example.com";\nconst port = "5432";\nconst keyName = host + port;',
    'prefix = "user"\nsuffix = "name"\npassword = prefix + suffix',
    'const a = "v1";\nconst b = "2";\nconst cacheKey = a + b;',
    "const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;\nconst creds = a + b;",
    "password = (",
    'msg = "hello"\nmsg += " world"',
    'token = "abc"\ntoken += "def"',
    'key_name = "prod"\nkey_name += "-eu"',
]


@pytest.mark.parametrize("text", SPLIT_KEPT)
def test_pieces_that_make_no_secret_stay(text: str) -> None:
    assert redact(text) == text


# a password of capitals and digits that happens to hold a secret's word is no placeholder; a placeholder stays
@pytest.mark.parametrize("secret", ["APASS0", "A0PASS0", "A.PASS0", "A0.PASS0", "QKEY7", "ZTOKEN42"])
def test_a_password_holding_a_secrets_word_is_redacted(secret: str) -> None:
    assert_redacted_in_place(f"PASSWORD={secret}", secret)


@pytest.mark.parametrize(
    "text",
    ["PASSWORD=YOUR_PASSWORD", "API_KEY=APIKEY1", "SECRET=BASE32SECRET", "password=config.db_pass", "token=MY_TOKEN"],
)
def test_a_placeholder_named_for_the_secret_stays(text: str) -> None:
    assert redact(text) == text


_BLIND7_FAMILIES = {
    "trace/spring_bind_failure",
    "trace/django_debug_settings",
    "mail/offlineimap",
    "ldap/nslcd_bindpw",
    "notebook/dataframe_password_column",
    "cookie/phpsessid",
    "docker/dockerconfigjson_secret",
    "split/python_implicit_concat",
    "split/b64decode_at_runtime",
    "split/aws_secret_two_vars",
}
_CAUGHT = {
    "trace/spring_bind_failure",
    "trace/django_debug_settings",
    "mail/offlineimap",
    "ldap/nslcd_bindpw",
    "cookie/phpsessid",
}


@pytest.mark.parametrize(("text", "secret"), [(s.text, s.needle) for s in BLIND7_SECRETS if s.name in _BLIND7_FAMILIES])
def test_the_blind7_forms_of_these_families_are_now_caught(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)
