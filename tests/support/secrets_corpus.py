"""Realistic credentials (format-valid, never real) as users paste them.

Each ``Secret`` has the ``text`` a user or tool output would contain and the
``needle``: the credential material itself, free of quotes and line breaks,
so it can be searched for in API responses, JSON and raw files alike. The
values are assembled from pieces so this file itself does not trip secret
scanners, and each is unique so a hit names its write path.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    name: str
    text: str
    needle: str

    @property
    def evidence(self) -> str:
        """What a scan of stored bytes or replies looks for: the needle, with the characters before it
        when it is short enough (a 3-character password) to turn up in binary data by chance."""
        if len(self.needle) >= 8:
            return self.needle
        at = self.text.index(self.needle)
        return self.text[max(0, at - 6) : at] + self.needle


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class SeededDraw:
    """Random-looking values a corpus writes into its forms, drawn deterministically from sha256 of
    ``prefix`` (the corpus's own stream) and a seed, so every run builds the same corpus."""

    prefix: str

    def chars(self, seed: str, n: int, alphabet: str = ALNUM) -> str:
        """``n`` characters of ``alphabet`` (unbiased: bytes past the last whole multiple are skipped)."""
        out: list[str] = []
        counter = 0
        limit = 256 - 256 % len(alphabet)
        while len(out) < n:
            for byte in hashlib.sha256(f"{self.prefix}:{seed}:{counter}".encode()).digest():
                if byte < limit:
                    out.append(alphabet[byte % len(alphabet)])
            counter += 1
        return "".join(out[:n])

    def raw(self, seed: str, n: int) -> bytes:
        out = b""
        counter = 0
        while len(out) < n:
            out += hashlib.sha256(f"{self.prefix}:bytes:{seed}:{counter}".encode()).digest()
            counter += 1
        return out[:n]

    def b64(self, seed: str, n_bytes: int) -> str:
        return base64.b64encode(self.raw(seed, n_bytes)).decode()


def b64url_text(data: str) -> str:
    """``data`` in unpadded base64url, as JWT parts are written."""
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def _alnum(seed: str, length: int) -> str:
    """Deterministic mixed-case alphanumerics (looks random, differs per seed)."""
    alphabet = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ"
    out, state = [], sum(ord(c) * 131 for c in seed) or 7
    for _ in range(length):
        state = (state * 1103515245 + 12345) % (2**31)
        out.append(alphabet[state % len(alphabet)])
    return "".join(out)


def _hex(seed: str, length: int) -> str:
    return "".join(f"{ord(c) % 16:x}" for c in _alnum(seed, length))


def _upper(seed: str, length: int) -> str:
    return "".join(c if c.isdigit() else c.upper() for c in _alnum(seed, length))


_PEM_BODY = _alnum("pem-rsa", 64)
_SSH_BODY = _alnum("pem-ssh", 70)
_EC_BODY = _alnum("pem-ec", 64)
_GCP_BODY = _alnum("pem-gcp", 64)


def corpus() -> list[Secret]:
    aws_id = "AKIA" + _upper("aws-id", 16)
    aws_secret = _alnum("aws-secret", 30) + "/" + _alnum("aws-secret2", 9)
    ghp = "ghp_" + _alnum("ghp", 36)
    gh_fine = "github_pat_11" + _upper("ghf", 20) + "_" + _alnum("ghf2", 59)
    glpat = "glpat-" + _alnum("gl", 20)
    anthropic = "sk-ant-api03-" + _alnum("ant", 80) + "-" + _alnum("ant2", 6) + "AA"
    openai = "sk-proj-" + _alnum("oai", 48) + "T3BlbkFJ" + _alnum("oai2", 20)
    slack = "xoxb-" + _hex("sl1", 12) + "-" + _hex("sl2", 13) + "-" + _alnum("sl3", 24)
    hook = "https://hooks.slack.com/services/T" + _upper("h1", 8) + "/B" + _upper("h2", 10) + "/" + _alnum("h3", 24)
    stripe = "sk_" + "live_" + "51" + _alnum("stripe", 96)
    gapi = "AIza" + _alnum("gapi", 35)
    npm = "npm_" + _alnum("npm", 36)
    pypi = "pypi-AgEIcHlwaS5vcmc" + _alnum("pypi", 60)
    hf = "hf_" + _alnum("hf", 34)
    sendgrid = "SG." + _alnum("sg1", 22) + "." + _alnum("sg2", 43)
    twilio = "SK" + _hex("tw", 32)
    azure_key = _alnum("az", 86) + "=="
    jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIx" + _alnum("jwt", 40) + "." + _alnum("jwt2", 43)
    pg_pass = "Pg" + _alnum("pg", 14)
    mongo_pass = "Mg" + _alnum("mongo", 14)
    redis_pass = "Rd" + _alnum("redis", 14)
    mysql_pass = "My" + _alnum("mysql", 12)
    bearer = _alnum("bearer", 40)
    dotenv_pass = "Env" + _alnum("dotenv", 16)
    do_token = "dop_v1_" + _hex("do", 64)
    shopify = "shpat_" + _hex("shop", 32)
    return [
        Secret("aws-access-key-id", f"Configured the CLI with access key {aws_id} for the staging account", aws_id),
        Secret(
            "aws-secret-access-key", f"[default]\naws_secret_access_key = {aws_secret}\nregion = eu-west-1", aws_secret
        ),
        Secret("github-pat-classic", f"use this token to push: {ghp}", ghp),
        Secret("github-pat-fine-grained", f"GH_TOKEN={gh_fine} gh pr create --fill", gh_fine),
        Secret("gitlab-pat", f"git clone https://oauth2:{glpat}@gitlab.com/acme/infra.git", glpat),
        Secret("anthropic-key", f"The Claude key for the eval harness is {anthropic}", anthropic),
        Secret("openai-key", f'client = OpenAI(api_key="{openai}")', openai),
        Secret("slack-bot-token", f"Bot token {slack} posts the deploy notices", slack),
        Secret("slack-webhook", f"curl -X POST -d @msg.json {hook}", hook.rsplit("/", 1)[1]),
        Secret("stripe-live-key", f"Stripe.api_key = '{stripe}'", stripe),
        Secret("google-api-key", f"Maps requests use key {gapi} from the console", gapi),
        Secret("npm-token", f"//registry.npmjs.org/:_authToken={npm}", npm),
        Secret("pypi-token", f"twine upload -u __token__ -p {pypi} dist/*", pypi),
        Secret("huggingface-token", f"huggingface-cli login --token {hf}", hf),
        Secret("sendgrid-key", f"SENDGRID={sendgrid}", sendgrid),
        Secret("twilio-api-key", f"Twilio API key sid {twilio} for SMS alerts", twilio),
        Secret(
            "azure-storage-connection-string",
            "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey="
            + azure_key
            + ";EndpointSuffix=core.windows.net",
            azure_key[:60],
        ),
        Secret("jwt", f"the session cookie was {jwt}", jwt.rsplit(".", 1)[1]),
        Secret("postgres-url", f"DATABASE_URL=postgres://app:{pg_pass}@db.internal:5432/prod", pg_pass),
        Secret(
            "mongodb-srv-url",
            f"connect with mongodb+srv://admin:{mongo_pass}@cluster0.ab1cd.mongodb.net/shop",
            mongo_pass,
        ),
        Secret("redis-url-no-user", f"REDIS_URL is redis://:{redis_pass}@cache.internal:6379/0", redis_pass),
        Secret("mysql-cli-password", f"MYSQL_PWD={mysql_pass} mysql -h db -u root shop", mysql_pass),
        Secret("bearer-header", f"curl -H 'Authorization: Bearer {bearer}' https://api.acme.dev/v1/me", bearer),
        Secret("dotenv-password", f'SMTP_PASSWORD="{dotenv_pass}"', dotenv_pass),
        Secret(
            "rsa-private-key",
            f"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA{_PEM_BODY}\n{_PEM_BODY[::-1]}\n-----END RSA PRIVATE KEY-----",
            _PEM_BODY,
        ),
        Secret(
            "openssh-private-key",
            f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{_SSH_BODY}\n-----END OPENSSH PRIVATE KEY-----",
            _SSH_BODY,
        ),
        Secret(
            "ec-private-key",
            f"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{_EC_BODY}\n-----END EC PRIVATE KEY-----",
            _EC_BODY,
        ),
        Secret(
            "gcp-service-account-json",
            '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg'
            + _GCP_BODY
            + '\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@acme.iam.gserviceaccount.com"}',
            _GCP_BODY,
        ),
        Secret("digitalocean-token", f"doctl auth init --access-token {do_token}", do_token),
        Secret("shopify-token", f"X-Shopify-Access-Token: {shopify}", shopify),
        *evasions(),
    ]


ZWSP = "\u200b"


def evasions() -> list[Secret]:
    """The forms the first corpus missed (issue 27), and more of the kind users paste."""
    csv_id = "AKIA" + _upper("csv-id", 16)
    csv_secret = _alnum("csv-secret", 40)
    csv_id2 = "AKIA" + _upper("csv-id2", 16)
    csv_secret2 = _alnum("csv-secret2", 38) + "/+"
    file_secret = _alnum("file-secret", 40)
    session_token = "IQoJb3JpZ2luX2VjE" + _alnum("sts", 120) + "/" + _alnum("sts2", 30) + "=="
    session_token2 = "FwoGZXIvYXdzE" + _alnum("sts-env", 140) + "+" + _alnum("sts-env2", 20)
    gh_hex = _hex("gh-hex", 40)
    gho = "gho_" + _alnum("gho", 36)
    ghs = "ghs_" + _alnum("ghs", 36)
    vault = "hvs." + _alnum("vault", 24)
    slack_user = "xoxp-" + _hex("slu1", 11) + "-" + _hex("slu2", 12) + "-" + _alnum("slu3", 32)
    slack_refresh = "xoxe.xoxp-1-" + _alnum("slr", 60)
    slack_env = _alnum("slack-env", 28) + "x9"
    putty_private = _alnum("putty-priv", 64)
    putty_mac = _hex("putty-mac", 64)
    mysql_short = "Qz7#"
    mysql_long = "My5ql-" + _alnum("mysql-long", 10)
    docker_pw = "Dk" + _alnum("docker", 14)
    sshpass_pw = "Sp!" + _alnum("sshpass", 9) + " x"
    netrc_pw = "Nr" + _alnum("netrc", 12)
    netrc_multi = "Nm" + _alnum("netrc-multi", 12)
    url_slash = "Us/" + _alnum("url-slash", 10) + "/9"
    url_at = "Ua@" + _alnum("url-at", 10) + "@x"
    url_pct = "Up%2F" + _alnum("url-pct", 10) + "%40z"
    horse = "correct horse battery " + _alnum("horse", 6).lower()
    semi = "ab;" + _alnum("semi", 8) + ";cd"
    short = "k3Y"
    prose = "P@ssw0rd-Hunter2!"
    zw_token = "ghp_" + _alnum("zw", 36)
    zw_text = zw_token[:12] + ZWSP + zw_token[12:24] + "\u2060" + zw_token[24:]
    jwt_bare = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhY21lIi" + _alnum("jwt-rs", 30) + "." + _alnum("jwt-rs2", 86)
    stripe_test = "rk_" + "test_" + _alnum("rk", 40)
    whsec = "whsec_" + _alnum("whsec", 32)
    google_secret = "GOCSPX-" + _alnum("gcs", 28)
    npmrc = _alnum("npmrc", 36)
    azure_sas = _alnum("azsas", 43) + "%3D"
    json_key_body = _alnum("json-key", 64)
    env_secret_key = "django-insecure-" + _alnum("django", 40)
    yaml_pw = "Ym" + _alnum("yaml", 14)
    yaml_token = _alnum("yaml-token", 32)
    k8s_data = _alnum("k8s", 44) + "="
    gitlab_runner = "glrt-" + _alnum("glrt", 20)
    mailgun = "key-" + _hex("mailgun", 32)
    telegram = "7312345678:AA" + _alnum("tg", 33)
    discord = "https://discord.com/api/webhooks/1234567890/" + _alnum("discord", 68)
    age = "AGE-SECRET-KEY-1" + _upper("age", 58)
    bearer_env = _alnum("api-token", 40)
    curl_user = "Cu" + _alnum("curl-user", 12)
    redis_cli = "Rc" + _alnum("redis-cli", 12)
    xml_short = "Xs9!"
    pgpass_env = "Pe" + _alnum("pgpass", 10)
    conn_string = "Cs" + _alnum("mssql", 12)
    typed_default = "Td" + _alnum("typed", 12)
    cli_token = _alnum("cli-token", 36)
    dict_secret = "Dc" + _alnum("dict", 12)
    cookie = _alnum("cookie", 48)
    return [
        Secret(
            "aws-credentials-csv",
            "User name,Password,Access key ID,Secret access key,Console login link\n"
            f"ci-bot,,{csv_id},{csv_secret},https://acme.signin.aws.amazon.com/console",
            csv_secret,
        ),
        Secret("aws-credentials-csv-key-id", f"Access key ID,Secret access key\n{csv_id2},{csv_secret2}", csv_secret2),
        Secret(
            "aws-credentials-file",
            f"[prod]\naws_access_key_id = AKIA{_upper('file-id', 16)}\naws_secret_access_key = {file_secret}",
            file_secret,
        ),
        Secret("aws-session-token", f"[default]\naws_session_token = {session_token}\n", session_token),
        Secret("aws-session-token-env", f"export AWS_SESSION_TOKEN={session_token2}", session_token2),
        Secret("github-token-env-hex", f"GITHUB_TOKEN={gh_hex} make release", gh_hex),
        Secret("github-oauth-token", f"gh auth status shows the token {gho}", gho),
        Secret("github-app-token", f'{{"token": "{ghs}", "expires_at": "2026-01-01T00:00:00Z"}}', ghs),
        Secret("vault-token", f"export VAULT_TOKEN={vault}", vault),
        Secret("slack-user-token", f"SLACK_TOKEN={slack_user}", slack_user),
        Secret("slack-refresh-token", f"refresh with {slack_refresh} before it expires", slack_refresh),
        Secret("slack-token-env-other", f"SLACK_TOKEN={slack_env}", slack_env),
        Secret(
            "putty-private-key",
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@ci\nPublic-Lines: 2\n"
            f"AAAAC3NzaC1lZDI1NTE5AAAAI{_alnum('putty-pub', 20)}\nPrivate-Lines: 1\n{putty_private}\n"
            f"Private-MAC: {putty_mac}",
            putty_private,
        ),
        Secret("putty-mac", f"PuTTY-User-Key-File-2: ssh-rsa\nPrivate-MAC: {putty_mac[::-1]}", putty_mac[::-1]),
        Secret("mysql-p-short", f"mysql -u root -p{mysql_short} -h db.internal shop", mysql_short),
        Secret("mysql-p-long", f"mysqldump -uroot -p{mysql_long} shop > shop.sql", mysql_long),
        Secret("mysql-password-flag", f"mysql --password={mysql_long[::-1]} -h db shop", mysql_long[::-1]),
        Secret("docker-login-p", f"docker login -u ci -p {docker_pw} registry.acme.dev", docker_pw),
        Secret("docker-login-password-flag", f"docker login --password {docker_pw[::-1]} ghcr.io", docker_pw[::-1]),
        Secret("sshpass-quoted", f"sshpass -p '{sshpass_pw}' ssh deploy@web1", sshpass_pw),
        Secret("netrc-one-line", f"machine api.acme.dev login ci password {netrc_pw}", netrc_pw),
        Secret("netrc-lines", f"machine git.acme.dev\n  login deploy\n  password {netrc_multi}\n", netrc_multi),
        Secret(
            "url-password-with-slash", f"git remote add origin https://ci:{url_slash}@git.acme.dev/a.git", url_slash
        ),
        Secret("url-password-with-at", f"amqp://guest:{url_at}@rabbit.internal:5672/", url_at.split("@", 1)[1]),
        Secret("url-password-percent-encoded", f"postgresql://app:{url_pct}@db:5432/app", url_pct),
        Secret("password-several-words", f"password = {horse}", horse.split(" ", 1)[1]),  # not just the first word
        Secret("password-with-semicolon", f"password={semi}", semi),
        Secret("password-short", f"DB_PASSWORD={short}", short),
        Secret("password-in-prose", f"the db password is {prose} (rotated monthly)", prose),
        Secret("github-token-zero-width", f"token for CI: {zw_text}", zw_token[12:24]),
        Secret("jwt-rs256", f"Authorization header carried {jwt_bare}", jwt_bare.rsplit(".", 1)[1]),
        Secret("stripe-restricted-key", f"STRIPE_KEY={stripe_test}", stripe_test),
        Secret("stripe-webhook-secret", f"endpoint secret {whsec}", whsec),
        Secret("google-oauth-client-secret", f"client secret GOCSPX: {google_secret}", google_secret),
        Secret("npmrc-auth-token", f"//npm.pkg.github.com/:_authToken={npmrc}", npmrc),
        Secret(
            "azure-sas-url",
            f"https://acme.blob.core.windows.net/logs?sv=2022-11-02&ss=b&srt=o&sp=r&sig={azure_sas}",
            azure_sas,
        ),
        Secret(
            "private-key-json-escaped",
            '{"private_key": "-----BEGIN RSA PRIVATE KEY-----\\n'
            + json_key_body
            + '\\n-----END RSA PRIVATE KEY-----"}',
            json_key_body,
        ),
        Secret("env-file", f"DEBUG=false\nSECRET_KEY={env_secret_key}\nALLOWED_HOSTS=*", env_secret_key),
        Secret("yaml-password", f"database:\n  host: db\n  password: {yaml_pw}\n", yaml_pw),
        Secret("yaml-token", f"slack:\n  token: {yaml_token}\n", yaml_token),
        Secret("kubernetes-secret-data", f"data:\n  client-key-data: {k8s_data}\n", k8s_data),
        Secret("gitlab-runner-token", f"gitlab-runner register --token {gitlab_runner}", gitlab_runner),
        Secret("mailgun-key", f"MAILGUN={mailgun}", mailgun),
        Secret("telegram-bot-token", f"https://api.telegram.org/bot{telegram}/sendMessage", telegram),
        Secret("discord-webhook", f"notify: {discord}", discord.rsplit("/", 1)[1]),
        Secret("age-secret-key", f"# created: 2026-01-01\n{age}", age),
        Secret("api-token-env", f"export API_TOKEN={bearer_env}", bearer_env),
        Secret("curl-basic-user", f"curl -u admin:{curl_user} https://jenkins.acme.dev/api/json", curl_user),
        Secret("redis-cli-password", f"redis-cli -h cache -a {redis_cli} ping", redis_cli),
        Secret("xml-short-password", f"<settings><password>{xml_short}</password></settings>", xml_short),
        Secret("pgpassword-env", f"PGPASSWORD={pgpass_env} psql -h db -U app", pgpass_env),
        Secret(
            "mssql-connection-string",
            f"Server=tcp:sql.acme.dev,1433;Database=app;User ID=app;Password={conn_string};Encrypt=true",
            conn_string,
        ),
        Secret("python-typed-default", f'    db_password: str = "{typed_default}"', typed_default),
        Secret("cli-token-flag", f"acme-cli deploy --token={cli_token} --env prod", cli_token),
        Secret("python-kwarg", f'connect(host="db", user="app", password="{dict_secret}")', dict_secret),
        Secret("cookie-header", f"Cookie: session_cookie={cookie}", cookie),
    ]


def _ordinary() -> list[str]:
    """Developer text with no secret in it: redaction must leave every one unchanged."""
    return [
        "Run pytest -q tests/unit before pushing; CI uses Python 3.11.",
        "The billing service listens on port 8080 and talks to postgres on db.internal:5432.",
        "Use the token bucket rate limiter from utils/ratelimit.py for outbound calls.",
        "The password reset flow sends an email through the notifications worker.",
        "git log --oneline | head -20 shows the recent history.",
        "Fixed in commit 9f2c1e7a4b3d5f6e8a9b0c1d2e3f4a5b6c7d8e9f after bisecting.",
        "Merge 3f1a2b4c5d6e7f8091a2b3c4d5e6f708192a3b4c into main",
        "The request id was 4f9c2a1e-7b3d-4c5e-9a8b-1c2d3e4f5a6b in the trace.",
        "echo aGVsbG8gd29ybGQgZnJvbSB0aGUgdGVzdHM= | base64 -d",
        "def login(user: str, password: str) -> Session:",
        "    return authenticate(username=username, password=password)",
        "password = getpass.getpass()",
        'db_password = os.environ["DB_PASSWORD"]',
        "SECRET_KEY = settings.SECRET_KEY",
        "password: Optional[str] = None",
        "export DB_PASSWORD=${DB_PASSWORD}",
        "PGPASSWORD=$PGPASSWORD pg_dump app > app.sql",
        "max_tokens=4096 and temperature=0.2 gave the best answers",
        "tokenizer_path=/models/tokenizer.json",
        "The API key is stored in the vault, never in the repo.",
        "Set the password in the UI under Settings > Security.",
        "The password is checked against the bcrypt hash in users.password_hash.",
        "cache_key = f'{user_id}:{project}'",
        "sort_key=lambda m: m.score",
        "primary_key=True, index=True",
        "See https://docs.python.org/3/library/secrets.html for token_urlsafe.",
        "https://github.com/acme/app/pull/1234#issuecomment-987654321",
        "ssh deploy@web1.acme.dev 'sudo systemctl restart app'",
        "mysql -u root -p shop   # prompts for the password",
        "docker login ghcr.io -u ci --password-stdin < token.txt",
        "curl -s https://api.acme.dev/v1/health | jq .status",
        "The JWT has three parts: header.payload.signature",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "kubectl get secret app-tls -o yaml",
        "Use `secrets.token_urlsafe(32)` to make a new token.",
        "author: Jane Doe <jane@acme.dev>",
        "const token = await getToken(req);",
        "passwordless login via magic links ships next sprint",
        'Error: password authentication failed for user "app"',
        "session_id = uuid.uuid4().hex",
        "key=value pairs are parsed by configparser",
        "The secret sauce is caching the embeddings.",
        "SSH key fingerprint SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s (ED25519)",
        "http://localhost:8000/users/bob@example.com/profile",
        "https://example.com:443/path/to/page",
        "Version 2.14.0 changed the token format.",
        "password_min_length=12 is enforced by the validator",
        "Rotate the API token every 90 days (see RUNBOOK.md).",
        "[REDACTED:assignment] stays as it is",
        "¿Dónde está la contraseña? No la guardes aquí.",
    ]


ORDINARY = _ordinary()


SECRETS = corpus()
assert len({s.needle for s in SECRETS}) == len(SECRETS), "needles must be unique"
assert all(s.needle in s.text for s in SECRETS)
