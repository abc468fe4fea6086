"""The final held-out secrets corpus of issue 36: written blind, for the acceptance figure only.

Written without reading the recognisers (``kernel/secret_*.py``, ``kernel/privacy.py``) or the
other corpora (tuning, fresh and held-out), from the ways developers leak credentials while talking
to a coding assistant: shell history, CI logs, docker and kubectl commands, manifests, terraform,
Helm and Ansible files, framework config files, package-registry rc files, cloud credential files,
webhook URLs, vendor API keys, private keys, DSNs, HTTP headers, plain sentences, and evasions
(wrapped, quoted, escaped, URL-encoded, concatenated, in tables, block scalars and stack traces).

It must never be used to tune rules: it is the independent final test of issue 36's acceptance
("on a new corpus of at least 100 secret forms written for this issue and kept apart from the
tuning corpus, >= 98 % are never stored or shown; ordinary texts changed: 0 of 200"). Once
measured, its entries are not edited to match what ``redact`` does: a miss stays a miss.

``FINAL_SECRETS``: credential forms (format-shaped, never real), each with the ``needle`` that must
not survive redaction; ``family_of(name)`` gives a form's family (the part of its name before ``/``).
``FINAL_ORDINARY``: exactly 200 developer texts with no secret in them, which redaction must leave
exactly as they are.
Every value is made from a seeded hash, so this file holds no literal credential and trips no scanner.
"""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse

from tests.support.secrets_corpus import Secret

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"
_ALNUM = _UPPER + _LOWER + _DIGITS
_HEXDIGITS = "0123456789abcdef"
_B64CHARS = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
_WORDS = (
    "lantern",
    "cobalt",
    "meadow",
    "pirate",
    "walnut",
    "glacier",
    "thimble",
    "sparrow",
    "canyon",
    "violet",
    "marble",
    "ember",
    "tundra",
    "orchid",
    "pepper",
    "rocket",
)


def _bytes(seed: str, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(f"final36:{seed}:{counter}".encode()).digest()
        counter += 1
    return out[:length]


def _pick(seed: str, length: int, alphabet: str) -> str:
    return "".join(alphabet[b % len(alphabet)] for b in _bytes(seed, length))


def _alnum(seed: str, length: int) -> str:
    return _pick(seed, length, _ALNUM)


def _lower(seed: str, length: int) -> str:
    return _pick(seed, length, _LOWER + _DIGITS)


def _upper(seed: str, length: int) -> str:
    return _pick(seed, length, _UPPER + _DIGITS)


def _hex(seed: str, length: int) -> str:
    return _pick(seed, length, _HEXDIGITS)


def _digits(seed: str, length: int) -> str:
    return _pick(seed, length, _DIGITS)


def _b64(seed: str, raw: int) -> str:
    return base64.b64encode(_bytes(seed, raw)).decode()


def _b64url(seed: str, length: int) -> str:
    return _pick(seed, length, _B64URL)


def _uuid(seed: str) -> str:
    h = _hex(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _pw(seed: str, length: int = 16) -> str:
    """A generated password: letters, digits and shell-safe symbols, every class present."""
    body = _pick(seed, length - 3, _ALNUM + "!%*-_+=.^~")
    raw = _bytes(seed + ":tail", 3)
    return body + _UPPER[raw[0] % 26] + _DIGITS[raw[1] % 10] + "!#%*"[raw[2] % 4]


def _url_pw(seed: str, length: int = 18) -> str:
    """A password that needs no escaping in a URL."""
    return _pick(seed, length - 2, _ALNUM + "-_.") + _digits(seed + ":d", 2)


def _word_pw(seed: str) -> str:
    """A memorable password people actually choose: two words, digits, a symbol."""
    raw = _bytes(seed, 5)
    first = _WORDS[raw[0] % 16].capitalize()
    second = _WORDS[raw[1] % 16]
    return f"{first}{'!#%&*?'[raw[2] % 6]}{second}{raw[3] % 90 + 10}{raw[4] % 10}"


def _b64_of(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _b64url_of(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def _jwt(seed: str, claims: dict[str, object]) -> str:
    header = _b64url_of({"alg": "RS256", "kid": _hex(seed + ":kid", 16), "typ": "JWT"})
    return f"{header}.{_b64url_of(claims)}.{_b64url(seed + ':sig', 86)}"


def _pem_body(seed: str, prefix: bytes, raw: int) -> list[str]:
    data = base64.b64encode(prefix + _bytes(seed, raw)).decode()
    return [data[i : i + 64] for i in range(0, len(data), 64)]


def _pem(kind: str, seed: str, prefix: bytes = b"", raw: int = 600) -> tuple[str, str]:
    """A PEM block and the needle: one full body line from its middle."""
    lines = _pem_body(seed, prefix, raw)
    block = "\n".join([f"-----BEGIN {kind}-----", *lines, f"-----END {kind}-----"])
    return block, lines[len(lines) // 2]


_S: list[Secret] = []


def _add(name: str, text: str, needle: str) -> None:
    _S.append(Secret(name, text, needle))


# -- cloud: AWS, GCP, Azure and other providers -------------------------------------------------

_v = _alnum("aws-file-secret", 40)
_add(
    "cloud/aws-credentials-file",
    f"cat ~/.aws/credentials\n[default]\naws_access_key_id = AKIA{_upper('aws-file-id', 16)}\n"
    f"aws_secret_access_key = {_v}\nregion = eu-west-1",
    _v,
)
_v = _pick("aws-env-secret", 40, _ALNUM + "+/")
_add(
    "cloud/aws-env-exports",
    f"export AWS_ACCESS_KEY_ID=AKIA{_upper('aws-env-id', 16)}\nexport AWS_SECRET_ACCESS_KEY={_v}\n"
    "export AWS_DEFAULT_REGION=us-east-2\naws s3 ls s3://build-artifacts",
    _v,
)
_v = "IQoJb3JpZ2luX2VjE" + _pick("aws-session", 300, _B64CHARS)
_add(
    "cloud/aws-session-token",
    f"aws_session_token = {_v}\n# expires 2026-11-27T13:00:00Z",
    _v[:120],
)
_v = _alnum("aws-boto-secret", 40)
_add(
    "cloud/aws-boto3-client",
    f's3 = boto3.client(\n    "s3",\n    aws_access_key_id="AKIA{_upper("aws-boto-id", 16)}",\n'
    f'    aws_secret_access_key="{_v}",\n)',
    _v,
)
_v = "AKIA" + _upper("aws-alone-id", 16)
_add(
    "cloud/aws-access-key-id-in-policy-error",
    f"User: arn:aws:iam::123456789012:user/ci with key {_v} is not authorized",
    _v,
)
_gcp_key, _gcp_needle = _pem(
    "PRIVATE KEY", "gcp-sa", b"0\x82\x04\xbe\x02\x01\x000\r\x06\t*\x86H\x86\xf7\r\x01\x01\x01\x05\x00"
)
_add(
    "cloud/gcp-service-account-json",
    json.dumps(
        {
            "type": "service_account",
            "project_id": "acme-prod-42",
            "private_key_id": _hex("gcp-sa-kid", 40),
            "private_key": _gcp_key + "\n",
            "client_email": "deployer@acme-prod-42.iam.gserviceaccount.com",
            "client_id": _digits("gcp-sa-cid", 21),
            "token_uri": "https://oauth2.googleapis.com/token",
        },
        indent=2,
    ),
    _gcp_needle,
)
_v = "AIza" + _b64url("gcp-maps-key", 35)
_add(
    "cloud/gcp-api-key-in-js",
    f'<script src="https://maps.googleapis.com/maps/api/js?key={_v}&callback=initMap"></script>',
    _v,
)
_v = _b64("azure-storage", 64)
_add(
    "cloud/azure-storage-connection-string",
    f'"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=acmeprodstore;AccountKey={_v};EndpointSuffix=core.windows.net"',
    _v,
)
_v = urllib.parse.quote(_b64("azure-sas", 32), safe="")
_add(
    "cloud/azure-sas-url",
    "curl -o dump.bak 'https://acmebackups.blob.core.windows.net/db/dump.bak?sv=2022-11-02&ss=b&srt=o&sp=r"
    f"&se=2026-12-31T23:59:59Z&st=2026-11-01T00:00:00Z&spr=https&sig={_v}'",
    _v,
)
_v = _alnum("azure-cs-a", 3) + "8Q~" + _pick("azure-cs-b", 34, _ALNUM + "~._-")
_add(
    "cloud/azure-client-secret",
    f"AZURE_TENANT_ID={_uuid('az-tenant')}\nAZURE_CLIENT_ID={_uuid('az-client')}\nAZURE_CLIENT_SECRET={_v}",
    _v,
)
_v = "dop_v1_" + _hex("do-token", 64)
_add("cloud/digitalocean-token", f"doctl auth init --access-token {_v}", _v)
_v = _pw("tfstate-db")
_add(
    "cloud/terraform-state-snippet",
    '{\n  "type": "aws_db_instance",\n  "name": "main",\n  "instances": [{\n    "attributes": {\n'
    f'      "engine": "postgres",\n      "username": "dbadmin",\n      "password": "{_v}",\n'
    '      "port": 5432\n    }\n  }]\n}',
    _v,
)
_v = _alnum("alibaba-secret", 30)
_add(
    "cloud/alibaba-access-key",
    f"aliyun configure set --access-key-id LTAI{_alnum('alibaba-id', 20)} --access-key-secret {_v} --region cn-hangzhou",
    _v,
)
_v = _uuid("heroku-api")
_add("cloud/heroku-api-key", f"heroku config:set --app acme-api HEROKU_API_KEY={_v}", _v)
_v = _b64url("cloudflare-token", 40)
_add(
    "cloud/cloudflare-api-token",
    f'curl -X GET "https://api.cloudflare.com/client/v4/user/tokens/verify" -H "Authorization: Bearer {_v}"',
    _v,
)

# -- vcs: GitHub, GitLab, Bitbucket, Azure DevOps ---------------------------------------------

_v = "ghp_" + _alnum("ghp-remote", 36)
_add("vcs/github-pat-in-remote-url", f"git remote set-url origin https://{_v}@github.com/acme/platform.git", _v)
_v = "github_pat_" + _alnum("gh-fine-a", 22) + "_" + _alnum("gh-fine-b", 59)
_add("vcs/github-fine-grained-pat", f"echo {_v} | gh auth login --with-token", _v)
_v = "gho_" + _alnum("gho-hosts", 36)
_add(
    "vcs/gh-hosts-yml",
    f"github.com:\n    user: alice-dev\n    oauth_token: {_v}\n    git_protocol: https",
    _v,
)
_v = "ghs_" + _alnum("ghs-log", 36)
_add(
    "vcs/github-app-installation-token",
    f'{{"token":"{_v}","expires_at":"2026-11-27T12:44:10Z","permissions":{{"contents":"read"}}}}',
    _v,
)
_v = "glpat-" + _b64url("glpat-clone", 20)
_add("vcs/gitlab-pat-in-clone", f"git clone https://oauth2:{_v}@gitlab.com/acme/infra/terraform-modules.git", _v)
_v = "ATBB" + _alnum("bitbucket-app", 28) + _hex("bitbucket-app-h", 8).upper()
_add(
    "vcs/git-credentials-file",
    f"$ cat ~/.git-credentials\nhttps://bob.martin:{_v}@bitbucket.org\nhttps://github.com",
    _v,
)
_v = "glrt-" + _b64url("glrt-runner", 20)
_add(
    "vcs/gitlab-runner-token",
    f'gitlab-runner register --non-interactive --url "https://gitlab.acme.io/" --token "{_v}" --executor docker',
    _v,
)
_v = _pick("ado-pat", 52, _BASE32)
_add(
    "vcs/azure-devops-pat",
    f"export AZURE_DEVOPS_EXT_PAT={_v}\naz devops project list --org https://dev.azure.com/acme",
    _v,
)
_v = _hex("gitea-token", 40)
_add("vcs/gitea-token-header", f"curl -H 'Authorization: token {_v}' https://git.acme.internal/api/v1/user/repos", _v)

# -- ci: GitHub Actions, GitLab CI, Jenkins, CircleCI, Buildkite -------------------------------

_v = "npm_" + _alnum("gha-npm", 36)
_add(
    "ci/github-actions-hardcoded-env",
    "jobs:\n  publish:\n    runs-on: ubuntu-latest\n    env:\n"
    f"      NODE_AUTH_TOKEN: {_v}\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm publish",
    _v,
)
_v = _word_pw("gitlab-ci-var")
_add(
    "ci/gitlab-ci-variables",
    f'deploy:\n  stage: deploy\n  variables:\n    DEPLOY_USER: "deployer"\n    DEPLOY_PASSWORD: "{_v}"\n'
    "  script:\n    - ./deploy.sh",
    _v,
)
_v = _url_pw("jenkins-curl")
_add(
    "ci/jenkins-console-log",
    "[Pipeline] sh\n+ curl -sSf -u deploy:"
    f"{_v} -T target/app-2.4.1.jar https://nexus.acme.internal/repository/releases/app-2.4.1.jar\n"
    "  % Total    % Received % Xferd",
    _v,
)
_v = _pw("jenkinsfile-login")
_add(
    "ci/jenkinsfile-docker-login",
    f"stage('Push') {{\n  steps {{\n    sh 'docker login -u ci-bot -p {_v} registry.acme.io'\n"
    "    sh 'docker push registry.acme.io/api:${BUILD_NUMBER}'\n  }\n}",
    _v,
)
_v = "11" + _hex("jenkins-api", 32)
_add("ci/jenkins-api-token", f"curl -X POST -u admin:{_v} https://jenkins.acme.io/job/nightly/build", _v)
_v = "CCIPAT_" + _alnum("circle-a", 22) + "_" + _hex("circle-b", 40)
_add("ci/circleci-token", f"export CIRCLE_TOKEN={_v}\ncircleci context list github acme", _v)
_v = "bkua_" + _hex("buildkite", 40)
_add("ci/buildkite-api-token", f'curl -H "Authorization: Bearer {_v}" https://api.buildkite.com/v2/organizations', _v)
_v = _alnum("gha-log-secret", 32)
_add(
    "ci/github-actions-debug-log",
    "2026-11-27T10:02:11.5521Z ##[debug]Evaluating: secrets.PROD_API_KEY\n"
    f"2026-11-27T10:02:11.5523Z ##[debug]Result: '{_v}'",
    _v,
)
_v = _url_pw("drone-secret", 24)
_add("ci/drone-secret-add", f"drone secret add --repository acme/api --name registry_password --data {_v}", _v)

# -- container: docker run, compose, login, config.json, Dockerfile ---------------------------

_v = _url_pw("docker-run-pg")
_add(
    "container/docker-run-env",
    f"docker run -d --name pg -e POSTGRES_USER=app -e POSTGRES_PASSWORD={_v} -p 5432:5432 postgres:16",
    _v,
)
_v = _pw("docker-login-p")
_add("container/docker-login-password-flag", f"docker login -u acmeci -p '{_v}' registry.gitlab.com", _v)
_v = _word_pw("compose-mysql")
_add(
    "container/compose-environment",
    "services:\n  db:\n    image: mysql:8.4\n    environment:\n"
    f"      MYSQL_ROOT_PASSWORD: {_v}\n      MYSQL_DATABASE: shop\n    ports:\n      - '3306:3306'",
    _v,
)
_v = _b64_of("acmeci:" + _url_pw("docker-config-pw"))
_add(
    "container/docker-config-json-auths",
    f'{{\n  "auths": {{\n    "ghcr.io": {{\n      "auth": "{_v}"\n    }}\n  }}\n}}',
    _v,
)
_v = "npm_" + _alnum("docker-build-arg", 36)
_add("container/docker-build-arg-token", f"docker build --build-arg NPM_TOKEN={_v} -t web:dev .", _v)
_v = "dckr_pat_" + _b64url("dockerhub-pat", 27)
_add("container/dockerhub-pat-stdin", f'echo "{_v}" | docker login -u acme --password-stdin', _v)
_v = "sk_live_" + _alnum("dockerfile-env", 24)
_add("container/dockerfile-env", f"FROM node:20-alpine\nWORKDIR /app\nENV STRIPE_SECRET_KEY={_v}\nCOPY . .", _v)
_v = _pw("compose-env-list")
_add(
    "container/compose-env-list",
    f"    environment:\n      - RABBITMQ_DEFAULT_USER=admin\n      - RABBITMQ_DEFAULT_PASS={_v}",
    _v,
)

# -- k8s: kubectl, manifests, kubeconfig, Helm -----------------------------------------------

_v = _pw("kubectl-literal")
_add(
    "k8s/kubectl-from-literal",
    f"kubectl create secret generic db-creds --from-literal=username=app --from-literal=password='{_v}' -n prod",
    _v,
)
_v = _b64_of(_word_pw("k8s-manifest-data"))
_add(
    "k8s/secret-manifest-data",
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-db\ntype: Opaque\ndata:\n  username: YXBp\n  password: {_v}",
    _v,
)
_v = _alnum("k8s-string-data", 32)
_add(
    "k8s/secret-manifest-stringdata",
    f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: mailer\nstringData:\n  SENDGRID_API_KEY: {_v}",
    _v,
)
_v = _jwt("kubeconfig-token", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"})
_add(
    "k8s/kubeconfig-user-token",
    f"users:\n- name: ci-deployer\n  user:\n    token: {_v}",
    _v.rsplit(".", 1)[1],
)
_v = _jwt("describe-token", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:kube-system:admin"})
_add(
    "k8s/kubectl-describe-secret",
    f"Name:         admin-token\nType:  kubernetes.io/service-account-token\n\nData\n====\nca.crt:     1099 bytes\n"
    f"namespace:  11 bytes\ntoken:      {_v}",
    _v.rsplit(".", 1)[1],
)
_v = _url_pw("helm-set")
_add(
    "k8s/helm-set-password",
    f"helm upgrade --install redis bitnami/redis --set auth.password={_v} --namespace cache",
    _v,
)
_v = _pw("helm-values")
_add(
    "k8s/helm-values-file",
    f"postgresql:\n  enabled: true\n  auth:\n    username: keycloak\n    password: {_v}\n    database: keycloak",
    _v,
)
_kc_key, _ = _pem("RSA PRIVATE KEY", "kubeconfig-client-key", b"0\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00")
_v = _b64_of(_kc_key + "\n")
_add(
    "k8s/kubeconfig-client-key-data",
    f"- name: kind-admin\n  user:\n    client-certificate-data: {_b64('kc-cert', 90)}\n    client-key-data: {_v}",
    _v[80:200],
)

# -- iac: terraform, Ansible, Pulumi, Vault -----------------------------------------------------

_v = _word_pw("tfvars")
_add("iac/terraform-tfvars", f'region      = "eu-central-1"\ndb_username = "admin"\ndb_password = "{_v}"', _v)
_v = _pw("tf-plan")
_add(
    "iac/terraform-plan-output",
    '  # aws_db_instance.main will be created\n  + resource "aws_db_instance" "main" {\n'
    f'      + engine   = "mysql"\n      + password = "{_v}"\n      + username = "admin"\n    }}',
    _v,
)
_v = _url_pw("ansible-inventory")
_add(
    "iac/ansible-inventory",
    f"[web]\n10.0.3.11 ansible_user=deploy ansible_password={_v} ansible_become=yes",
    _v,
)
_v = _word_pw("ansible-become")
_add("iac/ansible-become-pass", f"ansible-playbook site.yml -i hosts -e 'ansible_become_pass={_v}'", _v)
_v = _pw("ansible-vars")
_add("iac/ansible-group-vars", f"---\nmysql_root_password: {_v}\nmysql_databases:\n  - name: wordpress", _v)
_v = _word_pw("pulumi-secret")
_add("iac/pulumi-config-secret", f"pulumi config set --secret dbPassword {_v}", _v)
_v = "hvs." + _b64url("vault-token", 24)
_add(
    "iac/vault-token",
    f"export VAULT_ADDR=https://vault.acme.io:8200\nexport VAULT_TOKEN={_v}\nvault kv get secret/api",
    _v,
)
_v = _alnum("tfc-a", 14) + ".atlasv1." + _alnum("tfc-b", 67)
_add(
    "iac/terraform-cloud-token",
    f'credentials "app.terraform.io" {{\n  token = "{_v}"\n}}',
    _v,
)

# -- appconfig: framework config files and hard-coded credentials in code -----------------------

_v = _pw("spring-props")
_add(
    "appconfig/spring-application-properties",
    "spring.datasource.url=jdbc:postgresql://db.internal:5432/orders\nspring.datasource.username=orders\n"
    f"spring.datasource.password={_v}\nspring.jpa.hibernate.ddl-auto=validate",
    _v,
)
_v = _word_pw("spring-yml")
_add(
    "appconfig/spring-application-yml",
    f"spring:\n  mail:\n    host: smtp.office365.com\n    username: noreply@acme.com\n    password: {_v}",
    _v,
)
_v = _pw("dotnet-appsettings")
_add(
    "appconfig/dotnet-appsettings",
    '{\n  "ConnectionStrings": {\n    "Default": "Server=sql01;Database=Billing;User Id=billing_app;'
    f'Password={_v};TrustServerCertificate=True"\n  }}\n}}',
    _v,
)
_v = "base64:" + _b64("laravel-app-key", 32)
_add("appconfig/laravel-app-key", f"APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY={_v}\nAPP_DEBUG=false", _v[7:])
_v = _url_pw("laravel-db")
_add(
    "appconfig/laravel-env-db",
    f"DB_CONNECTION=mysql\nDB_HOST=127.0.0.1\nDB_PORT=3306\nDB_DATABASE=shop\nDB_USERNAME=shop\nDB_PASSWORD={_v}",
    _v,
)
_v = _word_pw("rails-dbyml")
_add(
    "appconfig/rails-database-yml",
    f"production:\n  adapter: postgresql\n  database: app_production\n  username: app\n  password: {_v}\n  host: db",
    _v,
)
_v = _hex("rails-skb", 128)
_add("appconfig/rails-secret-key-base", f"# config/credentials.yml.enc (decrypted)\nsecret_key_base: {_v}", _v)
_v = "django-insecure-" + _pick("django-key", 50, _LOWER + _DIGITS + "!@#%^*(-_=+)")
_add("appconfig/django-secret-key", f"DEBUG = False\nSECRET_KEY = '{_v}'\nALLOWED_HOSTS = ['api.acme.io']", _v)
_v = _alnum("node-jwt", 48)
_add(
    "appconfig/node-config-js",
    f"module.exports = {{\n  port: 3000,\n  jwtSecret: '{_v}',\n  mongoUri: process.env.MONGO_URI,\n}};",
    _v,
)
_v = _url_pw("go-dsn")
_add(
    "appconfig/go-sql-open",
    f'db, err := sql.Open("postgres", "host=10.1.2.3 port=5432 user=inventory password={_v} dbname=inventory sslmode=disable")',
    _v,
)
_v = _pw("php-mysqli")
_add("appconfig/php-mysqli", f"<?php\n$conn = mysqli_connect('localhost', 'wp_user', '{_v}', 'wordpress');", _v)
_v = _alnum("flask-secret", 40)
_add("appconfig/flask-secret-key", f"app = Flask(__name__)\napp.config['SECRET_KEY'] = '{_v}'", _v)
_v = _alnum("java-const", 40)
_add(
    "appconfig/java-constant",
    f'public final class PaymentsClient {{\n    private static final String API_SECRET = "{_v}";\n',
    _v,
)
_v = _pw("wp-config")
_add(
    "appconfig/wp-config",
    f"define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wpuser' );\ndefine( 'DB_PASSWORD', '{_v}' );",
    _v,
)

# -- mobile: Android signing, iOS/fastlane, Firebase --------------------------------------------

_v = _pw("gradle-store")
_add(
    "mobile/gradle-properties-signing",
    f"RELEASE_STORE_FILE=release.keystore\nRELEASE_STORE_PASSWORD={_v}\nRELEASE_KEY_ALIAS=upload",
    _v,
)
_v = _word_pw("gradle-keypass")
_add(
    "mobile/build-gradle-signing-config",
    f'signingConfigs {{\n    release {{\n        storeFile file("upload.jks")\n        keyAlias "upload"\n'
    f'        keyPassword "{_v}"\n    }}\n}}',
    _v,
)
_v = _url_pw("fastlane-match")
_add("mobile/fastlane-match-password", f"MATCH_PASSWORD={_v} bundle exec fastlane ios beta", _v)
_v = (
    _pick("asc-app-pw", 4, _LOWER)
    + "-"
    + _pick("asc-app-pw2", 4, _LOWER)
    + "-"
    + _pick("asc-app-pw3", 4, _LOWER)
    + "-"
    + _pick("asc-app-pw4", 4, _LOWER)
)
_add(
    "mobile/app-specific-password",
    f"xcrun altool --upload-app -f App.ipa -u dev@acme.com -p {_v}",
    _v,
)
_v = "AAAA" + _b64url("fcm-a", 7) + ":APA91b" + _b64url("fcm-b", 134)
_add("mobile/fcm-legacy-server-key", f'curl -H "Authorization: key={_v}" https://fcm.googleapis.com/fcm/send', _v)
_v = "sk_live_" + _alnum("ios-plist", 99)
_add(
    "mobile/info-plist-secret",
    f"<key>StripeSecretKey</key>\n<string>{_v}</string>",
    _v,
)
_v = _alnum("expo-token", 40)
_add("mobile/expo-token", f"EXPO_TOKEN={_v} eas build --platform android", _v)

# -- registry: package registries and rc files ------------------------------------------------

_v = "npm_" + _alnum("npmrc", 36)
_add("registry/npmrc-auth-token", f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={_v}", _v)
_v = "pypi-AgEIcHlwaS5vcmc" + _b64url("pypirc", 150)
_add(
    "registry/pypirc",
    f"[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = {_v}",
    _v[:80],
)
_v = _url_pw("netrc")
_add("registry/netrc", f"machine artifactory.acme.io\nlogin ci-reader\npassword {_v}", _v)
_v = "oy2" + _pick("nuget", 43, _LOWER + _DIGITS)
_add(
    "registry/nuget-push-key",
    f"dotnet nuget push bin/Release/Acme.Core.3.1.0.nupkg -k {_v} -s https://api.nuget.org/v3/index.json",
    _v,
)
_v = "rubygems_" + _hex("rubygems", 48)
_add("registry/rubygems-credentials", f"---\n:rubygems_api_key: {_v}", _v)
_v = "cio" + _alnum("crates", 32)
_add("registry/cargo-credentials", f'[registry]\ntoken = "{_v}"', _v)
_v = "AKCp" + _alnum("artifactory", 69)
_add(
    "registry/artifactory-api-key",
    f"curl -H 'X-JFrog-Art-Api: {_v}' https://acme.jfrog.io/artifactory/api/repositories",
    _v,
)
_v = "npm_" + _alnum("yarnrc", 36)
_add("registry/yarnrc-yml", f'npmRegistryServer: "https://registry.npmjs.org"\nnpmAuthToken: "{_v}"', _v)
_v = _url_pw("pip-conf")
_add("registry/pip-index-url", f"[global]\nindex-url = https://ci:{_v}@pypi.acme.internal/simple/", _v)
_v = _pw("maven-settings")
_add(
    "registry/maven-settings-xml",
    f"<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>deployment</username>\n"
    f"    <password>{_v}</password>\n  </server>\n</servers>",
    _v,
)

# -- payment: Stripe, PayPal, Square, Braintree, Razorpay, Shopify, Adyen ----------------------

_v = "sk_live_" + _alnum("stripe-live", 99)
_add("payment/stripe-secret-key", f'import stripe\nstripe.api_key = "{_v}"', _v)
_v = "rk_live_" + _alnum("stripe-rk", 99)
_add("payment/stripe-restricted-key", f"STRIPE_RESTRICTED_KEY={_v}", _v)
_v = "whsec_" + _alnum("stripe-whsec", 32)
_add(
    "payment/stripe-webhook-secret",
    f"stripe listen --forward-to localhost:4242/webhook\n> Ready! Your webhook signing secret is {_v} (^C to quit)",
    _v,
)
_v = "E" + _b64url("paypal-secret", 79)
_add(
    "payment/paypal-client-secret",
    f"PAYPAL_CLIENT_ID=A{_b64url('paypal-id', 79)}\nPAYPAL_CLIENT_SECRET={_v}\nPAYPAL_MODE=live",
    _v,
)
_v = "EAAA" + _b64url("square", 60)
_add("payment/square-access-token", f"client = Client(access_token='{_v}', environment='production')", _v)
_v = "access_token$production$" + _lower("bt-merchant", 16) + "$" + _hex("bt-token", 32)
_add(
    "payment/braintree-access-token", f'gateway = braintree.BraintreeGateway(access_token="{_v}")', _v.rsplit("$", 1)[1]
)
_v = _alnum("razorpay-secret", 24)
_add(
    "payment/razorpay-key-secret", f"RAZORPAY_KEY_ID=rzp_live_{_alnum('razorpay-id', 14)}\nRAZORPAY_KEY_SECRET={_v}", _v
)
_v = "shpat_" + _hex("shopify", 32)
_add(
    "payment/shopify-admin-token",
    f"curl -H 'X-Shopify-Access-Token: {_v}' https://acme-store.myshopify.com/admin/api/2024-10/orders.json",
    _v,
)
_v = "AQE" + _b64url("adyen", 90)
_add(
    "payment/adyen-api-key", f'Client client = new Client("{_v}", Environment.LIVE, "1797a841fbb37ca7-AdyenDemo");', _v
)

# -- comm: email, SMS, chat webhooks and bots ---------------------------------------------------

_v = _hex("twilio-auth", 32)
_add(
    "comm/twilio-auth-token",
    f'from twilio.rest import Client\nclient = Client("AC{_hex("twilio-sid", 32)}", "{_v}")',
    _v,
)
_v = _alnum("twilio-api-secret", 32)
_add("comm/twilio-api-key-secret", f"TWILIO_API_KEY=SK{_hex('twilio-sk', 32)}\nTWILIO_API_SECRET={_v}", _v)
_v = "SG." + _b64url("sendgrid-a", 22) + "." + _b64url("sendgrid-b", 43)
_add("comm/sendgrid-api-key", f"sg = sendgrid.SendGridAPIClient('{_v}')", _v)
_v = "key-" + _hex("mailgun", 32)
_add("comm/mailgun-api-key", f"curl -s --user 'api:{_v}' https://api.mailgun.net/v3/mg.acme.io/messages", _v)
_v = _hex("mailchimp", 32) + "-us14"
_add("comm/mailchimp-api-key", f"MAILCHIMP_API_KEY={_v}", _v)
_v = _uuid("postmark")
_add("comm/postmark-server-token", f"curl https://api.postmarkapp.com/email -H 'X-Postmark-Server-Token: {_v}'", _v)
_v = "xoxb-" + _digits("slack-bot-a", 12) + "-" + _digits("slack-bot-b", 13) + "-" + _alnum("slack-bot-c", 24)
_add("comm/slack-bot-token", f"SLACK_BOT_TOKEN={_v}\nSLACK_SIGNING_SECRET={_hex('slack-signing', 32)}", _v)
_v = (
    "xoxp-"
    + _digits("slack-user-a", 12)
    + "-"
    + _digits("slack-user-b", 12)
    + "-"
    + _digits("slack-user-c", 13)
    + "-"
    + _hex("slack-user-d", 32)
)
_add("comm/slack-user-token", f"curl -H 'Authorization: Bearer {_v}' https://slack.com/api/conversations.list", _v)
_v = _hex("slack-signing-2", 32)
_add("comm/slack-signing-secret", f"SLACK_SIGNING_SECRET={_v}", _v)
_v = _alnum("slack-hook", 24)
_add(
    "comm/slack-webhook-url",
    f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' "
    f"https://hooks.slack.com/services/T{_upper('slack-t', 8)}/B{_upper('slack-b', 10)}/{_v}",
    _v,
)
_v = _b64url("discord-hook", 68)
_add(
    "comm/discord-webhook-url",
    f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{_digits('discord-id', 19)}/{_v}",
    _v,
)
_v = _hex("teams-hook", 32)
_add(
    "comm/teams-webhook-url",
    f"https://acme.webhook.office.com/webhookb2/{_uuid('teams-a')}@{_uuid('teams-b')}/IncomingWebhook/{_v}/{_uuid('teams-c')}/V2{_b64url('teams-v2', 40)}",
    _v,
)
_v = _digits("tg-id", 10) + ":AA" + _b64url("tg-token", 33)
_add("comm/telegram-bot-token", f"bot = telebot.TeleBot('{_v}')", _v)
_v = _b64url("discord-bot-a", 26) + "." + _b64url("discord-bot-b", 6) + "." + _b64url("discord-bot-c", 38)
_add("comm/discord-bot-token", f"client.run('{_v}')", _v)
_v = _pw("smtp-env")
_add(
    "comm/smtp-env",
    f"SMTP_HOST=smtp.mailgun.org\nSMTP_PORT=587\nSMTP_USER=postmaster@mg.acme.io\nSMTP_PASSWORD={_v}",
    _v,
)
_v = _url_pw("smtp-url")
_add("comm/smtp-url", f"EMAIL_URL=smtp://apikey:{_v}@smtp.sendgrid.net:587/?tls=True", _v)
_v = _word_pw("smtplib")
_add(
    "comm/python-smtplib-login",
    f'server = smtplib.SMTP("smtp.gmail.com", 587)\nserver.starttls()\nserver.login("reports@acme.com", "{_v}")',
    _v,
)
_v = "B" + _b64("ses-smtp", 32)[:43]
_add("comm/ses-smtp-password", f"Username: AKIA{_upper('ses-id', 16)}\nPassword: {_v}", _v)

# -- llm: AI and model-hosting APIs ----------------------------------------------------------------

_v = "sk-proj-" + _b64url("openai-proj", 156)
_add("llm/openai-project-key", f'client = OpenAI(api_key="{_v}")', _v)
_v = "sk-" + _alnum("openai-legacy-a", 20) + "T3BlbkFJ" + _alnum("openai-legacy-b", 20)
_add("llm/openai-legacy-key", f"export OPENAI_API_KEY={_v}", _v)
_v = "sk-ant-api03-" + _b64url("anthropic", 93) + "AA"
_add(
    "llm/anthropic-key",
    f"curl https://api.anthropic.com/v1/messages -H 'x-api-key: {_v}' -H 'anthropic-version: 2023-06-01'",
    _v,
)
_v = "hf_" + _alnum("huggingface", 34)
_add("llm/huggingface-token", f"huggingface-cli login --token {_v}", _v)
_v = "r8_" + _alnum("replicate", 37)
_add("llm/replicate-token", f"REPLICATE_API_TOKEN={_v} python generate.py", _v)
_v = "gsk_" + _alnum("groq", 52)
_add("llm/groq-key", f"client = Groq(api_key='{_v}')", _v)
_v = _alnum("cohere", 40)
_add("llm/cohere-key", f"co = cohere.Client('{_v}')", _v)
_v = _alnum("mistral", 32)
_add("llm/mistral-key", f"MISTRAL_API_KEY={_v}", _v)
_v = "pplx-" + _alnum("perplexity", 48)
_add("llm/perplexity-key", f'headers = {{"Authorization": "Bearer {_v}"}}', _v)
_v = "xai-" + _alnum("xai", 80)
_add("llm/xai-key", f"XAI_API_KEY={_v}", _v)
_v = "sk-or-v1-" + _hex("openrouter", 64)
_add("llm/openrouter-key", f'"env": {{ "OPENROUTER_API_KEY": "{_v}" }}', _v)
_v = "AIza" + _b64url("gemini", 35)
_add("llm/gemini-key", f'genai.configure(api_key="{_v}")', _v)

# -- monitoring: Datadog, Sentry, New Relic, Grafana, PagerDuty, Splunk ----------------------

_v = _hex("datadog-api", 32)
_add(
    "monitoring/datadog-api-key",
    f'DD_API_KEY={_v} DD_SITE=datadoghq.eu bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
    _v,
)
_v = _hex("datadog-app", 40)
_add(
    "monitoring/datadog-app-key",
    f"curl -H 'DD-API-KEY: ${{DD_API_KEY}}' -H 'DD-APPLICATION-KEY: {_v}' https://api.datadoghq.com/api/v1/dashboard",
    _v,
)
_v = "sntryu_" + _hex("sentry-user", 64)
_add("monitoring/sentry-auth-token", f"SENTRY_AUTH_TOKEN={_v} sentry-cli releases new 2.4.1", _v)
_v = "NRAK-" + _upper("newrelic-user", 27)
_add("monitoring/newrelic-user-key", f"curl https://api.newrelic.com/graphql -H 'API-Key: {_v}'", _v)
_v = _hex("newrelic-license", 36) + "NRAL"
_add("monitoring/newrelic-license-key", f"newrelic:\n  license_key: {_v}\n  app_name: checkout", _v)
_v = "glsa_" + _alnum("grafana-sa", 32) + "_" + _hex("grafana-sa-crc", 8)
_add("monitoring/grafana-service-account", f"GRAFANA_TOKEN={_v}", _v)
_v = "glc_" + _b64("grafana-cloud", 60).rstrip("=")
_add("monitoring/grafana-cloud-token", f'grafana_cloud_api_key = "{_v}"', _v)
_v = "u+" + _b64url("pagerduty", 18)
_add(
    "monitoring/pagerduty-api-token",
    f"curl -H 'Authorization: Token token={_v}' https://api.pagerduty.com/incidents",
    _v,
)
_v = _uuid("splunk-hec")
_add(
    "monitoring/splunk-hec-token",
    f'curl -k https://splunk.acme.io:8088/services/collector -H "Authorization: Splunk {_v}" -d \'{{"event":"hi"}}\'',
    _v,
)
_v = _url_pw("prom-remote", 22)
_add(
    "monitoring/prometheus-remote-write",
    f"remote_write:\n  - url: https://prometheus-prod-10.grafana.net/api/prom/push\n    basic_auth:\n"
    f"      username: 1234567\n      password: {_v}",
    _v,
)
_v = _hex("rollbar", 32)
_add("monitoring/rollbar-token", f"Rollbar.configure({{ accessToken: '{_v}', captureUncaught: true }});", _v)

# -- dsn: database and queue URLs and connection strings -----------------------------------------

_v = _url_pw("dsn-postgres")
_add("dsn/postgres-url", f"DATABASE_URL=postgres://app_user:{_v}@db.acme.internal:5432/app_production", _v)
_v = _url_pw("dsn-mysql")
_add("dsn/mysql-url", f"engine = create_engine('mysql+pymysql://root:{_v}@127.0.0.1:3306/analytics')", _v)
_v = _url_pw("dsn-mongo")
_add(
    "dsn/mongodb-srv",
    f"MONGO_URI=mongodb+srv://appUser:{_v}@cluster0.x7k2p.mongodb.net/prod?retryWrites=true&w=majority",
    _v,
)
_v = _url_pw("dsn-redis")
_add("dsn/redis-url-password-only", f"REDIS_URL=redis://:{_v}@redis-master.cache.svc:6379/0", _v)
_v = _alnum("dsn-upstash", 34)
_add("dsn/rediss-upstash", f"rediss://default:{_v}@eu1-lucky-gull-38211.upstash.io:6379", _v)
_v = _url_pw("dsn-amqp")
_add("dsn/amqp-url", f"CELERY_BROKER_URL = 'amqp://celery:{_v}@rabbitmq:5672/prod'", _v)
_v = _url_pw("dsn-jdbc")
_add("dsn/jdbc-password-param", f"jdbc:postgresql://pg.acme.io:5432/ledger?user=ledger&password={_v}&ssl=true", _v)
_v = _pw("dsn-mssql")
_add(
    "dsn/sqlserver-connection-string",
    f"Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=crm;User ID=crmadmin;Password={_v};Encrypt=True;",
    _v,
)
_v = _url_pw("dsn-oracle")
_add("dsn/oracle-sqlplus", f"sqlplus scott/{_v}@//oradb01.acme.internal:1521/ORCLPDB1", _v)
_v = _url_pw("dsn-kafka")
_add(
    "dsn/kafka-sasl-jaas",
    "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
    f'required username="{_upper("kafka-user", 16)}" password="{_v}";',
    _v,
)
_v = _url_pw("dsn-elastic")
_add(
    "dsn/elasticsearch-url",
    f"es = Elasticsearch('https://elastic:{_v}@es01.acme.internal:9200', verify_certs=False)",
    _v,
)
_v = _url_pw("dsn-snowflake")
_add("dsn/snowflake-url", f"snowflake://etl_user:{_v}@xy12345.eu-central-1/analytics/public?warehouse=etl_wh", _v)
_v = _url_pw("dsn-pgpassword")
_add("dsn/pgpassword-env", f"PGPASSWORD={_v} psql -h 10.0.0.5 -U postgres -d reporting -c 'select 1'", _v)
_v = _url_pw("dsn-clickhouse")
_add(
    "dsn/clickhouse-client",
    f"clickhouse-client --host ch.acme.internal --user default --password {_v} --query 'SHOW TABLES'",
    _v,
)
_v = _url_pw("dsn-neo4j")
_add("dsn/neo4j-auth", f"docker run -p 7474:7474 -p 7687:7687 -e NEO4J_AUTH=neo4j/{_v} neo4j:5", _v)

# -- http: request headers, cookies, query strings ----------------------------------------------

_v = _b64url("http-bearer", 40)
_add(
    "http/authorization-bearer",
    f"GET /v1/accounts HTTP/1.1\nHost: api.acme.io\nAuthorization: Bearer {_v}\nAccept: */*",
    _v,
)
_v = _b64_of("svc-reports:" + _url_pw("http-basic"))
_add("http/authorization-basic", f"curl -H 'Authorization: Basic {_v}' https://jira.acme.io/rest/api/2/search", _v)
_v = _hex("http-token", 40)
_add("http/authorization-token", f"requests.get(url, headers={{'Authorization': 'Token {_v}'}})", _v)
_v = _alnum("http-xapikey", 32)
_add("http/x-api-key", f'curl https://api.weatherstack.io/current -H "X-API-Key: {_v}"', _v)
_v = _lower("http-sessionid", 32)
_add("http/cookie-session", f"Cookie: sessionid={_v}; csrftoken={_alnum('http-csrf', 32)}; theme=dark", _v)
_v = "s%3A" + _b64url("http-connect-sid", 32) + "." + _b64url("http-connect-sig", 43)
_add("http/set-cookie-session", f"Set-Cookie: connect.sid={_v}; Path=/; HttpOnly; Secure", _v[4:])
_v = _alnum("http-query-key", 32)
_add(
    "http/api-key-in-access-log",
    f'10.0.4.2 - - [27/Nov/2026:10:01:02 +0000] "GET /api/v2/forecast?city=Berlin&api_key={_v} HTTP/1.1" 200 512',
    _v,
)
_v = _b64_of("proxyuser:" + _url_pw("http-proxy"))
_add("http/proxy-authorization", f"Proxy-Authorization: Basic {_v}", _v)
_v = _url_pw("http-proxy-url")
_add("http/proxy-env-url", f"export HTTPS_PROXY=http://jdoe:{_v}@proxy.corp.acme.com:3128", _v)
_v = _jwt("http-jwt", {"sub": "user_7781", "scope": "orders:write", "exp": 1795000000})
_add(
    "http/jwt-access-token",
    f"fetch('/api/orders', {{ headers: {{ Authorization: `Bearer {_v}` }} }})",
    _v.rsplit(".", 1)[1],
)

# -- keys: private keys, key files, signing secrets -----------------------------------------------

_v, _n = _pem("RSA PRIVATE KEY", "rsa-pem", b"0\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00")
_add("keys/rsa-private-key", f"$ cat deploy_key.pem\n{_v}", _n)
_v, _n = _pem("OPENSSH PRIVATE KEY", "openssh", b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none", 380)
_add("keys/openssh-private-key", f"here's the key I use for the bastion:\n\n{_v}\n", _n)
_v, _n = _pem("EC PRIVATE KEY", "ec-pem", b"0w\x02\x01\x01\x04 ", 90)
_add("keys/ec-private-key", _v, _n)
_cert, _ = _pem("CERTIFICATE", "bundle-cert", b"0\x82\x03", 700)
_v, _n = _pem("PRIVATE KEY", "bundle-key", b"0\x82\x04\xbd\x02\x01\x00", 600)
_add("keys/pem-bundle-cert-then-key", f"# tls.pem\n{_cert}\n{_v}", _n)
_v, _n = _pem("ENCRYPTED PRIVATE KEY", "enc-pem", b"0\x82\x05\x16", 700)
_add("keys/encrypted-private-key", _v, _n)
_v, _n = _pem("PGP PRIVATE KEY BLOCK", "pgp", b"\x95\x03\xc6\x04", 800)
_add("keys/pgp-private-key-block", _v.replace("BLOCK-----\n", "BLOCK-----\n\n", 1), _n)
_v = _b64("putty", 48)
_add(
    "keys/putty-ppk",
    f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20261127\nPublic-Lines: 2\n"
    f"{_b64('putty-pub', 48)}\n{_b64('putty-pub2', 12)}\nKey-Derivation: none\nPrivate-Lines: 1\n{_v}\n"
    f"Private-MAC: {_hex('putty-mac', 64)}",
    _v,
)
_v = "AGE-SECRET-KEY-1" + _pick("age", 58, _BASE32.upper().replace("B", "Q").replace("I", "X").replace("O", "Y"))
_add(
    "keys/age-secret-key",
    f"# created: 2026-11-27T10:00:00Z\n# public key: age1{_pick('age-pub', 58, _BASE32)}\n{_v}",
    _v,
)
_v = _b64("wireguard", 32)
_add(
    "keys/wireguard-private-key",
    f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {_v}\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = {_b64('wg-pub', 32)}",
    _v,
)
_v = "0x" + _hex("eth-key", 64)
_add("keys/ethereum-private-key", f"// hardhat.config.js\naccounts: ['{_v}'],", _v[2:])
_v = _b64("jwt-secret", 48)
_add("keys/jwt-signing-secret", f"JWT_SECRET={_v}\nJWT_EXPIRES_IN=15m", _v)
_v = _url_pw("pkcs12-pass")
_add(
    "keys/openssl-passout",
    f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{_v}",
    _v,
)
_v = "sk_" + _hex("ed25519-seed", 64)
_add("keys/libsodium-seed-hex", f"SIGNING_KEY_SEED={_v}", _v)

# -- oauth: client secrets, refresh and access tokens ------------------------------------------

_v = "GOCSPX-" + _b64url("google-client-secret", 28)
_add(
    "oauth/google-client-secret-json",
    json.dumps(
        {
            "installed": {
                "client_id": f"{_digits('g-cid', 12)}-{_lower('g-cid2', 32)}.apps.googleusercontent.com",
                "project_id": "acme-desktop",
                "client_secret": _v,
                "redirect_uris": ["http://localhost"],
            }
        }
    ),
    _v,
)
_v = "1//0" + _b64url("google-refresh", 99)
_add(
    "oauth/google-refresh-token",
    f'{{"access_token": "ya29.{_b64url("google-access", 150)}", "expires_in": 3599, "refresh_token": "{_v}", "scope": "https://www.googleapis.com/auth/drive"}}',
    _v,
)
_v = "ya29." + _b64url("google-access-url", 160)
_add(
    "oauth/access-token-in-redirect",
    f"http://localhost:8080/callback#access_token={_v}&token_type=Bearer&expires_in=3599",
    _v,
)
_v = _b64url("oauth-generic-secret", 40)
_add(
    "oauth/token-request-client-secret",
    f"curl -X POST https://login.microsoftonline.com/{_uuid('ms-tenant')}/oauth2/v2.0/token "
    f"-d 'grant_type=client_credentials&client_id={_uuid('ms-client')}&client_secret={_v}&scope=https://graph.microsoft.com/.default'",
    _v,
)
_v = "00" + _b64url("okta", 40)
_add("oauth/okta-api-token", f"curl -H 'Authorization: SSWS {_v}' https://acme.okta.com/api/v1/users", _v)
_v = _b64url("auth0-secret", 64)
_add(
    "oauth/auth0-client-secret",
    f"AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID={_alnum('auth0-id', 32)}\nAUTH0_CLIENT_SECRET={_v}",
    _v,
)
_v = _hex("fb-app-secret", 32)
_add("oauth/facebook-app-secret", f"FACEBOOK_APP_ID={_digits('fb-app', 16)}\nFACEBOOK_APP_SECRET={_v}", _v)
_v = "EAAB" + _alnum("fb-access", 180)
_add("oauth/facebook-access-token", f"https://graph.facebook.com/v19.0/me/accounts?access_token={_v}", _v)
_v = "sl.B" + _b64url("dropbox", 136)
_add("oauth/dropbox-token", f"dbx = dropbox.Dropbox('{_v}')", _v)
_v = "AAAAAAAAAAAAAAAAAAAAA" + _alnum("twitter-a", 30) + "%3D" + _alnum("twitter-b", 50)
_add("oauth/twitter-bearer", f"TWITTER_BEARER_TOKEN={_v}", _v[21:])
_v = _b64url("refresh-generic", 64)
_add(
    "oauth/refresh-token-json-response",
    f'< HTTP/2 200\n{{"token_type":"Bearer","access_token":"{_b64url("generic-access", 48)}","refresh_token":"{_v}","expires_in":3600}}',
    _v,
)

# -- shell: pasted history and one-liners -------------------------------------------------------

_v = _url_pw("sh-mysql")
_add("shell/mysql-p-flag", f"  501  mysql -u root -p{_v} -h 127.0.0.1 shop < dump.sql", _v)
_v = _pw("sh-sshpass")
_add("shell/sshpass", f"sshpass -p '{_v}' ssh -o StrictHostKeyChecking=no root@10.0.0.44 'systemctl restart nginx'", _v)
_v = _word_pw("sh-htpasswd")
_add("shell/htpasswd", f"htpasswd -b -c /etc/nginx/.htpasswd admin '{_v}'", _v)
_v = _url_pw("sh-curl-u")
_add("shell/curl-user", f"curl -u admin:{_v} -X DELETE http://localhost:15672/api/queues/%2F/dead-letters", _v)
_v = _word_pw("sh-sudo")
_add("shell/sudo-stdin", f"echo '{_v}' | sudo -S apt-get install -y postgresql-client", _v)
_v = _url_pw("sh-redis-cli")
_add("shell/redis-cli-a", f"redis-cli -h cache.internal -a {_v} --no-auth-warning INFO memory", _v)
_v = _url_pw("sh-mongo")
_add("shell/mongosh-password", f"mongosh --host rs0/mongo1:27017 -u admin -p {_v} --authenticationDatabase admin", _v)
_v = _word_pw("sh-useradd")
_add("shell/chpasswd", f"echo 'deploy:{_v}' | chpasswd", _v)
_v = _url_pw("sh-openssl-k")
_add("shell/openssl-enc-pass", f"openssl enc -aes-256-cbc -salt -in backup.tar -out backup.tar.enc -pass pass:{_v}", _v)
_v = _url_pw("sh-rabbitmqctl")
_add(
    "shell/rabbitmqctl-add-user", f"rabbitmqctl add_user orders {_v} && rabbitmqctl set_user_tags orders management", _v
)
_v = _url_pw("sh-smbclient")
_add("shell/mount-cifs", f"sudo mount -t cifs //nas/share /mnt/nas -o username=backup,password={_v},vers=3.0", _v)
_v = _pw("sh-powershell")
_add(
    "shell/powershell-securestring",
    f'$secure = ConvertTo-SecureString "{_v}" -AsPlainText -Force\n$cred = New-Object PSCredential("ACME\\svc_build", $secure)',
    _v,
)

# -- prose: credentials in plain sentences --------------------------------------------------------

_v = _word_pw("prose-pw-is")
_add("prose/pw-is", f"the staging db pw is {_v} if you need to poke at it", _v)
_v = _pw("prose-pass-colon")
_add("prose/pass-colon", f"box: build-07.acme.lan\nuser: jenkins\npass: {_v}", _v)
_v = _word_pw("prose-creds-are")
_add("prose/creds-are", f"creds are admin / {_v} for the grafana on :3000", _v)
_v = _url_pw("prose-login-slash")
_add("prose/login-slash", f"you can login admin/{_v} on the router UI, it's 192.168.1.1", _v)
_v = _alnum("prose-key-is", 32)
_add("prose/the-key-is", f"the key is {_v}, it's the prod one so be careful", _v)
_v = _b64url("prose-use-token", 40)
_add("prose/use-this-token", f"use this token for the API calls: {_v}", _v)
_v = _word_pw("prose-my-password")
_add("prose/my-password-for", f"My password for the VPN is {_v} — why does the client keep saying auth failed?", _v)
_v = _word_pw("prose-set-root")
_add("prose/set-root-password-to", f"I set the root password to {_v} yesterday but mysql still rejects it", _v)
_v = _pw("prose-username-password")
_add(
    "prose/username-and-password-inline",
    f"username: deploy password: {_v} — can you write the ansible task with these?",
    _v,
)
_v = "-".join(_WORDS[b % 16] for b in _bytes("prose-passphrase", 5))
_add("prose/ssh-passphrase", f"the passphrase for my ssh key is {_v}", _v)
_v = _word_pw("prose-wifi")
_add("prose/wifi", f"office wifi: AcmeGuest / {_v}", _v)
_v = _word_pw("prose-debug-login")
_add(
    "prose/debug-login-question",
    f"why does login fail for user bob with password {_v}? the hash in the db looks right",
    _v,
)
_v = _word_pw("prose-french")
_add("prose/mot-de-passe", f"le mot de passe du serveur FTP est {_v}", _v)
_v = _word_pw("prose-german")
_add("prose/passwort", f"Passwort für den Testaccount: {_v}", _v)
_v = _alnum("prose-api-key-paren", 40)
_add("prose/api-key-parenthetical", f"API key (prod): {_v}", _v)
_v = _url_pw("prose-changed-to")
_add("prose/changed-it-to", f"fyi I changed the admin password to {_v} after the incident", _v)

# -- evasion: split, quoted, escaped, encoded, hidden in other structures -------------------------

_v = "ghp_" + _alnum("ev-wrapped", 36)
_add("evasion/line-wrapped-shell", f"export GITHUB_TOKEN={_v[:18]}\\\n{_v[18:]}", _v[18:])
_v = _alnum("ev-wrapped-key", 64)
_add("evasion/wrapped-in-terminal", f"API_KEY={_v[:30]}\n{_v[30:]}\n$ ", _v[30:])
_v = _pw("ev-json-escaped")
_add(
    "evasion/json-in-json-string",
    f'{{"level":"info","msg":"loaded config","config":"{{\\"db_user\\":\\"app\\",\\"db_password\\":\\"{_v}\\"}}"}}',
    _v,
)
_v = _pick("ev-urlenc-a", 6, _ALNUM) + "@" + _pick("ev-urlenc-b", 6, _ALNUM) + "#" + _pick("ev-urlenc-c", 6, _ALNUM)
_enc = urllib.parse.quote(_v, safe="")
_add("evasion/url-encoded-password", f"postgresql://report:{_enc}@pg-replica.acme.io:5432/warehouse", _enc)
_v = "sk_live_" + _alnum("ev-concat-py", 32)
_add("evasion/python-concatenation", f'STRIPE_KEY = "sk_live_" + "{_v[8:24]}" + "{_v[24:]}"', _v[8:24])
_v = "xoxb-" + _digits("ev-js-a", 12) + "-" + _digits("ev-js-b", 13) + "-" + _alnum("ev-js-c", 24)
_add("evasion/js-concatenation", f"const token = '{_v[:18]}' +\n  '{_v[18:]}';", _v[18:])
_v = _word_pw("ev-md-table")
_add(
    "evasion/markdown-table",
    f"| env | host | user | password |\n|---|---|---|---|\n| staging | db-stg-1 | app | {_v} |\n| prod | db-1 | app | (vault) |",
    _v,
)
_v = _pw("ev-yaml-block")
_add("evasion/yaml-block-scalar", f"smtp:\n  user: alerts@acme.io\n  password: >-\n    {_v}\n  port: 465", _v)
_v = _url_pw("ev-semicolon")
_add("evasion/after-semicolon", f"cd /srv/app; export DB_PASS={_v}; ./manage.py migrate", _v)
_v = _url_pw("ev-stacktrace")
_add(
    "evasion/python-stack-trace",
    'Traceback (most recent call last):\n  File "app/db.py", line 14, in connect\n    conn = psycopg2.connect(dsn)\n'
    f'psycopg2.OperationalError: could not connect to server: "postgresql://etl:{_v}@10.2.0.8:5432/etl"',
    _v,
)
_v = _url_pw("ev-java-trace")
_add(
    "evasion/java-exception",
    "com.mongodb.MongoSecurityException: Exception authenticating MongoCredential{mechanism=SCRAM-SHA-256, "
    f"userName='orders', source='admin', password={_v}, mechanismProperties=<hidden>}}\n\tat com.mongodb.internal.connection",
    _v,
)
_v = _pw("ev-dict-repr")
_add(
    "evasion/python-dict-repr-log",
    f"DEBUG connecting with {{'host': 'db', 'user': 'svc', 'password': '{_v}', 'port': 5432}}",
    _v,
)
_v = _url_pw("ev-windows-set")
_add("evasion/windows-set", f"set DB_PASSWORD={_v} && npm run migrate", _v)
_v = "sk_live_" + _alnum("ev-markdown-code", 40)
_add("evasion/markdown-inline-code", f"the failing call used `{_v}` as the key, see screenshot", _v)
_v = _url_pw("ev-diff")
_add(
    "evasion/diff-added-line",
    f"diff --git a/.env b/.env\n--- a/.env\n+++ b/.env\n@@ -3,2 +3,2 @@\n-DB_PASSWORD=\n+DB_PASSWORD={_v}",
    _v,
)
_v = _alnum("ev-quoted-double", 40)
_add("evasion/single-quoted-json-key", f"{{'apiKey': '{_v}'}}", _v)
_v = _b64_of("ghp_" + _alnum("ev-b64-wrapped", 36))
_add("evasion/base64-of-token-env", f"GH_TOKEN_B64={_v}\necho $GH_TOKEN_B64 | base64 -d > ~/.gh_token", _v)
_v = _pw("ev-html-escaped")
_add("evasion/html-escaped-json", f"&quot;password&quot;: &quot;{_v}&quot;", _v)
_v = _url_pw("ev-xml-attr")
_add(
    "evasion/xml-attribute",
    f'<add name="Main" connectionString="Data Source=sql02;Initial Catalog=hr;User ID=hr;Password={_v}" />',
    _v,
)
_v = _pw("ev-env-inline-comment")
_add("evasion/dotenv-with-comment", f'ADMIN_PASSWORD="{_v}"  # rotate after launch', _v)


FINAL_SECRETS: list[Secret] = list(_S)


def family_of(name: str) -> str:
    """The family of a form: its name up to the first ``/``."""
    return name.split("/", 1)[0]


# -- ordinary texts: no secret in any of them, each must come back unchanged ---------------------

_HANDWRITTEN: list[str] = [
    # version control
    "commit 3f9a1c0e5b7d2a4f6c8e0b1d3f5a7c9e1b3d5f70\nAuthor: Dana Smith <dana@example.com>\nDate:   Thu Nov 26 14:02:11 2026 +0000",
    "git cherry-pick 8e1f2b7 && git push origin HEAD:release/2.4",
    "Merge pull request #4821 from acme/fix/password-reset-email",
    "git log --oneline -3\n1a2b3c4 fix: retry on 503\n5d6e7f8 feat: add token counter\n9a0b1c2 chore: bump deps",
    "git diff HEAD~1 -- src/auth/session.py",
    "git rebase -i 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "Resolving deltas: 100% (1532/1532), done.\nFrom github.com:acme/platform\n * branch            main       -> FETCH_HEAD",
    "git tag -a v3.2.0 -m 'Release 3.2.0' && git push --tags",
    "fatal: Authentication failed for 'https://github.com/acme/platform.git/'",
    "remote: Support for password authentication was removed on August 13, 2021.",
    # identifiers, digests, hashes
    "request_id=9b2f4c1e-7a3d-4e8b-9f61-2c5d8a7e3b10 status=200 duration_ms=41",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "docker pull nginx@sha256:2f1cd90e00fe2c991e18272bb35d6a8258eeb27785d121aec4ab1e18a5fb4ef6",
    "The file's MD5 is d41d8cd98f00b204e9800998ecf8427e, which is the hash of an empty file.",
    "SHA-1: da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "Build 20261127.4 (run 88213) finished in 6m 42s",
    "job id 7734119021 failed on runner ubuntu-22.04 (image version 20261118.1.0)",
    "Order ORD-2026-11-000482 shipped via tracking number 1Z999AA10123456784",
    'ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
    "integrity sha512-yW9sL3V2aQ9G1m0bO5tK0Xv1r2G3YkZ8pQ1aB4cD5eF6gH7iJ8kL9mN0oP1qR2sT3uV4wX5yZ6aB7cD8eF9gH0==",
    "object id: 6553a1f2c4e8b9d0e1f2a3b4 (MongoDB ObjectId)",
    "ULID 01HZX3K7Q8M4N5P6R7S8T9V0W1 created for the import batch",
    "Container 4c1d2e3f5a6b exited with code 137 (OOMKilled)",
    "pod/api-7f9c8d6b5-x2k4p   1/1     Running   0          3h12m",
    "Snowflake query id 01b0c2d3-0000-4a5e-0000-00012f3e4d5c took 2.3 s",
    "arn:aws:lambda:eu-west-1:123456789012:function:thumbnailer:7",
    "ami-0c55b159cbfafe1f0 is the Ubuntu 22.04 image we pin in packer",
    "subnet-0a1b2c3d4e5f67890, vpc-0f1e2d3c4b5a69788, sg-0123456789abcdef0",
    "Stripe event evt_1QxYz2AbCdEfGhIj3KlMnOpQ of type invoice.paid",
    "charge ch_3PqRsTuVwXyZ0123 refunded (re_3PqRsTuVwXyZ4567)",
    "customer cus_QwErTy123456 upgraded to price_1PabcDEFghiJKL",
    # base64 of ordinary data
    "echo aGVsbG8gd29ybGQ= | base64 -d   # prints hello world",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "Content-Transfer-Encoding: base64\n\nVGhhbmtzIGZvciB5b3VyIG9yZGVyIQ==",
    # URLs without credentials
    "https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe",
    "See https://github.com/acme/platform/blob/main/docs/auth.md#rotating-keys for the rotation runbook.",
    "https://api.acme.io/v2/users?page=3&per_page=50&sort=created_at",
    "postgres://db.acme.internal:5432/app_production (credentials come from Vault)",
    "redis://localhost:6379/0",
    "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
    "wss://stream.acme.io/v1/events?channel=deploys",
    "https://accounts.google.com/o/oauth2/v2/auth?response_type=code&client_id=${GOOGLE_CLIENT_ID}&redirect_uri=http://localhost:8080/callback&scope=openid%20email",
    "mongodb://localhost:27017/test",
    "http://user@localhost:8000/ (no password, the dev server trusts loopback)",
    # env var names and placeholders
    "export GITHUB_TOKEN=${GITHUB_TOKEN:?set it in your shell profile}",
    "Set OPENAI_API_KEY in your environment before running the examples.",
    "DB_PASSWORD=<your-password>\nDB_USER=<your-user>",
    "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}",
    'curl -H "Authorization: Bearer $API_TOKEN" https://api.acme.io/v1/me',
    'docker run -e POSTGRES_PASSWORD="$POSTGRES_PASSWORD" postgres:16',
    "password: {{ vault_db_password }}",
    'api_key = os.environ["WEATHER_API_KEY"]',
    "const secret = process.env.JWT_SECRET ?? throwMissing('JWT_SECRET');",
    "spring.datasource.password=${DB_PASSWORD}",
    "kubectl create secret generic db-creds --from-env-file=.env.prod",
    "aws_secret_access_key = <redacted by the user>",
    "Authorization: Bearer <token>",
    "SENTRY_DSN=  # leave empty to disable error reporting",
    "ANTHROPIC_API_KEY is read by the SDK automatically; do not hard-code it.",
    "helm upgrade api ./chart --set image.tag=3.2.0 --set-file tls.crt=./certs/tls.crt",
    "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))",
    "ansible-vault encrypt group_vars/prod/vault.yml",
    "The token is stored in the OS keychain under service name 'acme-cli'.",
    # config keys and numbers
    "max_password_length = 64\nmin_password_length = 12\npassword_history = 5",
    "token_budget: 8000\nmax_output_tokens: 1024",
    "Used 15,234 prompt tokens and 1,022 completion tokens.",
    "session_timeout_minutes = 30\nremember_me_days = 14",
    "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
    "jwt:\n  algorithm: RS256\n  access_ttl: 900\n  refresh_ttl: 1209600",
    "rate_limit:\n  requests_per_minute: 600\n  burst: 100",
    "key_rotation_days: 90\nsecret_store: aws-secrets-manager",
    "color: #1e90ff; background: #fafafa; border-color: #ff6347;",
    "--primary: #4f46e5;\n--secondary: #0ea5e9;",
    'version = "3.11.7"\nrequires-python = ">=3.11"',
    "numpy==1.26.4\npandas==2.2.2\nscikit-learn==1.5.0",
    "Node v20.11.1, npm 10.2.4, pnpm 9.1.0",
    "go 1.22.3\nrequire github.com/jackc/pgx/v5 v5.5.5",
    'terraform {\n  required_version = ">= 1.6.0"\n}',
    # code with key/secret/password in names
    "def rotate_api_key(user_id: int) -> str:\n    return secrets.token_urlsafe(32)",
    "def validate_password_strength(password: str) -> bool:\n    return len(password) >= 12 and any(c.isdigit() for c in password)",
    "class SecretManagerClient:\n    def get_secret(self, name: str) -> str: ...",
    "function resetPassword(email) {\n  return api.post('/auth/reset', { email });\n}",
    "if (!isValidApiKey(req.headers['x-api-key'])) return res.status(401).end();",
    'private String passwordEncoderBean() { return "bcrypt"; }',
    "token = tokenizer.encode(text)\nprint(len(token))",
    "keys = sorted(d.keys(), key=str.lower)",
    'for key, value in settings.items():\n    print(f"{key}={value!r}")',
    "func (s *Store) DeleteToken(ctx context.Context, id string) error {",
    "@pytest.fixture\ndef fake_secret_store(tmp_path): ...",
    "SELECT id, email, password_reset_sent_at FROM users WHERE password_reset_sent_at < now() - interval '1 day';",
    "ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;",
    "CREATE INDEX idx_tokens_user_id ON refresh_tokens (user_id);",
    "type AuthConfig = { tokenUrl: string; clientId: string; scopes: string[] };",
    "expect(screen.getByLabelText('Password')).toBeInTheDocument();",
    '<input type="password" name="password" autocomplete="current-password" required>',
    'resource "aws_secretsmanager_secret" "db" {\n  name = "prod/db"\n}',
    "valueFrom:\n  secretKeyRef:\n    name: db-creds\n    key: password",
    'password = getpass.getpass("Password: ")',
    "const token = await getAccessTokenSilently();",
    'let apiKey = Bundle.main.object(forInfoDictionaryKey: "API_KEY") as? String',
    # error messages and logs
    'psycopg2.OperationalError: FATAL:  password authentication failed for user "app"',
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    "401 Unauthorized: invalid api key provided",
    "Error: The security token included in the request is expired",
    "WARN  [auth] login failed for user=alice ip=10.0.3.7 reason=bad_password attempts=3",
    "2026-11-27T10:14:03.221Z INFO  http GET /healthz 200 1.2ms req=01HZX4A9B2C3D4E5F6G7H8J9K0",
    "E1127 10:12:44.123456   1 reflector.go:138] failed to list *v1.Secret: secrets is forbidden",
    'npm ERR! code E401\nnpm ERR! Unable to authenticate, need: Basic realm="GitHub Package Registry"',
    "Traceback (most recent call last):\n  File \"main.py\", line 3, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'",
    'java.lang.NullPointerException: Cannot invoke "String.length()" because "password" is null',
    "ssh: connect to host 10.0.0.44 port 22: Connection timed out",
    "Permission denied (publickey).",
    "x509: certificate signed by unknown authority",
    "TLS handshake timeout after 10s (peer 52.12.33.10:443)",
    "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a5b6c]",
    "Killed process 28113 (java) total-vm:8123456kB, anon-rss:4012345kB",
    "[2026-11-27 10:00:01] production.ERROR: SQLSTATE[HY000] [2002] Connection refused",
    "Rate limit exceeded: 5000 requests per hour. Resets at 2026-11-27T11:00:00Z.",
    "TypeError: Cannot read properties of undefined (reading 'token')",
    # public keys and certificates metadata
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dana@laptop",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq4cJ7m1XzR5n2p6YbWcP0yY3kq7rW8y1\n-----END PUBLIC KEY-----",
    "Fingerprint: SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "Certificate serial number: 04:00:00:00:00:01:15:4b:5a:c3:94\nNot After : Mar 14 23:59:59 2027 GMT",
    "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p is the recipient for the backup files",
    "pub   rsa4096 2024-01-15 [SC]\n      3AA5C34371567BD2\nuid   Dana Smith <dana@example.com>",
    # prose mentioning passwords and keys
    "We should never log the password field; mask it before calling logger.info.",
    "Rotate the API keys every 90 days and store them in the secrets manager.",
    "The password reset email expires after 30 minutes.",
    "Can you add a 'forgot password' link under the login form?",
    "The refresh token lives longer than the access token; revoke both on logout.",
    "Use a passphrase of at least four random words for the ssh key.",
    "Keys are derived with HKDF-SHA256 from the master key in the HSM.",
    "I removed the hard-coded token from config.js and moved it to the .env file (not committed).",
    "OAuth client credentials flow: the service exchanges its client id and secret for a token.",
    "The secret scanner flagged a test fixture, but it only contains the word 'password'.",
    "Our password policy requires 12 characters, one digit and one symbol.",
    "She typed her password wrong three times and the account got locked.",
    "Tokens are counted with tiktoken's cl100k_base encoding.",
    "Where should the signing key live — KMS or Vault?",
    "the key insight is that the cache key includes the tenant id",
    "Please use the password manager's shared vault instead of Slack for credentials.",
    # misc developer text
    "pytest -q tests/unit -k 'password and not slow' --maxfail=1",
    "make build && ./bin/server --port 8080 --log-level debug",
    "npm install --save-dev @types/jsonwebtoken@9.0.6",
    "pip install 'cryptography>=42.0' 'pyjwt[crypto]==2.8.0'",
    "kubectl get secrets -n prod -o name",
    "kubectl rollout restart deployment/api -n prod",
    "terraform plan -var-file=prod.tfvars -out=tfplan",
    "docker compose up -d --build web worker",
    "ssh -i ~/.ssh/id_ed25519 deploy@bastion.acme.io",
    "openssl req -new -newkey rsa:4096 -nodes -keyout server.key -out server.csr",
    "gpg --armor --export dana@example.com > dana.pub.asc",
    "aws s3 cp s3://acme-build-artifacts/releases/3.2.0/app.tar.gz .",
    "gcloud auth application-default login",
    "az login --use-device-code",
    "vault kv get -field=password secret/prod/db",
    "htpasswd -c /etc/nginx/.htpasswd admin   # prompts for the password",
    "ab -n 1000 -c 50 https://staging.acme.io/api/health",
    "SELECT count(*) FROM sessions WHERE expires_at > now();",
    "UPDATE users SET password_changed_at = now() WHERE id = 42;",
    "cron: '0 3 * * 1'  # every Monday at 03:00 UTC",
    "| env | host | user | password |\n|---|---|---|---|\n| staging | db-stg-1 | app | (in vault) |",
    "GET /api/v1/tokens?page=2 HTTP/1.1\nHost: api.acme.io\nAccept: application/json",
    "X-Request-Id: 5f0c2a9e-1b7d-4c3e-8a6f-9d2e1c0b7a64",
    "Cache-Control: no-store\nPragma: no-cache",
    "Set-Cookie: theme=dark; Path=/; SameSite=Lax",
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "ISBN 978-0-13-468599-1, DOI 10.1145/3477132.3483540",
    "The build matrix runs python 3.11, 3.12 and 3.13 on ubuntu-latest and macos-14.",
    "Latency p50=12ms p95=48ms p99=131ms over 1,204,332 requests.",
    "IPv6 2001:db8:85a3::8a2e:370:7334 and IPv4 203.0.113.42 are documentation ranges.",
]


def _generated_ordinary() -> list[str]:
    """Ordinary texts built from seeded values: hashes, ids and digests in their usual places."""
    out: list[str] = []
    for i in range(8):
        sha = _hex(f"ord-sha-{i}", 40)
        out.append(
            f"{sha[:7]} {['fix', 'feat', 'chore', 'docs', 'refactor', 'test', 'perf', 'ci'][i]}: update module {i} ({sha})"
        )
    for i in range(6):
        out.append(f"image: ghcr.io/acme/service-{i}@sha256:{_hex(f'ord-digest-{i}', 64)}")
    for i in range(6):
        out.append(
            f'2026-11-27T09:{10 + i}:00Z level=info msg="job done" job_id={_uuid(f"ord-job-{i}")} took={i + 1}.{i}s'
        )
    for i in range(4):
        out.append(f"Content-MD5 of part {i + 1}: {_hex(f'ord-md5-{i}', 32)}")
    for i in range(4):
        out.append(f"https://github.com/acme/platform/commit/{_hex(f'ord-url-sha-{i}', 40)}")
    return out


FINAL_ORDINARY: list[str] = _HANDWRITTEN + _generated_ordinary()
