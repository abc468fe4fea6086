"""Eighth held-out secrets corpus, written blind for issue 36.

Its author read none of the redaction rules, none of the earlier corpora's forms and none of the
tests about secrets; only the ``Secret`` structure, ``SeededDraw`` and ``b64url_text`` at the head
of ``secrets_corpus``, the head of ``secrets_blind7`` (for its format), the measure in
``secret_corpus_measure`` and the blind7 test (for its format).  It never ran the redactor on these
forms.  It must never be used to tune rules: a rule written to catch one of these forms makes the
figure it gives meaningless.  Its test only checks the corpus's shape; the figures it prints give
misses by category only.

The forms come from where credentials turn up in coding-assistant conversations: cloud and vendor
configuration, shell commands and their flags, CI logs, stack traces and error messages that echo
configuration, diffs, notebook cells, SQL and HTTP dumps, container, cluster and infrastructure
files, IDE run configurations, mobile, game-server and home-automation configuration,
password-manager output, chat messages and prose in several languages, tables, and secrets split
across lines.  About a third are deliberately hard: an unusual syntax, no keyword near the value,
or a value that looks like an ordinary word or number.  Every random-looking value is drawn from
``SeededDraw("blind8")`` with the prefixes, lengths and character sets of the real formats, or
written by hand; none is a live credential.  The ordinary texts contain no secret but sit near them
(commit hashes, UUIDs, checksums, base64 of public data, placeholders, ids, docs and code that talk
about passwords, tokens and keys): a good redactor leaves them unchanged.
"""

from __future__ import annotations

import base64
import json

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_B64 = ALNUM + "+/"
_B64URL = ALNUM + "-_"
_DIGITS = "0123456789"
_BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

_DRAW = SeededDraw("blind8")
_s = _DRAW.chars


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


def _hex(seed: str, n: int) -> str:
    return _s(seed, n, _HEX)


def _uuid(seed: str) -> str:
    h = _hex(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _pem_body(seed: str, n_bytes: int) -> list[str]:
    """The base64 lines of a made-up DER blob, 64 characters a line."""
    body = _DRAW.b64(seed, n_bytes)
    return [body[i : i + 64] for i in range(0, len(body), 64)]


def _pem(label: str, lines: list[str]) -> str:
    dashes = "-" * 5
    return "\n".join([f"{dashes}BEGIN {label}{dashes}", *lines, f"{dashes}END {label}{dashes}"])


def _jwt(seed: str, claims: dict[str, object]) -> str:
    head = b64url_text(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")))
    body = b64url_text(json.dumps(claims, separators=(",", ":")))
    return f"{head}.{body}.{_s(seed, 43, _B64URL)}"


def _family(family: str, forms: list[tuple[str, str, str]]) -> list[Secret]:
    return [Secret(f"{family}/{form}", text, needle) for form, text, needle in forms]


def _aws() -> list[Secret]:
    key_id = "AK" + "IA" + _s("aws-id-1", 16, _UPPER)
    secrets = [_s(f"aws-secret-{i}", 40, _B64) for i in range(8)]
    session = "IQoJb3JpZ2luX2Vj" + _s("aws-session", 300, _B64)
    sig = _hex("aws-presign-sig", 64)
    key_id2 = "AK" + "IA" + _s("aws-id-2", 16, _UPPER)
    return _family(
        "aws",
        [
            (
                "credentials_ini",
                f"$ cat ~/.aws/credentials\n[default]\naws_access_key_id = {key_id}\n"
                f"aws_secret_access_key = {secrets[0]}\nregion = eu-west-1\n",
                secrets[0],
            ),
            (
                "export_line",
                f"export AWS_ACCESS_KEY_ID={key_id}\nexport AWS_SECRET_ACCESS_KEY='{secrets[1]}'\naws s3 ls",
                secrets[1],
            ),
            (
                "boto3_literal",
                "s3 = boto3.client(\n    's3',\n"
                f"    aws_access_key_id='{key_id}',\n    aws_secret_access_key='{secrets[2]}',\n)",
                secrets[2],
            ),
            (
                "sts_session_token_json",
                '{\n    "Credentials": {\n        "AccessKeyId": "ASIA' + _s("aws-asia", 16, _UPPER) + '",\n'
                f'        "SecretAccessKey": "{secrets[3]}",\n        "SessionToken": "{session}",\n'
                '        "Expiration": "2026-11-27T22:14:09+00:00"\n    }\n}',
                session,
            ),
            (
                "configure_set",
                f"aws configure set aws_secret_access_key {secrets[4]} --profile staging",
                secrets[4],
            ),
            (
                "java_properties",
                f"# application-prod.properties\ncloud.aws.credentials.access-key={key_id2}\n"
                f"cloud.aws.credentials.secret-key={secrets[5]}\ncloud.aws.region.static=us-east-2",
                secrets[5],
            ),
            (
                "s3cfg",
                f"[default]\naccess_key = {key_id2}\nhost_base = s3.amazonaws.com\nsecret_key = {secrets[6]}\nuse_https = True",
                secrets[6],
            ),
            (
                "presigned_url",
                "curl 'https://acme-exports.s3.amazonaws.com/q3/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                f"&X-Amz-Credential={key_id2}%2F20261127%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261127T101500Z"
                f"&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={sig}'",
                sig,
            ),
            (
                "bare_pair_in_chat",
                f"ok new pair for the backup user: {key_id} / {secrets[7]} (rotate the old one pls)",
                secrets[7],
            ),
        ],
    )


def _gcp() -> list[Secret]:
    sa_lines = _pem_body("gcp-sa-key", 1190)
    api_keys = ["AI" + "za" + _s(f"gcp-api-{i}", 35, _B64URL) for i in range(3)]
    client_secret = "GOC" + "SPX-" + _s("gcp-oauth", 28, _B64URL)
    access = "ya" + "29.a0" + _s("gcp-access", 180, _B64URL)
    refresh = "1//0" + _s("gcp-refresh", 99, _B64URL)
    fcm = "AAAA" + _s("fcm-a", 7, _B64URL) + ":APA91b" + _s("fcm-b", 134, _B64URL)
    hmac_secret = _s("gcs-hmac", 40, _B64)
    sa_key = "\\n".join(sa_lines)
    return _family(
        "gcp",
        [
            (
                "service_account_json",
                '{\n  "type": "service_account",\n  "project_id": "acme-billing-prod",\n'
                f'  "private_key_id": "{_hex("gcp-pkid", 40)}",\n'
                f'  "private_key": "{_pem("PRIVATE KEY", [sa_key]).replace(chr(10), chr(92) + "n")}\\n",\n'
                '  "client_email": "exporter@acme-billing-prod.iam.gserviceaccount.com"\n}',
                sa_lines[3],
            ),
            (
                "maps_script_tag",
                '<script async src="https://maps.googleapis.com/maps/api/js?key='
                f'{api_keys[0]}&callback=initMap"></script>',
                api_keys[0],
            ),
            ("env_api_key", f"GEMINI_API_KEY={api_keys[1]}\nMODEL=gemini-1.5-pro", api_keys[1]),
            (
                "oauth_client_json",
                '{"web":{"client_id":"4821-fj2k.apps.googleusercontent.com","project_id":"acme-login",'
                f'"client_secret":"{client_secret}","redirect_uris":["http://localhost:8080/cb"]}}}}',
                client_secret,
            ),
            ("print_access_token", f"$ gcloud auth print-access-token\n{access}\n$", access),
            (
                "adc_refresh_token",
                '{\n  "client_id": "7643.apps.googleusercontent.com",\n'
                f'  "refresh_token": "{refresh}",\n  "type": "authorized_user"\n}}',
                refresh,
            ),
            (
                "fcm_server_key",
                f"curl -X POST -H 'Authorization: key={fcm}' -H 'Content-Type: application/json' "
                "https://fcm.googleapis.com/fcm/send -d @push.json",
                fcm,
            ),
            (
                "gcs_hmac",
                f"gsutil config -a\n...\n[Credentials]\ngs_access_key_id = GOOG1E{_s('gcs-id', 55, _UPPER)}\n"
                f"gs_secret_access_key = {hmac_secret}",
                hmac_secret,
            ),
            (
                "key_in_python_call",
                f'genai.configure(api_key="{api_keys[2]}")  # TODO move to env before pushing',
                api_keys[2],
            ),
        ],
    )


def _azure() -> list[Secret]:
    account_key = _DRAW.b64("az-storage", 64)
    sas_sig = _DRAW.b64("az-sas", 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    client_secrets = [_s(f"az-cs-{i}", 3) + "8Q~" + _s(f"az-cs-tail-{i}", 34, _B64URL + ".~") for i in range(3)]
    sb_key = _DRAW.b64("az-servicebus", 32)
    cosmos = _DRAW.b64("az-cosmos", 64)
    pat = _s("az-devops-pat", 52, "abcdefghijklmnopqrstuvwxyz234567")
    fn_code = _s("az-fn-code", 54, _B64URL) + "=="
    return _family(
        "azure",
        [
            (
                "storage_connection_string",
                "DefaultEndpointsProtocol=https;AccountName=acmelogs;"
                f"AccountKey={account_key};EndpointSuffix=core.windows.net",
                account_key,
            ),
            (
                "sas_url",
                "azcopy copy ./dump.bak 'https://acmelogs.blob.core.windows.net/backups/dump.bak?"
                f"sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={sas_sig}'",
                sas_sig,
            ),
            (
                "env_client_secret",
                f"AZURE_TENANT_ID={_uuid('az-tenant')}\nAZURE_CLIENT_ID={_uuid('az-client')}\n"
                f"AZURE_CLIENT_SECRET={client_secrets[0]}",
                client_secrets[0],
            ),
            (
                "az_login_sp",
                f"az login --service-principal -u {_uuid('az-app')} -p {client_secrets[1]} --tenant acme.onmicrosoft.com",
                client_secrets[1],
            ),
            (
                "servicebus_connection",
                "Endpoint=sb://acme-orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
                f"SharedAccessKey={sb_key}",
                sb_key,
            ),
            (
                "appsettings_cosmos",
                '{\n  "CosmosDb": {\n    "Endpoint": "https://acme-cosmos.documents.azure.com:443/",\n'
                f'    "PrimaryKey": "{cosmos}",\n    "DatabaseName": "catalog"\n  }}\n}}',
                cosmos,
            ),
            (
                "devops_pat_remote",
                f"git remote set-url origin https://build:{pat}@dev.azure.com/acme/platform/_git/platform",
                pat,
            ),
            (
                "function_key_url",
                f"POST https://acme-thumbs.azurewebsites.net/api/resize?code={fn_code} 202 Accepted (1.2 s)",
                fn_code,
            ),
            (
                "keyvault_show",
                "$ az keyvault secret show --vault-name acme-kv --name sql-admin --query value -o tsv\n"
                f"{client_secrets[2]}",
                client_secrets[2],
            ),
        ],
    )


def _vcs() -> list[Secret]:
    ghp = "gh" + "p_" + _s("gh-classic", 36)
    gho = "gh" + "o_" + _s("gh-oauth", 36)
    ghs = "gh" + "s_" + _s("gh-server", 36)
    fine = "github" + "_pat_" + _s("gh-fine-a", 22, _UPPER) + "_" + _s("gh-fine-b", 59)
    glpat = "gl" + "pat-" + _s("gitlab", 20, _B64URL)
    atbb = "AT" + "BB" + _s("bitbucket", 28) + _hex("bitbucket-tail", 8).upper()
    gitea = _hex("gitea", 40)
    glrt = "gl" + "rt-" + _s("gitlab-runner", 20, _B64URL)
    return _family(
        "vcs",
        [
            ("gh_auth_token_output", f"$ gh auth token\n{ghp}", ghp),
            (
                "hosts_yml",
                f"github.com:\n    user: mkowalski\n    oauth_token: {gho}\n    git_protocol: ssh",
                gho,
            ),
            (
                "actions_log_masked_fail",
                f'Run curl -H "Authorization: token {ghs}" https://api.github.com/repos/acme/api/releases\n'
                "  % Total    % Received % Xferd  Average Speed",
                ghs,
            ),
            ("fine_grained_in_dotenv", f"# .env.local\nGITHUB_TOKEN={fine}\nREPO=acme/infra", fine),
            (
                "gitlab_clone",
                f"git clone https://oauth2:{glpat}@gitlab.acme.io/platform/billing.git",
                glpat,
            ),
            (
                "bitbucket_app_password",
                f"pipelines: repo access via app password for user ci-bot -> {atbb}",
                atbb,
            ),
            (
                "tea_config",
                f"logins:\n- name: home\n  url: https://git.home.lan\n  token: {gitea}\n  default: true\n  user: pi",
                gitea,
            ),
            (
                "runner_register",
                f"gitlab-runner register --non-interactive --url https://gitlab.acme.io --token {glrt} --executor docker",
                glrt,
            ),
        ],
    )


def _ai() -> list[Secret]:
    oai = "sk-" + "proj-" + _s("openai-a", 74, _B64URL) + "T3Blbk" + "FJ" + _s("openai-b", 74, _B64URL)
    ant = "sk-" + "ant-api03-" + _s("anthropic", 93, _B64URL) + "-" + _s("anthropic-t", 6) + "AA"
    hf = "h" + "f_" + _s("hf", 34)
    r8 = "r" + "8_" + _s("replicate", 37)
    gsk = "gs" + "k_" + _s("groq", 52)
    pplx = "pp" + "lx-" + _s("pplx", 48)
    mistral = _s("mistral", 32)
    cohere = _s("cohere", 40)
    wandb = _hex("wandb", 40)
    pcsk = "pc" + "sk_" + _s("pinecone-a", 6) + "_" + _s("pinecone-b", 63)
    lsv2 = "lsv2" + "_pt_" + _hex("langsmith", 32) + "_" + _hex("langsmith-2", 10)
    return _family(
        "ai",
        [
            ("openai_client", f'client = OpenAI(api_key="{oai}")\nresp = client.responses.create(...)', oai),
            (
                "anthropic_curl",
                "curl https://api.anthropic.com/v1/messages \\\n"
                f'  -H "x-api-key: {ant}" \\\n  -H "anthropic-version: 2023-06-01"',
                ant,
            ),
            ("hf_login", f"$ huggingface-cli login --token {hf}\nToken is valid (permission: write).", hf),
            ("replicate_env", f"REPLICATE_API_TOKEN={r8} python run_sdxl.py", r8),
            ("groq_yaml", f"providers:\n  groq:\n    base_url: https://api.groq.com/openai/v1\n    key: {gsk}", gsk),
            (
                "perplexity_ts",
                f"const pplx = new OpenAI({{ apiKey: '{pplx}', baseURL: 'https://api.perplexity.ai' }});",
                pplx,
            ),
            (
                "mistral_no_prefix",
                f"export MISTRAL_API_KEY={mistral}\nmistral chat -m mistral-large-latest",
                mistral,
            ),
            ("cohere_ctor", f"co = cohere.ClientV2('{cohere}')", cohere),
            ("wandb_netrc", f"machine api.wandb.ai\n  login user\n  password {wandb}", wandb),
            ("pinecone_init", f"pc = Pinecone(api_key=\"{pcsk}\")\nindex = pc.Index('docs')", pcsk),
            ("langsmith_toml", f'[tracing]\nLANGCHAIN_TRACING_V2 = true\nLANGCHAIN_API_KEY = "{lsv2}"', lsv2),
        ],
    )


def _payments() -> list[Secret]:
    sk = "sk_" + "live_" + _s("stripe-sk", 99)
    rk = "rk_" + "live_" + _s("stripe-rk", 99)
    whsec = "wh" + "sec_" + _s("stripe-wh", 32)
    sq = "sq0" + "csp-" + _s("square", 43, _B64URL)
    paypal = "E" + _s("paypal", 79, _B64URL)
    braintree = _hex("braintree", 32)
    razor = _s("razorpay", 24)
    mollie = "live" + "_" + _s("mollie", 30)
    adyen = "AQE" + _s("adyen", 70, _B64) + "=-" + _s("adyen-2", 43, _B64) + "=-" + _s("adyen-3", 16, _B64URL)
    return _family(
        "payments",
        [
            ("stripe_secret_env", f"STRIPE_SECRET_KEY={sk}\nSTRIPE_PUBLISHABLE_KEY=pk_test_placeholder", sk),
            ("stripe_restricted_cli", f"stripe listen --api-key {rk} --forward-to localhost:4242/webhook", rk),
            (
                "stripe_webhook_secret_log",
                f"> Ready! Your webhook signing secret is {whsec} (^C to quit)",
                whsec,
            ),
            ("square_oauth_secret", f"square:\n  application_id: sq0idp-AbCdEf\n  application_secret: {sq}", sq),
            (
                "paypal_basic",
                f'curl -v https://api-m.paypal.com/v1/oauth2/token -u "AZk2{_s("paypal-id", 76, _B64URL)}:{paypal}" '
                "-d grant_type=client_credentials",
                paypal,
            ),
            (
                "braintree_gateway",
                "gateway = braintree.BraintreeGateway(braintree.Configuration(\n    braintree.Environment.Production,\n"
                f'    merchant_id="x7k2m9q4", public_key="p4t9w2", private_key="{braintree}"))',
                braintree,
            ),
            ("razorpay_pair", f"RAZORPAY_KEY_ID=rzp_live_{_s('razor-id', 14)}\nRAZORPAY_KEY_SECRET={razor}", razor),
            ("mollie_php", f'$mollie->setApiKey("{mollie}");', mollie),
            ("adyen_header", f"X-API-Key: {adyen}", adyen),
        ],
    )


def _chat_platforms() -> list[Secret]:
    xoxb = "xo" + "xb-" + _s("slack-b1", 11, _DIGITS) + "-" + _s("slack-b2", 13, _DIGITS) + "-" + _s("slack-b3", 24)
    xoxp = (
        "xo"
        + "xp-"
        + _s("slack-p1", 11, _DIGITS)
        + "-"
        + _s("slack-p2", 12, _DIGITS)
        + "-"
        + _s("slack-p3", 13, _DIGITS)
        + "-"
        + _hex("slack-p4", 32)
    )
    hook = _s("slack-hook", 24)
    discord = _b64_id("discord-id") + "." + _s("discord-ts", 6, _B64URL) + "." + _s("discord-hmac", 38, _B64URL)
    discord_hook = _s("discord-hook", 68, _B64URL)
    telegram = _s("tg-id", 10, _DIGITS) + ":AA" + _s("tg", 33, _B64URL)
    twilio = _hex("twilio", 32)
    mattermost = _s("mattermost", 26, "abcdefghijklmnopqrstuvwxyz0123456789")
    return _family(
        "chat_platforms",
        [
            ("slack_bot_env", f"SLACK_BOT_TOKEN={xoxb}\nSLACK_APP_TOKEN=xapp-placeholder", xoxb),
            ("slack_user_token_py", f"client = WebClient(token='{xoxp}')", xoxp),
            (
                "slack_webhook_curl",
                "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy ok\"}' "
                f"https://hooks.slack.com/services/T{_s('slack-t', 8, _UPPER)}/B{_s('slack-b', 10, _UPPER)}/{hook}",
                hook,
            ),
            ("discord_bot_run", f"bot.run('{discord}')", discord),
            (
                "discord_webhook_json",
                '{"alerting": {"discord": "https://discord.com/api/webhooks/'
                f'{_s("dh-id", 19, _DIGITS)}/{discord_hook}"}}}}',
                discord_hook,
            ),
            ("telegram_bot", f'TELEGRAM_BOT_TOKEN = "{telegram}"\nCHAT_ID = -100184220931', telegram),
            (
                "twilio_client",
                f"client = Client('AC{_hex('twilio-sid', 32)}', '{twilio}')\nclient.messages.create(to=..., body='hi')",
                twilio,
            ),
            (
                "mattermost_bot",
                f"mmctl token generate ci-bot deploy-notifier\n{_s('mm-id', 26, _LOWER)}: {mattermost}",
                mattermost,
            ),
        ],
    )


def _b64_id(seed: str) -> str:
    return base64.b64encode(_s(seed, 18, _DIGITS).encode()).decode().rstrip("=")


def _email_sms() -> list[Secret]:
    sg = "SG." + _s("sendgrid-a", 22, _B64URL) + "." + _s("sendgrid-b", 43, _B64URL)
    mailgun = "key-" + _hex("mailgun", 32)
    postmark = _uuid("postmark")
    mailchimp = _hex("mailchimp", 32) + "-us21"
    brevo = "xkey" + "sib-" + _hex("brevo", 64) + "-" + _s("brevo-t", 16)
    resend = "r" + "e_" + _s("resend", 32, _B64URL)
    smtp = "tr0ub4dor&3"
    vonage = _s("vonage", 16)
    return _family(
        "email_sms",
        [
            ("sendgrid_header", f"Authorization: Bearer {sg}\nContent-Type: application/json", sg),
            ("mailgun_curl", f"curl -s --user 'api:{mailgun}' https://api.mailgun.net/v3/mg.acme.io/messages", mailgun),
            (
                "postmark_uuid_token",
                f'headers = {{"Accept": "application/json", "X-Postmark-Server-Token": "{postmark}"}}',
                postmark,
            ),
            ("mailchimp_dc_suffix", f"mailchimp.setConfig({{ apiKey: '{mailchimp}', server: 'us21' }});", mailchimp),
            ("brevo_env", f"BREVO_KEY={brevo}", brevo),
            ("resend_node", f"const resend = new Resend('{resend}');", resend),
            (
                "django_smtp_password",
                "EMAIL_HOST = 'smtp.fastmail.com'\nEMAIL_PORT = 465\nEMAIL_HOST_USER = 'alerts@acme.io'\n"
                f"EMAIL_HOST_PASSWORD = '{smtp}'",
                smtp,
            ),
            ("vonage_sms", f"vonage = Vonage(Auth(api_key='a81f2c3d', api_secret='{vonage}'))", vonage),
        ],
    )


def _devtools() -> list[Secret]:
    npm = "np" + "m_" + _s("npm", 36)
    pypi = "py" + "pi-AgEIcHlwaS5vcmc" + _s("pypi", 150, _B64URL)
    dckr = "dc" + "kr_pat_" + _s("dockerhub", 27, _B64URL)
    hvs = "hv" + "s." + _s("vault", 90, _B64URL)
    tfc = _s("tfc-a", 14) + ".atlas" + "v1." + _s("tfc-b", 67)
    pulumi = "pu" + "l-" + _hex("pulumi", 40)
    circle = "CCIPAT_" + _s("circleci", 22) + "_" + _hex("circleci-2", 40)
    bkua = "bk" + "ua_" + _hex("buildkite", 40)
    squ = "sq" + "u_" + _hex("sonar", 40)
    nuget = "oy2" + _s("nuget", 43, "abcdefghijklmnopqrstuvwxyz234567")
    rubygems = "rubygems" + "_" + _hex("rubygems", 48)
    cargo = "cio" + _s("cargo", 32)
    return _family(
        "devtools",
        [
            (
                "npmrc",
                f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={npm}\nalways-auth=true",
                npm,
            ),
            ("pypirc", f"[pypi]\n  username = __token__\n  password = {pypi}", pypi),
            ("docker_login_stdin", f"echo {dckr} | docker login -u acmebot --password-stdin", dckr),
            ("vault_login", f"$ vault login {hvs}\nSuccess! You are now authenticated.", hvs),
            ("terraformrc", f'credentials "app.terraform.io" {{\n  token = "{tfc}"\n}}', tfc),
            ("pulumi_ci", f"- name: pulumi up\n  env:\n    PULUMI_ACCESS_TOKEN: {pulumi}", pulumi),
            ("circleci_api", f"curl -H 'Circle-Token: {circle}' https://circleci.com/api/v2/me", circle),
            ("buildkite_cli", f"bk configure --org acme --token {bkua}", bkua),
            (
                "sonar_scanner",
                f"sonar-scanner -Dsonar.projectKey=billing -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={squ}",
                squ,
            ),
            (
                "nuget_push",
                f"dotnet nuget push bin/Release/Acme.Core.3.2.0.nupkg --api-key {nuget} --source https://api.nuget.org/v3/index.json",
                nuget,
            ),
            ("gem_credentials", f"---\n:rubygems_api_key: {rubygems}", rubygems),
            ("cargo_credentials", f'# ~/.cargo/credentials.toml\n[registry]\ntoken = "{cargo}"', cargo),
        ],
    )


def _hosting() -> list[Secret]:
    do = "do" + "p_v1_" + _hex("digitalocean", 64)
    heroku = "HRKU-" + _uuid("heroku")
    vercel = _s("vercel", 24)
    netlify = "nf" + "p_" + _s("netlify", 36)
    fly = "Fly" + "V1 fm2_" + _s("fly", 120, _B64 + "=")
    cf_token = _s("cloudflare", 40, _B64URL)
    cf_global = _hex("cloudflare-global", 37)
    linode = _hex("linode", 64)
    hetzner = _s("hetzner", 64)
    supabase = _jwt("supabase", {"iss": "supabase", "ref": "qkcnwzyiaxpr", "role": "service_role", "iat": 1718000000})
    return _family(
        "hosting",
        [
            ("doctl_auth", f"doctl auth init --access-token {do}", do),
            ("heroku_netrc", f"machine api.heroku.com\n  login ops@acme.io\n  password {heroku}", heroku),
            ("vercel_token_flag", f"vercel deploy --prod --token={vercel} --yes", vercel),
            ("netlify_env", f"NETLIFY_AUTH_TOKEN={netlify}\nNETLIFY_SITE_ID={_uuid('netlify-site')}", netlify),
            ("fly_token", f'fly secrets list --access-token "{fly}"', fly),
            (
                "cloudflare_bearer",
                f"curl https://api.cloudflare.com/client/v4/user/tokens/verify -H 'Authorization: Bearer {cf_token}'",
                cf_token,
            ),
            (
                "cloudflare_global_key",
                f"-H 'X-Auth-Email: dns@acme.io' -H 'X-Auth-Key: {cf_global}'",
                cf_global,
            ),
            (
                "linode_cli_ini",
                f"[DEFAULT]\ndefault-user = acme\n\n[acme]\ntoken = {linode}\nregion = eu-central",
                linode,
            ),
            ("hcloud_context", f'[[contexts]]\n  name = "prod"\n  token = "{hetzner}"', hetzner),
            (
                "supabase_service_role",
                f"SUPABASE_URL=https://qkcnwzyiaxpr.supabase.co\nSUPABASE_SERVICE_ROLE_KEY={supabase}",
                supabase,
            ),
        ],
    )


def _observability() -> list[Secret]:
    dd_api = _hex("datadog-api", 32)
    dd_app = _hex("datadog-app", 40)
    sntrys = "sn" + "trys_" + _s("sentry", 120, _B64URL)
    nrak = "NR" + "AK-" + _s("newrelic", 27, _UPPER)
    nr_license = _hex("newrelic-lic", 36) + "NRAL"
    glsa = "gl" + "sa_" + _s("grafana", 32) + "_" + _hex("grafana-2", 8)
    honeycomb = _s("honeycomb", 22)
    splunk = _uuid("splunk-hec")
    pagerduty = _hex("pagerduty", 32)
    return _family(
        "observability",
        [
            (
                "datadog_agent_yaml",
                f"## datadog.yaml\napi_key: {dd_api}\nsite: datadoghq.eu\nlogs_enabled: true",
                dd_api,
            ),
            (
                "datadog_app_key_curl",
                f'curl -G https://api.datadoghq.com/api/v1/monitor -H "DD-API-KEY: ${{DD_API_KEY}}" -H "DD-APPLICATION-KEY: {dd_app}"',
                dd_app,
            ),
            ("sentry_cli", f"[auth]\ntoken={sntrys}\n[defaults]\norg=acme", sntrys),
            ("newrelic_user_key", f'provider "newrelic" {{\n  account_id = 3318201\n  api_key    = "{nrak}"\n}}', nrak),
            ("newrelic_license", f"newrelic.ini:\nlicense_key = {nr_license}\napp_name = billing-api", nr_license),
            ("grafana_sa_token", f"GF_TOKEN={glsa} grafana-backup save", glsa),
            ("otel_honeycomb_header", f'OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team={honeycomb}"', honeycomb),
            (
                "splunk_hec",
                f"curl -k https://splunk.acme.io:8088/services/collector -H 'Authorization: Splunk {splunk}' -d '{{\"event\":\"hi\"}}'",
                splunk,
            ),
            (
                "pagerduty_routing",
                f'{{"routing_key": "{pagerduty}", "event_action": "trigger", "payload": {{"summary": "disk full"}}}}',
                pagerduty,
            ),
        ],
    )


def _productivity() -> list[Secret]:
    notion = "nt" + "n_" + _s("notion", 46)
    airtable = "pat" + _s("airtable-a", 14) + "." + _hex("airtable-b", 64)
    linear = "lin" + "_api_" + _s("linear", 40)
    atlassian = "ATA" + "TT3xFfGF0" + _s("atlassian", 180, _B64URL) + "=" + _hex("atl-crc", 8).upper()
    asana = "2/" + _s("asana-1", 16, _DIGITS) + "/" + _s("asana-2", 16, _DIGITS) + ":" + _hex("asana", 32)
    figma = "fig" + "d_" + _s("figma", 40, _B64URL)
    postman = "PMAK-" + _hex("postman-a", 24) + "-" + _hex("postman-b", 34)
    hubspot = "pat-" + "eu1-" + _uuid("hubspot")
    shopify = "shp" + "at_" + _hex("shopify", 32)
    okta = "00" + _s("okta", 40, _B64URL)
    auth0 = _s("auth0", 64, _B64URL)
    return _family(
        "productivity",
        [
            ("notion_client", f'notion = Client(auth="{notion}")', notion),
            ("airtable_pat", f"AIRTABLE_PAT={airtable}\nBASE=appX92kd0Lq", airtable),
            (
                "linear_graphql",
                f"curl https://api.linear.app/graphql -H 'Authorization: {linear}' -d '{{\"query\":\"{{ viewer {{ id }} }}\"}}'",
                linear,
            ),
            ("jira_basic", f"jira init --installation cloud --login me@acme.io --token {atlassian}", atlassian),
            ("asana_pat", f"asana_token: {asana}", asana),
            ("figma_header", f"X-Figma-Token: {figma}", figma),
            (
                "postman_env",
                f"postman collection run ./api.json --env-var baseUrl=https://api.acme.io --postman-api-key {postman}",
                postman,
            ),
            ("hubspot_private_app", f"hubspot_client = HubSpot(access_token='{hubspot}')", hubspot),
            (
                "shopify_admin",
                f"shopify.Session.setup(api_key=KEY, secret=SECRET)\nsession = shopify.Session('acme.myshopify.com', '2024-10', '{shopify}')",
                shopify,
            ),
            ("okta_ssws", f"Authorization: SSWS {okta}", okta),
            (
                "auth0_client_secret",
                f"AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID={_s('auth0-id', 32)}\nAUTH0_CLIENT_SECRET={auth0}",
                auth0,
            ),
        ],
    )


def _db_urls() -> list[Secret]:
    pw = [_s(f"db-pw-{i}", 20, ALNUM + "!*_") for i in range(4)]
    return _family(
        "db_urls",
        [
            (
                "postgres_url",
                f"DATABASE_URL=postgres://billing:{pw[0]}@db.internal:5432/billing?sslmode=require",
                pw[0],
            ),
            ("mysql_sqlalchemy", f'engine = create_engine("mysql+pymysql://root:{pw[1]}@127.0.0.1:3306/shop")', pw[1]),
            (
                "mongo_srv",
                f"mongodb+srv://app_rw:{pw[2]}@cluster0.x8k2q.mongodb.net/orders?retryWrites=true&w=majority",
                pw[2],
            ),
            ("redis_tls", "REDIS_URL=rediss://default:hunter2hunter2@cache.acme.io:6380/0", "hunter2hunter2"),
            ("amqp", "CELERY_BROKER_URL = 'amqp://celery:Pl4typ0s-Wa1tz@rabbit:5672/prod'", "Pl4typ0s-Wa1tz"),
            (
                "jdbc_params",
                f"spring.datasource.url=jdbc:postgresql://pg1:5432/ledger?user=ledger&password={pw[3]}&ssl=true",
                pw[3],
            ),
            (
                "sqlserver_connstr",
                "Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=crm;User ID=crm_app;Password=Ws!9qLm#eR2z;Encrypt=True;",
                "Ws!9qLm#eR2z",
            ),
            (
                "odbc_dsn",
                "DRIVER={ODBC Driver 18 for SQL Server};SERVER=10.2.0.4;UID=sa;PWD=Marmalade77;TrustServerCertificate=yes",
                "Marmalade77",
            ),
            (
                "clickhouse_dsn",
                "clickhouse://analytics:qz7-Fennel-41@ch.internal:9000/events?secure=false",
                "qz7-Fennel-41",
            ),
            ("neo4j_bolt_hard", "NEO4J_URI=bolt://neo4j:graphs4days@localhost:7687", "graphs4days"),
            ("oracle_ez_connect", "sqlplus scott/Tiger2026Orcl@//ora-prod:1521/ORCLPDB1", "Tiger2026Orcl"),
        ],
    )


def _cli_flags() -> list[Secret]:
    return _family(
        "cli_flags",
        [
            ("mysql_p_glued", "mysql -h db1 -u admin -pQ7v#Lr2!mZ shop < seed.sql", "Q7v#Lr2!mZ"),
            (
                "pgpassword_prefix",
                "PGPASSWORD='Rk4$tar-Gazer' pg_dump -h pg1 -U ledger ledger > ledger.sql",
                "Rk4$tar-Gazer",
            ),
            (
                "curl_user",
                "curl -u deploy:GlassOnion#88 https://nexus.acme.io/service/rest/v1/components",
                "GlassOnion#88",
            ),
            ("sshpass", "sshpass -p 'b4nana-Split' ssh -o StrictHostKeyChecking=no pi@10.0.0.21", "b4nana-Split"),
            ("docker_login_p", "docker login registry.acme.io -u ci -p Xw8pL2mQ9tRv", "Xw8pL2mQ9tRv"),
            ("htpasswd_b", "htpasswd -b -c /etc/nginx/.htpasswd grafana olive-Branch-63", "olive-Branch-63"),
            (
                "openssl_passout",
                "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:Qz9-pkcs-Lm4",
                "Qz9-pkcs-Lm4",
            ),
            ("smbclient_percent", "smbclient //nas/share -U backup%Ruby-Tuesday-9 -c 'ls'", "Ruby-Tuesday-9"),
            (
                "wget_password",
                "wget --user=mirror --password='Cobalt!Mirror7' ftp://ftp.acme.io/pub/iso/",
                "Cobalt!Mirror7",
            ),
            (
                "redis_cli_a",
                "redis-cli -h cache.internal -p 6379 -a Vx7rQp2Lm9sT --no-auth-warning INFO",
                "Vx7rQp2Lm9sT",
            ),
            ("zip_P", "zip -P winter-ledger-22 -r invoices.zip invoices/", "winter-ledger-22"),
            ("keytool_storepass", "keytool -list -keystore release.jks -storepass Andr0id!Rel3ase", "Andr0id!Rel3ase"),
            ("sqlcmd_P", "sqlcmd -S localhost -U sa -P 'Yukon900!' -Q \"SELECT @@VERSION\"", "Yukon900!"),
            (
                "rclone_obscure_hard",
                "rclone config create b2 b2 account 002a81f key K002qLm8Rt4Zx7Vb2Nc6Yh1Pw9",
                "K002qLm8Rt4Zx7Vb2Nc6Yh1Pw9",
            ),
        ],
    )


def _prose_en() -> list[Secret]:
    return _family(
        "prose_en",
        [
            (
                "wifi_casual",
                "the wifi here is CoffeeHouse5G and the password is espresso-shot-42, ask if it drops",
                "espresso-shot-42",
            ),
            (
                "login_with_hard",
                "for the staging admin just use admin / bluebirdsing to log in, nobody changed it",
                "bluebirdsing",
            ),
            (
                "plain_word_hard",
                "my laptop unlock is marshmallow, in case you need to get in while I'm out",
                "marshmallow",
            ),
            (
                "phrase_passphrase_hard",
                "vault passphrase: correct horse battery staple (yes really, I know)",
                "correct horse battery staple",
            ),
            ("it_is", "Router admin: it's Tr0ub4dor99 — same as the NAS, I'll rotate both next week.", "Tr0ub4dor99"),
            (
                "changed_to",
                "heads up, I changed the shared mailbox pw to Lemon&Thyme2026 this morning",
                "Lemon&Thyme2026",
            ),
            ("creds_for", "creds for the test tenant: qa-bot@acme.io, pass Pomegranate!31", "Pomegranate!31"),
            (
                "quoted_in_sentence_hard",
                'I typed "FrostyOwl_1987" into the jenkins prompt and it still says unauthorized',
                "FrostyOwl_1987",
            ),
            (
                "my_key_is",
                "fwiw my personal API key for the old dashboard is dsh-4Hq9TzLk2VmX8c, it only has read scope",
                "dsh-4Hq9TzLk2VmX8c",
            ),
            ("passcode_hard", "Guest network: AcmeGuest, passcode sunshine2024", "sunshine2024"),
            (
                "secret_answer_hard",
                "security question answer for the bank account (mother's maiden name) is Kowalczyk-Brandt",
                "Kowalczyk-Brandt",
            ),
        ],
    )


def _prose_intl() -> list[Secret]:
    return _family(
        "prose_intl",
        [
            (
                "french",
                "Salut, le mot de passe du serveur de test est Papillon#2026, ne le partage pas.",
                "Papillon#2026",
            ),
            ("german", "Das Passwort für den Router lautet Sonnenblume-77, bitte nicht weitergeben.", "Sonnenblume-77"),
            ("spanish", "la contraseña del wifi de la oficina es gatonegro1985", "gatonegro1985"),
            ("portuguese", "A senha do banco de dados de homologação é Jabuticaba@42", "Jabuticaba@42"),
            (
                "italian",
                "Ciao! La password di root è pizzaMargherita!9, cambiala dopo il primo accesso.",
                "pizzaMargherita!9",
            ),
            ("dutch", "Het wachtwoord van de NAS is Stroopwafel88 (hoofdletter S).", "Stroopwafel88"),
            ("polish", "Hasło do panelu admina: Zubrowka#Wiosna3", "Zubrowka#Wiosna3"),
            ("japanese", "サーバーのパスワードは Sakura2026kaze です。", "Sakura2026kaze"),
            ("chinese", "数据库密码是 Longjing-Cha-88，请不要外传。", "Longjing-Cha-88"),
            ("russian", "Пароль от VPN: Matryoshka_5551", "Matryoshka_5551"),
            ("turkish", "Sunucu şifresi: Lokum!Istanbul34", "Lokum!Istanbul34"),
            ("swedish_hard", "Koden till wifi:t är kanelbulle1234", "kanelbulle1234"),
        ],
    )


def _pins() -> list[Secret]:
    return _family(
        "pins",
        [
            ("door_code", "Office door code is 7391#, the alarm panel is on the left when you come in.", "7391"),
            ("alarm_code_hard", "alarm: disarm with 2580 then press OFF", "2580"),
            ("sim_puk", "SIM locked again... PUK from the card: 48213907", "48213907"),
            ("voicemail_pin", "voicemail PIN for the support line = 6604", "6604"),
            ("card_pin_hard", "the company card is the blue one, pin 9172, limit 500", "9172"),
            ("phone_unlock", "Test phone (Pixel 7) unlock pattern/PIN: 135790", "135790"),
            ("safe_combo_hard", "safe in the server room opens with 31-17-5", "31-17-5"),
            ("locker_code", "gym locker code: 0412 (my birthday, don't judge)", "0412"),
            ("bios_password", "BIOS supervisor password on the kiosk machines: Kiosk4411", "Kiosk4411"),
        ],
    )


def _private_keys() -> list[Secret]:
    rsa = _pem_body("pk-rsa", 1190)
    openssh = _pem_body("pk-openssh", 400)
    ec = _pem_body("pk-ec", 121)
    enc = _pem_body("pk-enc", 1250)
    pgp = _pem_body("pk-pgp", 900)
    ppk = _pem_body("pk-ppk", 300)
    wg = _DRAW.b64("pk-wireguard", 32)
    jwk_d = _s("pk-jwk-d", 43, _B64URL)
    age = "AGE-" + "SECRET-KEY-1" + _s("pk-age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
    return _family(
        "private_keys",
        [
            ("rsa_pem", "$ cat deploy_key.pem\n" + _pem("RSA PRIVATE KEY", rsa), rsa[5]),
            (
                "openssh",
                _pem("OPENSSH PRIVATE KEY", openssh) + "\n\nthis is the one on the bastion, right?",
                openssh[2],
            ),
            ("ec_in_yaml", "tls:\n  key: |\n    " + _pem("EC PRIVATE KEY", ec).replace("\n", "\n    "), ec[1]),
            ("encrypted_pkcs8", _pem("ENCRYPTED PRIVATE KEY", enc) + "\n(passphrase is in 1password)", enc[7]),
            (
                "pgp_block",
                "gpg --export-secret-keys --armor ops@acme.io\n"
                + _pem("PGP PRIVATE KEY BLOCK", ["", *pgp, "=" + _s("pgp-crc", 4, _B64)]),
                pgp[4],
            ),
            (
                "putty_ppk",
                "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: build@jump\nPublic-Lines: 1\n"
                + _s("ppk-pub", 68, _B64)
                + "\nPrivate-Lines: "
                + str(len(ppk))
                + "\n"
                + "\n".join(ppk)
                + "\nPrivate-MAC: "
                + _hex("ppk-mac", 64),
                ppk[1],
            ),
            (
                "wireguard_conf",
                f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {wg}\nDNS = 1.1.1.1\n\n[Peer]\n"
                f"PublicKey = {_DRAW.b64('wg-pub', 32)}\nEndpoint = vpn.acme.io:51820",
                wg,
            ),
            (
                "jwk_private",
                '{"kty":"EC","crv":"P-256","kid":"sig-2026-11",'
                f'"x":"{_s("jwk-x", 43, _B64URL)}","y":"{_s("jwk-y", 43, _B64URL)}","d":"{jwk_d}"}}',
                jwk_d,
            ),
            (
                "age_identity",
                f"# created: 2026-11-02T09:12:44Z\n# public key: age1{_s('age-pub', 58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}\n{age}",
                age,
            ),
        ],
    )


def _cookies() -> list[Secret]:
    sess = [_s(f"cookie-{i}", 32, _LOWER) for i in range(3)]
    connect_sid = "s%3A" + _s("connect-sid", 32, _B64URL) + "." + _s("connect-sig", 43, _B64URL)
    laravel = _DRAW.b64("laravel-cookie", 180).replace("=", "%3D")
    aspnet = "CfDJ8" + _s("aspnet-cookie", 220, _B64URL)
    jsession = _hex("jsession", 32).upper()
    rails = _s("rails-cookie", 120, _B64 + "-") + "--" + _hex("rails-cookie-sig", 40)
    return _family(
        "cookies",
        [
            (
                "set_cookie_header",
                f"HTTP/1.1 302 Found\nLocation: /dashboard\nSet-Cookie: sessionid={sess[0]}; HttpOnly; Path=/; SameSite=Lax",
                sess[0],
            ),
            ("cookie_request_header", f"Cookie: csrftoken=abc; sessionid={sess[1]}; django_language=en", sess[1]),
            (
                "express_connect_sid",
                f"curl 'https://admin.acme.io/api/users' -b 'connect.sid={connect_sid}'",
                connect_sid,
            ),
            ("laravel_session", f"laravel_session={laravel}; expires=Sat, 28-Nov-2026 10:00:00 GMT; path=/", laravel),
            ("aspnet_cookie", f".AspNetCore.Cookies={aspnet}", aspnet),
            ("jsessionid_url_hard", f"GET /shop/cart;jsessionid={jsession}?item=42 HTTP/1.1", jsession),
            ("rails_session_devtools", f"_myapp_session\t{rails}\tapp.acme.io\t/\tSession\t412\t✓\t✓\tLax", rails),
            (
                "cookie_jar_netscape",
                f"# Netscape HTTP Cookie File\n.acme.io\tTRUE\t/\tTRUE\t1795000000\tPHPSESSID\t{sess[2]}",
                sess[2],
            ),
        ],
    )


def _auth_headers() -> list[Secret]:
    jwt1 = _jwt("hdr-jwt-1", {"sub": "u_81724", "scope": "admin", "exp": 1795000000})
    jwt2 = _jwt("hdr-jwt-2", {"sub": "svc-billing", "aud": "ledger", "iat": 1764000000})
    basic = base64.b64encode(b"svc-report:Quartz-Lantern-52").decode()
    opaque = _s("hdr-opaque", 40, _B64URL)
    refresh = _s("hdr-refresh", 64, _B64URL)
    apikey = _s("hdr-apikey", 32)
    idtoken = _jwt("hdr-jwt-3", {"iss": "https://accounts.acme.io", "email": "ana@acme.io", "nonce": "n-0S6"})
    private_token = _s("hdr-private", 20, _B64URL)
    return _family(
        "auth_headers",
        [
            ("bearer_jwt", f"Authorization: Bearer {jwt1}", jwt1),
            ("axios_default", f"axios.defaults.headers.common['Authorization'] = `Bearer {jwt2}`;", jwt2),
            (
                "basic_b64",
                f"> GET /reports/q3 HTTP/1.1\n> Host: reports.acme.io\n> Authorization: Basic {basic}\n>",
                basic,
            ),
            ("opaque_bearer_httpie", f"http GET api.acme.io/v2/me 'Authorization:Bearer {opaque}'", opaque),
            (
                "refresh_token_json",
                f'{{"access_token":"<redacted>","token_type":"bearer","expires_in":3600,"refresh_token":"{refresh}"}}',
                refresh,
            ),
            ("x_api_key_lowercase", f"x-api-key:{apikey}", apikey),
            ("id_token_in_log", f"DEBUG oidc: got id_token={idtoken} for ana@acme.io", idtoken),
            ("gitlab_private_token_hard", f"PRIVATE-TOKEN: {private_token}", private_token),
            (
                "token_scheme",
                f"requests.get(url, headers={{'Authorization': 'Token {_hex('drf-token', 40)}'}})",
                _hex("drf-token", 40),
            ),
        ],
    )


def _app_secrets() -> list[Secret]:
    django = "django-" + "insecure-" + _s("django", 50, "abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+)")
    rails = _hex("rails-skb", 128)
    flask = _hex("flask", 48)
    nextauth = _DRAW.b64("nextauth", 32)
    laravel = "base64:" + _DRAW.b64("laravel-app", 32)
    jwt_secret = "my-super-jwt-signing-" + _s("jwt-secret", 12)
    hmac_key = _DRAW.raw("hmac-bytes", 24).hex()
    phoenix = _s("phoenix", 64, _B64)
    machinekey = _hex("machinekey", 128).upper()
    gh_webhook = _s("gh-webhook", 20, _B64URL)
    return _family(
        "app_secrets",
        [
            ("django_settings", f"SECRET_KEY = '{django}'\nDEBUG = True", django),
            (
                "rails_credentials",
                f"$ bin/rails credentials:show\nsecret_key_base: {rails}\naws:\n  bucket: acme-uploads",
                rails,
            ),
            ("flask_config", f"app.config['SECRET_KEY'] = bytes.fromhex('{flask}')", flask),
            ("nextauth_env", f"NEXTAUTH_URL=http://localhost:3000\nNEXTAUTH_SECRET={nextauth}", nextauth),
            ("laravel_app_key", f"APP_NAME=Acme\nAPP_ENV=production\nAPP_KEY={laravel}\nAPP_DEBUG=false", laravel),
            (
                "jwt_secret_js",
                f"const token = jwt.sign({{ uid: user.id }}, '{jwt_secret}', {{ expiresIn: '1h' }});",
                jwt_secret,
            ),
            ("hmac_go", f'var webhookKey = []byte("{hmac_key}")\nmac := hmac.New(sha256.New, webhookKey)', hmac_key),
            ("phoenix_runtime", f'config :acme, AcmeWeb.Endpoint,\n  secret_key_base: "{phoenix}"', phoenix),
            (
                "aspnet_machinekey",
                f'<machineKey validationKey="{machinekey}" decryptionKey="AutoGenerate" validation="HMACSHA256" />',
                machinekey,
            ),
            (
                "github_webhook_secret_hard",
                f"Webhook → Edit\nPayload URL: https://ci.acme.io/hook\nContent type: application/json\nSecret: {gh_webhook}",
                gh_webhook,
            ),
        ],
    )


def _recovery() -> list[Secret]:
    codes = [f"{_s(f'rc-{i}', 5, _LOWER)}-{_s(f'rc2-{i}', 5, _LOWER)}" for i in range(8)]
    totp = _s("totp", 32, _BASE32)
    totp2 = _s("totp-2", 16, _BASE32)
    bitlocker = "-".join(_s(f"bitlocker-{i}", 6, _DIGITS) for i in range(8))
    apple = "-".join(_s(f"apple-rk-{i}", 4, _UPPER) for i in range(7))
    seed_words = "lunar orchard violin tackle ember harbor sketch noble quarry mirror velvet plunge"
    return _family(
        "recovery",
        [
            ("github_recovery_codes", "github-recovery-codes.txt\n\n" + "\n".join(codes[:8]), codes[3]),
            (
                "otpauth_uri",
                f"otpauth://totp/Acme:ana%40acme.io?secret={totp}&issuer=Acme&algorithm=SHA1&digits=6&period=30",
                totp,
            ),
            (
                "totp_seed_spaced_hard",
                "can't scan the QR, enter this manually: "
                + " ".join(totp2[i : i + 4] for i in range(0, 16, 4)).lower(),
                " ".join(totp2[i : i + 4] for i in range(0, 16, 4)).lower(),
            ),
            ("bitlocker", f"BitLocker recovery key for LAPTOP-7F2K (ID 4A1B...):\n{bitlocker}", bitlocker),
            ("apple_recovery_key", f"Recovery Key: {apple}\nKeep this in a safe place.", apple),
            ("seed_phrase_hard", f"wallet backup (don't lose): {seed_words}", seed_words),
            (
                "backup_codes_inline_hard",
                f"my 2FA backup codes are {_s('bc-1', 8, _DIGITS)}, {_s('bc-2', 8, _DIGITS)}",
                _s("bc-2", 8, _DIGITS),
            ),
            (
                "restic_repo_password",
                f"RESTIC_REPOSITORY=s3:s3.amazonaws.com/acme-backup\nRESTIC_PASSWORD=harbor-quilt-{_s('restic', 6, _LOWER)}",
                f"harbor-quilt-{_s('restic', 6, _LOWER)}",
            ),
        ],
    )


def _crypto_keys() -> list[Secret]:
    aes = _hex("aes-256", 64)
    fernet = base64.urlsafe_b64encode(_DRAW.raw("fernet", 32)).decode()
    master = _hex("rails-master", 32)
    kms_plain = _DRAW.b64("kms-plaintext", 32)
    sops_age = "AGE-" + "SECRET-KEY-1" + _s("sops-age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
    return _family(
        "crypto_keys",
        [
            ("aes_hex_const", f'// TODO: load from KMS\nstatic const char *AES_KEY_HEX = "{aes}";', aes),
            ("fernet_key", f">>> Fernet.generate_key()\nb'{fernet}'", fernet),
            ("rails_master_key", f"$ cat config/master.key\n{master}", master),
            (
                "kms_plaintext_json",
                f'{{\n  "CiphertextBlob": "AQIDAHh...",\n  "Plaintext": "{kms_plain}",\n  "KeyId": "arn:aws:kms:eu-west-1:111122223333:key/{_uuid("kms-id")}"\n}}',
                kms_plain,
            ),
            (
                "ansible_vault_pass_hard",
                "echo 'gravel-Pelican-Tuesday' > ~/.vault_pass && ansible-playbook site.yml --vault-password-file ~/.vault_pass",
                "gravel-Pelican-Tuesday",
            ),
            (
                "luks_keyfile_hard",
                "printf '%s' 'nightjar-Copper-1066' | cryptsetup luksOpen /dev/sdb1 backup -d -",
                "nightjar-Copper-1066",
            ),
            (
                "gpg_passphrase",
                "gpg --batch --pinentry-mode loopback --passphrase 'Ivory.Tower.Fox' -d secrets.tar.gpg",
                "Ivory.Tower.Fox",
            ),
            ("sops_age_env", f"export SOPS_AGE_KEY={sops_age}\nsops -d secrets.enc.yaml", sops_age),
            (
                "openssl_enc_k",
                f"openssl enc -aes-256-cbc -pbkdf2 -in dump.sql -out dump.sql.enc -k {_s('openssl-k', 18)}",
                _s("openssl-k", 18),
            ),
        ],
    )


def _diffs() -> list[Secret]:
    k1 = "sk_" + "live_" + _s("diff-stripe", 99)
    pw = "Mistral-Gale-2026"
    tok = "gh" + "p_" + _s("diff-ghp", 36)
    aws = _s("diff-aws", 40, _B64)
    slack = _s("diff-slack", 24)
    dd = _hex("diff-dd", 32)
    return _family(
        "diffs",
        [
            (
                "env_added",
                f"diff --git a/.env b/.env\n@@ -1,3 +1,4 @@\n DEBUG=false\n-STRIPE_KEY=\n+STRIPE_KEY={k1}\n PORT=8080",
                k1,
            ),
            (
                "yaml_password_changed",
                f"--- a/config/db.yml\n+++ b/config/db.yml\n@@ -4,7 +4,7 @@ production:\n   username: app\n-  password: <%= ENV['DB_PASSWORD'] %>\n+  password: {pw}\n   host: db1",
                pw,
            ),
            (
                "workflow_token",
                f"@@ -12,6 +12,8 @@ jobs:\n       - uses: actions/checkout@v4\n+        with:\n+          token: {tok}\n       - run: make release",
                tok,
            ),
            (
                "python_removed_line",
                f'-    aws_secret_access_key="{aws}",\n+    aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],',
                aws,
            ),
            (
                "compose_hunk_hard",
                f"@@ -20,4 +20,5 @@ services:\n     environment:\n+      - SLACK_HOOK_PATH=T0001/B0001/{slack}\n       - TZ=UTC",
                slack,
            ),
            (
                "git_show_stat",
                f"commit {_hex('diff-commit', 40)}\nAuthor: dev <dev@acme.io>\n\n    add monitoring\n\n+DD_API_KEY={dd}",
                dd,
            ),
            (
                "patch_ini_hard",
                "--- a/odoo.conf\n+++ b/odoo.conf\n@@ -2 +2 @@\n-admin_passwd = admin\n+admin_passwd = Vineyard$Sloth4",
                "Vineyard$Sloth4",
            ),
            (
                "side_by_side_hard",
                "  api_password: old-one-1                     |  api_password: Paprika-Tundra-88",
                "Paprika-Tundra-88",
            ),
        ],
    )


def _urls() -> list[Secret]:
    q1 = _s("url-apikey", 32)
    q2 = _s("url-access", 48, _B64URL)
    sig = _hex("url-sig", 64)
    hook = _s("url-hook", 40, _B64URL)
    return _family(
        "urls",
        [
            ("query_api_key", f"https://api.openweathermap.org/data/2.5/weather?q=Lyon&appid={q1}&units=metric", q1),
            ("query_access_token", f"GET /graph/v19.0/me/accounts?fields=name&access_token={q2} 200 OK", q2),
            (
                "userinfo_https",
                "pip install --index-url https://ci:Salt-Marsh-Heron@pypi.acme.io/simple/ acme-core",
                "Salt-Marsh-Heron",
            ),
            ("ftp_userinfo", "lftp ftp://webmaster:Bramble77sky@ftp.example-hosting.net/public_html", "Bramble77sky"),
            ("signed_query_hard", f"https://cdn.acme.io/private/video.mp4?expires=1795000000&signature={sig}", sig),
            ("webhook_path_token_hard", f"n8n webhook: https://automations.acme.io/webhook/{hook}", hook),
            ("redis_url_no_user_hard", "redis://:plumtree-Anchor@10.0.3.7:6379/2", "plumtree-Anchor"),
            ("git_credentials_file", "https://jdoe:Harvest%21Moon55@git.acme.io", "Harvest%21Moon55"),
            (
                "smtp_url",
                "EMAIL_URL=smtp+tls://noreply%40acme.io:Copper.Kettle.9@smtp.mailbox.org:587",
                "Copper.Kettle.9",
            ),
        ],
    )


def _errors() -> list[Secret]:
    pw1 = "Orchid#Lamp-73"
    key = _s("err-key", 32)
    tok = _s("err-tok", 40, _B64URL)
    return _family(
        "errors",
        [
            (
                "python_traceback_dsn",
                'Traceback (most recent call last):\n  File "app.py", line 14, in <module>\n    conn = psycopg2.connect(dsn)\n'
                f'psycopg2.OperationalError: connection to server at "db1" failed: FATAL:  password authentication failed for user "app"\n'
                f"  dsn='host=db1 user=app password={pw1} dbname=app'",
                pw1,
            ),
            (
                "java_exception_props",
                "org.springframework.beans.factory.BeanCreationException: Error creating bean 'mailSender'\n"
                "Caused by: javax.mail.AuthenticationFailedException: 535 5.7.8 Username and Password not accepted "
                "[user=notify@acme.io, pass=Walnut-Breeze-19]\n\tat com.sun.mail.smtp.SMTPTransport.protocolConnect(SMTPTransport.java:947)",
                "Walnut-Breeze-19",
            ),
            (
                "node_axios_error",
                "AxiosError: Request failed with status code 401\n    at settle (node_modules/axios/lib/core/settle.js:19:12)\n"
                f"  config: {{\n    url: 'https://api.acme.io/v1/sync',\n    headers: {{ 'X-Api-Key': '{key}', Accept: 'application/json' }}\n  }}",
                key,
            ),
            (
                "go_panic_struct",
                'panic: dial failed\n\ngoroutine 1 [running]:\nmain.connect({Host:"mq" User:"svc" Password:"Sparrow_Quill_64"})\n\t/src/main.go:42 +0x1a4',
                "Sparrow_Quill_64",
            ),
            (
                "rust_debug_print",
                f'Error: Config {{ endpoint: "https://api.acme.io", token: "{tok}", retries: 3 }}',
                tok,
            ),
            (
                "ldap_bind_error_hard",
                "ldap_bind: Invalid credentials (49)\n  command was: ldapsearch -x -D 'cn=admin,dc=acme,dc=io' -w Glacier.Mint.7 -b 'dc=acme,dc=io'",
                "Glacier.Mint.7",
            ),
            (
                "php_warning_hard",
                "Warning: mysqli::__construct(): (HY000/1045): Access denied for user 'wp'@'localhost' in "
                "/var/www/html/wp-config.php on line 7 // define('DB_PASSWORD', 'Teacup-Nebula-8');",
                "Teacup-Nebula-8",
            ),
            (
                "dotnet_connstring_exception",
                "System.Data.SqlClient.SqlException (0x80131904): Login failed for user 'reporting'.\n"
                "   ConnectionString: Data Source=sql02;Initial Catalog=dw;User Id=reporting;Password=Saffron^Dune^3",
                "Saffron^Dune^3",
            ),
            (
                "k8s_event_hard",
                "Warning  Failed  pod/importer-7c9f  Error: failed to pull: unauthorized: authentication required "
                "(registry=harbor.acme.io user=robot$importer secret=Fj39aLq0ZmX7vB2rT8nY)",
                "Fj39aLq0ZmX7vB2rT8nY",
            ),
        ],
    )


def _split() -> list[Secret]:
    a = _s("split-a", 24)
    b = _s("split-b", 20, _B64URL)
    c = _s("split-c", 32, _HEX)
    return _family(
        "split",
        [
            ("two_messages_hard", f"first half of the key: {a}\n(second half in the next message)", a),
            ("backslash_continuation", f'export API_TOKEN="{b}\\\n{_s("split-b2", 20, _B64URL)}"', b),
            ("python_concat_hard", f'TOKEN = (\n    "{c[:16]}"\n    "{c[16:]}"\n)', c[:16]),
            (
                "wrapped_email_hard",
                "> the new password is\n> Kestrel-\n> Orbit-Nine\n> let me know if it works",
                "Orbit-Nine",
            ),
            (
                "json_array_chunks_hard",
                f'{{"key_parts": ["{_s("split-d1", 16)}", "{_s("split-d2", 16)}"]}}',
                _s("split-d1", 16),
            ),
            (
                "spaced_letters_hard",
                "pw (type it without the spaces): W h i s k e y - 7 7 - R i v e r",
                "W h i s k e y - 7 7 - R i v e r",
            ),
            (
                "pem_cert_key_pair_lines",
                "key.pem line 2-3:\n" + "\n".join(_pem_body("split-pem", 96)[:2]),
                _pem_body("split-pem", 96)[1],
            ),
        ],
    )


def _tables() -> list[Secret]:
    k = _s("tbl-key", 32)
    t = _s("tbl-tok", 40, _B64URL)
    return _family(
        "tables",
        [
            (
                "csv_users",
                "email,name,role,password\nana@acme.io,Ana,admin,Cinnamon-Atlas-5\nbo@acme.io,Bo,viewer,<reset>",
                "Cinnamon-Atlas-5",
            ),
            (
                "markdown_table",
                f"| service | user | key |\n|---|---|---|\n| geocoder | acme | {k} |\n| maps | acme | (see vault) |",
                k,
            ),
            ("tsv_paste_hard", "host\tuser\tpass\nrouter-2\tadmin\tPeregrine9\nswitch-4\tadmin\tsame", "Peregrine9"),
            (
                "ascii_table",
                f"+---------+----------------------------------------------+\n| name    | value                                        |\n+---------+----------------------------------------------+\n| token   | {t}     |\n+---------+----------------------------------------------+",
                t,
            ),
            (
                "sheet_paste_hard",
                "Account\tLogin\tPW\tNotes\nAdobe\tdesign@acme.io\tVermilion&Fox22\tshared seat",
                "Vermilion&Fox22",
            ),
            (
                "kv_columns_hard",
                "wifi-ssid      AcmeLab\nwifi-psk       moonlight-sonata-op27\nvlan           40",
                "moonlight-sonata-op27",
            ),
            (
                "psql_output",
                " id | username |     api_secret\n----+----------+---------------------\n  1 | etl      | "
                + _s("tbl-psql", 20)
                + "\n(1 row)",
                _s("tbl-psql", 20),
            ),
        ],
    )


def _containers() -> list[Secret]:
    auth = base64.b64encode(b"robot$ci:" + _s("ctr-harbor", 32).encode()).decode()
    k8s_b64 = base64.b64encode(b"Pelican-Orchard-2027").decode()
    kube_token = _jwt("ctr-kube", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"})
    client_key = _DRAW.b64("ctr-client-key", 600)
    helm = _s("ctr-helm", 24)
    return _family(
        "containers",
        [
            (
                "dockerfile_env",
                "FROM python:3.12-slim\nENV PIP_INDEX_URL=https://pypi.org/simple\nENV DB_PASSWORD=Quokka-Sunrise-11\nCOPY . /app",
                "Quokka-Sunrise-11",
            ),
            (
                "dockerfile_arg_build",
                "docker build --build-arg NPM_TOKEN=" + "np" + "m_" + _s("ctr-npm", 36) + " -t web:latest .",
                "np" + "m_" + _s("ctr-npm", 36),
            ),
            (
                "compose_env",
                "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: velvet-Lynx-390\n",
                "velvet-Lynx-390",
            ),
            (
                "compose_list_form_hard",
                "    environment:\n      - MINIO_ROOT_USER=minio\n      - MINIO_ROOT_PASSWORD=AzureSalamander\n",
                "AzureSalamander",
            ),
            (
                "docker_config_json",
                f'{{\n  "auths": {{\n    "harbor.acme.io": {{\n      "auth": "{auth}"\n    }}\n  }}\n}}',
                auth,
            ),
            (
                "k8s_secret_data",
                f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {k8s_b64}",
                k8s_b64,
            ),
            (
                "k8s_string_data",
                'kind: Secret\nstringData:\n  REDIS_PASSWORD: "Topaz-Gecko-73"\n  REDIS_HOST: redis-master',
                "Topaz-Gecko-73",
            ),
            ("kubeconfig_token", f"users:\n- name: deployer\n  user:\n    token: {kube_token}", kube_token),
            (
                "kubeconfig_client_key",
                f"users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTi...\n    client-key-data: {client_key}",
                client_key,
            ),
            (
                "helm_set",
                f"helm upgrade --install grafana grafana/grafana --set adminPassword={helm} -n monitoring",
                helm,
            ),
            (
                "kubectl_create_secret",
                "kubectl create secret generic smtp --from-literal=user=mailer --from-literal=pass='Heron!Canal!12'",
                "Heron!Canal!12",
            ),
        ],
    )


def _iac() -> list[Secret]:
    tfvar = _s("iac-tfvar", 28, ALNUM + "!#")
    pulumi = _s("iac-pulumi", 24)
    return _family(
        "iac",
        [
            ("tfvars", f'region      = "eu-west-1"\ndb_password = "{tfvar}"\ninstance    = "t3.small"', tfvar),
            (
                "hcl_provider",
                'provider "postgresql" {\n  host     = "pg.internal"\n  username = "terraform"\n  password = "Basalt-Comet-41"\n}',
                "Basalt-Comet-41",
            ),
            (
                "tf_state_json",
                '"attributes": {\n  "administrator_login": "sqladmin",\n  "administrator_login_password": "Citrine_Wolf_2026",\n  "fqdn": "acme.database.windows.net"',
                "Citrine_Wolf_2026",
            ),
            ("ansible_vars", "mysql_root_password: Fjord-Maple-88\nmysql_databases:\n  - name: wiki", "Fjord-Maple-88"),
            ("pulumi_config_set", f"pulumi config set --secret dbPassword {pulumi}\npulumi up --yes", pulumi),
            (
                "cloud_init",
                "#cloud-config\nusers:\n  - name: ops\n    lock_passwd: false\n    plain_text_passwd: 'Larch&Otter6'\n",
                "Larch&Otter6",
            ),
            (
                "cloudformation_params",
                '[\n  {"ParameterKey": "MasterUsername", "ParameterValue": "admin"},\n  {"ParameterKey": "MasterUserPassword", "ParameterValue": "Nimbus-Kite-907"}\n]',
                "Nimbus-Kite-907",
            ),
            (
                "packer_hcl",
                'source "vsphere-iso" "ubuntu" {\n  vcenter_server = "vc.acme.lan"\n  username       = "packer@vsphere.local"\n  password       = "Sleet;Harbor;4"\n}',
                "Sleet;Harbor;4",
            ),
            ("puppet_hiera_hard", "profile::db::root_pw: 'cardamom-rhino'\nprofile::db::port: 5432", "cardamom-rhino"),
        ],
    )


def _ide_configs() -> list[Secret]:
    tok = _s("ide-tok", 40, _B64URL)
    return _family(
        "ide_configs",
        [
            (
                "vscode_launch_env",
                f'{{\n  "name": "Debug API",\n  "type": "python",\n  "request": "launch",\n  "env": {{"API_TOKEN": "{tok}", "LOG_LEVEL": "debug"}}\n}}',
                tok,
            ),
            (
                "intellij_run_config",
                '<configuration name="App" type="SpringBootApplicationConfigurationType">\n  <envs>\n    <env name="SPRING_DATASOURCE_PASSWORD" value="Granite.Swift.31" />\n  </envs>\n</configuration>',
                "Granite.Swift.31",
            ),
            (
                "datagrip_data_source",
                '<data-source name="prod@pg1">\n  <user-name>readonly</user-name>\n  <password>Mango-Lagoon-6</password>\n</data-source>',
                "Mango-Lagoon-6",
            ),
            (
                "rest_client_http",
                "### get invoices\nGET https://api.acme.io/invoices\nAuthorization: Basic reporting Coral-Thistle-20\n",
                "Coral-Thistle-20",
            ),
            ("pgpass", "db1.acme.io:5432:ledger:ledger_ro:Ember#Quarry#8", "Ember#Quarry#8"),
            ("netrc", "machine nexus.acme.io login deploy password Falcon-Tapestry-2", "Falcon-Tapestry-2"),
            (
                "maven_settings",
                "<server>\n  <id>acme-releases</id>\n  <username>deployer</username>\n  <password>Pewter-Ibis-77</password>\n</server>",
                "Pewter-Ibis-77",
            ),
            (
                "gradle_properties",
                "signing.keyId=24875D73\nsigning.password=Mossy-Viaduct-5\nossrhUsername=acme",
                "Mossy-Viaduct-5",
            ),
            (
                "nuget_config",
                '<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="build" />\n    <add key="ClearTextPassword" value="Juniper_Ridge_44" />\n  </acme>\n</packageSourceCredentials>',
                "Juniper_Ridge_44",
            ),
            ("dbeaver_hard", '"credentials": {"user": "analyst", "password": "tangerine-dream"}', "tangerine-dream"),
        ],
    )


def _mobile() -> list[Secret]:
    gkey = "AI" + "za" + _s("mob-google", 35, _B64URL)
    gkey2 = "AI" + "za" + _s("mob-google-2", 35, _B64URL)
    rc = "app" + "l_" + _s("mob-revenuecat", 27)
    onesignal = "os_" + "v2_app_" + _s("mob-onesignal", 100, "abcdefghijklmnopqrstuvwxyz234567")
    return _family(
        "mobile",
        [
            ("google_services_json", f'"api_key": [\n  {{\n    "current_key": "{gkey}"\n  }}\n]', gkey),
            ("info_plist", f"<key>GMSApiKey</key>\n<string>{gkey2}</string>", gkey2),
            (
                "android_signing_gradle",
                "signingConfigs {\n  release {\n    storeFile file('release.jks')\n    storePassword 'Otter-Galaxy-55'\n    keyAlias 'upload'\n    keyPassword 'Otter-Galaxy-55k'\n  }\n}",
                "Otter-Galaxy-55k",
            ),
            (
                "fastlane_match",
                "MATCH_PASSWORD=Pistachio.Glacier.3 fastlane match appstore --readonly",
                "Pistachio.Glacier.3",
            ),
            ("expo_app_json_hard", f'{{"expo": {{"extra": {{"revenueCatKey": "{rc}"}}}}}}', rc),
            ("flutter_dart_define", f"flutter run --dart-define=ONESIGNAL_KEY={onesignal}", onesignal),
            (
                "app_store_connect_p8",
                "AuthKey_7QX2L9.p8:\n" + _pem("PRIVATE KEY", _pem_body("mob-p8", 138)),
                _pem_body("mob-p8", 138)[1],
            ),
            (
                "xcconfig_hard",
                "API_BASE = https:/$()/api.acme.io\nAPI_SECRET = Plover42Sandcastle",
                "Plover42Sandcastle",
            ),
        ],
    )


def _game_servers() -> list[Secret]:
    return _family(
        "game_servers",
        [
            (
                "minecraft_rcon",
                "enable-rcon=true\nrcon.port=25575\nrcon.password=CreeperAwMan99\nmotd=Acme Friday Server",
                "CreeperAwMan99",
            ),
            (
                "source_server_cfg",
                'hostname "Acme CS2 scrim"\nrcon_password "h3adsh0t-Rally"\nsv_password "scrim2026"',
                "h3adsh0t-Rally",
            ),
            ("source_sv_password_hard", 'sv_lan 0\nsv_password "pinecone-lantern"', "pinecone-lantern"),
            (
                "valheim_start_hard",
                './valheim_server.x86_64 -name "Acme Vikings" -port 2456 -world "Midgard" -password "odinsbeard" -public 0',
                "odinsbeard",
            ),
            (
                "factorio_settings",
                '{\n  "name": "Acme factory",\n  "game_password": "conveyor-belt-77",\n  "visibility": {"public": false}\n}',
                "conveyor-belt-77",
            ),
            (
                "ark_ini",
                "[ServerSettings]\nServerPassword=\nServerAdminPassword=Dodo-Rex-Taming-1\nMaxPlayers=20",
                "Dodo-Rex-Taming-1",
            ),
            (
                "teamspeak_first_run",
                'I M P O R T A N T\nServer Query Admin Account created\n  loginname= "serveradmin", password= "Xq7+Lm2bRt9z"',
                "Xq7+Lm2bRt9z",
            ),
            ("terraria_chat_hard", "server's up at 51.89.2.14:7777, pw is goblinarmy", "goblinarmy"),
        ],
    )


def _iot() -> list[Secret]:
    esphome_key = _DRAW.b64("iot-esphome", 32)
    z2m = ", ".join(str(b) for b in _DRAW.raw("iot-z2m", 16))
    ha_token = _jwt("iot-ha", {"iss": _hex("iot-ha-iss", 32), "iat": 1764000000, "exp": 2079360000})
    return _family(
        "iot",
        [
            ("ha_secrets_yaml", "# secrets.yaml\nmqtt_password: Thermostat-Owl-3\nlatitude: 48.85", "Thermostat-Owl-3"),
            (
                "esphome_wifi_hard",
                'wifi:\n  ssid: "Kowalski-2.4"\n  password: "rainyday1990"\n\nota:\n  - platform: esphome',
                "rainyday1990",
            ),
            ("esphome_api_key", f'api:\n  encryption:\n    key: "{esphome_key}"', esphome_key),
            ("z2m_network_key_hard", f"advanced:\n  network_key: [{z2m}]\n  pan_id: 6754", z2m),
            (
                "mosquitto_pub",
                "mosquitto_pub -h 192.168.1.5 -u sensors -P 'Humid!ty-42' -t home/attic/temp -m 21.5",
                "Humid!ty-42",
            ),
            (
                "wpa_supplicant",
                'network={\n    ssid="Casa-Lopez"\n    psk="naranja mecanica 77"\n    key_mgmt=WPA-PSK\n}',
                "naranja mecanica 77",
            ),
            ("hostapd", "interface=wlan0\nssid=PiAP\nwpa=2\nwpa_passphrase=Raspberry-Jam-31\n", "Raspberry-Jam-31"),
            (
                "ha_long_lived_token",
                f"curl -H 'Authorization: Bearer {ha_token}' http://homeassistant.local:8123/api/states",
                ha_token,
            ),
            (
                "tasmota_backlog_hard",
                "Backlog SSID1 Garage; Password1 sawdust-and-oak; MqttHost 192.168.1.5",
                "sawdust-and-oak",
            ),
            (
                "octoprint_api_key",
                f"OctoPrint: Settings > API > Global API Key = {_hex('iot-octo', 32).upper()}",
                _hex("iot-octo", 32).upper(),
            ),
        ],
    )


def _pw_managers() -> list[Secret]:
    bw = _s("pm-bw", 20, ALNUM + "!@#$%^&*")
    op = _s("pm-op", 24, ALNUM + "-")
    kp = _s("pm-kp", 18, ALNUM + "!?")
    return _family(
        "pw_managers",
        [
            (
                "pass_show",
                "$ pass show work/jira\nLilac-Pumpkin-88\nlogin: ana@acme.io\nurl: https://acme.atlassian.net",
                "Lilac-Pumpkin-88",
            ),
            ("bw_get_password", f"$ bw get password github.com\n{bw}", bw),
            ("op_read", f"$ op read 'op://Private/AWS root/password'\n{op}", op),
            (
                "keepassxc_show",
                f"$ keepassxc-cli show -s vault.kdbx Email/Fastmail\nTitle: Fastmail\nUserName: me@fastmail.com\nPassword: {kp}\nURL: https://fastmail.com",
                kp,
            ),
            (
                "op_json_hard",
                '{"id": "pw", "type": "CONCEALED", "purpose": "PASSWORD", "label": "password", "value": "Zebra-Cactus-Mint-4"}',
                "Zebra-Cactus-Mint-4",
            ),
            (
                "macos_security_hard",
                "$ security find-generic-password -s 'AcmeVPN' -w\nLighthouse_Keeper_9",
                "Lighthouse_Keeper_9",
            ),
            ("windows_cmdkey", "cmdkey /generic:TERMSRV/rds01 /user:ACME\\ops /pass:Tundra$Hawk$77", "Tundra$Hawk$77"),
            ("secret_tool_hard", "$ secret-tool lookup service smb user backup\nmapleleaf1867", "mapleleaf1867"),
            ("lpass_show", "$ lpass show --password 'Shared-IT/Firewall'\nOnyx.Garden.Fox.12", "Onyx.Garden.Fox.12"),
        ],
    )


def _chat() -> list[Secret]:
    k = _s("chat-key", 32, _HEX)
    return _family(
        "chat",
        [
            (
                "slack_thread_hard",
                "[10:42] maria: can someone give me the jenkins login?\n[10:43] tom: admin / jenkinsRulez!\n[10:43] maria: thx",
                "jenkinsRulez!",
            ),
            (
                "teams_message",
                "Hi all, the new VPN shared secret for the site-to-site tunnel is Quasar-Meadow-56, please update your clients.",
                "Quasar-Meadow-56",
            ),
            (
                "email_forward_hard",
                "-----Original Message-----\nFrom: IT Helpdesk\nSubject: Your temporary access\n\nUsername: jsmith\nTemp: Welcome2Acme!\nYou will be asked to change it.",
                "Welcome2Acme!",
            ),
            ("discord_paste", f"yo here's the api key for the bot dont leak it lol {k}", k),
            ("irc_log_hard", "<nick_> /msg NickServ IDENTIFY bluemoon88\n<nick_> oops wrong window", "bluemoon88"),
            (
                "support_ticket",
                "Ticket #48213: Customer says they cannot log in with password 'Gardenia*Stone7' after the reset email.",
                "Gardenia*Stone7",
            ),
            (
                "whatsapp_style_hard",
                "[27/11/26, 09:14] Mum: the netflix one is familia2020 now\n[27/11/26, 09:15] Me: ok",
                "familia2020",
            ),
            (
                "pairing_message",
                "pair with me: ssh dev@10.0.4.12, same pw as the lab box (it's Axolotl-Pier-3)",
                "Axolotl-Pier-3",
            ),
        ],
    )


def _ci_logs() -> list[Secret]:
    tok = _s("ci-tok", 40, _B64URL)
    npm = "np" + "m_" + _s("ci-npm", 36)
    return _family(
        "ci_logs",
        [
            (
                "github_actions_echo",
                f"2026-11-27T10:01:12.4471Z ##[group]Run ./deploy.sh\n2026-11-27T10:01:12.4472Z + curl -s -H 'Authorization: Bearer {tok}' https://deploy.acme.io/v1/release",
                tok,
            ),
            (
                "jenkins_set_x",
                "[Pipeline] sh\n+ mvn -s settings.xml deploy -Drepo.password=Oyster-Cabin-14\n[INFO] Scanning for projects...",
                "Oyster-Cabin-14",
            ),
            (
                "gitlab_ci_env_dump",
                f"$ env | sort\nCI_JOB_ID=884213\nNPM_TOKEN={npm}\nPATH=/usr/local/bin:/usr/bin",
                npm,
            ),
            (
                "circleci_step_hard",
                "#!/bin/bash -eo pipefail\nsshpass -p Bonfire44Falls scp dist.tar.gz deploy@10.1.1.9:/srv",
                "Bonfire44Falls",
            ),
            (
                "azure_pipelines_hard",
                "##[debug]Evaluating: variables['sqlAdminPwd']\n##[debug]Result: 'Cobblestone!Lark'",
                "Cobblestone!Lark",
            ),
            ("travis_decrypt", "$ travis encrypt SONAR_TOKEN=" + _hex("ci-sonar", 40) + " --add", _hex("ci-sonar", 40)),
            (
                "docker_build_log",
                '#7 [4/6] RUN echo "//npm.acme.io/:_password=UGVyc2ltbW9uLUNyb3ctOQ==" >> .npmrc\n#7 DONE 0.3s',
                "UGVyc2ltbW9uLUNyb3ctOQ==",
            ),
        ],
    )


def _notebooks() -> list[Secret]:
    oai = "sk-" + _s("nb-openai", 48)
    kaggle = _hex("nb-kaggle", 32)
    return _family(
        "notebooks",
        [
            ("cell_os_environ", f'In [3]: import os\n   ...: os.environ["OPENAI_API_KEY"] = "{oai}"', oai),
            (
                "kaggle_json",
                f'!mkdir -p ~/.kaggle && echo \'{{"username":"anaklein","key":"{kaggle}"}}\' > ~/.kaggle/kaggle.json',
                kaggle,
            ),
            (
                "snowflake_connect",
                "con = snowflake.connector.connect(\n    user='ANALYST',\n    password='Heather#Comet#21',\n    account='xy12345.eu-central-1')",
                "Heather#Comet#21",
            ),
            (
                "ipynb_json_source",
                '{"cell_type": "code", "source": ["db = pymssql.connect(\\"sql01\\", \\"sa\\", \\"Tapioca-Moose-9\\", \\"dw\\")"]}',
                "Tapioca-Moose-9",
            ),
            (
                "colab_output_hard",
                "Out[7]: {'host': 'es.acme.io', 'http_auth': ('elastic', 'Rhubarb-Quasar-0')}",
                "Rhubarb-Quasar-0",
            ),
            ("magic_env", "%env PINECONE_KEY=" + _uuid("nb-pinecone"), _uuid("nb-pinecone")),
        ],
    )


def _sql() -> list[Secret]:
    return _family(
        "sql",
        [
            (
                "create_user",
                "CREATE USER 'reporter'@'%' IDENTIFIED BY 'Marigold-Tide-57';\nGRANT SELECT ON shop.* TO 'reporter'@'%';",
                "Marigold-Tide-57",
            ),
            ("alter_role", "ALTER ROLE app_rw WITH LOGIN PASSWORD 'Sorrel+Beacon+2';", "Sorrel+Beacon+2"),
            (
                "insert_api_key",
                f"INSERT INTO integrations (name, api_key) VALUES ('geocoder', '{_s('sql-key', 32)}');",
                _s("sql-key", 32),
            ),
            (
                "update_plaintext_hard",
                "UPDATE users SET password = 'letmein2026' WHERE email = 'qa@acme.io';",
                "letmein2026",
            ),
            (
                "mssql_login",
                "CREATE LOGIN etl WITH PASSWORD = N'Aurora^Badger^6', CHECK_POLICY = OFF;",
                "Aurora^Badger^6",
            ),
            (
                "select_output_hard",
                "mysql> SELECT k, v FROM settings WHERE k LIKE 'smtp%';\n+-----------+-------------------+\n| smtp_user | mailer            |\n| smtp_pass | Periwinkle_Sage_3 |\n+-----------+-------------------+",
                "Periwinkle_Sage_3",
            ),
            (
                "dblink",
                "SELECT * FROM dblink('host=10.0.0.9 user=sync password=Pumice-Swan-81 dbname=legacy', 'select id from t') AS t(id int);",
                "Pumice-Swan-81",
            ),
        ],
    )


def _http_dumps() -> list[Secret]:
    tok = _s("http-tok", 48, _B64URL)
    key = _hex("http-key", 40)
    csrf_sess = _s("http-sess", 48, _B64URL)
    return _family(
        "http_dumps",
        [
            (
                "form_login_post",
                "POST /login HTTP/1.1\nHost: intranet.acme.io\nContent-Type: application/x-www-form-urlencoded\n\nusername=jdoe&password=Mulberry%2BCrane%2B4&remember=1",
                "Mulberry%2BCrane%2B4",
            ),
            (
                "json_login_body",
                'POST /api/auth HTTP/1.1\nContent-Type: application/json\n\n{"email":"ana@acme.io","password":"Saltwater.Tulip.8"}',
                "Saltwater.Tulip.8",
            ),
            (
                "oauth_token_response",
                f'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{{"access_token":"{tok}","token_type":"Bearer","expires_in":3599}}',
                tok,
            ),
            ("har_entry", f'{{"name": "X-Shopify-Access-Token", "value": "{key}"}}', key),
            (
                "client_credentials_body",
                "grant_type=client_credentials&client_id=etl-worker&client_secret=" + _s("http-cs", 32),
                _s("http-cs", 32),
            ),
            (
                "proxy_authorization",
                "Proxy-Authorization: Basic " + base64.b64encode(b"proxyuser:Charcoal-Marten-19").decode(),
                base64.b64encode(b"proxyuser:Charcoal-Marten-19").decode(),
            ),
            (
                "curl_verbose_cookie",
                f"< HTTP/2 200\n< set-cookie: __Host-session={csrf_sess}; Path=/; Secure; HttpOnly\n< content-type: text/html",
                csrf_sess,
            ),
            (
                "ws_query_hard",
                f"wss://stream.acme.io/socket?vsn=2.0.0&t={_s('http-ws', 36, _B64URL)}",
                _s("http-ws", 36, _B64URL),
            ),
        ],
    )


def _no_keyword() -> list[Secret]:
    gh40 = _hex("nk-gh40", 40)
    b64cred = base64.b64encode(b"admin:Thistle-Rook-47").decode()
    c_key = ", ".join(f"0x{b:02x}" for b in _DRAW.raw("nk-c-key", 16))
    comment_tok = _s("nk-comment", 28)
    return _family(
        "no_keyword",
        [
            ("python_tuple_hard", 'SMTP = ("smtp.acme.io", 587, "mailer", "Clover-Hatch-36")', "Clover-Hatch-36"),
            (
                "positional_login_hard",
                'ftp = FTP("files.acme.io")\nftp.login("svc-import", "Bluejay&Canyon8")',
                "Bluejay&Canyon8",
            ),
            (
                "requests_auth_tuple_hard",
                'r = requests.get(url, auth=("api", "Velour-Puffin-12"), timeout=10)',
                "Velour-Puffin-12",
            ),
            (
                "jdbc_positional_hard",
                'Connection c = DriverManager.getConnection(url, "sa", "Iron#Meadow#5");',
                "Iron#Meadow#5",
            ),
            (
                "csharp_credential_hard",
                'var cred = new NetworkCredential("backup", "Lantern_Moss_29", "ACME");',
                "Lantern_Moss_29",
            ),
            (
                "unlabelled_triple_hard",
                "intranet.acme.io\njdoe\nPebble&Quiver19\n(the usual VPN first)",
                "Pebble&Quiver19",
            ),
            ("arrow_pair_hard", "ana@acme.io → Snowdrop.Velvet.60", "Snowdrop.Velvet.60"),
            ("colon_pair_file_hard", "$ cat users.txt\nana:Snap-Dragon-Kettle\nbo:Ripple-Gorse-31", "Ripple-Gorse-31"),
            ("short_json_keys_hard", '{"u": "kiosk", "p": "Magnolia-Drift-9", "h": "10.0.5.4"}', "Magnolia-Drift-9"),
            ("base64_pair_hard", f"echo {b64cred} | base64 -d   # what the old script sends", b64cred),
            ("c_byte_array_hard", f"static const uint8_t k[16] = {{{c_key}}};", c_key),
            ("code_comment_hard", f"client = Api(host)  # temp until vault works: {comment_tok}", comment_tok),
            (
                "old_github_token_userinfo_hard",
                f"git clone https://{gh40}:x-oauth-basic@github.com/acme/infra.git",
                gh40,
            ),
        ],
    )


def _shell_prompts() -> list[Secret]:
    return _family(
        "shell_prompts",
        [
            ("chpasswd_hard", "echo 'deploy:Cactus-Wren-61' | sudo chpasswd", "Cactus-Wren-61"),
            (
                "passwd_pipe_hard",
                "printf 'Timber-Wolf-88\\nTimber-Wolf-88\\n' | passwd --stdin builder",
                "Timber-Wolf-88",
            ),
            (
                "expect_send_hard",
                'spawn ssh admin@10.0.0.2\nexpect "assword:"\nsend "Muskrat.Pylon.2\\r"\ninteract',
                "Muskrat.Pylon.2",
            ),
            ("kinit_echo_hard", "echo 'Pyrite-Lark-5' | kinit svc-etl@ACME.IO", "Pyrite-Lark-5"),
            ("net_user_add_hard", "net user backup Kitefish9! /add /expires:never", "Kitefish9!"),
            (
                "net_use_hard",
                "net use Z: \\\\nas\\media Sable-Crescent-90 /user:NAS\\bk /persistent:yes",
                "Sable-Crescent-90",
            ),
            ("vncpasswd_hard", "vncpasswd -f <<< 'vnc2026x' > ~/.vnc/passwd", "vnc2026x"),
            ("ssh_keygen_N_hard", "ssh-keygen -t ed25519 -N 'Hazel-Comet-3' -f ~/.ssh/deploy_ed25519", "Hazel-Comet-3"),
            ("unzip_P_hard", "unzip -P tulip2019 payroll-2026-10.zip", "tulip2019"),
            ("sevenzip_p_hard", "7z x backup-2026-11.7z -pSilverfish77 -o/restore", "Silverfish77"),
            (
                "ipmitool_hard",
                "ipmitool -I lanplus -H 10.0.9.5 -U ADMIN -P Lynx-Forge-20 chassis status",
                "Lynx-Forge-20",
            ),
            (
                "mount_cifs",
                "sudo mount -t cifs //nas/share /mnt/share -o username=bk,password=Willow.Fjord.4,vers=3.0",
                "Willow.Fjord.4",
            ),
        ],
    )


def _network_gear() -> list[Secret]:
    return _family(
        "network_gear",
        [
            ("cisco_enable_secret_hard", "hostname core-sw1\nenable secret 0 Basilisk#41\n!", "Basilisk#41"),
            ("cisco_username_hard", "username netadmin privilege 15 password 0 Gryphon-Vale-8", "Gryphon-Vale-8"),
            ("snmp_community_hard", "snmpwalk -v2c -c Nocturne77 10.0.0.1 1.3.6.1.2.1.1", "Nocturne77"),
            (
                "snmpv3_auth",
                "snmpget -v3 -l authPriv -u monitor -a SHA -A Auth-Ruby-Tern-3 -x AES -X Priv-Jade-Owl-4 10.0.0.1 sysName.0",
                "Auth-Ruby-Tern-3",
            ),
            (
                "rtsp_camera_hard",
                "ffmpeg -rtsp_transport tcp -i rtsp://admin:cam48Yard@192.168.1.64:554/Streaming/Channels/101 -t 10 out.mp4",
                "cam48Yard",
            ),
            ("wifi_qr_string_hard", "WIFI:S:AcmeLab;T:WPA;P:Fennel&Oak-27;;", "Fennel&Oak-27"),
            (
                "radius_client",
                "client office-ap {\n    ipaddr = 10.0.20.0/24\n    secret = Heliotrope99\n}",
                "Heliotrope99",
            ),
            (
                "mikrotik_hard",
                '/interface wireless security-profiles set [ find default=yes ] wpa2-pre-shared-key="harbor lights at dusk"',
                "harbor lights at dusk",
            ),
            (
                "unifi_ssh_hard",
                "UniFi device SSH: ubnt@10.0.0.30 with Kestrel-Ledger-72 (set in Settings > System > Advanced)",
                "Kestrel-Ledger-72",
            ),
        ],
    )


def _common_passwords() -> list[Secret]:
    return _family(
        "common_passwords",
        [
            (
                "seasonal_hard",
                "set the new hire's temp login to Autumn2026! — they'll be prompted to change it",
                "Autumn2026!",
            ),
            ("keyboard_walk_hard", "root / qwerty123 on the kali vm, it's throwaway anyway", "qwerty123"),
            ("leet_hard", "the shared mailbox still uses P@ssw0rd1 lol", "P@ssw0rd1"),
            ("name_year_hard", "Jenkins: user buildmaster, pw Charlie1987", "Charlie1987"),
            ("word_only_hard", "login for the lobby tablet is kiosk / butterfly", "butterfly"),
            ("phrase_hard", "unlock phrase → purple monkey dishwasher", "purple monkey dishwasher"),
            ("digits_only_hard", "the synology admin password is 19840612", "19840612"),
        ],
    )


BLIND8_SECRETS: list[Secret] = [
    *_aws(),
    *_gcp(),
    *_azure(),
    *_vcs(),
    *_ai(),
    *_payments(),
    *_chat_platforms(),
    *_email_sms(),
    *_devtools(),
    *_hosting(),
    *_observability(),
    *_productivity(),
    *_db_urls(),
    *_cli_flags(),
    *_prose_en(),
    *_prose_intl(),
    *_pins(),
    *_private_keys(),
    *_cookies(),
    *_auth_headers(),
    *_app_secrets(),
    *_recovery(),
    *_crypto_keys(),
    *_diffs(),
    *_urls(),
    *_errors(),
    *_split(),
    *_tables(),
    *_containers(),
    *_iac(),
    *_ide_configs(),
    *_mobile(),
    *_game_servers(),
    *_iot(),
    *_pw_managers(),
    *_chat(),
    *_ci_logs(),
    *_notebooks(),
    *_sql(),
    *_http_dumps(),
    *_no_keyword(),
    *_shell_prompts(),
    *_network_gear(),
    *_common_passwords(),
]


_HANDWRITTEN_ORDINARY: list[str] = [
    # Docs and prose that talk about secrets without holding one.
    "Never commit your .env file; add it to .gitignore and keep a .env.example with empty values.",
    "The password must be at least 12 characters and contain a digit and a symbol.",
    "Rotate the API key every 90 days; the old key keeps working for 24 hours after rotation.",
    "If you forgot your password, click 'Forgot password?' on the sign-in page and check your inbox.",
    "Tokens are short-lived: an access token expires after one hour, a refresh token after 30 days.",
    "Store secrets in the vault, not in the repository. Ask #platform for access to the kv/ mount.",
    "Das Passwort muss mindestens zwölf Zeichen lang sein.",
    "Le mot de passe est envoyé par courriel séparé; ne le notez pas ici.",
    "La contraseña se cambia desde el panel de usuario, en la pestaña Seguridad.",
    "パスワードは管理者に問い合わせてください。",
    "The secret sauce of this cache is that keys are hashed before they hit the ring.",
    "Primary key: (tenant_id, order_id). Foreign key: customer_id references customers(id).",
    "Press the Windows key + R, then type services.msc and hit Enter.",
    "Public key authentication is enabled; password authentication is disabled in sshd_config.",
    "We switched from session cookies to bearer tokens for the mobile API in v3.",
    "Use `gh auth login` and follow the browser flow; the CLI stores the token in your keychain.",
    "The tokenizer splits 'unbelievable' into three tokens: un, believ, able.",
    "In the key signature of D major there are two sharps, F# and C#.",
    "The key takeaway: measure before you optimise.",
    "OTP codes are six digits and valid for 30 seconds.",
    "Your verification code has expired. Request a new one.",
    "Reset links are single-use and expire after 15 minutes.",
    "secrets.yaml is encrypted with sops; decrypt it with `sops -d` using your own age identity.",
    "hint: the credential helper 'osxkeychain' is configured globally",
    "This endpoint requires the `repo` scope; a token without it gets 404, not 403.",
    # Code that reads a secret without containing it.
    'api_key = os.environ["STRIPE_API_KEY"]',
    "password = getpass.getpass('DB password: ')",
    "const token = process.env.GITHUB_TOKEN ?? '';",
    'token := os.Getenv("SLACK_BOT_TOKEN")\nif token == "" {\n\tlog.Fatal("SLACK_BOT_TOKEN is not set")\n}',
    'let key = std::env::var("OPENAI_API_KEY").expect("set OPENAI_API_KEY");',
    'DATABASE_URL = os.getenv("DATABASE_URL", "sqlite:///dev.db")',
    "spring.datasource.password=${DB_PASSWORD}",
    "password: ${{ secrets.DEPLOY_PASSWORD }}",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
    'aws_secret_access_key = var.aws_secret_access_key\nvariable "aws_secret_access_key" { sensitive = true }',
    "export OPENAI_API_KEY=<your-openai-key>",
    "Authorization: Bearer <token>",
    "API_KEY=your_api_key_here",
    "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
    "DB_PASSWORD=changeme  # placeholder, set the real one in the vault",
    'curl -H "Authorization: token $GITHUB_TOKEN" https://api.github.com/user',
    "mysql -u root -p   # prompts for the password",
    "docker login registry.acme.io --username ci --password-stdin < /run/secrets/registry",
    "psql \"$DATABASE_URL\" -c 'select 1'",
    "if not hmac.compare_digest(expected, received):\n    raise PermissionError('bad signature')",
    "def check_password(plain: str, hashed: bytes) -> bool:\n    return bcrypt.checkpw(plain.encode(), hashed)",
    "PASSWORD_RE = re.compile(r'^(?=.*\\d)(?=.*[A-Z]).{12,}$')",
    "token_pattern = r'gh[pousr]_[A-Za-z0-9]{36}'",
    '<input type="password" name="password" autocomplete="current-password" required>',
    "sshd_config: PasswordAuthentication no\nPubkeyAuthentication yes",
    "# ~/.aws/config\n[profile staging]\nregion = eu-west-1\nsso_start_url = https://acme.awsapps.com/start\nsso_role_name = ReadOnly",
    "git config --global credential.helper manager",
    "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "vault kv get -field=password secret/db/prod",
    "op run --env-file=.env.tpl -- npm start",
    "REDIS_URL=redis://localhost:6379/0",
    "postgres://localhost:5432/app_test",
    "mongodb://mongo:27017/orders",
    "amqp://guest@rabbitmq:5672/",
    "https://user@example.com/path (no password in this URL)",
    # Ids, versions, paths, logs.
    "Order #100482 shipped via DHL, tracking JD014600006201834570.",
    "Build 2026.11.27.3 finished in 14m 02s (cache hit rate 91%).",
    "Python 3.12.7 (main, Oct  1 2026, 08:12:31) [GCC 12.2.0] on linux",
    "node v22.11.0, npm 10.9.0, pnpm 9.14.2",
    "pip install 'fastapi==0.115.5' 'uvicorn[standard]==0.32.1'",
    "/home/ana/projects/billing/src/billing/api/routes/invoices.py",
    "C:\\Users\\ana\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe",
    "Pod billing-api-7d9f8c6b5-x2kqp is Running on node ip-10-0-3-17.eu-west-1.compute.internal",
    "deployment.apps/payments-worker scaled to 3 replicas",
    "arn:aws:iam::111122223333:role/github-actions-deploy",
    "projects/acme-billing-prod/locations/europe-west1/services/api",
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-prod/providers/Microsoft.Web/sites/acme-api",
    "ERROR 1045 (28000): Access denied for user 'app'@'10.0.0.4' (using password: YES)",
    'FATAL:  password authentication failed for user "postgres"',
    "401 Unauthorized: invalid or expired token",
    "403 Forbidden: the API key does not have permission for this resource",
    'Error: secret "db-credentials" not found in namespace "billing"',
    "WARN  [auth] login failed for user=jdoe reason=bad_password attempts=3",
    "INFO  request_id=req_4fK2 path=/v1/orders status=200 duration_ms=38",
    "GET /static/js/main.4f3a2b1c.chunk.js 200 12.3kB",
    "Listening on http://127.0.0.1:8000 (Press CTRL+C to quit)",
    "Traceback (most recent call last):\n  File \"main.py\", line 3, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'",
    'java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null',
    "panic: runtime error: index out of range [5] with length 5",
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "E0502: cannot borrow `v` as mutable because it is also borrowed as immutable",
    "warning: unused variable: `token` (src/client.rs:42:9)",
    "Segmentation fault (core dumped)",
    "SSL: CERTIFICATE_VERIFY_FAILED certificate verify failed: unable to get local issuer certificate",
    "ssh: connect to host 10.0.0.21 port 22: Connection refused",
    "Permission denied (publickey).",
    "remote: Support for password authentication was removed on August 13, 2021.",
    "The authenticity of host 'github.com (140.82.121.4)' can't be established.",
    "ED25519 key fingerprint is SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU.",
    "Your identification has been saved in /home/ana/.ssh/id_ed25519\nYour public key has been saved in /home/ana/.ssh/id_ed25519.pub",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ana@laptop",
    'gpg: key 4AEE18F83AFDEB23: public key "GitHub (web-flow commit signing)" imported',
    "Certificate fingerprint (SHA-256): 3A:1F:5C:9B:22:E0:7D:41:88:0A:6E:C4:B1:93:2F:7C:55:DE:10:A8:6B:39:F2:04:CC:8E:71:D5:20:B7:46:9A",
    "Regex for UUIDs: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    '!function(e,t){"object"==typeof exports?module.exports=t():e.lib=t()}(this,function(){return{a:1}});',
    "font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, sans-serif;",
    "color: #3a7bd5; background: linear-gradient(90deg, #3a7bd5 0%, #00d2ff 100%);",
    "Meeting moved to Thursday 14:00 CET, room Oak-3. Agenda: Q4 roadmap, on-call rota.",
    "Can you review PR #4821 when you have a minute? It only touches the CSV exporter.",
    "Lunch order: 2x pad thai, 1x green curry, 3x spring rolls.",
    "The wifi in the office is slow today, IT is looking into it.",
    "I changed my password yesterday and now Outlook keeps asking for it again.",
    "Remember to lock your screen (Win+L) when you leave your desk.",
    "Our SOC 2 audit requires MFA on every admin account.",
    "WPA3 is supported on the new access points; WPA2 stays enabled for old devices.",
    "The door code changes every quarter; reception will tell you the new one.",
    "Ask Maria for the Jenkins credentials, I don't have them.",
    "PIN entry is locked after three wrong attempts.",
    "SELECT id, email, created_at FROM users WHERE last_login < now() - interval '90 days';",
    "CREATE INDEX CONCURRENTLY idx_orders_customer ON orders (customer_id);",
    "ALTER TABLE users ADD COLUMN password_changed_at timestamptz;",
    "GRANT SELECT ON ALL TABLES IN SCHEMA public TO readonly;",
    "mysql> SHOW GRANTS FOR 'reporter'@'%';",
    "HTTP/1.1 204 No Content\nX-Request-Id: 7b1e2c9a\nCache-Control: no-store",
    "Content-Security-Policy: default-src 'self'; img-src 'self' data: https://cdn.acme.io",
    "Strict-Transport-Security: max-age=63072000; includeSubDomains; preload",
    "Set-Cookie: theme=dark; Path=/; Max-Age=31536000",
    "Cookie: django_language=fr; theme=dark",
    "Accept-Language: de-DE,de;q=0.9,en;q=0.8",
    "[Interface]\nAddress = 10.8.0.2/24\nListenPort = 51820\nDNS = 10.8.0.1",
    'network={\n    ssid="Library-Public"\n    key_mgmt=NONE\n}',
    "mqtt:\n  broker: 192.168.1.5\n  port: 1883\n  discovery: true",
    "server.properties: max-players=20\ndifficulty=normal\nonline-mode=true",
    "Minecraft 1.21.3 server started in 4.2s; 0 players online",
    "| name | role | team |\n|---|---|---|\n| Ana | admin | platform |\n| Bo | viewer | data |",
    "id,sku,qty,price\n1,TSHIRT-M-BLK,3,19.90\n2,MUG-WHT,1,8.50",
    'FROM node:22-alpine\nWORKDIR /app\nCOPY package*.json ./\nRUN npm ci --omit=dev\nCMD ["node", "server.js"]',
    'resource "aws_s3_bucket" "logs" {\n  bucket = "acme-logs-prod"\n  tags   = { team = "platform" }\n}',
    "image: ghcr.io/acme/billing-api:2.14.0",
    "helm upgrade --install billing ./chart -f values-prod.yaml -n billing",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: checkout-v2,dark-mode",
    "<key>CFBundleShortVersionString</key>\n<string>4.2.1</string>",
    'android:versionCode="4021" android:versionName="4.2.1"',
    "In [5]: df.describe()\nOut[5]:\n           price        qty\ncount  1200.0000  1200.0000",
    "%pip install pandas==2.2.3 scikit-learn==1.5.2",
    "Recovery mode: hold Cmd+R while the Mac restarts.",
    "Two-factor authentication is now enabled for your account.",
    "Scan this QR code with your authenticator app, then enter the 6-digit code it shows.",
    "The private key never leaves the HSM; signing happens inside it.",
    "We publish our PGP public key at https://acme.io/.well-known/security.txt",
]


def _generated_ordinary() -> list[str]:
    """Random-looking public values in the contexts they appear in: commit hashes, digests, ids."""
    d = SeededDraw("blind8-ordinary")
    out: list[str] = []
    for i in range(6):
        out.append(f"{d.chars(f'sha-{i}', 7, _HEX)} Merge pull request #{3100 + i * 7} from acme/feature-{i}")
    for i in range(8):
        out.append(
            f"commit {d.chars(f'commit-{i}', 40, _HEX)}\nAuthor: Dev {i} <dev{i}@acme.io>\nDate:   Thu Nov 26 1{i}:02:11 2026 +0100"
        )
    for i in range(8):
        out.append(f"{d.chars(f'sha256-{i}', 64, _HEX)}  dist/acme_core-3.{i}.0-py3-none-any.whl")
    for i in range(2):
        out.append(f"MD5 ({'release' if i % 2 else 'notes'}-{i}.tar.gz) = {d.chars(f'md5-{i}', 32, _HEX)}")
    for i in range(6):
        h = d.chars(f"uuid-{i}", 32, _HEX)
        out.append(f"trace_id={h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]} span=handle_request ok")
    for i in range(5):
        out.append(f"image: ghcr.io/acme/worker@sha256:{d.chars(f'digest-{i}', 64, _HEX)}")
    for i in range(5):
        integrity = base64.b64encode(d.raw(f"integrity-{i}", 64)).decode()
        out.append(f'"node_modules/lib-{i}": {{"version": "1.{i}.3", "integrity": "sha512-{integrity}"}}')
    for i in range(4):
        out.append(f"CONTAINER ID   IMAGE\n{d.chars(f'container-{i}', 12, _HEX)}   postgres:16   Up {i + 2} hours")
    for i in range(4):
        png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + d.raw(f"png-{i}", 45)).decode()
        out.append(f'<img alt="icon {i}" src="data:image/png;base64,{png}">')
    for i in range(3):
        fixture = base64.b64encode(json.dumps({"id": i, "name": f"fixture-{i}", "tags": ["a", "b"]}).encode()).decode()
        out.append(f"fixture_b64 = '{fixture}'  # base64 of a JSON test fixture")
    for i in range(4):
        out.append(f"Request ID: {d.chars(f'reqid-{i}', 26, _UPPER)} - please quote it when contacting support")
    return out


BLIND8_ORDINARY: list[str] = [*_HANDWRITTEN_ORDINARY, *_generated_ordinary()]
