"""The classes of secret forms issue 36's fourth corpus caught out, each with forms of its own.

Every rule added for a class that corpus missed is tried here on forms it was not written from
(other tools, other words, other languages, other shapes), and on ordinary texts that come close to
each class and must stay as they are. The values are made up.
"""

from __future__ import annotations

import pytest

from kernel.privacy import redact

# (a secret form, the part of it that must not survive)
FOUND = [
    # a password in prose: a noun, a few words, a colon or a verb, then the value
    ("staging db pw for reporting: Vq8#mLr2xT", "Vq8#mLr2xT"),
    ("the admin pass is Hj4!kq9Wz (don't share)", "Hj4!kq9Wz"),
    ("creds for the vendor portal are ops@vendor.example:Tz7$pLq0w", "Tz7$pLq0w"),
    ("login: deploy / QmXhTrLpKe", "QmXhTrLpKe"),
    ("user svc_backup pass N3w!Pass_x", "N3w!Pass_x"),
    ("het wachtwoord voor de server is KrTbWqLmZo", "KrTbWqLmZo"),
    ("contraseña del router: Gx5pQ2rT9w", "Gx5pQ2rT9w"),
    ("I changed it to Pw7xKq2Lm9 and now the login works", "Pw7xKq2Lm9"),
    # a password hash (crypt formats, frameworks, LDAP)
    ("shadow line: bob:$6$Xy12ab$" + "a" * 20 + "B" * 20 + "c3d4e5:19000:0:99999:7:::", "B" * 20),
    ("django hash pbkdf2_sha256$600000$s4ltS4lt$" + "Zm9vYmFy" * 4, "Zm9vYmFy" * 4),
    ("ldap userPassword: {SSHA}" + "W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
    # a one-time-password seed, a list of recovery codes
    ("Authenticator setup key: JBSW Y3DP EHPK 3PXP", "JBSW Y3DP"),
    ("otp = TOTP(base32='NB2W45DFOIZA4ZLYMFWXA3DF')", "NB2W45DFOIZA4ZLYMFWXA3DF"),
    ("Backup codes for the admin account:\n- 4f7k2-9x1qa\n- 8c3mz-0p5rt\n- 1b9dw-7k2xc", "8c3mz-0p5rt"),
    # a secret file shown by a command
    ("PS> Get-Content .\\token.txt\nQ2xhc3NpZmllZFRva2VuVmFsdWU9", "Q2xhc3NpZmllZFRva2VuVmFsdWU9"),
    # a key body without its BEGIN/END lines
    (
        "my ssh private key, without the armour:\n"
        + "\n".join(["Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ2kL4nP6rS8uW0yC2eG4iK6mO8qR0tV2x"] * 3),
        "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ2kL4nP6rS8uW0yC2eG4iK6mO8qR0tV2x",
    ),
    # a token's prefix with its body cut short or spaced out, and a token split in two literals
    ("first half: glpat-Xk29fLq81mZ", "Xk29fLq81mZ"),
    ("token is xoxb- 1234 5678 abcd9012 efgh3456", "abcd9012"),
    ('GH = "ghp_Qx7Lm2" + "Rt9Kw4Zp8Vn3Yc"', "Rt9Kw4Zp8Vn3Yc"),
    # a name/value table, a multi-row SQL dump, an API client's export
    ("| Setting | Value |\n|---|---|\n| SMTP_PASSWORD | `pZ8#rT4!mQ` |", "pZ8#rT4!mQ"),
    (
        "INSERT INTO accounts (id, login, password) VALUES\n(7, 'ann', 'Xq9!vB2#'),\n(8, 'bob', 'Lm4$tR7@');",
        "Lm4$tR7@",
    ),
    (
        '{"auth":{"type":"bearer","bearer":[{"key":"token","value":"Zt4kQ9mW2xLp8RvN3yHc7Jd"}]}}',
        "Zt4kQ9mW2xLp8RvN3yHc7Jd",
    ),
    # an OAuth code in a redirect, a session cookie outside a header, a token as a URL's path segment
    ("redirected to https://app.example/oauth/callback?code=Qm8xT2pL9kR4wZ&state=abc", "Qm8xT2pL9kR4wZ"),
    ("the log shows laravel_session=eyZ2ZXJ5X3JhbmRvbV9zZXNzaW9uX3ZhbHVlXzM5 on that request", "eyZ2ZXJ5X3Jh"),
    ("pip install --index-url https://pkgs.example.org/token/Xr7Kq2Lm9Wz4Tb8Vn3Yp/simple pkg", "Xr7Kq2Lm9Wz4Tb8Vn3Yp"),
    # a package manager's credential setting, a one-letter token flag, a client call named for a key
    ("composer config http-basic.repo.example.org deployer Wq3!rT8zLp", "Wq3!rT8zLp"),
    ("./uploader -k 9f86d081884c7d659a2feaa0c55ad015 --file dist.tar", "9f86d081884c7d659a2feaa0c55ad015"),
    ("const api = makeSearch('APP42', 'c4ca4238a0b923820dcc509a6f75849b'); // write key", "c4ca4238a0b923820dcc509a6f"),
]

KEPT = [
    # values that refer to a secret, describe it or stand in for it
    "GITHUB_TOKEN=ghp_...wxyz (last four shown)",
    "API_SECRET=change_me",
    "db_password: your-password-here",
    "JWT_SECRET_ROTATION_INTERVAL=7d",
    "token_signing_algorithm: RS256",
    "ssh public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq2W0k6R3Yc1Zp9m4Xq8sT7vB2nL5hJ3dF6gK9wE1rY",
    "webhook: secret=MYWEBHOOKSECRET&events=push",
    "Set-Cookie: _gid=GA1.2.987654321.1700000001; Path=/",
    "helm install cache bitnami/redis --set auth.existingSecret=redis-auth",
    "token:  32 bytes",
    # prose close to a password
    "the password policy: Min12Chars",
    "password hashing: Argon2id with 64 MiB",
    "login page: see the Dashboard2 link",
    "I set it to true and restarted",
    "we should bypass the cache here: v2Cache",
    "PostgreSQL, JavaScript and WordPress were upgraded",
    # close to hashes, seeds, codes, files, keys, tokens
    "bcrypt hashes start with $2b$ and a cost",
    "TOTP uses a base32 secret and a 30 second period",
    "Backup codes:\n- print them\n- keep them offline",
    "$ cat notes.txt\nremember to rotate things",
    "the certificate body:\n" + "\n".join(["MIIBszCCAVmgAwIBAgIUQ0x1Y2hhbmdlZENlcnRpZmljYXRlQm9keVRleHQwCgYI"] * 3),
    "tokens look like ghp_ followed by 36 characters",
    'msg = "hello_" + "world_again"',
    "| Setting | Value |\n|---|---|\n| token_ttl | 3600 |",
    "https://forum.example.org/t/how-to-rotate-keys/1234",
    "https://example.org/search?code=python&page=2",
    "docker build -t registry.example/app:1.2.3 .",
    "client.get('users', 'a-very-long-path-segment-name')",
]


@pytest.mark.parametrize(("text", "secret"), FOUND)
def test_a_form_of_each_class_is_redacted(text: str, secret: str) -> None:
    assert secret in text
    assert secret not in redact(text)


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_near_each_class_is_kept(text: str) -> None:
    assert redact(text) == text


def test_a_rule_ends_its_value_at_the_line_end_on_any_line_of_a_longer_text() -> None:
    """A whole-text rule's ``$`` is a line's end: the value of the middle line is taken whole, as it is when
    the line stands alone (before, the value stopped at its ';' unless its line was the text's last)."""
    value_end = "Falcon26#orbit"
    line = f"the root password is Juniper21*orbit;{value_end}"
    assert value_end not in redact(line)
    text = "\n".join(["Server=sql01;User Id=app;Password=x;", line, "export DB_PASS='Falcon16*tango;fu41fs'"])
    redacted = redact(text)
    assert value_end not in redacted and "Juniper21" not in redacted
    assert redacted.splitlines()[0].startswith("Server=sql01;User Id=app;")
