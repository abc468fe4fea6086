"""Credentials in data and machine-learning work (issue 36): notebooks' and pipelines' tools, warehouses' and
clusters' configuration, analysis languages (R, MATLAB, SAS), model and inference services.

- **a secret-named parameter on a command line**: ``papermill -p db_pass X``, ``--param api_token=X``,
  ``--conf spark.x.password=X``, ``--var DB_PASSWORD X``: the parameter's name says it is a secret;
- **a value put into a secret store**: ``databricks secrets put-secret scope key --string-value X``,
  ``aws secretsmanager create-secret --secret-string X``, ``az keyvault secret set --value X``;
- **a user created with a password**: ``airflow users create ... -p X``, ``superset fab create-admin --password X``;
- **a name-value pair in a call** (MATLAB, R, Spark's options, Java properties): ``'WriteKey', 'X'``,
  ``.option("password", "X")``, ``conf.set("fs.azure.account.key.acct...", "X")``, ``setProperty("pwd", "X")``;
- **Hadoop-style properties**: ``<name>javax.jdo.option.ConnectionPassword</name><value>X</value>``;
- **a dotted setting and its value apart by blanks** (spark-defaults.conf, Flink, Hadoop's ``-D``):
  ``spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net X``;
- **reversible encodings that say so** (SAS's ``{SAS002}``..., WebSphere's ``{xor}``...): their bodies decode
  to the password; a hash (``{SSHA}``) stays;
- **a token in space-separated groups after its noun**: ``key bytes: 5c 50 a6 ...``, ``token is dapi 92e6a164 ...``;
- **a key in dashed groups after its noun**: ``the lab key printed on the card is 1J1F-XZQ0-8FIL-...``;
- **a random value after a secret's noun, a few words and a colon** (``Stitch import API token (from the
  integration page): X``, ``the munge key we use: X``, ``I base64'd the keytab so you can see it: X``), or after
  ``is`` or ``equals`` (``the access thing snowflake gave me is X``, ``the header equals X``), or right after
  ``secret``; only a random or token-shaped value counts;
- **a data or AI service's name, a colon and a token** (``together: X``, ``fivetran: X``);
- **SAS's and YAML's ways to set a value**: ``options set=PGPASS 'X';``, ``%let db_pw = X;``,
  ``pw: &pw X`` (an anchor before the value);
- **a service account key's id**: ``private_key_id: <40 hex>``.

A value that is code, a variable, a placeholder, a path or a plain word stays. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import token_shaped, unquote
from kernel.redaction.places import Place, keep_named_value
from kernel.redaction.values import about_a_secret, looks_random, placeholder_token, value_is_code

_SECRETISH = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key|credential)"
)
# a parameter's name ending in a secret's word, or with one in it (db_pass, apiToken, sf_password_prod)
_SECRET_PARAM = rf"[A-Za-z_][\w.-]{{0,40}}?{_SECRETISH}[\w.-]{{0,20}}|{_SECRETISH}[\w.-]{{0,20}}"


def _plain(value: str) -> bool:
    """A value that is no credential: code, a variable, a placeholder, a path, or empty."""
    bare = unquote(value.strip())
    return (
        not bare
        or value_is_code(bare)
        or placeholder_token(bare)
        or bare[:1] in "$%{<@/~&"
        or "://" in bare
        or bare.lower() in ("true", "false", "none", "null", "xxx", "***", "...")
    )


def _keep_named(match: re.Match[str]) -> bool:
    """Keep code, and a lower-case identifier: a list of field names (``['password', 'email']``) holds no value."""
    value = unquote(match.group(2))
    return _plain(value) or re.fullmatch(r"[a-z_]{1,40}", value) is not None or keep_named_value(match)


def _keep_value(match: re.Match[str]) -> bool:
    value = unquote(match.group(1))
    return _plain(value) or (value.isalpha() and value.islower())


# words that say the value is about the key, not the key: "the key hash is X", "the token's id: X"
_ABOUT_THE_KEY = re.compile(
    r"(?i)\b(?:hash|id|fingerprint|checksum|digest|sha\w{0,6}|md5|name|length|size|version|path|url|file|prefix)\b"
)
_PUBLIC = re.compile(r"(?i)\bpub(?:lic)?\b|\bs3\b|\bobject\b|\bcache\b|\bhost\b")


def _keep_unless_random(match: re.Match[str]) -> bool:
    """Keep a value that is not random, a file's path, or the value of a public key (``public key: X``)."""
    value = unquote(match.group(1).rstrip(".,;"))
    if _plain(value) or about_a_secret(value) or re.search(r"\.[A-Za-z]{2,5}\Z", value):
        return True
    before = match.string[max(0, match.start() - 30) : match.start(1)]
    if _PUBLIC.search(before) or _ABOUT_THE_KEY.search(before) or value.startswith("age1"):
        return True
    return not (token_shaped(value) or (len(value) >= 16 and looks_random(value)))


def _keep_groups(match: re.Match[str]) -> bool:
    """Groups of hex or letters that mix digits and letters across them, not a date or a count."""
    value = match.group(1)
    compact = value.replace(" ", "").replace("-", "")
    return not (any(c.isdigit() for c in compact) and any(c.isalpha() for c in compact)) or placeholder_token(compact)


_PARAM_FLAG = r"(?:-[pPrD]|--param(?:eter)?s?|--parameters?_raw|--conf|--var|--set|--define|--extra-vars|--env|-e)"
_STORE_VALUE = r"--(?:string-value|secret-string|secret-value|value|bytes-value|secret-binary|data)"
_CREATE_USER = (
    r"(?:users?[ \t]{1,4}(?:create|add)|create-?(?:admin|user|superuser)|add-?user|useradd|user[ \t]{1,4}create)"
)
_VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'`;|&)]{1,256})"

# data and AI services whose name, a colon and a token make a key (``together: X``)
_SERVICES = (
    "together", "replicate", "anyscale", "fireworks", "groq", "deepinfra", "mistral", "cohere", "assemblyai",
    "deepgram", "elevenlabs", "perplexity", "openrouter", "voyage", "jina", "pinecone", "weaviate", "qdrant", "wandb",
    "neptune", "clearml", "stitch", "fivetran", "airbyte", "redcap", "labelbox", "roboflow", "runpod", "lambdalabs",
    "paperspace", "kaggle",
)  # fmt: skip


def _keep_second(match: re.Match[str]) -> bool:
    return _plain(match.group(2))


DATA_TOOLS: list[Place] = [
    # papermill -p db_pass X, spark-submit --conf spark.x.password=X, dbt --vars, helm --set a.password=X
    Place(
        "secret-parameter",
        rf"(?i)(?<!\S){_PARAM_FLAG}[ \t]{{1,4}}({_SECRET_PARAM})(?:[ \t]{{1,4}}|=){_VALUE}",
        2,
        _keep_named,
        line_words=("-p", "-r", "-d", "--param", "--conf", "--var", "--set", "--define", "--extra", "--env", "-e"),
    ),
    # databricks secrets put-secret s k --string-value X, aws secretsmanager ... --secret-string X
    Place(
        "secret-store-value",
        rf"(?i)\b(?:secrets?|kv|keyvault|vault|secretsmanager)\b[^\n]{{0,160}}?(?<!\S){_STORE_VALUE}(?:[ \t]{{1,4}}|=)"
        rf"{_VALUE}",
        1,
        _keep_value,
        line_words=("secret", "kv", "vault"),
    ),
    # airflow users create ... -p X, superset fab create-admin --password X
    Place(
        "created-user-password",
        rf"(?i)\b{_CREATE_USER}\b[^\n]{{0,200}}?(?<!\S)(?:-p|--pass(?:word)?|--pw)(?:[ \t]{{1,4}}|=){_VALUE}",
        1,
        _keep_value,
        line_words=("user", "admin"),
    ),
    # 'WriteKey', 'X' / .option("password", "X") / conf.set("fs.azure.account.key.acct", "X") / c("pwd", "X")
    Place(
        "name-value-pair",
        rf"(?i)([\"'](?:{_SECRET_PARAM}|[\w.-]{{0,60}}(?:write|read|account|master|shared|signing)[._-]?key"
        rf"[\w.-]{{0,60}})[\"'])[ \t]{{0,4}},[ \t]{{0,4}}(\"[^\"\n]{{1,256}}\"|'[^'\n]{{1,256}}')",
        (2,),
        _keep_named,
        line_words=("pass", "pwd", "secret", "token", "key", "credential"),
    ),
    # <name>javax.jdo.option.ConnectionPassword</name><value>X</value> (Hadoop, Hive, HBase, Oozie)
    Place(
        "property-secret",
        rf"(?i)<name>[ \t]{{0,8}}([^<\n]{{0,120}}(?:{_SECRETISH}|\.key\b|\.key\.)[^<\n]{{0,120}})</name>"
        r"[ \t]{0,40}(?:\r?\n[ \t]{0,40})?<value>([^<\n]{1,512})</value>",
        2,
        _keep_named,
        text_words=("<name>",),
    ),
    # spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net X (spark-defaults.conf, flink-conf without ':')
    Place(
        "dotted-setting",
        rf"(?im)^[ \t]{{0,8}}([a-z][\w-]{{0,40}}(?:\.[\w-]{{1,40}}){{1,12}}?\.(?:{_SECRETISH}|key)"
        r"(?:\.[\w-]{1,40}){0,8})[ \t]{1,40}([^\s=:][^\s]{0,511})[ \t]*$",
        2,
        _keep_named,
        line_words=("pass", "pwd", "secret", "token", "key", "credential"),
    ),
    # {SAS002}7174F193..., {xor}Lz4sLCgwLTs=, {aes}...: an encoding that decodes to the password
    Place(
        "encoded-password",
        r"(?i)(\{(?:sas00[1-5]|xor|aes(?:128|256)?|pbe)\}[A-Za-z0-9+/=]{6,512})",
        1,
        None,
        text_words=("{sas00", "{xor}", "{aes", "{pbe}"),
    ),
    # key bytes: 5c 50 a6 8c ..., token is dapi 92e6a164 f2c431b8 ...: a credential in blank-separated groups
    Place(
        "grouped-token",
        r"(?i)\b(?:key|token|secret|pat|dapi|bytes|passphrase)\b[^\n]{0,20}?[:=]?[ \t]{1,4}(?:dapi[ \t]{1,4})?"
        r"((?:[0-9a-f]{2}[ \t]){15,63}[0-9a-f]{2}|(?:[0-9a-f]{4}[ \t]){7,31}[0-9a-f]{4}|"
        r"(?:[0-9a-f]{8}[ \t]){3,15}[0-9a-f]{8})(?![ \t]?[0-9a-f])",
        1,
        _keep_groups,
        line_words=("key", "token", "secret", "pat", "dapi", "bytes", "passphrase"),
    ),
    # the lab key printed on the card is 1J1F-XZQ0-8FIL-0LBW-1CIS-4KQN (a licence, product or activation key)
    Place(
        "dashed-key",
        r"(?i)\b(?:key|licen[cs]e|serial|activation|product[ \t]code|code|token)\b[^\n]{0,40}?"
        r"(?<![\w-])((?-i:[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,7}))(?![\w-])",
        1,
        _keep_groups,
        line_words=("key", "licen", "serial", "activation", "code", "token"),
    ),
    # TSC.PersonalAccessTokenAuth('name', 'X'), globus_sdk.RefreshTokenAuthorizer('X', client), AzureKeyCredential('X')
    Place(
        "auth-constructor",
        r"\b[A-Z]\w{0,40}(?:Auth|Authorizer|Authenticator|Credentials?)[ \t]{0,4}\([ \t]{0,4}"
        r"(?:[\"'][^\"'\n]{0,80}[\"'][ \t]{0,4},[ \t]{0,4})?[\"']([^\"'\n]{16,512})[\"']",
        1,
        _keep_unless_random,
        line_words=("auth", "credential"),
    ),
    # MATLAB's database('src', 'user', 'X'), R's odbcConnect("dsn", "uid", "X"): the third argument is the password
    Place(
        "connect-password",
        r"(?i)\b(?:database|odbcConnect|sqlConnect|dbConnect)[ \t]{0,4}\((?:[ \t]{0,4}(?:\"[^\"\n]{0,128}\"|"
        r"'[^'\n]{0,128}'|[\w.$]{1,60}(?:\(\))?)[ \t]{0,4},){2,3}[ \t]{0,4}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')"
        r"[ \t]{0,4}\)",
        1,
        _keep_value,
        line_words=("database", "connect"),
    ),
    # api_key = f"X", Password = @"X", token = r'X': a string literal with its prefix (Python, C#)
    Place(
        "prefixed-literal",
        rf"(?i)\b([\w.]{{0,40}}{_SECRETISH}\w{{0,20}})[ \t]{{0,4}}[:=][ \t]{{0,4}}(?-i:[fFrRbBuU]{{1,2}}|@|\$|L)"
        r"(\"[^\"\n{}]{1,256}\"|'[^'\n{}]{1,256}')",
        (2,),
        _keep_named,
        line_words=("pass", "pwd", "secret", "token", "key", "credential"),
    ),
    # pat-na1-<uuid> (HubSpot's private app tokens), live_<32 hex> (Scale's keys)
    Place(
        "data-service-token",
        r"(?<![\w-])(pat-(?:na|eu|ap)\d{1,2}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|"
        r"(?:live|test)_[0-9a-f]{32})(?![\w-])",
        1,
        None,
        gate=re.compile(r"pat-(?:na|eu|ap)\d|(?:live|test)_[0-9a-f]{32}"),
    ),
    # a Google OAuth authorisation code pasted back to a CLI (tensorboard, gcloud, rclone): 4/0A...
    Place(
        "oauth-code",
        r"(?<![\w/.-])(4/[0-9A-Za-z_-]{30,256})(?![\w/-])",
        1,
        _keep_unless_random,
        gate=re.compile(r"4/[0-9A-Za-z_-]{30}"),
    ),
    # conda config --set channel_alias https://conda.anaconda.org/t/<token>: Anaconda's token in a channel's path
    Place(
        "channel-token",
        r"(?i)\b(?:anaconda\.(?:org|com|cloud)|binstar\.org)/t/([A-Za-z0-9-]{8,128})",
        1,
        _keep_unless_random,
        text_words=("/t/",),
    ),
    # together: <hex>, fivetran: <token>: a data or AI service's name, a colon and a token
    Place(
        "service-token",
        rf"(?i)\b(?:{'|'.join(_SERVICES)})(?:[ _.-]?ai)?[ \t]{{0,4}}[:=][ \t]{{0,4}}[\"']?([A-Za-z0-9_-]{{24,256}})",
        1,
        _keep_unless_random,
        line_words=_SERVICES,
    ),
    # options set=PGPASS 'X'; (SAS), %let db_pw = X; (a SAS macro variable)
    Place(
        "sas-setting",
        r"(?i)(?:\boptions[ \t]{1,8}set[ \t]{0,4}=[ \t]{0,4}|%let[ \t]{1,8})(\w{0,40}(?:pass|pwd|pw|secret|token|"
        r"key)\w{0,20})[ \t]{0,4}=?[ \t]{0,4}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s;'\"]{1,256})",
        2,
        _keep_second,
        line_words=("options", "%let"),
    ),
    # pw: &pw X, password: !!str X (YAML: an anchor or a tag before the value)
    Place(
        "yaml-tagged-secret",
        r"(?im)^[ \t]{0,40}(\w{0,40}(?:pass\w{0,10}|pwd|pw|secret\w{0,10}|token|api_?key))[ \t]{0,4}:[ \t]{1,4}"
        r"(?:&[\w-]{1,40}|!!str)[ \t]{1,4}([^\s#][^\n#]{0,255}?)[ \t]*$",
        2,
        _keep_named,
        line_words=("&", "!!str"),
    ),
    # private_key_id: <40 hex> (a service account key's id, as dbt's keyfile_json or a key file holds it)
    Place(
        "key-id",
        r"(?i)[\"']?private_key_id[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?([0-9a-f]{40})(?![0-9a-f])",
        1,
        None,
        text_words=("private_key_id",),
    ),
    # Stitch import API token (the one from the integration page): X / the munge key we use: X / ... gave me is X
    Place(
        "noun-then-random",
        r"(?i)(?:\b(?:api[ _-]?(?:key|token)|access[ _-]?(?:key|token|thing)|token|secret|key(?:tab|file)?|"
        r"passphrase|credential|header)s?\b[^:\n]{0,60}?(?::|\bis\b|\bequals\b)|\bsecret)[ \t]{1,4}[\"'`]?"
        r"([A-Za-z0-9+/_.=-]{20,512})",
        1,
        _keep_unless_random,
        line_words=("key", "token", "secret", "passphrase", "credential", "access", "header"),
    ),
]
