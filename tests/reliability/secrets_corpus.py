"""Realistic credentials (format-valid, never real) as users paste them.

Each ``Secret`` has the ``text`` a user or tool output would contain and the
``needle``: the credential material itself, free of quotes and line breaks,
so it can be searched for in API responses, JSON and raw files alike. The
values are assembled from pieces so this file itself does not trip secret
scanners, and each is unique so a hit names its write path.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    name: str
    text: str
    needle: str


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
    ]


SECRETS = corpus()
assert len({s.needle for s in SECRETS}) == len(SECRETS), "needles must be unique"
assert all(s.needle in s.text for s in SECRETS)
