"""A fresh, blind secrets corpus for issue 36's acceptance: measured against, never tuned on.

Written for the acceptance of issue 36 by someone who did not read the recognisers
(``kernel/secret_*.py``, ``kernel/privacy.py``), the tuning corpus
(``tests/support/secrets_corpus.py``) or the entries of the first held-out corpus
(``tests/support/secrets_heldout.py``): every form comes from what real credentials look
like and how developers paste them. It must never be used to tune rules: a rule written to
make one of these entries pass makes this corpus worthless as a test. Entries are not edited
to match what ``redact`` does; a miss is a miss, and is reported as one.

``FRESH_SECRETS``: credential forms (format-shaped, never real), each a ``Secret`` whose
``name`` is ``family/form`` and whose ``needle`` is the substring that must never survive.
``FRESH_ORDINARY``: exactly 200 developer texts with no secret in them, which redaction must
leave exactly as they are. ``family_of`` gives an entry's family; ``FRESH_FAMILIES`` lists them.

Decisions a reviewer may want spelled out:
- placeholders are not secrets: ``<your-token>``, ``${API_KEY}``, ``$DB_PASSWORD``,
  ``{{ .Values.password }}``, ``${{ secrets.NPM_TOKEN }}``, ``YOUR_API_KEY_HERE``, ``***``;
- public material is not secret: SSH public keys, certificates, ARNs, object ids, digests;
- a JWT's needle is its payload and signature (the header is the same constant everywhere);
- a split or encoded secret's needle is the part as it stands in the text.

Every value is made at import time from a seeded hash, so the file itself holds no
credential-shaped literal and trips no scanner, and each needle is unique.
"""

from __future__ import annotations

import base64
import hashlib
import json
from urllib.parse import quote

from tests.support.secrets_corpus import Secret

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_ALNUM = _UPPER + _LOWER + _DIGITS
_HEXCHARS = "0123456789abcdef"
_B64URL = _ALNUM + "-_"
_B64STD = _ALNUM + "+/"


def _bytes(seed: str, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(f"fresh36:{seed}:{counter}".encode()).digest()
        counter += 1
    return out[:length]


def _pick(seed: str, length: int, alphabet: str) -> str:
    return "".join(alphabet[b % len(alphabet)] for b in _bytes(seed, length))


def _alnum(seed: str, length: int) -> str:
    return _pick(seed, length, _ALNUM)


def _hex(seed: str, length: int) -> str:
    return _bytes(seed, (length + 1) // 2).hex()[:length]


def _digits(seed: str, length: int) -> str:
    return str(1 + _bytes(seed, 1)[0] % 9) + _pick(seed + "d", length - 1, _DIGITS)


def _b64(seed: str, raw: int) -> str:
    return base64.b64encode(_bytes(seed, raw)).decode()


def _b64url(seed: str, raw: int) -> str:
    return base64.urlsafe_b64encode(_bytes(seed, raw)).decode().rstrip("=")


def _uuid(seed: str) -> str:
    h = _hex(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _pw(seed: str, length: int = 16, symbols: str = "!%*-_.") -> str:
    """A generated password: letters, digits and a few symbols, always at least one of each kind."""
    core = _pick(seed, length - 3, _ALNUM + symbols)
    raw = _bytes(seed + "pw", 3)
    return _UPPER[raw[0] % 26] + core + _DIGITS[raw[1] % 10] + symbols[raw[2] % len(symbols)]


def _url_pw(seed: str, length: int = 18) -> str:
    """A password that is safe in a URL without encoding (unreserved characters only)."""
    return _pw(seed, length, "-_.~")


_WORDS = (
    "lantern otter mosaic quiver hollow ember granite sparrow tundra violet pebble cactus "
    "meadow anchor bramble cinder drizzle fjord gusto harbour ivory jasper kettle lagoon"
).split()


def _phrase(seed: str, words: int = 4) -> str:
    raw = _bytes(seed, words + 1)
    chosen = [_WORDS[b % len(_WORDS)] for b in raw[:words]]
    return "-".join(w.capitalize() for w in chosen) + str(raw[-1] % 90 + 10)


def _pem(label: str, seed: str, lines: int = 9, lead: str = "") -> tuple[str, str]:
    """A PEM block and the needle (a full body line from its middle)."""
    body = [_b64(f"{seed}:{i}", 48) for i in range(lines)]
    if lead:
        body[0] = lead + body[0][len(lead) :]
    body[-1] = body[-1][:42] + "=="
    dashes = "-----"
    text = f"{dashes}BEGIN {label}{dashes}\n" + "\n".join(body) + f"\n{dashes}END {label}{dashes}"
    return text, body[lines // 2]


def _jwt(seed: str, claims: dict[str, object]) -> tuple[str, str]:
    """A JWT and its needle (payload and signature)."""

    def enc(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")

    header = enc({"alg": "HS256", "typ": "JWT"})
    tail = f"{enc(claims)}.{_b64url(seed, 32)}"
    return f"{header}.{tail}", tail


_SECRETS: list[Secret] = []


def _add(family: str, form: str, text: str, needle: str) -> None:
    if needle not in text or len(needle) < 8:
        raise ValueError(f"{family}/{form}: the needle must stand in the text and be at least 8 characters")
    _SECRETS.append(Secret(f"{family}/{form}", text, needle))


# -- cloud: AWS ----------------------------------------------------------------------------------
_ak = "AKIA" + _pick("aws-ak", 16, _UPPER + "234567")
_sk = _pick("aws-sk1", 40, _B64STD)
_add(
    "aws",
    "env-exports",
    f"I exported these before running terraform plan:\nexport AWS_ACCESS_KEY_ID={_ak}\n"
    f"export AWS_SECRET_ACCESS_KEY={_sk}\nexport AWS_DEFAULT_REGION=eu-west-1",
    _sk,
)
_sk = _pick("aws-sk2", 40, _B64STD)
_add(
    "aws",
    "credentials-file-profile",
    "my ~/.aws/credentials looks like this, why does the staging profile fail?\n\n[default]\nregion = us-east-1\n\n"
    f"[staging]\naws_access_key_id = {_ak}\naws_secret_access_key = {_sk}",
    _sk,
)
_sk = _pick("aws-sk3", 40, _B64STD)
_add("aws", "configure-set", f"aws configure set aws_secret_access_key {_sk} --profile ci-runner", _sk)
_sk = _pick("aws-sk4", 40, _B64STD)
_add(
    "aws",
    "boto3-literal",
    f"s3 = boto3.client(\n    's3',\n    aws_access_key_id='{_ak}',\n    aws_secret_access_key='{_sk}',\n)  # TODO env",
    _sk,
)
_sk = _pick("aws-sk5", 40, _B64STD)
_add(
    "aws",
    "sts-json-secret",
    "$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/deploy --role-session-name me\n{\n"
    f'    "Credentials": {{\n        "AccessKeyId": "ASIA{_pick("asia", 16, _UPPER)}",\n'
    f'        "SecretAccessKey": "{_sk}",\n        "Expiration": "2026-11-27T12:00:00+00:00"\n    }}\n}}',
    _sk,
)
_tok = "IQoJb3JpZ2luX2VjE" + _pick("aws-session", 380, _B64STD)
_add("aws", "session-token-env", f"AWS_SESSION_TOKEN={_tok}", _tok)
_sk = _pick("aws-sk6", 40, _B64STD)
_add(
    "aws",
    "console-csv",
    "here's the csv IAM gave me:\nUser name,Password,Access key ID,Secret access key,Console login link\n"
    f"deploy-bot,,{_ak},{_sk},https://123456789012.signin.aws.amazon.com/console",
    _sk,
)
_sk = _pick("aws-sk7", 40, _B64STD)
_add(
    "aws",
    "terraform-provider",
    f'provider "aws" {{\n  region     = "us-west-2"\n  access_key = "{_ak}"\n  secret_key = "{_sk}"\n}}',
    _sk,
)
_sk = _pick("aws-sk8", 40, _B64STD)
_add("aws", "pair-in-chat", f"keys for the sandbox account: {_ak} / {_sk} (I'll delete them tonight)", _sk)

# -- cloud: Google -------------------------------------------------------------------------------
_key, _line = _pem("PRIVATE KEY", "gcp-sa", lead="MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
_escaped = _key.replace("\n", "\\n")
_add(
    "gcp",
    "service-account-json",
    '{\n  "type": "service_account",\n  "project_id": "acme-prod-3321",\n'
    f'  "private_key_id": "{_hex("gcp-kid", 40)}",\n  "private_key": "{_escaped}\\n",\n'
    '  "client_email": "ci@acme-prod-3321.iam.gserviceaccount.com"\n}',
    _line,
)
_tok = "AIza" + _pick("gcp-api", 35, _B64URL)
_add("gcp", "api-key-js", f'const MAPS_API_KEY = "{_tok}";', _tok)
_tok = "GOCSPX-" + _pick("gcp-oauth", 28, _B64URL)
_add(
    "gcp",
    "oauth-client-secret",
    '{"installed":{"client_id":"401234567890-abcdefg.apps.googleusercontent.com",'
    f'"client_secret":"{_tok}","redirect_uris":["http://localhost"]}}}}',
    _tok,
)
_tok = "ya29.a0AfB_" + _pick("gcp-access", 160, _B64URL)
_add(
    "gcp",
    "access-token-curl",
    f'curl -H "Authorization: Bearer {_tok}" https://www.googleapis.com/drive/v3/files',
    _tok,
)
_tok = "1//0g" + _pick("gcp-refresh", 98, _B64URL)
_add("gcp", "refresh-token-yaml", f"google:\n  client_id: 401234567890-abcdefg\n  refresh_token: {_tok}", _tok)
_tok = f"AAAA{_pick('fcm1', 7, _B64URL)}:APA91b{_pick('fcm2', 134, _B64URL)}"
_add("gcp", "fcm-server-key", f"FCM_SERVER_KEY={_tok}", _tok)

# -- cloud: Azure --------------------------------------------------------------------------------
_tok = _b64("az-storage", 64)
_add(
    "azure",
    "storage-connection-string",
    "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmelogs;"
    f"AccountKey={_tok};EndpointSuffix=core.windows.net",
    _tok,
)
_tok = quote(_b64("az-sas", 32), safe="")
_add(
    "azure",
    "sas-url",
    "download it from https://acmelogs.blob.core.windows.net/backups/orders.bak?sv=2022-11-02&ss=b&srt=o&sp=r"
    f"&se=2026-12-01T00:00:00Z&st=2026-11-20T00:00:00Z&spr=https&sig={_tok}",
    _tok,
)
_tok = _alnum("az-cs1", 3) + "8Q~" + _pick("az-cs2", 34, _ALNUM + "~._-")
_add("azure", "client-secret", f"AZURE_CLIENT_ID={_uuid('az-app')}\nAZURE_CLIENT_SECRET={_tok}", _tok)
_tok = _b64("az-cosmos", 64)
_add("azure", "cosmos-connection", f"AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey={_tok};", _tok)
_tok = _b64("az-sb", 32)
_add(
    "azure",
    "service-bus",
    "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
    f"SharedAccessKey={_tok}",
    _tok,
)
_tok = _pick("az-devops", 52, _LOWER + "234567")
_add(
    "azure",
    "devops-pat",
    f"export AZURE_DEVOPS_EXT_PAT={_tok}\naz devops login --organization https://dev.azure.com/acme",
    _tok,
)

# -- cloud: other providers ----------------------------------------------------------------------
_tok = _alnum("ali-secret", 30)
_add(
    "other-cloud",
    "alibaba",
    f"ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI5t{_alnum('ali-id', 18)}\nALIBABA_CLOUD_ACCESS_KEY_SECRET={_tok}",
    _tok,
)
_tok = "dop_v1_" + _hex("do", 64)
_add("other-cloud", "digitalocean", f"doctl auth init --access-token {_tok}", _tok)
_tok = _hex("linode", 64)
_add("other-cloud", "linode", f"export LINODE_TOKEN={_tok}\nlinode-cli linodes list", _tok)
_tok = _alnum("hetzner", 64)
_add("other-cloud", "hetzner", f"HCLOUD_TOKEN={_tok} hcloud server list", _tok)
_tok = _pick("cf-token", 40, _B64URL)
_add("other-cloud", "cloudflare-api-token", f"CLOUDFLARE_API_TOKEN={_tok} wrangler deploy", _tok)
_tok = _hex("cf-global", 37)
_add(
    "other-cloud",
    "cloudflare-global-key",
    f"curl https://api.cloudflare.com/client/v4/zones -H 'X-Auth-Email: ops@acme.dev' -H 'X-Auth-Key: {_tok}'",
    _tok,
)
_tok = _uuid("scaleway")
_add("other-cloud", "scaleway", f"SCW_ACCESS_KEY=SCW{_pick('scw-ak', 17, _UPPER)}\nSCW_SECRET_KEY={_tok}", _tok)
_tok = _pick("ibm", 44, _B64URL)
_add("other-cloud", "ibm-cloud", f"ibmcloud login --apikey {_tok} -r eu-de", _tok)
_tok = _pick("vultr", 36, _UPPER + _DIGITS)
_add("other-cloud", "vultr", f"VULTR_API_KEY={_tok}", _tok)
_tok = _alnum("ovh-secret", 32)
_add(
    "other-cloud",
    "ovh-conf",
    "[default]\nendpoint=ovh-eu\n\n[ovh-eu]\n"
    f"application_key={_alnum('ovh-key', 16)}\napplication_secret={_tok}\nconsumer_key={_alnum('ovh-ck', 32)}",
    _tok,
)

# -- git hosting ---------------------------------------------------------------------------------
_tok = "ghp_" + _alnum("ghp", 36)
_add("git-hosting", "github-classic-envrc", f"# .envrc\nexport GITHUB_TOKEN={_tok}", _tok)
_tok = f"github_pat_{_pick('ghfg1', 22, _UPPER + _DIGITS)}_{_alnum('ghfg2', 59)}"
_add("git-hosting", "github-fine-grained", f"gh auth login --with-token <<< {_tok}", _tok)
_tok = "gho_" + _alnum("gho", 36)
_add(
    "git-hosting",
    "github-oauth-hosts-yml",
    f"github.com:\n    user: jdoe\n    oauth_token: {_tok}\n    git_protocol: https",
    _tok,
)
_tok = "ghs_" + _alnum("ghs", 36)
_add(
    "git-hosting",
    "github-installation-log",
    f"2026-11-26 10:02:11 INFO using installation token {_tok} for acme/api",
    _tok,
)
_tok = "ghr_" + _alnum("ghr", 76)
_add("git-hosting", "github-refresh-json", f'{{"access_token_expires_in":28800,"refresh_token":"{_tok}"}}', _tok)
_tok = "glpat-" + _pick("glpat", 20, _B64URL)
_add(
    "git-hosting",
    "gitlab-pat-header",
    f'curl --header "PRIVATE-TOKEN: {_tok}" "https://gitlab.acme.dev/api/v4/projects?owned=true"',
    _tok,
)
_tok = "glrt-" + _pick("glrt", 20, _B64URL)
_add("git-hosting", "gitlab-runner", f"gitlab-runner register --url https://gitlab.com --token {_tok}", _tok)
_tok = "gldt-" + _pick("gldt", 20, _B64URL)
_add(
    "git-hosting",
    "gitlab-deploy-token",
    f"docker login registry.gitlab.com -u gitlab+deploy-token-1234 --password {_tok}",
    _tok,
)
_tok = "ATBB" + _alnum("atbb", 32)
_add("git-hosting", "bitbucket-app-password", f"BITBUCKET_USERNAME=jdoe\nBITBUCKET_APP_PASSWORD={_tok}", _tok)
_tok = _alnum("git-remote", 40)
_add(
    "git-hosting",
    "clone-url-token",
    f"git clone https://oauth2:{_tok}@git.acme.dev/platform/infra.git",
    _tok,
)

# -- package registries --------------------------------------------------------------------------
_tok = "npm_" + _alnum("npm1", 36)
_add("registries", "npm-env", f"NPM_TOKEN={_tok} npm publish --access public", _tok)
_tok = "npm_" + _alnum("npm2", 36)
_add("registries", "npmrc-auth-token", f"//registry.npmjs.org/:_authToken={_tok}", _tok)
_tok = base64.b64encode(f"builder:{_url_pw('npm-legacy')}".encode()).decode()
_add(
    "registries",
    "npmrc-legacy-auth",
    f"registry=https://npm.acme.dev/\n_auth = {_tok}\nalways-auth = true",
    _tok,
)
_tok = "pypi-AgEIcHlwaS5vcmcC" + _pick("pypi1", 160, _B64URL)
_add("registries", "pypi-twine", f"twine upload -u __token__ -p {_tok} dist/*", _tok)
_tok = "pypi-AgEIcHlwaS5vcmcC" + _pick("pypi2", 160, _B64URL)
_add(
    "registries",
    "pypirc",
    f"[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = {_tok}",
    _tok,
)
_tok = "dckr_pat_" + _pick("dckr", 27, _B64URL)
_add("registries", "dockerhub-pat", f"echo {_tok} | docker login -u acmebot --password-stdin", _tok)
_tok = "rubygems_" + _hex("gem", 48)
_add("registries", "rubygems", f"GEM_HOST_API_KEY={_tok} gem push acme-0.4.1.gem", _tok)
_tok = "oy2" + _pick("nuget", 43, _LOWER + _DIGITS)
_add(
    "registries",
    "nuget",
    f"dotnet nuget push Acme.Core.1.2.0.nupkg --api-key {_tok} --source https://api.nuget.org/v3/index.json",
    _tok,
)
_tok = "cio" + _alnum("crates", 32)
_add("registries", "crates-io", f"cargo login {_tok}", _tok)
_tok = "AKCp" + _alnum("jfrog", 69)
_add(
    "registries",
    "artifactory",
    f"curl -H 'X-JFrog-Art-Api: {_tok}' -T app.jar https://acme.jfrog.io/artifactory/libs-release/app.jar",
    _tok,
)

# -- AI APIs -------------------------------------------------------------------------------------
_tok = "sk-proj-" + _pick("oai1", 74, _B64URL) + "T3BlbkFJ" + _pick("oai2", 74, _B64URL)
_add("ai-apis", "openai-project", f"OPENAI_API_KEY={_tok}", _tok)
_tok = "sk-" + _alnum("oai3", 20) + "T3BlbkFJ" + _alnum("oai4", 20)
_add("ai-apis", "openai-legacy", f'import openai\nopenai.api_key = "{_tok}"', _tok)
_tok = "sk-ant-api03-" + _pick("anth", 93, _B64URL) + "AA"
_add("ai-apis", "anthropic", f"export ANTHROPIC_API_KEY={_tok}\nclaude --version", _tok)
_tok = "hf_" + _alnum("hf", 34)
_add("ai-apis", "huggingface", f"huggingface-cli login --token {_tok}", _tok)
_tok = "r8_" + _alnum("replicate", 37)
_add("ai-apis", "replicate", f"REPLICATE_API_TOKEN={_tok}", _tok)
_tok = "gsk_" + _alnum("groq", 52)
_add("ai-apis", "groq", f'client = Groq(api_key="{_tok}")', _tok)
_tok = _alnum("mistral", 32)
_add("ai-apis", "mistral-env", f"MISTRAL_API_KEY={_tok}", _tok)

# -- payments and commerce -----------------------------------------------------------------------
_tok = "sk_live_51" + _alnum("stripe1", 97)
_add("payments", "stripe-live", f"Stripe.api_key = '{_tok}'", _tok)
_tok = "rk_live_51" + _alnum("stripe2", 97)
_add("payments", "stripe-restricted", f"STRIPE_RESTRICTED_KEY={_tok}", _tok)
_tok = "whsec_" + _alnum("stripe3", 32)
_add(
    "payments",
    "stripe-webhook-secret",
    f"endpoint_secret = '{_tok}'\nevent = stripe.Webhook.construct_event(...)",
    _tok,
)
_tok = "shpat_" + _hex("shpat", 32)
_add("payments", "shopify-admin-env", f"SHOPIFY_SHOP=acme-store.myshopify.com\nSHOPIFY_ADMIN_TOKEN={_tok}", _tok)
_tok = "shpss_" + _hex("shpss", 32)
_add("payments", "shopify-shared-secret", f"SHOPIFY_API_SECRET={_tok}", _tok)
_tok = "EAAA" + _pick("square", 60, _B64URL)
_add("payments", "square", f"SQUARE_ACCESS_TOKEN={_tok}\nSQUARE_ENVIRONMENT=production", _tok)
_tok = f"access_token$production${_pick('bt1', 16, _LOWER + _DIGITS)}${_hex('bt2', 32)}"
_add("payments", "braintree", f"BRAINTREE_ACCESS_TOKEN={_tok}", _tok)
_tok = "E" + _pick("paypal", 79, _B64URL)
_add(
    "payments",
    "paypal-client-secret",
    f"PAYPAL_CLIENT_ID=A{_pick('pp-id', 79, _B64URL)}\nPAYPAL_CLIENT_SECRET={_tok}",
    _tok,
)

# -- messaging and email -------------------------------------------------------------------------
_tok = f"SG.{_pick('sg1', 22, _B64URL)}.{_pick('sg2', 43, _B64URL)}"
_add("messaging", "sendgrid", f"SENDGRID_API_KEY={_tok}", _tok)
_tok = _uuid("postmark")
_add(
    "messaging",
    "postmark-header",
    f'curl "https://api.postmarkapp.com/email" -H "X-Postmark-Server-Token: {_tok}" -d @mail.json',
    _tok,
)
_tok = "key-" + _hex("mailgun", 32)
_add("messaging", "mailgun", f"MAILGUN_API_KEY={_tok}\nMAILGUN_DOMAIN=mg.acme.dev", _tok)
_tok = _hex("mailchimp", 32) + "-us21"
_add("messaging", "mailchimp", f"MAILCHIMP_API_KEY={_tok}", _tok)
_tok = _hex("twilio-auth", 32)
_add("messaging", "twilio-auth-token", f"TWILIO_ACCOUNT_SID=AC{_hex('twilio-sid', 32)}\nTWILIO_AUTH_TOKEN={_tok}", _tok)
_tok = f"xoxb-{_digits('xoxb1', 11)}-{_digits('xoxb2', 13)}-{_alnum('xoxb3', 24)}"
_add("messaging", "slack-bot", f"SLACK_BOT_TOKEN={_tok}", _tok)
_tok = f"xoxp-{_digits('xoxp1', 11)}-{_digits('xoxp2', 11)}-{_digits('xoxp3', 13)}-{_hex('xoxp4', 32)}"
_add("messaging", "slack-user", f"client = WebClient(token='{_tok}')", _tok)
_tok = _alnum("slack-hook", 24)
_add(
    "messaging",
    "slack-webhook",
    f'curl -X POST -d \'{{"text":"deploy done"}}\' https://hooks.slack.com/services/T{_pick("sh1", 8, _UPPER)}'
    f"/B{_pick('sh2', 10, _UPPER)}/{_tok}",
    _tok,
)
_did = base64.b64encode(_digits("discord-id", 19).encode()).decode().rstrip("=")
_tok = f"{_did}.{_pick('dc2', 6, _B64URL)}.{_pick('dc3', 38, _B64URL)}"
_add("messaging", "discord-bot", f"bot.run('{_tok}')", _tok)
_tok = _pick("dchook", 68, _B64URL)
_add(
    "messaging",
    "discord-webhook",
    f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{_digits('dchid', 19)}/{_tok}",
    _tok,
)
_tok = f"{_digits('tg1', 10)}:AA{_pick('tg2', 33, _B64URL)}"
_add("messaging", "telegram-bot", f"TELEGRAM_BOT_TOKEN={_tok}", _tok)

# -- observability -------------------------------------------------------------------------------
_tok = _hex("dd-api", 32)
_add("observability", "datadog-api-key", f"DD_API_KEY={_tok} DD_SITE=datadoghq.eu ./install_script.sh", _tok)
_tok = _hex("dd-app", 40)
_add(
    "observability",
    "datadog-app-key-helm",
    f"helm install dd datadog/datadog --set datadog.apiKey=$DD_API_KEY --set datadog.appKey={_tok}",
    _tok,
)
_tok = "NRAK-" + _pick("nrak", 27, _UPPER + _DIGITS)
_add("observability", "newrelic-user-key", f"NEW_RELIC_API_KEY={_tok}", _tok)
_tok = _hex("nral", 36) + "NRAL"
_add("observability", "newrelic-license", f"common: &default_settings\n  license_key: {_tok}\n  app_name: orders", _tok)
_tok = _hex("sentry-dsn", 32)
_add(
    "observability",
    "sentry-dsn",
    f'sentry_sdk.init(dsn="https://{_tok}@o{_digits("so", 6)}.ingest.sentry.io/{_digits("sp", 7)}", traces_sample_rate=0.2)',
    _tok,
)
_tok = "sntrys_eyJpYXQiOjE3" + _pick("sntrys1", 120, _B64STD) + "_" + _pick("sntrys2", 43, _B64STD)
_add("observability", "sentry-auth-token", f"SENTRY_AUTH_TOKEN={_tok} sentry-cli releases new 1.4.2", _tok)
_tok = f"glsa_{_alnum('glsa', 32)}_{_hex('glsa2', 8)}"
_add("observability", "grafana-service-account", f'GF_TOKEN="{_tok}"', _tok)
_tok = "u+" + _pick("pd", 18, _B64URL)
_add(
    "observability",
    "pagerduty",
    f'curl -H "Authorization: Token token={_tok}" https://api.pagerduty.com/services',
    _tok,
)
_tok = _alnum("honeycomb", 32)
_add("observability", "honeycomb", f"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={_tok}", _tok)
_tok = _uuid("splunk-hec")
_add(
    "observability",
    "splunk-hec",
    f'curl -k https://splunk.acme.dev:8088/services/collector -H "Authorization: Splunk {_tok}" -d \'{{"event":"hi"}}\'',
    _tok,
)

# -- developer SaaS ------------------------------------------------------------------------------
_tok = "ATATT3xFfGF0" + _pick("atl", 170, _B64URL) + "=" + _hex("atl2", 8).upper()
_add("dev-saas", "atlassian", f"JIRA_USER=jdoe@acme.dev\nJIRA_API_TOKEN={_tok}", _tok)
_tok = "ntn_" + _alnum("notion1", 46)
_add("dev-saas", "notion-new", f'notion = Client(auth="{_tok}")', _tok)
_tok = "secret_" + _alnum("notion2", 43)
_add("dev-saas", "notion-legacy", f"NOTION_API_KEY={_tok}", _tok)
_tok = f"pat{_alnum('airtable1', 14)}.{_hex('airtable2', 64)}"
_add(
    "dev-saas",
    "airtable",
    f'curl "https://api.airtable.com/v0/appXyZ/Tasks" -H "Authorization: Bearer {_tok}"',
    _tok,
)
_tok = "lin_api_" + _alnum("linear", 40)
_add("dev-saas", "linear", f"LINEAR_API_KEY={_tok}", _tok)
_tok = f"2/{_digits('asana1', 16)}/{_digits('asana2', 16)}:{_hex('asana3', 32)}"
_add("dev-saas", "asana", f"ASANA_PAT={_tok}", _tok)
_tok = "figd_" + _pick("figma", 40, _B64URL)
_add("dev-saas", "figma", f"X-Figma-Token: {_tok}", _tok)
_tok = _alnum("vercel", 24)
_add("dev-saas", "vercel", f"vercel deploy --prod --token {_tok}", _tok)
_tok = "nfp_" + _alnum("netlify", 36)
_add("dev-saas", "netlify", f"NETLIFY_AUTH_TOKEN={_tok} netlify deploy --prod", _tok)
_tok = "HRKU-AA" + _pick("heroku", 58, _B64URL)
_add("dev-saas", "heroku-new", f"HEROKU_API_KEY={_tok} heroku apps", _tok)
_tok = _uuid("heroku-netrc")
_add(
    "dev-saas",
    "heroku-netrc",
    f"machine api.heroku.com\n  login dev@acme.dev\n  password {_tok}\nmachine git.heroku.com\n  login dev@acme.dev",
    _tok,
)
_tok = f"{_alnum('tfc1', 14)}.atlasv1.{_alnum('tfc2', 67)}"
_add(
    "dev-saas",
    "terraform-cloud",
    f'{{\n  "credentials": {{\n    "app.terraform.io": {{\n      "token": "{_tok}"\n    }}\n  }}\n}}',
    _tok,
)
_tok = "pul-" + _hex("pulumi", 40)
_add("dev-saas", "pulumi", f"PULUMI_ACCESS_TOKEN={_tok} pulumi up --yes", _tok)
_tok = f"PMAK-{_hex('pmak1', 24)}-{_hex('pmak2', 34)}"
_add("dev-saas", "postman", f"postman login --with-api-key {_tok}", _tok)
_tok = f"CCIPAT_{_alnum('cci1', 22)}_{_hex('cci2', 40)}"
_add("dev-saas", "circleci", f"CIRCLE_TOKEN={_tok}", _tok)
_tok = _hex("algolia", 32)
_add("dev-saas", "algolia-admin", f"ALGOLIA_APP_ID=X7K2QW9P\nALGOLIA_ADMIN_KEY={_tok}", _tok)
_tok = f"sk.eyJ1IjoiYWNtZSIsImEiOi{_pick('mapbox1', 30, _B64URL)}.{_pick('mapbox2', 22, _B64URL)}"
_add("dev-saas", "mapbox-secret", f"MAPBOX_DOWNLOADS_TOKEN={_tok}", _tok)

# -- identity and secret managers ----------------------------------------------------------------
_tok = "00" + _pick("okta", 40, _B64URL)
_add(
    "identity",
    "okta-ssws",
    f'curl -H "Authorization: SSWS {_tok}" https://acme.okta.com/api/v1/users?limit=25',
    _tok,
)
_tok = _pick("auth0", 64, _B64URL)
_add(
    "identity",
    "auth0-client-secret",
    f"AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID={_alnum('auth0-id', 32)}\nAUTH0_CLIENT_SECRET={_tok}",
    _tok,
)
_tok = "hvs." + _pick("vault", 90, _B64URL)
_add("identity", "vault-token", f"export VAULT_ADDR=https://vault.acme.dev:8200\nexport VAULT_TOKEN={_tok}", _tok)
_tok = "dp.st.prd." + _alnum("doppler", 40)
_add("identity", "doppler", f"DOPPLER_TOKEN={_tok} doppler run -- npm start", _tok)
_tok = "ops_eyJzaWduSW5BZGRyZXNzIjoi" + _pick("1pw", 300, _B64STD)
_add("identity", "1password-service-account", f"OP_SERVICE_ACCOUNT_TOKEN={_tok}", _tok)
_tok = "AGE-SECRET-KEY-1" + _pick("age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
_add(
    "identity",
    "age-key-file",
    f"# created: 2026-11-20T09:12:44Z\n# public key: age1{_pick('agepub', 58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}\n{_tok}",
    _tok,
)

# -- JWTs ----------------------------------------------------------------------------------------
_jwt_text, _tok = _jwt("jwt1", {"sub": "1042", "name": "Dana", "iat": 1764144000, "exp": 1764147600})
_add("jwt", "curl-bearer", f"curl -H 'Authorization: Bearer {_jwt_text}' https://api.acme.dev/v1/me", _tok)
_jwt_text, _tok = _jwt("jwt2", {"iss": "supabase", "ref": "qwertyabcd", "role": "service_role", "iat": 1730000000})
_add("jwt", "supabase-service-role", f"SUPABASE_SERVICE_ROLE_KEY={_jwt_text}", _tok)
_jwt_text, _tok = _jwt("jwt3", {"sub": "auth0|64f1", "aud": "api.acme.dev", "scope": "read:orders"})
_add(
    "jwt",
    "token-response-json",
    f'{{"access_token":"{_jwt_text}","token_type":"Bearer","expires_in":86400}}',
    _tok,
)
_jwt_text, _tok = _jwt("jwt4", {"uid": 77, "admin": True, "exp": 1764200000})
_add("jwt", "cookie", f"Cookie: theme=dark; auth_token={_jwt_text}; lang=en", _tok)
_jwt_text, _tok = _jwt("jwt5", {"email": "dana@acme.dev", "nonce": "n-0S6_WzA2Mj"})
_add("jwt", "devtools-console", f"> localStorage.getItem('id_token')\n< '{_jwt_text}'", _tok)

# -- private keys --------------------------------------------------------------------------------
_key, _line = _pem("RSA PRIVATE KEY", "rsa", lead="MIIEpAIBAAKCAQEA")
_add("private-keys", "rsa-pem", f"this is the key the deploy job uses, is the format right?\n\n{_key}", _line)
_key, _line = _pem("EC PRIVATE KEY", "ec", lines=3, lead="MHcCAQEEI")
_add("private-keys", "ec-pem", f"{_key}\n", _line)
_key, _line = _pem("OPENSSH PRIVATE KEY", "openssh", lines=7, lead="b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")
_add("private-keys", "openssh-cat", f"$ cat ~/.ssh/id_ed25519\n{_key}", _line)
_key, _line = _pem("PRIVATE KEY", "pkcs8", lead="MIIEvgIBADANBgkqhkiG9w0BAQEFAASC")
_add("private-keys", "pkcs8", f"tls:\n  key: |\n    {_key.replace(chr(10), chr(10) + '    ')}", _line)
_key, _line = _pem("ENCRYPTED PRIVATE KEY", "pkcs8-enc", lead="MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQww")
_add("private-keys", "pkcs8-encrypted", _key, _line)
_pgp_lines = [_b64(f"pgp:{i}", 48) for i in range(8)]
_add(
    "private-keys",
    "pgp-block",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
    + "\n".join(_pgp_lines)
    + f"\n={_b64('pgp-crc', 3)}\n-----END PGP PRIVATE KEY BLOCK-----",
    _pgp_lines[3],
)
_tok = _b64("putty-priv", 48)
_add(
    "private-keys",
    "putty-ppk",
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@acme\nPublic-Lines: 2\n"
    f"AAAAC3NzaC1lZDI1NTE5AAAAI{_b64('putty-pub', 24)[:39]}\n{_b64('putty-pub2', 12)}\nPrivate-Lines: 1\n{_tok}\n"
    f"Private-MAC: {_hex('putty-mac', 64)}",
    _tok,
)
_tok = _b64("wg", 32)
_add(
    "private-keys",
    "wireguard",
    f"[Interface]\nPrivateKey = {_tok}\nAddress = 10.8.0.2/24\nDNS = 1.1.1.1\n\n[Peer]\n"
    f"PublicKey = {_b64('wg-pub', 32)}\nEndpoint = vpn.acme.dev:51820",
    _tok,
)
_key, _line = _pem("RSA PRIVATE KEY", "gh-app", lines=6, lead="MIIEowIBAAKCAQEA")
_escaped = _key.replace("\n", "\\n")
_add("private-keys", "pem-one-line-env", f'GITHUB_APP_ID=81234\nGITHUB_APP_PRIVATE_KEY="{_escaped}"', _line)

# -- connection strings --------------------------------------------------------------------------
_tok = _url_pw("c-pg")
_add("connection-strings", "postgres-url", f"DATABASE_URL=postgres://app_user:{_tok}@db.internal:5432/orders", _tok)
_tok = _url_pw("c-sqla")
_add(
    "connection-strings",
    "sqlalchemy",
    f'engine = create_engine("postgresql+psycopg2://report:{_tok}@10.0.3.7:5432/analytics", pool_size=5)',
    _tok,
)
_tok = _url_pw("c-mysql")
_add("connection-strings", "mysql-url", f"mysql://root:{_tok}@127.0.0.1:3306/shop?charset=utf8mb4", _tok)
_tok = _url_pw("c-mongo")
_add(
    "connection-strings",
    "mongodb-srv",
    f'MONGO_URI="mongodb+srv://admin:{_tok}@cluster0.ab1cd.mongodb.net/?retryWrites=true&w=majority"',
    _tok,
)
_tok = _url_pw("c-redis")
_add("connection-strings", "redis-no-user", f"REDIS_URL=redis://:{_tok}@cache.internal:6379/0", _tok)
_tok = _alnum("c-upstash", 34)
_add("connection-strings", "rediss-default", f"rediss://default:{_tok}@eu1-prime-lark-31337.upstash.io:6379", _tok)
_tok = _url_pw("c-amqp")
_add("connection-strings", "amqp", f"CELERY_BROKER_URL = 'amqp://celery:{_tok}@rabbit.internal:5672/prod'", _tok)
_tok = _pw("c-adonet")
_add(
    "connection-strings",
    "adonet",
    '"ConnectionStrings": { "Default": "Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=orders;'
    f'User ID=sqladmin;Password={_tok};Encrypt=True;Connection Timeout=30;" }}',
    _tok,
)
_tok = _pw("c-odbc")
_add(
    "connection-strings",
    "odbc",
    f"conn = pyodbc.connect('DRIVER={{ODBC Driver 18 for SQL Server}};SERVER=sql01;DATABASE=hr;UID=etl;PWD={_tok};"
    "TrustServerCertificate=yes')",
    _tok,
)
_tok = _url_pw("c-jdbc-pg")
_add(
    "connection-strings",
    "jdbc-query",
    f"spring.datasource.url=jdbc:postgresql://pg.internal:5432/app?user=svc&password={_tok}&ssl=true",
    _tok,
)
_tok = _pw("c-jdbc-ms")
_add(
    "connection-strings",
    "jdbc-sqlserver",
    f'String url = "jdbc:sqlserver://sql01:1433;databaseName=hr;user=etl;password={_tok};encrypt=true";',
    _tok,
)
_tok = _url_pw("c-ftp")
_add("connection-strings", "ftp-url", f"lftp ftp://backup:{_tok}@files.acme.dev/nightly", _tok)
_tok = _url_pw("c-smtp")
_add("connection-strings", "smtp-url", f"EMAIL_URL=smtp+tls://mailer:{_tok}@smtp.mailgun.org:587", _tok)
_tok = _url_pw("c-es")
_add(
    "connection-strings",
    "elasticsearch-url",
    f'es = Elasticsearch("https://elastic:{_tok}@es.internal:9200", verify_certs=False)',
    _tok,
)
_tok = _pw("c-libpq")
_add(
    "connection-strings",
    "libpq-keyvalue",
    f'conn = psycopg2.connect("host=db.internal dbname=app user=app password={_tok}")',
    _tok,
)

# -- config files --------------------------------------------------------------------------------
_tok = _pw("f-dotenv")
_add(
    "config", "dotenv", f"APP_ENV=production\nDB_HOST=db.internal\nDB_USER=app\nDB_PASSWORD={_tok}\nDB_PORT=5432", _tok
)
_tok = _pw("f-yaml")
_add("config", "yaml", f"database:\n  host: db.internal\n  username: app\n  password: {_tok}\n  pool: 10", _tok)
_tok = _pw("f-toml")
_add("config", "toml", f'[database]\nuser = "app"\npassword = "{_tok}"\nhost = "db.internal"', _tok)
_tok = _pw("f-mycnf")
_add("config", "my-cnf", f"[client]\nuser=backup\npassword={_tok}\nhost=127.0.0.1", _tok)
_tok = _pw("f-webconfig")
_add(
    "config",
    "web-config-appsetting",
    f'<appSettings>\n  <add key="SmtpUser" value="noreply" />\n  <add key="SmtpPassword" value="{_tok}" />\n</appSettings>',
    _tok,
)
_tok = _pw("f-props")
_add(
    "config",
    "spring-properties",
    f"spring.datasource.username=orders\nspring.datasource.password={_tok}\nspring.jpa.hibernate.ddl-auto=validate",
    _tok,
)
_tok = _pw("f-json")
_add("config", "json-smtp", f'{{"smtp": {{"host": "smtp.acme.dev", "user": "noreply", "pass": "{_tok}"}}}}', _tok)
_tok = _pw("f-compose")
_add(
    "config",
    "docker-compose",
    f"services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_USER=app\n      - POSTGRES_PASSWORD={_tok}",
    _tok,
)
_tok = base64.b64encode(_pw("f-k8s").encode()).decode()
_add(
    "config",
    "k8s-secret-data",
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\ndata:\n  username: YXBw\n  password: {_tok}",
    _tok,
)
_tok = _alnum("f-k8s-sd", 40)
_add(
    "config",
    "k8s-secret-stringdata",
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  api-token: {_tok}",
    _tok,
)
_tok = _pw("f-tfvars")
_add("config", "tfvars", f'region      = "eu-central-1"\ndb_username = "admin"\ndb_password = "{_tok}"', _tok)
_tok = _pw("f-ansible")
_add(
    "config",
    "ansible-group-vars",
    f"# group_vars/db.yml\nansible_user: deploy\nansible_become_password: {_tok}\nmysql_root_password: {_pw('f-ans2')}",
    _tok,
)
_tok = _pw("f-maven")
_add(
    "config",
    "maven-settings",
    f"<servers>\n  <server>\n    <id>releases</id>\n    <username>deploy</username>\n    <password>{_tok}</password>\n"
    "  </server>\n</servers>",
    _tok,
)
_tok = _pw("f-netrc")
_add("config", "netrc-multiline", f"machine artifacts.acme.dev\n  login ci\n  password {_tok}", _tok)
_tok = _pw("f-pgpass", symbols="!%*-_.")
_add("config", "pgpass", f"# ~/.pgpass\ndb.internal:5432:orders:app_user:{_tok}", _tok)
_tok = _pw("f-wp")
_add(
    "config",
    "wp-config",
    f"define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '{_tok}' );",
    _tok,
)
_tok = _pick("f-django", 50, _LOWER + _DIGITS + "!@#%^&*(-_=+)")
_add("config", "django-secret-key", f"SECRET_KEY = 'django-insecure-{_tok}'\nDEBUG = False", _tok)
_tok = _hex("f-rails", 128)
_add("config", "rails-secret-key-base", f"production:\n  secret_key_base: {_tok}", _tok)
_tok = _hex("f-flask", 32)
_add("config", "flask-secret-key", f"app = Flask(__name__)\napp.secret_key = '{_tok}'", _tok)
_tok = _url_pw("f-pip")
_add("config", "pip-conf", f"[global]\nindex-url = https://ci:{_tok}@pypi.acme.dev/simple/\ntimeout = 30", _tok)
_tok = _pw("f-helm")
_add(
    "config",
    "helm-values",
    f'redis:\n  architecture: standalone\n  auth:\n    enabled: true\n    password: "{_tok}"',
    _tok,
)
_tok = _pw("f-ldap")
_add(
    "config",
    "ldap-bind",
    f"ldap_uri = ldaps://ldap.acme.dev\nldap_bind_dn = cn=admin,dc=acme,dc=dev\nldap_bind_password = {_tok}",
    _tok,
)
_tok = _pw("f-laravel")
_add(
    "config",
    "laravel-mail",
    f"MAIL_MAILER=smtp\nMAIL_HOST=smtp.office365.com\nMAIL_USERNAME=noreply@acme.dev\nMAIL_PASSWORD={_tok}",
    _tok,
)

# -- command lines -------------------------------------------------------------------------------
_tok = _pw("m-mysql", symbols="-_.")
_add("command-line", "mysql-p-attached", f"mysql -h db.internal -u root -p{_tok} shop < dump.sql", _tok)
_tok = _pw("m-pgpassword", symbols="-_.")
_add("command-line", "pgpassword-prefix", f"PGPASSWORD={_tok} psql -h db.internal -U app orders -c 'select 1'", _tok)
_tok = _pw("m-curl-u", symbols="-_.")
_add("command-line", "curl-u", f"curl -s -u admin:{_tok} https://jenkins.acme.dev/api/json?pretty=true", _tok)
_tok = _pw("m-htpasswd", symbols="-_.")
_add("command-line", "htpasswd-b", f"sudo htpasswd -b -c /etc/nginx/.htpasswd admin {_tok}", _tok)
_tok = _pw("m-openssl", symbols="-_.")
_add(
    "command-line",
    "openssl-passout",
    f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{_tok}",
    _tok,
)
_tok = _pw("m-sshpass")
_add("command-line", "sshpass", f"sshpass -p '{_tok}' ssh -o StrictHostKeyChecking=no deploy@10.0.0.12", _tok)
_tok = _pw("m-docker-login", symbols="-_.")
_add("command-line", "docker-login-p", f"docker login -u acme -p {_tok} registry.acme.dev", _tok)
_tok = _pw("m-redis-cli", symbols="-_.")
_add("command-line", "redis-cli-a", f"redis-cli -h cache.internal -p 6379 -a {_tok} INFO memory", _tok)
_tok = _pw("m-mongosh", symbols="-_.")
_add(
    "command-line",
    "mongosh-password",
    f'mongosh "mongodb://db.internal:27017" --username admin --password {_tok}',
    _tok,
)
_tok = _pw("m-kubectl", symbols="-_.")
_add(
    "command-line",
    "kubectl-from-literal",
    f"kubectl create secret generic db-creds --from-literal=username=app --from-literal=password={_tok}",
    _tok,
)
_tok = _pw("m-smb", symbols="-_.")
_add("command-line", "smbclient-u", f"smbclient //nas.local/backups -U backup%{_tok} -c 'ls'", _tok)
_tok = _pw("m-ldapsearch", symbols="-_.")
_add(
    "command-line",
    "ldapsearch-w",
    f"ldapsearch -x -H ldap://ldap.acme.dev -D cn=admin,dc=acme,dc=dev -w {_tok} -b dc=acme,dc=dev '(uid=jdoe)'",
    _tok,
)
_tok = _pw("m-wget", symbols="-_.")
_add("command-line", "wget-password", f"wget --user=ci --password={_tok} https://artifacts.acme.dev/build.tar.gz", _tok)
_tok = _alnum("m-az1", 3) + "8Q~" + _pick("m-az2", 34, _ALNUM + "._-")
_add(
    "command-line",
    "az-login-sp",
    f"az login --service-principal -u {_uuid('m-az-app')} -p {_tok} --tenant {_uuid('m-az-tenant')}",
    _tok,
)
_tok = _pw("m-sqlplus", symbols="_")
_add("command-line", "sqlplus", f"sqlplus scott/{_tok}@//ora.internal:1521/ORCLPDB1", _tok)
_tok = _pw("m-keytool", symbols="-_.")
_add(
    "command-line",
    "keytool-storepass",
    f"keytool -importkeystore -srckeystore old.jks -srcstorepass {_tok} -destkeystore new.p12 -deststoretype pkcs12",
    _tok,
)
_tok = _pw("m-docker-run", symbols="-_.")
_add("command-line", "docker-run-e", f"docker run -d -e POSTGRES_PASSWORD={_tok} -p 5432:5432 postgres:16", _tok)
_tok = _pw("m-rsync", symbols="-_.")
_add("command-line", "rsync-password-env", f"RSYNC_PASSWORD={_tok} rsync -av backup@nas::data ./data", _tok)
_tok = _pw("m-mysqldump")
_add(
    "command-line",
    "mysqldump-password-quoted",
    f"mysqldump --user=root --password='{_tok}' --all-databases > all.sql",
    _tok,
)
_tok = _b64("m-gh-secret", 32)
_add("command-line", "gh-secret-set-body", f"gh secret set SIGNING_KEY --repo acme/api --body '{_tok}'", _tok)

# -- HTTP auth -----------------------------------------------------------------------------------
_tok = base64.b64encode(f"deploy:{_pw('h-basic')}".encode()).decode()
_add("http-auth", "basic-header", f"GET /api/v2/builds HTTP/1.1\nHost: ci.acme.dev\nAuthorization: Basic {_tok}", _tok)
_tok = _alnum("h-bearer", 40)
_add("http-auth", "bearer-opaque", f"curl -H 'Authorization: Bearer {_tok}' https://api.acme.dev/v1/invoices", _tok)
_tok = _pick("h-session", 32, _LOWER + _DIGITS)
_add("http-auth", "django-session-cookie", f"Cookie: csrftoken=abc; sessionid={_tok}; django_language=en", _tok)
_tok = f"s%3A{_pick('h-sid1', 32, _B64URL)}.{_pick('h-sid2', 43, _B64STD)}"
_add("http-auth", "set-cookie-express", f"Set-Cookie: connect.sid={_tok}; Path=/; HttpOnly; Secure", _tok)
_tok = _hex("h-xapikey", 32)
_add(
    "http-auth",
    "x-api-key",
    f"POST /v1/events HTTP/1.1\nHost: ingest.acme.dev\nX-API-Key: {_tok}\nContent-Type: application/json",
    _tok,
)
_tok = _url_pw("h-proxy")
_add("http-auth", "proxy-url", f"export HTTPS_PROXY=http://jdoe:{_tok}@proxy.corp.acme.dev:3128", _tok)
_tok = _hex("h-drf", 40)
_add("http-auth", "drf-token", f"http GET https://api.acme.dev/orders/ 'Authorization: Token {_tok}'", _tok)
_tok = _pw("h-requests")
_add("http-auth", "requests-auth-tuple", f"resp = requests.get(url, auth=('admin', '{_tok}'), timeout=10)", _tok)
_tok = _alnum("h-fetch", 32)
_add("http-auth", "fetch-headers", f"fetch('/api/report', {{ headers: {{ 'x-api-key': '{_tok}' }} }})", _tok)
_tok = _alnum("h-wss", 40)
_add(
    "http-auth",
    "websocket-query",
    f"const ws = new WebSocket('wss://stream.acme.dev/v1/feed?access_token={_tok}');",
    _tok,
)
_tok = base64.b64encode(f"metrics:{_pw('h-nginx')}".encode()).decode()
_add(
    "http-auth",
    "nginx-proxy-header",
    f'location /metrics {{\n  proxy_set_header Authorization "Basic {_tok}";\n}}',
    _tok,
)

# -- natural language ----------------------------------------------------------------------------
_tok = _phrase("n-wifi")
_add("natural-language", "wifi", f"the office wifi password is {_tok}, network AcmeGuest", _tok)
_tok = " ".join(_phrase("n-passphrase", 5).lower().split("-"))
_add("natural-language", "passphrase-words", f"use passphrase {_tok} when gpg asks for the backup key", _tok)
_tok = _pw("n-staging-admin")
_add(
    "natural-language",
    "staging-admin",
    f"my password for the staging admin panel is {_tok}, can you log in and check the orders page?",
    _tok,
)
_tok = _pw("n-root")
_add(
    "natural-language", "root-changed", f"root password on the new box is now {_tok} — I changed it this morning", _tok
)
_tok = _pw("n-login-slash")
_add("natural-language", "login-slash", f"grafana login: admin / {_tok}", _tok)
_tok = _b64("n-unseal", 32)
_add("natural-language", "vault-unseal", f"The vault unseal key is {_tok} (share 1 of 3).", _tok)
_tok = _pw("n-keystore")
_add("natural-language", "keystore", f"keystore password: {_tok}", _tok)
_tok = _phrase("n-mailbox", 3)
_add("natural-language", "pw-abbrev", f"btw the shared mailbox pw is {_tok}", _tok)
_tok = _pw("n-grafana")
_add(
    "natural-language",
    "set-to",
    f"I set the Jenkins admin password to {_tok} in the UI, please put it in the runbook",
    _tok,
)
_tok = _phrase("n-zip")
_add("natural-language", "zip-password", f"the zip with the dumps is encrypted, password {_tok}", _tok)
_tok = _pw("n-passcode")
_add("natural-language", "credentials-are", f"The credentials for the test tenant are ops@acme.dev and {_tok}.", _tok)

# -- evasions ------------------------------------------------------------------------------------
_tok = _pick("e-split", 74, _B64URL) + "T3BlbkFJ" + _pick("e-split2", 74, _B64URL)
_add("evasion", "split-concatenation", f'OPENAI_KEY = "sk-proj-" + "{_tok}"', _tok)
_raw = _url_pw("e-urlenc", 10) + "@#" + _alnum("e-urlenc2", 6) + "/!"
_tok = quote(_raw, safe="")
_add("evasion", "url-encoded-password", f"DATABASE_URL=postgresql://app:{_tok}@db.internal:5432/app", _tok)
_tok = _url_pw("e-trace")
_add(
    "evasion",
    "stack-trace",
    'Traceback (most recent call last):\n  File "app/db.py", line 14, in connect\n'
    f'    engine = create_engine("postgresql://app:{_tok}@db.internal/app")\n'
    'sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "db.internal" '
    '(10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user "app"',
    _tok,
)
_tok = _alnum("e-log", 32)
_add(
    "evasion",
    "access-log-query",
    f'10.0.4.17 - - [26/Nov/2026:10:14:03 +0000] "GET /v1/export?format=csv&api_key={_tok} HTTP/1.1" 200 5120',
    _tok,
)
_tok = _pw("e-json-esc")
_add(
    "evasion",
    "json-in-json",
    f'{{"name": "billing", "config": "{{\\"db_password\\": \\"{_tok}\\", \\"pool\\": 5}}"}}',
    _tok,
)
_tok = "ghp_" + _alnum("e-paren", 36)
_add("evasion", "punctuation-wrapped", f"call it with (token={_tok}); then retry", _tok)
_tok = _pw("e-table")
_add(
    "evasion",
    "markdown-table",
    f"| service | user | password |\n|---|---|---|\n| grafana | admin | {_tok} |\n| kibana | elastic | see vault |",
    _tok,
)
_tok = "glpat-" + _pick("e-backtick", 20, _B64URL)
_add("evasion", "backticks", f"run `export GITLAB_TOKEN={_tok}` first, then `make release`", _tok)
_tok = "sk-ant-api03-" + _pick("e-period", 93, _B64URL) + "AA"
_add("evasion", "end-of-sentence", f"My Anthropic key is {_tok}.", _tok)
_tok = "AIza" + _pick("e-html", 35, _B64URL)
_add("evasion", "html-attribute", f'<div id="map" data-api-key="{_tok}" data-zoom="12"></div>', _tok)
_tok = "sk_live_51" + _alnum("e-diff", 97)
_add(
    "evasion",
    "diff-line",
    f"@@ -3,6 +3,7 @@ APP_ENV=production\n LOG_LEVEL=info\n+STRIPE_SECRET_KEY={_tok}\n SENTRY_ENVIRONMENT=prod",
    _tok,
)
_tok = _alnum("e-continuation", 40)
_add(
    "evasion",
    "line-continuation",
    f'curl https://api.acme.dev/v2/jobs \\\n  -H "Authorization: Bearer {_tok}" \\\n  -d @job.json',
    _tok,
)
_tok = _pw("e-powershell")
_add("evasion", "powershell-env", f'$env:DB_PASSWORD = "{_tok}"\ndotnet run --project src/Api', _tok)
_tok = _alnum("e-cmd-set", 40)
_add("evasion", "cmd-set-quoted", f'set "API_TOKEN={_tok}" && node deploy.js', _tok)
_tok = _alnum("e-repr", 40)
_add(
    "evasion",
    "python-repr-headers",
    f"DEBUG request headers: {{'User-Agent': 'python-requests/2.31.0', 'Authorization': 'Bearer {_tok}'}}",
    _tok,
)
_tok = _hex("e-go", 32)
_add("evasion", "go-const", f'const apiKey = "{_tok}" // TODO: rotate', _tok)
_tok = _pw("e-yaml-block")
_add("evasion", "yaml-block-scalar", f"smtp:\n  user: mailer\n  password: |\n    {_tok}\n  port: 587", _tok)
_tok = _pw("e-semicolons")
_add("evasion", "semicolon-pairs", f"dsn=user=svc;pass={_tok};host=db.internal;port=5432", _tok)
_tok = _alnum("e-fragment", 40)
_add(
    "evasion",
    "oauth-fragment",
    f"it redirected to https://app.acme.dev/callback#access_token={_tok}&token_type=bearer&expires_in=3600",
    _tok,
)
_tok = _pw("e-env-dump")
_add(
    "evasion",
    "printenv-dump",
    f"$ printenv | sort\nHOME=/home/app\nLANG=C.UTF-8\nPATH=/usr/local/bin:/usr/bin\nREDIS_PASSWORD={_tok}\nTERM=xterm",
    _tok,
)

FRESH_SECRETS: list[Secret] = list(_SECRETS)


def family_of(name: str) -> str:
    """The family of an entry of ``FRESH_SECRETS`` (the part of its name before the slash)."""
    return name.split("/", 1)[0]


FRESH_FAMILIES: list[str] = sorted({family_of(s.name) for s in FRESH_SECRETS})


# -- ordinary developer text: none of it is a secret ---------------------------------------------
def _sha(seed: str) -> str:
    return _hex("ord-sha:" + seed, 40)


def _sha256(seed: str) -> str:
    return _hex("ord-256:" + seed, 64)


_PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
_SSH_PUB = "AAAAC3NzaC1lZDI1NTE5AAAAI" + _b64("ord-sshpub", 24)[:43]

_GIT = [
    f"commit {_sha('g1')}\nAuthor: Dana Ruiz <dana@acme.dev>\nDate:   Wed Nov 25 14:02:11 2026 +0100\n\n    fix: retry the upload",
    f"git cherry-pick {_sha('g2')[:7]} {_sha('g3')[:7]}",
    f"HEAD is now at {_sha('g4')[:7]} chore: bump ruff to 0.17",
    f"git rebase -i {_sha('g5')[:12]}",
    f"git bisect bad {_sha('g6')}",
    f"fatal: bad object {_sha('g7')}",
    f"Merge pull request #412 from acme/fix-login-redirect ({_sha('g8')[:7]})",
    f"{_sha('g9')[:7]} (HEAD -> main, origin/main) docs: explain the token bucket",
    f"git revert --no-edit {_sha('g10')}",
    f"The regression came in with {_sha('g11')[:10]}; {_sha('g12')[:10]} was fine.",
    f"Submodule path 'vendor/proto': checked out '{_sha('g13')}'",
    f"git diff {_sha('g14')[:7]}..{_sha('g15')[:7]} -- kernel/",
    f"index {_sha('g16')[:7]}..{_sha('g17')[:7]} 100644\n--- a/README.md\n+++ b/README.md",
    f"   {_sha('g18')[:7]}..{_sha('g19')[:7]}  main -> main",
    f"uses: actions/checkout@{_sha('g20')} # v4.2.2",
]
_IDS = [
    f"request_id={_uuid('o-u1')} status=200 duration_ms=41",
    f"Created workspace {_uuid('o-u2')} for project orders",
    f'metadata:\n  uid: {_uuid("o-u3")}\n  resourceVersion: "884213"',
    f"The Azure subscription id is {_uuid('o-u4')} (the tenant is the default one).",
    f"x-amzn-RequestId: {_uuid('o-u5')}",
    f"SELECT * FROM orders WHERE customer_id = '{_uuid('o-u6')}';",
    f"trace {_hex('o-trace', 32)} span {_hex('o-span', 16)} took 812ms",
    f"Job {_uuid('o-u7')} failed after 3 retries: upstream timed out",
    "arn:aws:iam::123456789012:role/github-actions-deploy",
    "arn:aws:s3:::acme-build-artifacts/releases/2026/11/app-1.8.0.tar.gz",
    "Pod api-7d9f8b6c5d-x2k4q is in CrashLoopBackOff",
    f"CONTAINER ID   IMAGE          STATUS\n{_hex('o-cid', 12)}   nginx:1.27     Up 3 hours",
    "Stripe customer cus_Q2w3E4r5T6y7U8 has two open invoices.",
    "The GCP project is acme-prod-3321 and the bucket is gs://acme-prod-3321-exports.",
    "Lambda ARN: arn:aws:lambda:eu-west-1:123456789012:function:resize-images:7",
    f"Sentry issue ORDERS-4K2 (event {_hex('o-sentry-event', 32)}) is the same null check.",
    "AWS account 123456789012 owns the VPC vpc-0a1b2c3d4e5f67890.",
    "subnet-0f9e8d7c6b5a43210 and sg-0123456789abcdef0 are in the same AZ.",
    f"Slack channel C0{_pick('o-slack', 9, _UPPER + _DIGITS)} is where alerts go.",
    "My GitHub user id is 1042337 and the app id is 81234.",
]
_DIGESTS = [
    f"{_sha256('d1')}  dist/mnemex-0.9.0-py3-none-any.whl",
    f"docker pull ghcr.io/acme/api@sha256:{_sha256('d2')}",
    f"FROM python:3.11-slim@sha256:{_sha256('d3')}",
    f"requests==2.32.3 \\\n    --hash=sha256:{_sha256('d4')}",
    f'"integrity": "sha512-{_b64("d5", 64)}"',
    f"github.com/spf13/cobra v1.8.1 h1:{_b64('d6', 32)}",
    f'checksum = "{_sha256("d7")}"',
    f"oid sha256:{_sha256('d8')}\nsize 10485760",
    f"SHA256 ({_sha256('d9')[:8]}...) mismatch for node-v20.11.1-linux-x64.tar.xz",
    f'etag: "{_hex("d10", 32)}"',
    f"md5sum backup.sql -> {_hex('d11', 32)}",
    f"Digest: sha256:{_sha256('d12')}\nStatus: Downloaded newer image for redis:7",
    f"cache key: deps-{_sha256('d13')[:16]}",
    f"The build id is {_hex('d14', 40)} (go tool buildid).",
    f"sha1: {_sha('d15')} linux-amd64.zip",
]
_B64_FIXTURES = [
    f'<img src="data:image/png;base64,{_PNG_1PX}" alt="" />',
    "base64.b64encode(b'hello world') == b'aGVsbG8gd29ybGQ='",
    'next_cursor: "eyJwYWdlIjoyfQ==" (it is just {"page":2})',
    "echo 'SGVsbG8sIFdvcmxkIQ==' | base64 -d   # prints Hello, World!",
    "assert decode('dGVzdCBmaXh0dXJl') == 'test fixture'",
    f"ssh-ed25519 {_SSH_PUB} dana@laptop",
    f"authorized_keys:\n  - ssh-ed25519 {_SSH_PUB} deploy@ci",
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----",
    "The font is embedded as data:font/woff2;base64,d09GMgABAAAAAAKoAA0AAAAABjQAAAJSAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    'expected = "eyJ0eXBlIjoibm90aWNlIiwibXNnIjoiaGkifQ"  # {"type":"notice","msg":"hi"}',
]
_CODE = [
    "password_reset_token_ttl = 3600",
    "def get_api_key(settings: Settings) -> str:\n    return settings.api_key",
    "if not user.check_password(form.password.data):\n    raise Unauthorized()",
    "MAX_TOKENS = 4096",
    "token_count = len(tokenizer.encode(prompt))",
    'SECRET_KEY_ENV_VAR = "DJANGO_SECRET_KEY"',
    "password = getpass.getpass('Password: ')",
    "api_key = os.environ['OPENAI_API_KEY']",
    "const token = await getAccessToken(session);",
    "password = PasswordField('Password', validators=[Length(min=12)])",
    "type Keys = keyof typeof config;",
    "PRIMARY KEY (id),\nFOREIGN KEY (owner_id) REFERENCES users(id)",
    "ssh-keygen -t ed25519 -C 'dana@acme.dev' -f ~/.ssh/id_ed25519",
    "kubectl get secrets -n payments",
    "kubectl create secret generic db-creds --from-env-file=.env.prod",
    "gh secret set NPM_TOKEN < token.txt",
    "password: ${DB_PASSWORD}",
    "token: <your-token>",
    "OPENAI_API_KEY=YOUR_API_KEY_HERE",
    "Authorization: Bearer <token>",
    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
    "NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
    "password: {{ .Values.db.password }}",
    "PGPASSWORD=$(cat /run/secrets/pg_password) psql -h db -U app",
    'echo "$REGISTRY_TOKEN" | docker login ghcr.io -u acme-bot --password-stdin',
    "mysql -u root -p   # it prompts for the password",
    'curl -u "$JENKINS_USER:$JENKINS_TOKEN" https://jenkins.acme.dev/api/json',
    "aws secretsmanager get-secret-value --secret-id prod/orders/db",
    "vault kv get -field=password secret/orders/db",
    "hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))",
    "def rotate_secret(name: str, *, dry_run: bool = False) -> None: ...",
    "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:",
    "refresh_token_expires_in: 2592000",
    "api_key_header = APIKeyHeader(name='X-API-Key', auto_error=False)",
    "export DATABASE_URL=postgres://app@localhost:5432/app_dev",
    "redis://localhost:6379/0",
    "DB_PASSWORD=",
    "password: ********",
    "API_TOKEN=*** (masked in the CI log)",
    "jwt.decode(token, key, algorithms=['RS256'], audience='api.acme.dev')",
    "const { password, ...safeUser } = user;",
    "@app.post('/auth/reset-password')\nasync def reset_password(body: ResetPassword) -> None:",
    "settings.SESSION_COOKIE_SECURE = True",
    "if len(secret) < 32:\n    raise ValueError('secret too short')",
    "tokens = re.findall(r'\\w+', text)",
    "private_key_path: ~/.ssh/deploy_ed25519",
    "openssl genrsa -out key.pem 4096",
    "openssl req -new -key key.pem -out req.csr -subj '/CN=api.acme.dev'",
    "keyring.set_password('mnemex', 'github', getpass.getpass())",
    "The password field is hashed with argon2id (m=65536, t=3, p=4).",
]
_NAMES = [
    "AbstractSingletonProxyFactoryBean",
    "test_user_can_reset_password_with_a_valid_token",
    "src/components/PasswordStrengthMeter.tsx",
    "kernel/retrieval/rerank_with_cross_encoder.py",
    "/usr/local/lib/python3.11/site-packages/urllib3/connectionpool.py",
    "C:\\Users\\dana\\AppData\\Local\\Programs\\Python\\Python311\\python.exe",
    "~/.config/gh/hosts.yml",
    "v2.14.3",
    "1.0.0-rc.2+build.20261126",
    "node v20.11.1, npm 10.2.4, python 3.11.9",
    '"react": "^18.3.1", "typescript": "~5.6.3"',
    "color: #1e293b; background: rgba(15, 23, 42, 0.8);",
    'className="flex items-center justify-between gap-4 px-6 py-3 text-sm"',
    "--primary: #6366f1; --primary-hover: #4f46e5;",
    "ENABLE_EXPERIMENTAL_STREAMING_RESPONSES_FOR_LARGE_PAYLOADS",
    "useInfiniteScrollPaginationWithCursorAndPrefetch",
    "com.acme.payments.gateway.stripe.StripeWebhookSignatureVerifier",
    "io.grpc.StatusRuntimeException: UNAVAILABLE: io exception",
    "https://github.com/acme/api/blob/main/docs/auth.md#refresh-tokens",
    "https://docs.acme.dev/v2/reference/api-keys#rotating-keys",
]
_ERRORS = [
    "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 5432)",
    "ModuleNotFoundError: No module named 'psycopg2'",
    "401 Unauthorized: invalid or expired token",
    "jwt.exceptions.ExpiredSignatureError: Signature has expired",
    "KeyError: 'api_key'",
    "ValueError: password must be at least 12 characters",
    'FATAL:  password authentication failed for user "app"',
    "Error: EACCES: permission denied, open '/var/lib/app/config.json'",
    "Warning: Permanently added 'github.com' (ED25519) to the list of known hosts.",
    "Permission denied (publickey).",
    "remote: Invalid username or token. Password authentication is not supported for Git operations.",
    "OOMKilled: container api exceeded its memory limit (512Mi)",
    "TypeError: Cannot read properties of undefined (reading 'token')",
    'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed',
    'npm ERR! code E401\nnpm ERR! Unable to authenticate, need: Basic realm="GitHub Package Registry"',
    "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
    "x509: certificate signed by unknown authority",
    "2026-11-26T10:14:03Z INFO GET /v1/orders?page=3&limit=50 200 41ms",
    '10.0.4.17 - - [26/Nov/2026:10:14:03 +0000] "POST /login HTTP/1.1" 302 0',
    "WARN token bucket empty, delaying request by 250ms",
    'Error: secret "db-creds" not found',
    "AccessDenied: User: arn:aws:sts::123456789012:assumed-role/ci/1764144000 is not authorized",
    "SSL: CERTIFICATE_VERIFY_FAILED certificate verify failed: unable to get local issuer certificate",
    "django.core.exceptions.ImproperlyConfigured: The SECRET_KEY setting must not be empty.",
    "panic: runtime error: invalid memory address or nil pointer dereference",
]
_PROSE = [
    "We rotate the API keys every 90 days through the secrets manager.",
    "The password policy needs 12 characters and one symbol.",
    "The token budget is 200k for this model, so trim the context.",
    "Store the secret in Vault, never in the repository.",
    "Key takeaways from the incident review are in the doc.",
    "Who has the password to the staging database? Ask in #infra, don't paste it here.",
    "The login form should lock the account after five wrong passwords.",
    "I reset my password and the SSO login works again.",
    "Session tokens expire after 30 minutes of inactivity.",
    "Use a service account with read-only access for the dashboard.",
    "The private key never leaves the HSM; we only export the public key.",
    "Please generate a new deploy key for the infra repo.",
    "Bearer tokens go in the Authorization header, not the query string.",
    "We moved from API keys to OIDC federation for the GitHub Actions deploys.",
    "Tokenization splits the text into 1,842 tokens.",
    "The credentials live in 1Password under 'Staging / Postgres'.",
    "Rotate the webhook signing secret after the contractor leaves.",
    "Let's use passkeys instead of passwords for the admin panel.",
    "The basic auth in front of the docs site was removed last week.",
    "The cookie is HttpOnly, Secure and SameSite=Lax.",
    "Can you check why the refresh token flow logs the user out?",
    "The API returns 403 when the key has no write scope.",
    "Keep the .env file out of git; .env.example has the names only.",
    "The CI job masks anything registered with ::add-mask::.",
    "A leaked token was revoked within four minutes of the alert.",
]
_MISC = [
    "The meeting is at 10:30 UTC on 2026-11-27, room B-204.",
    "Listening on http://0.0.0.0:8080 (press CTRL+C to quit)",
    "SELECT id, email FROM users WHERE created_at > now() - interval '7 days' LIMIT 50;",
    'ports:\n  - "5432:5432"\n  - "6379:6379"',
    "resources:\n  limits:\n    cpu: 500m\n    memory: 512Mi",
    "env:\n  - name: LOG_LEVEL\n    value: info",
    "127.0.0.1 localhost\n10.0.0.12 db.internal",
    "IPv6 fe80::1ff:fe23:4567:890a is link-local",
    "cron: '0 3 * * 1-5'",
    "The invoice number is INV-2026-004213.",
    "Order #A7F3-K29Q-88ZD shipped today.",
    "Ticket PROJ-4821 depends on PROJ-4790.",
    "Feature flag new_checkout_flow_v2 is at 25%.",
    "The S3 key is uploads/2026/11/26/avatar-1042.png",
    "key = f'user:{user_id}:profile'",
    "redis-cli KEYS 'session:*' | wc -l",
    "Average key length in the cache is 48 bytes.",
    "SSH host key fingerprint: SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "Public DNS: ec2-3-120-45-67.eu-central-1.compute.amazonaws.com",
    "The wifi network is AcmeGuest; ask reception for access.",
]
FRESH_ORDINARY: list[str] = _GIT + _IDS + _DIGESTS + _B64_FIXTURES + _CODE + _NAMES + _ERRORS + _PROSE + _MISC
