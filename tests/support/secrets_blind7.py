"""Seventh held-out secrets corpus, written blind for issue 36.

Its author read none of the redaction rules, none of the earlier corpora and none of their tests;
only the ``Secret`` structure, the ``family_of`` helper and the head of ``secrets_blind6`` (for its
format), and the blind6 test (for the entry point, ``kernel.privacy.redact``, and its checks).  It
must never be used to tune rules: a rule written to catch one of these forms makes the figure it
gives meaningless.  Its tests only measure, and they report misses by category only.

The forms come from where secrets turn up in coding-assistant conversations: shell history, CI
logs, stack traces that echo configuration, notebook output, SQL dumps, HTTP dumps, mobile and
infrastructure configuration, password-manager output, connection URLs, Windows and macOS
credential commands, package-manager configuration, container and cluster configuration, private
key blocks, tokens of many vendors, and passwords told in prose, in several languages, or split
across lines.  Every value is made up from a deterministic hashlib stream seeded with ``blind7:``,
with the prefixes, lengths and character sets of the real formats, or written by hand; none is a
live credential.  The ordinary texts contain no secret but sit near them (commit hashes, UUIDs,
checksums, base64 of non-secret data, placeholders, the words password, token, secret and key used
innocently): a good redactor leaves them unchanged.
"""

from __future__ import annotations

import base64
import json

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_ALNUM = ALNUM
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_B64URL = _ALNUM + "-_"
_DIGITS = "0123456789"
_BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


_DRAW = SeededDraw("blind7")
_s = _DRAW.chars


def _hex(seed: str, n: int) -> str:
    return _s(seed, n, _HEX)


_bytes = _DRAW.raw

_b64 = _DRAW.b64

_b64u = b64url_text


def _uuid(seed: str) -> str:
    h = _hex(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _jwt(seed: str, claims: dict[str, object], alg: str = "HS256") -> str:
    header = _b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")))
    payload = _b64u(json.dumps(claims, separators=(",", ":")))
    signature = _s(f"{seed}:sig", 86 if alg.startswith("RS") else 43, _B64URL)
    return f"{header}.{payload}.{signature}"


def _pem_lines(seed: str, n_lines: int, head: str = "") -> list[str]:
    body = head + _b64(seed, n_lines * 48)
    return [body[i : i + 64] for i in range(0, n_lines * 64, 64)]


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def _secrets() -> list[Secret]:
    out: list[Secret] = []

    def add(name: str, text: str, needle: str) -> None:
        out.append(Secret(name=name, text=text, needle=needle))

    # --- shell history -------------------------------------------------------------------------
    v = "sk_live_" + _s("sh-stripe", 24)
    add("shell/history_export_stripe", f"  512  export STRIPE_SECRET_KEY={v}\n  513  npm run dev", v)
    add(
        "shell/curl_user_colon_password",
        "here's what I ran: `curl -u admin:Pl4typus-Rainfall https://jenkins.internal.example.net/api/json?pretty=true`",
        "Pl4typus-Rainfall",
    )
    add(
        "shell/mysql_dash_p_glued",
        "$ mysql -h db-prod.internal -u root -pQuartzLantern77 shop_production\nERROR 1045 (28000): Access denied",
        "QuartzLantern77",
    )
    add(
        "shell/pgpassword_inline",
        "PGPASSWORD='v3lvet#Harbor' psql -h 10.0.3.4 -U app -d orders -c '\\dt'",
        "v3lvet#Harbor",
    )
    add(
        "shell/sshpass",
        "sshpass -p 'Mont@gne2024!' ssh -o StrictHostKeyChecking=no deploy@203.0.113.10",
        "Mont@gne2024!",
    )
    add("shell/htpasswd_batch", "RUN htpasswd -b -c /etc/nginx/.htpasswd editor Saffron_Kite_88", "Saffron_Kite_88")
    v = _s("sh-redis", 16)
    add("shell/redis_cli_auth", f"redis-cli -h cache.local -p 6380 -a {v} --no-auth-warning ping\nPONG", v)
    v = "dckr_pat_" + _s("sh-dockerhub", 27, _B64URL)
    add("shell/docker_login_pat", f"docker login -u ci-bot -p {v} && docker push acme/api:1.4.2", v)
    v = "hvs." + _s("sh-vault", 24)
    add("shell/vault_login_token", f"$ vault login {v}\nSuccess! You are now authenticated.", v)
    v = _hex("sh-skb", 128)
    add("shell/heroku_config_set", f"heroku config:set SECRET_KEY_BASE={v} -a shop-staging", v)
    v = "sk-proj-" + _s("sh-openai", 48, _B64URL) + "T3BlbkFJ" + _s("sh-openai2", 48, _B64URL)
    add("shell/fish_history", f"- cmd: set -gx OPENAI_API_KEY {v}\n  when: 1732700211", v)
    v = "gsk_" + _s("sh-groq", 52)
    add("shell/zsh_extended_history", f": 1732700000:0;export GROQ_API_KEY={v}\n: 1732700012:0;python agent.py", v)
    add(
        "shell/openssl_enc_pass",
        "openssl enc -aes-256-cbc -pbkdf2 -k 'Corvid!Ledger19' -in backup.tar -out backup.tar.enc",
        "Corvid!Ledger19",
    )
    add(
        "shell/wget_password",
        "wget --user=build --password='Tamarind&Slate5' https://artifacts.internal.example.net/releases/app-2.1.0.tgz",
        "Tamarind&Slate5",
    )
    add(
        "shell/env_prefix_command",
        "DB_PASSWORD=Juniper.Forge.81 DB_USER=svc ./manage.py migrate --settings=prod",
        "Juniper.Forge.81",
    )

    # --- CI logs -------------------------------------------------------------------------------
    v = "ghs_" + _s("ci-ghs", 36)
    add(
        "ci/actions_echo_unmasked",
        f'Run echo "pushing with token {v}"\n  echo "pushing with token {v}"\n  shell: /usr/bin/bash -e {{0}}',
        v,
    )
    v = "glpat-" + _s("ci-glpat", 20, _B64URL)
    add(
        "ci/gitlab_job_curl_header",
        f'$ curl --fail --header "PRIVATE-TOKEN: {v}" "$CI_API_V4_URL/projects/42/releases"',
        v,
    )
    v = "npm_" + _s("ci-npm", 36)
    add(
        "ci/circleci_env_dump",
        f"#!/bin/bash -eo pipefail\nenv | sort\nHOME=/home/circleci\nNPM_TOKEN={v}\nPATH=/usr/local/bin",
        v,
    )
    v = _s("ci-aws-secret", 40, _ALNUM + "/+")
    add("ci/jenkins_aws_configure", f"[Pipeline] sh\n+ aws configure set aws_secret_access_key {v} --profile deploy", v)
    v = "squ_" + _hex("ci-sonar", 40)
    add("ci/travis_sonar_token", f"Setting environment variables from repository settings\n$ export SONAR_TOKEN={v}", v)
    v = _s("ci-azsecret-a", 3, _ALNUM) + "8Q~" + _s("ci-azsecret-b", 31, _ALNUM + "_~.-")
    add("ci/azure_pipelines_debug", f"##[debug]Evaluating: variables['ARM_CLIENT_SECRET']\n##[debug]Result: '{v}'", v)
    v = _uuid("ci-codecov")
    add("ci/buildkite_codecov", f"~~~ :codecov: Uploading coverage\n$ ./codecov -t {v} -f coverage.xml", v)
    v = "dop_v1_" + _hex("ci-do", 64)
    add("ci/github_actions_with_block", f"    with:\n      token: {v}\n      cluster: prod-ams3", v)

    # --- stack traces that echo configuration -------------------------------------------------
    add(
        "trace/python_settings_frame",
        "  File \"/app/config/settings.py\", line 41, in <module>\n    DATABASES['default'] = {'ENGINE': 'django.db.backends.postgresql', 'USER': 'web', 'PASSWORD': 'Ember-Lattice-31', 'HOST': 'db'}\nKeyError: 'NAME'",
        "Ember-Lattice-31",
    )
    add(
        "trace/spring_bind_failure",
        '***************************\nAPPLICATION FAILED TO START\n***************************\nProperty: spring.datasource.password\n    Value: "Oxbow!Meadow7"\n    Origin: class path resource [application-prod.properties] - 12:28',
        "Oxbow!Meadow7",
    )
    add(
        "trace/node_amqp_config",
        "Error: connect ECONNREFUSED 172.18.0.4:5672\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {\n  config: { url: 'amqp://worker:Birch9Falcon@mq:5672/jobs' }\n}",
        "Birch9Falcon",
    )
    v = _s("tr-redis", 24)
    add(
        "trace/go_panic_redis_url",
        f"panic: dial tcp: lookup redis on 127.0.0.11:53: no such host (url=redis://:{v}@redis:6379/0)\n\ngoroutine 1 [running]:",
        v,
    )
    v = "django-insecure-" + _s("tr-django", 50, "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)")
    add(
        "trace/django_debug_settings",
        f"Settings\nSetting\tValue\nDEBUG\tTrue\nSECRET_KEY\t'{v}'\nALLOWED_HOSTS\t['*']",
        v,
    )
    v = _jwt("tr-axios", {"sub": "42", "role": "admin", "exp": 1764300000})
    add(
        "trace/axios_error_headers",
        f"AxiosError: Request failed with status code 403\n  config: {{\n    headers: {{ Accept: 'application/json', Authorization: 'Bearer {v}' }},\n    url: '/api/admin/users'",
        v,
    )
    v = _hex("tr-rails", 32)
    add(
        "trace/rails_master_key",
        f"ActiveSupport::MessageEncryptor::InvalidMessage (ActiveSupport::MessageEncryptor::InvalidMessage)\n# RAILS_MASTER_KEY={v} was set in the container env",
        v,
    )

    # --- notebook output ---------------------------------------------------------------------
    v = "hf_" + _s("nb-hf", 34)
    add("notebook/env_cell_output", f"In [3]: os.environ[\"HF_TOKEN\"]\nOut[3]: '{v}'", v)
    v = "sk-ant-api03-" + _s("nb-anthropic", 93, _B64URL) + "AA"
    add("notebook/print_client_key", f"print(client.api_key)\n{v}", v)
    v = _s("nb-aws", 40, _ALNUM + "/+")
    add(
        "notebook/boto_credentials_dict",
        f"Out[7]: {{'aws_access_key_id': 'AKIA{_s('nb-akia', 16, _UPPER)}', 'aws_secret_access_key': '{v}', 'region': 'eu-west-1'}}",
        v,
    )
    v = _s("nb-cohere", 40)
    add("notebook/env_magic", f"%env COHERE_API_KEY={v}\nenv: COHERE_API_KEY={v}", v)
    add(
        "notebook/dataframe_password_column",
        "   id            email          password  active\n0   1  ana@example.org  Lilac.Pebble.204    True\n1   2  bo@example.org   Sorrel-Quay-19    False",
        "Lilac.Pebble.204",
    )

    # --- SQL dumps ------------------------------------------------------------------------------
    add(
        "sql/insert_plain_password",
        "INSERT INTO users (id, email, password) VALUES (17, 'ops@example.org', 'Rhubarb!Tandem6');",
        "Rhubarb!Tandem6",
    )
    add(
        "sql/create_user_postgres",
        "CREATE USER reporting WITH LOGIN PASSWORD 'Nimbus-Orchid-52' VALID UNTIL '2027-01-01';",
        "Nimbus-Orchid-52",
    )
    add(
        "sql/alter_user_mysql",
        "ALTER USER 'etl'@'%' IDENTIFIED BY 'Gravel#Sonnet9';\nFLUSH PRIVILEGES;",
        "Gravel#Sonnet9",
    )
    v = "xoxb-" + _s("sql-slack1", 12, _DIGITS) + "-" + _s("sql-slack2", 13, _DIGITS) + "-" + _s("sql-slack3", 24)
    add("sql/copy_from_stdin", f"COPY public.integrations (id, name, token) FROM stdin;\n3\tslack\t{v}\n\\.", v)
    add(
        "sql/mssql_create_login",
        "CREATE LOGIN svc_report WITH PASSWORD = 'P3rsimmon!Gate', CHECK_POLICY = OFF;",
        "P3rsimmon!Gate",
    )
    v = "rk_live_" + _s("sql-rk", 24)
    add(
        "sql/insert_api_key",
        f"INSERT INTO `merchant_settings` VALUES (9,'stripe_restricted_key','{v}','2026-10-02 11:04:19');",
        v,
    )
    add("sql/set_password_for", "SET PASSWORD FOR 'backup'@'localhost' = 'Wicker_Anvil_73';", "Wicker_Anvil_73")

    # --- HTTP dumps -----------------------------------------------------------------------------
    v = _basic("sk_live_" + _s("http-stripe", 24), "")
    add(
        "http/curl_verbose_basic",
        f"> GET /v1/charges?limit=3 HTTP/2\n> Host: api.stripe.com\n> authorization: Basic {v}\n> user-agent: curl/8.5.0",
        v,
    )
    v = _s("http-bearer", 40)
    add(
        "http/request_bearer_opaque",
        f"POST /v2/sync HTTP/1.1\nHost: api.example-saas.io\nAuthorization: Bearer {v}\nContent-Type: application/json",
        v,
    )
    v = _hex("http-xapikey", 32)
    add(
        "http/x_api_key_header",
        f"GET /reports/daily HTTP/1.1\r\nHost: metrics.example.net\r\nX-API-Key: {v}\r\nAccept: */*",
        v,
    )
    v = "ya29.a0AfB_" + _s("http-ya29", 140, _B64URL)
    add(
        "http/oauth_token_response",
        f'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{{"access_token": "{v}", "expires_in": 3599, "token_type": "Bearer"}}',
        v,
    )
    v = _s("http-qs", 32)
    add("http/query_string_api_key", f"GET /api/v2/export?format=csv&api_key={v}&from=2026-11-01 HTTP/1.1", v)
    add(
        "http/form_login_body",
        "POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nusername=mara&password=Cobalt%21River88&remember=1",
        "Cobalt%21River88",
    )
    v = _s("http-har", 48, _B64URL)
    add(
        "http/har_header_entry",
        f'{{"name": "X-Auth-Token", "value": "{v}"}},\n{{"name": "Accept-Language", "value": "en-GB"}}',
        v,
    )
    v = _basic("proxyuser", "Cedar&Wren-62")
    add("http/proxy_authorization", f"CONNECT pypi.org:443 HTTP/1.1\nProxy-Authorization: Basic {v}", v)
    v = _hex("http-drf", 40)
    add("http/httpie_token_header", f"$ http POST :8000/api/orders/ 'Authorization:Token {v}' sku=A-100 qty:=2", v)

    # --- mobile app configuration ---------------------------------------------------------------
    add(
        "mobile/gradle_properties_store_password",
        "# gradle.properties\nRELEASE_STORE_FILE=release.keystore\nRELEASE_STORE_PASSWORD=Kiwi$Lantern204\nRELEASE_KEY_ALIAS=upload",
        "Kiwi$Lantern204",
    )
    v = _s("mob-plist", 40)
    add("mobile/ios_plist_secret", f"\t<key>API_SECRET</key>\n\t<string>{v}</string>\n\t<key>CFBundleVersion</key>", v)
    v = "AIza" + _s("mob-firebase", 35, _B64URL)
    add(
        "mobile/google_services_json",
        f'      "api_key": [\n        {{\n          "current_key": "{v}"\n        }}\n      ],',
        v,
    )
    v = _pem_lines("mob-fb-admin", 3, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")[1]
    add(
        "mobile/firebase_admin_json",
        f'  "private_key_id": "{_hex("mob-fbid", 40)}",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n{_pem_lines("mob-fb-admin", 3, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")[0]}\\n{v}\\n...',
        v,
    )
    add(
        "mobile/fastlane_match_password",
        "# fastlane/.env\nMATCH_PASSWORD=Sprocket_Lagoon_40\nFASTLANE_USER=release@example.org",
        "Sprocket_Lagoon_40",
    )
    v = _pem_lines("mob-p8", 3, "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg")[1]
    add(
        "mobile/app_store_p8_partial",
        f"here's AuthKey_{_s('mob-kid', 10, _UPPER)}.p8:\n-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg{_pem_lines('mob-p8', 1)[0][:16]}\n{v}\n(rest cut)",
        v,
    )
    v = "sk_" + _s("mob-revenuecat", 32)
    add("mobile/dart_define_secret", f"flutter build apk --release --dart-define=REVENUECAT_SECRET={v}", v)
    v = _s("mob-expo", 40, _B64URL)
    add("mobile/expo_token_eas", f"EXPO_TOKEN={v} eas build --platform ios --non-interactive", v)

    # --- infrastructure as code -----------------------------------------------------------------
    add(
        "iac/tfvars_db_password",
        '# prod.tfvars\nregion      = "eu-central-1"\ndb_password = "Heron-Quarry-61"\ninstance    = "db.t4g.medium"',
        "Heron-Quarry-61",
    )
    v = _s("iac-cf", 40, _B64URL)
    add("iac/tfvars_cloudflare", f'cloudflare_api_token = "{v}"\nzone_id              = "{_hex("iac-zone", 32)}"', v)
    v = _s("iac-pulumi-yaml", 32)
    add(
        "iac/pulumi_stack_plain",
        f'config:\n  aws:region: us-west-2\n  shop:stripeKey: sk_test_{v}\n  shop:replicas: "3"',
        v,
    )
    add(
        "iac/ansible_become_password",
        "# group_vars/web.yml\nansible_user: deploy\nansible_become_password: Falcon^Tundra3",
        "Falcon^Tundra3",
    )
    add(
        "iac/ansible_mysql_root",
        'mysql_root_password: "Marmot-Cipher-808"\nmysql_databases:\n  - name: wiki',
        "Marmot-Cipher-808",
    )
    add(
        "iac/helm_values_postgres",
        'postgresql:\n  auth:\n    username: app\n    postgresPassword: "Lynx.Orbit.5150"\n    database: app',
        "Lynx.Orbit.5150",
    )
    v = _s("iac-helm-jwt", 48)
    add(
        "iac/helm_set_flag",
        f"helm upgrade --install api ./charts/api -n prod --set secrets.jwtSecret={v} --set image.tag=2.3.1",
        v,
    )
    add(
        "iac/cloudformation_parameter",
        "aws cloudformation deploy --stack-name rds --parameter-overrides MasterUsername=admin MasterUserPassword=Garnet-Atlas-92",
        "Garnet-Atlas-92",
    )
    add(
        "iac/compose_environment",
        "  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: Pelican_Drift_2026",
        "Pelican_Drift_2026",
    )
    v = _s("iac-tfstate", 40, _ALNUM + "/+")
    add(
        "iac/tfstate_access_key",
        f'          "id": "AKIA{_s("iac-akia", 16, _UPPER)}",\n          "secret": "{v}",\n          "ses_smtp_password_v4": null,',
        v,
    )

    # --- password-manager CLI output ------------------------------------------------------------
    add(
        "vaultcli/op_item_get",
        '$ op item get "Prod DB" --fields password --reveal\nQuince-Meridian-27',
        "Quince-Meridian-27",
    )
    add("vaultcli/bw_get_password", "$ bw get password github.com\nFjord7!Bramble", "Fjord7!Bramble")
    add(
        "vaultcli/pass_show",
        "$ pass show infra/vpn\nT0paz~Willow~Drum\nuser: jlee\nurl: vpn.example.net",
        "T0paz~Willow~Drum",
    )
    add("vaultcli/lpass_show", '$ lpass show --password "Shared-Infra/ftp"\nAnchovy%Sail33', "Anchovy%Sail33")
    v = "sk_live_" + _s("vc-op-stripe", 99)
    add("vaultcli/op_read_reference", f"$ op read op://Private/Stripe/credential\n{v}", v)
    add(
        "vaultcli/keepassxc_show",
        "$ keepassxc-cli show -s vault.kdbx email\nTitle: email\nUserName: m.ortiz\nPassword: Clover&Tarmac61\nURL: https://mail.example.org",
        "Clover&Tarmac61",
    )
    v = _s("vc-gopass", 24, _ALNUM + "!#%&*")
    add("vaultcli/gopass_show_o", f"$ gopass show -o websites/registrar\n{v}", v)

    # --- database connection URLs ---------------------------------------------------------------
    add(
        "dburl/postgres",
        "DATABASE_URL=postgres://app_user:Tundra-Violet-13@db.internal:5432/app?sslmode=require",
        "Tundra-Violet-13",
    )
    add(
        "dburl/mysql_pymysql",
        'engine = create_engine("mysql+pymysql://ro:Sable.Comet.47@10.1.4.20/analytics")',
        "Sable.Comet.47",
    )
    v = _s("db-atlas", 16)
    add("dburl/mongodb_srv", f'mongosh "mongodb+srv://analyst:{v}@cluster0.ab12c.mongodb.net/?retryWrites=true"', v)
    v = _s("db-rediss", 32)
    add("dburl/rediss", f"REDIS_URL=rediss://default:{v}@eu1-fancy-owl-30211.upstash.io:30211", v)
    add(
        "dburl/jdbc_sqlserver",
        "jdbc:sqlserver://sql01.corp.example:1433;databaseName=Payroll;user=sa;password=Yarrow!Pylon55;encrypt=true",
        "Yarrow!Pylon55",
    )
    add(
        "dburl/oracle",
        "ORACLE_DSN = 'oracle+oracledb://hr:Cinder_Moth_12@ora-prod:1521/?service_name=ORCLPDB1'",
        "Cinder_Moth_12",
    )
    v = _s("db-crdb", 22, _B64URL)
    add(
        "dburl/cockroach",
        f"postgresql://maxroach:{v}@free-tier14.aws-us-east-1.cockroachlabs.cloud:26257/defaultdb?sslmode=verify-full",
        v,
    )
    add(
        "dburl/clickhouse",
        "CLICKHOUSE_URL=clickhouse://default:Walrus-Fable-64@ch.internal:9000/events",
        "Walrus-Fable-64",
    )
    add(
        "dburl/jdbc_postgres_query",
        "spring.datasource.url=jdbc:postgresql://pg:5432/shop?user=shop&password=Olive~Kernel~3",
        "Olive~Kernel~3",
    )
    v = _s("db-neo4j", 43, _B64URL)
    add(
        "dburl/neo4j",
        f'driver = GraphDatabase.driver("neo4j+s://{_hex("db-neo-id", 8)}.databases.neo4j.io", auth=("neo4j", "{v}"))',
        v,
    )
    add("dburl/couchdb", "COUCHDB_URL=http://admin:Gecko%40Prairie9@localhost:5984/", "Gecko%40Prairie9")
    add(
        "dburl/elasticsearch",
        'es = Elasticsearch("https://elastic:Minnow*Harp*27@es01:9200", ca_certs="ca.crt")',
        "Minnow*Harp*27",
    )
    add(
        "dburl/adonet",
        '"ConnectionStrings": { "Default": "Server=tcp:sql.example.net,1433;Database=crm;User Id=crm_app;Password=Quokka#Relay20;" }',
        "Quokka#Relay20",
    )
    v = _s("db-influx", 86, _B64URL) + "=="
    add("dburl/influx_token", f'client = InfluxDBClient(url="http://influx:8086", token="{v}", org="acme")', v)

    # --- message-queue URLs and configs ---------------------------------------------------------
    v = _s("mq-cloudamqp", 32, _B64URL)
    add("mq/amqps_cloudamqp", f"CLOUDAMQP_URL=amqps://qwxyzabc:{v}@rattlesnake.rmq.cloudamqp.com/qwxyzabc", v)
    v = _s("mq-confluent", 64, _ALNUM + "+/")
    add(
        "mq/kafka_sasl_jaas",
        f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="{_s("mq-ck", 16, _UPPER)}" password="{v}";',
        v,
    )
    add("mq/nats_url", 'nc = await nats.connect("nats://orders:Hazel_Pivot_58@nats-0.nats:4222")', "Hazel_Pivot_58")
    add("mq/mqtt_url", "MQTT_BROKER=mqtts://sensor-gw:Tern.Beacon.77@broker.iot.example.net:8883", "Tern.Beacon.77")
    v = _b64("mq-servicebus", 32)
    add(
        "mq/azure_service_bus",
        f"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={v}",
        v,
    )
    v = _s("mq-celery", 20)
    add("mq/celery_broker", f"CELERY_BROKER_URL = 'amqp://celery:{v}@rabbitmq:5672//'", v)

    # --- mail -----------------------------------------------------------------------------------
    v = "SG." + _s("mail-sg1", 22, _B64URL) + "." + _s("mail-sg2", 43, _B64URL)
    add("mail/postfix_sasl_passwd", f"# /etc/postfix/sasl_passwd\n[smtp.sendgrid.net]:587 apikey:{v}", v)
    add(
        "mail/django_email_password",
        "EMAIL_HOST = 'smtp.office365.com'\nEMAIL_HOST_USER = 'noreply@acme.example'\nEMAIL_HOST_PASSWORD = 'Bison+Lantern+8'",
        "Bison+Lantern+8",
    )
    add(
        "mail/msmtprc",
        "account work\nhost smtp.fastmail.com\nport 465\nuser me@fastmail.example\npassword Plover-Quill-35\ntls on",
        "Plover-Quill-35",
    )
    add(
        "mail/muttrc_imap_pass", 'set imap_user = "kai@example.org"\nset imap_pass = "Wombat!Signal4"', "Wombat!Signal4"
    )
    add(
        "mail/gmail_app_password",
        "Gmail gave me this app password: qmzt vhrk ajwe plsd, do I put it in SMTP_PASS with the spaces?",
        "qmzt vhrk ajwe plsd",
    )
    add(
        "mail/nodemailer_auth",
        "const transport = nodemailer.createTransport({ host: 'smtp.mailgun.org', port: 587, auth: { user: 'postmaster@mg.example.net', pass: 'Tapir_Ribbon_91' } });",
        "Tapir_Ribbon_91",
    )
    add(
        "mail/smtp_url",
        "SMTP_URL=smtp://no-reply%40acme.example:Dune.Kettle.66@smtp.eu.mailgun.org:587",
        "Dune.Kettle.66",
    )
    add(
        "mail/offlineimap",
        "[Repository Remote]\ntype = IMAP\nremotehost = imap.example.org\nremoteuser = lee\nremotepass = Osprey#Garden14",
        "Osprey#Garden14",
    )

    # --- LDAP -----------------------------------------------------------------------------------
    add(
        "ldap/ldapsearch_bind",
        'ldapsearch -x -H ldaps://dc1.corp.example -D "cn=admin,dc=corp,dc=example" -w \'Orchid#Basalt4\' -b "ou=people,dc=corp,dc=example"',
        "Orchid#Basalt4",
    )
    add(
        "ldap/sssd_authtok",
        "[domain/corp]\nldap_default_bind_dn = cn=sssd,ou=svc,dc=corp,dc=example\nldap_default_authtok = Gannet-Copper-29",
        "Gannet-Copper-29",
    )
    add(
        "ldap/python_simple_bind",
        "conn.simple_bind_s('uid=svc-wiki,ou=services,dc=example,dc=org', 'Puffin&Vale61')",
        "Puffin&Vale61",
    )
    add(
        "ldap/nslcd_bindpw",
        "binddn cn=nslcd,dc=example,dc=org\nbindpw Rook_Meadow_17\nbase dc=example,dc=org",
        "Rook_Meadow_17",
    )
    add(
        "ldap/spring_ldap",
        "spring.ldap.urls=ldap://ad.corp.example:389\nspring.ldap.username=CORP\\svc_app\nspring.ldap.password=Ibex!Harbor90",
        "Ibex!Harbor90",
    )

    # --- Windows --------------------------------------------------------------------------------
    add("windows/net_use", "net use Z: \\\\fs01\\share /user:CORP\\jlee Tangerine#44 /persistent:yes", "Tangerine#44")
    add(
        "windows/psexec",
        "psexec \\\\web02 -u CORP\\adm-ops -p Kestrel@Dawn77 -h cmd /c ipconfig /flushdns",
        "Kestrel@Dawn77",
    )
    add(
        "windows/cmdkey",
        "cmdkey /generic:TERMSRV/jump01.corp.example /user:CORP\\adm-ops /pass:Mistral!Cove23",
        "Mistral!Cove23",
    )
    add(
        "windows/convertto_securestring",
        '$pw = ConvertTo-SecureString "Aurora_Pike_606" -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential ("svc_sql", $pw)',
        "Aurora_Pike_606",
    )
    add(
        "windows/unattend_xml",
        "<AdministratorPassword>\n  <Value>Sequoia$Flint8</Value>\n  <PlainText>true</PlainText>\n</AdministratorPassword>",
        "Sequoia$Flint8",
    )
    add(
        "windows/schtasks_rp",
        'schtasks /create /tn "Nightly ETL" /tr C:\\etl\\run.bat /sc daily /st 02:00 /ru CORP\\svc_etl /rp Cormorant#51',
        "Cormorant#51",
    )
    add(
        "windows/sc_config",
        'sc.exe config "AcmeAgent" obj= ".\\svc_agent" password= "Hyacinth_Bolt_9"',
        "Hyacinth_Bolt_9",
    )
    add(
        "windows/set_adaccountpassword",
        "Set-ADAccountPassword -Identity mkhan -Reset -NewPassword (ConvertTo-SecureString -AsPlainText 'Welcome2Acme!Nov' -Force)",
        "Welcome2Acme!Nov",
    )
    v = _s("win-az-a", 3) + "8Q~" + _s("win-az-b", 31, _ALNUM + "_~.-")
    add("windows/powershell_env", f'$env:AZURE_CLIENT_ID = "{_uuid("win-azid")}"\n$env:AZURE_CLIENT_SECRET = "{v}"', v)

    # --- macOS ----------------------------------------------------------------------------------
    v = "npm_" + _s("mac-npm", 36)
    add("macos/add_generic_password", f"security add-generic-password -a deploy -s npm-publish -w {v} -U", v)
    add(
        "macos/add_internet_password",
        "security add-internet-password -a jlee -s git.corp.example -r htps -w 'Magpie-Trellis-48'",
        "Magpie-Trellis-48",
    )
    add(
        "macos/find_generic_password_out",
        "$ security find-generic-password -wa wifi-office\nLemur%Canyon%72",
        "Lemur%Canyon%72",
    )
    v = _s("mac-defaults", 32)
    add("macos/defaults_write", f"defaults write com.acme.Uploader APIKey -string {v}", v)
    v = _s("mac-launchctl", 40)
    add(
        "macos/launchctl_setenv",
        f"launchctl setenv MAPBOX_SECRET sk.{_b64u(json.dumps({'u': 'acme', 'a': 'ck1'}))}.{v}",
        v,
    )

    # --- git credentials ------------------------------------------------------------------------
    v = "ghp_" + _s("git-fill", 36)
    add(
        "gitcred/credential_fill",
        f"$ printf 'protocol=https\\nhost=github.com\\n' | git credential fill\nprotocol=https\nhost=github.com\nusername=jlee\npassword={v}",
        v,
    )
    v = "ghp_" + _s("git-store", 36)
    add("gitcred/git_credentials_file", f"~/.git-credentials:\nhttps://jlee:{v}@github.com", v)
    v = "ghs_" + _s("git-insteadof", 36)
    add(
        "gitcred/insteadof",
        f'git config --global url."https://x-access-token:{v}@github.com/".insteadOf "https://github.com/"',
        v,
    )
    v = "glpat-" + _s("git-remote", 20, _B64URL)
    add("gitcred/remote_v", f"$ git remote -v\norigin\thttps://oauth2:{v}@gitlab.com/team/app.git (fetch)", v)
    v = "ATBB" + _s("git-bb", 32) + _hex("git-bb2", 8).upper()
    add("gitcred/bitbucket_app_password", f"git clone https://mlopez:{v}@bitbucket.org/acme/payments.git", v)

    # --- package-manager configuration ----------------------------------------------------------
    v = _uuid("pkg-netrc")
    add("pkgcfg/netrc", f"machine api.heroku.com\n  login jlee@example.org\n  password {v}\nmachine git.heroku.com", v)
    v = "npm_" + _s("pkg-npmrc", 36)
    add("pkgcfg/npmrc_authtoken", f"//registry.npmjs.org/:_authToken={v}\n@acme:registry=https://npm.pkg.github.com", v)
    v = _basic("ci", "Trout=Velvet=19")
    add(
        "pkgcfg/npmrc_auth_base64",
        f"registry=https://nexus.example.net/repository/npm/\n_auth={v}\nalways-auth=true",
        v,
    )
    v = "pypi-AgEIcHlwaS5vcmc" + _s("pkg-pypi", 120, _B64URL)
    add("pkgcfg/pypirc", f"[pypi]\n  username = __token__\n  password = {v}", v)
    add(
        "pkgcfg/pip_conf_index_url",
        "[global]\nindex-url = https://ci-reader:Larkspur!Mill4@nexus.example.net/repository/pypi/simple",
        "Larkspur!Mill4",
    )
    add(
        "pkgcfg/maven_settings",
        "<server>\n  <id>releases</id>\n  <username>deployer</username>\n  <password>Vireo_Canal_305</password>\n</server>",
        "Vireo_Canal_305",
    )
    add(
        "pkgcfg/nuget_config",
        '<packageSourceCredentials>\n  <internal>\n    <add key="Username" value="build" />\n    <add key="ClearTextPassword" value="Stoat^Mirror^6" />',
        "Stoat^Mirror^6",
    )
    v = "rubygems_" + _hex("pkg-gem", 48)
    add("pkgcfg/gem_credentials", f"---\n:rubygems_api_key: {v}", v)
    v = "gho_" + _s("pkg-composer", 36)
    add("pkgcfg/composer_auth", f'{{\n    "github-oauth": {{\n        "github.com": "{v}"\n    }}\n}}', v)
    v = "cio" + _s("pkg-cargo", 32)
    add("pkgcfg/cargo_credentials", f'# ~/.cargo/credentials.toml\n[registry]\ntoken = "{v}"', v)
    v = _s("pkg-yarn", 36)
    add(
        "pkgcfg/yarnrc_yml",
        f'npmScopes:\n  acme:\n    npmRegistryServer: "https://npm.pkg.github.com"\n    npmAuthToken: "ghp_{v}"',
        v,
    )
    add(
        "pkgcfg/poetry_env",
        "export POETRY_HTTP_BASIC_ARTIFACTORY_USERNAME=ci\nexport POETRY_HTTP_BASIC_ARTIFACTORY_PASSWORD=Albatross-77-Ink",
        "Albatross-77-Ink",
    )

    # --- container configuration ----------------------------------------------------------------
    v = _basic("acmebot", "Plum.Harvest.2026")
    add(
        "docker/config_json_auths",
        f'{{\n  "auths": {{\n    "registry.example.net": {{\n      "auth": "{v}"\n    }}\n  }}\n}}',
        v,
    )
    v = _s("dock-env", 32)
    add("docker/dockerfile_env", f"FROM node:20-alpine\nENV SENTRY_AUTH_TOKEN=sntrys_{v}\nRUN npm ci", v)
    add(
        "docker/run_dash_e",
        "docker run -d -e POSTGRES_PASSWORD=Badger#Comet12 -p 5432:5432 postgres:16",
        "Badger#Comet12",
    )
    v = base64.b64encode(
        json.dumps({"auths": {"ghcr.io": {"auth": _basic("bot", "ghp_" + _s("dock-pull", 36))}}}).encode()
    ).decode()
    add("docker/dockerconfigjson_secret", f"type: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {v}", v)
    v = "ghp_" + _s("dock-ghcr", 36)
    add("docker/ghcr_stdin_login", f"echo {v} | docker login ghcr.io -u octo --password-stdin", v)

    # --- Kubernetes -----------------------------------------------------------------------------
    v = _jwt("kube-sa", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"}, "RS256")
    add("kube/kubeconfig_token", f"users:\n- name: ci-deployer\n  user:\n    token: {v}", v)
    v = base64.b64encode(("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_pem_lines("kube-ckd", 4))).encode()).decode()
    add(
        "kube/client_key_data",
        f"    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {v}",
        v,
    )
    add(
        "kube/from_literal",
        "kubectl create secret generic db --from-literal=username=app --from-literal=password='Viper~Atlas~31'",
        "Viper~Atlas~31",
    )
    v = base64.b64encode(b"Cassowary!Dock88").decode()
    add("kube/secret_data_base64", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {v}", v)
    add("kube/string_data", "kind: Secret\nstringData:\n  REDIS_PASSWORD: Gazelle-Prism-414", "Gazelle-Prism-414")
    v = (
        _s("kube-boot1", 6, "abcdefghijklmnopqrstuvwxyz0123456789")
        + "."
        + _s("kube-boot2", 16, "abcdefghijklmnopqrstuvwxyz0123456789")
    )
    add(
        "kube/kubeadm_join_token",
        f"kubeadm join 10.0.0.10:6443 --token {v} --discovery-token-ca-cert-hash sha256:{_hex('kube-ca', 64)}",
        v,
    )
    add(
        "kube/decoded_secret_output",
        "$ kubectl get secret grafana -o jsonpath='{.data.admin-password}' | base64 -d\nOcelot^Vapor^50",
        "Ocelot^Vapor^50",
    )
    v = "K10" + _hex("kube-k3s", 64) + "::server:" + _hex("kube-k3s2", 32)
    add("kube/k3s_token", f"curl -sfL https://get.k3s.io | K3S_URL=https://10.0.0.5:6443 K3S_TOKEN={v} sh -", v)

    # --- private key blocks ---------------------------------------------------------------------
    lines = _pem_lines("pem-rsa", 6, "MIIEpAIBAAKCAQEA")
    add(
        "pem/rsa_whole",
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----",
        lines[3],
    )
    lines = _pem_lines("pem-openssh", 5, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW")
    add(
        "pem/openssh_whole",
        "cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(lines)
        + "\n-----END OPENSSH PRIVATE KEY-----",
        lines[2],
    )
    lines = _pem_lines("pem-ec", 3, "MHcCAQEEI")
    add(
        "pem/ec_whole",
        "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END EC PRIVATE KEY-----",
        lines[1],
    )
    lines = _pem_lines("pem-pgp", 5, "lQdGBGVx")
    add(
        "pem/pgp_private_block",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(lines)
        + "\n="
        + _s("pem-crc", 4, _ALNUM)
        + "\n-----END PGP PRIVATE KEY BLOCK-----",
        lines[3],
    )
    lines = _pem_lines("pem-partial", 3, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ")
    add(
        "pem/pkcs8_head_only",
        "the key starts like this, is that the right format?\n-----BEGIN PRIVATE KEY-----\n"
        + "\n".join(lines[:2])
        + "\n...",
        lines[1],
    )
    lines = _pem_lines("pem-ppk", 4, "AAAAB3NzaC1yc2EAAAADAQABAAABAQ")
    add(
        "pem/putty_ppk",
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy\nPrivate-Lines: 4\n"
        + "\n".join(lines)
        + f"\nPrivate-MAC: {_hex('pem-mac', 64)}",
        lines[1],
    )
    lines = _pem_lines("pem-oneline", 4, "MIIEvAIBADANBgkqhkiG9w0BAQEFAASC")
    add(
        "pem/escaped_in_env",
        'GOOGLE_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\n' + "\\n".join(lines) + '\\n-----END PRIVATE KEY-----\\n"',
        lines[2],
    )
    v = "AGE-SECRET-KEY-1" + _s("pem-age", 58, _BECH32)
    add(
        "pem/age_secret_key",
        f"# created: 2026-11-20T10:00:00Z\n# public key: age1{_s('pem-agepub', 58, _BECH32.lower())}\n{v}",
        v,
    )

    # --- JWTs -----------------------------------------------------------------------------------
    v = _jwt("jwt-curl", {"sub": "user_8812", "scope": "orders:write", "iat": 1764200000})
    add("jwt/curl_bearer", f'curl -H "Authorization: Bearer {v}" https://api.example.net/orders', v)
    v = _jwt(
        "jwt-supabase",
        {"iss": "supabase", "ref": _s("jwt-ref", 20, "abcdefghijklmnopqrstuvwxyz"), "role": "service_role"},
    )
    add("jwt/supabase_service_role", f"SUPABASE_SERVICE_ROLE_KEY={v}", v)
    v = _jwt("jwt-ls", {"uid": 311, "email": "dana@example.org", "exp": 1764400000})
    add("jwt/localstorage_dump", f'> localStorage.getItem(\'auth\')\n\'{{"token":"{v}","user":311}}\'', v)
    v = _jwt("jwt-log", {"sub": "svc-batch", "aud": "internal"})
    add("jwt/log_line", f"2026-11-27T09:14:03Z INFO auth: refreshed session token={v} ttl=3600", v)
    v = _s("jwt-hmac", 64, _ALNUM)
    add("jwt/hmac_secret_env", f"JWT_SECRET={v}\nJWT_EXPIRES_IN=15m", v)

    # --- OAuth ----------------------------------------------------------------------------------
    v = "GOCSPX-" + _s("oa-google", 28, _B64URL)
    add(
        "oauth/google_client_secret_json",
        f'{{"web":{{"client_id":"{_s("oa-gid", 12, _DIGITS)}-{_s("oa-gid2", 32, _LOWER)}.apps.googleusercontent.com","client_secret":"{v}"}}}}',
        v,
    )
    v = _hex("oa-gh", 40)
    add("oauth/github_app_client_secret", f"GITHUB_CLIENT_ID=Iv1.{_hex('oa-ghid', 16)}\nGITHUB_CLIENT_SECRET={v}", v)
    v = "1//0g" + _s("oa-refresh", 98, _B64URL)
    add(
        "oauth/google_refresh_token",
        f'{{"refresh_token": "{v}", "scope": "https://www.googleapis.com/auth/drive.readonly"}}',
        v,
    )
    v = _s("oa-auth0", 64, _B64URL)
    add(
        "oauth/auth0_client_secret",
        f"AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID={_s('oa-a0id', 32)}\nAUTH0_CLIENT_SECRET={v}",
        v,
    )
    v = _s("oa-okta", 64, _B64URL)
    add(
        "oauth/okta_client_secret",
        f"okta:\n  oauth2:\n    issuer: https://acme.okta.com/oauth2/default\n    client-secret: {v}",
        v,
    )
    v = _hex("oa-slack", 32)
    add(
        "oauth/slack_client_secret",
        f"SLACK_CLIENT_ID={_s('oa-slid', 11, _DIGITS)}.{_s('oa-slid2', 13, _DIGITS)}\nSLACK_CLIENT_SECRET={v}\nSLACK_SIGNING_SECRET={_hex('oa-slsign', 32)}",
        v,
    )
    v = _s("oa-rt", 48, _B64URL)
    add(
        "oauth/refresh_in_token_response",
        f'{{"access_token":"{_s("oa-at", 40)}","token_type":"bearer","refresh_token":"{v}","expires_in":7200}}',
        v,
    )

    # --- session cookies ------------------------------------------------------------------------
    v = _s("ck-django", 32, "abcdefghijklmnopqrstuvwxyz0123456789")
    add("cookie/django_sessionid", f"Cookie: csrftoken={_s('ck-csrf', 32)}; sessionid={v}", v)
    v = "s%3A" + _s("ck-connect", 32, _B64URL) + "." + _s("ck-connect2", 43, _ALNUM + "%")
    add("cookie/express_connect_sid", f"Set-Cookie: connect.sid={v}; Path=/; HttpOnly; SameSite=Lax", v)
    v = _s("ck-rails", 120, _ALNUM + "%") + "--" + _hex("ck-rails2", 40)
    add("cookie/rails_session", f"curl 'https://app.example.net/admin' -H 'cookie: _shop_session={v}'", v)
    v = _s("ck-php", 26, "abcdefghijklmnopqrstuv0123456789")
    add("cookie/phpsessid", f"document.cookie\n'PHPSESSID={v}; theme=dark'", v)
    v = "CfDJ8" + _s("ck-aspnet", 180, _B64URL)
    add("cookie/aspnet_core", f".AspNetCore.Cookies={v}", v)

    # --- API keys: payments ---------------------------------------------------------------------
    v = "whsec_" + _s("pay-whsec", 32)
    add(
        "apikey_pay/stripe_webhook_secret",
        f"endpoint_secret = '{v}'\nevent = stripe.Webhook.construct_event(payload, sig_header, endpoint_secret)",
        v,
    )
    v = "sk_live_51" + _s("pay-sk51", 97)
    add("apikey_pay/stripe_long_secret", f'stripe.api_key = "{v}"', v)
    v = "sq0csp-" + _s("pay-square", 43, _B64URL)
    add("apikey_pay/square_app_secret", f"SQUARE_APPLICATION_SECRET={v}", v)
    v = "access_token$production$" + _s("pay-bt", 16, _LOWER) + "$" + _hex("pay-bt2", 32)
    add("apikey_pay/paypal_braintree", f'gateway = braintree.BraintreeGateway(access_token="{v}")', v)
    v = "shpat_" + _hex("pay-shopify", 32)
    add("apikey_pay/shopify_admin", f'headers = {{"X-Shopify-Access-Token": "{v}"}}', v)

    # --- API keys: code hosting and developer tools --------------------------------------------
    v = "github_pat_11" + _s("dev-ghfg", 20, _UPPER) + "_" + _s("dev-ghfg2", 59)
    add("apikey_dev/github_fine_grained", f"GH_TOKEN={v} gh release create v1.2.0 dist/*", v)
    v = "ghu_" + _s("dev-ghu", 36)
    add("apikey_dev/github_user_to_server", f"token: {v} (user-to-server, expires in 8h)", v)
    v = "lin_api_" + _s("dev-linear", 40)
    add("apikey_dev/linear", f"LINEAR_API_KEY={v}", v)
    v = "PMAK-" + _hex("dev-postman", 24) + "-" + _hex("dev-postman2", 34)
    add("apikey_dev/postman", f"newman run collection.json --env-var apiKey={v}", v)
    v = "sntryu_" + _hex("dev-sentry", 64)
    add("apikey_dev/sentry_user_token", f"SENTRY_AUTH_TOKEN={v} sentry-cli releases new 4.2.0", v)
    v = "ATATT3xFfGF0" + _s("dev-atl", 170, _B64URL) + "=" + _hex("dev-atl2", 8).upper()
    add("apikey_dev/atlassian_api_token", f"JIRA_API_TOKEN={v}\nJIRA_EMAIL=me@example.org", v)
    v = "figd_" + _s("dev-figma", 40, _B64URL)
    add(
        "apikey_dev/figma",
        f'fetch("https://api.figma.com/v1/files/abc", {{ headers: {{ "X-Figma-Token": "{v}" }} }})',
        v,
    )
    v = "dapi" + _hex("dev-databricks", 32)
    add(
        "apikey_dev/databricks",
        f"[DEFAULT]\nhost = https://adb-{_s('dev-dbh', 16, _DIGITS)}.7.azuredatabricks.net\ntoken = {v}",
        v,
    )
    v = "glsa_" + _s("dev-grafana", 32) + "_" + _hex("dev-grafana2", 8)
    add("apikey_dev/grafana_service_account", f"GRAFANA_TOKEN={v}", v)

    # --- API keys: chat and messaging -----------------------------------------------------------
    v = _s("chat-hook", 24)
    add(
        "apikey_chat/slack_webhook",
        f"SLACK_WEBHOOK=https://hooks.slack.com/services/T{_s('chat-t', 8, _UPPER)}/B{_s('chat-b', 10, _UPPER)}/{v}",
        v,
    )
    v = (
        "xoxp-"
        + _s("chat-xoxp1", 11, _DIGITS)
        + "-"
        + _s("chat-xoxp2", 11, _DIGITS)
        + "-"
        + _s("chat-xoxp3", 13, _DIGITS)
        + "-"
        + _hex("chat-xoxp4", 32)
    )
    add("apikey_chat/slack_user_token", f"slack_client = WebClient(token='{v}')", v)
    v = _hex("chat-twilio", 32)
    add("apikey_chat/twilio_auth_token", f"TWILIO_ACCOUNT_SID=AC{_hex('chat-twsid', 32)}\nTWILIO_AUTH_TOKEN={v}", v)
    v = "SK" + _hex("chat-twsk", 32)
    add("apikey_chat/twilio_api_key", f"client = Client('{v}', '{_s('chat-twsks', 32)}', account_sid)", v)
    v = "key-" + _hex("chat-mailgun", 32)
    add("apikey_chat/mailgun", f'requests.post(url, auth=("api", "{v}"), data=payload)', v)
    v = _s("chat-tg1", 10, _DIGITS) + ":AA" + _s("chat-tg2", 33, _B64URL)
    add("apikey_chat/telegram_bot", f"bot = telebot.TeleBot('{v}')", v)
    v = _b64u(_s("chat-dc0", 18, _DIGITS)) + "." + _s("chat-dc1", 6, _B64URL) + "." + _s("chat-dc2", 38, _B64URL)
    add("apikey_chat/discord_bot", f"client.run('{v}')", v)

    # --- API keys: cloud providers --------------------------------------------------------------
    v = _s("cl-aws2", 40, _ALNUM + "/+")
    add(
        "apikey_cloud/aws_credentials_file",
        f"[default]\naws_access_key_id = AKIA{_s('cl-akia2', 16, _UPPER)}\naws_secret_access_key = {v}",
        v,
    )
    v = "AKIA" + _s("cl-akia3", 16, _UPPER)
    add("apikey_cloud/aws_access_key_alone", f"is {v} the right access key id for the eu account?", v)
    v = _s("cl-aws-sess", 300, _ALNUM + "/+")
    add("apikey_cloud/aws_session_token", f"export AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE{v}", v)
    v = "AIza" + _s("cl-gcp", 35, _B64URL)
    add("apikey_cloud/gcp_api_key_url", f"https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={v}", v)
    v = _b64("cl-azstorage", 64)
    add(
        "apikey_cloud/azure_storage_connection",
        f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={v};EndpointSuffix=core.windows.net",
        v,
    )
    v = "sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-12-31T00:00:00Z&sig=" + _s("cl-sas", 43, _ALNUM + "%") + "%3D"
    add(
        "apikey_cloud/azure_sas_url",
        f"https://acmelogs.blob.core.windows.net/exports?{v}",
        _s("cl-sas", 43, _ALNUM + "%") + "%3D",
    )
    v = _hex("cl-cfglobal", 37)
    add(
        "apikey_cloud/cloudflare_global_key",
        f'curl -H "X-Auth-Email: ops@example.org" -H "X-Auth-Key: {v}" https://api.cloudflare.com/client/v4/zones',
        v,
    )
    v = "dop_v1_" + _hex("cl-do2", 64)
    add("apikey_cloud/digitalocean_doctl", f"doctl auth init --access-token {v}", v)
    v = "fo1_" + _s("cl-fly", 43, _B64URL)
    add("apikey_cloud/flyio_token", f"FLY_API_TOKEN={v} flyctl deploy --remote-only", v)
    v = _s("cl-vercel", 24)
    add("apikey_cloud/vercel_token", f"vercel deploy --prod --token {v}", v)
    v = "nfp_" + _s("cl-netlify", 36)
    add("apikey_cloud/netlify_pat", f"NETLIFY_AUTH_TOKEN={v}", v)
    v = "sbp_" + _hex("cl-supabase", 40)
    add("apikey_cloud/supabase_access_token", f"SUPABASE_ACCESS_TOKEN={v} supabase link --project-ref abcd", v)
    v = "pscale_pw_" + _s("cl-pscale", 43, _B64URL)
    add(
        "apikey_cloud/planetscale_password",
        f"DATABASE_URL='mysql://{_s('cl-psu', 12, _LOWER)}:{v}@aws.connect.psdb.cloud/shop?sslaccept=strict'",
        v,
    )
    v = (
        _s("cl-heroku", 8, _HEX)
        + "-"
        + _hex("cl-heroku2", 4)
        + "-"
        + _hex("cl-heroku3", 4)
        + "-"
        + _hex("cl-heroku4", 4)
        + "-"
        + _hex("cl-heroku5", 12)
    )
    add("apikey_cloud/heroku_api_key", f"HEROKU_API_KEY={v}", v)

    # --- API keys: operations and platform tooling ---------------------------------------------
    v = _hex("ops-dd", 32)
    add("apikey_ops/datadog_api_key", f"DD_API_KEY={v}\nDD_SITE=datadoghq.eu", v)
    v = _hex("ops-ddapp", 40)
    add("apikey_ops/datadog_app_key", f"options = {{'api_key': os.environ['DD_API_KEY'], 'app_key': '{v}'}}", v)
    v = "NRAK-" + _s("ops-nr", 27, _UPPER)
    add("apikey_ops/newrelic_user_key", f"newrelic profile add --profile prod --apiKey {v} --region EU", v)
    v = _s("ops-pd", 20, _B64URL)
    add("apikey_ops/pagerduty", f'session = APISession("{v}")  # PagerDuty REST key', v)
    v = "00" + _s("ops-okta", 40, _B64URL)
    add("apikey_ops/okta_ssws", f"Authorization: SSWS {v}", v)
    v = "dp.st.prd." + _s("ops-doppler", 43)
    add("apikey_ops/doppler_service_token", f"DOPPLER_TOKEN={v} doppler run -- node server.js", v)
    v = "pul-" + _hex("ops-pulumi", 40)
    add("apikey_ops/pulumi_access_token", f"PULUMI_ACCESS_TOKEN={v}", v)
    v = _s("ops-tfc1", 14) + ".atlasv1." + _s("ops-tfc2", 67)
    add("apikey_ops/terraform_cloud", f'credentials "app.terraform.io" {{\n  token = "{v}"\n}}', v)
    v = "secret_" + _s("ops-notion", 43)
    add("apikey_ops/notion_integration", f'notion = Client(auth="{v}")', v)
    v = "ntn_" + _s("ops-ntn", 46)
    add("apikey_ops/notion_new_format", f"NOTION_TOKEN={v}", v)
    v = "pat" + _s("ops-airtable", 14) + "." + _hex("ops-airtable2", 64)
    add("apikey_ops/airtable_pat", f"api = Api('{v}')", v)

    # --- API keys: AI providers -----------------------------------------------------------------
    v = "sk-" + _s("ai-openai-legacy", 48)
    add("apikey_ai/openai_legacy", f'openai.api_key = "{v}"', v)
    v = "sk-ant-api03-" + _s("ai-anthropic2", 93, _B64URL) + "AA"
    add("apikey_ai/anthropic_env", f"ANTHROPIC_API_KEY={v}", v)
    v = "r8_" + _s("ai-replicate", 37)
    add("apikey_ai/replicate", f"export REPLICATE_API_TOKEN={v}", v)
    v = "hf_" + _s("ai-hf2", 34)
    add("apikey_ai/huggingface_cli", f"huggingface-cli login --token {v} --add-to-git-credential", v)
    v = _s("ai-mistral", 32)
    add("apikey_ai/mistral", f'client = Mistral(api_key="{v}")', v)
    v = _s("ai-cohere2", 40)
    add("apikey_ai/cohere", f'co = cohere.ClientV2("{v}")', v)
    v = "sk-or-v1-" + _hex("ai-openrouter", 64)
    add("apikey_ai/openrouter", f"OPENROUTER_API_KEY={v}", v)
    v = "pplx-" + _s("ai-pplx", 48)
    add("apikey_ai/perplexity", f'headers={{"Authorization": "Bearer {v}"}}', v)
    v = "AIzaSy" + _s("ai-gemini", 33, _B64URL)
    add("apikey_ai/gemini", f"genai.configure(api_key='{v}')", v)
    v = _hex("ai-azoai", 32)
    add(
        "apikey_ai/azure_openai",
        f"AZURE_OPENAI_ENDPOINT=https://acme-oai.openai.azure.com/\nAZURE_OPENAI_API_KEY={v}",
        v,
    )

    # --- passwords told in prose ----------------------------------------------------------------
    add(
        "prose/capital_letter_hint",
        "the staging login is admin and it's marigold77 but with a capital M at the start",
        "marigold77",
    )
    add(
        "prose/wifi_key",
        "btw the wifi key in the office is Pinecone-Tuesday-42 if you need it for the demo laptop",
        "Pinecone-Tuesday-42",
    )
    add(
        "prose/same_as_staging",
        "use the same password as staging, Otter&Plum2025, the DBA never rotated it",
        "Otter&Plum2025",
    )
    add(
        "prose/slash_creds",
        "creds for the grafana box are admin / Nebula!Crane9, please change them after",
        "Nebula!Crane9",
    )
    add(
        "prose/changed_it_to",
        "I changed my VPN password to Thistle_Harbor_83 yesterday and now the client keeps failing",
        "Thistle_Harbor_83",
    )
    add(
        "prose/passphrase_words",
        "the passphrase on the deploy key is 'brass lantern quietly orbits' without the quotes",
        "brass lantern quietly orbits",
    )
    add("prose/zip_password", "Password for the zip with the customer export: Ravioli%Summit%31", "Ravioli%Summit%31")
    add(
        "prose/temporary_password_email",
        "Your temporary password is: Kx7#mQ2v!Lp9 — you will be asked to change it at first sign-in.",
        "Kx7#mQ2v!Lp9",
    )
    add("prose/pin", "the HSM PIN is 482913, the SO PIN is in the safe", "482913")
    add("prose/short_after_colon", "root pw: tulip8 (yes it's that weak, it's a throwaway VM)", "tulip8")
    add(
        "prose/spelled_out_indirectly",
        "the router password is my dog's name and the year, so biscuit2019, all lower case",
        "biscuit2019",
    )
    add(
        "prose/is_set_to",
        "The Jenkins admin password is set to Lobster.Cactus.90 on the new controller.",
        "Lobster.Cactus.90",
    )
    add(
        "prose/in_parentheses",
        "log in as the support user (password Quail#Ember#66) and reproduce the bug",
        "Quail#Ember#66",
    )
    add(
        "prose/reply_quoting",
        "> what's the keystore password?\nstorepass is Jackal-Violin-27, keypass the same",
        "Jackal-Violin-27",
    )

    # --- non-English text -----------------------------------------------------------------------
    add(
        "intl/german",
        "Das Passwort für den Testserver lautet Eichhörnchen!42, bitte nicht weitergeben.",
        "Eichhörnchen!42",
    )
    add(
        "intl/french",
        "Le mot de passe de la base de recette est Cerise-Brume-58, je l'ai mis dans le fichier .env.",
        "Cerise-Brume-58",
    )
    add(
        "intl/spanish",
        "La contraseña del usuario deploy es Girasol#Nube77, cámbiala después del despliegue.",
        "Girasol#Nube77",
    )
    add(
        "intl/portuguese",
        "A senha do banco de produção é Caju_Trovao_35, não coloque no repositório.",
        "Caju_Trovao_35",
    )
    add("intl/italian", "La password dell'utente admin è Gabbiano.Vento.12 fino a lunedì.", "Gabbiano.Vento.12")
    add("intl/japanese", "本番DBのパスワードは Sakura-Kiri-903 です。Slackには貼らないでください。", "Sakura-Kiri-903")
    add("intl/chinese", "测试环境的数据库密码是 Longjing@Tea88，用完记得改掉。", "Longjing@Tea88")
    add("intl/russian", "Пароль от сервера сборки: Берёза-Ветер-61, логин ci.", "Берёза-Ветер-61")
    add("intl/korean", "관리자 비밀번호는 Hangang!River55 입니다. 외부에 공유하지 마세요.", "Hangang!River55")
    add("intl/dutch", "Het wachtwoord voor de FTP-server is Tulpen&Molen24, gebruiker upload.", "Tulpen&Molen24")
    add("intl/polish", "Hasło do panelu to Bursztyn-Kruk-19, login admin.", "Bursztyn-Kruk-19")
    add("intl/turkish", "Sunucunun şifresi: Lale*Kule*46, kullanıcı adı root.", "Lale*Kule*46")
    v = "sk-proj-" + _s("intl-oa", 48, _B64URL) + "T3BlbkFJ" + _s("intl-oa2", 48, _B64URL)
    add("intl/japanese_api_key", f"OpenAIのAPIキーは {v} です。これで動きますか？", v)
    v = "ghp_" + _s("intl-ghp", 36)
    add("intl/spanish_token", f"Mi token de GitHub es {v}, ¿por qué me da 401 al hacer push?", v)

    # --- secrets split across lines or assembled in code ---------------------------------------
    whole = "sk_live_" + _s("split-py", 24)
    add("split/python_implicit_concat", f'STRIPE_KEY = (\n    "{whole[:14]}"\n    "{whole[14:]}"\n)', whole[14:])
    whole = "ghp_" + _s("split-js", 36)
    add("split/js_array_join", f"const token = ['{whole[:20]}', '{whole[20:]}'].join('');", whole[:20])
    add(
        "split/shell_line_continuation",
        "mysql -u admin \\\n  --password=Gopher!Spindle44 \\\n  -h db.internal inventory",
        "Gopher!Spindle44",
    )
    v = base64.b64encode(b"Heliotrope_Cask_88").decode()
    add("split/b64decode_at_runtime", f'DB_PASS = base64.b64decode("{v}").decode()', v)
    whole = "xoxb-" + _s("split-sl1", 12, _DIGITS) + "-" + _s("split-sl2", 13, _DIGITS) + "-" + _s("split-sl3", 24)
    add("split/yaml_folded", f"slack_token: >-\n  {whole[:30]}\n  {whole[30:]}", whole[30:])
    whole = _s("split-aws", 40, _ALNUM + "/+")
    add(
        "split/aws_secret_two_vars",
        f'const a = "{whole[:20]}";\nconst b = "{whole[20:]}";\nconst secretAccessKey = a + b;',
        whole[:20],
    )
    add(
        "split/password_in_tuple_call",
        'psycopg2.connect(host="db", user="etl",\n                 password="Falafel&Comet16",\n                 dbname="warehouse")',
        "Falafel&Comet16",
    )

    return out


BLIND7_SECRETS: list[Secret] = _secrets()


def _ordinary() -> list[str]:
    sha = [_hex(f"ord-sha-{i}", 40) for i in range(12)]
    uid = [_uuid(f"ord-uuid-{i}") for i in range(8)]
    digest = [_hex(f"ord-digest-{i}", 64) for i in range(6)]
    ulid = [_s(f"ord-ulid-{i}", 26, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") for i in range(3)]
    png = base64.b64encode(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    ).decode()
    proto = base64.b64encode(b"\x08\x96\x01\x12\x07testing\x1a\x03\xe8\x07\x01").decode()
    return [
        # git and version control
        f"I reverted {sha[0]} because it broke the migration; the fix is in {sha[1][:7]}.",
        f"$ git log --oneline -3\n{sha[2][:7]} Fix flaky retry test\n{sha[3][:7]} Bump ruff to 0.8.1\n{sha[4][:7]} Add /healthz route",
        f"commit {sha[5]}\nAuthor: Dana Ortiz <dana@example.org>\nDate:   Tue Nov 25 14:02:11 2026 +0100\n\n    Rename token bucket to rate limiter",
        f"git cherry-pick {sha[6]} && git push origin release/2.4",
        f"The submodule is pinned at {sha[7]}; run `git submodule update --init` after pulling.",
        f"Merge pull request #4182 from acme/fix-password-reset-email\n\n{sha[8]}",
        f"git bisect says the first bad commit is {sha[9]}, the one that touched auth/session.py.",
        "`git rebase -i HEAD~4`, then mark the two fixup commits with `f` and save.",
        f"CI ran on {sha[10][:12]} (main) in 6m 41s, all 1,284 tests passed.",
        "Tag v3.2.0-rc.1 points at the same tree as v3.2.0; we only changed the changelog.",
        # hashes, checksums and identifiers
        f"sha256sum dist/mnemex-0.9.1-py3-none-any.whl\n{digest[0]}  dist/mnemex-0.9.1-py3-none-any.whl",
        f'"integrity": "sha512-{_b64("ord-integrity", 64)}"',
        f"FROM python:3.12-slim@sha256:{digest[1]}",
        f"The cache key is `deps-{{{{ hashFiles('uv.lock') }}}}`, so it resolved to deps-{digest[2][:16]} on this run.",
        f"request_id={uid[0]} status=502 upstream=payments latency_ms=30012",
        f"Each memory gets an id like {uid[1]}; the hook only sends the first eight characters, {uid[1][:8]}, in logs.",
        f"ULIDs sort by time, e.g. {ulid[0]} comes before {ulid[1]}.",
        f"trace_id {digest[3][:32]} span_id {digest[3][32:48]} — open it in Tempo to see the slow span.",
        f'The ETag is W/"{digest[4][:20]}", so the CDN should serve a 304 on the second request.',
        f"md5 of the fixture is {_hex('ord-md5', 32)}; if it changes, regenerate the golden file.",
        f"Correlation-ID: {uid[2]}",
        f"Docker image acme/api@sha256:{digest[5]} is the one running in prod right now.",
        f"The Stripe charge id ch_{_s('ord-ch', 24)} shows up in the dashboard but not in our ledger.",
        f"Sentry event {_hex('ord-sentry', 32)} has the full breadcrumb trail.",
        f"The job {uid[3]} is stuck in PENDING; the worker logs show no pickup.",
        f"Object key uploads/2026/11/{uid[4]}.png was written twice by the retry.",
        f"build cache: hit ({digest[2][16:48]})",
        f"The order number is ORD-2026-{_s('ord-order', 8, _DIGITS)}; the customer says it never arrived.",
        f"idempotency key {uid[5]} was reused, so Stripe returned the first response again.",
        f"Your session expired. Reference: {ulid[2]}",
        # base64 of non-secret data
        f'<img src="data:image/png;base64,{png}" alt="favicon">',
        f"The protobuf payload in the log, base64 encoded, is {proto}; decode it with `protoc --decode_raw`.",
        f"echo {base64.b64encode(b'hello world from the fixture').decode()} | base64 -d",
        f"font-face src: url(data:font/woff2;base64,{_b64('ord-font', 60)}) format('woff2');",
        f"The webhook body is base64 in the SQS message: {base64.b64encode(json.dumps({'event': 'order.created', 'id': 1842}).encode()).decode()}",
        "The kubeconfig's certificate-authority-data begins with LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t, which is just the public CA cert.",
        # versions, paths and identifiers
        "Upgrading from Django 4.2.16 to 5.1.3 broke our custom password validators' import path.",
        "node v20.18.0, npm 10.8.2, pnpm 9.12.3 — the lockfile was generated with pnpm 8 though.",
        "The wheel is mnemex-0.9.1+local.20261127-cp312-cp312-manylinux_2_17_x86_64.whl.",
        "/home/runner/work/mnemex/mnemex/.venv/lib/python3.12/site-packages/chromadb/api/client.py",
        "C:\\Users\\dana\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\keyring\\backends\\Windows.py",
        "The function is called `resolve_credential_provider_chain_for_default_profile`, which is a mouthful.",
        "Rename `AbstractSingletonProxyFactoryBeanTokenResolverImpl` to something a human can read.",
        "See src/auth/password_reset/token_generator.py line 88 for where the expiry is computed.",
        "kernel/secret_scanner_config_loader_v2.yaml is not a real file, I made up the name for the example.",
        "The lockfile pins cryptography==43.0.3 and pyjwt==2.10.1.",
        "go.sum has golang.org/x/crypto v0.29.0 h1:L5SG1JTTXupVV3n6sUqMTeWbjAyfPwoda2DLX8J8FrQ= which is a module hash.",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3",
        "Terraform v1.9.8 on linux_amd64\n+ provider registry.terraform.io/hashicorp/aws v5.76.0",
        "Java HotSpot(TM) 64-Bit Server VM (build 21.0.5+9-LTS-239, mixed mode, sharing)",
        # the words password, token, secret, key, credential used innocently
        'The password field should have autocomplete="new-password" on the sign-up form, not "current-password".',
        "We hash passwords with argon2id (time_cost=3, memory_cost=65536, parallelism=4); never store them in plain text.",
        "The tokenizer splits 'unbelievable' into three tokens, so the max_tokens budget runs out sooner than expected.",
        "A secret manager like Vault or AWS Secrets Manager is the right place; the app reads it at startup.",
        "Primary key on (tenant_id, created_at) makes the range scan cheap; add a secondary index on email.",
        "The credential provider chain checks env vars, then the shared config file, then the instance role.",
        "Rotate the signing key every 90 days and keep the previous one to verify tokens issued before the switch.",
        "Forgot-password flow: send a one-time link, expire it after 30 minutes, invalidate it on use.",
        "The `key` prop on list items must be stable; using the array index causes the re-render bug you saw.",
        "Secret Santa draw is on Friday, bring a gift under 20 euros.",
        "PASSWORD_MIN_LENGTH = 12\nPASSWORD_REQUIRE_SYMBOL = True",
        "The CSRF token is rendered into the form by `{% csrf_token %}`; the view checks it automatically.",
        "dict.keys() returns a view, so wrap it in list() if you mutate the dict while iterating.",
        "Turn on 'Require a password after sleep' in System Settings > Lock Screen.",
        "The API returns 401 when the token is missing and 403 when it is valid but lacks the scope.",
        "Our threat model assumes an attacker who can read logs, so we never log request bodies of /login.",
        "In the JWT spec, the 'exp' claim is a NumericDate: seconds since the epoch, not milliseconds.",
        "Keyboard shortcut: Cmd+Shift+P, then type 'Preferences: Open Keyboard Shortcuts'.",
        "A password manager's browser extension fills the form; our custom input broke its detection.",
        "The secret sauce of the ranking is the Wilson lower bound, not the raw success ratio.",
        "Access tokens live 15 minutes, refresh tokens 30 days, and refresh rotation is on.",
        "Keys in the Redis cache are prefixed with `mnemex:v2:` so a version bump invalidates them.",
        "Set `credentials: 'include'` on fetch so the browser sends the session cookie cross-origin.",
        "The error 'invalid_grant' means the authorization code was already used or expired.",
        "Passwordless login via magic links is on the roadmap for Q2.",
        "Don't commit .env; add it to .gitignore and commit .env.example with empty values instead.",
        "Token bucket: capacity 100, refill 10 per second; a burst of 150 requests gets 50 rejections.",
        "Column `password_changed_at` is nullable; null means the user has never changed it.",
        "The SSH host key changed because we rebuilt the bastion; update known_hosts.",
        "GPG signing works if `git config user.signingkey` matches the key id shown by `gpg --list-keys`.",
        # placeholders and documented formats without a value
        "export OPENAI_API_KEY=<your-api-key>",
        "Set STRIPE_SECRET_KEY=${STRIPE_SECRET_KEY} in the compose file and keep the value in your shell.",
        "OpenAI keys look like `sk-...`; paste yours into the settings page, not into the chat.",
        "Authorization: Bearer <token>",
        "DATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DBNAME",
        "api_key: xxxxxxxxxxxxxxxxxxxxxxxx  # replace before running",
        "GitHub personal access tokens start with ghp_ and fine-grained ones with github_pat_; neither belongs in a repo.",
        "AWS access key ids start with AKIA (long-term) or ASIA (temporary), followed by 16 upper-case letters and digits.",
        "Slack bot tokens begin with xoxb- and user tokens with xoxp-.",
        'token = os.environ["GITHUB_TOKEN"]  # injected by the workflow',
        'client = OpenAI(api_key=os.getenv("OPENAI_API_KEY"))',
        'password = getpass.getpass("Database password: ")',
        "aws_secret_access_key = {{ vault_aws_secret }}",
        "secretKeyRef:\n  name: db-credentials\n  key: password",
        "Use `op read op://Private/Stripe/credential` in the script instead of pasting the key.",
        "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  (encrypted blob elided)",
        "`${{ secrets.NPM_TOKEN }}` is masked in the logs, so echoing it shows ***.",
        "Redacted: Authorization: Bearer ***",
        'JWT_SECRET=""  # generate one with `openssl rand -hex 32`',
        "The docs say: 'API keys are 32-character hexadecimal strings prefixed with key-'.",
        "Replace YOUR_CLIENT_SECRET in config.json with the value from the developer console.",
        "mysql -u root -p   # it prompts for the password, nothing on the command line",
        'curl -u "$USER:$TOKEN" https://api.example.com/v1/me',
        "Password: ********",
        "Example: https://api.example.com/v1/items?page=2&per_page=50",
        "git clone https://github.com/acme/widgets.git",
        "Connection string format: Server=<host>;Database=<db>;User Id=<user>;Password=<password>;",
        "-----BEGIN PUBLIC KEY-----\n(the public half is safe to share; paste it into the deploy keys page)\n-----END PUBLIC KEY-----",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPublicKeyOnlyNoSecretHere dana@laptop",
        'password="$(security find-generic-password -w -s npm-publish)"',
        # URLs without credentials
        "https://example.com/docs/getting-started#install",
        "postgres://localhost:5432/app_test",
        "redis://redis:6379/0",
        "amqp://rabbitmq:5672/",
        "mongodb://mongo:27017/?replicaSet=rs0",
        "See https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Authorization for the header syntax.",
        "The callback URL is http://localhost:3000/auth/callback?state=abc&code=returned-by-provider.",
        "smtp.gmail.com port 587 with STARTTLS, or 465 with implicit TLS.",
        "ldap://ldap.forumsys.com:389 is a public test server; it is read-only.",
        "https://user@example.com is the format git uses when only the username is known.",
        "jdbc:postgresql://localhost:5432/test",
        "http://127.0.0.1:8000/api/v1/memories?limit=20&offset=40",
        # CSS, regexes, numbers
        "color: #3b82f6; background: #f1f5f9; border-color: #0f172a;",
        ":root { --brand-500: #6d28d9; --brand-600: #5b21b6; }",
        "The regex ^[A-Za-z0-9+/]{40}$ matches the shape of many keys, which is why it has false positives.",
        'pattern = re.compile(r"(?i)(api[_-]?key|secret)\\s*[:=]\\s*\\S+")',
        "The invoice total is 1,249.00 EUR, due 2026-12-15, reference INV-00482.",
        "Latency p50 12 ms, p95 48 ms, p99 210 ms over 1,000,000 requests.",
        "IPv6 2001:db8:85a3::8a2e:370:7334 is a documentation address.",
        # code
        "def check_password(raw: str, hashed: str) -> bool:\n    return bcrypt.checkpw(raw.encode(), hashed.encode())",
        'if not token:\n    raise HTTPException(status_code=401, detail="missing token")',
        "const [password, setPassword] = useState('');",
        "func (s *Store) Get(key string) ([]byte, bool) {\n\tv, ok := s.m[key]\n\treturn v, ok\n}",
        "SELECT id, email, password_hash FROM users WHERE email = $1;",
        "ALTER TABLE users ADD COLUMN password_hash text NOT NULL DEFAULT '';",
        '@pytest.fixture\ndef api_key() -> str:\n    return "test-key"',
        'assert redact("nothing secret here") == "nothing secret here"',
        "for key, value in sorted(settings.items()):\n    print(f\"{key}={'***' if 'SECRET' in key else value}\")",
        "export function isExpired(token: Token, now = Date.now()): boolean { return token.exp * 1000 < now; }",
        'hashed = hashlib.sha256(b"fixture-bytes").hexdigest()',
        'let key = format!("user:{}:profile", user_id);',
        "public record Credentials(String username, char[] password) {}",
        "token_count = len(encoding.encode(prompt))",
        "secrets.token_urlsafe(32)  # generates a new value each call; don't hard-code its output",
        "kubectl get secrets -n prod",
        "kubectl describe secret db-credentials -n prod   # shows sizes only, not values",
        "openssl rand -base64 32 > /run/secrets/session_key",
        'ssh-keygen -t ed25519 -C "dana@example.org" -f ~/.ssh/id_ed25519',
        "gh auth login --with-token < token.txt",
        "aws sts get-caller-identity --profile staging",
        "docker login ghcr.io -u octo --password-stdin < ~/.ghcr",
        "vault kv get -field=password secret/prod/db",
        'npm config set //registry.npmjs.org/:_authToken "${NPM_TOKEN}"',
        "uuid.uuid4() gives a random UUID; uuid.uuid5(NAMESPACE_URL, url) gives a stable one.",
        "CREATE INDEX CONCURRENTLY idx_sessions_user ON sessions (user_id);",
        "useEffect(() => { localStorage.removeItem('token'); }, []);",
        'Write-Host "Enter password"; $pw = Read-Host -AsSecureString',
        "net use Z: \\\\fs01\\share /user:CORP\\jlee *   # the asterisk makes it prompt",
        "security find-generic-password -s wifi-office   # prints the item attributes, not the password",
        # logs and tool output
        "2026-11-27T09:14:03Z INFO auth: login succeeded user=dana@example.org ip=203.0.113.7",
        "2026-11-27T09:14:05Z WARN auth: invalid password for user=ops@example.org (attempt 3 of 5)",
        "WARNING: The 'password' argument is deprecated; use 'password_file' instead.",
        "pytest -q tests/unit/test_tokens.py\n........ 8 passed in 0.41s",
        "ruff check .\nFound 3 errors (3 fixed, 0 remaining).",
        "mypy: Success: no issues found in 212 source files",
        "Error: Missing required environment variable: DATABASE_URL",
        "fatal: Authentication failed for 'https://github.com/acme/widgets.git/'",
        'HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer realm="api", error="invalid_token"',
        'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"id": 42, "name": "widget", "price": 9.99}',
        "Set-Cookie: theme=dark; Path=/; Max-Age=31536000",
        "Cookie: locale=en-GB; consent=analytics",
        "Out[12]: {'epochs': 3, 'lr': 0.0003, 'batch_size': 32, 'seed': 1234}",
        "Step 4/9 : RUN pip install --no-cache-dir -r requirements.txt\n ---> Using cache\n ---> 5d8e1f0c2a3b",
        "Terraform will perform the following actions:\n  # aws_s3_bucket.logs will be created\nPlan: 1 to add, 0 to change, 0 to destroy.",
        "[2026-11-27 10:02:11,884] INFO celery.worker: Task tasks.send_email[" + uid[6] + "] succeeded in 0.21s",
        "Ansible: TASK [users : set password expiry] ok: [web01]",
        "helm upgrade --install api ./charts/api -n prod --set image.tag=2.3.1 --set replicas=3",
        "op item list --categories Login --vault Infra   # lists titles only",
        "bw list items --search github | jq '.[].name'",
        # prose
        "Could you explain why my unit tests pass locally but time out on CI after 10 minutes?",
        "Let's split the memory service into storage, retrieval and ranking modules before adding the new feature.",
        "The recall tool should return at most five memories, each under 500 characters.",
        "Please review PR #512: it moves config loading into the composition root.",
        "The keynote was about passkeys replacing passwords for consumer apps.",
        "We rotated every credential after the laptop was stolen; nothing needs to change in the repo.",
        "Onboarding checklist: laptop, SSO account, 2FA enrolled, password manager invite accepted.",
        "The hackathon theme is 'secrets of the deep sea', unrelated to security.",
        "Das Passwort muss mindestens zwölf Zeichen lang sein und eine Ziffer enthalten.",
        "Le jeton expire au bout d'une heure ; il faut le renouveler avec le refresh token.",
        "La contraseña debe cambiarse cada 90 días según la política de seguridad.",
        "パスワードは12文字以上で設定してください。",
        "密码长度至少为 12 个字符。",
        "Пароль должен содержать не менее 12 символов.",
        # test fixtures and examples
        'user = User(email="test@example.com", password="")  # empty: the fixture never logs in',
        'FAKE_KEY = "test"  # the fake embedder ignores it',
        f'fixtures/users.json: [{{"id": 1, "name": "Ada", "uuid": "{uid[7]}"}}]',
        '@pytest.mark.parametrize("length", [8, 12, 64])\ndef test_password_length(length: int) -> None: ...',
        "The sample response in the docs uses id 'evt_000000000000' as a stand-in.",
        'dummy_token = "x" * 40  # only the length matters for this test',
        'Example JWT header: {"alg": "HS256", "typ": "JWT"} — the payload and signature follow.',
    ]


BLIND7_ORDINARY: list[str] = _ordinary()
