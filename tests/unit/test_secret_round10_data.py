"""Secrets in data and machine-learning work (issue 36, round 10): notebook and job parameters, secret stores,
users created with a password, name-value pairs in MATLAB/R/Spark calls, Hadoop properties, dotted settings,
reversible encodings, keys in groups, auth constructors, data services' tokens, and a note in a table's secret
column. Each family is tried on forms of its own and on ordinary texts near them that must stay byte for byte.
The values are made up."""

from __future__ import annotations

import time

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind12 import BLIND12_ORDINARY, BLIND12_SECRETS

FOUND = [
    # a secret-named parameter on a command line
    ("papermill report.ipynb out.ipynb -p api_token Qz81mWvT0pLk -p region eu", "Qz81mWvT0pLk"),
    ("spark-submit --conf spark.jdbc.password=Harbor-Lime-62 job.py", "Harbor-Lime-62"),
    ("terraform apply --var db_password=Tulip4471x", "Tulip4471x"),
    # a value put into a secret store
    ("aws secretsmanager create-secret --name etl/pg --secret-string Kettle88Vane", "Kettle88Vane"),
    ("az keyvault secret set --vault-name kv1 --name sql --value 'Pine!Dune42'", "Pine!Dune42"),
    ("databricks secrets put --scope s --key k --string-value Otter5521q", "Otter5521q"),
    # a user created with a password
    ("superset fab create-admin --username admin --email a@b.io --password Crane7781", "Crane7781"),
    ("airflow users create --username ops --role Op -p Walrus-301", "Walrus-301"),
    # name-value pairs in calls
    ("webwrite(url, 'ReadKey', 'H7KQ2M9XPL4ZRT0B')", "H7KQ2M9XPL4ZRT0B"),
    ('df.write.option("user", "etl").option("pwd", "Lagoon93Fern").save()', "Lagoon93Fern"),
    ('props.setProperty("password", "Velvet-Stone-8")', "Velvet-Stone-8"),
    ('conn <- dbConnect(odbc(), "dw", "analyst", "Basalt77ink")', "Basalt77ink"),
    ("db = database('SALES', 'ro', 'Garnet5590');", "Garnet5590"),
    # Hadoop-style properties and dotted settings
    (
        "<property>\n  <name>fs.s3a.secret.key</name>\n  <value>wQ7fR2kLp9ZxT4mN8vB1cD6</value>\n</property>",
        "wQ7fR2kLp9ZxT4mN8vB1cD6",
    ),
    ("spark.hadoop.fs.s3a.secret.key   Rr8QmLp2XvT9wZk4Nf7B", "Rr8QmLp2XvT9wZk4Nf7B"),
    # reversible encodings
    (
        "libname x oracle user=ro password='{SAS004}1B2C3D4E5F60718293A4B5C6D7E8F901';",
        "{SAS004}1B2C3D4E5F60718293A4B5C6D7E8F901",
    ),
    ('<authData password="{xor}Lz4sLCgwLTtubWw=" user="was"/>', "{xor}Lz4sLCgwLTtubWw="),
    # keys in groups
    ("secret key: 3f 9a 01 c4 7e 22 b8 50 d1 6c 0e 9b 44 a7 13 fe", "3f 9a 01 c4 7e 22 b8 50 d1 6c 0e 9b 44 a7 13 fe"),
    ("the activation key is K7Q2-9XMB-4TZP-L0WC", "K7Q2-9XMB-4TZP-L0WC"),
    # a random value after a secret's noun
    ("Fivetran API key (from the account page): q8Rz2LmW5xVt9KpN3bYc7Hd", "q8Rz2LmW5xVt9KpN3bYc7Hd"),
    # auth constructors, prefixed literals, service tokens
    ("client = Client(auth=BearerTokenAuth('mT4qZ8xR2vLp9WnK3cHb7Yd'))", "mT4qZ8xR2vLp9WnK3cHb7Yd"),
    ('cohere_api_key = r"Zx91LmQp4RtV7wKd2HsB"', "Zx91LmQp4RtV7wKd2HsB"),
    ("hubspot token pat-eu1-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "pat-eu1-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"),
    ("rclone asked for a code, I pasted 4/1AeanS0b8Xq2LmW5xVt9KpN3bYc7HdQz", "4/1AeanS0b8Xq2LmW5xVt9KpN3bYc7HdQz"),
    ("channels:\n  - https://conda.anaconda.org/t/ab-12cd34ef-5678gh/private", "ab-12cd34ef-5678gh"),
]


# services' names, SAS and YAML settings, key ids, headers
FOUND += [
    ("replicate: r8Xq2LmW5xVt9KpN3bYc7HdQz4", "r8Xq2LmW5xVt9KpN3bYc7HdQz4"),
    ("%let warehouse_pwd = Juniper4420;", "Juniper4420"),
    ("db:\n  password: !!str Fjord-Light-71", "Fjord-Light-71"),
    (
        '{"type": "service_account", "private_key_id": "3c1f9e0a7b2d4c6e8f0a1b2c3d4e5f6a7b8c9d0e"}',
        "3c1f9e0a7b2d4c6e8f0a1b2c3d4e5f6a7b8c9d0e",
    ),
    ("the proxy only lets you in if the X-Api header equals q7wz2k9x4m1v8n3b6c5t0r2y", "q7wz2k9x4m1v8n3b6c5t0r2y"),
    (
        "MinIO for the lake: access key lakeuser, secret 5f9c2a7e1b3d4c6a8e0f2b4d6c8a0e1f3b5d7c9a",
        "5f9c2a7e1b3d4c6a8e0f2b4d6c8a0e1f3b5d7c9a",
    ),
]

# a service user and its password, a script given a host, a user and a password
FOUND += [
    ("try svc_loader/Granite58 against the standby", "Granite58"),
    ("python3 load.py pg.corp ingest Harbor!44x", "Harbor!44x"),
]

# an account set to a password
FOUND += [
    ("fyi I reset the Superset admin to Gallery2291 until Monday", "Gallery2291"),
    ("changed the root login to Qv8#mLp2x, tell nobody", "Qv8#mLp2x"),
    ("please set it to \u2018Rk29vXq7Lm\u2019 before the run", "Rk29vXq7Lm"),
]

# a user and a password given together in shorthand
FOUND += [
    ("the credentials are svc_loader:Maple93!x, same on prod", "Maple93!x"),
    ("Anmeldedaten für Metabase: benutzer leser / Herbst2207", "Herbst2207"),
    ("basic auth on the grafana proxy: viewer:gr4fana-view", "gr4fana-view"),
    ("login for the BI box: reporter Qm7vLx2k", "Qm7vLx2k"),
    ("etl_ro / Tide88wave @ warehouse.corp.lan:1521/orcl", "Tide88wave"),
    ("2024-06-02 WARN Pool: logged in as loader using Xk29vPq7Lm", "Xk29vPq7Lm"),
    ('login <- list("dw_reader", "Saffron41!")', "Saffron41!"),
    ("cfg = ['svc_etl', 'Cobalt-Ray-5']", "Cobalt-Ray-5"),
    ("the backup drive passphrase is seven purple lanterns drifting", "seven purple lanterns drifting"),
]


@pytest.mark.parametrize(("text", "secret"), FOUND)
def test_a_data_tools_credential_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


KEPT = [
    # parameters and flags that hold no secret
    "papermill train.ipynb out.ipynb -p run_date 2024-05-01 -p epochs 20",
    "papermill nb.ipynb o.ipynb -p db_pass $DB_PASS",
    "spark-submit --conf spark.jdbc.password=${JDBC_PASSWORD} job.py",
    "ssh -p 22042 root@203.0.113.44",
    # secret stores read from a file or a variable
    "databricks secrets put-secret kv sf_pass --string-value $SF_PASS",
    "databricks secrets put-secret kv x --string-value file://creds.txt",
    "az keyvault secret show --name sql --vault-name kv1",
    # users and pairs that hold no secret
    "airflow users create -u admin -f Ada -l L -r Admin -e a@x.io --use-random-password",
    "airflow users list -o table",
    'df.write.option("user", "etl").option("password", pw).save()',
    "fields = ['username', 'password', 'email']",
    'schema = {"password": "string", "token": "string"}',
    "db = database('SALES', 'ro', getenv('DW_PASS'));",
    # properties and settings that hold no secret
    "<property><name>hive.metastore.uris</name><value>thrift://meta:9083</value></property>",
    "<property><name>hadoop.security.credential.provider.path</name><value>jceks://hdfs/x.jceks</value></property>",
    "spark.sql.shuffle.partitions   200",
    "spark.hadoop.fs.s3a.secret.key   ${S3_SECRET}",
    # hashes and groups that are not keys
    "LDAP stores a salted hash such as {SSHA}, which cannot be decoded",
    "00000010: 5c50 a68c ca07 7257 6711 6887 153a 18b3  \\P....rWg.h..:..",
    "ticket ABCD-EFGH-IJKL-MNOP was closed",
    "the product key looks like XXXXX-XXXXX-XXXXX-XXXXX",
    "commit 2024-05-01 key rotation done",
    "the api key is stored in the vault: see the runbook",
    "token: a short plain word",
    "PersonalAccessTokenAuth(token_name, token_value, site_id=site)",
    "api_key = os.environ['AAI_KEY']",
    "the code 4/5 of the tests passed",
    "https://conda.anaconda.org/conda-forge/linux-64",
    # services, settings and headers that hold no key
    "replicate: the model ran in 42 seconds on an A100",
    "%let outdir = /data/run42;",
    "options set=PGPASS &pgpass;",
    "anchors:\n  token: &tok ${CI_TOKEN}",
    "the private_key_id field names which key signed it",
    "the header equals Content-Type: application/json",
    "the secret sauce is good documentation",
    # scripts and slashes that hold no password
    "use snake_case/camelCase where it fits",
    "use read_only/read_write roles",
    "replace TK_LIBS with MOZ_GTK3_FLAGS/MOZ_GTK3_LIBS.",
    "python train.py data.csv model out42",
    "./deploy.sh prod.example.com release v1.2.3",
    "./backup.sh db.corp nightly 2024-05-01",
    # accounts set to something that is no password
    "we reset the admin to default settings",
    "changed the admin to alice.smith",
    "set the admin port to 8080",
    "set the login timeout to 30s",
    "set it to \u201cauto\u201d and forget it",
    "rotate the admin to v2.1",
    # pairs that hold no password
    "the creds are in the vault: ask ops",
    "login as admin / root is disabled",
    "user input/output is logged to stdout",
    "basic auth user:password is the default, change it",
    "log in as alice with SSO",
    "connecting as etl with password from env",
    "email me at ana / ana.k@example.com",
    "the version is python/3.11 @ conda-forge.org",
    'creds = ("user", os.environ["PW"])',
    "c = {'matlab_ro', getenv('MATLAB_PW')};",
    "the passphrase is the same as last year",
    "the passphrase is not set for this key",
    "passphrase: required for every key",
    # a note in a table's secret column
    "| system | login | secret |\n|---|---|---|\n| VPN | ops | see vault |\n| DB | ro | stored in Bitwarden |",
]


@pytest.mark.parametrize("text", KEPT)
def test_an_ordinary_data_text_is_kept(text: str) -> None:
    assert redact(text) == text


def test_a_table_still_redacts_a_real_password_next_to_a_note() -> None:
    text = "| system | login | secret |\n|---|---|---|\n| VPN | ops | in 1Password |\n| DB | ro | Quartz-77-Lid |"
    assert_redacted_in_place(text, "Quartz-77-Lid")
    assert "in 1Password" in redact(text)


_RELEASED = [
    "jupyter/papermill_param",
    "snowflake/pat_hard",
    "databricks/secret_put",
    "databricks/pat_spaces",
    "azurelake/abfs_key_conf",
    "airflow/create_user",
    "dbt/env_var_default",
    "etl/stitch_token",
    "bi/tableau_pat",
    "tracking/tensorboard_dev",
    "inference/assemblyai",
    "hpc/globus_refresh",
    "hpc/slurm_munge_key",
    "sas/pwencode_output",
    "matlab/database_call",
    "matlab/thingspeak",
    "research/redcap_prose",
    "spark/jdbc_option",
    "spark/hive_site",
    "spark/keytab_b64",
    "mlplatform/scale_ai",
    "git/conda_token",
    "prose/chunks_with_dashes",
    "saas/hubspot",
    "hard/hex_spaced",
    "bi/excel_powerquery_prose",
    "modelhub/ollama_registry",
    "gpucloud/tpu_vm_hard",
    "dialog/hard_no_keyword",
    "research/irb_data_pw",
    "spark/emr_studio_log_hard",
    "mlplatform/ray_dashboard_hard",
    "prose/slack_paste",
    "prose/after_colon_german",
    "hard/r_vector",
    "hard/matlab_cell",
    "hard/colon_pair_prose",
    "hard/log_noise",
    "hard/sql_comment",
    "dbt/bigquery_keyfile_json",
    "inference/together",
    "inference/triton_bearer_hard",
    "saas/cloudflare_r2",
    "hard/yaml_anchor",
    "prose/ticket_reply",
    "prose/unicode_quotes",
    "hard/slash_pair",
    "hard/cli_positional",
]


@pytest.mark.parametrize("name", _RELEASED)
def test_the_released_corpus_forms_of_these_families_are_caught(name: str) -> None:
    secret = next(s for s in BLIND12_SECRETS if s.name == name)
    assert secret.needle not in redact(secret.text)


def test_the_released_corpus_ordinary_texts_stay() -> None:
    assert [t for t in BLIND12_ORDINARY if redact(t) != t] == []


@pytest.mark.parametrize(
    "text",
    [
        "-p " * 20_000,
        "secrets " + "--value " * 10_000,
        "key: " + "ab " * 30_000,
        "key " + "ABCD-" * 20_000,
        "'password', " * 20_000,
        "<name>password</name>" * 5_000,
        "4/" * 30_000,
        "api key " * 10_000 + ":",
        "creds " + "a/" * 30_000,
        "creds " + "a:" * 30_000,
        "x / " * 20_000 + "@",
        "connecting as " * 10_000,
        "creds (" + "'a', " * 10_000,
        "passphrase is " + "ab " * 20_000,
    ],
)
def test_the_data_rules_stay_linear(text: str) -> None:
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 5.0
