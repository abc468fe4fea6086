"""Ninth held-out secrets corpus, written blind for issue 36.

Written blind: its author read none of the redaction rules and none of the other corpora, only the
``Secret``/``SeededDraw`` helpers, the head of ``secrets_blind7`` (for its format) and the measuring
module.  The forms come from software-development work: application code in many languages, build
tools and package managers, CI/CD logs, test fixtures, debugging output, stack traces, HTTP clients,
SDK initialisation, database clients and ORMs, message queues, feature-flag and analytics SDKs,
mobile and game development, git and code review, editor and IDE settings.  Values are drawn from
SeededDraw("blind9") or written by hand; none is live.  It must never be used to tune rules.
"""

from __future__ import annotations

import base64
import hashlib

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_B64URL = ALNUM + "-_"
_DIGITS = "0123456789"


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


_DRAW = SeededDraw("blind9")
_s = _DRAW.chars
_SECRETS: list[Secret] = []


def _add(name: str, needle: str, template: str) -> None:
    """A form whose ``template`` holds the needle at ``@@``."""
    _SECRETS.append(Secret(name, template.replace("@@", needle), needle))


def _jwt(seed: str, payload: str) -> str:
    head = b64url_text('{"alg":"HS256","typ":"JWT"}')
    return f"{head}.{b64url_text(payload)}.{_s(seed, 43, _B64URL)}"


def _uuid(seed: str) -> str:
    h = _s(seed, 32, _HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


# --- github ---------------------------------------------------------------------------------------
_GH = "gh" + "p_"
_add("github/pat_export", _GH + _s("gh1", 36), "export GITHUB_TOKEN=@@\nnpm run release")
_add("github/pat_in_remote", _GH + _s("gh2", 36), "$ git remote -v\norigin\thttps://@@@github.com/acme/api.git (fetch)")
_add(
    "github/fine_grained",
    "github" + "_pat_" + _s("gh3", 22) + "_" + _s("gh3b", 59),
    "# octokit\nconst octokit = new Octokit({ auth: '@@' });",
)
_add("github/oauth_gho", "gh" + "o_" + _s("gh4", 36), "gh auth status\n  ✓ Token: @@")
_add("github/actions_ghs", "gh" + "s_" + _s("gh5", 36), "Run actions/checkout@v4\n  token: @@\n  ssh-strict: true")
_add("github/refresh_ghr", "gh" + "r_" + _s("gh6", 76), "refresh_token=@@&expires_in=15897600")
_add(
    "github/hub_config",
    _GH + _s("gh7", 36),
    "~/.config/hub:\ngithub.com:\n- user: mkowalski\n  oauth_token: @@\n  protocol: https",
)
_add(
    "github/go_private",
    _GH + _s("gh8", 36),
    'git config --global url."https://ci:@@@github.com/".insteadOf "https://github.com/"',
)
_add("github/classic_hex", _s("gh9", 40, _HEX), "[github]\n\tuser = rhea\n\ttoken = @@")

# --- gitlab ---------------------------------------------------------------------------------------
_GL = "gl" + "pat-"
_add(
    "gitlab/pat_header",
    _GL + _s("gl1", 20, _B64URL),
    'curl --header "PRIVATE-TOKEN: @@" https://gitlab.example.com/api/v4/projects',
)
_add(
    "gitlab/runner_reg",
    "GR1348941" + _s("gl2", 20, _B64URL),
    "gitlab-runner register --url https://gitlab.com/ --registration-token @@",
)
_add(
    "gitlab/ci_trigger",
    "glptt-" + _s("gl3", 40, _HEX),
    "curl -X POST -F token=@@ -F ref=main https://gitlab.com/api/v4/projects/42/trigger/pipeline",
)
_add(
    "gitlab/deploy_token",
    "gldt-" + _s("gl4", 20, _B64URL),
    "docker login registry.gitlab.com -u gitlab+deploy-token-17 -p @@",
)
_add(
    "gitlab/clone_url",
    _GL + _s("gl5", 20, _B64URL),
    "git clone https://oauth2:@@@gitlab.internal.io/platform/infra.git",
)
_add(
    "gitlab/ci_variable_dump",
    _GL + _s("gl6", 20, _B64URL),
    "$ env | sort\nCI_JOB_ID=88123\nDANGER_GITLAB_API_TOKEN=@@\nHOME=/root",
)

# --- package managers -----------------------------------------------------------------------------
_add("pkgmgr/npmrc", "npm" + "_" + _s("np1", 36), "//registry.npmjs.org/:_authToken=@@\nalways-auth=true")
_add(
    "pkgmgr/npmrc_basic", _DRAW.b64("np2", 24), "; .npmrc\nregistry=https://npm.corp.net/\n_auth=@@\nemail=ci@corp.net"
)
_add(
    "pkgmgr/pypirc",
    "pypi-" + _s("py1", 8) + "A" + _s("py1b", 150, _B64URL),
    "[pypi]\n  username = __token__\n  password = @@",
)
_add("pkgmgr/pip_conf_index", "Spr1ngRoll-88", "[global]\nindex-url = https://deploy:@@@pypi.corp.net/simple/")
_add(
    "pkgmgr/yarnrc",
    "npm" + "_" + _s("np3", 36),
    'npmScopes:\n  acme:\n    npmAuthToken: "@@"\n    npmRegistryServer: "https://npm.pkg.github.com"',
)
_add(
    "pkgmgr/gradle_properties",
    _s("gr1", 24),
    "# ~/.gradle/gradle.properties\nossrhUsername=jlee\nossrhPassword=@@\nsigning.keyId=24875D73",
)
_add(
    "pkgmgr/maven_settings",
    "mvn-" + _s("mv1", 18),
    "<server>\n  <id>nexus-releases</id>\n  <username>deployer</username>\n  <password>@@</password>\n</server>",
)
_add(
    "pkgmgr/nuget",
    "oy2" + _s("nu1", 43, _LOWER),
    "dotnet nuget push bin/Release/Acme.Core.2.1.0.nupkg --api-key @@ --source https://api.nuget.org/v3/index.json",
)
_add("pkgmgr/composer_auth", _s("cp1", 40, _HEX), '{\n  "github-oauth": {\n    "github.com": "@@"\n  }\n}')
_add("pkgmgr/cargo_credentials", "cio" + _s("cg1", 32), '# ~/.cargo/credentials.toml\n[registry]\ntoken = "@@"')
_add("pkgmgr/gem_credentials", "rubygems_" + _s("rg1", 48, _HEX), "---\n:rubygems_api_key: @@")
_add("pkgmgr/poetry_cli", "pypi-" + _s("py2", 60, _B64URL), "poetry config pypi-token.pypi @@")
_add("pkgmgr/bundler_env", "x-oauth-basic:" + _s("bd1", 30), "BUNDLE_GITHUB__COM=@@ bundle install")

# --- docker / registries ----------------------------------------------------------------------
_add(
    "docker/config_auth",
    base64.b64encode(b"builder:" + _s("dk1", 20).encode()).decode(),
    '{"auths":{"ghcr.io":{"auth":"@@"}}}',
)
_add("docker/login_stdin", "dckr_pat_" + _s("dk2", 27, _B64URL), "echo @@ | docker login -u acmebot --password-stdin")
_add(
    "docker/compose_env",
    "pg_" + _s("dk3", 14, _LOWER),
    "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: @@",
)
_add("docker/build_arg", _s("dk4", 32, _HEX), "docker build --build-arg NPM_TOKEN=@@ -t web:dev .")
_add(
    "docker/history_leak",
    "hunter-Otter-42",
    'IMAGE          CREATED BY\n<missing>      /bin/sh -c echo "admin:@@" | chpasswd',
)
_add("docker/dockerfile_env", "sk" + "_live_" + _s("dk5", 24), "FROM node:20-alpine\nENV STRIPE_KEY=@@\nCOPY . .")

# --- cloud: aws / gcp / azure ----------------------------------------------------------------------
_AKID = "AK" + "IA" + _s("aw1", 16, _UPPER)
_add("aws/access_key_id", _AKID, "[default]\naws_access_key_id = @@\nregion = eu-west-1")
_add(
    "aws/secret_in_credentials",
    _s("aw2", 40, ALNUM + "+/"),
    "[ci]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = @@",
)
_add(
    "aws/boto3_client",
    _s("aw3", 40, ALNUM + "+/"),
    "s3 = boto3.client('s3', aws_access_key_id=KEY_ID,\n    aws_secret_access_key='@@')",
)
_add("aws/session_token", "FwoGZXIvYXdzE" + _s("aw4", 120, ALNUM + "+/"), "AWS_SESSION_TOKEN=@@")
_add(
    "aws/js_sdk",
    _s("aw5", 40, ALNUM + "+/"),
    'new S3Client({ credentials: { accessKeyId: process.env.KID, secretAccessKey: "@@" } })',
)
_add(
    "aws/ci_log_masked_fail",
    _s("aw6", 40, ALNUM + "+/"),
    "+ aws configure set aws_secret_access_key @@ --profile deploy\n+ aws s3 sync dist s3://site",
)
_add(
    "gcp/service_account_key",
    _DRAW.b64("gc1", 96),
    '{\n  "type": "service_account",\n  "private_key_id": "1f2e",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n@@\\n-----END PRIVATE KEY-----\\n"\n}',
)
_add("gcp/api_key", "AI" + "za" + _s("gc2", 35, _B64URL), '<string name="google_maps_key">@@</string>')
_add(
    "gcp/oauth_client_secret",
    "GOCSPX-" + _s("gc3", 28, _B64URL),
    "flow = InstalledAppFlow.from_client_config({'installed': {'client_id': 'x.apps.googleusercontent.com', 'client_secret': '@@'}}, SCOPES)",
)
_add("gcp/access_token", "ya29." + _s("gc4", 100, _B64URL), "Authorization: Bearer @@")
_add(
    "azure/storage_conn",
    _DRAW.b64("az1", 64),
    "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=@@;EndpointSuffix=core.windows.net",
)
_add(
    "azure/client_secret",
    _s("az2", 3) + "8Q~" + _s("az2b", 34, _B64URL),
    "az login --service-principal -u 5f0c -p @@ --tenant contoso.onmicrosoft.com",
)
_add(
    "azure/sas_sig",
    _DRAW.b64("az3", 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"),
    "https://acme.blob.core.windows.net/builds/app.zip?sv=2022-11-02&ss=b&sp=r&sig=@@",
)
_add(
    "azure/devops_pat",
    _s("az4", 52, "abcdefghijklmnopqrstuvwxyz234567"),
    'git -c http.extraheader="AUTHORIZATION: basic $(echo -n :@@ | base64)" clone https://dev.azure.com/org/p/_git/r',
)
_add(
    "azure/functions_key", _s("az5", 54, _B64URL) + "==", "curl 'https://fn-acme.azurewebsites.net/api/resize?code=@@'"
)

# --- payments ---------------------------------------------------------------------------------
_add("stripe/secret_live", "sk" + "_live_" + _s("st1", 99), 'Stripe.api_key = "@@"')
_add("stripe/restricted", "rk" + "_live_" + _s("st2", 99), "STRIPE_RESTRICTED_KEY=@@")
_add(
    "stripe/webhook_secret",
    "wh" + "sec_" + _s("st3", 32),
    "endpoint_secret = '@@'  # stripe listen --forward-to localhost:4242/webhook",
)
_add(
    "stripe/test_key_ruby",
    "sk" + "_test_" + _s("st4", 99),
    "# spec/support/stripe.rb\nStripeMock.start\nStripe.api_key = '@@'",
)
_add(
    "payments/paypal_secret",
    "E" + _s("pp1", 79, _B64URL),
    'paypalrestsdk.configure({"mode": "live", "client_id": "AYSq3", "client_secret": "@@"})',
)
_add(
    "payments/braintree_private",
    _s("bt1", 32, _HEX),
    "gateway = Braintree::Gateway.new(environment: :production, merchant_id: 'm1', public_key: 'p1', private_key: '@@')",
)
_add(
    "payments/square_token",
    "EAAA" + _s("sq1", 60, _B64URL),
    "client = Client(access_token='@@', environment='production')",
)

# --- messaging/comms vendors ------------------------------------------------------------------
_add(
    "slack/bot_token",
    "xo" + "xb-" + _s("sl1", 12, _DIGITS) + "-" + _s("sl1b", 13, _DIGITS) + "-" + _s("sl1c", 24),
    'app = App(token="@@", signing_secret=os.environ["SLACK_SIGNING_SECRET"])',
)
_add(
    "slack/webhook",
    "https://hooks.slack.com/services/T" + _s("sl2", 8, _UPPER) + "/B" + _s("sl2b", 10, _UPPER) + "/" + _s("sl2c", 24),
    '- name: notify\n  run: curl -X POST -d \'{"text":"deployed"}\' @@',
)
_add(
    "slack/user_token",
    "xo"
    + "xp-"
    + _s("sl3", 12, _DIGITS)
    + "-"
    + _s("sl3b", 12, _DIGITS)
    + "-"
    + _s("sl3c", 13, _DIGITS)
    + "-"
    + _s("sl3d", 32, _HEX),
    "SLACK_USER_TOKEN: @@",
)
_add("slack/signing_secret", _s("sl4", 32, _HEX), "SLACK_SIGNING_SECRET=@@")
_add(
    "comms/twilio_auth",
    _s("tw1", 32, _HEX),
    'client = twilio.NewRestClientWithParams(twilio.ClientParams{Username: "AC'
    + _s("tw1a", 32, _HEX)
    + '", Password: "@@"})',
)
_add("comms/sendgrid", "SG." + _s("sg1", 22, _B64URL) + "." + _s("sg1b", 43, _B64URL), "sgMail.setApiKey('@@');")
_add("comms/mailgun", "key-" + _s("mg1", 32, _HEX), 'requests.post(url, auth=("api", "@@"), data=msg)')
_add(
    "comms/discord_bot",
    "MT" + _s("dc1", 24, _B64URL) + "." + _s("dc1b", 6, _B64URL) + "." + _s("dc1c", 38, _B64URL),
    "client.run('@@')",
)
_add(
    "comms/discord_webhook",
    "https://discord.com/api/webhooks/11" + _s("dc2", 16, _DIGITS) + "/" + _s("dc2b", 68, _B64URL),
    'WEBHOOK = "@@"',
)
_add("comms/telegram_bot", _s("tg1", 10, _DIGITS) + ":AA" + _s("tg1b", 33, _B64URL), 'bot = telebot.TeleBot("@@")')
_add("comms/postmark", _uuid("pm1"), "X-Postmark-Server-Token: @@")

# --- AI providers ---------------------------------------------------------------------------------
_add(
    "ai/openai_project",
    "sk" + "-proj-" + _s("oa1", 74, _B64URL) + "T3Blbk" + "FJ" + _s("oa1b", 74, _B64URL),
    'client = OpenAI(api_key="@@")',
)
_add(
    "ai/openai_legacy", "sk" + "-" + _s("oa2", 20) + "T3Blbk" + "FJ" + _s("oa2b", 20), "OPENAI_API_KEY=@@ python app.py"
)
_add(
    "ai/anthropic",
    "sk" + "-ant-api03-" + _s("an1", 93, _B64URL) + "AA",
    "const anthropic = new Anthropic({ apiKey: '@@' });",
)
_add("ai/huggingface", "hf" + "_" + _s("hf1", 34), "huggingface-cli login --token @@")
_add("ai/replicate", "r8" + "_" + _s("rp1", 37), "REPLICATE_API_TOKEN=@@")
_add("ai/cohere_hand", _s("co1", 40), 'co = cohere.Client("@@")')
_add("ai/groq", "gsk" + "_" + _s("gq1", 52), "llm = ChatGroq(model='llama3-70b', groq_api_key='@@')")

# --- observability ------------------------------------------------------------------------------
_add(
    "observability/sentry_legacy_dsn",
    _s("se1", 32, _HEX),
    "RAVEN_CONFIG = {'dsn': 'https://" + _s("se1p", 32, _HEX) + ":@@@sentry.corp.net/12'}",
)
_add("observability/sentry_auth", "sntrys_" + _DRAW.b64("se2", 60).rstrip("="), "[auth]\ntoken=@@")
_add("observability/datadog_api", _s("dd1", 32, _HEX), "DD_API_KEY=@@ DD_SITE=datadoghq.eu ./install_script_agent7.sh")
_add("observability/datadog_app", _s("dd2", 40, _HEX), "configuration.api_key['appKeyAuth'] = '@@'")
_add("observability/newrelic", "NRAK-" + _s("nr1", 27, _UPPER), "newrelic:\n  license_key: abc\n  user_api_key: @@")
_add("observability/newrelic_license", _s("nr2", 36, _HEX) + "NRAL", "license_key: @@\napp_name: checkout")
_add("observability/honeycomb", _s("hc1", 22), "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=@@")
_add(
    "observability/grafana",
    "glc_" + _DRAW.b64("gf1", 60).rstrip("="),
    "loki:\n  basic_auth:\n    username: 412733\n    password: @@",
)
_add("observability/rollbar", _s("rb1", 32, _HEX), "Rollbar.configure do |c|\n  c.access_token = '@@'\nend")
_add(
    "observability/bugsnag", _s("bs1", 32, _HEX), "Bugsnag.start({ apiKey: '@@', plugins: [new BugsnagPluginReact()] })"
)

# --- feature flags & analytics -----------------------------------------------------------------
_add("flags/launchdarkly_sdk", "sdk-" + _uuid("ld1"), 'ldclient.set_config(Config("@@"))')
_add(
    "flags/launchdarkly_api",
    "api-" + _uuid("ld2"),
    "curl -H 'Authorization: @@' https://app.launchdarkly.com/api/v2/flags/default",
)
_add(
    "flags/split_io",
    _s("spl1", 40, _LOWER),
    "const factory = SplitFactory({ core: { authorizationKey: '@@', key: userId } });",
)
_add("flags/unleash", "*:production." + _s("un1", 64, _HEX), "UNLEASH_API_TOKEN=@@")
_add("flags/flagsmith_server", "ser." + _s("fs1", 22), 'flagsmith = Flagsmith(environment_key="@@")')
_add("flags/configcat", _s("cc1", 22, _B64URL) + "/" + _s("cc1b", 22, _B64URL), "configcat.get_client('@@')")
_add("analytics/segment_write", _s("sgw1", 32), "Analytics.write_key = '@@'")
_add("analytics/mixpanel_secret", _s("mp1", 32, _HEX), "curl https://data.mixpanel.com/api/2.0/export -u @@:")
_add("analytics/amplitude_secret", _s("am1", 32, _HEX), "AMPLITUDE_API_KEY=4bb0d1\nAMPLITUDE_SECRET_KEY=@@")
_add("analytics/posthog_personal", "phx_" + _s("ph1", 43), "posthog.personal_api_key = '@@'")
_add("analytics/heap_hand", "Cr0cus!Field", "heap export --user data-team --pass @@ --since 2024-01-01")

# --- hosting & saas ---------------------------------------------------------------------------
_add("saas/heroku", "HRKU-" + _uuid("hk1"), "heroku config:set -a api HEROKU_API_KEY=@@")
_add("saas/vercel", _s("vc1", 24), "vercel deploy --prod --token @@")
_add("saas/netlify", "nfp_" + _s("nf1", 36), "NETLIFY_AUTH_TOKEN: @@")
_add("saas/cloudflare", _s("cf1", 40, _B64URL), "export CLOUDFLARE_API_TOKEN=@@\nwrangler deploy")
_add("saas/digitalocean", "dop" + "_v1_" + _s("do1", 64, _HEX), "doctl auth init -t @@")
_add("saas/shopify_admin", "shp" + "at_" + _s("sh1", 32, _HEX), "X-Shopify-Access-Token: @@")
_add("saas/atlassian", "ATATT3x" + _s("at1", 180, _B64URL), "JIRA_API_TOKEN=@@ jira issue list")
_add("saas/linear", "lin_api_" + _s("li1", 40), 'new LinearClient({ apiKey: "@@" })')
_add("saas/notion", "secret_" + _s("no1", 43), 'notion = Client(auth="@@")')
_add("saas/airtable", "pat" + _s("ai1", 14) + "." + _s("ai1b", 64, _HEX), "base = Airtable('appXYZ', '@@')")
_add(
    "saas/supabase_service",
    _jwt("sb1", '{"iss":"supabase","ref":"qwpl","role":"service_role","iat":1700000000}'),
    "SUPABASE_SERVICE_ROLE_KEY=@@",
)
_add("saas/algolia_admin", _s("al1", 32, _HEX), "const client = algoliasearch('LATENCY9X', '@@');")
_add(
    "saas/mapbox_secret",
    "sk." + b64url_text('{"u":"acme","a":"ck1"}') + "." + _s("mb1", 22, _B64URL),
    "MAPBOX_DOWNLOADS_TOKEN=@@",
)
_add("saas/contentful", "CFPAT-" + _s("cf2", 43, _B64URL), "contentful space import --management-token @@")
_add(
    "saas/terraform_cloud",
    _s("tf1", 14) + ".atlasv1." + _s("tf1b", 67),
    'credentials "app.terraform.io" {\n  token = "@@"\n}',
)
_add(
    "saas/vault_token",
    "hv" + "s." + _s("hv1", 90, _B64URL),
    "$ vault login\nToken (will be hidden):\nSuccess! token: @@",
)
_add("saas/doppler", "dp.st.prd." + _s("dp1", 43), "doppler run --token @@ -- npm start")

# --- database urls & clients ------------------------------------------------------------------
_add("db/postgres_url", "Kx9" + _s("pg1", 13), "DATABASE_URL=postgres://app:@@@db.internal:5432/app_prod")
_add("db/mysql_url_sqlalchemy", "tr0ub4dor&3", 'engine = create_engine("mysql+pymysql://report:@@@10.0.3.7/metrics")')
_add(
    "db/mongo_srv",
    _s("mg2", 16),
    "mongoose.connect('mongodb+srv://svc-orders:@@@cluster0.ab1cd.mongodb.net/orders?retryWrites=true')",
)
_add("db/redis_url", _s("rd1", 32, _HEX), "REDIS_URL=redis://:@@@redis-14411.c2.eu-west-1.cloud.redislabs.com:14411")
_add("db/rediss_default", _s("rd2", 24), "r = redis.from_url('rediss://default:@@@cache.upstash.io:6379')")
_add("db/psql_pgpassword", "Marmalade77", "PGPASSWORD=@@ psql -h localhost -U postgres -c '\\dt'")
_add("db/pgpass", "w1nter_is_coming", "# ~/.pgpass\nlocalhost:5432:*:postgres:@@")
_add("db/mysql_cli", "Rootroot2023", "mysql -h 127.0.0.1 -u root -p@@ shop < dump.sql")
_add(
    "db/jdbc",
    "j" + _s("jd1", 15),
    "spring.datasource.url=jdbc:postgresql://pg:5432/core\nspring.datasource.username=core\nspring.datasource.password=@@",
)
_add(
    "db/dotnet_conn",
    "Sq1Server!Pass",
    '"ConnectionStrings": { "Default": "Server=tcp:acme.database.windows.net,1433;User ID=sa;Password=@@;Encrypt=True" }',
)
_add(
    "db/rails_database_yml",
    "rails_" + _s("ry1", 12, _LOWER),
    "production:\n  adapter: postgresql\n  database: shop_production\n  username: shop\n  password: <%= ENV.fetch('DB_PW', '@@') %>",
)
_add(
    "db/django_settings",
    _s("dj1", 20),
    "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n        'USER': 'web',\n        'PASSWORD': '@@',\n    }\n}",
)
_add("db/prisma_env", _s("pr1", 18), '# .env\nDATABASE_URL="postgresql://johndoe:@@@localhost:5432/mydb?schema=public"')
_add(
    "db/knex_config",
    "kn3x-" + _s("kx1", 10, _LOWER),
    "module.exports = { client: 'pg', connection: { host: '127.0.0.1', user: 'api', password: '@@', database: 'api' } };",
)
_add(
    "db/gorm_dsn",
    "g0rm" + _s("go1", 10),
    'dsn := "host=localhost user=gorm password=@@ dbname=gorm port=9920 sslmode=disable"',
)
_add(
    "db/sequelize",
    "seq" + _s("sz1", 12),
    "const sequelize = new Sequelize('shop', 'admin', '@@', { host: 'db', dialect: 'mariadb' });",
)
_add(
    "db/typeorm_ormconfig",
    "typeorm_" + _s("to1", 10),
    '{\n  "type": "mysql",\n  "username": "test",\n  "password": "@@",\n  "database": "test"\n}',
)
_add(
    "db/ecto",
    "ecto" + _s("ec1", 12),
    'config :app, App.Repo,\n  username: "postgres",\n  password: "@@",\n  hostname: "localhost"',
)
_add("db/diesel_env", _s("ds1", 20), "echo DATABASE_URL=postgres://diesel:@@@localhost/diesel_demo > .env")
_add(
    "db/clickhouse",
    "ch_" + _s("ch1", 16),
    "clickhouse-client --host ch.internal --user default --password @@ --query 'SELECT 1'",
)
_add(
    "db/elasticsearch",
    _s("es1", 20),
    "es = Elasticsearch('https://es01:9200', basic_auth=('elastic', '@@'), ca_certs='ca.crt')",
)
_add(
    "db/cassandra", "cass" + _s("cs1", 8), "auth_provider = PlainTextAuthProvider(username='cassandra', password='@@')"
)
_add(
    "db/snowflake",
    "Sn0w" + _s("sf1", 12),
    "snowflake.connector.connect(user='ETL', password='@@', account='xy12345.eu-central-1')",
)
_add("db/neo4j", "neo" + _s("n4", 10), 'driver = GraphDatabase.driver("neo4j://localhost:7687", auth=("neo4j", "@@"))')
_add(
    "db/planetscale",
    "pscale_pw_" + _s("fb1", 43, _B64URL),
    "mysql -h aws.connect.psdb.cloud -u 8xk2 -p@@ --ssl-mode=VERIFY_IDENTITY shop",
)

# --- message queues --------------------------------------------------------------------------
_add("mq/amqp_url", "rabbit_" + _s("mq1", 12), "CELERY_BROKER_URL = 'amqp://celery:@@@rabbitmq:5672//'")
_add(
    "mq/kafka_sasl",
    _s("kf1", 64, ALNUM + "+/"),
    'sasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="OZQZ4" password="@@";',
)
_add("mq/confluent_cli", _s("kf2", 64, ALNUM + "+/"), "confluent api-key store 7WQJ2XKD @@ --resource lkc-abc12")
_add(
    "mq/sqs_go",
    _s("sq2", 40, ALNUM + "+/"),
    'creds := credentials.NewStaticCredentialsProvider("AKIA2EXAMPLEEXAMPLE", "@@", "")',
)
_add(
    "mq/nats_creds", "SUA" + _s("nt1", 55, _UPPER), "-----BEGIN USER NKEY SEED-----\n@@\n------END USER NKEY SEED------"
)
_add(
    "mq/azure_servicebus",
    _DRAW.b64("asb1", 32),
    "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=@@",
)
_add(
    "mq/pulsar_jwt",
    _jwt("pu1", '{"sub":"admin"}'),
    "bin/pulsar-admin --auth-plugin org.apache.pulsar.client.impl.auth.AuthenticationToken --auth-params token:@@ tenants list",
)
_add(
    "mq/bullmq_redis",
    "bull" + _s("bq1", 14),
    "new Queue('emails', { connection: { host: 'redis', port: 6379, password: '@@' } })",
)

# --- http clients & headers ------------------------------------------------------------------
_add(
    "http/curl_bearer",
    _s("ht1", 48, _B64URL),
    'curl -sS -H "Authorization: Bearer @@" https://api.internal/v1/me | jq .',
)
_add("http/curl_user", "qa-Pass-2024", "curl -u qa@example.com:@@ https://staging.example.com/api/health")
_add(
    "http/basic_header",
    base64.b64encode(b"svc-ci:" + _s("ht2", 18).encode()).decode(),
    "> GET /v2/ HTTP/1.1\n> Host: registry.local\n> Authorization: Basic @@\n> User-Agent: curl/8.4.0",
)
_add("http/axios_defaults", _s("ht3", 40, _HEX), "axios.defaults.headers.common['X-Api-Key'] = '@@';")
_add(
    "http/requests_session", _s("ht4", 36, _B64URL), 's = requests.Session()\ns.headers.update({"X-Auth-Token": "@@"})'
)
_add(
    "http/fetch_cookie",
    _s("ht5", 64, _HEX),
    "fetch('/api/cart', { headers: { Cookie: 'sessionid=@@; csrftoken=abc' } })",
)
_add("http/httpie", _s("ht6", 32), "http POST :8000/api/items Authorization:'Token @@' name=widget")
_add(
    "http/okhttp", _s("ht7", 40), 'val req = Request.Builder().url(url).addHeader("Authorization", "Bearer @@").build()'
)
_add(
    "http/query_param",
    _s("ht8", 32, _HEX),
    "GET https://api.openweathermap.org/data/2.5/weather?q=Oslo&appid=@@ 200 OK",
)
_add("http/har_entry", _s("ht9", 44, _B64URL), '{"name": "authorization", "value": "Bearer @@"}')
_add(
    "http/set_cookie_response",
    _s("hta", 40, _B64URL),
    "< HTTP/2 200\n< set-cookie: __Host-session=@@; Path=/; Secure; HttpOnly",
)
_add("http/restclient_file", _s("htb", 30), "### get user\nGET {{host}}/users/1\nAuthorization: Bearer @@")
_add("http/postman_env", _s("htc", 36, _B64URL), '{"key": "apiKey", "value": "@@", "type": "secret", "enabled": true}')
_add("http/go_setbasicauth", "g0phers-rule", 'req.SetBasicAuth("deploy", "@@")')
_add("http/rust_reqwest", _s("htd", 40), 'client.get(url).bearer_auth("@@").send().await?')

# --- jwt & sessions --------------------------------------------------------------------------
_add(
    "jwt/in_log",
    _jwt("jw1", '{"sub":"1042","role":"admin","exp":1900000000}'),
    "DEBUG auth.middleware: decoded token for request 7f3: @@",
)
_add("jwt/localstorage", _jwt("jw2", '{"uid":"u_88","scope":"rw"}'), "> localStorage.getItem('access_token')\n'@@'")
_add("jwt/signing_secret", "my-super-long-jwt-signing-secret-2024", "JWT_SECRET=@@")
_add("jwt/nextauth_secret", _DRAW.b64("na1", 32), "NEXTAUTH_SECRET=@@\nNEXTAUTH_URL=http://localhost:3000")
_add("jwt/rails_secret_key_base", _s("rk1", 128, _HEX), "SECRET_KEY_BASE=@@ RAILS_ENV=production bin/rails s")
_add(
    "jwt/django_secret",
    "django-insecure-" + _s("dj2", 50, "abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+)"),
    "SECRET_KEY = '@@'",
)
_add("jwt/flask_secret", _s("fl1", 24, _HEX), "app.config['SECRET_KEY'] = '@@'")
_add("jwt/laravel_app_key", "base64:" + _DRAW.b64("lv1", 32), "APP_ENV=production\nAPP_KEY=@@\nAPP_DEBUG=false")
_add("jwt/express_session", "keyboard-" + _s("ex1", 12, _LOWER), "app.use(session({ secret: '@@', resave: false }))")
_add("jwt/refresh_in_test", _s("jw3", 64, _B64URL), "expect(res.body.refresh_token).toBe('@@')")

# --- private keys ------------------------------------------------------------------------
_add(
    "privkey/rsa_pem",
    _DRAW.b64("pk1", 96),
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n@@\n-----END RSA PRIVATE KEY-----",
)
_add(
    "privkey/openssh",
    _DRAW.b64("pk2", 90),
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n@@\n-----END OPENSSH PRIVATE KEY-----",
)
_add(
    "privkey/ec_inline_env",
    _DRAW.b64("pk3", 66),
    'APPLE_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\n@@\\n-----END PRIVATE KEY-----"',
)
_add(
    "privkey/deploy_key_gha",
    _DRAW.b64("pk4", 72),
    "- uses: webfactory/ssh-agent@v0.9.0\n  with:\n    ssh-private-key: |\n      -----BEGIN OPENSSH PRIVATE KEY-----\n      @@\n      -----END OPENSSH PRIVATE KEY-----",
)
_add(
    "privkey/pgp_block",
    _DRAW.b64("pk5", 80),
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGX\n@@\n=Xq3f\n-----END PGP PRIVATE KEY BLOCK-----",
)
_add("privkey/wireguard", _DRAW.b64("wg1", 32), "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = @@")
_add(
    "privkey/age_key",
    "AGE-SECRET-KEY-1" + _s("ag1", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
    "# created: 2024-03-02\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n@@",
)
_add("privkey/eth_private", "0x" + _s("eth1", 64, _HEX), "const wallet = new ethers.Wallet('@@', provider);")
_add("privkey/hardhat_config", _s("eth2", 64, _HEX), 'networks: { sepolia: { url: RPC, accounts: ["@@"] } }')

# --- ci/cd ------------------------------------------------------------------------------------
_add("ci/gha_env_echo", "Ch4ngeMe-" + _s("ci1", 8), 'Run echo "pw=$DB_PASSWORD"\npw=@@\nRun npm test')
_add(
    "ci/jenkins_console",
    _s("ci2", 32, _HEX),
    "[Pipeline] sh\n+ curl -u jenkins:@@ https://nexus.corp/service/rest/v1/components",
)
_add(
    "ci/circleci_env",
    "CCIPAT_" + _s("ci3", 22) + "_" + _s("ci3b", 40, _HEX),
    "circleci setup --token @@ --host https://circleci.com",
)
_add("ci/travis_env", _s("ci4", 20), "env:\n  global:\n    - SONAR_TOKEN=@@")
_add("ci/gitlab_ci_yml", _s("ci5", 24), "deploy:\n  script:\n    - sshpass -p '@@' scp build.tgz deploy@10.0.0.4:/srv")
_add(
    "ci/bitbucket_pipelines",
    _s("ci6", 20),
    "- pipe: atlassian/ftp-deploy:0.3.7\n  variables:\n    USER: 'ftpuser'\n    PASSWORD: '@@'",
)
_add(
    "ci/argo_cd",
    _jwt("ci7", '{"iss":"argocd","sub":"admin:apiKey","jti":"b1"}'),
    "argocd app sync web --auth-token @@ --server argocd.acme.io",
)
_add("ci/sonar_token", "sqp_" + _s("ci8", 40, _HEX), "mvn sonar:sonar -Dsonar.login=@@")
_add("ci/codecov", _uuid("ci9"), "bash <(curl -s https://codecov.io/bash) -t @@")
_add("ci/buildkite_agent", _s("cia", 50, _HEX), "buildkite-agent start --token @@ --tags queue=deploy")
_add("ci/drone_secret", _s("cib", 32), "DRONE_RPC_SECRET=@@")
_add(
    "ci/k8s_secret_stringdata",
    "hunter2-prod-" + _s("cic", 6, _LOWER),
    "apiVersion: v1\nkind: Secret\nstringData:\n  password: @@",
)
_add(
    "ci/k8s_secret_data_b64",
    base64.b64encode(("Pr0d" + _s("cid", 14)).encode()).decode(),
    "kind: Secret\ndata:\n  DB_PASSWORD: @@",
)
_add(
    "ci/helm_set", "helm" + _s("cie", 12), "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword=@@"
)
_add(
    "ci/ansible_vault_pw",
    "vault-pass-" + _s("cif", 8, _LOWER),
    "echo '@@' > ~/.vault_pass.txt && ansible-playbook site.yml --vault-password-file ~/.vault_pass.txt",
)
_add("ci/terraform_tfvars", _s("cig", 24), '# terraform.tfvars\ndb_admin_password = "@@"\nregion = "eu-west-1"')
_add("ci/fastlane_match", "M4tch-" + _s("cih", 10), "MATCH_PASSWORD=@@ bundle exec fastlane ios beta")

# --- stack traces & debug output ----------------------------------------------------------
_add(
    "trace/python_locals",
    "P@ssw0rd-" + _s("tr1", 6, _LOWER),
    "Traceback (most recent call last):\n  File \"db.py\", line 12, in connect\n    conn = psycopg2.connect(host=h, password=pw)\n    pw = '@@'\npsycopg2.OperationalError: FATAL:  password authentication failed",
)
_add(
    "trace/java_exception",
    "jdbcpw" + _s("tr2", 8),
    "org.postgresql.util.PSQLException: FATAL: auth failed\n\tat Main.main(Main.java:14)\nCaused by: config {url=jdbc:postgresql://db/x, user=x, password=@@}",
)
_add(
    "trace/node_unhandled",
    _s("tr3", 40, _HEX),
    "UnhandledPromiseRejection: Error: Request failed with status code 401\n    config: { headers: { 'x-api-key': '@@' } }",
)
_add(
    "trace/rust_panic",
    _s("tr4", 32),
    "thread 'main' panicked at src/main.rs:22:5:\ncalled `Result::unwrap()` on an `Err` value: Auth { token: \"@@\" }",
)
_add(
    "trace/go_printf", _s("tr5", 28), "2024/05/02 10:11:12 client config: &{Endpoint:api.acme.io Token:@@ Timeout:30s}"
)
_add(
    "trace/ruby_inspect",
    _s("tr6", 24),
    '#<Faraday::Response status=403 env=#<Faraday::Env @request_headers={"Authorization"=>"token @@"}>>',
)
_add(
    "trace/php_var_dump",
    "phpmy" + _s("tr7", 10),
    'array(3) {\n  ["host"]=> string(9) "localhost"\n  ["user"]=> string(4) "root"\n  ["pass"]=> string(15) "@@"\n}',
)
_add(
    "trace/dotnet_log",
    _s("tr8", 22),
    "fail: Microsoft.EntityFrameworkCore.Database.Connection[20004]\n      An error occurred using the connection to database 'Shop' on server 'Data Source=db;User Id=sa;Password=@@'.",
)
_add("trace/swift_print", _s("tr9", 30), 'Optional(Config(baseURL: https://api.app.io, apiKey: "@@"))')
_add("trace/kotlin_toString", _s("tra", 26), "D/AuthRepo: Session(userId=881, accessToken=@@, expiresIn=3600)")
_add(
    "trace/env_dump_printenv",
    _s("trb", 32, _HEX),
    "$ printenv | grep -i pay\nPAYMENT_GATEWAY_SECRET=@@\nPAYMENT_MODE=live",
)

# --- mobile & games ------------------------------------------------------------------------
_add(
    "mobile/android_keystore",
    "andr0id-rel-" + _s("mb2", 6, _LOWER),
    'android {\n  signingConfigs {\n    release {\n      storePassword "@@"\n      keyAlias "upload"\n    }\n  }\n}',
)
_add(
    "mobile/key_properties",
    "Upl0adKey" + _s("mb3", 5),
    "storePassword=123456\nkeyPassword=@@\nkeyAlias=upload\nstoreFile=../upload.jks",
)
_add("mobile/ios_plist", _s("mb4", 32, _HEX), "<key>RevenueCatAPIKey</key>\n<string>@@</string>")
_add("mobile/app_store_connect", _DRAW.b64("mb5", 50), "APP_STORE_CONNECT_API_KEY_CONTENT=@@")
_add("mobile/expo_token", _s("mb6", 40, _B64URL), "EXPO_TOKEN=@@ eas build --platform ios")
_add("mobile/onesignal", _s("mb7", 48, _B64URL), "OneSignal.setAppId(...) // REST key: @@")
_add("mobile/flutter_dart_define", _s("mb8", 32), "flutter run --dart-define=API_SECRET=@@")
_add(
    "mobile/fcm_server_key",
    "AAAA" + _s("mb9", 7, _B64URL) + ":APA91b" + _s("mb9b", 134, _B64URL),
    "headers = {'Authorization': 'key=@@'}",
)
_add(
    "game/steam_webapi",
    _s("gm1", 32, _UPPER[:16]),
    "https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key=@@&steamids=7656",
)
_add("game/unity_cloud", _s("gm2", 32, _HEX), "UNITY_PASSWORD=@@ unity-editor -batchmode -manualLicenseFile Unity.ulf")
_add("game/playfab", _s("gm3", 52, _UPPER), 'PlayFabSettings.staticSettings.DeveloperSecretKey = "@@";')
_add("game/epic_eos", _s("gm4", 44, _B64URL), "EOS_ClientSecret=@@")
_add("game/godot_export", "g0d0t" + _s("gm5", 8), '[preset.0.options]\nkeystore/release_password="@@"')
_add("game/photon_hand", "ph0t0nR00m", '// tmp, remove before merge\nPhotonNetwork.JoinRoom("lobby", password: "@@");')

# --- git & code review ---------------------------------------------------------------------
_GIT_DIFF_KEY = "sk" + "_live_" + _s("gt1", 30)
_SECRETS.append(
    Secret(
        "git/diff_added",
        "diff --git a/config/prod.js b/config/prod.js\n@@ -3,3 +3,4 @@\n   port: 443,\n+  stripeKey: '"
        + _GIT_DIFF_KEY
        + "',\n }",
        _GIT_DIFF_KEY,
    )
)
_add(
    "git/diff_removed",
    "xo" + "xb-" + _s("gt2", 10, _DIGITS) + "-" + _s("gt2b", 24),
    "-SLACK_TOKEN=@@\n+SLACK_TOKEN=${SLACK_TOKEN}",
)
_add(
    "git/pr_comment",
    "Blue-Heron-" + _s("gt3", 4, _DIGITS),
    "> **reviewer**: nit, the staging admin pw (@@) is in the README, please move it to 1Password",
)
_add("git/commit_message", _s("gt4", 32, _HEX), "commit 9c1e0a7\n    temp: hardcode api key @@ to unblock QA")
_add("git/credential_store", _s("gt5", 20), "$ cat ~/.git-credentials\nhttps://marta:@@@bitbucket.org")
_add(
    "git/gitconfig_extraheader",
    base64.b64encode(("x-access-token:" + _s("gt6", 30)).encode()).decode(),
    '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic @@',
)
_add(
    "git/blame_line",
    "Pa55word" + _s("gt7", 4, _DIGITS),
    'a81f2c3d (Tom 2023-11-02 14:01:55 +0100 42)     admin_password = "@@"',
)
_add(
    "git/gitleaks_report",
    _s("gt8", 40, _HEX),
    '{"RuleID": "generic-api-key", "File": "src/api.ts", "Secret": "@@", "Commit": "7bd1"}',
)
_add("git/stash_show", "Redwood" + _s("gt9", 3, _DIGITS) + "!", "$ git stash show -p\n-DB_PASS=\n+DB_PASS=@@")

# --- editor & IDE settings -----------------------------------------------------------------
_add(
    "ide/vscode_settings",
    _s("id1", 40),
    '{\n  "sqltools.connections": [{ "name": "prod", "driver": "PostgreSQL", "password": "@@" }]\n}',
)
_add(
    "ide/vscode_launch_env", _s("id2", 32, _HEX), '"configurations": [{ "type": "node", "env": { "API_TOKEN": "@@" } }]'
)
_add(
    "ide/jetbrains_datasource",
    "IdeaPw" + _s("id3", 8),
    '<data-source name="local">\n  <user-name>dev</user-name>\n  <password>@@</password>\n</data-source>',
)
_add("ide/copilot_proxy", _s("id4", 20), '"http.proxy": "http://jdoe:@@@proxy.corp:3128"')
_add(
    "ide/sftp_json",
    "ftpsecret" + _s("id5", 6),
    '{\n  "host": "ftp.example.org",\n  "username": "www",\n  "password": "@@",\n  "remotePath": "/var/www"\n}',
)
_add("ide/rest_client_env", _s("id6", 28), '"rest-client.environmentVariables": { "prod": { "token": "@@" } }')
_add("ide/wakatime", "waka_" + _uuid("id7"), "[settings]\napi_key = @@")
_add(
    "ide/cursor_mcp", _GH + _s("id8", 36), '{"mcpServers": {"github": {"env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "@@"}}}}'
)

# --- test fixtures -------------------------------------------------------------------------
_add(
    "fixture/pytest_conftest",
    "Qa!" + _s("fx1", 12),
    "@pytest.fixture\ndef live_client():\n    return Client(user='qa-bot', password='@@')",
)
_add("fixture/jest_env", _s("fx2", 40, _HEX), "// jest.setup.js\nprocess.env.ALGOLIA_ADMIN_KEY = '@@';")
_add("fixture/vcr_cassette", _s("fx3", 40), "request:\n  headers:\n    Authorization:\n    - Bearer @@\n  method: GET")
_add("fixture/rspec_let", _s("fx4", 30), "let(:token) { '@@' }  # real sandbox token, works against staging")
_add(
    "fixture/cypress_env",
    "cypr3ss" + _s("fx5", 8),
    '{\n  "env": {\n    "login_email": "e2e@acme.io",\n    "login_password": "@@"\n  }\n}',
)
_add(
    "fixture/playwright_storage",
    _s("fx6", 48, _B64URL),
    '{"cookies": [{"name": "sid", "value": "@@", "domain": "app.acme.io"}]}',
)
_add(
    "fixture/testcontainers",
    "tc" + _s("fx7", 14),
    'new PostgreSQLContainer<>("postgres:15").withUsername("it").withPassword("@@")',
)
_add("fixture/go_test_table", _s("fx8", 36), '{name: "valid token", token: "@@", wantStatus: 200},')

# --- code in various languages -----------------------------------------------------------
_add("code/java_constant", _s("cd1", 32, _HEX), 'private static final String API_KEY = "@@";')
_add("code/csharp_appsettings", _s("cd2", 44, _B64URL), '"Jwt": { "Issuer": "acme", "Key": "@@" }')
_add("code/php_define", _s("cd3", 24), "define('AUTH_KEY', '@@');")
_add("code/elixir_config", _DRAW.b64("cd4", 48), 'config :app, AppWeb.Endpoint,\n  secret_key_base: "@@"')
_add("code/swift_let", _s("cd5", 36), 'let apiKey = "@@"')
_add("code/kotlin_buildconfig", _s("cd6", 32), 'buildConfigField("String", "MAPS_KEY", "\\"@@\\"")')
_add("code/cpp_macro", _s("cd7", 28), '#define LICENSE_TOKEN "@@"')
_add("code/scala_conf", "sc4l4" + _s("cd8", 10), 'db.default.password = "@@"')
_add("code/lua_table", _s("cd9", 24), "local cfg = { host = 'api.game.io', secret = '@@' }")
_add("code/powershell", "PwshPass" + _s("cda", 6, _DIGITS), "$secure = ConvertTo-SecureString '@@' -AsPlainText -Force")
_add("code/r_sys_setenv", _s("cdb", 32, _HEX), 'Sys.setenv(CENSUS_KEY = "@@")')
_add("code/haskell_record", _s("cdc", 30), 'defaultConfig = Config { apiToken = "@@", retries = 3 }')
_add("code/dart_const", _s("cdd", 34), "const String kApiSecret = '@@';")

# --- hard: no keyword, split, spelled, human chosen --------------------------------------
_add(
    "hard/prose_password",
    "marigold-tuesday",
    "ok the staging login is admin and it's marigold-tuesday, lowercase, with the dash",
)
_add("hard/prose_spelled", "b-r-a-v-o-7-7-k-i-t-e", "for the router type b-r-a-v-o-7-7-k-i-t-e without dashes")
_add(
    "hard/split_halves",
    _s("hd1", 20),
    "the token is too long for slack so here it is in two bits:\nfirst: ghp_a1b2c3\nsecond: @@",
)
_add("hard/no_keyword_argv", _s("hd2", 32, _HEX), "$ ./deploy.sh prod eu-west-1 @@")
_add("hard/positional_ctor", _s("hd3", 36), "c = Client('https://api.acme.io', '@@', timeout=10)")
_add(
    "hard/human_pw_in_chat",
    "Fluffy2019!",
    "I tried Fluffy2019! as the db pw but psql still says auth failed, what am I doing wrong",
)
_add("hard/german", "Sonnenblume#88", "Das Passwort für den Testserver lautet Sonnenblume#88, bitte nicht weitergeben.")
_add("hard/spanish", "Tortuga_Verde_3", "la contraseña del admin es Tortuga_Verde_3 (la cambio mañana)")
_add("hard/french", "Chocolatine2024", "mot de passe de la base de recette : Chocolatine2024")
_add("hard/noise_around", _s("hd4", 40), "xx]]>>>@@<<<[[xx  <- paste that into the field")
_add("hard/reversed_hint", "tiger-lily-91", "if anyone needs the vpn: user ops, pass tiger-lily-91")
_add("hard/in_url_path", _s("hd5", 32), "POST https://hooks.zapier.com/hooks/catch/1234/@@/ 200")
_add("hard/telegram_style_inline", _s("hd6", 24), "creds for the ftp -> bob / @@")
_add("hard/sql_insert", "Welcome123!", "INSERT INTO users (email, password) VALUES ('admin@local', 'Welcome123!');")
_add("hard/redis_auth_cmd", "redisRedis" + _s("hd7", 4, _DIGITS), "127.0.0.1:6379> AUTH @@\nOK")
_add(
    "hard/ftp_transcript",
    "kermit" + _s("hd8", 4, _DIGITS),
    "ftp> open ftp.legacy.net\nName: backup\n331 Please specify the password.\nPassword: @@\n230 Login successful.",
)
_add(
    "hard/yaml_unquoted_nokey",
    _s("hd9", 30),
    "smtp:\n  host: smtp.mailgun.org\n  user: postmaster@mg.acme.io\n  pass: @@",
)
_add("hard/json_in_string", _s("hda", 32), '"{\\"client\\":\\"web\\",\\"secret\\":\\"@@\\"}"')
_add("hard/hex_escaped_bytes", "7365637265743a" + _s("hdb", 24, _HEX), "b'\\x00\\x01' header then payload hex @@")
_add("hard/env_in_makefile", _s("hdc", 26), "deploy:\n\tDEPLOY_KEY=@@ ./scripts/ship.sh")
_add(
    "hard/dict_numbered",
    "Hazelnut" + _s("hdd", 2, _DIGITS) + "#x",
    "accounts = {1: ('root', '@@'), 2: ('guest', 'guest')}",
)
_add("hard/sshpass", "Ocelot" + _s("hde", 3, _DIGITS), "sshpass -p @@ ssh pi@192.168.1.44")
_add("hard/netrc", "netrc-" + _s("hdf", 12), "machine api.heroku.com\n  login me@acme.io\n  password @@")
_add("hard/htpasswd_plain_cmd", "Wombat-" + _s("hdg", 5, _DIGITS), "htpasswd -b -c .htpasswd admin @@")
_add("hard/psql_uri_cli", "L1ghthouse", "psql 'host=db port=5432 user=report password=L1ghthouse sslmode=require'")
_add("hard/smb_mount", "Sh4reMe" + _s("hdh", 4), "mount -t cifs //nas/share /mnt -o username=media,password=@@")
_add("hard/wifi_qr", "caf3-au-lait-" + _s("hdi", 3, _DIGITS), "WIFI:T:WPA;S:Office-5G;P:@@;;")
_add("hard/chinese", "MaoMao_2023", "测试环境数据库密码是 MaoMao_2023 ，用户名 root")
_add("hard/japanese", "Sakura#" + _s("hdj", 4, _DIGITS), "検証環境のパスワード: @@")
_add(
    "hard/otp_seed",
    _s("hdk", 32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    "otpauth://totp/ACME:jo@acme.io?secret=@@&issuer=ACME",
)
_add(
    "hard/recovery_codes", _s("hdl", 5, _LOWER) + "-" + _s("hdm", 5, _LOWER), "GitHub recovery codes (keep safe):\n@@\n"
)
_add(
    "hard/mnemonic",
    "ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic",
    "seed phrase for the test wallet: ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic",
)
_add("hard/vault_unseal", _DRAW.b64("hdn", 33), "Unseal Key 1: @@\nInitial Root Token: (see other message)")
_add(
    "hard/gpg_passphrase_prompt",
    "correct-horse-" + _s("hdo", 4, _LOWER),
    "gpg --batch --passphrase @@ -d secrets.tar.gpg",
)
_add(
    "hard/openssl_pass",
    "pkcs12pw" + _s("hdp", 4, _DIGITS),
    "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:@@",
)
_add(
    "hard/keytool",
    "changeit" + _s("hdq", 5, _DIGITS),
    "keytool -importcert -alias corp -file ca.crt -keystore truststore.jks -storepass @@",
)
_add("hard/zip_password", "zipzap" + _s("hdr", 4, _DIGITS), "7z x backup.7z -p@@")
_add(
    "hard/mongo_shell",
    "M0ngoAdm" + _s("hds", 3, _DIGITS),
    "mongosh --username admin --password @@ --authenticationDatabase admin",
)

BLIND9_SECRETS: list[Secret] = _SECRETS


# --- ordinary texts (no secret) ----------------------------------------------------------
def _sha1(seed: str) -> str:
    return hashlib.sha1(f"blind9-ord:{seed}".encode()).hexdigest()


def _sha256(seed: str) -> str:
    return hashlib.sha256(f"blind9-ord:{seed}".encode()).hexdigest()


_HAND: list[str] = [
    "export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "token = os.environ['GITHUB_TOKEN']",
    "const apiKey = process.env.STRIPE_SECRET_KEY;",
    "aws_access_key_id = " + "AKIA" + "IOSFODNN7EXAMPLE  # the example id from the AWS docs",
    "DATABASE_URL=postgres://user:password@localhost:5432/dbname",
    "Set `password` to the value printed by `kubectl get secret` — never commit it.",
    "Error: Invalid API key provided: sk_test_****",
    "401 Unauthorized: the bearer token has expired, please sign in again",
    "Use `gh auth login` to authenticate; the CLI stores the token in your keychain.",
    "password: ${DB_PASSWORD}",
    "POSTGRES_PASSWORD_FILE=/run/secrets/postgres_password",
    "api_key: <YOUR_API_KEY>",
    "Authorization: Bearer <token>",
    "REDIS_URL=redis://localhost:6379/0",
    "mongodb://localhost:27017/test",
    "amqp://guest@localhost:5672//",
    "The key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8.",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\n(certificate body omitted)\n-----END CERTIFICATE-----",
    '"integrity": "sha512-' + base64.b64encode(hashlib.sha512(b"left-pad-1.3.0").digest()).decode() + '"',
    "Digest: sha256:" + _sha256("alpine"),
    "commit " + _sha1("c1") + "\nAuthor: Ana <ana@example.com>\n\n    fix: rotate keys monthly",
    "Merge pull request #4821 from acme/feat/token-refresh",
    "Fixes #312: redact passwords from debug logs",
    "git log --oneline\n" + _sha1("c2")[:7] + " chore: bump axios to 1.6.8",
    "pip install requests==2.31.0 urllib3==2.2.1",
    "npm WARN deprecated uuid@3.4.0: Please upgrade to version 7 or higher.",
    "request id: 4f6d2a1e-9b3c-4d8e-a7f1-2c5b8e9d0a36",
    "trace_id=5b8aa5a2d2c872e8321cf37308d69df2 span_id=051581bf3cb55c13",
    "Run ID 7731902238 · Attempt #2 · Triggered via push",
    "✓ 248 passed, 3 skipped in 41.02s",
    "FAILED tests/test_auth.py::test_login_rejects_bad_password - AssertionError: 403 != 401",
    'java.lang.NullPointerException: Cannot invoke "String.length()" because "password" is null',
    "TypeError: Cannot read properties of undefined (reading 'token')",
    "KeyError: 'SECRET_KEY'",
    "django.core.exceptions.ImproperlyConfigured: The SECRET_KEY setting must not be empty.",
    "warning: password field is deprecated, use password_file instead",
    "The password must be at least 12 characters and contain a digit.",
    "Forgot your password? We'll email you a reset link.",
    "Tokens are rotated every 90 days; the old token keeps working for 24 hours.",
    "Never paste API keys into chat — use a secret manager such as Vault or Doppler.",
    "To create a personal access token, go to Settings → Developer settings → Tokens.",
    "The webhook signature is an HMAC-SHA256 of the body, hex encoded, in X-Hub-Signature-256.",
    "Content-Type: application/json\nAccept: application/vnd.github+json\nX-GitHub-Api-Version: 2022-11-28",
    "User-Agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15",
    'cache-control: no-store, max-age=0\netag: W/"5e1-18f2a"',
    "x-request-id: 01HXK4Z3N9Q7Y5V2M8R6T0B1C3",
    "ULID 01ARZ3NDEKTSV4RRFFQ69G5FAV sorts by time",
    "Server listening on http://0.0.0.0:8080 (pid 44120)",
    "INFO  [alembic.runtime.migration] Running upgrade 3f2b9c1a7d4e -> 8e1d0c2b5a6f, add tokens table",
    "CREATE TABLE api_tokens (id uuid PRIMARY KEY, hashed text NOT NULL, created_at timestamptz);",
    "SELECT id, email FROM users WHERE reset_token_expires_at < now();",
    "ALTER USER app WITH PASSWORD :'new_password';",
    'kubectl create secret generic db --from-literal=password="$DB_PASSWORD"',
    "valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password",
    "secrets:\n  npm_token:\n    external: true",
    "env:\n  NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
    "- name: Configure AWS\n  uses: aws-actions/configure-aws-credentials@v4\n  with:\n    role-to-assume: arn:aws:iam::123456789012:role/deploy",
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
    "projects/my-project/secrets/db-password/versions/latest",
    "vault kv get -field=password secret/data/app",
    "op read op://Engineering/Postgres/password",
    "bw get password github.com",
    "security find-generic-password -s 'gh:github.com' -w",
    "git config --global credential.helper osxkeychain",
    "[credential]\n\thelper = manager",
    "eval $(ssh-agent -s) && ssh-add ~/.ssh/id_ed25519",
    "Host github.com\n  IdentityFile ~/.ssh/id_ed25519\n  IdentitiesOnly yes",
    "diff --git a/.env.example b/.env.example\n+STRIPE_SECRET_KEY=\n+STRIPE_WEBHOOK_SECRET=",
    "+  password: process.env.DB_PASSWORD,\n-  password: 'changeme',",
    "Reviewer: please read the key from the config service instead of hardcoding it.",
    "LGTM once the tokens are moved to GitHub environments 👍",
    "@@ -12,7 +12,9 @@ def login(username, password):",
    "def login(username: str, password: str) -> Session:",
    "func Authenticate(ctx context.Context, token string) (*User, error) {",
    "public String getPassword() { return password; }",
    "private readonly string _connectionString;",
    "fn verify(token: &str, key: &DecodingKey) -> Result<Claims, Error>",
    "const [password, setPassword] = useState('');",
    '<input type="password" name="password" autocomplete="current-password">',
    "bcrypt.compare(plaintext, user.passwordHash)",
    "hashlib.pbkdf2_hmac('sha256', password.encode(), salt, 600_000)",
    'jwt.decode(token, options={"verify_signature": False})',
    'JWT header {"alg":"RS256","kid":"a1b2c3"} is public and carries no secret.',
    b64url_text('{"alg":"RS256","typ":"JWT"}') + " is just the base64url of the header",
    "base64 of 'hello world': aGVsbG8gd29ybGQ=",
    "echo -n 'user@example.com' | base64  # dXNlckBleGFtcGxlLmNvbQ==",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "sha256sum app.tar.gz\n" + _sha256("app.tar.gz") + "  app.tar.gz",
    "md5: 9e107d9d372bb6826bd81d3542a419d6",
    "SRI: sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
    "go.sum: golang.org/x/crypto v0.21.0 h1:X31++rzVUdKhX5sWmSOFZxx8UW/ldWx55cbf08iNAMA=",
    'Cargo.lock checksum = "' + _sha256("serde-1.0.197") + '"',
    "version: 3.2.1-rc.4+build.5521",
    "node v20.12.2 (npm v10.5.0)",
    "Python 3.12.3 (main, Apr  9 2024, 08:09:14) [Clang 15.0.0]",
    "/Users/dev/projects/acme-api/node_modules/.bin/jest",
    "C:\\Users\\dev\\AppData\\Roaming\\npm\\node_modules",
    "~/.aws/credentials should be chmod 600",
    "The file ~/.npmrc holds your registry auth; add it to .gitignore.",
    ".env\n.env.local\n*.pem\n*.p12\nsecrets/",
    "SENTRY_DSN is public by design for browser SDKs, but keep the auth token private.",
    "NEXT_PUBLIC_SUPABASE_URL=https://xyzcompany.supabase.co",
    "pk" + "_test_" + "TYooMQauvdEDq54NiTphI7jx is the publishable example key from Stripe docs",
    "LaunchDarkly client-side ID: 5f3c8e2a1b0d9c7e6f4a2b1c",
    "Segment source id: src_2kTm8xVbQ1",
    "GA4 measurement id G-Q1W2E3R4T5",
    "Firebase projectId: acme-demo, storageBucket: acme-demo.appspot.com",
    "bundle id com.acme.shop, team id 9ZXW8Y7V6U",
    'applicationId "com.acme.game"\nversionCode 412\nversionName "4.1.2"',
    "Unity 2022.3.21f1 (LTS) — Build succeeded with 0 errors, 12 warnings",
    "Steam App ID 1245620, depot 1245621",
    "PlayFab TitleId: 9A3F1",
    "keystore fingerprint SHA1: 5E:8F:16:06:2E:A3:CD:2C:4A:0D:54:78:76:BA:A6:F3:8C:AB:F6:25",
    '{\n  "editor.formatOnSave": true,\n  "python.defaultInterpreterPath": ".venv/bin/python"\n}',
    '"files.exclude": { "**/.git": true, "**/node_modules": true }',
    '<component name="RunManager" selected="Application.Main" />',
    'launch.json: "envFile": "${workspaceFolder}/.env"',
    "The password manager generated a 24-character password for me.",
    "My keyboard's 'k' key is stuck, so typing tokens is painful.",
    "Token bucket rate limiter: capacity 100, refill 10 per second.",
    "The lexer emits a token for each identifier and keyword.",
    "A primary key uniquely identifies a row; a foreign key references it.",
    "Dict keys in Python 3.7+ keep insertion order.",
    "Secret Santa draw is on Friday, bring a gift under 20 EUR.",
    "The secret to fast builds is caching node_modules between runs.",
    "passwd: password updated successfully",
    "Enter passphrase for key '/home/dev/.ssh/id_ed25519':",
    "sudo: 3 incorrect password attempts",
    "Permission denied (publickey).",
    "remote: Invalid username or password.\nfatal: Authentication failed for 'https://github.com/acme/api.git/'",
    'npm ERR! code E401\nnpm ERR! Unable to authenticate, need: Basic realm="GitHub Package Registry"',
    "error: failed to get `serde` as a dependency of package `app v0.1.0`",
    "Could not resolve host: registry.npmjs.org",
    "ECONNREFUSED 127.0.0.1:5432",
    'psql: error: connection to server at "localhost" (::1), port 5432 failed: FATAL:  password authentication failed for user "postgres"',
    "pymongo.errors.OperationFailed: Authentication failed., full error: {'ok': 0.0, 'code': 18}",
    "redis.exceptions.AuthenticationError: invalid username-password pair or user is disabled.",
    "kafka: client has run out of available brokers to talk to",
    "AMQPConnectionError: (403) 'ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN.'",
    "Caused by: java.sql.SQLInvalidAuthorizationSpecException: Access denied for user 'app'@'10.0.0.5' (using password: YES)",
    "The connection string format is Server=host;Database=db;User Id=user;Password=pass;",
    "Use --password-stdin instead of -p to keep the password out of shell history.",
    "WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
    "Login Succeeded",
    "Configure a credential helper to remove this warning. See https://docs.docker.com/engine/reference/commandline/login/#credentials-store",
    "buildkite-agent: registered as agent 01890f3a-b2c4-4d51-9e8f-3a7b6c5d4e2f",
    "circleci: job 'test' finished in 3m12s on resource class medium",
    "Jenkins: Started by user anonymous\nBuilding in workspace /var/lib/jenkins/workspace/api",
    "##[group]Run actions/setup-node@v4\nwith:\n  node-version: 20\n##[endgroup]",
    "::add-mask::$MY_SECRET",
    "Secrets are not passed to workflows triggered from forks.",
    "terraform plan\n  + password = (sensitive value)",
    "Outputs:\ndb_password = <sensitive>",
    "helm install pg bitnami/postgresql --set auth.existingSecret=pg-credentials",
    "ansible-vault encrypt group_vars/prod/vault.yml",
    "$ANSIBLE_VAULT;1.1;AES256 header marks an encrypted file",
    "sops --encrypt --age age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p secrets.yaml",
    "Semantic version 2.0.0, release tag v2.14.0",
    "Docker image ghcr.io/acme/api:sha-" + _sha1("img")[:7],
    "wasm-pack build --target web --release",
    "gradle :app:assembleRelease --stacktrace",
    "xcodebuild -scheme Shop -configuration Release archive",
    "fastlane match appstore --readonly",
    "eas build --profile preview --platform android",
    "go test ./... -race -count=1",
    "cargo clippy --all-targets -- -D warnings",
    "mvn -B verify -Dmaven.test.failure.ignore=false",
    'dotnet test --logger "trx;LogFileName=results.trx"',
    "rspec spec/models/user_spec.rb:42",
    "pytest -k 'not slow' --maxfail=1",
    "npx prisma migrate deploy",
    "rails db:migrate RAILS_ENV=test",
    "flyway -url=jdbc:postgresql://localhost/app -user=app migrate  # password from FLYWAY_PASSWORD",
    "The OAuth flow returns an authorization code, which the backend exchanges for tokens.",
    "PKCE uses a code_verifier and its S256 code_challenge; neither is a long-lived secret.",
    "state=af0ifjsldkj&nonce=n-0S6_WzA2Mj in the redirect is a CSRF guard",
    "Example from RFC 7617: Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    "feature flag `new-checkout` is on for 10% of users",
    "analytics.track('Signed Up', { plan: 'pro' })",
    "posthog.capture('$pageview')",
    "Mixpanel distinct_id: 18f2c3d4e5a-0b1c2d3e4f5a6b-26031f51-1fa400-18f2c3d4e5b",
]

_GENERATED: list[str] = []
for _i in range(200):
    _kind = _i % 5
    if _kind == 0:
        _GENERATED.append(
            f"{_sha1(f'g{_i}')[:7]} {['fix', 'feat', 'chore', 'docs', 'test'][_i % 5]}: update module {_i}"
        )
    elif _kind == 1:
        _GENERATED.append(f"pulling layer sha256:{_sha256(f'layer{_i}')[:12]}... done")
    elif _kind == 2:
        _GENERATED.append(f"order {_uuid(f'ord{_i}')} created in {(_i * 37) % 900 + 12} ms")
    elif _kind == 3:
        _GENERATED.append(f"tree {_sha1(f'tree{_i}')} parent {_sha1(f'par{_i}')}")
    else:
        _GENERATED.append(f"build #{1000 + _i} artifact checksum {_sha256(f'art{_i}')}")

BLIND9_ORDINARY: list[str] = (_HAND + _GENERATED)[:200]
