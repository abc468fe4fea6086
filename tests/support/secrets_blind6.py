"""Sixth held-out secrets corpus, written blind for issue 36.

Its author read none of the redaction rules, none of the earlier corpora and none of their tests;
only the ``Secret`` structure, the head of ``secrets_blind5`` (for its format) and the blind5 test
(for the entry point, ``kernel.privacy.redact``, and its checks).  It must never be used to tune
rules: a rule written to catch one of these forms makes the figure it gives meaningless.  Its
tests only measure, and they report misses by category only.

Every value is made up from a deterministic hashlib stream seeded with ``blind6:``, with the
prefixes, lengths and character sets of the real formats, or written by hand; none is a live
credential.  The ordinary texts contain no secret but sit near them (commit hashes, UUIDs,
checksums, placeholders, the words password, token, secret and key used innocently): a good
redactor leaves them unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_ALNUM = ALNUM
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
_DIGITS = "0123456789"
_URLSAFE_PW = _ALNUM + "-_.~!*"


_DRAW = SeededDraw("blind6")  # this corpus's own stream of random-looking values
_s = _DRAW.chars
_bytes = _DRAW.raw
_b64 = _DRAW.b64
_b64u = b64url_text


def _pw(seed: str, n: int = 16) -> str:
    """A URL-safe random password that has a letter, a digit and a symbol, at random places."""
    chars = list(_s(seed, n - 3, _URLSAFE_PW))
    for kind, alphabet in (("L", _ALNUM[:52]), ("D", _DIGITS), ("S", "-_.~!*")):
        at = int(_s(f"{seed}:{kind}at", 2, _DIGITS)) % (len(chars) + 1)
        chars.insert(at, _s(f"{seed}:{kind}", 1, alphabet))
    return "".join(chars)


def _uuid(seed: str) -> str:
    h = _s(seed, 32, _HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _jwt(seed: str, claims: dict[str, object]) -> tuple[str, str]:
    """A signed-looking HS256 JWT and its signature part (the needle)."""
    header = _b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")))
    payload = _b64u(json.dumps(claims, separators=(",", ":")))
    signature = _s(seed, 43, _B64URL)
    return f"{header}.{payload}.{signature}", signature


def _pem_body(seed: str, lines: int, first: str = "") -> list[str]:
    raw = first + _s(seed, 64 * lines, _B64)
    return [raw[i * 64 : (i + 1) * 64] for i in range(lines)]


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


def _secrets() -> list[Secret]:
    out: list[Secret] = []

    def add(name: str, text: str, needle: str) -> None:
        out.append(Secret(name=name, text=text, needle=needle))

    # --- AWS -------------------------------------------------------------------------------
    akid = "AKIA" + _s("aws/1", 16, _UPPER)
    asec = _s("aws/1s", 40, _B64)
    add(
        "aws/credentials-file",
        f"here's my ~/.aws/credentials, why does boto3 say the profile is missing?\n\n"
        f"[default]\naws_access_key_id = {akid}\naws_secret_access_key = {asec}\nregion = eu-west-1\n",
        asec,
    )
    akid2 = "AKIA" + _s("aws/2", 16, _UPPER)
    add(
        "aws/export-id",
        f"$ export AWS_ACCESS_KEY_ID={akid2}\n$ aws s3 ls s3://reports-prod\nAn error occurred",
        akid2,
    )
    asec3 = _s("aws/3s", 40, _B64)
    add(
        "aws/boto3-client",
        "s3 = boto3.client(\n    's3',\n    aws_access_key_id='AKIA" + _s("aws/3", 16, _UPPER) + "',\n"
        f"    aws_secret_access_key='{asec3}',\n)",
        asec3,
    )
    asec4 = _s("aws/4s", 40, _B64)
    add(
        "aws/github-actions-log",
        f"Run aws configure set aws_secret_access_key {asec4} --profile ci\nRun aws sts get-caller-identity",
        asec4,
    )
    sts = "ASIA" + _s("aws/5", 16, _UPPER)
    stok = "IQoJb3JpZ2luX2VjE" + _s("aws/5t", 180, _B64)
    add(
        "aws/session-token-json",
        json.dumps(
            {
                "Credentials": {
                    "AccessKeyId": sts,
                    "SecretAccessKey": _s("aws/5s", 40, _B64),
                    "SessionToken": stok,
                    "Expiration": "2026-11-27T18:00:00Z",
                }
            },
            indent=2,
        ),
        stok,
    )
    asec6 = _s("aws/6s", 40, _B64)
    add(
        "aws/terraform-provider",
        f'provider "aws" {{\n  region     = "us-east-1"\n  access_key = "AKIA{_s("aws/6", 16, _UPPER)}"\n'
        f'  secret_key = "{asec6}"\n}}',
        asec6,
    )
    asec7 = _s("aws/7s", 40, _B64)
    add(
        "aws/prose",
        f"the secret key for the staging IAM user is {asec7} — rotate it after the demo please",
        asec7,
    )

    # --- GitHub ----------------------------------------------------------------------------
    ghp = "ghp_" + _s("github/1", 36)
    add("github/remote-url", f"git remote set-url origin https://{ghp}@github.com/acme/api.git", ghp)
    gpat = "github_pat_11" + _s("github/2a", 20, _UPPER) + "_" + _s("github/2b", 59)
    add("github/fine-grained-env", f"GITHUB_TOKEN={gpat}\nGITHUB_OWNER=acme", gpat)
    gho = "gho_" + _s("github/3", 36)
    add("github/oauth-curl", f'curl -H "Authorization: token {gho}" https://api.github.com/user', gho)
    ghs = "ghs_" + _s("github/4", 36)
    add("github/app-install-log", f"2026-11-27 10:14:02 DEBUG installation token ghs refreshed: {ghs}", ghs)
    ghu = "ghu_" + _s("github/5", 36)
    add("github/user-to-server-python", f'gh = Github(auth=Auth.Token("{ghu}"))', ghu)
    ghr = "ghr_" + _s("github/6", 76)
    add("github/refresh-json", json.dumps({"refresh_token": ghr, "expires_in": 15897600}), ghr)
    ghp7 = "ghp_" + _s("github/7", 36)
    add("github/gh-auth-login", f"echo {ghp7} | gh auth login --with-token", ghp7)
    ghp8 = "ghp_" + _s("github/8", 36)
    add(
        "github/npmrc-registry",
        f"@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={ghp8}",
        ghp8,
    )

    # --- GitLab ----------------------------------------------------------------------------
    glpat = "glpat-" + _s("gitlab/1", 20, _B64URL)
    add("gitlab/clone", f"git clone https://oauth2:{glpat}@gitlab.example.com/team/infra.git", glpat)
    glpat2 = "glpat-" + _s("gitlab/2", 20, _B64URL)
    add("gitlab/ci-var", f"variables:\n  GITLAB_API_TOKEN: {glpat2}\n  GIT_DEPTH: 10", glpat2)
    glrt = "glrt-" + _s("gitlab/3", 20, _B64URL)
    add("gitlab/runner-register", f"gitlab-runner register --url https://gitlab.com --token {glrt}", glrt)
    gldt = "gldt-" + _s("gitlab/4", 20, _B64URL)
    add("gitlab/deploy-token", f"docker login registry.gitlab.com -u gitlab+deploy-token-7 -p {gldt}", gldt)

    # --- Stripe ----------------------------------------------------------------------------
    sk = "sk_live_51" + _s("stripe/1", 97)
    add("stripe/python", f'import stripe\nstripe.api_key = "{sk}"\nstripe.Charge.list(limit=3)', sk)
    rk = "rk_live_51" + _s("stripe/2", 97)
    add("stripe/restricted-env", f"STRIPE_RESTRICTED_KEY={rk}", rk)
    whsec = "whsec_" + _s("stripe/3", 32)
    add(
        "stripe/webhook-secret",
        f"endpoint_secret = '{whsec}'\nevent = stripe.Webhook.construct_event(payload, sig, endpoint_secret)",
        whsec,
    )
    sk4 = "sk_live_" + _s("stripe/4", 24)
    add("stripe/curl", f"curl https://api.stripe.com/v1/customers -u {sk4}:", sk4)
    sk5 = "sk_test_51" + _s("stripe/5", 97)
    add("stripe/test-key-js", f"const stripe = require('stripe')('{sk5}');", sk5)

    # --- Slack -----------------------------------------------------------------------------
    xoxb = f"xoxb-{_s('slack/1a', 12, _DIGITS)}-{_s('slack/1b', 13, _DIGITS)}-{_s('slack/1c', 24)}"
    add("slack/bot-token", f"SLACK_BOT_TOKEN={xoxb}\nSLACK_CHANNEL=#deploys", xoxb)
    xoxp = (
        f"xoxp-{_s('slack/2a', 12, _DIGITS)}-{_s('slack/2b', 12, _DIGITS)}-"
        f"{_s('slack/2c', 13, _DIGITS)}-{_s('slack/2d', 32, _HEX)}"
    )
    add("slack/user-token-python", f'client = WebClient(token="{xoxp}")', xoxp)
    hook = f"T{_s('slack/3a', 8, _UPPER)}/B{_s('slack/3b', 10, _UPPER)}/{_s('slack/3c', 24)}"
    add(
        "slack/webhook",
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deployed\"}}' "
        f"https://hooks.slack.com/services/{hook}",
        hook,
    )
    xapp = f"xapp-1-A{_s('slack/4a', 10, _UPPER)}-{_s('slack/4b', 13, _DIGITS)}-{_s('slack/4c', 64, _HEX)}"
    add("slack/app-token-yaml", f"slack:\n  app_token: {xapp}\n  socket_mode: true", xapp)

    # --- OpenAI / Anthropic / other model vendors ---------------------------------------
    oai = "sk-proj-" + _s("openai/1", 156, _B64URL)
    add("openai/env", f"OPENAI_API_KEY={oai}", oai)
    oai2 = "sk-" + _s("openai/2a", 20) + "T3BlbkFJ" + _s("openai/2b", 20)
    add("openai/python", f"from openai import OpenAI\nclient = OpenAI(api_key='{oai2}')", oai2)
    oai3 = "sk-svcacct-" + _s("openai/3", 120, _B64URL)
    add("openai/curl-bearer", f'curl https://api.openai.com/v1/models -H "Authorization: Bearer {oai3}"', oai3)
    ant = "sk-ant-api03-" + _s("anthropic/1", 93, _B64URL) + "AA"
    add("anthropic/env", f"export ANTHROPIC_API_KEY={ant}\nclaude --version", ant)
    ant2 = "sk-ant-api03-" + _s("anthropic/2", 93, _B64URL) + "AA"
    add("anthropic/header", f"curl https://api.anthropic.com/v1/messages -H 'x-api-key: {ant2}'", ant2)
    ant3 = "sk-ant-admin01-" + _s("anthropic/3", 93, _B64URL) + "AA"
    add("anthropic/prose", f"ok I rotated it, the new admin key is {ant3}, can you update the vault entry", ant3)
    hf = "hf_" + _s("huggingface/1", 34)
    add("huggingface/cli", f"huggingface-cli login --token {hf} --add-to-git-credential", hf)
    hf2 = "hf_" + _s("huggingface/2", 34)
    add("huggingface/python", f'login(token="{hf2}")\nmodel = AutoModel.from_pretrained("acme/private-bert")', hf2)
    gsk = "gsk_" + _s("llmvendors/groq", 52)
    add("llmvendors/groq", f"GROQ_API_KEY={gsk}", gsk)
    r8 = "r8_" + _s("llmvendors/replicate", 37)
    add("llmvendors/replicate", f"export REPLICATE_API_TOKEN={r8}", r8)
    pplx = "pplx-" + _s("llmvendors/perplexity", 48)
    add("llmvendors/perplexity", f'headers = {{"Authorization": "Bearer {pplx}"}}', pplx)
    cohere = _s("llmvendors/cohere", 40)
    add("llmvendors/cohere", f'co = cohere.Client("{cohere}")', cohere)

    # --- Google Cloud ----------------------------------------------------------------------
    gkey = _pem_body("gcp/1", 6, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ")
    pk = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(gkey) + "\\n-----END PRIVATE KEY-----\\n"
    add(
        "gcp/service-account-json",
        "{\n"
        '  "type": "service_account",\n'
        '  "project_id": "acme-analytics-prod",\n'
        f'  "private_key_id": "{_s("gcp/1id", 40, _HEX)}",\n'
        f'  "private_key": "{pk}",\n'
        '  "client_email": "etl@acme-analytics-prod.iam.gserviceaccount.com",\n'
        '  "client_id": "104233871234567890123"\n'
        "}",
        gkey[3],
    )
    aiza = "AIza" + _s("gcp/2", 35, _B64URL)
    add(
        "gcp/maps-key-url",
        f"https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={aiza}",
        aiza,
    )
    aiza3 = "AIza" + _s("gcp/3", 35, _B64URL)
    add(
        "gcp/firebase-config",
        f'const firebaseConfig = {{\n  apiKey: "{aiza3}",\n  authDomain: "acme.firebaseapp.com",\n}};',
        aiza3,
    )
    gocspx = "GOCSPX-" + _s("gcp/4", 28, _B64URL)
    add(
        "gcp/oauth-client-secret",
        json.dumps(
            {
                "installed": {
                    "client_id": "8123456789-abc.apps.googleusercontent.com",
                    "client_secret": gocspx,
                }
            }
        ),
        gocspx,
    )
    ya29 = "ya29.a0" + _s("gcp/5", 150, _B64URL)
    add(
        "gcp/access-token-curl",
        f'curl -H "Authorization: Bearer {ya29}" https://www.googleapis.com/drive/v3/files',
        ya29,
    )
    refresh = "1//0" + _s("gcp/6", 99, _B64URL)
    add("gcp/refresh-token", f"refresh_token: {refresh}\ntoken_uri: https://oauth2.googleapis.com/token", refresh)

    # --- Azure -----------------------------------------------------------------------------
    acct = _b64("azure/1", 64)
    add(
        "azure/storage-connection-string",
        'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmelogs;'
        f'AccountKey={acct};EndpointSuffix=core.windows.net"',
        acct,
    )
    sig = _s("azure/2", 43, _B64).replace("/", "%2F").replace("+", "%2B") + "%3D"
    add(
        "azure/sas-url",
        "https://acmelogs.blob.core.windows.net/exports/2026-11.csv?sv=2022-11-02&ss=b&srt=o&sp=r"
        f"&se=2026-12-31T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={sig}",
        sig,
    )
    azsec = _s("azure/3a", 3) + "8Q~" + _s("azure/3b", 34, _ALNUM + "_-.~")
    add(
        "azure/client-secret-cli",
        f"az login --service-principal -u {_uuid('azure/3u')} -p {azsec} --tenant {_uuid('azure/3t')}",
        azsec,
    )
    sbkey = _b64("azure/4", 32)
    add(
        "azure/service-bus",
        "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        f"SharedAccessKey={sbkey}",
        sbkey,
    )
    cosmos = _b64("azure/5", 64)
    add(
        "azure/cosmos-appsettings",
        json.dumps({"CosmosDb": {"Endpoint": "https://acme.documents.azure.com:443/", "Key": cosmos}}, indent=2),
        cosmos,
    )

    # --- package registries --------------------------------------------------------------
    npm = "npm_" + _s("npm/1", 36)
    add("npm/npmrc", f"//registry.npmjs.org/:_authToken={npm}\nalways-auth=true", npm)
    npm2 = "npm_" + _s("npm/2", 36)
    add("npm/ci-env", f"- name: Publish\n  run: npm publish\n  env:\n    NODE_AUTH_TOKEN: {npm2}", npm2)
    pypi = "pypi-AgEIcHlwaS5vcmc" + _s("pypi/1", 150, _B64URL)
    add("pypi/pypirc", f"[pypi]\n  username = __token__\n  password = {pypi}", pypi)
    pypi2 = "pypi-AgEIcHlwaS5vcmc" + _s("pypi/2", 150, _B64URL)
    add("pypi/twine", f"twine upload -u __token__ -p {pypi2} dist/*", pypi2)
    pypi3 = "pypi-AgENdGVzdC5weXBpLm9yZw" + _s("pypi/3", 140, _B64URL)
    add(
        "pypi/uv-publish-env", f"UV_PUBLISH_TOKEN={pypi3} uv publish --publish-url https://test.pypi.org/legacy/", pypi3
    )
    dckr = "dckr_pat_" + _s("docker/1", 27, _B64URL)
    add("docker/login-stdin", f'echo "{dckr}" | docker login -u acmebot --password-stdin', dckr)
    dauth = base64.b64encode(f"acmebot:{_pw('docker/2')}".encode()).decode()
    add(
        "docker/config-json",
        json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": dauth}}}, indent=2),
        dauth,
    )
    dpw = _pw("docker/3", 20)
    add("docker/login-p", f"docker login ghcr.io -u acme -p {dpw}", dpw)
    rubygems = "rubygems_" + _s("registries/rubygems", 48, _HEX)
    add("registries/rubygems", f"---\n:rubygems_api_key: {rubygems}", rubygems)
    nuget = "oy2" + _s("registries/nuget", 43, "abcdefghijklmnopqrstuvwxyz234567")
    add(
        "registries/nuget",
        f"dotnet nuget push pkg.nupkg --api-key {nuget} --source https://api.nuget.org/v3/index.json",
        nuget,
    )
    cargo = "cio" + _s("registries/cargo", 32)
    add("registries/cargo", f'[registry]\ntoken = "{cargo}"', cargo)

    # --- HashiCorp -------------------------------------------------------------------------
    hvs = "hvs." + _s("hashicorp/1", 24)
    add("hashicorp/vault-token", f"export VAULT_ADDR=https://vault.acme.internal:8200\nexport VAULT_TOKEN={hvs}", hvs)
    hvs2 = "hvs.CAESI" + _s("hashicorp/2", 80, _B64URL)
    add(
        "hashicorp/vault-login-output",
        f"Key                  Value\n---                  -----\ntoken                {hvs2}\ntoken_accessor       {_s('hashicorp/2a', 24)}",
        hvs2,
    )
    tfc = _s("hashicorp/3a", 14) + ".atlasv1." + _s("hashicorp/3b", 67)
    add("hashicorp/terraformrc", f'credentials "app.terraform.io" {{\n  token = "{tfc}"\n}}', tfc)

    # --- observability ---------------------------------------------------------------------
    dd = _s("datadog/1", 32, _HEX)
    add("datadog/agent-run", f"docker run -d -e DD_API_KEY={dd} -e DD_SITE=datadoghq.eu gcr.io/datadoghq/agent:7", dd)
    ddapp = _s("datadog/2", 40, _HEX)
    add(
        "datadog/app-key-header",
        f"curl -X GET https://api.datadoghq.com/api/v1/monitor -H 'DD-APPLICATION-KEY: {ddapp}' -H 'DD-API-KEY: ...'",
        ddapp,
    )
    dsnkey = _s("sentry/1", 32, _HEX)
    add(
        "sentry/dsn",
        f'sentry_sdk.init(dsn="https://{dsnkey}@o450123.ingest.sentry.io/5512345", traces_sample_rate=0.2)',
        dsnkey,
    )
    sntrys = (
        "sntrys_"
        + _b64u(json.dumps({"iat": 1732700000, "url": "https://sentry.io", "org": "acme"}))
        + "_"
        + _s("sentry/2", 43)
    )
    add("sentry/auth-token", f"SENTRY_AUTH_TOKEN={sntrys}", sntrys)
    nrak = "NRAK-" + _s("observability/newrelic", 27, _UPPER)
    add("observability/newrelic", f"newrelic:\n  api_key: {nrak}", nrak)
    glsa = "glsa_" + _s("observability/grafana", 32) + "_" + _s("observability/grafana2", 8, _HEX)
    add(
        "observability/grafana",
        f'curl -H "Authorization: Bearer {glsa}" https://grafana.acme.io/api/dashboards/home',
        glsa,
    )
    hny = _s("observability/honeycomb", 22)
    add("observability/honeycomb", f"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={hny}", hny)

    # --- commerce and messaging vendors ----------------------------------------------------
    shpat = "shpat_" + _s("shopify/1", 32, _HEX)
    add("shopify/admin-token", f"X-Shopify-Access-Token: {shpat}", shpat)
    shpss = "shpss_" + _s("shopify/2", 32, _HEX)
    add("shopify/shared-secret", f"SHOPIFY_API_SECRET={shpss}", shpss)
    shpca = "shpca_" + _s("shopify/3", 32, _HEX)
    add("shopify/custom-app", f"session = shopify.Session('acme.myshopify.com', '2024-10', '{shpca}')", shpca)
    sg = "SG." + _s("sendgrid/1a", 22, _B64URL) + "." + _s("sendgrid/1b", 43, _B64URL)
    add("sendgrid/python", f"sg = SendGridAPIClient('{sg}')", sg)
    sg2 = "SG." + _s("sendgrid/2a", 22, _B64URL) + "." + _s("sendgrid/2b", 43, _B64URL)
    add("sendgrid/smtp", f"EMAIL_HOST=smtp.sendgrid.net\nEMAIL_HOST_USER=apikey\nEMAIL_HOST_PASSWORD={sg2}", sg2)
    twtok = _s("twilio/1", 32, _HEX)
    add("twilio/client", f"client = Client('AC{_s('twilio/1sid', 32, _HEX)}', '{twtok}')", twtok)
    twsk = _s("twilio/2", 32)
    add(
        "twilio/api-key-curl",
        f"curl -u SK{_s('twilio/2sid', 32, _HEX)}:{twsk} https://api.twilio.com/2010-04-01/Accounts.json",
        twsk,
    )
    mg = "key-" + _s("mailgun/1", 32, _HEX)
    add("mailgun/curl", f"curl -s --user 'api:{mg}' https://api.mailgun.net/v3/mg.acme.io/messages", mg)
    mc = _s("mailchimp/1", 32, _HEX) + "-us21"
    add("mailchimp/config", f"MAILCHIMP_API_KEY = '{mc}'", mc)
    sq = "EAAA" + _s("square/1", 60, _B64URL)
    add("square/access-token", f"SQUARE_ACCESS_TOKEN={sq}\nSQUARE_ENVIRONMENT=production", sq)
    bt = f"access_token$production${_s('paypal/1a', 16, _LOWER)}${_s('paypal/1b', 32, _HEX)}"
    add("paypal/braintree", f"gateway = braintree.BraintreeGateway(access_token='{bt}')", bt)

    # --- hosting and platform vendors ------------------------------------------------------
    heroku = "HRKU-AA" + _s("heroku/1", 58, _B64URL)
    add("heroku/api-key", f"heroku config:set HEROKU_API_KEY={heroku} -a acme-web", heroku)
    heroku2 = _uuid("heroku/2")
    add("heroku/netrc", f"machine api.heroku.com\n  login dev@acme.io\n  password {heroku2}", heroku2)
    dop = "dop_v1_" + _s("digitalocean/1", 64, _HEX)
    add("digitalocean/doctl", f"doctl auth init --access-token {dop}", dop)
    doo = "doo_v1_" + _s("digitalocean/2", 64, _HEX)
    add("digitalocean/oauth-yaml", f"access-token: {doo}\ncontext: default", doo)
    lin = "lin_api_" + _s("linear/1", 40)
    add(
        "linear/graphql",
        f"curl https://api.linear.app/graphql -H 'Authorization: {lin}' -d '{{\"query\":\"{{ viewer {{ id }} }}\"}}'",
        lin,
    )
    vercel = _s("platforms/vercel", 24)
    add("platforms/vercel", f"vercel deploy --prod --token {vercel}", vercel)
    nfp = "nfp_" + _s("platforms/netlify", 36)
    add("platforms/netlify", f"NETLIFY_AUTH_TOKEN={nfp} netlify deploy --prod", nfp)
    fly = "FlyV1 fm2_" + _s("platforms/fly", 120, _B64URL)
    add("platforms/fly", f'FLY_API_TOKEN="{fly}"', fly[6:])
    sbp = "sbp_" + _s("platforms/supabase", 40, _HEX)
    add("platforms/supabase", f"supabase login --token {sbp}", sbp)
    supajwt, supasig = _jwt(
        "platforms/supabase-service", {"iss": "supabase", "ref": "abcdefghijklmnop", "role": "service_role"}
    )
    add("platforms/supabase-service-role", f"SUPABASE_SERVICE_ROLE_KEY={supajwt}", supasig)
    cf = _s("platforms/cloudflare", 40, _B64URL)
    add(
        "platforms/cloudflare",
        f'curl "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer {cf}"',
        cf,
    )
    doppler = "dp.st.prd." + _s("platforms/doppler", 43)
    add("platforms/doppler", f"DOPPLER_TOKEN={doppler} doppler run -- ./start.sh", doppler)
    pul = "pul-" + _s("platforms/pulumi", 40, _HEX)
    add("platforms/pulumi", f"PULUMI_ACCESS_TOKEN: {pul}", pul)
    dapi = "dapi" + _s("platforms/databricks", 32, _HEX)
    add(
        "platforms/databricks", f"[DEFAULT]\nhost = https://adb-1234567890.12.azuredatabricks.net\ntoken = {dapi}", dapi
    )
    tskey = "tskey-auth-k" + _s("platforms/tailscale1", 16) + "CNTRL-" + _s("platforms/tailscale2", 32)
    add("platforms/tailscale", f"tailscale up --authkey={tskey} --hostname=ci-runner", tskey)
    ngrok = "2" + _s("platforms/ngrok1", 26) + "_" + _s("platforms/ngrok2", 21)
    add("platforms/ngrok", f"ngrok config add-authtoken {ngrok}", ngrok)

    # --- SaaS tools --------------------------------------------------------------------------
    atl = "ATATT3xFfGF0" + _s("saas/atlassian", 180, _B64URL) + "=" + _s("saas/atlassian2", 8, _HEX).upper()
    add("saas/atlassian", f"jira = JIRA(server='https://acme.atlassian.net', basic_auth=('dev@acme.io', '{atl}'))", atl)
    atbb = "ATBB" + _s("saas/bitbucket", 32)
    add("saas/bitbucket", f"git clone https://acme-dev:{atbb}@bitbucket.org/acme/site.git", atbb)
    ntn = "ntn_" + _s("saas/notion", 46)
    add("saas/notion", f"notion = Client(auth='{ntn}')", ntn)
    notion2 = "secret_" + _s("saas/notion-old", 43)
    add("saas/notion-legacy", f'NOTION_TOKEN="{notion2}"', notion2)
    airtable = "pat" + _s("saas/airtable1", 14) + "." + _s("saas/airtable2", 64, _HEX)
    add("saas/airtable", f"Authorization: Bearer {airtable}", airtable)
    pmak = "PMAK-" + _s("saas/postman1", 24, _HEX) + "-" + _s("saas/postman2", 34, _HEX)
    add("saas/postman", f"newman run collection.json --postman-api-key {pmak}", pmak)
    figd = "figd_" + _s("saas/figma", 40, _B64URL)
    add("saas/figma", f"curl -H 'X-Figma-Token: {figd}' https://api.figma.com/v1/files/abc", figd)
    cfpat = "CFPAT-" + _s("saas/contentful", 43, _B64URL)
    add("saas/contentful", f"contentful login --management-token {cfpat}", cfpat)
    squ = "squ_" + _s("saas/sonar", 40, _HEX)
    add("saas/sonarqube", f"mvn sonar:sonar -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={squ}", squ)
    okta = "00" + _s("saas/okta", 40, _B64URL)
    add("saas/okta", f"Authorization: SSWS {okta}", okta)
    algolia = _s("saas/algolia", 32, _HEX)
    add(
        "saas/algolia-admin",
        f"const client = algoliasearch('A1B2C3D4E5', '{algolia}'); // admin key, server side only",
        algolia,
    )
    ops = "ops_" + _s("saas/1password", 200, _B64URL)
    add("saas/1password", f"export OP_SERVICE_ACCOUNT_TOKEN={ops}", ops)
    artif = "AKCp" + _s("saas/artifactory", 69)
    add(
        "saas/artifactory",
        f"curl -H 'X-JFrog-Art-Api: {artif}' https://acme.jfrog.io/artifactory/api/repositories",
        artif,
    )
    snyk = _uuid("saas/snyk")
    add("saas/snyk", f"snyk auth {snyk}", snyk)
    dropbox = "sl.B" + _s("saas/dropbox", 135, _B64URL)
    add("saas/dropbox", f"dbx = dropbox.Dropbox('{dropbox}')", dropbox)
    fb = "EAAG" + _s("saas/facebook", 180)
    add("saas/facebook", f"https://graph.facebook.com/v19.0/me/accounts?access_token={fb}", fb)
    twb = "AAAAAAAAAAAAAAAAAAAAA" + _s("saas/twitter1", 30) + "%3D" + _s("saas/twitter2", 50)
    add("saas/twitter-bearer", f"TWITTER_BEARER_TOKEN={twb}", twb)
    mapbox = "sk.eyJ1IjoiYWNtZSIsImEiOiJ" + _s("saas/mapbox", 40, _B64URL) + "." + _s("saas/mapbox2", 22, _B64URL)
    add("saas/mapbox-secret", f"MAPBOX_DOWNLOADS_TOKEN={mapbox}", mapbox)
    cloudinary = _s("saas/cloudinary", 27, _B64URL)
    add(
        "saas/cloudinary-url",
        f"CLOUDINARY_URL=cloudinary://{_s('saas/cloudinary-key', 15, _DIGITS)}:{cloudinary}@acme",
        cloudinary,
    )

    # --- other clouds ------------------------------------------------------------------------
    ali = _s("clouds/alibaba", 30)
    add(
        "clouds/alibaba",
        f"aliyun configure set --access-key-id LTAI{_s('clouds/alibaba-id', 20)} --access-key-secret {ali}",
        ali,
    )
    tc = _s("clouds/tencent", 32)
    add("clouds/tencent", f"cred = credential.Credential('AKID{_s('clouds/tencent-id', 32)}', '{tc}')", tc)
    ibm = _s("clouds/ibm", 44, _B64URL)
    add("clouds/ibm", f"ibmcloud login --apikey {ibm} -r eu-de", ibm)
    oci = _pem_body("clouds/oci", 5, "MIIEowIBAAKCAQEA")
    add(
        "clouds/oci-key-file",
        "cat ~/.oci/oci_api_key.pem\n-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(oci)
        + "\n-----END RSA PRIVATE KEY-----",
        oci[2],
    )
    minio = _s("clouds/minio", 40, _B64)
    add("clouds/minio", f"mc alias set prod https://minio.acme.io admin {minio}", minio)

    # --- chat platforms ----------------------------------------------------------------------
    tg = f"{_s('telegram/1a', 10, _DIGITS)}:AA{_s('telegram/1b', 33, _B64URL)}"
    add("telegram/bot-url", f"https://api.telegram.org/bot{tg}/sendMessage?chat_id=-100123&text=hi", tg)
    tg2 = f"{_s('telegram/2a', 10, _DIGITS)}:AA{_s('telegram/2b', 33, _B64URL)}"
    add("telegram/python", f"app = ApplicationBuilder().token('{tg2}').build()", tg2)
    disc = f"M{_s('discord/1a', 25)}.{_s('discord/1b', 6, _B64URL)}.{_s('discord/1c', 38, _B64URL)}"
    add("discord/bot-token", f"client.run('{disc}')", disc)
    dwh = _s("discord/2", 68, _B64URL)
    add("discord/webhook", f"https://discord.com/api/webhooks/{_s('discord/2id', 19, _DIGITS)}/{dwh}", dwh)

    # --- JWTs, sessions, cookies -----------------------------------------------------------
    jwt1, sig1 = _jwt("jwt/1", {"sub": "u_1842", "role": "admin", "exp": 1764300000})
    add("jwt/bearer-header", f"Authorization: Bearer {jwt1}", sig1)
    jwt2, sig2 = _jwt("jwt/2", {"sub": "42", "scope": "read write", "iat": 1764200000})
    add("jwt/cookie", f"Cookie: theme=dark; access_token={jwt2}; lang=en", sig2)
    jwt3, sig3 = _jwt("jwt/3", {"iss": "https://auth.acme.io", "aud": "api", "sub": "svc-etl"})
    add("jwt/localstorage-prose", f"I copied this from localStorage, the token is {jwt3} — why is it rejected?", sig3)
    jwt4, sig4 = _jwt("jwt/4", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"})
    add("jwt/kubeconfig-token", f"users:\n- name: deployer\n  user:\n    token: {jwt4}", sig4)
    sess = _s("cookies/1", 32, _LOWER)
    add(
        "cookies/django-session",
        f"curl -b 'sessionid={sess}; csrftoken={_s('cookies/1c', 32)}' https://admin.acme.io/admin/",
        sess,
    )
    rails = _b64("cookies/2", 90).rstrip("=") + "--" + _s("cookies/2b", 40, _HEX)
    add("cookies/set-cookie", f"Set-Cookie: _acme_session={rails}; path=/; secure; HttpOnly; SameSite=Lax", rails)
    connect = "s%3A" + _s("cookies/3", 32, _B64URL) + "." + _s("cookies/3b", 43, _B64)
    add("cookies/express", f"document.cookie shows connect.sid={connect}", connect)
    secret_key = _s("cookies/4", 50, _ALNUM + "!@#$%^&*(-_=+)")
    add("cookies/django-secret-key", f"# settings.py\nDEBUG = False\nSECRET_KEY = '{secret_key}'", secret_key)
    flask = _s("cookies/5", 64, _HEX)
    add("cookies/flask-secret", f"app.config['SECRET_KEY'] = '{flask}'", flask)

    # --- private keys --------------------------------------------------------------------------
    rsa = _pem_body("keys/rsa", 8, "MIIEpAIBAAKCAQEA")
    add(
        "keys/rsa-pem",
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(rsa) + "\n-----END RSA PRIVATE KEY-----",
        rsa[4],
    )
    ossh = _pem_body("keys/openssh", 6, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW")
    add(
        "keys/openssh",
        "$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(ossh)
        + "\n-----END OPENSSH PRIVATE KEY-----",
        ossh[3],
    )
    ec = _pem_body("keys/ec", 3, "MHcCAQEEI")
    add("keys/ec-pem", "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(ec) + "\n-----END EC PRIVATE KEY-----", ec[1])
    pgp = _pem_body("keys/pgp", 7, "lQVYBGV")
    add(
        "keys/pgp",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(pgp)
        + "\n="
        + _s("keys/pgp-crc", 4, _B64)
        + "\n-----END PGP PRIVATE KEY BLOCK-----",
        pgp[4],
    )
    escaped = _pem_body("keys/escaped", 5, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
    add(
        "keys/env-one-line",
        'JWT_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\n' + "\\n".join(escaped) + '\\n-----END PRIVATE KEY-----"',
        escaped[2],
    )
    k8skey = _b64("keys/kubeconfig", 1200)
    add(
        "keys/kubeconfig-client-key-data",
        f"- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {k8skey}",
        k8skey[200:264],
    )
    age = "AGE-SECRET-KEY-1" + _s("keys/age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
    add(
        "keys/age",
        f"# created: 2026-11-27T10:00:00Z\n# public key: age1{_s('keys/agepub', 58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}\n{age}",
        age,
    )
    eth = "0x" + _s("keys/eth", 64, _HEX)
    add("keys/ethereum", f"const wallet = new ethers.Wallet('{eth}', provider);", eth)
    wif = "5" + _s("keys/wif", 50, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
    add("keys/bitcoin-wif", f'importprivkey {wif} "cold-wallet" false', wif)
    mnemonic = "ripple tiger orbit velvet canyon harsh exile lunar doctor meadow pistol absorb"
    add("keys/seed-phrase", f"recovery phrase for the test wallet (mainnet, has funds!): {mnemonic}", mnemonic)

    # --- passwords in prose, several languages -------------------------------------------
    prose = [
        ("prose/en-is", "the admin password is {p}, log in and check the queue", _pw("prose/1", 14)),
        ("prose/en-colon", "DB creds → user: report_ro / pass: {p}", _pw("prose/2", 12)),
        ("prose/en-use", "use {p} as the password for the staging box, I'll change it tomorrow", _pw("prose/3", 15)),
        ("prose/en-set", "I set the wifi password to {p}", "Kestrel-Harbor-1987"),
        ("prose/en-pw", "pw for jenkins is {p} fyi", "Gr4nite!Falls"),
        ("prose/en-passphrase", "the passphrase for the backup key is '{p}'", "velvet anchor marble tundra 42"),
        ("prose/en-login", "login: ops@acme.io\npassword: {p}", _pw("prose/7", 18)),
        ("prose/en-changed", "changed the root password on db-3 to {p} after the incident", _pw("prose/8", 16)),
        ("prose/fr", "le mot de passe du serveur de prod est {p}, ne le partage pas", "Soleil_Marseille_2024"),
        ("prose/de", "Das Passwort für den FTP-Zugang lautet {p}.", "Bergwiese!77Tanne"),
        ("prose/es", "La contraseña de la base de datos es {p} y el usuario es admin.", _pw("prose/es", 14)),
        ("prose/pt", "a senha do painel é {p}, troque depois", "Cajueiro#2023praia"),
        ("prose/it", "la password dell'utente deploy è {p}", _pw("prose/it", 13)),
        ("prose/nl", "het wachtwoord van de beheerder is {p}", "Tulpen-Amstel-4411"),
        ("prose/pl", "hasło do serwera to {p}", _pw("prose/pl", 14)),
        ("prose/ru", "пароль от базы: {p}", "Medved_Volga_1999"),
        ("prose/ja", "本番DBのパスワードは {p} です。", _pw("prose/ja", 14)),
        ("prose/zh", "服务器的密码是 {p}，请不要外传", _pw("prose/zh", 14)),
        ("prose/ko", "관리자 비밀번호는 {p} 입니다", _pw("prose/ko", 13)),
        ("prose/tr", "veritabanı şifresi: {p}", "Bogazici*Kedi55"),
        ("prose/sv", "lösenordet till routern är {p}", "Fjallripa-2020!"),
    ]
    for name, template, p in prose:
        add(name, template.format(p=p), p)

    # --- passwords on command lines --------------------------------------------------------
    cli = [
        ("cli/mysql", "mysql -h db.acme.internal -u root -p{p} shop < dump.sql", _pw("cli/mysql")),
        ("cli/mysqldump", "mysqldump --user=backup --password={p} --all-databases > all.sql", _pw("cli/mysqldump")),
        ("cli/pgpassword", "PGPASSWORD={p} psql -h 10.0.3.12 -U app -d orders -c 'select 1'", _pw("cli/pg")),
        ("cli/sshpass", "sshpass -p '{p}' ssh deploy@203.0.113.20 'sudo systemctl restart api'", _pw("cli/sshpass")),
        ("cli/curl-u", "curl -u admin:{p} https://jenkins.acme.io/api/json", _pw("cli/curl")),
        ("cli/redis", "redis-cli -h cache.acme.internal -a {p} INFO memory", _pw("cli/redis")),
        (
            "cli/mongosh",
            "mongosh 'mongodb://10.0.0.5:27017' --username admin --password {p} --authenticationDatabase admin",
            _pw("cli/mongo"),
        ),
        ("cli/htpasswd", "htpasswd -b -c /etc/nginx/.htpasswd grafana {p}", _pw("cli/htpasswd")),
        ("cli/smbclient", "smbclient //fileserver/share -U 'ACME\\svc_backup%{p}'", _pw("cli/smb")),
        (
            "cli/wget",
            "wget --user=ci --password={p} https://nexus.acme.io/repository/raw/build.tar.gz",
            _pw("cli/wget"),
        ),
        (
            "cli/openssl",
            "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{p}",
            _pw("cli/openssl"),
        ),
        (
            "cli/ldapsearch",
            "ldapsearch -x -H ldap://dc1.acme.local -D 'cn=admin,dc=acme,dc=local' -w {p} -b 'dc=acme,dc=local'",
            _pw("cli/ldap"),
        ),
        ("cli/zip", "zip -P {p} -r payroll.zip payroll/", _pw("cli/zip")),
        ("cli/sqlcmd", "sqlcmd -S tcp:sql01,1433 -U sa -P '{p}' -Q 'SELECT @@VERSION'", _pw("cli/sqlcmd")),
        ("cli/rabbitmqctl", "rabbitmqctl add_user orders {p}", _pw("cli/rabbit")),
        (
            "cli/keytool",
            "keytool -genkeypair -alias app -keystore app.jks -storepass {p} -keypass {p}",
            _pw("cli/keytool"),
        ),
        ("cli/net-user", "net user svc_sql {p} /add /domain", _pw("cli/netuser")),
        ("cli/psexec", "psexec \\\\10.1.1.4 -u Administrator -p {p} cmd.exe", _pw("cli/psexec")),
        ("cli/ansible", "ansible-playbook site.yml -e 'ansible_become_password={p}'", _pw("cli/ansible")),
        ("cli/chpasswd", "echo 'deploy:{p}' | sudo chpasswd", _pw("cli/chpasswd")),
        ("cli/influx", "influx setup -u admin -p {p} -o acme -b metrics -f", _pw("cli/influx")),
        ("cli/vnc", "x11vnc -display :0 -passwd {p} -forever", _pw("cli/vnc")),
    ]
    for name, template, p in cli:
        add(name, template.format(p=p), p)

    # --- connection strings and URLs -------------------------------------------------------
    conn = [
        (
            "conn/postgres-url",
            "DATABASE_URL=postgres://app:{p}@db.acme.internal:5432/orders?sslmode=require",
            _pw("conn/pg"),
        ),
        (
            "conn/mysql-sqlalchemy",
            "engine = create_engine('mysql+pymysql://shop:{p}@127.0.0.1:3306/shop')",
            _pw("conn/mysql"),
        ),
        (
            "conn/mongodb-srv",
            "MONGO_URI=mongodb+srv://atlasAdmin:{p}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true",
            _pw("conn/mongo"),
        ),
        (
            "conn/redis-url",
            "REDIS_URL=redis://:{p}@redis-12345.c1.eu-west-1.ec2.cloud.redislabs.com:12345/0",
            _pw("conn/redis"),
        ),
        ("conn/amqp", "celery -A proj worker --broker amqp://orders:{p}@rabbit.acme.internal:5672//", _pw("conn/amqp")),
        ("conn/jdbc", "spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password={p}", _pw("conn/jdbc")),
        (
            "conn/sqlserver",
            "Server=tcp:acme.database.windows.net,1433;Initial Catalog=crm;User ID=crmadmin;Password={p};Encrypt=True;",
            _pw("conn/mssql"),
        ),
        ("conn/ftp-url", "lftp ftp://uploader:{p}@ftp.partner.example.com/incoming", _pw("conn/ftp")),
        ("conn/smtp-url", "EMAIL_URL=smtp+tls://alerts%40acme.io:{p}@smtp.gmail.com:587", _pw("conn/smtp")),
        ("conn/oracle", "sqlplus system/{p}@//ora01.acme.internal:1521/ORCLPDB1", _pw("conn/oracle")),
        ("conn/elastic", "es = Elasticsearch('https://elastic:{p}@es.acme.internal:9200')", _pw("conn/es")),
        ("conn/git-http-pass", "git push https://jdoe:{p}@git.acme.internal/scm/web/site.git main", _pw("conn/git")),
        (
            "conn/pip-index",
            "pip install --index-url https://ci:{p}@pypi.acme.internal/simple/ acme-core",
            _pw("conn/pip"),
        ),
        ("conn/proxy", "export https_proxy=http://jdoe:{p}@proxy.acme.local:3128", _pw("conn/proxy")),
    ]
    for name, template, p in conn:
        add(name, template.format(p=p), p)

    # --- tokens in URLs and query strings --------------------------------------------------
    u1 = _s("url/1", 40)
    add("url/access-token-query", f"GET /api/v2/export?format=csv&access_token={u1} HTTP/1.1", u1)
    u2 = _s("url/2", 32, _HEX)
    add("url/api-key-query", f"https://api.openweathermap.org/data/2.5/weather?q=Lyon&appid={u2}", u2)
    u3 = _s("url/3", 48, _B64URL)
    add("url/password-reset-link", f"your reset link: https://app.acme.io/reset?token={u3}&uid=1842", u3)
    u4 = _s("url/4", 36)
    add(
        "url/nginx-log",
        f'10.0.0.7 - - [27/Nov/2026:10:01:22 +0000] "GET /hooks/deploy?secret={u4} HTTP/1.1" 200 12',
        u4,
    )
    u5 = _s("url/5", 64, _HEX)
    add(
        "url/signed-s3",
        f"https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{_s('url/5id', 16, _UPPER)}%2F20261127%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature={u5}",
        u5,
    )
    u6 = _s("url/6", 40, _HEX)
    add("url/gitea-webhook", f"https://ci.acme.io/generic-webhook-trigger/invoke?token={u6}", u6)

    # --- config files ---------------------------------------------------------------------
    p = _pw("config/dotenv")
    add("config/dotenv", f"APP_ENV=production\nDB_HOST=db\nDB_USER=app\nDB_PASSWORD={p}\nLOG_LEVEL=info", p)
    p = _pw("config/yaml")
    add("config/yaml", f'database:\n  host: db.acme.internal\n  username: app\n  password: "{p}"\n  pool: 10', p)
    p = _pw("config/toml")
    add("config/toml", f'[smtp]\nhost = "smtp.acme.io"\nuser = "noreply"\npassword = "{p}"', p)
    p = _pw("config/ini")
    add("config/ini", f"[client]\nuser=backup\npassword={p}\nhost=localhost", p)
    p = _pw("config/json")
    add("config/json", json.dumps({"db": {"user": "svc", "pass": p, "host": "10.2.0.4"}}, indent=2), p)
    p = _pw("config/compose")
    add(
        "config/docker-compose",
        f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {p}",
        p,
    )
    k8spw = base64.b64encode(_pw("config/k8s").encode()).decode()
    add(
        "config/k8s-secret",
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: YXBw\n  password: {k8spw}",
        k8spw,
    )
    p = _pw("config/k8s-string")
    add("config/k8s-stringdata", f"kind: Secret\nstringData:\n  REDIS_PASSWORD: {p}", p)
    p = _pw("config/tfvars")
    add("config/tfvars", f'db_username = "admin"\ndb_password = "{p}"\ninstance_class = "db.t3.micro"', p)
    p = _pw("config/properties")
    add("config/spring-properties", f"spring.datasource.username=app\nspring.datasource.password={p}", p)
    p = _pw("config/xml")
    add(
        "config/xml-settings",
        f"<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>{p}</password>\n</server>",
        p,
    )
    p = _pw("config/helm")
    add("config/helm-set", f"helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={p}", p)
    p = _pw("config/gha")
    add(
        "config/github-actions",
        f"env:\n  REGISTRY_USER: ci\n  REGISTRY_PASSWORD: {p}\nsteps:\n  - uses: actions/checkout@v4",
        p,
    )
    p = _pw("config/dockerfile")
    add("config/dockerfile", f'FROM python:3.12-slim\nENV ADMIN_PASSWORD={p}\nCMD ["gunicorn", "app:app"]', p)
    p = _pw("config/php")
    add("config/php", f"define('DB_PASSWORD', '{p}');\ndefine('DB_HOST', 'localhost');", p)
    p = _pw("config/wp")
    add("config/netrc", f"machine ftp.partner.example.com login acme password {p}", p)
    p = _pw("config/pgpass")
    add("config/pgpass", f"db.acme.internal:5432:*:report:{p}", p)
    p = _pw("config/jupyter")
    add(
        "config/appsettings-json",
        json.dumps({"ConnectionStrings": {"Default": f"Host=db;Username=app;Password={p}"}}),
        p,
    )
    p = _pw("config/rclone")
    add("config/wpa-supplicant", f'network={{\n    ssid="AcmeOffice"\n    psk="{p}"\n}}', p)

    # --- SQL ---------------------------------------------------------------------------------
    p = _pw("sql/mysql")
    add("sql/create-user", f"CREATE USER 'report'@'%' IDENTIFIED BY '{p}';\nGRANT SELECT ON shop.* TO 'report'@'%';", p)
    p = _pw("sql/pg")
    add("sql/alter-role", f"ALTER ROLE app WITH LOGIN PASSWORD '{p}';", p)
    p = _pw("sql/mssql")
    add("sql/mssql-login", f"CREATE LOGIN etl WITH PASSWORD = '{p}', CHECK_POLICY = OFF;", p)
    p = _pw("sql/insert")
    add("sql/insert-plaintext", f"INSERT INTO users (email, password) VALUES ('ops@acme.io', '{p}');", p)

    # --- code ------------------------------------------------------------------------------------
    p = _pw("code/python-kw")
    add("code/python-connect", f"conn = psycopg2.connect(host='db', user='app', password='{p}', dbname='orders')", p)
    p = _pw("code/js")
    add(
        "code/js-object",
        f"const transporter = nodemailer.createTransport({{\n  auth: {{ user: 'alerts@acme.io', pass: '{p}' }},\n}});",
        p,
    )
    p = _pw("code/go")
    add("code/go-const", f'const adminPassword = "{p}"', p)
    p = _pw("code/java")
    add("code/java", f'ds.setPassword("{p}");', p)
    p = _pw("code/csharp")
    add("code/csharp", f'var cred = new NetworkCredential("svc_mail", "{p}");', p)
    p = _pw("code/ruby")
    add("code/ruby", f"Net::SMTP.start('smtp.acme.io', 587, 'acme.io', 'alerts', '{p}', :login)", p)
    p = _pw("code/rust")
    add("code/rust", f'let client = Client::new().basic_auth("ci", Some("{p}"));', p)
    p = _pw("code/shell")
    add("code/shell-var", f"#!/bin/bash\nDB_PASS='{p}'\nmysql -u app -p\"$DB_PASS\" -e 'show tables'", p)
    api = _s("code/apikey", 40)
    add("code/generic-api-key", f'API_KEY = "{api}"  # TODO move to env', api)
    hdr = _s("code/header", 36)
    add("code/requests-header", f"requests.get(url, headers={{'X-API-Key': '{hdr}'}})", hdr)

    # --- logs and stack traces ---------------------------------------------------------------
    p = _pw("logs/traceback")
    add(
        "logs/traceback-locals",
        'Traceback (most recent call last):\n  File "/app/db.py", line 42, in connect\n'
        f"    return psycopg.connect(dsn)\npsycopg.OperationalError: connection failed: dsn='host=db user=app password={p}'",
        p,
    )
    bearer = _s("logs/bearer", 64, _B64URL)
    add(
        "logs/http-debug",
        f"send: b'GET /v1/items HTTP/1.1\\r\\nHost: api.acme.io\\r\\nAuthorization: Bearer {bearer}\\r\\n\\r\\n'",
        bearer,
    )
    p = _pw("logs/java")
    add(
        "logs/java-exception",
        f'org.postgresql.util.PSQLException: FATAL: password authentication failed for user "app" (url=jdbc:postgresql://db/app?password={p})',
        p,
    )
    basic = base64.b64encode(f"admin:{_pw('logs/basic')}".encode()).decode()
    add(
        "logs/basic-auth-header",
        f"> GET /api/status HTTP/2\n> Host: grafana.acme.io\n> authorization: Basic {basic}\n> user-agent: curl/8.5.0",
        basic,
    )
    apik = _s("logs/json-log", 32, _HEX)
    add(
        "logs/json-log", json.dumps({"level": "debug", "msg": "outgoing request", "headers": {"x-api-key": apik}}), apik
    )

    # --- secrets split across lines ----------------------------------------------------------
    whole = "sk_live_51" + _s("split/stripe", 97)
    add(
        "split/python-concat",
        f'STRIPE_KEY = (\n    "{whole[:40]}"\n    "{whole[40:80]}"\n    "{whole[80:]}"\n)',
        whole[40:80],
    )
    whole2 = "ghp_" + _s("split/github", 36)
    add(
        "split/shell-continuation",
        f'TOKEN="{whole2[:20]}"\\\n"{whole2[20:]}"\ncurl -H "Authorization: token $TOKEN" https://api.github.com',
        whole2[:20],
    )
    p = _pw("split/prose", 18)
    add("split/chat-two-lines", f"password for the vpn:\n\n{p}\n\n(the user is jdoe)", p)

    # --- non-English surroundings for vendor keys -------------------------------------------
    de = "sk-ant-api03-" + _s("i18n/de", 93, _B64URL) + "AA"
    add("i18n/de-api-key", f"Hier ist mein API-Schlüssel: {de} – kannst du prüfen, warum der Aufruf fehlschlägt?", de)
    ja = "ghp_" + _s("i18n/ja", 36)
    add("i18n/ja-token", f"このトークン {ja} でpushできません。", ja)
    es = _s("i18n/es", 40, _B64)
    add("i18n/es-aws", f"mi clave secreta de AWS es {es}, ¿por qué falla?", es)
    fr = "xoxb-" + _s("i18n/fr1", 12, _DIGITS) + "-" + _s("i18n/fr2", 13, _DIGITS) + "-" + _s("i18n/fr3", 24)
    add("i18n/fr-slack", f"Voici le jeton du bot Slack : {fr}. Il ne marche plus depuis hier.", fr)
    zh = "hf_" + _s("i18n/zh", 34)
    add("i18n/zh-hf", f"我的 Hugging Face 令牌是 {zh}，下载私有模型时报 401", zh)

    return out


def _ordinary() -> list[str]:
    shas = [hashlib.sha1(f"blind6-commit-{i}".encode()).hexdigest() for i in range(6)]
    digests = [hashlib.sha256(f"blind6-file-{i}".encode()).hexdigest() for i in range(4)]
    ids = [
        f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"
        for h in (hashlib.md5(f"blind6-id-{i}".encode()).hexdigest() for i in range(4))
    ]
    plain_b64 = base64.b64encode(b'{"page": 2, "per_page": 50, "sort": "created_at"}').decode()
    texts = [
        # git and hashes
        f"The regression came in with commit {shas[0]}; reverting it fixes the flaky test.",
        f"git cherry-pick {shas[1][:12]} and then rerun the migrations.",
        f"HEAD is now at {shas[2][:7]} Merge pull request #412 from acme/fix-pagination",
        f"git bisect says the first bad commit is {shas[3]}.",
        f"$ git log --oneline -3\n{shas[4][:7]} docs: explain retry policy\n{shas[5][:7]} fix: handle empty token list\n{shas[0][:7]} feat: add password strength meter",
        f"sha256sum dist/acme-1.4.2.tar.gz\n{digests[0]}  dist/acme-1.4.2.tar.gz",
        f"The lockfile pins the wheel by hash: --hash=sha256:{digests[1]}",
        f"Docker image digest: ghcr.io/acme/api@sha256:{digests[2]}",
        f'ETag: "{digests[3][:32]}"',
        f"Request {ids[0]} timed out after 30s on the /orders endpoint.",
        f"user_id = UUID('{ids[1]}')  # the fixture user from conftest",
        f"Trace id {ids[2]} shows the span for the token refresh took 480 ms.",
        f"The migration file is alembic/versions/{shas[1][:12]}_add_api_keys_table.py",
        f"SELECT * FROM orders WHERE id = '{ids[3]}';",
        f"Cursor for the next page is {plain_b64} (it is just base64 of the query parameters).",
        "The integrity field in package-lock.json is sha512-, followed by base64; npm checks it after download.",
        "md5 of an empty file is d41d8cd98f00b204e9800998ecf8427e, which is why the cache key looked constant.",
        "The sha1 of the empty string, da39a3ee5e6b4b0d3255bfef95601890afd80709, showed up as the cache key.",
        # placeholders and documentation
        "Set OPENAI_API_KEY=<your-api-key> in your shell before running the example.",
        "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  # replace with your own token",
        "In the README, replace `YOUR_TOKEN_HERE` with a token from the settings page.",
        "api_key: ${API_KEY}  # injected by the deployment",
        "password: {{ vault_db_password }}",
        'DB_PASSWORD="${DB_PASSWORD:?must be set}"',
        "aws_secret_access_key = <redacted>",
        "Authorization: Bearer <token>",
        "STRIPE_SECRET_KEY=sk_test_... (get it from the dashboard, never commit it)",
        "curl -u USERNAME:PASSWORD https://api.example.com/v1/status",
        "mysql -u root -p  # it will prompt for the password",
        'psql "postgresql://app@localhost:5432/orders"',
        "DATABASE_URL=postgres://user:password@localhost:5432/dbname is the format the library expects.",
        "The token looks like `xoxb-...`; paste only the part after the prefix if the form asks for it.",
        "Use `gh auth login` and choose 'Paste an authentication token' when asked.",
        "Run `docker login` without -p so the password is read from the prompt instead of the shell history.",
        "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
        "password = getpass.getpass('Password: ')",
        "token = os.getenv('SLACK_BOT_TOKEN')\nif token is None:\n    raise SystemExit('set SLACK_BOT_TOKEN')",
        "api_key = settings.openai_api_key.get_secret_value()",
        "const apiKey = process.env.STRIPE_KEY ?? '';",
        'let password = std::env::var("DB_PASSWORD").expect("DB_PASSWORD not set");',
        'password := os.Getenv("REDIS_PASSWORD")',
        "- name: Deploy\n  env:\n    NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  run: npm publish",
        "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
        "vault kv get -field=password secret/data/prod/db",
        "kubectl create secret generic db-creds --from-env-file=.env.production",
        "kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d",
        "op read 'op://Private/Staging DB/password'",
        "The `.env` file is in .gitignore, so nothing in it gets committed.",
        "Rotate the key in the console, then update the secret in the CI settings; nothing else needs to change.",
        "ssh-keygen -t ed25519 -C 'dev@acme.io' -f ~/.ssh/id_ed25519",
        "cat ~/.ssh/id_ed25519.pub shows the public key; that one is safe to paste into GitHub.",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 is the start of every ed25519 public key line.",
        "-----BEGIN CERTIFICATE----- starts the public certificate; the private key lives in a separate file.",
        "The PEM header says -----BEGIN PUBLIC KEY-----, so this is the verification key, not the signing one.",
        # prose with the words
        "The password reset flow sends an email with a link that expires after 15 minutes.",
        "Passwords must be at least 12 characters and are hashed with argon2id before storage.",
        "We never log the token itself, only its last four characters and the user id.",
        "The secret sauce here is the LRU cache in front of the embedding call.",
        "Which key do you press to open the command palette in VS Code? Ctrl+Shift+P.",
        "The primary key of the table is (tenant_id, order_id).",
        "Tokenization splits the text into tokens before the model sees it; the limit is 8192 tokens.",
        "The lexer emits a TOKEN_STRING for every quoted literal.",
        "I forgot my password for the staging dashboard, can you reset it from the admin page?",
        "The API key field is optional when the server runs on localhost.",
        "The dictionary key 'password' is removed by the serializer before the response goes out.",
        "Don't put secrets in the repository; use the secret manager instead.",
        "Our threat model assumes the attacker can read the logs but not the key store.",
        "The password field now shows a strength meter and a show/hide toggle.",
        "Access tokens live for one hour and refresh tokens for thirty days.",
        "Secret scanning caught the leak within minutes, and the key was revoked.",
        "The word 'token' is overloaded: an auth token, a lexer token, and an LLM token are all different things.",
        "Remember to escape the backslash in the regex key pattern.",
        "A 401 here means the token expired; a 403 means it lacks the repo scope.",
        "The login form posts username and password to /session over HTTPS.",
        "passwordless login via magic links is on the roadmap for Q2",
        # code without secrets
        "def hash_password(password: str) -> str:\n    return argon2.PasswordHasher().hash(password)",
        "def verify(token: str) -> Claims:\n    return jwt.decode(token, key, algorithms=['RS256'])",
        "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:\n        self.tokens = capacity",
        "if not secrets.compare_digest(provided, expected):\n    raise PermissionError('bad signature')",
        "api_key = secrets.token_urlsafe(32)  # generated per user at signup",
        "assert response.json()['error'] == 'invalid_password'",
        "def test_rejects_short_password():\n    with pytest.raises(ValueError):\n        validate_password('abc')",
        "fixtures/users.json has a field password_hash for each test user",
        "PASSWORD_MIN_LENGTH = 12\nPASSWORD_MAX_LENGTH = 128",
        "TOKEN_TTL_SECONDS = 3600",
        "SECRET_NAME = 'prod/api/stripe'",
        "KEY_PREFIX = 'cache:v2:'",
        "private_key_path = Path.home() / '.ssh' / 'id_rsa'",
        "with open('secrets.yaml') as fh:\n    config = yaml.safe_load(fh)",
        "headers = {'Authorization': f'Bearer {token}'}",
        "req.headers['x-api-key'] = config.apiKey;",
        "if (password !== confirmPassword) { setError('Passwords do not match'); }",
        '<input type="password" name="password" autocomplete="current-password" required>',
        "UPDATE users SET password_hash = $1, password_changed_at = now() WHERE id = $2;",
        "CREATE TABLE api_keys (id uuid primary key, prefix text not null, hash bytea not null, created_at timestamptz);",
        "ALTER TABLE users ADD COLUMN reset_token_expires_at timestamptz;",
        "grep -rn 'password' src/ | grep -v test",
        "rg -i 'api[_-]?key' --type py",
        "SECRET_PATTERN = re.compile(r'(?i)(api[_-]?key|secret|token)\\s*[:=]\\s*\\S+')",
        "re.compile(r'^[A-Za-z0-9+/]{40}$')",
        "pattern: '^ghp_[A-Za-z0-9]{36}$'",
        "The validator accepts /^sk-[A-Za-z0-9]{20,}$/ and rejects everything else.",
        "for key, value in sorted(env.items()):\n    print(key, '=', '***' if 'PASS' in key else value)",
        "mask = lambda s: s[:4] + '*' * (len(s) - 4)",
        "logger.info('login ok for user=%s', user.id)",
        "raise AuthError('token expired at %s' % exp)",
        "except InvalidTokenError:\n    return JSONResponse({'detail': 'invalid token'}, status_code=401)",
        "@app.post('/token')\nasync def login(form: OAuth2PasswordRequestForm = Depends()) -> Token:",
        "oauth2_scheme = OAuth2PasswordBearer(tokenUrl='token')",
        "const [password, setPassword] = useState('');",
        'public static final String PASSWORD_PARAM = "password";',
        'type Credentials struct {\n    Username string `json:"username"`\n    Password string `json:"password"`\n}',
        "interface LoginRequest { email: string; password: string }",
        "keyring.get_password('acme-cli', username)",
        "git config --global credential.helper osxkeychain",
        "echo $GITHUB_TOKEN | wc -c  # check the variable is set, without printing it",
        # identifiers, versions, paths, colours
        "Upgrade to fastapi==0.115.6 and starlette 0.41.3 to get the fix.",
        "python 3.12.7, node v22.11.0, go1.23.3 linux/amd64",
        "The wheel is acme_core-2.14.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        'File "/usr/lib/python3.12/site-packages/urllib3/connectionpool.py", line 789, in urlopen',
        "src/components/PasswordStrengthMeter/PasswordStrengthMeter.test.tsx",
        "kernel/auth/token_refresh_scheduler.py",
        "AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor is a real Spring class name pattern.",
        "test_refresh_token_is_rotated_after_use_and_old_one_rejected",
        "The button uses #1f6feb on hover and #0d1117 as the background.",
        "color: rgba(255, 255, 255, 0.87); background: hsl(210 40% 98%);",
        "--primary: oklch(0.62 0.19 259);",
        "The build id is 20261127.4 and the artifact is build-20261127.4-linux.tar.gz",
        "us-east-1, eu-west-1 and ap-southeast-2 are the regions we deploy to.",
        "arn:aws:iam::123456789012:role/ci-deployer",
        "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db",
        "projects/acme-analytics-prod/secrets/db-password/versions/latest",
        "The S3 bucket is s3://acme-reports-prod/2026/11/",
        "The service account is etl@acme-analytics-prod.iam.gserviceaccount.com",
        "The client id is 8123456789-abc.apps.googleusercontent.com; the client secret stays on the server.",
        "Azure tenant: contoso.onmicrosoft.com, subscription 'Production'.",
        "Listen on 0.0.0.0:8080 and proxy to 127.0.0.1:9000.",
        "The Stripe customer id cus_NffrFeUfNV2Hib and the charge id ch_3MmlLrLkdIwHu7ix0snN0B15 are test-mode object ids.",
        "pi_3Mtw...: payment intents have an id and a client_secret; only the id goes in our logs.",
        "The Slack channel id is C04ABCDEF12 and the user id is U01ABCD2EFG.",
        "The GitHub Actions run id is 11934526781, attempt 2.",
        "The Sentry issue ACME-API-3F9 links to the span.",
        "See https://github.com/acme/api/pull/412/files#diff-3a1f for the change.",
        "https://docs.python.org/3/library/secrets.html explains token_hex and token_urlsafe.",
        "https://example.com/search?q=password+manager&page=2",
        "https://api.example.com/v1/items?limit=50&cursor=abc123&sort=-created",
        "http://localhost:3000/auth/callback?code=PLACEHOLDER&state=xyz",
        "The docs at https://stripe.com/docs/keys say secret keys start with sk_live_ in live mode.",
        "GitHub says classic tokens start with ghp_ and fine-grained ones with github_pat_.",
        # logs without secrets
        "2026-11-27T10:14:02Z INFO auth: token refreshed for user 1842 (expires in 3600s)",
        "2026-11-27 10:15:11 WARN password policy check failed for user 77: too short",
        'ERROR: password authentication failed for user "app"',
        'FATAL:  no pg_hba.conf entry for host "10.0.3.7", user "app", database "orders", SSL off',
        '401 Unauthorized: {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}',
        "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
        "jwt.exceptions.ExpiredSignatureError: Signature has expired",
        "KeyError: 'api_key'",
        'npm ERR! code E401\nnpm ERR! Unable to authenticate, need: Basic realm="GitHub Package Registry"',
        "Warning: Permanently added 'github.com' (ED25519) to the list of known hosts.",
        "Enter passphrase for key '/home/dev/.ssh/id_ed25519':",
        "Password for 'https://jdoe@github.com':",
        "sudo: 3 incorrect password attempts",
        "PASSED tests/unit/test_tokens.py::test_token_expiry_is_respected",
        "FAILED tests/unit/test_password.py::test_hash_roundtrip - AssertionError: assert False",
        "GET /api/v1/users/1842?include=roles 200 14ms",
        "The response had 'Set-Cookie: theme=dark; Path=/; SameSite=Lax', nothing else.",
        # configs without secrets
        "[tool.ruff]\nline-length = 100\ntarget-version = 'py312'",
        "services:\n  api:\n    image: ghcr.io/acme/api:1.4.2\n    ports:\n      - '8080:8080'",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-creds\n        key: password",
        'resource "aws_secretsmanager_secret" "db" {\n  name = "prod/db"\n}',
        'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
        '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n[remote "origin"]\n\turl = git@github.com:acme/api.git',
        "auth:\n  provider: oidc\n  issuer: https://auth.acme.io\n  audience: api",
        "cache:\n  key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}",
        "spring.datasource.url=jdbc:postgresql://db:5432/app",
        "password_policy:\n  min_length: 12\n  require_symbol: true\n  max_age_days: 90",
        # non-English ordinary
        "Le mot de passe doit contenir au moins douze caractères, dont un chiffre.",
        "Das Passwort wird mit bcrypt gehasht und nie im Klartext gespeichert.",
        "La contraseña se restablece desde la página de perfil.",
        "A senha expira a cada noventa dias por política da empresa.",
        "パスワードを忘れた場合は、管理者に連絡してください。",
        "请在设置页面中生成新的访问令牌。",
        "Пароль должен содержать не менее 12 символов.",
        "Het wachtwoord wordt nooit in de logbestanden geschreven.",
        "Il token scade dopo un'ora; il client lo rinnova da solo.",
        "비밀번호는 최소 12자 이상이어야 합니다.",
        # misc near-misses
        "The test uses the fixture password 'password' only against the in-memory fake, never a real server.",
        "assert mask('abcd1234') == 'abcd****'",
        "Base64 of 'hello world' is aGVsbG8gd29ybGQ=.",
        "data:image/png;base64,iVBORw0KGgo= is the start of an inline PNG.",
        "0xDEADBEEF and 0xCAFEBABE are the magic numbers in the fixture.",
        "Use `secrets.token_hex(16)` rather than `random` for anything security related.",
        "The HMAC is computed over the raw body with the webhook secret; compare it with compare_digest.",
        "JWTs have three base64url parts separated by dots: header, payload, signature.",
        "A refresh token should be stored in an httpOnly cookie, not in localStorage.",
        "The OAuth flow: redirect, code, exchange code for token, call the API.",
        "Rate limit: 5000 requests per hour per token.",
        "Our keys are rotated every 90 days by the scheduler in infra/rotation.",
        "The password manager we use is Bitwarden; ask IT for an invite.",
    ]
    return texts


BLIND6_SECRETS: list[Secret] = _secrets()
BLIND6_ORDINARY: list[str] = _ordinary()
