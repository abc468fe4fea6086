"""Secrets recognised by the place they are written in (issue 36); ``kernel.redaction.context_rules`` compiles them.

- **a URL's user part** that is a token (``https://<key>@o1.ingest.sentry.io/2``,
  ``https://<token>@git.acme.dev``): a Sentry DSN, a token used as a user name;
- **Oracle credentials**: ``scott/tiger@db`` after ``sqlplus``, ``jdbc:oracle:thin:``,
  ``userid=``, ``expdp``/``impdp``/``rman``/``sqlldr``;
- **XML name/value pairs**: ``<add key="DbPassword" value="..."/>``,
  ``<property name="db.password" value="..."/>``;
- **setters**: ``setenv``/``setx``/``set -x NAME VALUE``, ``aws configure set NAME VALUE``,
  ``npm config set //host/:_authToken VALUE``, ``dotnet user-secrets set "Db:Password" VALUE``,
  where NAME says it holds a secret;
- **a named credential in prose with a hex value**: "auth token 9a1e...", "api key: 3f0c...":
  hex is how hashes look, so only after a name that says credential (auth/api/access/secret
  token or key), never after "hash", "sha" or "commit";
- **more**: two-line name/value pairs (Kubernetes env, ECS, Postman, a Spring bind failure's ``Property:``/``Value:``,
  Spring Boot's ``/actuator/env``), config directives whose name ends in a secret's word (``bindpw``, ``rootpw``,
  ``remotepass``, ``storepass``), terraform variable defaults,
  URL-encoded JSON, query parameters, SQL ``IDENTIFIED BY``/``PASSWORD '...'``, redis
  directives and ``AUTH``, tools whose password flag is their own (plink ``-pw``, lftp
  ``-u user,PW``, ...), ``SSHPASS=``-style variables, Wi-Fi QR strings, "use X as the
  password", a password under or beside its label, YAML block scalars, ODBC ``{...}``
  values, wallet recovery phrases.

Each rule is gated on the words (or the regex) its matches hold. Plain data and keep checks.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from typing import NamedTuple

from kernel.redaction.entropy import token_shaped, unquote
from kernel.redaction.recogniser import MARKER_PREFIX
from kernel.redaction.values import about_a_secret, looks_random, value_is_code

_VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![#])[^\s'\"|&;<>]{1,256})"
SECRET_NAME = r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|auth|credential)"
NAME_CHARS = r"[\w.:/-]"


_LAST_WORDS = frozenset(
    "password passwd pwd pass passphrase secret token key apikey auth credential credentials".split()
)
# An owner joined to the word in one lower-case word (SimpleSAMLphp's auth.adminpassword, rootpw, dbpass)
_JOINED_OWNER = re.compile(
    r"(?i)(?:admin|root|db|user|master|super|superuser|sa|bind|smtp|mail|ldap|sys|svc)"
    r"(?:password|passwd|pwd|pass|pw|secret|passphrase)"
)
_STRONG_NAME = re.compile(r"(?i)pass|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key")
_PLACEHOLDER = re.compile(r"[A-Za-z_][\w.\[\]'\"]{0,80}")  # {password}, {cfg.db_pass}: a template's field
_SETTINGS = frozenset("yes no on off true false enabled disabled 0 1".split())
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _names_a_secret(name: str) -> bool:
    """The name's last word is a secret's (DB_PASSWORD, apiKey, //h/:_authToken; not TokenEndpoint, SECRET_MANAGER)."""
    parts = _NAME_PARTS.findall(name)
    return bool(parts) and (parts[-1].lower() in _LAST_WORDS or _JOINED_OWNER.fullmatch(parts[-1]) is not None)


def _code(value: str) -> bool:
    value = unquote(value)
    return not value or value.startswith("-") or value.lower() in _SETTINGS or value_is_code(value)


def _keep_url_token(match: re.Match[str]) -> bool:
    return not token_shaped(match.group(1))


def keep_named_value(match: re.Match[str]) -> bool:
    """Keep ``<add key="PasswordLength" value="12"/>`` and ``set -x TOKEN_FILE ~/.t``: about a secret, or code.

    A name whose last word is not a secret's (SECRET_KEY_BASE, SECRET_MANAGER) counts only with a token-shaped value.
    """
    name, value = match.group(1).strip("\"'"), match.group(2)
    if about_a_secret(name) or _code(value):
        return True
    if _names_a_secret(name) and _STRONG_NAME.search(name):
        return False  # DB_PASSWORD, client_secret, apiKey: any value
    # MNEMEX_TOKEN, SECRET_KEY_BASE: a value that looks like a token ("operator-token-for-the-team" does not)
    bare = unquote(value)
    return not (token_shaped(bare) or (len(bare) >= 16 and looks_random(bare)))


def _keep_setter(match: re.Match[str]) -> bool:
    name = match.group(1).strip("\"'")
    # a variable's name, not a word of prose ("set password expiry to 90 days"): it has a separator or is upper case
    if not (re.search(r"[_.:/-]", name) or name.isupper()):
        return True
    return keep_named_value(match)


def keep_first_value(match: re.Match[str]) -> bool:
    return _code(match.group(1))


def _keep_word(match: re.Match[str]) -> bool:
    """A directive's value that is a plain short word ("requirepass is commented out") is prose, not a password."""
    value = unquote(match.group(1))
    return _code(value) or (value.isalpha() and len(value) < 12)


# A weather, maps or search API's key goes by "appid" (a name that would read as an id): its value decides.
_APP_ID = re.compile(r"(?i)app[_-]?id")
_WEAK_QUERY_NAME = re.compile(r"(?i)(?:key|token|sig|signature|auth|appid|app_id)$")


def _keep_query(match: re.Match[str]) -> bool:
    """Keep ``?page_token=2`` and ``?keyword=x``; a weak name (key, token, sig) needs a token-shaped value."""
    name, value = match.group(1), urllib.parse.unquote(match.group(2))
    if (about_a_secret(name) and not _APP_ID.fullmatch(name)) or _code(value):
        return True
    if _WEAK_QUERY_NAME.search(name) or not _names_a_secret(name):
        return not token_shaped(value) and not (len(value) >= 16 and looks_random(value))
    return False


def _keep_prose_value(match: re.Match[str]) -> bool:
    """A password in prose has a digit or a symbol: "use caution as the password ..." is kept."""
    value = match.group(1)
    return _code(value) or not any(not c.isalpha() for c in value) or not any(c.isalpha() for c in value)


def _keep_spaced_value(match: re.Match[str]) -> bool:
    """A snake_case secret's name and a spaced value: only a value with a digit or a symbol, not code, and only a
    name with an underscore (``api_key``, not ``key``)."""
    name, value = match.group(1), match.group(2)
    if "_" not in name or about_a_secret(name) or _code(value):
        return True
    return value.isalpha() or (value.isalnum() and value.isdigit())


# Names that end in a secret's word and are not one: English words, and nginx's upstream directives (proxy_pass URL).
_NOT_DIRECTIVES = frozenset(
    "bypass compass surpass trespass encompass overpass underpass impass oauth proxy_pass fastcgi_pass uwsgi_pass "
    "scgi_pass grpc_pass memcached_pass".split()
)
_WEAK_DIRECTIVE = re.compile(r"(?i)(?:token|auth)$")
# A value that is a method's call (conn.get_pass(host).strip()) or a call chained on (get_secret("x").strip()).
CALL_IN_VALUE = re.compile(
    r"\.[A-Za-z_]\w{0,60}\([^()]{0,200}\)|^[A-Za-z_][\w.]{0,60}\([^()]{0,200}\)(?:\.[\w.()]{0,100})?$"
)


def _keep_directive(match: re.Match[str]) -> bool:
    """A directive's value that is a password: a digit or a symbol in it, or (after token or auth) a random one;
    not a setting, a number, a path, an address or a plain word."""
    name, value = match.group(1), unquote(match.group(2))
    if name.lower() in _NOT_DIRECTIVES or about_a_secret(name) or _code(value) or value.isdigit():
        return True
    if "://" in value or value.lower().startswith("unix:") or value.endswith(";"):
        return True  # an address (and a line of nginx's, which ends with ';')
    if MARKER_PREFIX in value or CALL_IN_VALUE.search(value):
        return True  # code: a call (conn.get_pass(host).strip()), or a value whose secret is redacted already
    if _WEAK_DIRECTIVE.search(name):
        return not (token_shaped(value) or (len(value) >= 16 and looks_random(value)))
    return value.isalpha() or not any(c.isalpha() for c in value)


def _keep_not_hex_token(match: re.Match[str]) -> bool:
    return not token_shaped(match.group(1))


# The label a dump gives a setting's name before it gives its value on the same or the next line.
_PAIR_LABEL = r"(?:name|Name|NAME|key|Key|KEY|(?i:property|setting|variable|field|parameter|param|option|attribute))"


class Place(NamedTuple):
    """A context rule: ``text_words`` gate the whole text, ``line_words`` the lines a pattern that never spans lines
    runs on, ``gate`` (a regex) the whole text; see ``kernel.redaction.recogniser.Recogniser``."""

    kind: str
    pattern: str
    group: int | tuple[int, ...]
    keep: Callable[[re.Match[str]], bool] | None
    text_words: tuple[str, ...] = ()
    line_words: tuple[str, ...] = ()
    gate: re.Pattern[str] | None = None


PLACES: list[Place] = [
    Place(
        "url-token",
        r"(?i)\b[a-z][a-z0-9+.-]{0,20}://([A-Za-z0-9_~.-]{20,256})@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}",
        1,
        _keep_url_token,
        gate=re.compile(r"://[A-Za-z0-9_~.-]{20,256}@"),
    ),
    Place(
        "oracle-password",
        r"(?i)(?:\bjdbc:oracle:[a-z]{1,8}:@?|\b(?:sqlplus|expdp|impdp|sqlldr|dgmgrl|rman\s+target)"
        r"(?:\s+-[a-z]{1,2})*\s+|\buserid\s*=\s*)[\"']?[A-Za-z0-9_$#]{1,30}/(?!/)([^\s@/'\"]{1,128})(?=@|\s|['\"]|$)",
        1,
        keep_first_value,
        line_words=("oracle", "sqlplus", "userid", "expdp", "impdp", "sqlldr", "dgmgrl", "rman"),
    ),
    Place(
        "xml-secret",
        rf"(?i)<[\w:.-]{{1,40}}\s[^>\n]{{0,200}}?\b(?:key|name|id)\s*=\s*[\"']({NAME_CHARS}{{0,60}}{SECRET_NAME}"
        rf"{NAME_CHARS}{{0,60}})[\"']\s+(?:[\w:-]{{1,40}}\s*=\s*[\"'][^\"'\n]{{0,200}}[\"']\s+){{0,3}}"
        r"value\s*=\s*(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        2,
        keep_named_value,
        line_words=('value="', "value='", "value =", "value  ="),
    ),
    Place(
        "setter",
        rf"(?i)(?<![\w-])(?:setenv|setx|set(?:\s+-[a-z]{{1,3}}){{1,2}}|(?:config|configure|user-secrets)\s+set|"
        rf"config:set)\s+(\"{NAME_CHARS}{{0,60}}{SECRET_NAME}{NAME_CHARS}{{0,60}}\"|"
        rf"'{NAME_CHARS}{{0,60}}{SECRET_NAME}{NAME_CHARS}{{0,60}}'|{NAME_CHARS}{{0,60}}{SECRET_NAME}"
        rf"{NAME_CHARS}{{0,60}})[ \t]+(?!=)" + _VALUE,
        2,
        _keep_setter,
        line_words=("setenv", "setx", "set -", "config set", "configure set", "config:set", "secrets set"),
    ),
    Place(
        "named-hex",
        r"(?i)\b(?:(?:auth|api|access|secret|client|app|bearer|session|refresh|webhook|account|master|admin|hmac|"
        r"encryption|license)[ _-]?(?:token|key|secret)|signing[ _-]?secret|token|pat)s?"
        r"(?:[ \t]+(?:value|string))?(?:[ \t]+(?:is|was))?[ \t]{0,4}[:=]?[ \t]{0,4}"
        r"[\"'`]?([A-Fa-f0-9-]{24,128})(?![\w-])",
        1,
        _keep_not_hex_token,
        line_words=("token", "key", "secret", "pat ", "pat:", "pat="),
        gate=re.compile(r"[0-9A-Fa-f]{24}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}"),
    ),
    # a name/value pair on two lines (or one): Kubernetes env, ECS task definitions ({"name": "X", "value": "..."}),
    # a Postman environment ({"key": "X", "value": ...}), a trace or an error page that names the setting, then
    # prints its value ("Property: spring.datasource.password" then "    Value: ...", "Setting: X" then "Value: ...")
    Place(
        "name-value",
        rf"\b{_PAIR_LABEL}[\"']?[ \t]*[:=][ \t]*[\"']?({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}){NAME_CHARS}{{0,60}})"
        r"[\"']?[ \t]*,?[ \t]*(?:\r?\n[ \t]{0,40}-?[ \t]{0,4})?[\"']?(?i:value)[\"']?[ \t]*[:=][ \t]*" + _VALUE,
        2,
        keep_named_value,
        text_words=("value",),
        gate=re.compile(rf"\b{_PAIR_LABEL}[\"']?[ \t]*[:=]"),
    ),
    # a setting's name, then an object that gives its value: Spring Boot's /actuator/env ("spring.datasource.password":
    # {"value": "...", "origin": ...}), a settings dump's {"DB_PASSWORD": {"value": ..., "source": ...}}
    Place(
        "name-value",
        rf"[\"']({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}){NAME_CHARS}{{0,60}})[\"'][ \t]*:[ \t]*\{{[ \t]*"
        r"(?:\r?\n[ \t]{0,40})?[\"'](?i:value)[\"'][ \t]*:[ \t]*" + _VALUE,
        2,
        keep_named_value,
        text_words=('"value"', "'value'"),
    ),
    # terraform: variable "db_password" { ... default = "..." }
    Place(
        "terraform-default",
        rf"\bvariable[ \t]+\"({NAME_CHARS}{{0,60}}{SECRET_NAME}{NAME_CHARS}{{0,60}})\"[ \t]*\{{[^{{}}]{{0,400}}?"
        r"\bdefault[ \t]*=[ \t]*(\"[^\"\n]{1,256}\")",
        2,
        keep_named_value,
        text_words=("variable",),
    ),
    # the same JSON with its quotes, colons and spaces URL-encoded: %22password%22%3A%20%22...%22
    Place(
        "url-encoded-secret",
        rf"(?i)(?:%22|%27)({NAME_CHARS}{{0,40}}{SECRET_NAME}{NAME_CHARS}{{0,40}})(?:%22|%27)(?:%3A|%3D)(?:%20|\+){{0,4}}"
        r"(?:%22|%27)((?:[A-Za-z0-9._~!*()+-]|%(?!22|27)[0-9A-Fa-f]{2}){1,256})(?:%22|%27)",
        2,
        keep_named_value,
        text_words=("%22", "%27"),
    ),
    # a query parameter named for a credential; a weak name (key, token, appid) only with a token-shaped value
    Place(
        "query-secret",
        r"(?i)[?&;]((?:[a-z0-9_.-]{0,30}?)(?:key|token|secret|sig|signature|auth|appid|app_id|password|passwd|pwd|"
        r"pass)[a-z0-9_.-]{0,10})=([^&#\s'\"<>]{1,512})",
        2,
        _keep_query,
        line_words=("key", "token", "secret", "sig", "auth", "pass", "pwd", "appid", "app_id"),
        gate=re.compile(r"[?&;]"),
    ),
    Place(
        "sql-password",
        # (MySQL's old GRANT ... TO 'u'@'h' IDENTIFIED BY; SQL Server's WITH PASSWORD = N'...')
        r"(?i)\b(?:(?:user|role|login|grant)\b[^\n;]{0,200}?\bidentified[ \t]+(?:with[ \t]+\w{1,40}[ \t]+)?by|"
        r"(?:with|login|encrypted|unencrypted)[ \t]+password(?:[ \t]*=[ \t]*N?(?=['\"]))?|"
        r"set[ \t]+password[ \t]*(?:for[ \t]+\S{1,128}[ \t]*)?=[ \t]*(?:password[ \t]*\()?)[ \t]*"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        keep_first_value,
        line_words=("identified", "password '", 'password "', "password=", "password =", "password("),
    ),
    # redis.conf directives and AUTH at a redis prompt or on redis-cli's line
    Place(
        "redis-password",
        r"(?i)(?:^[ \t]{0,8}(?:requirepass|masterauth|masterpass)[ \t]+|"
        r"(?:\bredis-cli\b[^\n|;&]{0,200}?[ \t]|>[ \t]*)AUTH[ \t]+(?:[^\s'\"]{1,64}[ \t]+)?)" + _VALUE,
        1,
        _keep_word,
        line_words=("requirepass", "masterauth", "masterpass", "redis-cli", "> auth", ">auth"),
    ),
    Place(
        "cli-password",
        r"(?i)(?:\bopenssl[ \t]+passwd(?:[ \t]+-[\w-]{1,10}(?:[ \t]+\d{1,6})?){0,3}|"
        r"\bnmcli\b[^\n|;&]{0,200}?[ \t]password|"
        r"\bgh[ \t]+secret[ \t]+set[ \t]+\S{1,128}[ \t]+(?:-b|--body))[ \t=]+" + _VALUE,
        1,
        keep_first_value,
        line_words=("passwd", "nmcli", "gh secret"),
    ),
    # variables some tools read a password from, whose names do not say so
    Place(
        "env-password",
        r"(?<![\w$])(?:SSHPASS|REDISCLI_AUTH|PGPASS|LFTP_PASSWORD|ISQL_PASSWORD|SQLCMDPASSWORD)=" + _VALUE,
        1,
        keep_first_value,
        text_words=("sshpass", "rediscli_auth", "pgpass", "sqlcmdpassword", "lftp"),
    ),
    Place(
        "wifi-password",
        r"\bWIFI:(?:[A-Z]:[^;\n]{0,64};){0,4}P:([^;\n]{1,64});",
        1,
        keep_first_value,
        text_words=("wifi:",),
    ),
    # "use X as the password", "X is the password for ..."
    Place(
        "prose-password",
        r"(?i)\buse[ \t]+[\"'`]?([^\s\"'`]{3,128}?)[\"'`]?[ \t]+as[ \t]+(?:the|my|your|our|a)?[ \t]*"
        r"(?:[a-z0-9-]{1,20}[ \t]+){0,2}?(?:password|passphrase|passcode|pin|pwd|secret|token|api[ \t]?key)\b",
        1,
        _keep_prose_value,
        line_words=("use ",),
    ),
    # a password keyed in another language, or a Wi-Fi pre-shared key (wpa_supplicant's psk="...")
    Place(
        "assignment",
        r"(?i)(?<![a-z])(psk|passwort|kennwort|contrase[ñn]a|senha|wachtwoord|mot[ _]de[ _]passe)[\"']?[ \t]{0,8}[:=]"
        r"[ \t]{0,8}" + _VALUE,
        2,
        lambda match: _code(match.group(2)),
        line_words=("psk", "passwort", "kennwort", "contrase", "senha", "wachtwoord", "mot de passe", "mot_de_passe"),
    ),
    # PuTTY's plink/pscp/psftp -pw, dsadd/dsmod -pwd, lftp -u user,PW, mosquitto -P, snmp v3 -A/-X
    Place(
        "cli-password",
        r"(?i)(?:\b(?:plink|pscp|psftp|kitty)(?:\.exe)?\b[^\n|;&]{0,200}?[ \t]-pw[ \t]+|"
        r"\bds(?:add|mod)\b[^\n|;&]{0,300}?[ \t]-pwd[ \t]+|\blftp\b[^\n|;&]{0,200}?[ \t]-u[ \t]+[^\s,'\"]{1,64},|"
        r"\bmosquitto_(?:pub|sub|rr)\b[^\n|&]{0,200}?[ \t]-P[ \t]+|"
        r"\bsnmp[a-z]{0,12}\b[^\n|;&]{0,200}?[ \t](?-i:-[AX])[ \t]+)" + _VALUE,
        1,
        keep_first_value,
        line_words=("plink", "pscp", "psftp", "kitty", "dsadd", "dsmod", "lftp", "mosquitto_", "snmp"),
    ),
    # SQL*Plus CONNECT user/PW@db
    Place(
        "oracle-password",
        r"(?i)\bconn(?:ect)?[ \t]+[A-Za-z0-9_$#]{1,30}/([^\s@/'\"]{1,128})@[\w.:/-]{1,128}",
        1,
        keep_first_value,
        line_words=("conn",),
    ),
    # a label on one line and the password alone on the next, or beside it in a table (tab or '|')
    Place(
        "labelled-password",
        # (every run of blanks bounded: three unbounded ones in a row made a long run of spaces cubic)
        r"(?im)^[ \t|]{0,8}(?:password|passwd|passphrase|passcode|pwd)[ \t]{0,16}:?[ \t]{0,16}(?:\r?\n[ \t]{0,8}|"
        r"\t[ \t]{0,16}|[ \t]{0,16}\|[ \t]{0,16})([^\s|]{4,128})[ \t|]{0,64}$",
        1,
        _keep_prose_value,
        text_words=("pass", "pwd"),
    ),
    # a raw private key (64 hex digits) given to what signs with it: new Wallet('0x...'), privateKeyToAccount(...),
    # Keypair.fromSecretKey(...), an Account's from_key(...); a transaction's hash is given to none of them
    Place(
        "wallet-key",
        r"(?i)(?:wallet|signer|account|keypair|key_?pair|privkey|private_?key|secret_?key|from_?key|signing_?key)"
        r"\w{0,30}[ \t]*\([ \t]*(?:[\w.]{1,40}[ \t]*,[ \t]*)?[\"'`]?((?:0x)?[0-9a-fA-F]{64})(?![0-9a-fA-F])",
        1,
        None,
        gate=re.compile(r"[0-9a-fA-F]{64}"),
    ),
    # a snake_case name that says secret, then its value after a space: "config set aws_secret_access_key V",
    # "rclone config create r s3 secret_access_key V", "set db_password V" (a value with a digit or a symbol)
    Place(
        "spaced-secret",
        r"(?<![\w./~-])((?:[a-z0-9]{1,20}_){0,4}(?:secret|password|passwd|token|key)(?:_[a-z0-9]{1,20}){0,3})[ \t]+"
        # (a backtick inside the value, not at its start: tinytuya's local_key 7d1`z`rh...)
        r"(?!-)([^\s\"'`<>|;&=(){}\[\]][^\s\"'<>|;&=(){}\[\]]{5,255})(?=[ \t]|$)",
        2,
        _keep_spaced_value,
        line_words=("secret_", "_secret", "password_", "_password", "passwd_", "_passwd", "_token", "_key"),
    ),
    # YAML block scalar: "password: |" (or >, |-, >-), then the value on the lines indented below
    Place(
        "assignment",
        rf"(?m)^([ \t]{{0,40}})[\"']?({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}){NAME_CHARS}{{0,60}})[\"']?[ \t]*:[ \t]*"
        r"[|>][-+]?[ \t]*\r?\n(\1[ \t]{1,16}\S[^\n]{0,2000}(?:\n\1[ \t]{1,16}\S[^\n]{0,2000}){0,39})",
        3,
        lambda match: about_a_secret(match.group(2)),
        text_words=(": |", ": >", ":|", ":>"),
    ),
    # an ODBC value in braces, which may hold ';': PWD={p;ss}
    Place(
        "assignment",
        r"(?i)(?:^|[;\"'\s])(?:pwd|password)[ \t]{0,4}=[ \t]{0,4}\{([^{}\n]{1,256})\}(?=[;\"'\s]|$)",
        1,
        lambda match: keep_first_value(match) or _PLACEHOLDER.fullmatch(match.group(1)) is not None,
        text_words=("={", "= {"),
    ),
    # a config directive whose name ends in a secret's word, then its value after blanks, '=' or ':' on a line of its
    # own: nslcd's "bindpw X", slapd's "rootpw X", offlineimap's "remotepass = X", keytool's "storepass X",
    # redis' "masterauth X", "smtp_token: X" (not nginx's proxy_pass, bypass, compass: see _keep_directive)
    Place(
        "directive-password",
        r"(?im)^[ \t]{0,16}([a-z][a-z0-9_.-]{0,40}?(?:pass|pw|pwd|passwd|password|passphrase|secret|token|auth))"
        r"(?:[ \t]{0,8}[=:][ \t]{0,8}|[ \t]{1,16})"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![#;])[^\s\"']{1,256})[ \t]*$",
        2,
        _keep_directive,
        line_words=("pass", "pw", "secret", "token", "auth"),
    ),
    # HTTPie: http -a user:PW
    Place(
        "cli-password",
        r"\bhttps?(?:[ \t][^\n|;&]{0,300}?)?[ \t](?:-a|--auth)(?:[ \t]+|=)[\"']?[^:\s'\"/]{1,128}:(?!//)"
        r"([^\s'\"]{1,256})",
        1,
        keep_first_value,
        line_words=("http",),
    ),
]
