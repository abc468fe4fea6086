"""Fourth secrets corpus for issue 36, written blind; now a tuning set.

Its author read none of the redaction rules, none of the earlier corpora and none of their tests;
only the ``Secret`` structure and the docstring of ``kernel.privacy.redact``.  It measured the rules
once (142 of 173 found, 12 of 200 ordinary texts changed, 2026-11-27); the rules were then tuned on
the classes of what it caught out, so it now guards against regressions like the heldout, fresh and
final corpora, and no longer measures how the rules generalise.

Every value is made up (a deterministic stream from hashlib), with the prefixes, lengths and
character sets of the real formats; none is a live credential.
"""

from __future__ import annotations

import base64
import hashlib

from tests.support.secrets_corpus import Secret

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_LOWER_NUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_HEX = "0123456789abcdef"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B64URL = _ALNUM + "-_"
_B64 = _ALNUM + "+/"
_UPPER_NUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _r(seed: str, n: int, alphabet: str = _ALNUM) -> str:
    """``n`` characters of ``alphabet`` drawn deterministically from ``seed``."""
    out: list[str] = []
    counter = 0
    limit = 256 - 256 % len(alphabet)
    while len(out) < n:
        for byte in hashlib.sha256(f"blind4:{seed}:{counter}".encode()).digest():
            if byte < limit:
                out.append(alphabet[byte % len(alphabet)])
        counter += 1
    return "".join(out[:n])


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _jwt(seed: str, payload: str) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return f"{head}.{body}.{_r(seed, 43, _B64URL)}"


def _rs_jwt(seed: str, payload: str) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"RS256","kid":"' + _r(seed + "k", 20).encode() + b'"}')
    body = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return f"{head.decode().rstrip('=')}.{body}.{_r(seed, 342, _B64URL)}"


def _cloud() -> list[Secret]:
    akid = "AKIA" + _r("aws1", 16, _UPPER_NUM)
    sak = _r("aws1s", 40, _B64)
    asia = "ASIA" + _r("aws2", 16, _UPPER_NUM)
    sess_sak = _r("aws2s", 40, _B64)
    sess_tok = "IQoJb3JpZ2luX2VjE" + _r("aws2t", 300, _B64)
    ya29 = "ya29.a0" + _r("gcp1", 150, _B64URL)
    ya29b = "ya29.c." + _r("gcp2", 120, _B64URL)
    sas = _r("az1", 43, _B64) + "%3D"
    sas2 = _r("az2", 43, _B64) + "%3D"
    amz_sig = _r("s3sig", 64, _HEX)
    amz_sig2 = _r("s3sig2", 64, _HEX)
    gcs_sig = _r("gcs", 512, _HEX)
    az_conn = _r("az3", 86, _B64) + "=="
    gsa_key = _r("gsa", 1200, _B64)
    do_tok = "dop_v1_" + _r("do1", 64, _HEX)
    return [
        Secret(
            "cloud/aws-printenv-dump",
            "here's my env, something is off with the region:\n"
            "USER=dev\nAWS_REGION=eu-west-1\n"
            f"AWS_ACCESS_KEY_ID={akid}\nAWS_SECRET_ACCESS_KEY={sak}\nSHELL=/bin/zsh",
            sak,
        ),
        Secret(
            "cloud/aws-session-export",
            "I ran `aws sts assume-role` and exported these, still AccessDenied:\n"
            f"export AWS_ACCESS_KEY_ID={asia}\nexport AWS_SECRET_ACCESS_KEY={sess_sak}\n"
            f"export AWS_SESSION_TOKEN={sess_tok}",
            sess_tok[:60],
        ),
        Secret(
            "cloud/aws-credentials-ini-diff",
            "diff --git a/deploy/credentials b/deploy/credentials\n@@ -1,3 +1,3 @@\n [default]\n"
            f"-aws_access_key_id = AKIAOLDOLDOLDOLDOLD1\n+aws_access_key_id = {akid}\n"
            f"+aws_secret_access_key = {_r('aws3', 40, _B64)}",
            _r("aws3", 40, _B64),
        ),
        Secret(
            "cloud/gcloud-print-access-token",
            f"$ gcloud auth print-access-token\n{ya29}\n$ curl -H 'Authorization: Bearer ...' fails with 403",
            ya29[:50],
        ),
        Secret(
            "cloud/gcp-bearer-curl",
            f'curl -s -H "Authorization: Bearer {ya29b}" https://storage.googleapis.com/storage/v1/b/my-bucket/o',
            ya29b[:40],
        ),
        Secret(
            "cloud/azure-sas-url",
            "the upload URL the portal gave me returns 403 AuthorizationFailure: "
            "https://acmeprod.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=co"
            f"&sp=rwdlacupiytfx&se=2026-12-31T23:59:59Z&st=2026-11-01T00:00:00Z&spr=https&sig={sas}",
            sas[:40],
        ),
        Secret(
            "cloud/azure-sas-in-yaml",
            "storage:\n  container_url: "
            "https://stgx.blob.core.windows.net/ingest?sp=racwl&st=2026-11-20T10:00:00Z"
            f"&se=2027-01-20T18:00:00Z&spr=https&sv=2022-11-02&sr=c&sig={sas2}\n",
            sas2[:40],
        ),
        Secret(
            "cloud/azure-storage-connstring",
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=stgacme;"
            f"AccountKey={az_conn};EndpointSuffix=core.windows.net",
            az_conn[:60],
        ),
        Secret(
            "cloud/s3-presigned-url",
            "presigned link expires too early, why? https://my-bucket.s3.eu-west-1.amazonaws.com/"
            "reports/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            f"&X-Amz-Credential={akid}%2F20261127%2Feu-west-1%2Fs3%2Faws4_request"
            "&X-Amz-Date=20261127T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
            f"&X-Amz-Signature={amz_sig}",
            amz_sig,
        ),
        Secret(
            "cloud/s3-presigned-with-session",
            "GET /data.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261127T111111Z"
            f"&X-Amz-Security-Token={sess_tok[:120]}&X-Amz-Signature={amz_sig2} HTTP/1.1",
            amz_sig2,
        ),
        Secret(
            "cloud/gcs-signed-url",
            "https://storage.googleapis.com/acme-exports/dump.tar.gz?X-Goog-Algorithm=GOOG4-RSA-SHA256"
            "&X-Goog-Credential=exporter%40acme.iam.gserviceaccount.com%2F20261127%2Fauto%2Fstorage"
            f"%2Fgoog4_request&X-Goog-Date=20261127T090000Z&X-Goog-Expires=900&X-Goog-Signature={gcs_sig}",
            gcs_sig[:64],
        ),
        Secret(
            "cloud/gcp-service-account-json",
            '{\n  "type": "service_account",\n  "project_id": "acme-prod",\n'
            f'  "private_key_id": "{_r("gsaid", 40, _HEX)}",\n'
            f'  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{gsa_key[:200]}'
            '\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "ci@acme-prod.iam.gserviceaccount.com"\n}',
            gsa_key[:60],
        ),
        Secret(
            "cloud/digitalocean-token",
            f"doctl auth init --access-token {do_tok}",
            do_tok,
        ),
    ]


def _vcs() -> list[Secret]:
    ghp = "ghp_" + _r("gh1", 36)
    gho = "gho_" + _r("gh2", 36)
    pat = "github_pat_" + _r("gh3", 22) + "_" + _r("gh3b", 59)
    glpat = "glpat-" + _r("gl1", 20, _B64URL)
    ghs = "ghs_" + _r("gh4", 36)
    bb = "ATBB" + _r("bb1", 28) + _r("bb1b", 8, _HEX).upper()
    return [
        Secret(
            "vcs/git-diff-env",
            "diff --git a/.env b/.env\nindex 3f2a1b0..9c8d7e6 100644\n--- a/.env\n+++ b/.env\n"
            f"@@ -4,2 +4,3 @@\n LOG_LEVEL=debug\n-GITHUB_TOKEN=\n+GITHUB_TOKEN={ghp}\n+FEATURE_X=1",
            ghp,
        ),
        Secret(
            "vcs/git-remote-url",
            f"git remote -v\norigin\thttps://x-access-token:{ghs}@github.com/acme/api.git (fetch)",
            ghs,
        ),
        Secret(
            "vcs/gh-hosts-yml",
            f"# ~/.config/gh/hosts.yml\ngithub.com:\n    user: dev-acme\n    oauth_token: {gho}\n    git_protocol: ssh",
            gho,
        ),
        Secret(
            "vcs/fine-grained-pat-slack",
            "[10:42] maria: can you try with mine? it has repo read on the monorepo\n"
            f"[10:42] maria: {pat}\n[10:43] you: thx, trying",
            pat,
        ),
        Secret(
            "vcs/gitlab-pat-ci-var",
            f"variables:\n  GL_TOKEN: {glpat}\n  GIT_DEPTH: 10",
            glpat,
        ),
        Secret(
            "vcs/bitbucket-app-password",
            f"git clone https://jdoe:{bb}@bitbucket.org/acme/infra.git",
            bb,
        ),
    ]


def _k8s() -> list[Secret]:
    pw = _r("k8s1", 24)
    api = _r("k8s2", 40)
    sa = _rs_jwt(
        "k8s3",
        '{"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"prod",'
        '"kubernetes.io/serviceaccount/service-account.name":"deployer","sub":'
        '"system:serviceaccount:prod:deployer"}',
    )
    tok = _r("k8s4", 6, _LOWER_NUM) + "." + _r("k8s4b", 16, _LOWER_NUM)
    kc = _r("k8s5", 64, _HEX)
    cert_key = _r("k8s6", 800, _B64)
    return [
        Secret(
            "k8s/get-secret-yaml",
            "$ kubectl get secret db-creds -n prod -o yaml\napiVersion: v1\ndata:\n"
            f"  password: {_b64(pw)}\n  username: {_b64('app')}\nkind: Secret\nmetadata:\n"
            "  name: db-creds\n  namespace: prod\ntype: Opaque",
            _b64(pw),
        ),
        Secret(
            "k8s/stringdata-manifest",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: payments\nstringData:\n"
            f"  STRIPE_API_KEY: sk_live_{api}\n",
            f"sk_live_{api}",
        ),
        Secret(
            "k8s/sa-token-describe",
            "$ kubectl describe secret deployer-token-x7k2p\nName:         deployer-token-x7k2p\n"
            "Type:  kubernetes.io/service-account-token\n\nData\n====\nca.crt:     1099 bytes\n"
            f"namespace:  4 bytes\ntoken:      {sa}",
            sa[-80:],
        ),
        Secret(
            "k8s/kubeadm-join",
            f"kubeadm join 10.0.0.5:6443 --token {tok} \\\n"
            f"    --discovery-token-ca-cert-hash sha256:{_r('k8s4c', 64, _HEX)}",
            tok,
        ),
        Secret(
            "k8s/kubeconfig-token",
            f"users:\n- name: admin@prod\n  user:\n    token: {kc}\n",
            kc,
        ),
        Secret(
            "k8s/kubeconfig-client-key",
            "users:\n- name: kind-kind\n  user:\n    client-certificate-data: LS0tLS1CRUdJTi...\n"
            f"    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo{cert_key}\n",
            cert_key[:80],
        ),
        Secret(
            "k8s/helm-set-flag",
            "helm upgrade --install pg bitnami/postgresql "
            f"--set auth.postgresPassword={pw[:18]}Zq --set primary.persistence.size=20Gi",
            pw[:18] + "Zq",
        ),
    ]


def _containers() -> list[Secret]:
    auth = _b64("deploy-bot:" + _r("dock1", 32))
    dpat = "dckr_pat_" + _r("dock2", 27, _B64URL)
    envpw = _r("dock3", 20)
    ghcr = "ghp_" + _r("dock4", 36)
    return [
        Secret(
            "container/docker-config-json",
            '~/.docker/config.json:\n{\n  "auths": {\n    "registry.acme.io": {\n'
            f'      "auth": "{auth}"\n    }}\n  }},\n  "credsStore": ""\n}}'.replace("}}", "}"),
            auth,
        ),
        Secret(
            "container/docker-hub-pat-login",
            f"echo {dpat} | docker login -u acmebot --password-stdin",
            dpat,
        ),
        Secret(
            "container/docker-inspect-env",
            '$ docker inspect api-1 | jq ".[0].Config.Env"\n[\n  "PATH=/usr/local/sbin:/usr/bin",\n'
            f'  "POSTGRES_PASSWORD={envpw}",\n  "PYTHONUNBUFFERED=1"\n]',
            envpw,
        ),
        Secret(
            "container/compose-environment",
            "services:\n  db:\n    image: mysql:8\n    environment:\n"
            f"      MYSQL_ROOT_PASSWORD: {envpw[:12]}x9\n      MYSQL_DATABASE: shop",
            envpw[:12] + "x9",
        ),
        Secret(
            "container/docker-run-e",
            f"docker run -d -e REDIS_PASSWORD='{_r('dock5', 16)}' -p 6379:6379 redis:7",
            _r("dock5", 16),
        ),
        Secret(
            "container/ghcr-login",
            f"echo {ghcr} | docker login ghcr.io -u octocat --password-stdin",
            ghcr,
        ),
    ]


def _packages() -> list[Secret]:
    npm = "npm_" + _r("npm1", 36)
    npm_legacy = _r("npm2", 8, _HEX) + "-" + _r("npm2b", 4, _HEX) + "-4" + _r("npm2c", 3, _HEX)
    npm_legacy += "-a" + _r("npm2d", 3, _HEX) + "-" + _r("npm2e", 12, _HEX)
    pipw = _r("pip1", 18)
    pypi = "pypi-AgEIcHlwaS5vcmc" + _r("pypi1", 120, _B64URL)
    conda = _r("conda1", 32, _HEX)
    nuget = "oy2" + _r("nuget1", 43, _LOWER_NUM)
    gem = "rubygems_" + _r("gem1", 48, _HEX)
    artif = "AKCp8" + _r("art1", 68)
    cargo = "cio" + _r("cargo1", 32)
    return [
        Secret(
            "pkg/npmrc-authtoken",
            f"# .npmrc\n@acme:registry=https://npm.pkg.github.com\n//registry.npmjs.org/:_authToken={npm}",
            npm,
        ),
        Secret(
            "pkg/npmrc-legacy-uuid",
            f"//registry.npmjs.org/:_authToken={npm_legacy}\nalways-auth=true",
            npm_legacy,
        ),
        Secret(
            "pkg/pip-index-url",
            f"pip install -r requirements.txt --index-url https://ci-reader:{pipw}@pypi.acme.internal/simple/",
            pipw,
        ),
        Secret(
            "pkg/pip-conf",
            f"[global]\nextra-index-url = https://__token__:{pipw[:10]}Q7w@gitlab.acme.io/api/v4/projects/12/packages/pypi/simple",
            pipw[:10] + "Q7w",
        ),
        Secret(
            "pkg/pypirc",
            f"[pypi]\n  username = __token__\n  password = {pypi}",
            pypi[:60],
        ),
        Secret(
            "pkg/condarc-token",
            f"channels:\n  - defaults\n  - https://conda.anaconda.org/t/{conda}/acme-private\nchannel_priority: strict",
            conda,
        ),
        Secret(
            "pkg/nuget-push",
            f"dotnet nuget push bin/Release/Acme.Core.2.1.0.nupkg --api-key {nuget} --source https://api.nuget.org/v3/index.json",
            nuget,
        ),
        Secret(
            "pkg/gem-credentials",
            f"---\n:rubygems_api_key: {gem}\n",
            gem,
        ),
        Secret(
            "pkg/artifactory-api-key",
            f"curl -H 'X-JFrog-Art-Api: {artif}' https://acme.jfrog.io/artifactory/api/repositories",
            artif,
        ),
        Secret(
            "pkg/cargo-credentials",
            f'[registry]\ntoken = "{cargo}"',
            cargo,
        ),
        Secret(
            "pkg/poetry-config",
            f"poetry config http-basic.acme ci-bot {pipw[4:]}Lm",
            pipw[4:] + "Lm",
        ),
    ]


def _saas() -> list[Secret]:
    sg = "SG." + _r("sg1", 22, _B64URL) + "." + _r("sg1b", 43, _B64URL)
    mg = "key-" + _r("mg1", 32, _HEX)
    alg = _r("alg1", 32, _HEX)
    cld = _r("cld1", 27, _B64URL)
    mbx = "sk.eyJ1IjoiYWNtZWRldiIsImEiOiJ" + _r("mbx1", 40) + "." + _r("mbx1b", 22, _B64URL)
    twitch = _r("tw1", 30, _LOWER_NUM)
    spot = _r("sp1", 32, _HEX)
    stripe = "rk_live_" + _r("st1", 99)
    slack = "xoxb-" + _r("sl1", 12, "0123456789") + "-" + _r("sl1b", 13, "0123456789") + "-" + _r("sl1c", 24)
    hook = "https://hooks.slack.com/services/T" + _r("sl2", 8, _UPPER_NUM) + "/B" + _r("sl2b", 10, _UPPER_NUM)
    hook_secret = _r("sl2c", 24)
    twilio = _r("twl1", 32, _HEX)
    dd = _r("dd1", 32, _HEX)
    sentry = _r("sen1", 32, _HEX)
    openai = "sk-proj-" + _r("oa1", 74, _B64URL) + "T3BlbkFJ" + _r("oa1b", 74, _B64URL)
    anth = "sk-ant-api03-" + _r("an1", 93, _B64URL) + "AA"
    hf = "hf_" + _r("hf1", 34)
    shop = "shpat_" + _r("sh1", 32, _HEX)
    disc = _r("dc1", 24) + "." + _r("dc1b", 6, _B64URL) + "." + _r("dc1c", 38, _B64URL)
    tg = _r("tg1", 10, "0123456789") + ":AA" + _r("tg1b", 33, _B64URL)
    linear = "lin_api_" + _r("lin1", 40)
    notion = "secret_" + _r("no1", 43)
    return [
        Secret("saas/sendgrid-env", f"SENDGRID_API_KEY={sg}\nFROM_EMAIL=noreply@acme.io", sg),
        Secret(
            "saas/mailgun-curl",
            f"curl -s --user 'api:{mg}' https://api.mailgun.net/v3/mg.acme.io/messages -F to=a@b.c",
            mg,
        ),
        Secret(
            "saas/algolia-admin",
            "const client = algoliasearch('H7XK2M9QPL', "
            f"'{alg}'); // admin key, search-only one didn't allow saveObjects",
            alg,
        ),
        Secret(
            "saas/cloudinary-url",
            f"CLOUDINARY_URL=cloudinary://{_r('cld2', 15, '0123456789')}:{cld}@acme-media",
            cld,
        ),
        Secret("saas/mapbox-secret", f"MAPBOX_DOWNLOADS_TOKEN={mbx}", mbx[:60]),
        Secret(
            "saas/twitch-client-secret",
            "twitch:\n  client_id: " + _r("tw2", 30, _LOWER_NUM) + f"\n  client_secret: {twitch}",
            twitch,
        ),
        Secret(
            "saas/spotify-client-secret-py",
            "sp = spotipy.Spotify(auth_manager=SpotifyClientCredentials(\n"
            f"    client_id='{_r('sp2', 32, _HEX)}',\n    client_secret='{spot}'))",
            spot,
        ),
        Secret("saas/stripe-restricted", f'stripe.api_key = "{stripe}"', stripe[:50]),
        Secret(
            "saas/slack-bot-token",
            f"app = App(token=\"{slack}\", signing_secret=os.environ['SLACK_SIGNING_SECRET'])",
            slack,
        ),
        Secret(
            "saas/slack-webhook",
            f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy ok\"}}' {hook}/{hook_secret}",
            hook_secret,
        ),
        Secret(
            "saas/twilio-auth-token",
            "client = Client('AC" + _r("twl2", 32, _HEX) + f"', '{twilio}')",
            twilio,
        ),
        Secret("saas/datadog-api-key", f"DD_API_KEY={dd} DD_SITE=datadoghq.eu ddtrace-run python app.py", dd),
        Secret(
            "saas/sentry-dsn-secret",
            f"SENTRY_DSN=https://{sentry}:{_r('sen2', 32, _HEX)}@o123456.ingest.sentry.io/4504",
            _r("sen2", 32, _HEX),
        ),
        Secret("saas/openai-project-key", f'client = OpenAI(api_key="{openai}")', openai[:60]),
        Secret(
            "saas/anthropic-key-ticket",
            "Support ticket #48213\nFrom: dev@acme.io\nSubject: 401 on every call\n\n"
            f"Hi, our key {anth} started returning 401 since this morning. Please help.",
            anth[:60],
        ),
        Secret("saas/huggingface-token", f"huggingface-cli login --token {hf}", hf),
        Secret(
            "saas/shopify-admin",
            f"X-Shopify-Access-Token: {shop}\nContent-Type: application/json",
            shop,
        ),
        Secret("saas/discord-bot", f"client.run('{disc}')", disc),
        Secret(
            "saas/telegram-bot-url",
            f"requests.get('https://api.telegram.org/bot{tg}/getUpdates')",
            tg,
        ),
        Secret("saas/linear-api-key", f'headers = {{"Authorization": "{linear}"}}', linear),
        Secret("saas/notion-integration", f"NOTION_TOKEN={notion}", notion),
    ]


def _infra() -> list[Secret]:
    tfc = _r("tfc1", 14) + ".atlasv1." + _r("tfc1b", 67)
    hvs = "hvs." + _r("vault1", 24)
    hvs_long = "hvs.CAESI" + _r("vault2", 80, _B64URL)
    doppler = "dp.st.prd." + _r("dp1", 43)
    pulumi = "pul-" + _r("pul1", 40, _HEX)
    fly = "FlyV1 fm2_" + _r("fly1", 120, _B64URL)
    supa = _jwt("supa1", '{"iss":"supabase","ref":"xyzcompanyref","role":"service_role","iat":1700000000}')
    fb = "AAAA" + _r("fb1", 7, _B64URL) + ":APA91b" + _r("fb1b", 134, _B64URL)
    netlify = "nfp_" + _r("nf1", 36)
    vercel = _r("vc1", 24)
    heroku = "HRKU-" + _r("hk1", 8, _HEX) + "-" + _r("hk1b", 4, _HEX) + "-" + _r("hk1c", 4, _HEX)
    heroku += "-" + _r("hk1d", 4, _HEX) + "-" + _r("hk1e", 12, _HEX)
    cf = _r("cf1", 40, _B64URL)
    consul = _r("co1", 8, _HEX) + "-" + _r("co1b", 4, _HEX) + "-" + _r("co1c", 4, _HEX) + "-"
    consul += _r("co1d", 4, _HEX) + "-" + _r("co1e", 12, _HEX)
    return [
        Secret(
            "infra/terraformrc",
            f'credentials "app.terraform.io" {{\n  token = "{tfc}"\n}}',
            tfc,
        ),
        Secret("infra/vault-token-login", f"$ export VAULT_TOKEN={hvs}\n$ vault kv get secret/app", hvs),
        Secret(
            "infra/vault-login-output",
            "$ vault login -method=oidc\nKey                  Value\n---                  -----\n"
            f"token                {hvs_long}\ntoken_accessor       {_r('vault3', 24)}\n"
            "token_duration       768h",
            hvs_long[:50],
        ),
        Secret("infra/doppler-service-token", f"doppler run --token {doppler} -- npm start", doppler),
        Secret(
            "infra/pulumi-access-token",
            f"- name: pulumi up\n  env:\n    PULUMI_ACCESS_TOKEN: {pulumi}",
            pulumi,
        ),
        Secret("infra/fly-deploy-token", f'FLY_API_TOKEN="{fly}"', fly[:60]),
        Secret(
            "infra/supabase-service-key",
            f"const supabase = createClient('https://xyzcompanyref.supabase.co', '{supa}')",
            supa[-43:],
        ),
        Secret(
            "infra/firebase-server-key",
            f"curl -X POST -H 'Authorization: key={fb}' https://fcm.googleapis.com/fcm/send",
            fb[:60],
        ),
        Secret("infra/netlify-token", f"netlify deploy --prod --auth {netlify}", netlify),
        Secret("infra/vercel-token", f"vercel --prod --token {vercel} --yes", vercel),
        Secret("infra/heroku-api-key", f"HEROKU_API_KEY={heroku} git push heroku main", heroku),
        Secret(
            "infra/cloudflare-api-token",
            f'curl -H "Authorization: Bearer {cf}" https://api.cloudflare.com/client/v4/user/tokens/verify',
            cf,
        ),
        Secret("infra/consul-http-token", f"CONSUL_HTTP_TOKEN={consul} consul members", consul),
    ]


def _oauth() -> list[Secret]:
    code = "4/0A" + _r("oa1", 70, _B64URL)
    refresh = "1//0" + _r("oa2", 100, _B64URL)
    gh_code = _r("oa3", 20, _HEX)
    cs = "GOCSPX-" + _r("oa4", 28, _B64URL)
    azure_cs = _r("oa5", 3) + "8Q~" + _r("oa5b", 34, _B64URL)
    rt = _r("oa6", 64, _B64URL)
    at = _jwt("oa7", '{"sub":"user_83","scope":"read write","exp":1893456000}')
    return [
        Secret(
            "oauth/callback-code",
            "after consent I land on http://localhost:8080/callback?state=xyz&"
            f"code={code}&scope=email%20openid&authuser=0 and then the exchange fails with invalid_grant",
            code[:50],
        ),
        Secret(
            "oauth/token-response-json",
            '{\n  "access_token": "ya29.a0AfB_byC...",\n  "expires_in": 3599,\n'
            f'  "refresh_token": "{refresh}",\n  "scope": "https://www.googleapis.com/auth/drive",\n'
            '  "token_type": "Bearer"\n}',
            refresh[:50],
        ),
        Secret(
            "oauth/github-code-log",
            f'127.0.0.1 - - [27/Nov/2026:10:01:22] "GET /auth/github/callback?code={gh_code}&state=af31 HTTP/1.1" 302 -',
            gh_code,
        ),
        Secret(
            "oauth/google-client-secret",
            '{"web":{"client_id":"1234567890-abc.apps.googleusercontent.com",'
            f'"client_secret":"{cs}","redirect_uris":["http://localhost"]}}}}'.replace("}}}}", "}}"),
            cs,
        ),
        Secret("oauth/azure-client-secret", f"AZURE_CLIENT_SECRET={azure_cs}", azure_cs),
        Secret(
            "oauth/refresh-curl-form",
            "curl -X POST https://auth.acme.io/oauth/token -d grant_type=refresh_token "
            f"-d refresh_token={rt} -d client_id=cli",
            rt,
        ),
        Secret(
            "oauth/bearer-jwt-header",
            f"GET /api/v2/orders HTTP/1.1\nHost: api.acme.io\nAuthorization: Bearer {at}\nAccept: */*",
            at[-43:],
        ),
    ]


def _passwords_en() -> list[Secret]:
    pws = [_r(f"pwen{i}", 9 + i % 7, _ALNUM + "!#%&*") for i in range(20)]
    texts = [
        "the staging db password is {p}, can you check why migrations time out?",
        "login: admin / {p}",
        "user jdoe pass {p}",
        "I reset it to {p} but the app still says invalid credentials",
        "root pw on the new box: {p}",
        "creds for the test account are qa@acme.io:{p}",
        "Password: {p}\nPlease change on first login.",
        "my sudo password is {p} if you need to run the installer",
        "mysql -u root -p{p} -h 127.0.0.1 shop < dump.sql",
        "sshpass -p '{p}' ssh deploy@10.0.3.7",
        "psql 'postgresql://app:{p}@db.internal:5432/app?sslmode=require'",
        "the wifi/admin panel passphrase is `{p}` btw",
        "DB_PASS={p}",
        "passwd for the jenkins admin got changed to {p} yesterday",
        "> Username: svc_backup\n> Password: {p}\n(from the 1Password share)",
        "connect with redis-cli -a {p} --no-auth-warning",
        "use the shared creds: login `ops`, password `{p}`",
        "the keystore pass is {p} (storePassword in gradle)",
        "htpasswd -b -c /etc/nginx/.htpasswd admin {p}",
        "ok the new pwd works: {p}",
    ]
    return [Secret(f"password_en/{i:02d}", t.format(p=pws[i]), pws[i]) for i, t in enumerate(texts)]


def _passwords_intl() -> list[Secret]:
    pws = [_r(f"pwintl{i}", 10 + i % 5, _ALNUM + "!#%") for i in range(14)]
    texts = [
        "das Passwort für den Testserver ist {p}",
        "Kennwort: {p}",
        "le mot de passe de la base est {p}, merci de ne pas le partager",
        "mdp : {p}",
        "la contraseña del servidor es {p}",
        "contraseña: {p}",
        "a senha do banco é {p}",
        "la password dell'utente admin è {p}",
        "wachtwoord: {p}",
        "hasło do bazy to {p}",
        "пароль от сервера: {p}",
        "パスワードは {p} です",
        "密码是 {p}",
        "비밀번호: {p}",
    ]
    return [Secret(f"password_intl/{i:02d}", t.format(p=pws[i]), pws[i]) for i, t in enumerate(texts)]


def _keys() -> list[Secret]:
    pgp = _r("pgp1", 64 * 12, _B64)
    age = "AGE-SECRET-KEY-1" + _r("age1", 58, _BECH32)
    ssh = _r("ssh1", 70 * 6, _B64)
    ec = _r("ec1", 64 * 3, _B64)
    rsa = _r("rsa1", 64 * 10, _B64)
    wg = _r("wg1", 43, _B64) + "="
    pgp_lines = "\n".join(pgp[i : i + 64] for i in range(0, len(pgp), 64))
    ssh_lines = "\n".join(ssh[i : i + 70] for i in range(0, len(ssh), 70))
    rsa_lines = "\n".join(rsa[i : i + 64] for i in range(0, len(rsa), 64))
    return [
        Secret(
            "keys/pgp-private-block",
            "exported with gpg --export-secret-keys --armor, is this the right format for the CI?\n"
            f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBGVx{pgp_lines}\n=Xk3q\n-----END PGP PRIVATE KEY BLOCK-----",
            pgp[64:128],
        ),
        Secret(
            "keys/age-secret-key",
            "# created: 2026-11-20T10:00:00Z\n# public key: age1" + _r("age2", 58, _BECH32).lower() + f"\n{age}",
            age,
        ),
        Secret(
            "keys/sops-age-env",
            f"export SOPS_AGE_KEY={age[:-8]}{_r('age3', 8, _BECH32)}\nsops -d secrets.enc.yaml",
            age[:-8] + _r("age3", 8, _BECH32),
        ),
        Secret(
            "keys/openssh-private-pasted",
            "ssh keeps asking for a passphrase, here's the key file:\n"
            f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{ssh_lines}\n"
            "-----END OPENSSH PRIVATE KEY-----",
            ssh[70:140],
        ),
        Secret(
            "keys/ec-private-key",
            f"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{ec[:55]}\n{ec[55:119]}\n{ec[119:170]}\n-----END EC PRIVATE KEY-----",
            ec[55:119],
        ),
        Secret(
            "keys/rsa-key-in-json-string",
            f'{{"tls_key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA{rsa[:64]}\\n{rsa[64:128]}\\n'
            '-----END RSA PRIVATE KEY-----"}',
            rsa[64:128],
        ),
        Secret(
            "keys/rsa-key-no-header-lines",
            "the private key (I stripped the BEGIN/END lines for the env var):\n" + rsa_lines[:650],
            rsa[192:256],
        ),
        Secret(
            "keys/wireguard-conf",
            f"[Interface]\nPrivateKey = {wg}\nAddress = 10.8.0.2/24\nDNS = 1.1.1.1\n\n[Peer]\n"
            f"PublicKey = {_r('wg2', 43, _B64)}=\nEndpoint = vpn.acme.io:51820",
            wg,
        ),
        Secret(
            "keys/ethereum-private-key",
            f"PRIVATE_KEY=0x{_r('eth1', 64, _HEX)}\nRPC_URL=https://sepolia.infura.io/v3/",
            _r("eth1", 64, _HEX),
        ),
        Secret(
            "keys/jwt-signing-secret",
            f"JWT_SECRET={_r('jwts', 48, _HEX)}\nJWT_TTL=3600",
            _r("jwts", 48, _HEX),
        ),
        Secret(
            "keys/django-secret-key",
            f"SECRET_KEY = 'django-insecure-{_r('dj1', 50, _LOWER_NUM + '!@#$%^&*(-_=+)')}'",
            _r("dj1", 50, _LOWER_NUM + "!@#$%^&*(-_=+)"),
        ),
        Secret(
            "keys/rails-master-key",
            f"$ cat config/master.key\n{_r('rails1', 32, _HEX)}",
            _r("rails1", 32, _HEX),
        ),
    ]


def _otp() -> list[Secret]:
    seed1 = _r("otp1", 32, _B32)
    seed2 = _r("otp2", 16, _B32)
    codes = [f"{_r(f'rc{i}', 5, _LOWER_NUM)}-{_r(f'rcb{i}', 5, _LOWER_NUM)}" for i in range(8)]
    return [
        Secret(
            "otp/otpauth-uri",
            f"otpauth://totp/ACME:jdoe@acme.io?secret={seed1}&issuer=ACME&algorithm=SHA1&digits=6&period=30",
            seed1,
        ),
        Secret(
            "otp/manual-setup-key",
            f"Can't scan the QR, the setup key it shows is {' '.join(seed2[i : i + 4] for i in range(0, 16, 4))}",
            seed2[:4] + " " + seed2[4:8],
        ),
        Secret(
            "otp/pyotp-seed",
            f"totp = pyotp.TOTP('{seed2}{seed1[:16]}')\nprint(totp.now())",
            seed2 + seed1[:16],
        ),
        Secret(
            "otp/recovery-codes",
            "GitHub recovery codes, saving them here for now:\n" + "\n".join(codes),
            codes[3],
        ),
    ]


def _wifi() -> list[Secret]:
    p1 = _r("wifi1", 16, _ALNUM + "!")
    p2 = _r("wifi2", 12)
    p3 = _r("wifi3", 14)
    return [
        Secret("wifi/qr-string", f"qrencode -o guest.png 'WIFI:T:WPA;S:Acme-Office;P:{p1};;'", p1),
        Secret(
            "wifi/wpa-supplicant",
            f'network={{\n    ssid="lab-5g"\n    psk="{p2}"\n    key_mgmt=WPA-PSK\n}}',
            p2,
        ),
        Secret(
            "wifi/nmcli-connect",
            f"nmcli dev wifi connect 'Acme-Guest' password '{p3}'",
            p3,
        ),
    ]


def _url_creds() -> list[Secret]:
    pws = [_r(f"url{i}", 16 + i) for i in range(8)]
    return [
        Secret("url/mongodb-srv", f"MONGO_URI=mongodb+srv://api:{pws[0]}@cluster0.ab1cd.mongodb.net/prod", pws[0]),
        Secret("url/redis-tls", f"REDIS_URL=rediss://default:{pws[1]}@eu1-redis.upstash.io:6379", pws[1]),
        Secret("url/amqp", f"celery -A app worker -b amqp://worker:{pws[2]}@mq.internal:5672//", pws[2]),
        Secret(
            "url/sqlalchemy-python",
            f'engine = create_engine("mysql+pymysql://shop:{pws[3]}@10.1.2.3/shop?charset=utf8mb4")',
            pws[3],
        ),
        Secret("url/ftp", f"wget ftp://backup:{pws[4]}@files.acme.io/nightly/db.sql.gz", pws[4]),
        Secret("url/smtp", f"EMAIL_URL=smtp+tls://mailer%40acme.io:{pws[5]}@smtp.office365.com:587", pws[5]),
        Secret(
            "url/jdbc-params",
            f"jdbc:sqlserver://db01:1433;databaseName=erp;user=erp_app;password={pws[6]};encrypt=true",
            pws[6],
        ),
        Secret(
            "url/elastic-basic",
            f"curl -u elastic:{pws[7]} https://es.internal:9200/_cluster/health",
            pws[7],
        ),
    ]


def _webserver() -> list[Secret]:
    apr1 = "$apr1$" + _r("ht1", 8, _ALNUM + "./") + "$" + _r("ht1b", 22, _ALNUM + "./")
    bcrypt = "$2y$10$" + _r("ht2", 53, _ALNUM + "./")
    basic = _b64("admin:" + _r("ht3", 14))
    basic2 = _b64("grafana:" + _r("ht4", 16))
    proxy_pw = _r("ht5", 15)
    return [
        Secret(
            "web/htpasswd-apr1",
            f"nginx keeps returning 401, my auth_basic_user_file /etc/nginx/.htpasswd contains:\nadmin:{apr1}",
            apr1,
        ),
        Secret("web/htpasswd-bcrypt", f"$ cat .htpasswd\nops:{bcrypt}", bcrypt),
        Secret(
            "web/nginx-proxy-auth-header",
            "location /api/ {\n    proxy_pass http://backend;\n"
            f'    proxy_set_header Authorization "Basic {basic}";\n}}',
            basic,
        ),
        Secret(
            "web/curl-verbose-basic",
            f"> GET /api/health HTTP/2\n> Host: grafana.acme.io\n> authorization: Basic {basic2}\n> user-agent: curl/8.4.0",
            basic2,
        ),
        Secret(
            "web/apache-proxy-remote",
            f"ProxyRemote * http://squid:{proxy_pw}@proxy.corp:3128",
            proxy_pw,
        ),
    ]


def _ci_logs() -> list[Secret]:
    tok = "glpat-" + _r("ci1", 20, _B64URL)
    npm = "npm_" + _r("ci2", 36)
    pw = _r("ci3", 18)
    sonar = "squ_" + _r("ci4", 40, _HEX)
    codecov = _r("ci5", 8, _HEX) + "-" + _r("ci5b", 4, _HEX) + "-" + _r("ci5c", 4, _HEX) + "-"
    codecov += _r("ci5d", 4, _HEX) + "-" + _r("ci5e", 12, _HEX)
    return [
        Secret(
            "ci/gha-log-set-x",
            "Run ./scripts/release.sh\n+ echo '***' | docker login -u bot --password-stdin\n"
            f"+ curl -H 'PRIVATE-TOKEN: {tok}' https://gitlab.acme.io/api/v4/projects/7/releases\n"
            "Error: Process completed with exit code 22.",
            tok,
        ),
        Secret(
            "ci/jenkins-console",
            "[Pipeline] sh\n+ npm config set //registry.npmjs.org/:_authToken ****\n"
            f"+ npm publish --//registry.npmjs.org/:_authToken={npm}\nnpm ERR! 403 Forbidden",
            npm,
        ),
        Secret(
            "ci/circleci-debug",
            "#!/bin/bash -eo pipefail\nenv | sort\nCI=true\nCIRCLE_BRANCH=main\n"
            f"DATABASE_PASSWORD={pw}\nNODE_ENV=test\nExited with code exit status 1",
            pw,
        ),
        Secret(
            "ci/sonar-scanner-log",
            f"INFO: Scanner configuration file: NONE\nINFO: Load global settings\n"
            f"sonar-scanner -Dsonar.host.url=https://sonar.acme.io -Dsonar.token={sonar} -Dsonar.projectKey=api",
            sonar,
        ),
        Secret(
            "ci/codecov-upload",
            f"bash <(curl -s https://codecov.io/bash) -t {codecov} -f coverage.xml",
            codecov,
        ),
    ]


def _exports() -> list[Secret]:
    key1 = _r("pm1", 40)
    bearer = "eyJhbGciOiJIUzI1NiJ9." + _r("har1", 60, _B64URL) + "." + _r("har1b", 43, _B64URL)
    apikey = "ak_live_" + _r("nb1", 32)
    sess = _r("ck1", 48, _HEX)
    flask = "eyJ1c2VyX2lkIjo0Mn0." + _r("ck2", 6, _B64URL) + "." + _r("ck2b", 27, _B64URL)
    express = "s%3A" + _r("ck3", 32, _B64URL) + "." + _r("ck3b", 43, _B64)
    pw = _r("sql1", 20)
    api_sql = "sk_" + _r("sql2", 40, _HEX)
    cron_pw = _r("cron1", 16)
    sysd = _r("sysd1", 32, _HEX)
    return [
        Secret(
            "export/postman-collection",
            '{"info":{"name":"Acme API"},"auth":{"type":"apikey","apikey":[{"key":"value","value":"'
            f'{key1}","type":"string"}},{{"key":"key","value":"X-API-Key","type":"string"}}]}}}}'.replace(
                "}}]}}}}", "}]}}"
            ).replace("{{", "{"),
            key1,
        ),
        Secret(
            "export/har-request-header",
            '"request": {\n  "method": "POST",\n  "url": "https://api.acme.io/v1/charge",\n'
            '  "headers": [\n    {"name": "authorization", "value": "Bearer '
            f'{bearer}"}},\n    {{"name": "content-type", "value": "application/json"}}\n  ]'.replace(
                "}}", "}"
            ).replace("{{", "{"),
            bearer[-43:],
        ),
        Secret(
            "export/insomnia-env",
            f'{{"_type":"environment","data":{{"base_url":"https://api.acme.io","api_key":"{apikey}"}}}}'.replace(
                "}}}}", "}}"
            ),
            apikey,
        ),
        Secret(
            "export/jupyter-cell",
            '{\n "cell_type": "code",\n "execution_count": 3,\n "source": [\n'
            '  "import openai\\n",\n'
            f'  "openai.api_key = \\"sk-{_r("nb2", 48)}\\"\\n"\n ],\n "outputs": []\n}}'.replace("}}", "}"),
            "sk-" + _r("nb2", 48),
        ),
        Secret(
            "export/cookie-header-session",
            f"Cookie: _ga=GA1.2.1234.5678; sessionid={sess}; csrftoken=abc",
            sess,
        ),
        Secret(
            "export/set-cookie-flask",
            f"Set-Cookie: session={flask}; HttpOnly; Path=/; SameSite=Lax",
            flask,
        ),
        Secret(
            "export/express-signed-cookie",
            f"document.cookie shows connect.sid={express} and the session is lost after redirect",
            express[4:40],
        ),
        Secret(
            "export/sql-dump-insert",
            "-- Dumping data for table `integrations`\nINSERT INTO `integrations` (`id`, `provider`, `api_key`) VALUES\n"
            f"(1, 'stripe', '{api_sql}'),\n(2, 'slack', NULL);",
            api_sql,
        ),
        Secret(
            "export/sql-create-user",
            f"CREATE USER 'report'@'%' IDENTIFIED BY '{pw}';\nGRANT SELECT ON shop.* TO 'report'@'%';",
            pw,
        ),
        Secret(
            "export/crontab-line",
            f"0 3 * * * PGPASSWORD={cron_pw} pg_dump -h db -U backup shop | gzip > /backups/shop.sql.gz",
            cron_pw,
        ),
        Secret(
            "export/systemd-environment",
            f"[Service]\nUser=app\nEnvironment=API_SECRET={sysd}\nEnvironment=PORT=8080\nExecStart=/usr/bin/app",
            sysd,
        ),
    ]


def _evasions() -> list[Secret]:
    ghp = "ghp_" + _r("ev1", 36)
    sk = "sk_live_" + _r("ev2", 24)
    pw = _r("ev3", 14)
    aws = _r("ev4", 40, _B64)
    hvs = "hvs." + _r("ev5", 24)
    xox = "xoxp-" + _r("ev6", 11, "0123456789") + "-" + _r("ev6b", 12, "0123456789") + "-" + _r("ev6c", 32, _HEX)
    return [
        Secret(
            "evasion/split-two-lines",
            f"token part 1: {ghp[:20]}\ntoken part 2: {ghp[20:]}\n(split it so the bot doesn't revoke it)",
            ghp[:20],
        ),
        Secret(
            "evasion/spaces-inserted",
            f"key is {' '.join(sk[i : i + 8] for i in range(0, len(sk), 8))} (remove the spaces)",
            sk[8:16] + " " + sk[16:24],
        ),
        Secret(
            "evasion/python-concat",
            f'API_KEY = "{sk[:14]}" + "{sk[14:]}"',
            sk[14:],
        ),
        Secret(
            "evasion/spelled-password-quoted",
            f'password (without the quotes): "{pw}"',
            pw,
        ),
        Secret(
            "evasion/wrapped-in-markdown-table",
            f"| name | value |\n|---|---|\n| AWS_SECRET_ACCESS_KEY | `{aws}` |\n| REGION | us-east-1 |",
            aws,
        ),
        Secret(
            "evasion/url-encoded",
            f"callback?vault_token={hvs.replace('.', '%2E')}&next=%2F",
            hvs[4:],
        ),
        Secret(
            "evasion/slack-thread",
            "Thread in #backend\nalex  9:14 AM\nwho has the slack user token for the export script?\n"
            f"sam  9:16 AM\n{xox}\nalex  9:16 AM\nthanks! :pray:",
            xox,
        ),
    ]


BLIND4_SECRETS: list[Secret] = [
    *_cloud(),
    *_vcs(),
    *_k8s(),
    *_containers(),
    *_packages(),
    *_saas(),
    *_infra(),
    *_oauth(),
    *_passwords_en(),
    *_passwords_intl(),
    *_keys(),
    *_otp(),
    *_wifi(),
    *_url_creds(),
    *_webserver(),
    *_ci_logs(),
    *_exports(),
    *_evasions(),
]


def family_of(name: str) -> str:
    """The family a form belongs to: the part of its name before the slash."""
    return name.split("/", 1)[0]


def _ordinary() -> list[str]:
    texts: list[str] = [
        # masked and truncated displays
        "OPENAI_API_KEY=sk-...abcd (last four shown in the dashboard)",
        "AWS_SECRET_ACCESS_KEY=****************************************",
        "password: ********",
        "GitHub shows the token as ghp_••••••••••••••••••••••••••••7f3a",
        "DATABASE_URL=postgres://app:***@db.internal:5432/app",
        "Stripe key ending in ...4242 was rolled on Tuesday",
        "token=<redacted> in the request log, as expected",
        "The CI log prints `GITHUB_TOKEN: ***` so masking works",
        "api_key: xxxxxxxxxxxxxxxxxxxxxxxx  # fill in",
        "REDIS_PASSWORD=[hidden]",
        # placeholders
        "export API_KEY=<your-api-key-here>",
        "password: ${DB_PASSWORD}",
        "token: {{ secrets.NPM_TOKEN }}",
        "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com/v1/me",
        "AWS_ACCESS_KEY_ID=YOUR_ACCESS_KEY_ID",
        "SECRET_KEY=changeme",
        "client_secret: REPLACE_ME",
        "postgres://user:password@localhost:5432/dbname is the example in the README",
        "Set `SENTRY_DSN` to the DSN from your project settings.",
        "password = os.environ['DB_PASSWORD']",
        'api_key = os.getenv("OPENAI_API_KEY")',
        "token = settings.GITHUB_TOKEN",
        "const key = process.env.STRIPE_SECRET_KEY;",
        "vault kv get -field=password secret/db",
        "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString",
        # env var names and config with non-secret values
        "PASSWORD_MIN_LENGTH=12",
        "TOKEN_TTL_SECONDS=3600",
        "SESSION_SECRET_ROTATION_DAYS=30",
        "password_reset_timeout: 259200",
        "require_password_change: true",
        "auth:\n  token_expiry: 15m\n  refresh_token_expiry: 720h",
        "secret_file: /run/secrets/db_password",
        "ssl_key_path: /etc/ssl/private/server.key",
        "IdentityFile ~/.ssh/id_ed25519",
        "Host bastion\n  HostName 10.0.0.4\n  User ec2-user\n  IdentityFile ~/.ssh/bastion.pem\n  IdentitiesOnly yes",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-password\n        key: password",
        "volumes:\n  - name: tls\n    secret:\n      secretName: api-tls",
        "imagePullSecrets:\n  - name: regcred",
        "password_hash_algorithm: argon2id",
        "token_type: Bearer",
        "grant_type: client_credentials",
        'auth_basic "Restricted";\nauth_basic_user_file /etc/nginx/.htpasswd;',
        "PasswordAuthentication no\nPubkeyAuthentication yes",
        "secrets:\n  db_password:\n    file: ./secrets/db_password.txt",
        "spring.datasource.password=${SPRING_DATASOURCE_PASSWORD}",
        "max_token_length = 512",
        "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')",
        "The model's context is 200k tokens; we send about 12k per turn.",
        "KEY_ROTATION_ENABLED=false",
        "SECRETS_BACKEND=aws-secrets-manager",
        # error messages
        'psql: error: connection to server at "db" failed: FATAL:  password authentication failed for user "app"',
        "Error: invalid_grant: Token has been expired or revoked.",
        "401 Unauthorized: missing or malformed bearer token",
        "remote: Support for password authentication was removed on August 13, 2021.",
        "jwt.exceptions.ExpiredSignatureError: Signature has expired",
        "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
        "Permission denied (publickey,password).",
        "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
        'npm ERR! code E401\nnpm ERR! Unable to authenticate, need: Basic realm="GitHub Package Registry"',
        "WARNING: Using a password on the command line interface can be insecure.",
        "The security token included in the request is invalid.",
        "CSRF token missing or incorrect.",
        "django.core.exceptions.ImproperlyConfigured: The SECRET_KEY setting must not be empty.",
        "ValueError: token must be a str, got NoneType",
        'Error: secret "db-creds" not found',
        # commit messages and PR text
        "fix: stop logging the Authorization header on 401s",
        "chore: rotate staging credentials (values live in Vault)",
        "feat(auth): add refresh token rotation",
        'Revert "move API keys to env vars"',
        "docs: explain how to set GITHUB_TOKEN for the release workflow",
        "refactor: rename password_hash to password_digest",
        "security: bump jsonwebtoken to 9.0.2 (CVE-2022-23529)",
        "Merge pull request #812 from acme/fix/token-expiry",
        "test: cover the case where the secret is empty",
        "ci: mask secrets in the debug step",
        # hashes, digests, checksums, ids
        "sha256sum dist/app-1.4.2.tar.gz\n" + _r("o-sha1", 64, _HEX) + "  dist/app-1.4.2.tar.gz",
        "image: ghcr.io/acme/api@sha256:" + _r("o-sha2", 64, _HEX),
        "commit "
        + _r("o-git1", 40, _HEX)
        + "\nAuthor: Jane Doe <jane@acme.io>\nDate:   Thu Nov 26 14:02:11 2026 +0000",
        "git cherry-pick " + _r("o-git2", 12, _HEX),
        "resolved "
        + '"'
        + 'https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz"\nintegrity sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==',
        "md5: " + _r("o-md5", 32, _HEX) + "  backup-2026-11-26.tar",
        "x-request-id: "
        + _r("o-req1", 8, _HEX)
        + "-"
        + _r("o-req1b", 4, _HEX)
        + "-4"
        + _r("o-req1c", 3, _HEX)
        + "-8"
        + _r("o-req1d", 3, _HEX)
        + "-"
        + _r("o-req1e", 12, _HEX),
        "2026-11-27T10:12:44Z INFO request_id="
        + _r("o-req2", 26, _UPPER_NUM)
        + " method=GET path=/health status=200 dur=3ms",
        "trace_id=" + _r("o-tr1", 32, _HEX) + " span_id=" + _r("o-tr2", 16, _HEX),
        'etag: W/"' + _r("o-etag", 40, _HEX) + '"',
        "go.sum: github.com/stretchr/testify v1.9.0 h1:HtqpIVDClZ4nwg75+f6Lvsy/wHu+3BoSGCbBAcpTsTg=",
        'poetry.lock: {file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:' + _r("o-lock", 64, _HEX) + '"}',
        "docker pull postgres@sha256:" + _r("o-sha3", 64, _HEX),
        "Build ID: "
        + _r("o-build", 8, _HEX)
        + "-"
        + _r("o-build2", 4, _HEX)
        + "-"
        + _r("o-build3", 4, _HEX)
        + "-"
        + _r("o-build4", 4, _HEX)
        + "-"
        + _r("o-build5", 12, _HEX),
        "Stripe event evt_1Nq2xYz in test mode, object ch_3Nq2xY (charges are ids, not keys)",
        "customer_id: cus_PqR8sT2uVw, price_id: price_1OaBcD",
        "AMI: ami-0c55b159cbfafe1f0, subnet-0bb1c79de3EXAMPLE",
        "arn:aws:iam::123456789012:role/ci-deployer",
        "Slack channel C04ABCDEF12, user U02XYZ987",
        "uuid4: 3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        # public keys and certificates
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r("o-pub1", 43, _B64) + " jane@laptop",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
        + _r("o-pub2", 52, _B64)
        + "\n"
        + _r("o-pub2b", 36, _B64)
        + "==\n-----END PUBLIC KEY-----",
        "age public key: age1" + _r("o-age", 58, _BECH32).lower(),
        "[Peer]\nPublicKey = " + _r("o-wg", 43, _B64) + "=\nAllowedIPs = 10.8.0.0/24",
        "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
        "pub   ed25519 2026-01-10 [SC]\n      "
        + _r("o-gpg", 40, _HEX).upper()
        + "\nuid           [ultimate] Jane Doe <jane@acme.io>",
        "gpg --recv-keys " + _r("o-gpg2", 16, _HEX).upper(),
        "ssl_certificate /etc/letsencrypt/live/acme.io/fullchain.pem;\nssl_certificate_key /etc/letsencrypt/live/acme.io/privkey.pem;",
        "openssl x509 -in cert.pem -noout -fingerprint -sha256\nsha256 Fingerprint="
        + ":".join(_r("o-fp", 64, _HEX).upper()[i : i + 2] for i in range(0, 64, 2)),
        "The server's host key fingerprint is SHA256:" + _r("o-hk", 43, _B64) + ".",
        # base64 of ordinary text and data
        "echo " + _b64("hello world from the build server") + " | base64 -d",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "kubectl get configmap app -o yaml\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: " + _b64("search,export"),
        "The response body was " + _b64('{"status":"ok","items":[]}') + " (base64 of JSON)",
        "content: " + _b64("# README\nThis is the project readme.\n"),
        # misc developer chatter with trigger words
        "How do I store the refresh token securely in a React Native app?",
        "We should never commit .env files; add them to .gitignore.",
        "Is bcrypt or argon2 better for password hashing in 2026?",
        'the password field should be type="password" and autocomplete="current-password"',
        "I forgot my password for the staging admin, who can reset it?",
        "Rotate the token every 90 days per the security policy.",
        "The secret sauce is the caching layer, not the model.",
        "tokens = text.split()  # naive tokenizer",
        "def check_password(raw: str, hashed: str) -> bool:",
        "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:",
        "Use `gh auth login` instead of pasting a token.",
        "The API key is stored in 1Password under 'Stripe prod'.",
        "Key Vault reference: @Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/secrets/DbPassword/)",
        "Secret Manager: projects/acme-prod/secrets/db-password/versions/latest",
        "ssm get-parameter --name /prod/api/key --with-decryption",
        "GitHub secret scanning alert #14 was closed as revoked.",
        "The password policy requires 12 characters, one digit and one symbol.",
        "Authorization header format: `Authorization: Bearer <token>`",
        "Basic auth is base64(user:password), not encryption.",
        "TOTP codes are 6 digits and change every 30 seconds.",
        "WIFI:S:<ssid>;T:WPA;P:<password>;; is the QR format",
        "otpauth://totp/Label?secret=BASE32SECRET&issuer=Example is the URI format",
        "The recovery codes are in the safe, not in the wiki.",
        "In `.npmrc` use `//registry.npmjs.org/:_authToken=${NPM_TOKEN}`.",
        "pip install --index-url https://pypi.org/simple/ requests",
        "pip config set global.index-url https://pypi.acme.internal/simple/",
        "git clone https://github.com/acme/api.git",
        "git remote set-url origin git@github.com:acme/api.git",
        "docker login ghcr.io -u octocat --password-stdin < token.txt",
        "kubectl create secret generic db-creds --from-env-file=.env.prod",
        "helm upgrade --install pg bitnami/postgresql --set auth.existingSecret=pg-auth",
        "terraform login app.terraform.io",
        "vault login -method=github",
        "doppler setup --project api --config prd",
        "pulumi login s3://acme-pulumi-state",
        "fly secrets set DATABASE_URL=from-vault --stage",
        "supabase link --project-ref xyzcompanyref",
        "firebase login:ci --no-localhost",
        "gcloud auth application-default login",
        "az storage blob generate-sas --account-name stgacme --container-name backups --permissions r --expiry 2026-12-31",
        "aws s3 presign s3://my-bucket/report.pdf --expires-in 3600",
        "crontab: 0 3 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1",
        "[Service]\nEnvironmentFile=/etc/app/env\nExecStart=/usr/bin/app --port 8080",
        "Environment=PYTHONUNBUFFERED=1",
        "CREATE TABLE users (id serial primary key, email text not null, password_hash text not null);",
        "SELECT id, email FROM users WHERE reset_token_expires_at < now();",
        "ALTER USER report WITH PASSWORD DEFAULT;  -- syntax error, see docs",
        "-- Dumping data for table `countries`\nINSERT INTO `countries` VALUES (1,'FR','France'),(2,'DE','Germany');",
        '{"cell_type": "markdown", "source": ["## Load the API key from the environment\\n"]}',
        '"headers": [{"name": "accept", "value": "application/json"}, {"name": "x-request-id", "value": "req_7f3a"}]',
        '{"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{accessToken}}"}]}}',
        "Set-Cookie: theme=dark; Path=/; Max-Age=31536000",
        "Cookie: _ga=GA1.2.1234567890.1700000000; lang=en",
        "http://localhost:8080/callback?state=xyz&error=access_denied",
        "redirect_uri=http://localhost:3000/api/auth/callback/github",
        "scope=openid%20email%20profile&response_type=code&client_id=my-app",
        "The S3 URL is https://my-bucket.s3.amazonaws.com/public/logo.png (public object)",
        "https://acmeprod.blob.core.windows.net/public/logo.svg",
        "mongodb://localhost:27017/test",
        "redis://localhost:6379/0",
        "amqp://localhost:5672/ is where RabbitMQ listens in local dev",
        "jdbc:postgresql://localhost:5432/test",
        "$ printenv | grep -i ^LANG\nLANG=en_US.UTF-8",
        "$ env | grep PATH\nPATH=/usr/local/bin:/usr/bin:/bin",
        "$ docker inspect api-1 --format '{{.State.Status}}'\nrunning",
        "$ kubectl get secrets -n prod\nNAME          TYPE     DATA   AGE\ndb-creds      Opaque   2      41d\nregcred       kubernetes.io/dockerconfigjson   1   120d",
        "$ kubectl describe secret db-creds\nData\n====\npassword:  24 bytes\nusername:  3 bytes",
        "$ gcloud auth list\n   Credentialed Accounts\nACTIVE  ACCOUNT\n*       jane@acme.io",
        '$ aws sts get-caller-identity\n{"UserId": "AIDAEXAMPLEUSERID", "Account": "123456789012"}',
        "$ vault token lookup\nKey                 Value\n---                 -----\naccessor            (hidden)\nttl                 767h59m",
        "$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account jane (keyring)\n  - Token: gho_************************************",
        "Run actions/checkout@v4\n  with:\n    token: ***\n    persist-credentials: true",
        "Step 4/12 : ARG NPM_TOKEN\n ---> Using cache",
        "Successfully built 3c2b7a1f9e0d\nSuccessfully tagged acme/api:1.4.2",
        "PASSED tests/test_auth.py::test_token_refresh",
        "FAILED tests/test_auth.py::test_wrong_password_rejected - AssertionError",
        "Slack: @sam can you rotate the staging token? the old one was in a screenshot",
        "Ticket #48214: Customer cannot reset password, email not arriving.",
        "Q: does the token endpoint accept JSON or only form-encoded? A: both since v2.",
        "The validator rejects passwords found on breached-password lists.",
        "The htpasswd file format is user:hash, one per line.",
        "PGP fingerprint for security@acme.io is listed on the security.txt page.",
        "Recovery codes: generated 2026-11-01, 8 remaining, stored offline.",
        "ssh -i ~/.ssh/deploy_key deploy@10.0.3.7 'systemctl restart app'",
        "chmod 600 ~/.ssh/id_rsa && ssh-add ~/.ssh/id_rsa",
        "gpg --armor --export jane@acme.io > jane.pub.asc",
        "age -r age1example... -o secrets.age secrets.txt  # encrypt to the team key",
        "sops --encrypt --age $(cat ~/.config/sops/age/keys.txt | grep public | cut -d' ' -f4) secrets.yaml",
        "The version is 2.14.0-rc.3+build.20261127",
        "Latency p50=12ms p95=48ms p99=131ms over 10k requests",
    ]
    return texts


BLIND4_ORDINARY: list[str] = _ordinary()
