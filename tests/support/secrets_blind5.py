"""Fifth held-out secrets corpus, written blind.

Its author read none of the redaction rules, none of the earlier corpora and none of their tests;
only the ``Secret`` structure (and the ``family_of`` convention) and the docstring of
``kernel.privacy.redact``.  It must never be used to tune rules: a rule written to catch one of
these forms makes the figure it gives meaningless.  Its tests only measure.

Every value is made up from a deterministic hashlib stream seeded with ``blind5:``, with the
prefixes, lengths and character sets of the real formats; none is a live credential.  The
ordinary texts contain no secret but sit near them: a good redactor leaves them unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_ALNUM = ALNUM
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_LOWER_ALPHA = "abcdefghijklmnopqrstuvwxyz"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
_B32L = "abcdefghijklmnopqrstuvwxyz234567"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_DIGITS = "0123456789"
_PW = _ALNUM + "!#%*+-.=?@^_~"


_DRAW = SeededDraw("blind5")  # this corpus's own stream of random-looking values
_s = _DRAW.chars
_bytes = _DRAW.raw
_b64 = _DRAW.b64
_b64u = b64url_text


def _pw(seed: str, n: int = 14) -> str:
    """A password a person might choose: mixed case, digits and a symbol or two."""
    body = _s(seed, n - 3, _PW)
    return body[:4] + _s(seed + "d", 1, _DIGITS) + _s(seed + "p", 1, "!#%@*") + body[4:] + "9"


def _uuid(seed: str) -> str:
    h = _s(seed, 32, _HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _jwt(seed: str, claims: dict[str, object], alg: str = "HS256") -> str:
    header = _b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")))
    payload = _b64u(json.dumps(claims, separators=(",", ":")))
    sig_len = 43 if alg.startswith("HS") else 342
    return f"{header}.{payload}.{_s(seed, sig_len, _B64URL)}"


def _pem_lines(seed: str, first: str, lines: int) -> list[str]:
    body = first + _s(seed, 64 * lines - len(first), _B64)
    return [body[i : i + 64] for i in range(0, len(body), 64)]


def _pem(kind: str, seed: str, first: str, lines: int = 6) -> tuple[str, str]:
    """A PEM block and one body line of it (the needle)."""
    body = _pem_lines(seed, first, lines)
    text = "\n".join([f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"])
    return text, body[2]


def family_of(name: str) -> str:
    """The family a form belongs to: the part of its name before the slash."""
    return name.split("/", 1)[0]


def _secrets() -> list[Secret]:
    out: list[Secret] = []

    def add(name: str, text: str, needle: str) -> None:
        out.append(Secret(name=name, text=text, needle=needle))

    # ---- aws -------------------------------------------------------------------------------
    def akia(seed: str) -> str:
        return "AKIA" + _s(seed, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    def aws_secret(seed: str) -> str:
        return _s(seed, 40, _B64)

    k = aws_secret("aws-file")
    add(
        "aws/credentials-file",
        f"[default]\naws_access_key_id = {akia('aws-file')}\naws_secret_access_key = {k}\n"
        "region = eu-west-1\n\n[readonly]\nrole_arn = arn:aws:iam::123456789012:role/ReadOnly\n"
        "source_profile = default",
        k,
    )
    kid = akia("aws-history")
    add(
        "aws/access-key-id-history",
        f"  511  cd infra/terraform\n  512  export AWS_ACCESS_KEY_ID={kid}\n  513  terraform plan",
        kid,
    )
    k = aws_secret("aws-sts")
    tok = "IQoJb3JpZ2luX2VjE" + _s("aws-sts-token", 340, _B64)
    add(
        "aws/sts-assume-role-secret",
        '{\n    "Credentials": {\n        "AccessKeyId": "ASIA' + _s("aws-sts-id", 16, _UPPER) + '",\n'
        f'        "SecretAccessKey": "{k}",\n        "SessionToken": "{tok}",\n'
        '        "Expiration": "2026-11-27T15:12:09+00:00"\n    }\n}',
        k,
    )
    tok = "IQoJb3JpZ2luX2VjEJr" + _s("aws-session", 300, _B64)
    add(
        "aws/session-token-env",
        f"export AWS_SESSION_TOKEN='{tok}'",
        tok,
    )
    k = aws_secret("aws-boto3")
    add(
        "aws/boto3-client",
        "s3 = boto3.client(\n    's3',\n"
        f"    aws_access_key_id='{akia('aws-boto3')}',\n    aws_secret_access_key='{k}',\n)",
        k,
    )
    k = aws_secret("aws-java")
    add(
        "aws/java-basic-credentials",
        f'AWSCredentials creds = new BasicAWSCredentials(\n        "{akia("aws-java")}", "{k}");',
        k,
    )
    k = aws_secret("aws-docker")
    add(
        "aws/docker-run-env",
        f"docker run --rm -e AWS_ACCESS_KEY_ID={akia('aws-docker')} -e AWS_SECRET_ACCESS_KEY={k} "
        "amazon/aws-cli s3 ls s3://build-artifacts",
        k,
    )
    k = aws_secret("aws-s3cfg")
    add(
        "aws/s3cfg",
        f"[default]\naccess_key = {akia('aws-s3cfg')}\nsecret_key = {k}\nhost_base = s3.amazonaws.com\n"
        "use_https = True",
        k,
    )
    k = aws_secret("aws-tf")
    add(
        "aws/terraform-provider",
        f'provider "aws" {{\n  region     = "us-east-2"\n  access_key = "{akia("aws-tf")}"\n  secret_key = "{k}"\n}}',
        k,
    )
    k = aws_secret("aws-iam")
    add(
        "aws/iam-create-access-key",
        '$ aws iam create-access-key --user-name ci-deployer\n{\n    "AccessKey": {\n'
        '        "UserName": "ci-deployer",\n'
        f'        "AccessKeyId": "{akia("aws-iam")}",\n        "Status": "Active",\n'
        f'        "SecretAccessKey": "{k}",\n        "CreateDate": "2026-11-27T09:14:31+00:00"\n'
        "    }\n}",
        k,
    )
    k = aws_secret("aws-prose")
    add(
        "aws/chat-prose",
        f"new creds for the demo account: key id {akia('aws-prose')}, secret {k} - I'll rotate them after friday",
        k,
    )

    # ---- gcp -------------------------------------------------------------------------------
    pk_lines = _pem_lines("gcp-sa", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 8)
    add(
        "gcp/service-account-json",
        '{\n  "type": "service_account",\n  "project_id": "acme-prod-3141",\n'
        f'  "private_key_id": "{_s("gcp-sa-id", 40, _HEX)}",\n'
        '  "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + "\\n".join(pk_lines)
        + '\\n-----END PRIVATE KEY-----\\n",\n'
        '  "client_email": "deployer@acme-prod-3141.iam.gserviceaccount.com",\n'
        '  "client_id": "104857392018374650192"\n}',
        pk_lines[3],
    )
    k = "AIza" + _s("gcp-maps", 35, _B64URL)
    add(
        "gcp/api-key-in-url",
        f'curl "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={k}"',
        k,
    )
    k = "AIza" + _s("gcp-android", 35, _B64URL)
    add(
        "gcp/api-key-android-manifest",
        f'<meta-data\n    android:name="com.google.android.geo.API_KEY"\n    android:value="{k}" />',
        k,
    )
    k = "GOCSPX-" + _s("gcp-oauth", 28, _B64URL)
    add(
        "gcp/oauth-client-secret-json",
        '{"installed":{"client_id":"381920485731-q8v2ltr0k3c1bd9d.apps.googleusercontent.com",'
        '"project_id":"acme-desktop","auth_uri":"https://accounts.google.com/o/oauth2/auth",'
        f'"client_secret":"{k}","redirect_uris":["http://localhost"]}}}}',
        k,
    )
    k = "ya29.a0AfB_by" + _s("gcp-ya29", 180, _B64URL)
    add("gcp/access-token-cli", f"$ gcloud auth print-access-token\n{k}\n$ ", k)
    k = "1//0g" + _s("gcp-refresh", 98, _B64URL)
    add(
        "gcp/adc-refresh-token",
        '{\n  "client_id": "320517094826-k2b7xq9rv0m5.apps.googleusercontent.com",\n'
        f'  "client_secret": "{_s("gcp-adc-cs", 24, _B64URL)}",\n  "refresh_token": "{k}",\n'
        '  "type": "authorized_user"\n}',
        k,
    )
    k = "AIza" + _s("gcp-gemini", 35, _B64URL)
    add("gcp/gemini-env", f"GEMINI_API_KEY={k}\nGEMINI_MODEL=gemini-1.5-pro", k)

    # ---- azure -----------------------------------------------------------------------------
    k = _b64("az-storage", 64)
    add(
        "azure/storage-connection-string",
        f"DefaultEndpointsProtocol=https;AccountName=stacmeprodlogs;AccountKey={k};EndpointSuffix=core.windows.net",
        k,
    )
    sig = _b64("az-sas", 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    add(
        "azure/sas-url",
        "https://stacmebackups.blob.core.windows.net/nightly/db-2026-11-26.bak?sv=2022-11-02"
        "&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&st=2026-11-26T00:00:00Z&spr=https"
        f"&sig={sig}",
        sig,
    )
    k = _s("az-cs", 3, _ALNUM) + "8Q~" + _s("az-cs2", 34, _ALNUM + "._~-")
    add("azure/client-secret-env", f"AZURE_TENANT_ID={_uuid('az-t')}\nAZURE_CLIENT_SECRET={k}", k)
    k = _s("az-rbac", 3, _ALNUM) + "8Q~" + _s("az-rbac2", 34, _ALNUM + "._~-")
    add(
        "azure/sp-create-for-rbac",
        "$ az ad sp create-for-rbac --name gh-actions-deployer --role contributor\n{\n"
        f'  "appId": "{_uuid("az-app")}",\n  "displayName": "gh-actions-deployer",\n'
        f'  "password": "{k}",\n  "tenant": "{_uuid("az-ten")}"\n}}',
        k,
    )
    k = _b64("az-sb", 32)
    add(
        "azure/service-bus",
        "Endpoint=sb://acme-events.servicebus.windows.net/;"
        f"SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={k}",
        k,
    )
    k = _s("az-devops", 52, "abcdefghijklmnopqrstuvwxyz234567")
    add(
        "azure/devops-pat-clone",
        f"git clone https://build:{k}@dev.azure.com/acme/Platform/_git/platform-api",
        k,
    )
    k = _b64("az-cosmos", 64)
    add(
        "azure/cosmos-connection",
        f"AccountEndpoint=https://acme-orders.documents.azure.com:443/;AccountKey={k};",
        k,
    )
    k = _s("az-apps", 3, _ALNUM) + "7Q~" + _s("az-apps2", 34, _ALNUM + "._~-")
    add(
        "azure/appsettings-json",
        '{\n  "AzureAd": {\n    "Instance": "https://login.microsoftonline.com/",\n'
        f'    "ClientId": "{_uuid("az-cid")}",\n    "ClientSecret": "{k}"\n  }}\n}}',
        k,
    )

    # ---- github ----------------------------------------------------------------------------
    k = "ghp_" + _s("gh-env", 36)
    add("github/classic-pat-env", f"GITHUB_TOKEN={k}", k)
    k = "github_pat_11A" + _s("gh-fg", 19, _UPPER) + "_" + _s("gh-fg2", 59)
    add("github/fine-grained-pat", f"gh auth login --with-token <<< {k}", k)
    k = "gho_" + _s("gh-hosts", 36)
    add(
        "github/gh-hosts-yml",
        f"github.com:\n    user: octo-dev\n    oauth_token: {k}\n    git_protocol: ssh",
        k,
    )
    k = "ghs_" + _s("gh-remote", 36)
    add(
        "github/installation-token-remote",
        f"$ git remote -v\norigin\thttps://x-access-token:{k}@github.com/acme/platform.git (fetch)\n"
        f"origin\thttps://x-access-token:{k}@github.com/acme/platform.git (push)",
        k,
    )
    k = "ghr_" + _s("gh-refresh", 76)
    add(
        "github/refresh-token-json",
        f'{{"access_token":"ghu_{_s("gh-acc", 36)}","expires_in":28800,"refresh_token":"{k}",'
        '"refresh_token_expires_in":15811200,"scope":"","token_type":"bearer"}',
        k,
    )
    k = "ghu_" + _s("gh-ghu", 36)
    add(
        "github/python-header",
        f'resp = requests.get(url, headers={{"Authorization": "token {k}", "Accept": "application/vnd.github+json"}})',
        k,
    )
    k = "ghp_" + _s("gh-npmrc", 36)
    add(
        "github/npmrc-registry",
        f"@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={k}",
        k,
    )
    k = "ghp_" + _s("gh-ci", 36)
    add(
        "github/actions-log",
        "2026-11-27T10:02:11.4821937Z ##[group]Run curl -sSf \\\n"
        f'2026-11-27T10:02:11.4822101Z   -H "Authorization: token {k}" \\\n'
        "2026-11-27T10:02:11.4822260Z   https://api.github.com/repos/acme/platform/releases",
        k,
    )

    # ---- gitlab ----------------------------------------------------------------------------
    k = "glpat-" + _s("gl-pat", 20, _B64URL)
    add("gitlab/pat-header", f'curl --header "PRIVATE-TOKEN: {k}" "https://gitlab.com/api/v4/projects"', k)
    k = "gldt-" + _s("gl-deploy", 20, _B64URL)
    add(
        "gitlab/deploy-token-docker",
        f"docker login registry.gitlab.com -u gitlab+deploy-token-4821 -p {k}",
        k,
    )
    k = "glrt-" + _s("gl-runner", 20, _B64URL)
    add(
        "gitlab/runner-config-toml",
        f'[[runners]]\n  name = "build-01"\n  url = "https://gitlab.acme.io/"\n  token = "{k}"\n  executor = "docker"',
        k,
    )
    k = "GR1348941" + _s("gl-reg", 20, _B64URL)
    add(
        "gitlab/registration-token",
        "sudo gitlab-runner register --non-interactive --url https://gitlab.acme.io/ "
        f'--registration-token "{k}" --executor shell',
        k,
    )
    k = "glptt-" + _s("gl-trigger", 40, _HEX)
    add(
        "gitlab/trigger-token",
        f"curl -X POST --fail -F token={k} -F ref=main https://gitlab.com/api/v4/projects/48213/trigger/pipeline",
        k,
    )

    # ---- slack -----------------------------------------------------------------------------
    k = f"xoxb-{_s('sl-b1', 13, _DIGITS)}-{_s('sl-b2', 13, _DIGITS)}-{_s('sl-b3', 24)}"
    add("slack/bot-token-env", f"SLACK_BOT_TOKEN={k}\nSLACK_CHANNEL=#deploys", k)
    k = f"xoxp-{_s('sl-p1', 12, _DIGITS)}-{_s('sl-p2', 12, _DIGITS)}-{_s('sl-p3', 13, _DIGITS)}-{_s('sl-p4', 32, _HEX)}"
    add("slack/user-token-python", f'client = WebClient(token="{k}")', k)
    k = f"T{_s('sl-w1', 8, _UPPER)}/B{_s('sl-w2', 10, _UPPER)}/{_s('sl-w3', 24)}"
    add(
        "slack/incoming-webhook",
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' "
        f"https://hooks.slack.com/services/{k}",
        k,
    )
    k = f"xapp-1-A{_s('sl-a1', 10, _UPPER)}-{_s('sl-a2', 13, _DIGITS)}-{_s('sl-a3', 64, _HEX)}"
    add("slack/app-level-token", f'app = App(token=bot_token)\nSocketModeHandler(app, "{k}").start()', k)
    k = _s("sl-sign", 32, _HEX)
    add("slack/signing-secret", f"SLACK_SIGNING_SECRET={k}", k)

    # ---- stripe ----------------------------------------------------------------------------
    k = "sk_live_51" + _s("st-live", 97)
    add("stripe/live-key-curl", f"curl https://api.stripe.com/v1/charges -u {k}: -d limit=3", k)
    k = "rk_live_51" + _s("st-rk", 97)
    add("stripe/restricted-key-env", f"STRIPE_RESTRICTED_KEY={k}", k)
    k = "whsec_" + _s("st-whsec", 32)
    add(
        "stripe/cli-listen",
        "$ stripe listen --forward-to localhost:4242/webhook\n"
        f"> Ready! You are using Stripe API Version [2024-06-20]. Your webhook signing secret is {k} "
        "(^C to quit)",
        k,
    )
    k = "sk_test_51" + _s("st-test", 97)
    add("stripe/ruby-api-key", f"Stripe.api_key = '{k}'", k)

    # ---- ai --------------------------------------------------------------------------------
    k = "sk-proj-" + _s("ai-oa1", 74, _B64URL) + "T3BlbkFJ" + _s("ai-oa2", 74, _B64URL)
    add("ai/openai-constructor", f'client = OpenAI(api_key="{k}")', k)
    k = "sk-ant-api03-" + _s("ai-ant", 93, _B64URL) + "AA"
    add("ai/anthropic-env", f"export ANTHROPIC_API_KEY={k}", k)
    k = "hf_" + _s("ai-hf", 34)
    add("ai/huggingface-cli", f"$ huggingface-cli login --token {k} --add-to-git-credential", k)
    k = "r8_" + _s("ai-rep", 37)
    add("ai/replicate-env", f"REPLICATE_API_TOKEN={k}", k)
    k = "gsk_" + _s("ai-groq", 52)
    add("ai/groq-python", f'client = Groq(api_key="{k}")', k)
    k = "pplx-" + _s("ai-pplx", 48, _HEX)
    add("ai/perplexity-header", f'-H "Authorization: Bearer {k}"', k)
    k = "sk-or-v1-" + _s("ai-or", 64, _HEX)
    add(
        "ai/openrouter-ts",
        f'const openai = new OpenAI({{ baseURL: "https://openrouter.ai/api/v1", apiKey: "{k}" }});',
        k,
    )
    k = "xai-" + _s("ai-xai", 80)
    add("ai/xai-env", f"XAI_API_KEY={k}", k)
    k = "pcsk_" + _s("ai-pc1", 6) + "_" + _s("ai-pc2", 63)
    add("ai/pinecone-constructor", f'pc = Pinecone(api_key="{k}")', k)
    k = "lsv2_pt_" + _s("ai-ls1", 32, _HEX) + "_" + _s("ai-ls2", 10, _HEX)
    add("ai/langsmith-env", f"LANGCHAIN_TRACING_V2=true\nLANGCHAIN_API_KEY={k}", k)
    k = _s("ai-cohere", 40)
    add("ai/cohere-env", f"CO_API_KEY={k}", k)
    k = _s("ai-mistral", 32)
    add("ai/mistral-python", f'client = Mistral(api_key="{k}")', k)
    k = _s("ai-wandb", 40, _HEX)
    add("ai/wandb-netrc", f"machine api.wandb.ai\n  login user\n  password {k}", k)
    k = "sk-" + _s("ai-deepseek", 32, _HEX)
    add("ai/deepseek-chat", f"here's my deepseek key if you want to test: {k}", k)

    # ---- registry --------------------------------------------------------------------------
    k = "npm_" + _s("rg-npm", 36)
    add("registry/npm-token-npmrc", f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={k}", k)
    k = base64.b64encode(f"ci-bot:{_pw('rg-npmauth', 16)}".encode()).decode()
    add(
        "registry/npmrc-legacy-auth",
        f"registry=https://artifacts.acme.io/api/npm/npm-virtual/\n_auth={k}\nalways-auth=true\nemail=ci-bot@acme.io",
        k,
    )
    k = "pypi-AgEIcHlwaS5vcmc" + _s("rg-pypi", 160, _B64URL)
    add(
        "registry/pypirc",
        f"[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = {k}",
        k,
    )
    k = "pypi-AgENdGVzdC5weXBpLm9yZw" + _s("rg-testpypi", 150, _B64URL)
    add("registry/twine-command", f"twine upload --repository testpypi -u __token__ -p {k} dist/*", k)
    k = "rubygems_" + _s("rg-gem", 48, _HEX)
    add("registry/gem-credentials", f"---\n:rubygems_api_key: {k}", k)
    k = "oy2" + _s("rg-nuget", 43, _LOWER)
    add(
        "registry/nuget-push",
        f"dotnet nuget push bin/Release/Acme.Core.3.2.0.nupkg --api-key {k} "
        "--source https://api.nuget.org/v3/index.json",
        k,
    )
    k = base64.b64encode(f"acmebuild:{_pw('rg-dockercfg', 18)}".encode()).decode()
    add(
        "registry/docker-config-json",
        f'{{\n\t"auths": {{\n\t\t"registry.acme.io": {{\n\t\t\t"auth": "{k}"\n\t\t}}\n\t}}\n}}',
        k,
    )
    k = "dckr_pat_" + _s("rg-dckr", 27, _B64URL)
    add("registry/docker-hub-pat", f"echo {k} | docker login -u acmebuild --password-stdin", k)
    k = "cio" + _s("rg-crates", 32)
    add("registry/cargo-credentials", f'[registry]\ntoken = "{k}"', k)
    k = "AKCp8" + _s("rg-jfrog", 68)
    add(
        "registry/artifactory-api-key",
        f'curl -H "X-JFrog-Art-Api: {k}" -T build.zip "https://acme.jfrog.io/artifactory/generic-local/build.zip"',
        k,
    )
    k = _pw("rg-maven", 16)
    add(
        "registry/maven-settings",
        "<settings>\n  <servers>\n    <server>\n      <id>acme-releases</id>\n"
        f"      <username>deployer</username>\n      <password>{k}</password>\n"
        "    </server>\n  </servers>\n</settings>",
        k,
    )
    k = _pw("rg-gradle", 15)
    add("registry/gradle-properties", f"ossrhUsername=acme-release\nossrhPassword={k}\nsigning.keyId=4F2A91C3", k)

    # ---- database --------------------------------------------------------------------------
    k = _pw("db-pg", 16).replace("@", "Q").replace("#", "Z").replace("%", "x")
    add("database/postgres-url", f"DATABASE_URL=postgres://app_rw:{k}@db.internal.acme.io:5432/orders", k)
    k = _pw("db-mysql", 14).replace("@", "A").replace("#", "H").replace("%", "p")
    add(
        "database/sqlalchemy-mysql",
        f'engine = create_engine("mysql+pymysql://reporting:{k}@10.0.3.17:3306/analytics?charset=utf8mb4")',
        k,
    )
    k = _s("db-mongo", 20)
    add(
        "database/mongodb-srv",
        f"MONGO_URI=mongodb+srv://api-service:{k}@cluster0.x8k2p.mongodb.net/prod?retryWrites=true&w=majority",
        k,
    )
    k = _s("db-redis", 32)
    add(
        "database/redis-url",
        f"REDIS_URL=rediss://default:{k}@redis-18231.c12.us-east-1-4.ec2.cloud.redislabs.com:18231",
        k,
    )
    k = _s("db-amqp", 18)
    add("database/amqp-url", f"CELERY_BROKER_URL=amqp://celery:{k}@rabbitmq.svc.cluster.local:5672/prod", k)
    k = _pw("db-jdbc", 14).replace("&", "k")
    add(
        "database/jdbc-param",
        f"jdbc:sqlserver://sql01.corp.local:1433;databaseName=Billing;user=billing_app;password={k};encrypt=true",
        k,
    )
    k = _pw("db-dotnet", 15).replace(";", "s")
    add(
        "database/dotnet-connection-string",
        '"ConnectionStrings": {\n    "Default": "Server=tcp:acme-sql.database.windows.net,1433;'
        f'Initial Catalog=shop;User ID=shopadmin;Password={k};MultipleActiveResultSets=False;"\n  }}',
        k,
    )
    k = _pw("db-pgpass", 14).replace(":", "c")
    add("database/pgpass-line", f"# ~/.pgpass\ndb.internal.acme.io:5432:*:etl_user:{k}", k)
    k = _pw("db-pgenv", 13).replace("'", "q")
    add("database/pgpassword-history", f"PGPASSWORD='{k}' psql -h 10.20.0.5 -U postgres -d warehouse -c '\\dt'", k)
    k = _pw("db-mysqlcli", 13).replace("'", "q")
    add("database/mysql-cli", f"mysql -h 127.0.0.1 -u root -p'{k}' shop < dump.sql", k)
    k = _s("db-rediscli", 24)
    add("database/redis-cli", f"redis-cli -h cache.internal -p 6379 -a {k} --no-auth-warning INFO memory", k)
    k = _pw("db-django", 16).replace("'", "q")
    add(
        "database/django-settings",
        "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n"
        "        'NAME': 'crm',\n        'USER': 'crm',\n"
        f"        'PASSWORD': '{k}',\n        'HOST': 'pg.internal',\n    }}\n}}",
        k,
    )
    k = _pw("db-spring", 15)
    add(
        "database/spring-properties",
        "spring.datasource.url=jdbc:postgresql://pg-primary:5432/inventory\n"
        f"spring.datasource.username=inventory\nspring.datasource.password={k}",
        k,
    )
    k = _pw("db-snow", 16).replace('"', "w")
    add(
        "database/snowflake-connector",
        "conn = snowflake.connector.connect(\n    user='LOADER',\n"
        f"    password=\"{k}\",\n    account='xy12345.eu-central-1',\n    warehouse='LOAD_WH',\n)",
        k,
    )
    k = _s("db-elastic", 20)
    add("database/elastic-url", f"curl -s https://elastic:{k}@es01.acme.io:9200/_cluster/health?pretty", k)
    k = _pw("db-neo4j", 14).replace('"', "n")
    add("database/neo4j-driver", f'driver = GraphDatabase.driver("neo4j://graph:7687", auth=("neo4j", "{k}"))', k)
    k = _pw("db-alter", 14).replace("'", "r")
    add("database/sql-alter-user", f"ALTER USER 'grafana_ro'@'%' IDENTIFIED BY '{k}';\nFLUSH PRIVILEGES;", k)
    k = _pw("db-role", 15).replace("'", "r")
    add("database/sql-create-role", f"CREATE ROLE metabase WITH LOGIN PASSWORD '{k}' VALID UNTIL '2027-01-01';", k)
    k = _pw("db-mssql", 14)
    add("database/sqlcmd", f'sqlcmd -S tcp:10.1.4.20,1433 -U sa -P {k} -Q "SELECT @@VERSION"', k)
    k = _pw("db-pct", 12)
    enc = k.replace("%", "%25").replace("@", "%40").replace("#", "%23").replace("!", "%21").replace("*", "%2A")
    add(
        "database/percent-encoded-url",
        f"SQLALCHEMY_DATABASE_URI=postgresql+psycopg2://svc_api:{enc}@pg.acme.internal/api",
        enc,
    )

    # ---- privatekey ------------------------------------------------------------------------
    text, needle = _pem("RSA PRIVATE KEY", "pk-rsa", "MIIEowIBAAKCAQEA", 12)
    add("privatekey/rsa-pem", text, needle)
    text, needle = _pem(
        "OPENSSH PRIVATE KEY", "pk-ossh", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 5
    )
    add("privatekey/openssh", "$ cat ~/.ssh/id_ed25519\n" + text, needle)
    text, needle = _pem("EC PRIVATE KEY", "pk-ec", "MHcCAQEEI", 3)
    add("privatekey/ec-pem", text, needle)
    text, needle = _pem("PRIVATE KEY", "pk-pkcs8", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ", 10)
    add("privatekey/pkcs8-pem", text, needle)
    text, needle = _pem("ENCRYPTED PRIVATE KEY", "pk-enc", "MIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQI", 10)
    add("privatekey/encrypted-pkcs8", text, needle)
    text, needle = _pem("DSA PRIVATE KEY", "pk-dsa", "MIIBuwIBAAKBgQ", 6)
    add("privatekey/dsa-pem", text, needle)
    pgp = _pem_lines("pk-pgp", "lQdGBGVm", 8)
    add(
        "privatekey/pgp-armored",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(pgp)
        + "\n="
        + _s("pk-pgp-crc", 4, _B64)
        + "\n-----END PGP PRIVATE KEY BLOCK-----",
        pgp[3],
    )
    ppk = _pem_lines("pk-ppk", "AAABAQ", 6)
    add(
        "privatekey/putty-ppk",
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key-20261127\nPublic-Lines: 2\n"
        f"{_s('pk-ppk-pub', 64, _B64)}\n{_s('pk-ppk-pub2', 40, _B64)}\nPrivate-Lines: 6\n"
        + "\n".join(ppk)
        + f"\nPrivate-MAC: {_s('pk-ppk-mac', 64, _HEX)}",
        ppk[2],
    )
    rsa_for_b64 = "\n".join(
        [
            "-----BEGIN RSA PRIVATE KEY-----",
            *_pem_lines("pk-k8s", "MIIEpAIBAAKCAQEA", 4),
            "-----END RSA PRIVATE KEY-----",
            "",
        ]
    )
    k = base64.b64encode(rsa_for_b64.encode()).decode()
    add(
        "privatekey/k8s-tls-secret-base64",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ingress-tls\ntype: kubernetes.io/tls\ndata:\n"
        f"  tls.crt: {base64.b64encode(b'-----BEGIN CERTIFICATE-----').decode()}\n  tls.key: {k}",
        k,
    )
    yaml_lines = _pem_lines("pk-helm", "MIIEogIBAAKCAQEA", 6)
    add(
        "privatekey/helm-values-block",
        "sso:\n  enabled: true\n  signingKey: |\n    -----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join("    " + line for line in yaml_lines)
        + "\n    -----END RSA PRIVATE KEY-----\n  issuer: https://sso.acme.io",
        yaml_lines[2],
    )
    k = _s("pk-jwk-d", 342, _B64URL)
    add(
        "privatekey/jwk-d",
        '{"kty":"RSA","kid":"sig-2026-11","use":"sig","alg":"RS256",'
        f'"n":"{_s("pk-jwk-n", 342, _B64URL)}","e":"AQAB","d":"{k}",'
        f'"p":"{_s("pk-jwk-p", 171, _B64URL)}"}}',
        k,
    )
    k = "AGE-SECRET-KEY-1" + _s("pk-age", 58, _BECH32).upper()
    add(
        "privatekey/age-key",
        "# created: 2026-11-27T09:00:00Z\n# public key: age1" + _s("pk-age-pub", 58, _BECH32) + f"\n{k}",
        k,
    )
    k = _b64("pk-wg", 32)
    add(
        "privatekey/wireguard-conf",
        f"[Interface]\nPrivateKey = {k}\nAddress = 10.8.0.2/24\nDNS = 1.1.1.1\n\n[Peer]\n"
        f"PublicKey = {_b64('pk-wg-pub', 32)}\nEndpoint = vpn.acme.io:51820\nAllowedIPs = 0.0.0.0/0",
        k,
    )
    k = "0x" + _s("pk-eth", 64, _HEX)
    add(
        "privatekey/ethereum-hardhat",
        f"module.exports = {{ networks: {{ sepolia: {{ url: RPC_URL, accounts: ['{k}'] }} }} }};",
        k,
    )
    k = "K" + _s("pk-wif", 51, _B58)
    add("privatekey/bitcoin-wif", f"$ bitcoin-cli dumpprivkey bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq\n{k}", k)
    words = [
        "orbit",
        "velvet",
        "canyon",
        "tribe",
        "lemon",
        "absorb",
        "pulse",
        "grain",
        "ivory",
        "shallow",
        "rescue",
        "mango",
        "anchor",
        "frost",
        "window",
        "elbow",
        "quiz",
        "garden",
        "whale",
        "ritual",
    ]
    digest = hashlib.sha256(b"blind5:mnemonic").digest()
    phrase = " ".join(words[b % len(words)] for b in digest[:12])
    add("privatekey/seed-phrase", f'MNEMONIC="{phrase}"\nDEPLOYER_INDEX=0', phrase)
    k = "nsec1" + _s("pk-nsec", 58, _BECH32)
    add("privatekey/nostr-nsec", f"my nostr bot config: relay wss://relay.damus.io, key {k}", k)

    # ---- jwt -------------------------------------------------------------------------------
    k = _jwt("jwt-curl", {"sub": "u_4821", "role": "admin", "iat": 1795000000, "exp": 1795086400})
    add("jwt/curl-bearer", f"curl -H 'Authorization: Bearer {k}' https://api.acme.io/v2/users/me", k)
    k = _jwt("jwt-query", {"sub": "svc-export", "scope": "export:read", "exp": 1795090000})
    add("jwt/url-query", f"GET /download/report.csv?access_token={k} HTTP/1.1", k)
    k = _jwt(
        "jwt-supa",
        {
            "iss": "supabase",
            "ref": "qwkzvbpxlmdrtjnheyac",
            "role": "service_role",
            "iat": 1731000000,
            "exp": 2046576000,
        },
    )
    add(
        "jwt/supabase-service-role",
        f"SUPABASE_URL=https://qwkzvbpxlmdrtjnheyac.supabase.co\nSUPABASE_SERVICE_ROLE_KEY={k}",
        k,
    )
    k = _jwt("jwt-ls", {"sub": "81723", "email": "dev@acme.io", "exp": 1795003600}, "RS256")
    add(
        "jwt/localstorage-dump",
        f'> localStorage\nStorage {{auth.session: \'{{"token":"{k}","user":81723}}\', length: 1}}',
        k,
    )
    k = _jwt("jwt-resp", {"sub": "client:reporting", "aud": "api", "exp": 1795007200})
    add(
        "jwt/token-response",
        f'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{{"access_token":"{k}","token_type":"Bearer","expires_in":3600}}',
        k,
    )
    k = _jwt("jwt-ws", {"uid": 9912, "sess": "b81f", "exp": 1795004000})
    add("jwt/websocket-url", f"WebSocket connection to 'wss://rt.acme.io/socket?token={k}' failed: ", k)

    # ---- session ---------------------------------------------------------------------------
    k = _s("ss-django", 32, _LOWER)
    add(
        "session/django-set-cookie",
        f"Set-Cookie: sessionid={k}; expires=Fri, 11 Dec 2026 10:00:00 GMT; HttpOnly; Path=/; SameSite=Lax",
        k,
    )
    k = "s%3A" + _s("ss-connect", 32, _B64URL) + "." + _s("ss-connect-sig", 43, _B64)
    add("session/express-connect-sid", f"Cookie: connect.sid={k}; theme=dark", k)
    k = _s("ss-php", 26, "abcdefghijklmnopqrstuv0123456789")
    add("session/phpsessid", f"curl -b 'PHPSESSID={k}' https://intranet.acme.local/admin/users.php", k)
    k = "eyJpdiI6I" + _s("ss-laravel", 280, _ALNUM) + "%3D"
    add("session/laravel-session", f"Cookie: XSRF-TOKEN=eyJpdiI6Ik1{_s('ss-xsrf', 40)}%3D; laravel_session={k}", k)
    k = _jwt("ss-nextauth", {"name": "Dev", "email": "dev@acme.io", "exp": 1795099999})
    add("session/next-auth-cookie", f"__Secure-next-auth.session-token={k}; Path=/; Secure; HttpOnly", k)
    k = _s("ss-rails", 200, _B64).rstrip("=") + "--" + _s("ss-rails-sig", 40, _HEX)
    add("session/rails-cookie-devtools", f"Name: _shop_session\nValue: {k}\nDomain: shop.acme.io", k)
    k = _s("ss-aspx", 160, "0123456789ABCDEF")
    add("session/aspxauth", f"Cookie: .ASPXAUTH={k}; ASP.NET_SessionId={_s('ss-aspnet', 24, _LOWER)}", k)

    # ---- webhook ---------------------------------------------------------------------------
    k = _s("wh-discord", 68, _B64URL)
    add("webhook/discord", f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/1178293847561029384/{k}", k)
    k = _s("wh-teams", 32, _HEX)
    add(
        "webhook/teams",
        f"https://acme.webhook.office.com/webhookb2/{_uuid('wh-t1')}@{_uuid('wh-t2')}/IncomingWebhook/{k}/{_uuid('wh-t3')}",
        k,
    )
    k = _s("wh-gchat", 43, _B64URL)
    add(
        "webhook/google-chat",
        "https://chat.googleapis.com/v1/spaces/AAAA9xK2p0Q/messages?key=AIza"
        + _s("wh-gchat-key", 35, _B64URL)
        + f"&token={k}",
        k,
    )
    k = f"{_s('wh-tg1', 10, _DIGITS)}:AA{_s('wh-tg2', 33, _B64URL)}"
    add("webhook/telegram-bot", f'requests.post(f"https://api.telegram.org/bot{k}/sendMessage", json=payload)', k)
    k = _s("wh-mm", 26, _LOWER)
    add("webhook/mattermost", f"MATTERMOST_HOOK=https://chat.acme.io/hooks/{k}", k)
    k = _s("wh-ding", 64, _HEX)
    add("webhook/dingtalk", f"https://oapi.dingtalk.com/robot/send?access_token={k}", k)
    k = _s("wh-zap", 7, _LOWER)
    add("webhook/zapier", f"ZAPIER_HOOK_URL=https://hooks.zapier.com/hooks/catch/8812034/{k}/", k)

    # ---- urlauth ---------------------------------------------------------------------------
    k = _s("ua-git", 20)
    add("urlauth/git-clone", f"git clone https://jdoe:{k}@git.acme.io/platform/billing.git", k)
    k = _pw("ua-pip", 14).replace("@", "a").replace("#", "b").replace("%", "c")
    add("urlauth/pip-index-url", f"pip install --index-url https://builder:{k}@pypi.acme.io/simple/ acme-sdk==4.2.1", k)
    k = _pw("ua-proxy", 12).replace("@", "a").replace("#", "b").replace("%", "c")
    add("urlauth/http-proxy", f"export https_proxy=http://CORP%5Cjdoe:{k}@proxy.corp.local:3128", k)
    k = _pw("ua-ftp", 12).replace("@", "a").replace("#", "b").replace("%", "c")
    add("urlauth/ftp-url", f"lftp ftp://uploader:{k}@ftp.partner-logistics.com/incoming", k)
    k = _pw("ua-curl", 14).replace("'", "q")
    add("urlauth/curl-user", f"curl -u 'admin:{k}' -X POST https://jenkins.acme.io/job/deploy/build", k)
    k = _pw("ua-wget", 13)
    add("urlauth/wget-password", f"wget --user=mirror --password={k} https://downloads.acme.io/private/sdk-4.2.tgz", k)
    k = _pw("ua-dockerlogin", 16)
    add("urlauth/docker-login-p", f"docker login -u acme-ci -p {k} harbor.acme.io", k)
    k = _pw("ua-netrc", 15)
    add("urlauth/netrc", f"machine api.heroku.com\n  login dev@acme.io\n  password {k}\nmachine git.heroku.com", k)
    k = "glpat-" + _s("ua-gitcred", 20, _B64URL)
    add("urlauth/git-credentials-file", f"$ cat ~/.git-credentials\nhttps://oauth2:{k}@gitlab.com", k)
    k = _pw("ua-smb", 12).replace("@", "a").replace("#", "b").replace("%", "c")
    add(
        "urlauth/smb-mount",
        f"sudo mount -t cifs //fs01/share /mnt/share -o username=svc_backup,password={k},vers=3.0",
        k,
    )
    k = _s("ua-basic", 18)
    b = base64.b64encode(f"deploy:{k}".encode()).decode()
    add(
        "urlauth/basic-header-b64",
        f"> GET /api/v1/status HTTP/1.1\n> Host: registry.acme.io\n> Authorization: Basic {b}\n> User-Agent: curl/8.5.0",
        b,
    )

    # ---- comms -----------------------------------------------------------------------------
    k = _s("cm-twilio", 32, _HEX)
    add("comms/twilio-auth-token", f"TWILIO_ACCOUNT_SID=AC{_s('cm-twsid', 32, _HEX)}\nTWILIO_AUTH_TOKEN={k}", k)
    k = _s("cm-twilio-sk", 32)
    add("comms/twilio-api-key-secret", f"client = Client('SK{_s('cm-twsk', 32, _HEX)}', '{k}', account_sid)", k)
    k = "SG." + _s("cm-sg1", 22, _B64URL) + "." + _s("cm-sg2", 43, _B64URL)
    add("comms/sendgrid", f"sg = sendgrid.SendGridAPIClient('{k}')", k)
    k = "key-" + _s("cm-mailgun", 32, _HEX)
    add("comms/mailgun", f"curl -s --user 'api:{k}' https://api.mailgun.net/v3/mg.acme.io/messages", k)
    k = _s("cm-mailchimp", 32, _HEX) + "-us21"
    add("comms/mailchimp", f"mailchimp.setConfig({{ apiKey: '{k}', server: 'us21' }});", k)
    k = _uuid("cm-postmark")
    add("comms/postmark-header", f'-H "X-Postmark-Server-Token: {k}"', k)
    k = _s("cm-mailjet", 32, _HEX)
    add("comms/mailjet-env", f"MJ_APIKEY_PUBLIC={_s('cm-mjpub', 32, _HEX)}\nMJ_APIKEY_PRIVATE={k}", k)
    k = "xkeysib-" + _s("cm-brevo1", 64, _HEX) + "-" + _s("cm-brevo2", 16)
    add("comms/brevo", f"BREVO_API_KEY={k}", k)
    k = "re_" + _s("cm-resend", 8) + "_" + _s("cm-resend2", 24)
    add("comms/resend", f"const resend = new Resend('{k}');", k)

    # ---- payments --------------------------------------------------------------------------
    k = "shpat_" + _s("pay-shopify", 32, _HEX)
    add("payments/shopify-admin", f"X-Shopify-Access-Token: {k}", k)
    k = "shpss_" + _s("pay-shpss", 32, _HEX)
    add("payments/shopify-shared-secret", f"SHOPIFY_API_SECRET={k}", k)
    k = "EAAA" + _s("pay-square", 60, _B64URL)
    add("payments/square-access-token", f"SQUARE_ACCESS_TOKEN={k}\nSQUARE_ENVIRONMENT=production", k)
    k = _s("pay-rzp", 24)
    add("payments/razorpay", f'client = razorpay.Client(auth=("rzp_live_{_s("pay-rzpid", 14)}", "{k}"))', k)
    k = "access_token$production$" + _s("pay-bt1", 16, _LOWER) + "$" + _s("pay-bt2", 32, _HEX)
    add("payments/braintree", f'gateway = braintree.BraintreeGateway(access_token="{k}")', k)
    k = "E" + _s("pay-paypal", 79, _B64URL)
    add(
        "payments/paypal-client-secret", f"PAYPAL_CLIENT_ID=A{_s('pay-ppid', 79, _B64URL)}\nPAYPAL_CLIENT_SECRET={k}", k
    )
    k = _s("pay-plaid", 30, _HEX)
    add(
        "payments/plaid-secret",
        f'{{"client_id": "{_s("pay-plaidid", 24, _HEX)}", "secret": "{k}", "access_token": "access-production-{_uuid("pay-plaidat")}"}}',
        k,
    )
    k = "AQE" + _s("pay-adyen", 150, _B64URL)
    add("payments/adyen", f"ADYEN_API_KEY={k}", k)

    # ---- observability ---------------------------------------------------------------------
    k = _s("ob-dd", 32, _HEX)
    add(
        "observability/datadog-agent-yaml",
        f"# /etc/datadog-agent/datadog.yaml\napi_key: {k}\nsite: datadoghq.eu\nlogs_enabled: true",
        k,
    )
    k = _s("ob-ddapp", 40, _HEX)
    add(
        "observability/datadog-app-key",
        f'curl -X GET https://api.datadoghq.com/api/v1/monitor -H "DD-API-KEY: ${{DD_API_KEY}}" -H "DD-APPLICATION-KEY: {k}"',
        k,
    )
    k = "NRAK-" + _s("ob-nr", 27, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    add("observability/newrelic-user-key", f"NEW_RELIC_API_KEY={k}", k)
    k = _s("ob-nrlic", 36, _HEX) + "NRAL"
    add("observability/newrelic-license", f"newrelic:\n  license_key: {k}\n  app_name: checkout-api", k)
    k = "sntrys_" + _s("ob-sentry", 150, _B64URL)
    add("observability/sentry-auth-token", f"sentry-cli --auth-token {k} releases new 4.2.1", k)
    k = "u+" + _s("ob-pd", 18, _B64URL)
    add("observability/pagerduty", f'headers = {{"Authorization": "Token token={k}"}}', k)
    k = "glsa_" + _s("ob-glsa", 32) + "_" + _s("ob-glsa2", 8, _HEX)
    add("observability/grafana-service-account", f"GRAFANA_TOKEN={k}", k)
    k = "glc_" + _b64("ob-glc", 90).rstrip("=")
    add("observability/grafana-cloud", f'grafana_cloud_access_policy_token = "{k}"', k)
    k = _s("ob-honey", 22)
    add("observability/honeycomb", f"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={k}", k)

    # ---- hosting ---------------------------------------------------------------------------
    k = "HRKU-" + _uuid("ho-heroku")
    add("hosting/heroku", f"$ heroku auth:token\n {k}", k)
    k = "dop_v1_" + _s("ho-do", 64, _HEX)
    add("hosting/digitalocean", f"doctl auth init --access-token {k}", k)
    k = _s("ho-vercel", 24)
    add("hosting/vercel-cli", f"vercel deploy --prod --token={k} --yes", k)
    k = "nfp_" + _s("ho-netlify", 36)
    add("hosting/netlify", f"NETLIFY_AUTH_TOKEN={k}", k)
    k = "FlyV1 fm2_" + _s("ho-fly", 200, _B64)
    add("hosting/fly", f'FLY_API_TOKEN="{k}"', k)
    k = _s("ho-cf", 40, _B64URL)
    add(
        "hosting/cloudflare-token",
        f'curl "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer {k}"',
        k,
    )
    k = _s("ho-cfkey", 37, _HEX)
    add("hosting/cloudflare-global-key", f"export CLOUDFLARE_EMAIL=ops@acme.io\nexport CLOUDFLARE_API_KEY={k}", k)
    k = "v1.0-" + _s("ho-cfca1", 24, _HEX) + "-" + _s("ho-cfca2", 146, _HEX)
    add("hosting/cloudflare-origin-ca", f'origin_ca_key = "{k}"', k)
    k = "rnd_" + _s("ho-render", 32)
    add("hosting/render", f"RENDER_API_KEY={k}", k)
    k = "sbp_" + _s("ho-supa", 40, _HEX)
    add("hosting/supabase-access-token", f"supabase login --token {k}", k)
    k = "pscale_pw_" + _s("ho-pscale", 43, _B64URL)
    add(
        "hosting/planetscale",
        f"DATABASE_URL=mysql://{_s('ho-psu', 12, _LOWER)}:{k}@aws.connect.psdb.cloud/shop?sslaccept=strict",
        k,
    )
    k = _uuid("ho-railway")
    add("hosting/railway", f"RAILWAY_TOKEN={k}", k)
    k = "dapi" + _s("ho-databricks", 32, _HEX)
    add("hosting/databricks", f"[DEFAULT]\nhost = https://adb-4829103746.11.azuredatabricks.net\ntoken = {k}", k)
    k = "tskey-auth-k" + _s("ho-ts1", 10) + "CNTRL-" + _s("ho-ts2", 33)
    add("hosting/tailscale", f"sudo tailscale up --authkey={k} --advertise-routes=10.0.0.0/24", k)

    # ---- secretsmgr ------------------------------------------------------------------------
    k = "hvs." + _s("sm-vault", 91, _B64URL)
    add("secretsmgr/vault-login-history", f"  204  vault login {k}\n  205  vault kv get secret/app", k)
    k = "hvs." + _s("sm-vault2", 24)
    add(
        "secretsmgr/vault-token-create",
        "Key                  Value\n---                  -----\n"
        f"token                {k}\ntoken_accessor       {_s('sm-acc', 24)}\ntoken_duration       768h",
        k,
    )
    k = "dp.st.prd." + _s("sm-doppler", 43)
    add("secretsmgr/doppler", f"DOPPLER_TOKEN={k} doppler run -- npm start", k)
    k = _s("sm-tfc1", 14) + ".atlasv1." + _s("sm-tfc2", 67)
    add("secretsmgr/terraform-cloud", f'credentials "app.terraform.io" {{\n  token = "{k}"\n}}', k)
    k = "pul-" + _s("sm-pulumi", 40, _HEX)
    add("secretsmgr/pulumi", f"PULUMI_ACCESS_TOKEN={k}", k)
    k = "ops_eyJ" + _s("sm-1p", 400, _B64URL)
    add("secretsmgr/onepassword-service-account", f"export OP_SERVICE_ACCOUNT_TOKEN={k}", k)
    k = _s("sm-infisical", 64, _HEX)
    add("secretsmgr/infisical", f"INFISICAL_TOKEN=st.{_uuid('sm-inf-id')}.{k}", k)

    # ---- productivity ----------------------------------------------------------------------
    k = "ATATT3xFfGF0" + _s("pr-atl", 180, _B64URL) + "=" + _s("pr-atl2", 8, _HEX.upper())
    add(
        "productivity/atlassian",
        f"jira = JIRA(server='https://acme.atlassian.net', basic_auth=('dev@acme.io', '{k}'))",
        k,
    )
    k = "lin_api_" + _s("pr-linear", 40)
    add("productivity/linear", f"LINEAR_API_KEY={k}", k)
    k = "ntn_" + _s("pr-notion", 46)
    add("productivity/notion", f'notion = Client(auth="{k}")', k)
    k = "secret_" + _s("pr-notion-old", 43)
    add("productivity/notion-legacy", f"NOTION_TOKEN={k}", k)
    k = "2/" + _s("pr-asana1", 16, _DIGITS) + "/" + _s("pr-asana2", 16, _DIGITS) + ":" + _s("pr-asana3", 32, _HEX)
    add("productivity/asana", f"-H 'Authorization: Bearer {k}'", k)
    k = "figd_" + _s("pr-figma", 40, _B64URL)
    add("productivity/figma", f"curl -H 'X-FIGMA-TOKEN: {k}' 'https://api.figma.com/v1/files/Ab3dEf'", k)
    k = "pat" + _s("pr-air1", 14) + "." + _s("pr-air2", 64, _HEX)
    add("productivity/airtable", f"AIRTABLE_API_KEY={k}", k)
    k = "sl.B" + _s("pr-dbx", 136, _B64URL)
    add("productivity/dropbox", f"dbx = dropbox.Dropbox('{k}')", k)
    k = "PMAK-" + _s("pr-postman1", 24, _HEX) + "-" + _s("pr-postman2", 34, _HEX)
    add("productivity/postman", f"postman login --with-api-key {k}", k)
    k = "CFPAT-" + _s("pr-contentful", 43, _B64URL)
    add("productivity/contentful", f"CONTENTFUL_MANAGEMENT_TOKEN={k}", k)
    k = (
        "sk."
        + _b64u(json.dumps({"u": "acmemaps", "a": _s("pr-mbx-a", 25, _LOWER)}, separators=(",", ":")))
        + "."
        + _s("pr-mbx", 22, _B64URL)
    )
    add("productivity/mapbox-secret", f"MAPBOX_DOWNLOADS_TOKEN={k}", k)
    k = _s("pr-algolia", 32, _HEX)
    add(
        "productivity/algolia-admin",
        f"const client = algoliasearch('{_s('pr-algid', 10, _UPPER)}', '{k}'); // admin key",
        k,
    )
    k = _s("pr-trello", 64, _HEX)
    add(
        "productivity/trello", f"https://api.trello.com/1/members/me/boards?key={_s('pr-trkey', 32, _HEX)}&token={k}", k
    )
    k = "ATCTT3xFfGN0" + _s("pr-trello2", 180, _B64URL)
    add("productivity/trello-new-token", f"TRELLO_TOKEN={k}", k)

    # ---- ci --------------------------------------------------------------------------------
    k = "bkua_" + _s("ci-bk", 40, _HEX)
    add("ci/buildkite", f"BUILDKITE_API_TOKEN={k}", k)
    k = "CCIPAT_" + _s("ci-cc1", 22) + "_" + _s("ci-cc2", 40, _HEX)
    add("ci/circleci", f'curl -H "Circle-Token: {k}" https://circleci.com/api/v2/me', k)
    k = "squ_" + _s("ci-sonar", 40, _HEX)
    add("ci/sonarqube", f"mvn sonar:sonar -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={k}", k)
    k = _uuid("ci-snyk")
    add("ci/snyk", f"snyk auth {k}", k)
    k = "11" + _s("ci-jenkins", 32, _HEX)
    add(
        "ci/jenkins-api-token",
        f"curl -X POST -u ci-admin:{k} https://jenkins.acme.io/job/nightly/buildWithParameters",
        k,
    )
    k = _s("ci-travis", 22, _B64URL)
    add("ci/travis", f"travis login --pro --github-token ghp_{_s('ci-trgh', 36)} && travis encrypt TOKEN={k}", k)
    k = "ghp_" + _s("ci-gha-env", 36)
    add(
        "ci/actions-env-dump",
        "##[group]Run env | sort\nCI=true\nGITHUB_ACTIONS=true\n"
        f"GH_RELEASE_TOKEN={k}\nHOME=/home/runner\nRUNNER_OS=Linux",
        k,
    )
    k = _s("ci-codecov", 32, _HEX)
    add("ci/drone-secret", f"drone secret add --repository acme/api --name docker_password --data {k}", k)

    # ---- social ----------------------------------------------------------------------------
    k = (
        "M"
        + _s("so-discord1", 25, _B64URL)
        + "."
        + _s("so-discord2", 6, _B64URL)
        + "."
        + _s("so-discord3", 38, _B64URL)
    )
    add("social/discord-bot-token", f"client.run('{k}')", k)
    k = "oauth:" + _s("so-twitch", 30, _LOWER)
    add("social/twitch-irc", f"PASS {k}\nNICK acme_bot\nJOIN #acmedev", k)
    k = "EAAB" + _s("so-fb", 180)
    add("social/facebook-graph", f"https://graph.facebook.com/v19.0/me/accounts?access_token={k}", k)
    k = "AAAAAAAAAAAAAAAAAAAAA" + _s("so-tw1", 22) + "%3D" + _s("so-tw2", 50)
    add("social/twitter-bearer", f"TWITTER_BEARER_TOKEN={k}", k)
    k = _s("so-twsecret", 50)
    add("social/twitter-consumer-secret", f"consumer_key = '{_s('so-twck', 25)}'\nconsumer_secret = '{k}'", k)
    k = "IGQVJ" + _s("so-ig", 160, _B64URL)
    add("social/instagram", f"IG_ACCESS_TOKEN={k}", k)
    k = "AQV" + _s("so-li", 180, _B64URL)
    add("social/linkedin", f'{{"access_token":"{k}","expires_in":5183999}}', k)
    k = _s("so-reddit", 27, _B64URL)
    add(
        "social/reddit",
        f"reddit = praw.Reddit(client_id='{_s('so-rdid', 14, _B64URL)}', client_secret='{k}', user_agent='acme-bot/1.0')",
        k,
    )

    # ---- identity --------------------------------------------------------------------------
    k = "00" + _s("id-okta", 40, _B64URL)
    add("identity/okta-ssws", f"curl -H 'Authorization: SSWS {k}' https://acme.okta.com/api/v1/users?limit=25", k)
    k = _s("id-auth0", 64, _B64URL)
    add(
        "identity/auth0-env",
        f"AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID={_s('id-a0id', 32)}\nAUTH0_CLIENT_SECRET={k}",
        k,
    )
    k = _s("id-keycloak", 32)
    add(
        "identity/keycloak-client",
        f'{{\n  "realm": "acme",\n  "resource": "portal",\n  "credentials": {{ "secret": "{k}" }}\n}}',
        k,
    )
    k = _s("id-clerk", 40)
    add("identity/clerk", f"CLERK_SECRET_KEY=sk_live_{k}", k)
    k = _s("id-ldap", 16, _PW)
    add(
        "identity/ldap-bind",
        f"ldapsearch -x -H ldaps://dc01.corp.local -D 'CN=svc_ldap,OU=Service,DC=corp,DC=local' -w '{k}' -b 'DC=corp,DC=local' '(sAMAccountName=jdoe)'",
        k,
    )
    k = _s("id-saml", 24)
    add("identity/ad-join", f"echo '{k}' | realm join --user=Administrator corp.local", k)

    # ---- prose -----------------------------------------------------------------------------
    k = _pw("pr-staging", 14)
    add("prose/staging-password", f"fyi the staging db password is {k} until we move it to vault", k)
    k = _pw("pr-jump", 12)
    add("prose/login-slash", f"you can log into the jump host as admin / {k} and then sudo", k)
    k = _pw("pr-german", 13)
    add("prose/german", f"Das Passwort für den Testserver lautet {k} - bitte nicht weitergeben.", k)
    k = _pw("pr-spanish", 13)
    add("prose/spanish", f"la contraseña del router es {k}, la cambié ayer", k)
    k = _s("pr-pin", 6, _DIGITS)
    add("prose/hsm-pin", f"the HSM user PIN is {k}, SO PIN is in the safe", k)
    k = _pw("pr-wifi", 12)
    add("prose/wifi", f"guest wifi: AcmeGuest, pass {k}", k)
    k = _s("pr-bare", 32)
    add("prose/bare-api-key", f"ok I pasted the api key: {k}\nstill get 401 though", k)
    k = _pw("pr-root", 11)
    add("prose/root-installer", f"During install I set the root password to {k} — is that why ssh refuses it?", k)
    k = "correct-staple-" + _s("pr-passphrase", 6, _LOWER_ALPHA) + "-battery-horse"
    add("prose/key-passphrase", f"the passphrase for deploy_key is '{k}' if ssh-add asks", k)
    k = _pw("pr-creds", 13)
    add("prose/creds-colon", f"creds for the vendor portal -> user: acme-ops pw: {k}", k)
    k = _pw("pr-french", 12)
    add("prose/french", f"le mot de passe de la base de recette est {k}", k)

    # ---- config ----------------------------------------------------------------------------
    k = _s("cf-rails", 128, _HEX)
    add("config/rails-secret-key-base", f"SECRET_KEY_BASE={k}\nRAILS_ENV=production", k)
    k = _s("cf-django", 50, _LOWER + "!@#$%^&*(-_=+)")
    add("config/django-secret-key", f"SECRET_KEY = '{k}'\nDEBUG = False", k)
    k = _s("cf-flask", 32, _HEX)
    add("config/flask-secret", f"app = Flask(__name__)\napp.secret_key = bytes.fromhex('{k}')", k)
    k = _b64("cf-nextauth", 32)
    add("config/nextauth-secret", f"NEXTAUTH_URL=https://app.acme.io\nNEXTAUTH_SECRET={k}", k)
    k = _s("cf-jwtsecret", 48)
    add("config/jwt-secret-yaml", f"auth:\n  jwt:\n    secret: {k}\n    ttl: 15m", k)
    k = "base64:" + _b64("cf-laravel", 32)
    add("config/laravel-app-key", f"APP_NAME=Acme\nAPP_ENV=production\nAPP_KEY={k}\nAPP_DEBUG=false", k)
    k = _s("cf-express", 40)
    add("config/express-session", f"app.use(session({{ secret: '{k}', resave: false, saveUninitialized: false }}));", k)
    k = _pw("cf-compose", 16)
    add(
        "config/docker-compose",
        f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {k}",
        k,
    )
    k = _pw("cf-k8s-string", 16)
    add(
        "config/k8s-secret-stringdata",
        f'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\nstringData:\n  username: app\n  password: "{k}"',
        k,
    )
    k = base64.b64encode(_pw("cf-k8s-data", 18).encode()).decode()
    add(
        "config/k8s-secret-data-b64",
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\ntype: Opaque\ndata:\n  SMTP_USER: bm90aWZpY2F0aW9ucw==\n  SMTP_PASSWORD: {k}",
        k,
    )
    k = _jwt("cf-kubeconfig", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"}, "RS256")
    add("config/kubeconfig-token", f"users:\n- name: ci-deployer\n  user:\n    token: {k}", k)
    k = _pw("cf-ansible", 14)
    add(
        "config/ansible-inventory",
        f"[db]\ndb01.acme.local ansible_user=deploy ansible_password={k} ansible_become_pass={k}",
        k,
    )
    k = _s("cf-systemd", 32)
    add("config/systemd-unit", f"[Service]\nEnvironment=API_TOKEN={k}\nExecStart=/usr/local/bin/acme-worker", k)
    k = _pw("cf-tfvars", 16).replace('"', "t")
    add("config/tfvars", f'db_username = "admin"\ndb_password = "{k}"\ninstance_class = "db.t3.medium"', k)
    k = _b64("cf-enc", 32)
    add("config/encryption-key-env", f"FIELD_ENCRYPTION_KEY={k}", k)
    k = _pw("cf-ini", 14)
    add("config/php-ini-style", f"[database]\nhost = localhost\nuser = wp\npass = {k}\nname = wordpress", k)
    k = _pw("cf-wpconfig", 18).replace("'", "w")
    add("config/wp-config", f"define( 'DB_PASSWORD', '{k}' );\ndefine( 'DB_HOST', 'localhost' );", k)
    k = _s("cf-toml", 40)
    add("config/pyproject-like-toml", f'[tool.acme.upload]\nendpoint = "https://upload.acme.io"\napi_secret = "{k}"', k)

    # ---- logs ------------------------------------------------------------------------------
    k = _pw("lg-psycopg", 14).replace("@", "k").replace("#", "m").replace("%", "n")
    add(
        "logs/python-traceback-dsn",
        'Traceback (most recent call last):\n  File "/app/db.py", line 12, in connect\n'
        "    return psycopg2.connect(dsn)\npsycopg2.OperationalError: connection to server failed\n"
        f"  dsn='postgresql://orders:{k}@pg-replica:5432/orders'",
        k,
    )
    k = _pw("lg-java", 14).replace("&", "j")
    add(
        "logs/java-exception",
        "java.sql.SQLException: Access denied for user 'shop'@'10.0.4.11'\n"
        f"\tat com.acme.db.Pool.open(Pool.java:88) [url=jdbc:mysql://mysql01:3306/shop?user=shop&password={k}]",
        k,
    )
    k = _s("lg-axios", 40)
    add(
        "logs/axios-error-config",
        "AxiosError: Request failed with status code 403\n    config: {\n"
        f"      headers: {{ Accept: 'application/json', 'X-Api-Key': '{k}' }},\n"
        "      url: 'https://api.partner.io/v1/orders'\n    }",
        k,
    )
    k = _s("lg-httpclient", 48)
    add(
        "logs/http-client-debug",
        "send: b'GET /v1/accounts HTTP/1.1\\r\\nHost: api.acme.io\\r\\n"
        f"Authorization: Bearer {k}\\r\\nAccept: */*\\r\\n\\r\\n'\nreply: 'HTTP/1.1 200 OK\\r\\n'",
        k,
    )
    k = _s("lg-nginx", 32, _HEX)
    add(
        "logs/nginx-access",
        f'10.0.0.7 - - [27/Nov/2026:10:14:02 +0000] "GET /api/v1/export?format=csv&api_key={k} HTTP/1.1" 200 48213 "-" "python-requests/2.32.3"',
        k,
    )
    k = _pw("lg-kubectl", 15)
    add(
        "logs/kubectl-describe-env",
        "Containers:\n  api:\n    Environment:\n      LOG_LEVEL:         info\n"
        f"      DB_PASSWORD:       {k}\n      REDIS_HOST:        redis-master",
        k,
    )
    k = _s("lg-docker", 36)
    add(
        "logs/docker-inspect-env",
        f'"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin",\n    "STRIPE_SECRET={k}",\n    "NODE_ENV=production"\n]',
        k,
    )
    k = _s("lg-structured", 40, _B64URL)
    add(
        "logs/json-log-line",
        f'{{"level":"debug","ts":"2026-11-27T10:03:55Z","msg":"outgoing request","method":"POST","url":"https://hooks.acme.io/ingest","headers":{{"x-api-key":"{k}"}}}}',
        k,
    )
    k = _pw("lg-mysqlwarn", 13)
    add("logs/ps-aux", f"root      4821  0.3  1.2 mysqld_safe --user=mysql --password={k} --datadir=/var/lib/mysql", k)

    # ---- code ------------------------------------------------------------------------------
    k = "ghp_" + _s("cd-octokit", 36)
    add("code/octokit", f"const octokit = new Octokit({{ auth: `{k}` }});", k)
    k = _s("cd-redis", 32)
    add("code/python-redis", f"r = redis.Redis(host='cache', port=6379, password='{k}', ssl=True)", k)
    k = _pw("cd-go", 14).replace("@", "g").replace(" ", "_")
    add(
        "code/go-sql-open",
        f'db, err := sql.Open("postgres", "host=pg user=api password={k} dbname=api sslmode=require")',
        k,
    )
    k = _pw("cd-csharp", 14).replace('"', "c")
    add("code/csharp-network-credential", f'client.Credentials = new NetworkCredential("svc_mail", "{k}", "CORP");', k)
    k = _pw("cd-php", 14).replace("'", "p")
    add("code/php-pdo", f"$pdo = new PDO('mysql:host=localhost;dbname=shop', 'shop', '{k}');", k)
    k = _pw("cd-java", 14).replace('"', "j")
    add("code/java-drivermanager", f'Connection c = DriverManager.getConnection(url, "reporting", "{k}");', k)
    k = _pw("cd-paramiko", 14).replace("'", "p")
    add("code/paramiko", f"ssh.connect('10.0.8.14', username='deploy', password='{k}', timeout=10)", k)
    k = _s("cd-smtp", 16, _LOWER_ALPHA)
    add(
        "code/smtplib-login",
        f"server = smtplib.SMTP_SSL('smtp.gmail.com', 465)\nserver.login('alerts@acme.io', '{k}')",
        k,
    )
    k = _pw("cd-ps", 14).replace('"', "s")
    add(
        "code/powershell-securestring",
        f'$pw = ConvertTo-SecureString "{k}" -AsPlainText -Force\n$cred = New-Object PSCredential("CORP\\svc_deploy", $pw)',
        k,
    )
    k = _pw("cd-rust", 14).replace('"', "r")
    add("code/rust-builder", f'let opts = PgConnectOptions::new().host("db").username("app").password("{k}");', k)
    k = _s("cd-kotlin", 40)
    add("code/kotlin-const", f'private const val API_SECRET = "{k}"', k)
    k = _s("cd-swift", 40)
    add("code/swift-let", f'let apiKey = "{k}" // TODO move to keychain', k)
    k = _s("cd-dart", 39, _B64URL)
    add("code/env-fallback", f"const token = process.env.PARTNER_TOKEN || '{k}';", k)
    k = _s("cd-header-map", 32, _HEX)
    add("code/header-constant", f'HEADERS = {{"X-Auth-Token": "{k}", "Content-Type": "application/json"}}', k)

    # ---- shell -----------------------------------------------------------------------------
    k = _pw("sh-sshpass", 13).replace("'", "s")
    add("shell/sshpass", f"sshpass -p '{k}' ssh -o StrictHostKeyChecking=no root@192.168.10.44", k)
    k = _pw("sh-dump", 13).replace("'", "d")
    add("shell/mysqldump", f"mysqldump -u backup --password='{k}' --all-databases | gzip > all.sql.gz", k)
    k = _pw("sh-htpasswd", 13)
    add("shell/htpasswd-b", f"htpasswd -b -c /etc/nginx/.htpasswd monitor {k}", k)
    k = _pw("sh-openssl", 13)
    add(
        "shell/openssl-passout",
        f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{k}",
        k,
    )
    k = _pw("sh-keytool", 13)
    add(
        "shell/keytool-storepass",
        f"keytool -importcert -alias acme-root -file root.crt -keystore truststore.jks -storepass {k} -noprompt",
        k,
    )
    k = _pw("sh-netuse", 12)
    add("shell/net-use", f"net use Z: \\\\fileserver\\finance {k} /user:CORP\\jdoe /persistent:no", k)
    k = _s("sh-setx", 32)
    add("shell/setx", f'setx PARTNER_API_KEY "{k}"', k)
    k = "npm_" + _s("sh-dockerfile", 36)
    add(
        "shell/dockerfile-arg",
        f'FROM node:20-alpine\nARG NPM_TOKEN={k}\nRUN echo "//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}" > .npmrc',
        k,
    )
    k = _s("sh-cron", 40)
    add("shell/crontab", f"*/15 * * * * curl -fsS -H 'X-Api-Key: {k}' https://status.acme.io/ping > /dev/null", k)
    k = _pw("sh-chpasswd", 13)
    add("shell/chpasswd", f"echo 'deploy:{k}' | sudo chpasswd", k)
    k = _pw("sh-rsync", 12)
    add("shell/rsync-password-env", f"RSYNC_PASSWORD={k} rsync -av ./dist/ rsync://backup@nas.local/web", k)
    k = _pw("sh-useradd", 12)
    add("shell/gh-secret-set", f"gh secret set DB_PASSWORD --body '{k}' --repo acme/api", k)

    # ---- netinfra --------------------------------------------------------------------------
    k = _s("ni-gmail", 16, _LOWER_ALPHA)
    spaced = " ".join(k[i : i + 4] for i in range(0, 16, 4))
    add("netinfra/gmail-app-password", f"Your app password for your device\n{spaced}\nHow to use it", spaced)
    k = _pw("ni-smtp", 14).replace("@", "s").replace("#", "t").replace("%", "u")
    add("netinfra/smtp-url", f"EMAIL_URL=smtp+tls://notifications%40acme.io:{k}@smtp.office365.com:587", k)
    k = _pw("ni-wpa", 14).replace('"', "w")
    add("netinfra/wpa-supplicant", f'network={{\n    ssid="AcmeCorp"\n    psk="{k}"\n    key_mgmt=WPA-PSK\n}}', k)
    k = _pw("ni-cisco", 12)
    add(
        "netinfra/cisco-config",
        f"hostname core-sw01\nusername netadmin privilege 15 password 0 {k}\nenable secret 0 {k}",
        k,
    )
    k = _s("ni-snmp", 16)
    add("netinfra/snmp-community", f"snmpwalk -v2c -c {k} 10.0.0.1 1.3.6.1.2.1.1", k)
    k = _s("ni-radius", 20)
    add("netinfra/radius-secret", f"client 10.0.0.0/24 {{\n    secret = {k}\n    shortname = office-aps\n}}", k)
    k = _pw("ni-ipmi", 12)
    add("netinfra/ipmitool", f"ipmitool -I lanplus -H 10.0.9.21 -U ADMIN -P {k} chassis power status", k)
    k = _pw("ni-mail", 14)
    add(
        "netinfra/mail-password-env",
        f"MAIL_MAILER=smtp\nMAIL_HOST=smtp.mailgun.org\nMAIL_USERNAME=postmaster@mg.acme.io\nMAIL_PASSWORD={k}",
        k,
    )
    k = _s("ni-ipsec", 32)
    add("netinfra/ipsec-psk", f'%any 203.0.113.7 : PSK "{k}"', k)

    # ---- oauth -----------------------------------------------------------------------------
    k = _s("oa-cs", 40, _B64URL)
    add(
        "oauth/client-credentials-curl",
        "curl -X POST https://auth.acme.io/oauth/token -d grant_type=client_credentials "
        f"-d client_id=reporting -d client_secret={k}",
        k,
    )
    k = _s("oa-refresh", 64, _B64URL)
    add("oauth/refresh-token-json", f'{{"token_type":"Bearer","scope":"offline_access read","refresh_token":"{k}"}}', k)
    k = _s("oa-fragment", 48, _B64URL)
    add(
        "oauth/implicit-fragment",
        f"http://localhost:3000/callback#access_token={k}&token_type=bearer&expires_in=3600",
        k,
    )
    k = _s("oa-env", 48, _B64URL)
    add("oauth/client-secret-env", f"OAUTH_CLIENT_ID=portal-web\nOAUTH_CLIENT_SECRET={k}", k)

    # ---- certs -----------------------------------------------------------------------------
    k = "MIIKcQIBAzCCCjcGCSqGSIb3DQEHAaCCCigEggokMIIKIDCCBNcGCSqGSIb3DQEHBqCCBMgw" + _s("ce-p12", 400, _B64)
    add("certs/p12-base64-env", f"ANDROID_KEYSTORE_BASE64={k}", k)
    k = _pw("ce-store", 14)
    add(
        "certs/gradle-signing",
        f"signingConfigs {{\n    release {{\n        storeFile file('release.jks')\n        storePassword '{k}'\n        keyAlias 'release'\n        keyPassword '{k}'\n    }}\n}}",
        k,
    )
    k = _pw("ce-tomcat", 14)
    add(
        "certs/tomcat-connector",
        f'<Connector port="8443" SSLEnabled="true" keystoreFile="conf/acme.jks" keystorePass="{k}" />',
        k,
    )

    return out


BLIND5_SECRETS: list[Secret] = _secrets()


def _sha(seed: str, n: int = 40) -> str:
    """A hex digest of non-secret data (commit ids, checksums)."""
    return hashlib.sha256(f"blind5-ordinary:{seed}".encode()).hexdigest()[:n]


def _ordinary() -> list[str]:
    return [
        # git and version control
        f"commit {_sha('c1')}\nAuthor: Jane Doe <jane@acme.io>\nDate:   Thu Nov 26 17:02:11 2026 +0100\n\n    fix: retry token refresh on 401",
        f"$ git log --oneline -3\n{_sha('c2', 7)} (HEAD -> main) bump version to 4.2.1\n{_sha('c3', 7)} add password strength meter\n{_sha('c4', 7)} docs: explain api_key rotation",
        f"Merge pull request #4821 from acme/fix/secret-scanning\n\n{_sha('c5')}",
        f"$ git rev-parse HEAD\n{_sha('c6')}",
        f"error: pathspec '{_sha('c7', 12)}' did not match any file(s) known to git",
        f"Cherry-picked from {_sha('c8')} (auth: rename token_ttl to access_token_ttl)",
        f"git checkout -b feature/password-reset {_sha('c9', 10)}",
        f"remote: Resolving deltas: 100% (312/312), completed with 41 local objects.\nTo github.com:acme/platform.git\n   {_sha('c10', 7)}..{_sha('c11', 7)}  main -> main",
        f"git bisect bad {_sha('c12')}",
        f"diff --git a/auth/tokens.py b/auth/tokens.py\nindex {_sha('c13', 7)}..{_sha('c14', 7)} 100644",
        # hashes and checksums
        f"{_sha('f1', 64)}  acme-cli-4.2.1-linux-amd64.tar.gz",
        f"sha256:{_sha('f2', 64)}",
        f"Digest: sha256:{_sha('f3', 64)}\nStatus: Downloaded newer image for postgres:16-alpine",
        f"MD5 ({'release-notes.pdf'}) = {_sha('f4', 32)}",
        '"integrity": "sha512-' + base64.b64encode(hashlib.sha512(b"blind5-ordinary:npm").digest()).decode() + '"',
        f'ETag: "{_sha("f5", 32)}"',
        f"Checksum mismatch for go.sum: h1:{base64.b64encode(hashlib.sha256(b'blind5-ordinary:gosum').digest()).decode()}",
        f"image: ghcr.io/acme/api@sha256:{_sha('f6', 64)}",
        f"Build ID: {_sha('f7', 40)} (gnu)",
        f"SHA1 fingerprint of the CA certificate: {':'.join(_sha('f8', 40)[i : i + 2].upper() for i in range(0, 40, 2))}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFc0bGludGVyZXN0aW5nYnV0cHVibGlja2V5b25seQ jane@laptop",
        "The key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 jane@laptop",
        # uuids and ids
        "Request ID: 3f2b8c1e-9a4d-4e7b-b1c2-7d8e9f0a1b2c",
        "GET /api/v2/orders/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d/items?page=2 HTTP/1.1",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
        "Created subscription sub_1OaBcD2eFgHiJkLm for customer cus_PqRsTuVwXyZ",
        "arn:aws:lambda:eu-west-1:123456789012:function:resize-images:42",
        "projects/acme-prod-3141/locations/europe-west1/services/api",
        "/subscriptions/0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e/resourceGroups/rg-prod/providers/Microsoft.Web/sites/acme-api",
        "i-0a1b2c3d4e5f67890 running t3.large eu-west-1b",
        "vpc-0f3e2d1c0b9a87654 / subnet-0123abcd4567ef890",
        "Slack channel C04ABCD1234, thread ts 1732701234.123459",
        "Discord guild 1178293847561029384, channel 1178293847561029999",
        "Job 7412093381 failed on runner ubuntu-latest (attempt 2)",
        "ami-0c55b159cbfafe1f0",
        "Stripe event evt_1PqRsTuVwXyZ012345 delivered (200) to /webhooks/stripe",
        "Order #A-2026-118273 shipped via DHL 00340434161094042557",
        "ULID 01HZX3Y4K5M6N7P8Q9R0S1T2V3",
        "Snowflake query id 01b2c3d4-0000-1a2b-0000-00010c2d3e4f",
        # base64 of non-secret data
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "echo SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgYSBncmVldGluZy4= | base64 -d",
        "Content-Transfer-Encoding: base64\n\nVGhhbmtzIGZvciB5b3VyIG9yZGVyLiBZb3VyIHBhY2thZ2Ugd2lsbCBhcnJpdmUgb24gTW9uZGF5Lg==",
        "font-src data:font/woff2;base64,d09GMgABAAAAAAnQAA4AAAAAFAAAAAl8AAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENDQVRlZ0F3SUJBZ0lVWm",
        "The JWT header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 just says HS256 and JWT.",
        "kubectl get configmap app-config -o jsonpath='{.data.settings\\.json}' | base64 -d",
        '"thumbnail": "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA="',
        # variable names and prose about secrets
        "password_field = forms.CharField(widget=forms.PasswordInput, min_length=12)",
        "const [showPassword, setShowPassword] = useState(false);",
        "if not user.check_password(form.cleaned_data['password']):\n    raise ValidationError('Invalid credentials')",
        'def rotate_api_key(user_id: int) -> ApiKey:\n    """Issue a new key and revoke the old one."""',
        "The token expired, so the client refreshes it with the refresh token before retrying.",
        "We store only a salted hash of the password (argon2id, t=3, m=64MiB).",
        "token = request.headers.get('Authorization', '').removeprefix('Bearer ')",
        "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
        'api_key = os.getenv("OPENAI_API_KEY")\nif not api_key:\n    sys.exit("set OPENAI_API_KEY first")',
        "password = getpass.getpass('Vault password: ')",
        "export GITHUB_TOKEN=$(gh auth token)",
        "DB_PASSWORD=${DB_PASSWORD:?DB_PASSWORD must be set}",
        "aws_secret_access_key = {{ lookup('env', 'AWS_SECRET_ACCESS_KEY') }}",
        "password: ${{ secrets.REGISTRY_PASSWORD }}",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password",
        "The login form sends username and password over TLS; the server never logs them.",
        "Reset password link sent to j***@acme.io",
        "Forgot your password? Click here to reset it.",
        "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:",
        "Tokenizer vocabulary size: 50257 tokens",
        "The model has a context window of 200k tokens.",
        "MAX_TOKENS = 4096",
        "lexer error: unexpected token '}' at line 14, column 3",
        "SyntaxError: Unexpected token < in JSON at position 0",
        "CSRF token missing or incorrect.",
        "Your session has expired. Please sign in again.",
        "The secret to fast builds is caching the node_modules layer.",
        "private_key_path = Path.home() / '.ssh' / 'id_ed25519'",
        "ssh-keygen -t ed25519 -C 'jane@acme.io' -f ~/.ssh/id_acme",
        "openssl genrsa -out server.key 4096",
        "git config --global credential.helper osxkeychain",
        "security find-generic-password -s 'acme-cli' -w",
        "PasswordAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password",
        "auth required pam_unix.so nullok_secure",
        "min_password_length: 12\nrequire_symbols: true\npassword_history: 5",
        "isPasswordValid(password: string): boolean {\n  return password.length >= 12;\n}",
        "TOKEN_EXPIRY_SECONDS = 3600\nREFRESH_TOKEN_EXPIRY_DAYS = 30",
        # docs with placeholders
        'curl -H "Authorization: Bearer <YOUR_TOKEN>" https://api.acme.io/v1/me',
        'export OPENAI_API_KEY="your-api-key-here"',
        "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
        "AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX\nAWS_SECRET_ACCESS_KEY=<your secret key>",
        "Set `GITHUB_TOKEN` to a personal access token with the `repo` scope.",
        "postgres://USER:PASSWORD@HOST:5432/DBNAME",
        "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/",
        "DATABASE_URL=postgresql://user:password@localhost:5432/app_dev",
        "Replace REPLACE_ME with the value shown in the dashboard.",
        "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/XXX/YYY/ZZZ",
        "password: changeme  # placeholder, overridden by the chart in every environment",
        'api_key: "${API_KEY}"',
        "Authorization: Basic <base64(username:password)>",
        "docker login -u USERNAME --password-stdin < token.txt",
        'token = "..."  # paste your token here',
        'client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])',
        "ANTHROPIC_API_KEY=sk-ant-...",
        "Example: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (40 characters)",
        "Use `-----BEGIN PUBLIC KEY-----` blocks for verification keys.",
        "See https://docs.acme.io/auth#api-keys for how to create a key.",
        "The redacted value shows as [REDACTED] in the logs.",
        "OPENAI_API_KEY=sk-...abcd (last four characters shown)",
        "password=******** (hidden)",
        "Masked: ghp_****************************Ab12",
        # versions and identifiers
        "Python 3.12.7 (main, Oct  1 2026, 08:27:14) [GCC 13.2.0] on linux",
        "node v22.11.0, npm 10.9.0, pnpm 9.14.2",
        "Successfully installed fastapi-0.115.5 pydantic-2.10.1 pydantic-core-2.27.1 starlette-0.41.3",
        "rustc 1.83.0 (90b35a623 2026-11-26)",
        "go version go1.23.3 linux/amd64",
        "Kubernetes v1.31.2, containerd://1.7.22",
        "com.fasterxml.jackson.core:jackson-databind:2.18.1",
        "AbstractSingletonProxyFactoryBeanTransactionInterceptorConfigurationPostProcessor",
        "test_refresh_token_is_rotated_when_access_token_expires_during_long_upload PASSED",
        "ERR_SSL_VERSION_OR_CIPHER_MISMATCH",
        "X-RateLimit-Remaining: 4987\nX-RateLimit-Reset: 1732701600",
        "Content-Security-Policy: default-src 'self'; script-src 'self' 'nonce-r4nd0m'",
        "Cache-Control: no-store, max-age=0",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        "@@ -41,7 +41,9 @@ class PasswordResetView(View):",
        "TS2322: Type 'string | undefined' is not assignable to type 'string'.",
        "warning: unused variable: `token` --> src/auth.rs:42:9",
        "E501 line too long (104 > 100 characters)",
        "pytest -k 'test_login and not slow' -x -q",
        # urls with ids
        "https://github.com/acme/platform/pull/4821/files#diff-" + _sha("u1", 64),
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
        "https://docs.google.com/document/d/1aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdEf/edit",
        "https://console.cloud.google.com/logs/query;query=severity%3DERROR?project=acme-prod-3141",
        "https://acme.atlassian.net/browse/PLAT-4821",
        "https://sentry.io/organizations/acme/issues/4829103746/?project=5512&query=is%3Aunresolved",
        "https://app.datadoghq.eu/apm/traces?query=service%3Acheckout&start=1732700000000",
        "https://drive.google.com/file/d/1Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe/view?usp=sharing",
        "https://stackoverflow.com/questions/12345678/how-to-store-passwords-securely",
        "https://registry.npmjs.org/@acme%2fsdk/-/sdk-4.2.1.tgz",
        "https://pypi.org/project/acme-sdk/4.2.1/#files",
        "https://cdn.acme.io/assets/app.3f9a1c2e.js",
        "https://example.com/reset?step=2&lang=en",
        "http://localhost:8080/oauth/callback?state=af0ifjsldkj&error=access_denied",
        "wss://rt.acme.io/socket?room=lobby&v=2",
        # css, colours, numbers
        "color: #1a73e8; background: #f8f9fa; border-color: #dadce0;",
        "--primary-500: #3b82f6;\n--primary-600: #2563eb;",
        "rgba(15, 23, 42, 0.85)",
        "grid-template-columns: repeat(auto-fill, minmax(240px, 1fr));",
        "transform: translate3d(0, -4px, 0) rotate(-2deg);",
        "Phone: +49 30 1234567-89",
        "IBAN format example: DE00 0000 0000 0000 0000 00",
        "Latitude 52.520008, longitude 13.404954",
        "Elapsed: 00:03:41.271, peak memory 1.83 GiB",
        "0xdeadbeef",
        "Segmentation fault at address 0x00007f3a9c2b4e10",
        "[ 1234.567890] usb 1-1: new high-speed USB device number 4 using xhci_hcd",
        "tcp        0      0 0.0.0.0:5432      0.0.0.0:*       LISTEN      1021/postgres",
        # log lines
        "2026-11-27T10:14:02.118Z INFO  auth: user 81723 logged in (mfa=totp)",
        "2026-11-27 10:14:03,551 WARNING token refresh failed: 401 Unauthorized, retrying in 2s",
        "[2026-11-27 10:14:05] production.ERROR: Invalid credentials supplied for user id 42",
        'level=info msg="rotated signing key" kid=sig-2026-11 alg=RS256',
        "Nov 27 10:14:07 web01 sshd[2210]: Accepted publickey for deploy from 10.0.0.4 port 52144 ssh2: ED25519 SHA256:Ez8sVt1xLdJ9nS0q4mB3vR6wK2yP7uH5cF9aG1oI3eQ",
        "Nov 27 10:14:09 web01 sshd[2214]: Failed password for invalid user admin from 203.0.113.50 port 41122 ssh2",
        '172.16.0.9 - - [27/Nov/2026:10:15:11 +0000] "POST /login HTTP/1.1" 302 0 "-" "Mozilla/5.0"',
        "WARN  [main] o.s.b.a.s.s.UserDetailsServiceAutoConfiguration: Using generated security password: see startup banner",
        "npm WARN deprecated request@2.88.2: request has been deprecated",
        "INFO: Started server process [4821]\nINFO: Uvicorn running on http://0.0.0.0:8000",
        "Vault unsealed: Sealed false, Total Shares 5, Threshold 3, Version 1.18.1",
        "Successfully rotated 3 secrets; next rotation in 30 days.",
        "Access denied: token lacks scope 'repo:write'",
        "Error: No credentials found. Run `acme login` first.",
        "HTTP 403: Resource not accessible by integration",
        "kubectl create secret generic db-credentials --from-env-file=.env.production",
        "helm upgrade --install api ./chart -f values.yaml --set image.tag=4.2.1",
        "terraform apply -var-file=prod.tfvars -auto-approve",
        "gcloud secrets versions access latest --secret=db-password",
        "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
        "vault kv put secret/app password=@password.txt",
        # mixed developer chatter
        "Can you explain why the refresh token flow fails when the clock skew is over 5 minutes?",
        "I rotated the API keys yesterday, the old ones are revoked now.",
        "The password policy requires 12 characters, a digit and a symbol.",
        "Let's move all secrets into Vault and inject them at runtime.",
        "Our JWTs are signed with RS256 and the public keys live at /.well-known/jwks.json.",
        "The webhook signature header is Stripe-Signature; we verify it with the endpoint secret from env.",
        "Why does `git push` ask for my password even though I set up SSH keys?",
        "Use a fine-grained PAT instead of a classic one, scoped to a single repo.",
        "The session cookie is HttpOnly, Secure and SameSite=Lax.",
        "Which is better for API auth: HMAC signatures or bearer tokens?",
        "Remember: never commit .env files; .env.example is fine.",
        "He said the password was on a sticky note, which is exactly what we want to avoid.",
        "Tokens are hashed with SHA-256 before they are stored in the api_keys table.",
        # config without secrets
        "[database]\nhost = localhost\nport = 5432\nname = app_dev\nuser = app",
        "server:\n  port: 8080\n  ssl:\n    enabled: true\n    key-store: classpath:keystore.p12\n    key-store-type: PKCS12",
        "LOG_LEVEL=debug\nPORT=3000\nNODE_ENV=development\nFEATURE_NEW_CHECKOUT=true",
        "[default]\nregion = eu-west-1\noutput = json",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3",
        'resource "aws_db_instance" "main" {\n  engine         = "postgres"\n  instance_class = "db.t3.medium"\n  manage_master_user_password = true\n}',
        '{\n  "compilerOptions": {\n    "strict": true,\n    "target": "ES2022"\n  }\n}',
        '[tool.ruff]\nline-length = 100\ntarget-version = "py311"',
        "FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nRUN pip install --no-cache-dir -r requirements.txt",
        "-----BEGIN CERTIFICATE REQUEST-----\nMIICvDCCAaQCAQAwdzELMAkGA1UEBhMCREUxDzANBgNVBAgMBkJlcmxpbjEPMA0G\n-----END CERTIFICATE REQUEST-----",
        "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----",
    ]


BLIND5_ORDINARY: list[str] = _ordinary()
