"""Twelfth held-out secrets corpus (blind12), written blind for issue 36.

Written blind: its author read only the ``Secret``/``SeededDraw`` head of ``secrets_corpus``, the header
of ``secrets_blind7`` (for its format) and ``secret_corpus_measure``; no rule, no other corpus, no test
about redaction. Emphasis: data and machine-learning work (notebooks, warehouses, lakes, ETL tools and
orchestrators, BI, experiment trackers, model hubs, inference APIs, vector databases, GPU clouds, HPC
clusters, spreadsheets, R/Julia/SAS/MATLAB, connection dialogs, data-sharing links, research work).
Values are drawn from SeededDraw("blind12") or written by hand; none is live. Vendor-looking keys are
assembled from pieces.
"""

from __future__ import annotations

import base64
import json

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_DIGITS = "0123456789"
_B64URL = ALNUM + "-_"


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


_DRAW = SeededDraw("blind12")
_s = _DRAW.chars

BLIND12_SECRETS: list[Secret] = []


def _add(name: str, text: str, needle: str) -> None:
    BLIND12_SECRETS.append(Secret(name, text.replace("{v}", needle), needle))


def _uuid(seed: str) -> str:
    h = _s(seed, 32, _HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


_HF = "h" + "f_"
_SK = "s" + "k-"
_AKIA = "AK" + "IA"
_DAPI = "da" + "pi"
_GHP = "gh" + "p_"
_PCSK = "pc" + "sk_"
_R8 = "r" + "8_"
_WANDB_LEN = 40

# --- jupyter: notebook servers and their outputs -------------------------------------------------------
_add(
    "jupyter/server_list",
    "$ jupyter server list\nCurrently running servers:\nhttp://localhost:8888/?token={v} :: /home/ana/proj",
    _s("jup1", 48, _HEX),
)
_add(
    "jupyter/lab_log",
    "[I 2024-03-02 10:14:07.812 ServerApp] http://127.0.0.1:8889/lab?token={v}\n"
    "[I 2024-03-02 10:14:07.812 ServerApp]  or http://127.0.0.1:8889/lab",
    _s("jup2", 48, _HEX),
)
_add(
    "jupyter/config_password",
    "# ~/.jupyter/jupyter_server_config.py\nc.ServerApp.token = '{v}'\nc.ServerApp.open_browser = False",
    _s("jup3", 32, _LOWER),
)
_add(
    "jupyter/cell_output_env",
    "In [12]: os.environ['SNOWFLAKE_PASSWORD']\nOut[12]: '{v}'",
    "Wint3r-Stat$" + _s("jup4", 4, _DIGITS),
)
_add(
    "jupyter/ipynb_json_output",
    json.dumps(
        {
            "cell_type": "code",
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["api key loaded: {v}\n"]}],
        }
    ),
    _SK + "proj-" + _s("jup5", 48, _B64URL),
)
_add(
    "jupyter/colab_userdata_leak",
    "from google.colab import userdata\n# I printed it to check: {v}\nkey = userdata.get('HF_TOKEN')",
    _HF + _s("jup6", 34),
)
_add(
    "jupyter/hub_api_token",
    "curl -H 'Authorization: token {v}' https://hub.lab.example.edu/hub/api/users",
    _s("jup7", 32, _HEX),
)
_add(
    "jupyter/magic_env",
    "%env PGPASSWORD={v}\n%sql postgresql://analyst@warehouse:5432/prod",
    "salmon" + _s("jup8", 3, _DIGITS) + "!",
)
_add(
    "jupyter/papermill_param",
    "papermill train.ipynb out.ipynb -p db_user etl -p db_pass {v} -p run_date 2024-05-01",
    _s("jup9", 14),
)

# --- snowflake -------------------------------------------------------------------------------------------
_add(
    "snowflake/connector_python",
    "conn = snowflake.connector.connect(\n    user='LOADER',\n    password='{v}',\n"
    "    account='xy12345.eu-west-1',\n    warehouse='ETL_WH')",
    _s("sf1", 18) + "#",
)
_add(
    "snowflake/snowsql_config",
    "[connections.prod]\naccountname = ab12345\nusername = svc_dbt\npassword = {v}\nwarehousename = TRANSFORM",
    _s("sf2", 22),
)
_add(
    "snowflake/sqlalchemy_url",
    "engine = create_engine('snowflake://REPORTING:{v}@ab12345/ANALYTICS/PUBLIC?warehouse=BI_WH')",
    _s("sf3", 16),
)
_add(
    "snowflake/private_key_passphrase",
    "snowsql -a ab12345 -u KEYPAIR_USER --private-key-path rsa_key.p8\nexport PRIVATE_KEY_PASSPHRASE='{v}'",
    "bluejay-" + _s("sf4", 6, _LOWER) + "-orbit",
)
_add(
    "snowflake/alter_user",
    "ALTER USER looker_svc SET PASSWORD = '{v}' MUST_CHANGE_PASSWORD = FALSE;",
    _s("sf5", 20),
)
_add(
    "snowflake/pat_hard",
    "the programmatic access thing snowflake gave me is {v} , expires in 30d",
    _s("sf6", 6, _UPPER) + "." + _s("sf6b", 60, _B64URL),
)
_add(
    "snowflake/create_user_prose",
    "créé l'utilisateur TABLEAU_RO dans Snowflake, mot de passe : {v} (à changer)",
    "Tableau" + _s("sf7", 4, _DIGITS) + "ro",
)

# --- bigquery / gcp ----------------------------------------------------------------------------------
_PEM_BODY = _DRAW.b64("gcpkey", 96)
_add(
    "bigquery/service_account_json",
    '{"type": "service_account", "project_id": "dwh-prod-4412", "private_key_id": "'
    + _s("gcp0", 40, _HEX)
    + '", "private_key": "-----BEGIN PRIVATE KEY-----\\n{v}\\n-----END PRIVATE KEY-----\\n",'
    ' "client_email": "loader@dwh-prod-4412.iam.gserviceaccount.com"}',
    _PEM_BODY,
)
_add(
    "bigquery/private_key_id_only",
    'gcloud iam service-accounts keys list shows the one I leaked: "private_key_id": "{v}"',
    _s("gcp1", 40, _HEX),
)
_add(
    "bigquery/api_key_maps",
    "bq_client = bigquery.Client(client_options={'api_key': '{v}'})",
    "AI" + "za" + _s("gcp2", 35, _B64URL),
)
_add(
    "bigquery/oauth_refresh",
    '{"client_id": "7781.apps.googleusercontent.com", "client_secret": "'
    + "GOC"
    + "SPX-"
    + _s("gcp3c", 28, _B64URL)
    + '", "refresh_token": "{v}", "type": "authorized_user"}',
    "1//" + _s("gcp3", 60, _B64URL),
)
_add(
    "bigquery/client_secret",
    "OAUTH_CLIENT_SECRET={v}  # for the looker studio connector",
    "GOC" + "SPX-" + _s("gcp4", 28, _B64URL),
)
_add(
    "bigquery/access_token_curl",
    'curl -H "Authorization: Bearer {v}" https://bigquery.googleapis.com/bigquery/v2/projects/p/queries',
    "ya" + "29." + _s("gcp5", 90, _B64URL),
)

# --- warehouse databases (redshift, postgres, clickhouse, synapse) ---------------------------------------
_add(
    "warehouse/redshift_jdbc",
    "jdbc:redshift://analytics.c8xk2.us-east-1.redshift.amazonaws.com:5439/dev?user=admin&password={v}",
    _s("rs1", 16) + "Aa1",
)
_add(
    "warehouse/redshift_copy_creds",
    "COPY events FROM 's3://lake-raw/events/' CREDENTIALS "
    "'aws_access_key_id=" + _AKIA + _s("rs2a", 16, _UPPER) + ";aws_secret_access_key={v}' JSON 'auto';",
    _s("rs2", 40, ALNUM + "+/"),
)
_add(
    "warehouse/pgpass",
    "~/.pgpass\nwarehouse.internal:5432:analytics:etl_writer:{v}",
    "tangerine" + _s("pg1", 2, _DIGITS),
)
_add(
    "warehouse/psql_url",
    "psql postgresql://dbt:{v}@10.0.4.12:5432/analytics -c 'select 1'",
    _s("pg2", 24, _LOWER),
)
_add(
    "warehouse/clickhouse_client",
    "clickhouse-client --host ch.lake --user reader --password {v} --query 'SELECT count() FROM hits'",
    _s("ch1", 12),
)
_add(
    "warehouse/clickhouse_xml",
    "<users><etl><password>{v}</password><networks><ip>::/0</ip></networks></etl></users>",
    _s("ch2", 18),
)
_add(
    "warehouse/synapse_odbc",
    "Driver={ODBC Driver 18 for SQL Server};Server=tcp:syn-ws.sql.azuresynapse.net,1433;"
    "Database=dw;Uid=sqladminuser;Pwd={v};Encrypt=yes;",
    "Pa$$" + _s("syn1", 10),
)
_add(
    "warehouse/duckdb_attach",
    "ATTACH 'dbname=prod user=ro host=pg.int password={v}' AS pg (TYPE postgres, READ_ONLY);",
    _s("duck1", 15),
)
_add(
    "warehouse/trino_cli",
    "TRINO_PASSWORD={v} trino --server https://trino.corp:8443 --user maria --password",
    _s("tr1", 20),
)
_add(
    "warehouse/mysql_dump",
    "mysqldump -h replica -u export -p{v} sales > sales.sql",
    "sales" + _s("my1", 4, _DIGITS),
)
_add(
    "warehouse/oracle_tns",
    "sqlplus scott/{v}@//ora-dw:1521/DWPDB",
    "tiger" + _s("or1", 5, _LOWER),
)

# --- databricks -----------------------------------------------------------------------------------------
_add(
    "databricks/cfg",
    "[DEFAULT]\nhost = https://adb-4455.12.azuredatabricks.net\ntoken = {v}",
    _DAPI + _s("db1", 32, _HEX),
)
_add(
    "databricks/sql_connector",
    "sql.connect(server_hostname=host, http_path='/sql/1.0/warehouses/ab12', access_token=\"{v}\")",
    _DAPI + _s("db2", 32, _HEX) + "-2",
)
_add(
    "databricks/secret_put",
    "databricks secrets put-secret kv sf_pass --string-value {v}",
    _s("db3", 18),
)
_add(
    "databricks/dbutils_print",
    "print(dbutils.secrets.get('kv','jdbc'))  # shows [REDACTED] in the UI but the log file had {v}",
    _s("db4", 22),
)
_add(
    "databricks/pat_spaces",
    "token is dapi {v}",
    _s("db5a", 8, _HEX) + " " + _s("db5b", 8, _HEX) + " " + _s("db5c", 8, _HEX) + " " + _s("db5d", 8, _HEX),
)

# --- aws lake ---------------------------------------------------------------------------------------------
_add(
    "awslake/credentials_file",
    "[lake-writer]\naws_access_key_id = " + _AKIA + _s("aw1a", 16, _UPPER) + "\naws_secret_access_key = {v}",
    _s("aw1", 40, ALNUM + "+/"),
)
_add(
    "awslake/access_key_id",
    "glue job fails with AccessDenied for key {v} on s3://lake-curated/",
    _AKIA + _s("aw2", 16, _UPPER),
)
_add(
    "awslake/session_token",
    "export AWS_SESSION_TOKEN={v}",
    "IQoJb3JpZ2luX2VjE" + _s("aw3", 120, ALNUM + "+/"),
)
_add(
    "awslake/boto3_inline",
    "s3 = boto3.client('s3', aws_access_key_id='ASIA" + _s("aw4a", 16, _UPPER) + "', aws_secret_access_key='{v}')",
    _s("aw4", 40, ALNUM + "+/"),
)
_add(
    "awslake/spark_hadoop_conf",
    'spark.conf.set("fs.s3a.secret.key", "{v}")',
    _s("aw5", 40, ALNUM + "+/"),
)
_add(
    "awslake/presigned_url",
    "here's the parquet: https://lake-share.s3.amazonaws.com/exp/q3.parquet?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=" + _AKIA + _s("aw6a", 16, _UPPER) + "%2F20240501%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Signature={v}",
    _s("aw6", 64, _HEX),
)
_add(
    "awslake/athena_jdbc",
    "jdbc:awsathena://athena.eu-west-1.amazonaws.com:443;User=" + _AKIA + _s("aw7a", 16, _UPPER) + ";Password={v};",
    _s("aw7", 40, ALNUM + "+/"),
)

# --- azure storage / adls --------------------------------------------------------------------------------
_add(
    "azurelake/connection_string",
    "DefaultEndpointsProtocol=https;AccountName=lakeprod;AccountKey={v};EndpointSuffix=core.windows.net",
    _DRAW.b64("az1", 64),
)
_add(
    "azurelake/sas_url",
    "https://lakeprod.blob.core.windows.net/raw/export.csv?sv=2022-11-02&ss=b&srt=o&sp=r"
    "&se=2024-12-31T00:00:00Z&spr=https&sig={v}",
    _s("az2", 43, ALNUM + "%") + "%3D",
)
_add(
    "azurelake/abfs_key_conf",
    "spark.hadoop.fs.azure.account.key.lakeprod.dfs.core.windows.net {v}",
    _DRAW.b64("az3", 64),
)
_add(
    "azurelake/sp_secret",
    "az login --service-principal -u " + _uuid("az4a") + " -p {v} --tenant " + _uuid("az4b"),
    _s("az4", 3) + "8Q~" + _s("az4c", 34, ALNUM + "~_.-"),
)
_add(
    "azurelake/ml_workspace_key",
    "Primary key for the AML online endpoint: {v}",
    _s("az5", 32),
)

# --- airflow ----------------------------------------------------------------------------------------------
_add(
    "airflow/conn_uri_env",
    "AIRFLOW_CONN_WAREHOUSE='postgres://airflow:{v}@pg-dw:5432/analytics'",
    _s("af1", 16),
)
_add(
    "airflow/fernet_key",
    "[core]\nfernet_key = {v}\nexecutor = CeleryExecutor",
    _DRAW.b64("af2", 32).replace("+", "-").replace("/", "_"),
)
_add(
    "airflow/connections_add",
    "airflow connections add 'sftp_vendor' --conn-type sftp --conn-host files.vendor.com "
    "--conn-login acme --conn-password '{v}'",
    "Acme" + _s("af3", 6) + "!!",
)
_add(
    "airflow/webserver_secret",
    "AIRFLOW__WEBSERVER__SECRET_KEY={v}",
    _s("af4", 32, _HEX),
)
_add(
    "airflow/conn_json_extra",
    'airflow connections get slack_alerts -o json\n[{"conn_id": "slack_alerts", "password": "{v}", "host": null}]',
    "xox" + "b-" + _s("af5a", 12, _DIGITS) + "-" + _s("af5b", 13, _DIGITS) + "-" + _s("af5", 24),
)
_add(
    "airflow/create_user",
    "airflow users create -u admin -f Ada -l L -r Admin -e a@x.io -p {v}",
    "admin" + _s("af6", 3, _DIGITS),
)
_add(
    "airflow/dagster_env",
    "dagster.yaml:\nrun_storage:\n  module: dagster_postgres\n  config:\n    postgres_db:\n"
    "      username: dagster\n      password: {v}\n      hostname: pg",
    _s("dg1", 20),
)
_add(
    "airflow/prefect_api_key",
    "prefect cloud login -k {v}",
    "pnu" + "_" + _s("pf1", 36),
)

# --- dbt --------------------------------------------------------------------------------------------------
_add(
    "dbt/profiles_yml",
    "analytics:\n  target: prod\n  outputs:\n    prod:\n      type: postgres\n      host: dw\n"
    "      user: dbt_prod\n      password: {v}\n      dbname: analytics",
    _s("dbt1", 18),
)
_add(
    "dbt/cloud_token",
    "DBT_CLOUD_API_TOKEN={v} dbt-cloud job run --job-id 4432",
    "dbtc" + "_" + _s("dbt2", 44, _B64URL),
)
_add(
    "dbt/bigquery_keyfile_json",
    "      method: service-account-json\n      keyfile_json:\n        private_key_id: {v}\n        type: service_account",
    _s("dbt3", 40, _HEX),
)
_add(
    "dbt/env_var_default",
    "password: \"{{ env_var('DBT_PASS', '" + "{v}" + "') }}\"  # default so CI works",
    "ci-" + _s("dbt4", 12, _LOWER),
)

# --- etl saas (fivetran, airbyte, stitch, meltano) --------------------------------------------------------
_add(
    "etl/fivetran_basic",
    "curl -u " + _s("ft1a", 16) + ":{v} https://api.fivetran.com/v1/groups",
    _s("ft1", 32),
)
_add(
    "etl/airbyte_source_config",
    '{"sourceDefinitionId": "' + _uuid("ab0") + '", "connectionConfiguration": {"host": "crm-db", '
    '"username": "airbyte", "password": "{v}", "port": 3306}}',
    _s("ab1", 20),
)
_add(
    "etl/stitch_token",
    "Stitch import API token (the one from the integration page): {v}",
    _s("st1", 64, _HEX),
)
_add(
    "etl/meltano_env",
    "TAP_POSTGRES_PASSWORD={v}\nTARGET_SNOWFLAKE_ACCOUNT=ab12345",
    _s("ml1", 16),
)
_add(
    "etl/nifi_sensitive_props",
    "nifi.sensitive.props.key={v}\nnifi.sensitive.props.algorithm=NIFI_PBKDF2_AES_GCM_256",
    _s("nf1", 24),
)
_add(
    "etl/talend_context",
    "context.db_password=ENC(" + _s("tl0", 8) + ") ... I decrypted it for you: {v}",
    "Talend" + _s("tl1", 4, _DIGITS) + "#",
)
_add(
    "etl/informatica_pmpasswd",
    "pmpasswd output:\nEncrypted string -->{v}<--",
    _s("inf1", 44, ALNUM + "+/") + "=",
)
_add(
    "etl/sftp_drop_prose",
    "vendor drop box is sftp://acme_upload@files.vendor.com, they told us the pass over the phone: {v}",
    "Harbour" + _s("sftp1", 2, _DIGITS) + "Lights",
)

# --- kafka / streaming ------------------------------------------------------------------------------------
_add(
    "kafka/sasl_jaas",
    'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="'
    + _s("kf1a", 16, _UPPER)
    + '" password="{v}";',
    _s("kf1", 64, ALNUM + "+/"),
)
_add(
    "kafka/confluent_cli",
    "confluent api-key create --resource lkc-9x2 \n+------------+------------------------------------------------------------------+\n"
    "| API Key    | " + _s("kf2a", 16, _UPPER) + " |\n| API Secret | {v} |",
    _s("kf2", 64, ALNUM + "+/"),
)
_add(
    "kafka/python_conf",
    "conf = {'bootstrap.servers': 'pkc.confluent.cloud:9092', 'sasl.username': 'X', 'sasl.password': '{v}'}",
    _s("kf3", 64, ALNUM + "+/"),
)
_add(
    "kafka/kinesis_firehose",
    "firehose http endpoint access key: {v}",
    _s("kin1", 40),
)

# --- nosql / search stores --------------------------------------------------------------------------------
_add(
    "nosql/mongo_srv",
    "mongodb+srv://datasci:{v}@cluster0.ab1cd.mongodb.net/features?retryWrites=true",
    _s("mg1", 16),
)
_add(
    "nosql/elastic_basic",
    "curl -u elastic:{v} https://es.lab:9200/_cat/indices",
    _s("es1", 20),
)
_add(
    "nosql/elastic_api_key",
    "Authorization: ApiKey {v}",
    _DRAW.b64("es2", 45),
)
_add(
    "nosql/redis_url",
    "FEATURE_STORE_URL=redis://:{v}@feast-redis:6379/0",
    _s("rd1", 32, _HEX),
)
_add(
    "nosql/cassandra_cqlsh",
    "cqlsh cass-1 -u cassandra -p {v}",
    "cassandra" + _s("cs1", 3, _DIGITS),
)
_add(
    "nosql/neo4j_driver",
    'GraphDatabase.driver("neo4j+s://a1b2.databases.neo4j.io", auth=("neo4j", "{v}"))',
    _s("neo1", 43, _B64URL),
)
_add(
    "nosql/influx_token",
    "influx config create -n lab -u http://influx:8086 -o sensors -t {v}",
    _DRAW.b64("inf2", 64).replace("/", "_").replace("+", "-"),
)

# --- bi dashboards ----------------------------------------------------------------------------------------
_add(
    "bi/tableau_pat",
    "server.auth.sign_in(TSC.PersonalAccessTokenAuth('extract-refresh', '{v}', site_id='acme'))",
    _DRAW.b64("tb1", 16) + ":" + _s("tb1b", 32),
)
_add(
    "bi/tableau_tabcmd",
    "tabcmd login -s https://tableau.acme.com -u svc_publish -p {v}",
    _s("tb2", 14),
)
_add(
    "bi/powerbi_client_secret",
    "Power BI embedded: tenant " + _uuid("pb0") + ", app id " + _uuid("pb1") + ", secret {v}",
    _s("pb2", 3) + "7Q~" + _s("pb2b", 34, ALNUM + "~_.-"),
)
_add(
    "bi/looker_ini",
    "[Looker]\nbase_url=https://acme.cloud.looker.com\nclient_id=" + _s("lk1a", 20) + "\nclient_secret={v}",
    _s("lk1", 24),
)
_add(
    "bi/metabase_embed",
    "MB_EMBEDDING_SECRET_KEY={v}",
    _s("mb1", 64, _HEX),
)
_add(
    "bi/metabase_session",
    "X-Metabase-Session: {v}",
    _uuid("mb2"),
)
_add(
    "bi/superset_config",
    "# superset_config.py\nSECRET_KEY = '{v}'\nSQLALCHEMY_DATABASE_URI = 'sqlite:////app/superset.db'",
    _DRAW.b64("ss1", 42),
)
_add(
    "bi/grafana_sa_token",
    "grafana datasource provisioning uses {v}",
    "gl" + "sa_" + _s("gf1", 32) + "_" + _s("gf1b", 8, _HEX),
)
_add(
    "bi/mode_share_link",
    "Mode report link with the access token baked in: https://app.mode.com/acme/reports/9a1b?access_token={v}",
    _s("md1", 40, _HEX),
)
_add(
    "bi/qlik_jwt",
    "Authorization: Bearer {v}",
    b64url_text('{"alg":"HS256","typ":"JWT"}')
    + "."
    + b64url_text('{"sub":"qlik-svc","groups":["analysts"],"iat":1714550400}')
    + "."
    + _s("qk1", 43, _B64URL),
)
_add(
    "bi/excel_powerquery_prose",
    "In the Power Query dialog I ticked 'Database' and typed user reporting / {v}, still login failed",
    "Reporting" + _s("pq1", 4, _DIGITS),
)

# --- experiment trackers ----------------------------------------------------------------------------------
_add(
    "tracking/wandb_netrc",
    "machine api.wandb.ai\n  login user\n  password {v}",
    _s("wb1", _WANDB_LEN, _HEX),
)
_add(
    "tracking/wandb_login",
    "!wandb login {v}",
    _s("wb2", _WANDB_LEN, _HEX),
)
_add(
    "tracking/wandb_env",
    "os.environ['WANDB_API_KEY'] = '{v}'",
    _s("wb3", _WANDB_LEN, _HEX),
)
_add(
    "tracking/mlflow_basic_auth",
    "export MLFLOW_TRACKING_USERNAME=ml\nexport MLFLOW_TRACKING_PASSWORD={v}",
    _s("mf1", 16),
)
_add(
    "tracking/mlflow_uri_inline",
    "mlflow.set_tracking_uri('https://ml:{v}@mlflow.lab.example.org')",
    _s("mf2", 20),
)
_add(
    "tracking/comet_key",
    "comet_ml.init(api_key=\"{v}\", project_name='segmentation')",
    _s("cm1", 25),
)
_add(
    "tracking/neptune_token",
    "NEPTUNE_API_TOKEN={v}",
    b64url_text(
        '{"api_address":"https://app.neptune.ai","api_url":"https://app.neptune.ai","api_key":"' + _uuid("np1") + '"}'
    ),
)
_add(
    "tracking/clearml_conf",
    'api {\n  credentials {\n    "access_key" = "' + _s("cl1a", 24, _UPPER) + '"\n    "secret_key" = "{v}"\n  }\n}',
    _s("cl1", 50),
)
_add(
    "tracking/tensorboard_dev",
    "tensorboard dev upload --logdir runs  # auth code it asked for: {v}",
    "4/" + _s("tbd1", 55, _B64URL),
)
_add(
    "tracking/aim_remote",
    "aim up --host 0.0.0.0 ... remote tracking password is {v} for now",
    "aimrun" + _s("aim1", 2, _DIGITS),
)
_add(
    "tracking/dvc_remote",
    "dvc remote modify --local storage secret_access_key {v}",
    _s("dvc1", 40, ALNUM + "+/"),
)
_add(
    "tracking/dvc_config_local",
    "# .dvc/config.local\n['remote \"gdrive\"']\n    gdrive_client_secret = {v}",
    "GOC" + "SPX-" + _s("dvc2", 28, _B64URL),
)

# --- model hubs -------------------------------------------------------------------------------------------
_add(
    "modelhub/hf_login",
    "huggingface-cli login --token {v}",
    _HF + _s("hf1", 34),
)
_add(
    "modelhub/hf_from_pretrained",
    'AutoModel.from_pretrained("acme/llama-ft", token="{v}")',
    _HF + _s("hf2", 34),
)
_add(
    "modelhub/hf_git_remote",
    "git remote set-url origin https://user:{v}@huggingface.co/acme/private-ds",
    _HF + _s("hf3", 34),
)
_add(
    "modelhub/hf_token_file",
    "$ cat ~/.cache/huggingface/token\n{v}",
    _HF + _s("hf4", 34),
)
_add(
    "modelhub/hf_no_prefix_hard",
    "the HF read token minus the prefix is {v} — add the two letters and underscore back",
    _s("hf5", 34),
)
_add(
    "modelhub/kaggle_json",
    '{"username":"ana-lab","key":"{v}"}',
    _s("kg1", 32, _HEX),
)
_add(
    "modelhub/kaggle_env",
    "KAGGLE_USERNAME=ana-lab KAGGLE_KEY={v} kaggle datasets download -d acme/retail",
    _s("kg2", 32, _HEX),
)
_add(
    "modelhub/ollama_registry",
    "the private registry for our ollama models wants basic auth modelops:{v}",
    _s("ol1", 18),
)
_add(
    "modelhub/civitai_key",
    "CIVITAI_API_TOKEN={v}",
    _s("cv1", 32, _HEX),
)
_add(
    "modelhub/ngc_key",
    "docker login nvcr.io -u '$oauthtoken' -p {v}",
    "nvapi-" + _s("ngc1", 64, _B64URL),
)
_add(
    "modelhub/modelscope",
    "modelscope login --token {v}",
    _uuid("ms1"),
)

# --- inference apis ---------------------------------------------------------------------------------------
_add(
    "inference/openai_client",
    'client = OpenAI(api_key="{v}")',
    _SK + "proj-" + _s("oa1", 56, _B64URL),
)
_add(
    "inference/openai_curl",
    'curl https://api.openai.com/v1/embeddings -H "Authorization: Bearer {v}" -d @batch.json',
    _SK + _s("oa2", 48),
)
_add(
    "inference/anthropic_env",
    "ANTHROPIC_API_KEY={v}",
    _SK + "ant-api03-" + _s("an1", 93, _B64URL) + "AA",
)
_add(
    "inference/cohere",
    "co = cohere.Client('{v}')",
    _s("co1", 40),
)
_add(
    "inference/replicate",
    "export REPLICATE_API_TOKEN={v}",
    _R8 + _s("rp1", 37),
)
_add(
    "inference/together",
    "together: {v}",
    _s("tg1", 64, _HEX),
)
_add(
    "inference/groq",
    "GROQ_API_KEY={v}",
    "gs" + "k_" + _s("gq1", 52),
)
_add(
    "inference/mistral_header",
    "Authorization: Bearer {v}",
    _s("mi1", 32),
)
_add(
    "inference/gemini_param",
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-pro:generateContent?key={v}",
    "AI" + "za" + _s("gm1", 35, _B64URL),
)
_add(
    "inference/azure_openai",
    'AzureOpenAI(azure_endpoint="https://acme-oai.openai.azure.com", api_key="{v}", api_version="2024-02-01")',
    _s("aoai1", 32, _HEX),
)
_add(
    "inference/bedrock_prose",
    "I rotated the bedrock IAM user; new secret is {v} and the old one is disabled",
    _s("br1", 40, ALNUM + "+/"),
)
_add(
    "inference/deepseek_split_line",
    "DEEPSEEK_API_KEY=\\\n  {v}",
    _SK + _s("ds1", 32, _HEX),
)
_add(
    "inference/fireworks",
    "fireworks key fw_{v}",
    _s("fw1", 24),
)
_add(
    "inference/openrouter",
    "{'model': 'meta-llama/llama-3-70b', 'key': '{v}'}",
    _SK + "or-v1-" + _s("orr1", 64, _HEX),
)
_add(
    "inference/perplexity",
    "PPLX key: {v}",
    "pp" + "lx-" + _s("px1", 48),
)
_add(
    "inference/elevenlabs_header",
    "xi-api-key: {v}",
    _s("el1", 32, _HEX),
)
_add(
    "inference/assemblyai",
    'aai.settings.api_key = f"{v}"',
    _s("aai1", 32, _HEX),
)
_add(
    "inference/langsmith",
    "LANGCHAIN_API_KEY={v}",
    "lsv2" + "_pt_" + _s("ls1", 32, _HEX) + "_" + _s("ls1b", 10, _HEX),
)
_add(
    "inference/vllm_api_key",
    "python -m vllm.entrypoints.openai.api_server --model ./ckpt --api-key {v}",
    "local-" + _s("vl1", 10, _LOWER),
)
_add(
    "inference/triton_bearer_hard",
    "the inference gateway in front of triton only checks that the header equals {v}",
    _s("trt1", 26, _LOWER),
)

# --- vector databases -------------------------------------------------------------------------------------
_add(
    "vectordb/pinecone",
    "pc = Pinecone(api_key='{v}')",
    _PCSK + _s("pc1a", 5) + "_" + _s("pc1", 64),
)
_add(
    "vectordb/pinecone_legacy_uuid",
    "PINECONE_API_KEY={v}\nPINECONE_ENVIRONMENT=us-west1-gcp",
    _uuid("pc2"),
)
_add(
    "vectordb/weaviate",
    'weaviate.connect_to_wcs(cluster_url=URL, auth_credentials=weaviate.auth.AuthApiKey("{v}"))',
    _s("wv1", 40),
)
_add(
    "vectordb/qdrant",
    "QdrantClient(url='https://xyz.eu-central.aws.cloud.qdrant.io:6333', api_key='{v}')",
    _s("qd1", 20) + "-" + _s("qd1b", 45, _B64URL),
)
_add(
    "vectordb/milvus_uri",
    "connections.connect(uri='https://in03.api.gcp-us-west1.zillizcloud.com', token='db_admin:{v}')",
    _s("mv1", 16),
)
_add(
    "vectordb/chroma_header",
    "X-Chroma-Token: {v}",
    "ck-" + _s("chr1", 40),
)
_add(
    "vectordb/pgvector_dsn",
    "PGVECTOR_URL=postgresql+psycopg://rag:{v}@localhost:5433/embeddings",
    "rag" + _s("pgv1", 5, _LOWER),
)
_add(
    "vectordb/lancedb",
    "lancedb.connect('db://my-proj', api_key='{v}', region='us-east-1')",
    "sk_" + _s("lnc1", 40),
)
_add(
    "vectordb/turbopuffer",
    "turbopuffer api key tpuf_{v}",
    _s("tp1", 32),
)

# --- gpu clouds -------------------------------------------------------------------------------------------
_add(
    "gpucloud/lambda_key",
    "curl -u {v}: https://cloud.lambdalabs.com/api/v1/instances",
    "secret_acme_" + _s("lm1", 32, _HEX) + "." + _s("lm1b", 32),
)
_add(
    "gpucloud/runpod",
    "runpodctl config --apiKey {v}",
    _s("rpd1", 40, _UPPER),
)
_add(
    "gpucloud/vastai",
    "vastai set api-key {v}",
    _s("vs1", 64, _HEX),
)
_add(
    "gpucloud/paperspace",
    "PAPERSPACE_API_KEY={v}",
    _s("ps1", 30, _HEX),
)
_add(
    "gpucloud/coreweave_kubeconfig",
    "users:\n- name: cw\n  user:\n    token: {v}",
    _s("cw1", 22) + "." + _s("cw1b", 40),
)
_add(
    "gpucloud/modal_token",
    "modal token set --token-id ak-" + _s("mdl1a", 20) + " --token-secret {v}",
    "as-" + _s("mdl1", 20),
)
_add(
    "gpucloud/jupyter_root_pw",
    "instance is up: ssh root@203.0.113.44 -p 22042, root password {v}",
    _s("gpu1", 12, _LOWER),
)
_add(
    "gpucloud/sagemaker_notebook_url",
    "presigned notebook: https://nb-1.notebook.us-east-1.sagemaker.aws/auth?token={v}",
    _s("sm1", 200, _B64URL),
)
_add(
    "gpucloud/tpu_vm_hard",
    "tpu-vm-2 (v4-8) — ssh key passphrase is {v}",
    "four teddy bears running",
)

# --- hpc clusters -----------------------------------------------------------------------------------------
_add(
    "hpc/ssh_password_prose",
    "Login to the cluster is ana.k@login1.hpc.uni-example.de, my password is {v} if you need to test sbatch",
    "Gauss" + _s("hpc1", 4, _DIGITS) + "!",
)
_add(
    "hpc/sshpass",
    "sshpass -p '{v}' rsync -av data/ ana@dtn.hpc.example.edu:/scratch/ana/",
    _s("hpc2", 10),
)
_add(
    "hpc/kinit_echo",
    "echo '{v}' | kinit ana@HPC.EXAMPLE.EDU",
    "Krb-" + _s("hpc3", 9),
)
_add(
    "hpc/globus_refresh",
    "globus_sdk.RefreshTokenAuthorizer('{v}', client)",
    _s("hpc4", 70, _LOWER),
)
_add(
    "hpc/private_key_block",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----",
    "b3BlbnNzaC1rZXktdjEAAAAA" + _DRAW.b64("hpc5", 48),
)
_add(
    "hpc/otp_seed",
    "the cluster's TOTP seed (from the QR code) is {v} so you can script the second factor",
    _s("hpc6", 32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
)
_add(
    "hpc/slurm_munge_key",
    "dd if=/dev/urandom bs=1 count=32 | base64 gives the munge key we use: {v}",
    _DRAW.b64("hpc7", 32),
)
_add(
    "hpc/slurmdbd_conf",
    "StorageType=accounting_storage/mysql\nStorageUser=slurm\nStoragePass={v}\nStorageHost=db01",
    _s("hpc8", 14),
)
_add(
    "hpc/spelled_out",
    "VPN for the cluster: user akowalski, pass is capital R, e, s, e, a, r, c, h, then {v}",
    "2 0 2 4 hash",
)
_add(
    "hpc/split_two_lines",
    "pw part one: Qu4ntum\npw part two: {v}",
    "Fl0ss" + _s("hpc9", 3, _DIGITS),
)
_add(
    "hpc/irods_env",
    "iinit\nEnter your current PAM password:{v}",
    _s("hpc10", 11),
)
_add(
    "hpc/lustre_cifs",
    "mount -t cifs //storage.hpc/proj /mnt/proj -o username=ana,password={v},vers=3.0",
    _s("hpc11", 13),
)

# --- spreadsheets and csv exports -------------------------------------------------------------------------
_add(
    "spreadsheet/csv_users_export",
    "username,email,temp_password,role\njdoe,jdoe@acme.com,{v},analyst\n",
    "Welcome" + _s("csv1", 3, _DIGITS) + "!",
)
_add(
    "spreadsheet/csv_api_keys",
    "client,api_key,created\nRetailCo,{v},2024-02-11\n",
    _s("csv2", 32),
)
_add(
    "spreadsheet/tsv_creds_hard",
    "host\tport\tuser\t\tnotes\npg-dw\t5432\tbi_ro\t{v}\tread only",
    "summer" + _s("csv3", 2, _DIGITS) + "dw",
)
_add(
    "spreadsheet/markdown_table",
    "| system | login | secret |\n|---|---|---|\n| SFTP | acme | {v} |",
    _s("csv4", 12),
)
_add(
    "spreadsheet/gsheets_sa_key",
    "gspread.service_account_from_dict({..., 'private_key_id': '{v}', ...})",
    _s("csv5", 40, _HEX),
)
_add(
    "spreadsheet/excel_protect",
    "ws.protection.password = '{v}'  # sheet protection on the finance model",
    "Budget" + _s("csv6", 4, _DIGITS),
)
_add(
    "spreadsheet/vba_connection",
    'cn.Open "Provider=SQLOLEDB;Data Source=FINSQL;Initial Catalog=GL;User ID=xl_user;Password={v};"',
    "xl" + _s("csv7", 8),
)
_add(
    "spreadsheet/airtable_pat",
    "AIRTABLE_TOKEN={v}",
    "pat" + _s("at1", 14) + "." + _s("at1b", 64, _HEX),
)
_add(
    "spreadsheet/smartsheet",
    "smartsheet.Smartsheet('{v}')",
    _s("sms1", 37),
)
_add(
    "spreadsheet/zip_password",
    "the export zip is encrypted, 7z x export.zip -p{v}",
    "Q3export" + _s("zip1", 3, _DIGITS),
)
_add(
    "spreadsheet/cell_formula",
    '=IMPORTDATA("https://api.acme.io/v2/report.csv?apikey={v}")',
    _s("csv8", 28),
)

# --- r -----------------------------------------------------------------------------------------------------
_add(
    "rlang/renviron",
    "# ~/.Renviron\nGITHUB_PAT={v}\nR_LIBS_USER=~/R/library",
    _GHP + _s("r1", 36),
)
_add(
    "rlang/sys_setenv",
    'Sys.setenv(OPENAI_API_KEY = "{v}")',
    _SK + _s("r2", 48),
)
_add(
    "rlang/dbconnect",
    'con <- DBI::dbConnect(RPostgres::Postgres(), dbname = "cohort", user = "epi", password = "{v}")',
    _s("r3", 14),
)
_add(
    "rlang/keyring_set",
    "keyring::key_set_with_value('redcap', password = '{v}')",
    _s("r4", 32, _UPPER[:26] + _DIGITS),
)
_add(
    "rlang/redcap_token",
    'REDCapR::redcap_read(redcap_uri = "https://redcap.med.example.edu/api/", token = "{v}")',
    _s("r5", 32, "0123456789ABCDEF"),
)
_add(
    "rlang/shinyapps",
    "rsconnect::setAccountInfo(name='ana-lab', token='" + _s("r6a", 32, "0123456789ABCDEF") + "', secret='{v}')",
    _s("r6", 40, ALNUM + "+/"),
)
_add(
    "rlang/posit_connect_key",
    "CONNECT_API_KEY={v} quarto publish connect",
    _s("r7", 32),
)
_add(
    "rlang/odbc_dsn",
    'dbConnect(odbc::odbc(), "SQLServerDSN", UID = "stats", PWD = "{v}")',
    _s("r8", 11) + "?",
)
_add(
    "rlang/rprofile_options",
    "options(census_api_key = '{v}')",
    _s("r9", 40, _HEX),
)

# --- julia -------------------------------------------------------------------------------------------------
_add(
    "julia/env_assign",
    'ENV["JULIA_PKG_SERVER_TOKEN"] = "{v}"',
    _s("jl1", 40),
)
_add(
    "julia/libpq_conn",
    'conn = LibPQ.Connection("host=dw dbname=sim user=jl password={v}")',
    _s("jl2", 15),
)
_add(
    "julia/auth_toml",
    '# ~/.julia/servers/juliahub.com/auth.toml\naccess_token = "{v}"\nexpires_at = 1714550400',
    _s("jl3", 64, _HEX),
)
_add(
    "julia/aws_jl",
    'aws = AWSConfig(creds=AWSCredentials("' + _AKIA + _s("jl4a", 16, _UPPER) + '", "{v}"))',
    _s("jl4", 40, ALNUM + "+/"),
)

# --- sas ---------------------------------------------------------------------------------------------------
_add(
    "sas/libname",
    'libname dw oracle user=sasuser password="{v}" path=DWPROD schema=ANALYTICS;',
    _s("sas1", 12),
)
_add(
    "sas/pwencode_output",
    "proc pwencode in='...'; run;\n{v}",
    "{SAS002}" + _s("sas2", 32, "0123456789ABCDEF"),
)
_add(
    "sas/viya_client",
    "curl -X POST https://viya.acme/SASLogon/oauth/token -u sas.cli:{v} -d grant_type=password",
    _s("sas3", 20),
)
_add(
    "sas/macro_var",
    "%let dbpass = {v};\nlibname td teradata user=&dbuser password=&dbpass;",
    "Teradata" + _s("sas4", 3, _DIGITS),
)
_add(
    "sas/authinfo",
    "# ~/_authinfo\ndefault user etl password {v}",
    _s("sas5", 12),
)

# --- matlab ------------------------------------------------------------------------------------------------
_add(
    "matlab/database_call",
    "conn = database('WAREHOUSE','matlab_ro','{v}');",
    _s("mat1", 12),
)
_add(
    "matlab/weboptions",
    "opts = weboptions('HeaderFields', {'Authorization', 'Bearer {v}'});",
    _s("mat2", 40),
)
_add(
    "matlab/setenv",
    "setenv('AZURE_STORAGE_KEY', '{v}')",
    _DRAW.b64("mat3", 64),
)
_add(
    "matlab/license_server_hard",
    "the MATLAB Online Server admin console login is admin / {v}",
    "mathworks" + _s("mat4", 2, _DIGITS),
)
_add(
    "matlab/thingspeak",
    "thingSpeakWrite(12345, data, 'WriteKey', '{v}')",
    _s("mat5", 16, _UPPER),
)

# --- connection dialogs and ide data sources --------------------------------------------------------------
_add(
    "dialog/dbeaver_prose",
    "In DBeaver > New Connection > PostgreSQL I put host dw.int, port 5432, user analyst, password {v}, "
    "and 'Test Connection' hangs",
    _s("dlg1", 10),
)
_add(
    "dialog/datagrip_xml",
    '<data-source name="prod@dw"><user-name>analyst</user-name><password>{v}</password></data-source>',
    _s("dlg2", 16),
)
_add(
    "dialog/odbc_ini",
    "[DW_PROD]\nDriver=PostgreSQL Unicode\nServername=dw.int\nUsername=bi\nPassword={v}\nPort=5432",
    _s("dlg3", 14),
)
_add(
    "dialog/tableau_dialog_screenshot",
    "screenshot text: Server: dw.int  Port: 5432  Database: sales  Username: tab_ro  Password: {v}  [Sign In]",
    _s("dlg4", 9) + "9",
)
_add(
    "dialog/ssms_prose",
    "SSMS connect dialog: SQL Server Authentication, login sa, {v} typed in the box, Remember password ticked",
    "Sql" + _s("dlg5", 6) + "#1",
)
_add(
    "dialog/pgadmin_servers_json",
    '{"Servers": {"1": {"Name": "dw", "Host": "dw.int", "Username": "pg", "Password": "{v}"}}}',
    _s("dlg6", 18),
)
_add(
    "dialog/jdbc_properties",
    "url=jdbc:postgresql://dw.int:5432/sales\nuser=tab_ro\npassword={v}\nssl=true",
    _s("dlg7", 15),
)
_add(
    "dialog/excel_data_connection",
    "Connection string copied from Data > Queries & Connections: Provider=MSOLEDBSQL;Password={v};"
    "Persist Security Info=True;User ID=xl",
    _s("dlg8", 13),
)
_add(
    "dialog/vscode_sqltools",
    '"sqltools.connections": [{"name": "dw", "driver": "PostgreSQL", "username": "me", "password": "{v}"}]',
    _s("dlg9", 12),
)
_add(
    "dialog/hard_no_keyword",
    "analyst / {v} @ dw.int:5432/sales",
    "kiwi" + _s("dlg10", 4, _DIGITS),
)

# --- data sharing links -----------------------------------------------------------------------------------
_add(
    "sharing/delta_share_profile",
    '{"shareCredentialsVersion": 1, "endpoint": "https://sharing.delta.io/delta-sharing/", "bearerToken": "{v}"}',
    _s("dsh1", 64, _B64URL),
)
_add(
    "sharing/dropbox_token",
    "dbx = dropbox.Dropbox('{v}')",
    "sl." + _s("dbx1", 130, _B64URL),
)
_add(
    "sharing/box_dev_token",
    "BOX_DEVELOPER_TOKEN={v}",
    _s("box1", 32),
)
_add(
    "sharing/protected_link_pw",
    "link to the labelled images: https://share.acme-lab.org/s/Hk3Lm9 — the link password is {v}",
    "cats&dogs" + _s("shr1", 2, _DIGITS),
)
_add(
    "sharing/nextcloud_app_password",
    "rclone config: [lab]\ntype = webdav\nurl = https://cloud.lab/remote.php/dav\nuser = ana\npass = {v}",
    _s("nc1", 5) + "-" + _s("nc2", 5) + "-" + _s("nc3", 5) + "-" + _s("nc4", 5) + "-" + _s("nc5", 5),
)
_add(
    "sharing/gcs_signed_url",
    "https://storage.googleapis.com/lab-share/model.safetensors?X-Goog-Algorithm=GOOG4-RSA-SHA256"
    "&X-Goog-Date=20240501T000000Z&X-Goog-Expires=604800&X-Goog-Signature={v}",
    _s("gcs1", 256, _HEX),
)
_add(
    "sharing/snowflake_reader_account",
    "reader account for the partner: locator RA12345, admin user PARTNER_ADMIN, initial pw {v}",
    _s("shr2", 16),
)
_add(
    "sharing/magic_link",
    "use this one-time login link for the dashboard: https://bi.acme.io/auth/magic?code={v}",
    _s("shr3", 48, _B64URL),
)
_add(
    "sharing/s3_sync_prose_de",
    "Für den Datenaustausch mit dem Partnerinstitut: Schlüssel-ID "
    + _AKIA
    + _s("shr4a", 16, _UPPER)
    + ", geheimer Schlüssel {v}",
    _s("shr4", 40, ALNUM + "+/"),
)
_add(
    "sharing/wetransfer_pw_es",
    "Te mandé los CSV por WeTransfer, la contraseña del enlace es {v}",
    "datos" + _s("shr5", 4, _DIGITS),
)

# --- research collaborations ------------------------------------------------------------------------------
_add(
    "research/zenodo_token",
    "ZENODO_TOKEN={v} python upload_dataset.py",
    _s("zn1", 60),
)
_add(
    "research/osf_pat",
    "osf -p abc12 upload results.csv  # OSF_TOKEN={v}",
    _s("osf1", 70),
)
_add(
    "research/figshare",
    "headers = {'Authorization': 'token {v}'}  # figshare",
    _s("fig1", 128, _HEX),
)
_add(
    "research/orcid_secret",
    "ORCID member API: client id APP-" + _s("orc0", 16, _UPPER) + ", client secret {v}",
    _uuid("orc1"),
)
_add(
    "research/redcap_prose",
    "Prof. Lee shared our REDCap API key in the group chat: {v}. Can you write the pull script?",
    _s("rcp1", 32, "0123456789ABCDEF"),
)
_add(
    "research/ncbi_key",
    "Entrez.api_key = '{v}'",
    _s("ncbi1", 36, _HEX),
)
_add(
    "research/irb_data_pw",
    "the de-identified cohort file is on the lab drive, the encryption passphrase the IRB approved is {v}",
    "correct horse cohort 42",
)
_add(
    "research/ukbb_key_hard",
    "UKB bulk download keyfile (.ukbkey) contents:\n1234567\n{v}",
    _s("ukb1", 64, _HEX),
)
_add(
    "research/physionet",
    "wget -r -N -c -np --user ana.k --password {v} https://physionet.org/files/mimiciv/2.2/",
    _s("phy1", 12),
)
_add(
    "research/synapse_pat",
    "syn = synapseclient.login(authToken='{v}')",
    "ey"
    + "JraWQiOiJXN05OOldMSlQ6SkVTSjpIN0NOOkJUVVM6WUNMNjpWSlVTIiwiYWxnIjoiUlMyNTYifQ."
    + _s("syp1", 120, _B64URL)
    + "."
    + _s("syp2", 86, _B64URL),
)
_add(
    "research/chinese_prose",
    "合作实验室的数据库账号是 labuser，密码是 {v}，请勿外传",
    "Lab" + _s("cn1", 6, _DIGITS),
)
_add(
    "research/japanese_prose",
    "共有サーバーのパスワードは {v} です",
    "kenkyu" + _s("jp1", 4, _DIGITS),
)
_add(
    "research/russian_prose",
    "доступ к кластеру: логин ivanov, пароль {v}",
    "Neutrino" + _s("ru1", 3, _DIGITS),
)
_add(
    "research/portuguese_prose",
    "a senha do banco de dados do projeto é {v}",
    "pesquisa" + _s("pt1", 3, _DIGITS),
)

# --- spark / hadoop / hive --------------------------------------------------------------------------------
_add(
    "spark/jdbc_option",
    '.option("url", jdbcUrl).option("user", "spark").option("password", "{v}").load()',
    _s("sp1", 16),
)
_add(
    "spark/submit_conf",
    "spark-submit --conf spark.hadoop.fs.s3a.access.key="
    + _AKIA
    + _s("sp2a", 16, _UPPER)
    + " --conf spark.hadoop.fs.s3a.secret.key={v} job.py",
    _s("sp2", 40, ALNUM + "+/"),
)
_add(
    "spark/hive_site",
    "<property><name>javax.jdo.option.ConnectionPassword</name><value>{v}</value></property>",
    _s("sp3", 12),
)
_add(
    "spark/beeline",
    "beeline -u jdbc:hive2://hs2:10000/default -n hive -p {v}",
    "hive" + _s("sp4", 6),
)
_add(
    "spark/keytab_b64",
    "I base64'd the keytab so you can see it: {v}",
    "BQIAAAB" + _DRAW.b64("sp5", 60),
)
_add(
    "spark/livy_basic",
    "Authorization: Basic {v}",
    base64.b64encode(("livy:" + _s("sp6", 14)).encode()).decode(),
)
_add(
    "spark/emr_studio_log_hard",
    "2024-05-01 10:02:11 INFO  ConnectionFactory: connecting as etl with {v}",
    _s("sp7", 18),
)

# --- ml platforms and mlops ---------------------------------------------------------------------------------
_add(
    "mlplatform/sagemaker_env",
    "environment={'HF_TOKEN': '{v}', 'HF_MODEL_ID': 'acme/ft'}",
    _HF + _s("mlp1", 34),
)
_add(
    "mlplatform/vertex_sa_key_b64",
    "GOOGLE_CREDENTIALS_B64={v}",
    base64.b64encode(
        ('{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----' + _s("mlp2", 40)).encode()
    ).decode(),
)
_add(
    "mlplatform/kubeflow_minio",
    "minio:\n  accessKey: minio\n  secretKey: {v}",
    "minio" + _s("mlp3", 3, _DIGITS),
)
_add(
    "mlplatform/minio_mc_alias",
    "mc alias set lake http://minio:9000 lakeadmin {v}",
    _s("mlp4", 24),
)
_add(
    "mlplatform/bentoml",
    "bentoml cloud login --api-token {v}",
    _s("mlp5", 20, _LOWER),
)
_add(
    "mlplatform/label_studio",
    "Authorization: Token {v}",
    _s("mlp6", 40, _HEX),
)
_add(
    "mlplatform/roboflow",
    'rf = Roboflow(api_key="{v}")',
    _s("mlp7", 20),
)
_add(
    "mlplatform/scale_ai",
    "scale api key live_{v}",
    _s("mlp8", 32, _HEX),
)
_add(
    "mlplatform/feast_registry",
    "registry: postgresql://feast:{v}@pg:5432/feast",
    _s("mlp9", 14),
)
_add(
    "mlplatform/determined",
    "det user login admin\nPassword for user 'admin': {v}",
    _s("mlp10", 10),
)
_add(
    "mlplatform/ray_dashboard_hard",
    "ray dashboard behind nginx basic auth — ray:{v}",
    "raycluster" + _s("mlp11", 2, _DIGITS),
)
_add(
    "mlplatform/hopsworks",
    "hopsworks.login(api_key_value='{v}')",
    _s("mlp12", 16) + "." + _s("mlp12b", 64),
)

# --- docker / k8s secrets in data stacks --------------------------------------------------------------------
_add(
    "k8s/secret_yaml_b64",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: warehouse\ndata:\n  password: {v}",
    base64.b64encode(("wh-" + _s("k8s1", 14)).encode()).decode(),
)
_add(
    "k8s/create_secret_literal",
    "kubectl create secret generic mlflow-db --from-literal=password={v}",
    _s("k8s2", 18),
)
_add(
    "k8s/compose_env",
    "services:\n  superset-db:\n    image: postgres:15\n    environment:\n      POSTGRES_PASSWORD: {v}",
    "superset" + _s("k8s0", 3, _DIGITS),
)
_add(
    "k8s/helm_set",
    "helm install airflow apache-airflow/airflow --set postgresql.auth.password={v}",
    _s("k8s3", 16),
)
_add(
    "k8s/docker_run_env",
    "docker run -e MINIO_ROOT_PASSWORD={v} -p 9000:9000 minio/minio server /data",
    _s("k8s4", 20),
)

# --- github / git in data repos -------------------------------------------------------------------------------
_add(
    "git/pat_in_remote",
    "git clone https://{v}@github.com/acme-data/pipelines.git",
    _GHP + _s("git1", 36),
)
_add(
    "git/fine_grained",
    "GH_TOKEN={v}",
    "github" + "_pat_" + _s("git2", 22) + "_" + _s("git2b", 59),
)
_add(
    "git/gitlab_pat",
    "pip install git+https://oauth2:{v}@gitlab.lab.org/ml/tools.git",
    "gl" + "pat-" + _s("git3", 20, _B64URL),
)
_add(
    "git/pip_extra_index",
    "pip install acme-feats --extra-index-url https://__token__:{v}@pypi.acme.io/simple",
    _s("git4", 28),
)
_add(
    "git/conda_token",
    "conda config --set channel_alias https://conda.anaconda.org/t/{v}",
    _s("git5", 8, _LOWER) + "-" + _s("git5b", 4, _LOWER) + "-" + _s("git5c", 12, _LOWER),
)

# --- chat / alerting integrations in data pipelines -----------------------------------------------------------
_add(
    "alerting/slack_webhook",
    "SLACK_WEBHOOK=https://hooks.slack.com/services/T0"
    + _s("sl1a", 8, _UPPER)
    + "/B0"
    + _s("sl1b", 8, _UPPER)
    + "/{v}",
    _s("sl1", 24),
)
_add(
    "alerting/teams_webhook",
    "great_expectations checkpoint notifies https://acme.webhook.office.com/webhookb2/"
    + _uuid("tm0")
    + "@"
    + _uuid("tm1")
    + "/IncomingWebhook/{v}/"
    + _uuid("tm2"),
    _s("tm3", 32, _HEX),
)
_add(
    "alerting/pagerduty",
    "routing_key: {v}",
    _s("pd1", 32, _HEX),
)
_add(
    "alerting/sendgrid",
    "SENDGRID_API_KEY={v}",
    "S" + "G." + _s("sg1", 22, _B64URL) + "." + _s("sg1b", 43, _B64URL),
)
_add(
    "alerting/telegram_bot",
    "bot = telebot.TeleBot('{v}')  # sends training-finished messages",
    _s("tgb1", 10, _DIGITS) + ":AA" + _s("tgb1b", 33, _B64URL),
)
_add(
    "alerting/discord_webhook",
    "https://discord.com/api/webhooks/" + _s("dw0", 18, _DIGITS) + "/{v}",
    _s("dw1", 68, _B64URL),
)
_add(
    "alerting/sentry_dsn",
    "sentry_sdk.init('https://{v}@o44.ingest.sentry.io/55')",
    _s("sn1", 32, _HEX),
)

# --- hard prose: low entropy, no keyword, spelled, split -----------------------------------------------------
_add(
    "prose/just_the_value",
    "ok try {v}",
    "Marble" + _s("pr1", 2, _DIGITS) + "Fox",
)
_add(
    "prose/spelled_nato",
    "It's {v}, all lowercase",
    "papa echo november golf uniform india november",
)
_add(
    "prose/it_is_words",
    "the notebook server login for the workshop is student and it's {v}",
    "banana-pancake",
)
_add(
    "prose/rot_reversed",
    "I wrote the warehouse password backwards so the log wouldn't catch it: {v}",
    "!" + _s("pr2", 8, _LOWER) + "tset",
)
_add(
    "prose/with_noise",
    ">>> conn.login(u, '{v}')\nTraceback (most recent call last):\n  File \"<stdin>\", line 1",
    _s("pr3", 11),
)
_add(
    "prose/ticket_reply",
    "Hi team, resetting the Metabase admin to {v} for now, please change after first login. Thx, Raj",
    "Metabase" + _s("pr4", 4, _DIGITS),
)
_add(
    "prose/slack_paste",
    "@ana the creds for the replica: ro_user {v}",
    _s("pr5", 10, _LOWER) + "42",
)
_add(
    "prose/chunks_with_dashes",
    "the lab key printed on the card is {v}",
    "-".join(_s(f"pr6{i}", 4, _UPPER) for i in range(6)),
)
_add(
    "prose/passphrase_words",
    "for the encrypted dataset volume use: {v}",
    "violet cactus seventeen tram",
)
_add(
    "prose/digits_pin",
    "door code to the GPU server room is {v}",
    _s("pr7", 6, _DIGITS),
)
_add(
    "prose/after_colon_german",
    "Zugangsdaten Jupyter-Server: benutzer gast / {v}",
    "Sommer" + _s("pr8", 4, _DIGITS),
)
_add(
    "prose/french_split",
    "le mot de passe de la base est en deux morceaux: {v} puis 'fin'",
    "debut" + _s("pr9", 5, _DIGITS),
)
_add(
    "prose/unicode_quotes",
    "set it to “{v}” and rerun the DAG",
    _s("pr10", 14),
)
_add(
    "prose/italian",
    "la password del server di calcolo è {v}",
    "Calcolo" + _s("pr11", 3, _DIGITS) + "!",
)
_add(
    "prose/korean",
    "분석 DB 비밀번호는 {v} 입니다",
    "bunseok" + _s("pr12", 4, _DIGITS),
)

# --- private keys and certs in data tooling ---------------------------------------------------------------------
_add(
    "keys/snowflake_rsa_p8",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n{v}\n-----END ENCRYPTED PRIVATE KEY-----",
    "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI" + _DRAW.b64("key1", 60),
)
_add(
    "keys/rsa_inline_json",
    '"private_key": "-----BEGIN RSA PRIVATE KEY-----\\n{v}\\n-----END RSA PRIVATE KEY-----"',
    "MIIEpAIBAAKCAQEA" + _DRAW.b64("key2", 72),
)
_add(
    "keys/ec_key",
    "cat tls/client.key\n-----BEGIN EC PRIVATE KEY-----\n{v}\n-----END EC PRIVATE KEY-----",
    "MHcCAQEEI" + _DRAW.b64("key3", 48),
)
_add(
    "keys/pkcs12_password",
    "keytool -importkeystore -srckeystore kafka.p12 -srcstoretype PKCS12 -srcstorepass {v}",
    _s("key4", 14),
)
_add(
    "keys/truststore_props",
    "ssl.truststore.location=/etc/kafka/ts.jks\nssl.keystore.password={v}",
    _s("key5", 12),
)
_add(
    "keys/age_secret",
    "sops uses this age identity: {v}",
    "AGE-SECRET-KEY-1" + _s("key6", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
)
_add(
    "keys/gpg_passphrase",
    "gpg --batch --passphrase {v} -d survey_raw.csv.gpg > survey_raw.csv",
    _s("key7", 16, _LOWER),
)

# --- cloud consoles / misc saas for data teams ---------------------------------------------------------------
_add(
    "saas/notion_token",
    "NOTION_TOKEN={v}  # for the data catalog sync",
    "secret_" + _s("nt1", 43),
)
_add(
    "saas/segment_write_key",
    "analytics.write_key = '{v}'",
    _s("seg1", 32),
)
_add(
    "saas/mixpanel_secret",
    "mixpanel export: curl -u {v}: 'https://data.mixpanel.com/api/2.0/export?from_date=2024-01-01'",
    _s("mxp1", 32, _HEX),
)
_add(
    "saas/amplitude",
    "AMPLITUDE_API_KEY=" + _s("amp0", 32, _HEX) + "\nAMPLITUDE_SECRET_KEY={v}",
    _s("amp1", 32, _HEX),
)
_add(
    "saas/hubspot",
    "hubspot private app token {v}",
    "pat-na1-" + _uuid("hs1"),
)
_add(
    "saas/salesforce_pw_token",
    "sf = Salesforce(username='etl@acme.com', password='s3cret', security_token='{v}')",
    _s("sfc1", 25),
)
_add(
    "saas/stripe_restricted",
    "stripe sigma export uses {v}",
    "rk" + "_live_" + _s("str1", 99),
)
_add(
    "saas/datadog",
    "DD_API_KEY={v} DD_APP_KEY=" + _s("dd0", 40, _HEX),
    _s("dd1", 32, _HEX),
)
_add(
    "saas/cloudflare_r2",
    "R2 bucket for the lake: endpoint https://acct.r2.cloudflarestorage.com, access key "
    + _s("r2a", 32, _HEX)
    + ", secret {v}",
    _s("r2b", 64, _HEX),
)
_add(
    "saas/backblaze",
    "b2 authorize-account 005" + _s("b2a", 22, _HEX) + " {v}",
    "K005" + _s("b2b", 27),
)
_add(
    "saas/digitalocean_spaces",
    "SPACES_SECRET={v}",
    _s("do1", 43, ALNUM + "+/"),
)
_add(
    "saas/mapbox_secret",
    "mapbox token for the geo notebook: {v}",
    "s" + "k.ey" + "J1Ijoi" + _s("mbx1", 40, _B64URL) + "." + _s("mbx1b", 22, _B64URL),
)

# --- more hard forms: no keyword, human-chosen, odd syntax, noise ----------------------------------------
_HARD = [
    ("hard/bare_line_after_host", "dw.int\nanalyst\n{v}\n5432", "Pelican" + _s("h1", 3, _DIGITS)),
    ("hard/r_vector", 'creds <- c("bi_ro", "{v}")', "bluemoon" + _s("h2", 2, _DIGITS)),
    ("hard/julia_tuple", 'auth = ("jl", "{v}")', "Lorenz" + _s("h3", 4, _DIGITS)),
    ("hard/matlab_cell", "c = {'matlab_ro', '{v}'};", "Fourier" + _s("h4", 2, _DIGITS) + "?"),
    ("hard/sas_options", "options set=PGPASS '{v}';", "harvest" + _s("h5", 3, _DIGITS)),
    ("hard/slash_pair", "use etl_user/{v} on the replica", "October" + _s("h6", 2, _DIGITS)),
    ("hard/colon_pair_prose", "creds are loader:{v} (same as staging)", "snowcone" + _s("h7", 3, _DIGITS)),
    ("hard/same_as_prose", "same one as the wifi, {v}", "LabWifi" + _s("h8", 4, _DIGITS)),
    ("hard/quoted_in_commit_msg", "git log -1: 'temp: use {v} until vault is back'", "tmpfix-" + _s("h9", 5, _LOWER)),
    (
        "hard/yaml_anchor",
        "defaults: &db\n  user: ro\n  pw: &pw {v}\nprod:\n  <<: *db",
        "anchor" + _s("h10", 4, _DIGITS),
    ),
    ("hard/toml_inline", 'warehouse = { host = "dw", user = "ro", pw = "{v}" }', _s("h11", 9, _LOWER)),
    ("hard/hex_spaced", "key bytes: {v}", " ".join(_s(f"h12{i}", 2, _HEX) for i in range(16))),
    ("hard/ini_weird_name", "[dw]\nh=dw.int\nu=ro\nx={v}", "Gardenia" + _s("h13", 3, _DIGITS)),
    (
        "hard/log_noise",
        "12:01:03 DEBUG conn args=('dw.int', 5432, 'ro', '{v}', 'sales') retry=3",
        "mango" + _s("h14", 4, _DIGITS),
    ),
    ("hard/url_encoded", "postgresql://ro:{v}@dw.int/sales", "p%40ss" + _s("h15", 5, _LOWER) + "%21"),
    ("hard/emoji_noise", "🔑 {v} 🔑 (don't share)", "Rainbow" + _s("h16", 3, _DIGITS) + "Trout"),
    (
        "hard/first_letters",
        "the notebook password is the first letters of our lab motto, {v}",
        "wmdtmwu" + _s("h17", 2, _DIGITS),
    ),
    ("hard/spelled_digits", "PIN for the data room safe: {v}", "four two nine one"),
    ("hard/cli_positional", "./sync.sh dw.int ro {v} sales", "Quokka" + _s("h18", 3, _DIGITS)),
    ("hard/sql_comment", "-- login as reporting / {v}\nSELECT * FROM kpi_daily;", "kpi" + _s("h19", 5, _LOWER) + "!"),
    (
        "hard/stata_odbc",
        'odbc load, exec("select * from cohort") conn("DSN=DW;UID=stata;PWD={v}")',
        "Stata" + _s("h20", 4, _DIGITS),
    ),
    ("hard/spss_syntax", "GET DATA /TYPE=ODBC /CONNECT='DSN=dw;UID=spss;PWD={v};'", "spss" + _s("h21", 6, _LOWER)),
    ("hard/dutch_prose", "het wachtwoord voor de rekenserver is {v}", "Tulpen" + _s("h22", 3, _DIGITS)),
    ("hard/polish_prose", "hasło do klastra to {v}", "Wisla" + _s("h23", 4, _DIGITS)),
    ("hard/turkish_prose", "veri ambarı şifresi: {v}", "Ankara" + _s("h24", 3, _DIGITS) + "."),
    ("hard/reply_only", "> what did you set it to?\n{v}", "correcthorse" + _s("h25", 2, _DIGITS)),
    ("hard/json_odd_key", '{"host": "dw.int", "u": "ro", "p": "{v}"}', "Lighthouse" + _s("h26", 2, _DIGITS)),
    ("hard/env_lowercase", "db_pw={v} python load.py", "kettle" + _s("h27", 3, _DIGITS)),
]
for _name, _text, _needle in _HARD:
    _add(_name, _text, _needle)

# ========================================================================================================
# ordinary texts: no secret, near the forms
# ========================================================================================================

_ORD_FIXED: list[str] = [
    "Set SNOWFLAKE_PASSWORD in your environment; the connector reads it with os.environ['SNOWFLAKE_PASSWORD'].",
    "password = os.getenv('PGPASSWORD')  # never hard-code it",
    "token = dbutils.secrets.get(scope='kv', key='databricks-token')",
    "api_key = userdata.get('HF_TOKEN')",
    'Sys.getenv("OPENAI_API_KEY")',
    'ENV["JULIA_PKG_SERVER_TOKEN"]',
    "password: \"{{ env_var('DBT_PASSWORD') }}\"",
    "AIRFLOW_CONN_WAREHOUSE='postgres://airflow:${WAREHOUSE_PASSWORD}@pg-dw:5432/analytics'",
    "export WANDB_API_KEY=<your-key-here>",
    "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "OPENAI_API_KEY=sk-...",
    "client = OpenAI()  # picks up OPENAI_API_KEY from the environment",
    "aws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
    "AccountKey=<storage-account-key>",
    "jupyter server list shows no running servers",
    "Jupyter asks for a token: copy the one printed in the terminal when the server starts.",
    "c.ServerApp.token = ''  # disabled because we run behind JupyterHub auth",
    "The password field in profiles.yml can be templated with env_var.",
    "Error: 401 Unauthorized — invalid API key provided.",
    "snowflake.connector.errors.DatabaseError: 250001: Incorrect username or password was specified.",
    'psycopg2.OperationalError: FATAL:  password authentication failed for user "dbt"',
    "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
    "HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/api/models/acme/private",
    "wandb: ERROR api_key not configured (no-tty). call wandb.login(key=[your_api_key])",
    "mlflow.exceptions.RestException: UNAUTHENTICATED: Credential was not sent or was of an unsupported type",
    "PineconeApiException: (401) Reason: Unauthorized",
    "kaggle.rest.ApiException: (401) Unauthorized — check ~/.kaggle/kaggle.json",
    "ssh: connect to host login1.hpc.example.edu port 22: Connection timed out",
    "sbatch: error: Batch job submission failed: Invalid account or account/partition combination",
    "The key rotation policy for the lake is 90 days; tokens older than that are revoked automatically.",
    "Store the Tableau personal access token in the vault, not in the workbook.",
    "Do not commit kaggle.json; add it to .gitignore.",
    "Use a Databricks secret scope instead of pasting the token into the notebook.",
    "Remember password is unticked in the DBeaver connection dialog.",
    "The Test Connection button in DataGrip returns 'Connection refused'.",
    "Password: (leave empty to use IAM authentication)",
    "password=********",
    "Password: [hidden]",
    "token: REDACTED",
    "secret_key: <set via --set-string>",
    "sasl.password=${file:/etc/kafka/secrets.properties:sasl.password}",
    "spark.hadoop.fs.s3a.aws.credentials.provider=com.amazonaws.auth.InstanceProfileCredentialsProvider",
    "fs.azure.account.auth.type=OAuth",
    "git clone https://github.com/acme-data/pipelines.git",
    "pip install --extra-index-url https://pypi.acme.io/simple acme-feats",
    "mongodb+srv://cluster0.ab1cd.mongodb.net/features?retryWrites=true&authMechanism=MONGODB-AWS",
    "postgresql://localhost:5432/analytics",
    "jdbc:redshift://analytics.c8xk2.us-east-1.redshift.amazonaws.com:5439/dev",
    "https://adb-4455.12.azuredatabricks.net/?o=4455#notebook/1234",
    "https://huggingface.co/acme/llama-ft/resolve/main/config.json",
    "https://wandb.ai/acme/segmentation/runs/3kq9x2ab",
    "https://app.mode.com/acme/reports/9a1b",
    "https://lakeprod.blob.core.windows.net/public/readme.txt",
    "s3://lake-raw/events/year=2024/month=05/part-00000.snappy.parquet",
    "abfss://raw@lakeprod.dfs.core.windows.net/events/",
    "gs://lab-share/model.safetensors",
    "/scratch/ana/runs/2024-05-01/checkpoint-12000/",
    "~/.kaggle/kaggle.json must have permissions 600.",
    "chmod 600 ~/.pgpass",
    "Token counts: prompt_tokens=1532, completion_tokens=211, total_tokens=1743",
    "The tokenizer splits 'unbelievable' into three tokens.",
    "max_new_tokens=256, temperature=0.7, top_p=0.95",
    "key_column = 'customer_id'  # the primary key of the dimension table",
    "PRIMARY KEY (order_id, line_no)",
    "FOREIGN KEY (customer_key) REFERENCES dim_customer(customer_key)",
    "df.groupby('key').agg({'value': 'sum'})",
    "The surrogate key is a hash of the natural key columns.",
    "SELECT MD5(CONCAT(user_id, '|', event_ts)) AS event_key FROM events",
    "secret sauce of this model is the data cleaning, not the architecture",
    "Passwords in the users table are hashed with argon2; we never see them.",
    "The word 'password' appears 14 times in the survey free-text answers.",
    "Feature 'has_password_reset' is the strongest predictor of churn.",
    "Column api_key_created_at has 3% nulls.",
    "Ruff flags S105: possible hardcoded password assigned to 'password_field_name'.",
    "password_field_name = 'pwd'",
    "TOKEN_EXPIRY_SECONDS = 3600",
    "MAX_KEY_LENGTH = 64",
    "pytest -k test_token_refresh -x",
    "The Kerberos ticket expired; run kinit again.",
    "klist: No credentials cache found (filename: /tmp/krb5cc_1000)",
    "Enter passphrase for key '/home/ana/.ssh/id_ed25519':",
    "Enter your current PAM password:",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGZ1bm55IGtleSBmb3IgdGhlIGNsdXN0ZXIgcGxz ana@laptop",
    "The key fingerprint is SHA256:Rk8hB0u3m0Q3h1xYc3Yw2b5r0T8lQm9ZkE4p7Wn6v1s ana@laptop",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE----- (the public CA bundle for the warehouse)",
    "sha256sum train.parquet\n" + _s("o_sha1", 64, _HEX) + "  train.parquet",
    "md5: " + _s("o_md5", 32, _HEX) + "  census_2020.csv",
    "integrity: sha512-" + _DRAW.b64("o_int", 64),
    "model.safetensors: sha256 " + _s("o_sha2", 64, _HEX),
    "commit " + _s("o_git1", 40, _HEX) + "\nAuthor: Ana K <ana@lab.org>\n\n    fix dbt snapshot",
    "Merge " + _s("o_git2", 7, _HEX) + ".." + _s("o_git3", 7, _HEX),
    "run_id = '" + _s("o_run", 32, _HEX) + "'",
    "experiment_id: " + _s("o_exp", 18, _DIGITS),
    "wandb run id: " + _s("o_wb", 8, _LOWER),
    "Job ID 4432, run 88123456 finished in 4m12s",
    "Submitted batch job 8812345",
    "query_id: 01b3" + _s("o_sfq", 4, _HEX) + "-0000-" + _s("o_sfq2", 4, _HEX) + "-0000-" + _s("o_sfq3", 12, _HEX),
    "bq job id: dwh-prod-4412:EU.bquxjob_" + _s("o_bq", 8, _HEX) + "_18f2" + _s("o_bq2", 8, _HEX),
    'ETag: "' + _s("o_etag", 32, _HEX) + '"',
    "x-amz-request-id: " + _s("o_req", 16, _UPPER),
    "X-Request-Id: " + _uuid("o_xr"),
    "dataset DOI: 10.5281/zenodo.8812345",
    "ORCID: 0000-0002-1825-0097",
    "arXiv:2405.01234v2",
    "PMID: 38712345",
    "Python 3.11.9, pandas 2.2.2, numpy 1.26.4, scikit-learn 1.4.2",
    "torch==2.3.0+cu121 transformers==4.41.1 accelerate==0.30.1",
    'R version 4.4.0 (2024-04-24) -- "Puppy Cup"',
    "Julia Version 1.10.3",
    "MATLAB R2024a Update 3",
    "SAS 9.4 TS1M8",
    "CUDA Version: 12.4   Driver Version: 550.54.15",
    "NVIDIA H100 80GB HBM3, 81559MiB, 0% util",
    "Snowflake account locator: ab12345.eu-west-1",
    "Databricks workspace id: 4455123412341234",
    "GCP project: dwh-prod-4412",
    "Azure subscription " + _uuid("o_azsub"),
    "tenant_id = '" + _uuid("o_tenant") + "'",
    "client_id = '" + _uuid("o_client") + "'  # public app registration id",
    "dataset_id = '" + _uuid("o_ds") + "'",
    "Pinecone index 'docs-v2' dimension 1536 metric cosine",
    "Qdrant collection 'chunks' has 1,204,331 points",
    "embedding[:5] = [0.0123, -0.0456, 0.0789, 0.0012, -0.0345]",
    "base64 of the logo: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "echo aGVsbG8gd29ybGQ= | base64 -d  # prints hello world",
    "header.payload.signature is the shape of every JWT",
    'eyJhbGciOiJIUzI1NiJ9 decodes to {"alg":"HS256"}',
    "The API key goes in the X-Api-Key header; see the docs page 'Authentication'.",
    "Rotate the Fivetran API secret from Account Settings > API Config.",
    "To create a Hugging Face token, go to Settings > Access Tokens and choose 'read'.",
    "Weights & Biases keys are 40 hex characters; find yours at wandb.ai/authorize.",
    "A SAS token's sig parameter is an HMAC; treat the whole URL as a credential.",
    "Presigned URLs expire after X-Amz-Expires seconds (default 3600).",
    "Use Delta Sharing profile files only from the recipient's secure storage.",
    "The share link https://share.acme-lab.org/s/public-sample has no password; it is the public sample.",
    "kaggle datasets download -d acme/retail",
    "huggingface-cli download acme/llama-ft --local-dir ./ckpt",
    "dvc pull -r storage",
    "dbt run --select staging+ --target prod",
    'airflow dags trigger nightly_etl --conf \'{"run_date": "2024-05-01"}\'',
    "sbatch --gres=gpu:4 --time=24:00:00 train.slurm",
    "srun --pty -p interactive bash",
    "module load cuda/12.4 python/3.11",
    "rsync -av data/ ana@dtn.hpc.example.edu:/scratch/ana/",
    "ssh -J ana@login1.hpc.example.edu ana@gpu042",
    "libname dw oracle path=DWPROD schema=ANALYTICS authdomain=OraAuth;",
    "conn = database('WAREHOUSE','','');  % uses Windows authentication",
    "con <- DBI::dbConnect(odbc::odbc(), dsn = 'DW_PROD')  # credentials from the DSN's Kerberos config",
    'conn = LibPQ.Connection("host=dw dbname=sim")',
    "keyring::key_get('redcap')",
    "options(census_api_key = Sys.getenv('CENSUS_API_KEY'))",
    "customer_id,order_id,amount\n1001,50021,19.99\n1002,50022,5.00",
    "username,email,role\njdoe,jdoe@acme.com,analyst",
    "| system | login | secret |\n|---|---|---|\n| SFTP | acme | in 1Password |",
    '=IMPORTDATA("https://data.example.gov/api/views/public.csv")',
    "ws.protection.sheet = True  # protect formulas from accidental edits",
    "The CSV export has a column named password_last_changed (a date).",
    "Sheet 'Keys' lists the lookup keys for the VLOOKUP, e.g. SKU-00123.",
    "docker run -e MINIO_ROOT_PASSWORD_FILE=/run/secrets/minio -p 9000:9000 minio/minio server /data",
    "kubectl get secret warehouse -o jsonpath='{.data.password}' | base64 -d",
    "helm install airflow apache-airflow/airflow --set postgresql.auth.existingSecret=airflow-db",
    "POSTGRES_PASSWORD_FILE: /run/secrets/pg_password",
    "fernet_key = {FERNET_KEY}",
    "SECRET_KEY = os.environ['SUPERSET_SECRET_KEY']",
    "MB_EMBEDDING_SECRET_KEY is required to embed dashboards.",
    "grafana: auth.anonymous enabled = false",
    "The notebook output was cleared with nbstripout before committing.",
    "nbstripout --install  # keeps outputs (and any printed secrets) out of git",
    "I rotated the key yesterday, so whatever was in the old notebook is dead now.",
    "Can you check why the token refresh fails at midnight UTC?",
    "The Slack webhook URL is stored in Airflow Variables as slack_webhook.",
    "sentry_sdk.init(dsn=os.environ['SENTRY_DSN'])",
    "routing_key comes from the PagerDuty service integration page.",
    "Sign in with SSO to continue to Tableau Cloud.",
    "Your password must be at least 14 characters and contain a symbol.",
    "Forgot your password? We'll email you a reset link.",
    "Mot de passe oublié ? Contactez l'équipe data.",
    "Passwort vergessen? Wende dich an den HPC-Support.",
    "密码已过期，请联系管理员重置。",
    "パスワードは管理者に問い合わせてください。",
    "Пароль от кластера выдаёт служба поддержки, не пишите его в чат.",
    "A senha deve ser trocada a cada 90 dias.",
    "The door to the GPU room uses badge access only.",
    "Version 2.4.1 fixes the key error in the parquet reader (KeyError: 'event_ts').",
    "KeyError: 'api_key'",
    "AttributeError: 'NoneType' object has no attribute 'token'",
    "ValueError: secret scope 'kv' does not exist",
    "UUID('" + _uuid("o_uuid1") + "')",
    "checkpoint step_0012000 loss 1.834 lr 2.5e-05",
    "epoch 3/10 - val_auc 0.912 - val_loss 0.2841",
]

_ORD_GEN: list[str] = []
_tables = ["orders", "events", "sessions", "customers", "invoices", "features", "labels", "embeddings"]
for _i, _t in enumerate(_tables):
    _ORD_GEN.append(f"SELECT count(*) FROM analytics.{_t} WHERE loaded_at > current_date - {_i + 1};")
    _ORD_GEN.append(f"s3://lake-curated/{_t}/_SUCCESS  etag {_s('o_et' + _t, 32, _HEX)}")
for _i in range(10):
    _ORD_GEN.append(f"run {_s('o_r' + str(_i), 8, _LOWER)} finished: accuracy {0.8 + _i / 100:.2f}")
for _i in range(8):
    _ORD_GEN.append(f"Docker image digest sha256:{_s('o_dig' + str(_i), 64, _HEX)}")

BLIND12_ORDINARY: list[str] = (_ORD_FIXED + _ORD_GEN)[:200]
