"""A secret a command prints (issue 36): the one token on the line right below a command that reveals one.

- **a secret store's reveal**: ``op item get ... --reveal``, ``op read op://...``, ``bw get password``,
  ``rbw get``, ``pass show``, ``gopass show``, ``passage show``, ``lpass show --password``, ``keepassxc-cli show``,
  ``security find-generic-password -w``, ``secret-tool lookup``, ``keyring get``, ``kwallet-query -r``,
  ``keyctl print``, ``vault kv get -field=``, ``aws secretsmanager get-secret-value``,
  ``aws ssm get-parameter --with-decryption``, ``gcloud secrets versions access``, ``az keyvault secret show``,
  ``doppler secrets get``, ``infisical secrets get``, ``berglas access``, ``sops -d --extract``,
  ``Get-Secret -AsPlainText``, ``$cred.GetNetworkCredential().Password``;
- **other stores, a decryption, a prompt's answer**: ``dcli password``, ``lesspass``, ``conjur variable get``,
  ``akeyless get-secret-value``, ``gpg -d``, ``age -d``, ``ansible-vault view``, ``systemd-creds cat``,
  ``systemd-ask-password``;
- **a secret decoded, or picked out**: ``kubectl get secret ... | base64 -d``, ``kubectl get secret -o jsonpath=...``,
  a ``base64decode`` template, ``kubectl view-secret``,
  and any ``... | base64 --decode`` on a line that names a password, a secret or a token;
- **a variable or a setting named for a secret, printed**: ``echo $DB_PASSWORD``, ``printenv API_TOKEN``,
  ``heroku config:get SECRET_KEY``, ``aws configure get aws_secret_access_key``, ``npm config get
  //host/:_authToken``, ``jq -r .password``, ``terraform output -raw db_password``, ``pulumi stack output dbPass``,
  ``consul kv get app/db/password``;
- **a token, a key or a password issued or generated**: ``heroku auth:token``,
  ``gh auth token``, ``gcloud auth print-access-token``, ``wg genkey``, ``openssl rand -hex 32``, ``pwgen``;
- **a field of the output of a command that resets, issues or reveals a password**: ``Get-LapsADPassword``'s
  ``Password : ...``, ``elasticsearch-reset-password``'s ``New value: ...``, ``vault write .../secret-id``'s
  ``secret_id``;
- **a secret file shown**: the token on the line after ``cat config/master.key``, ``type token.txt``,
  ``Get-Content .vault-pass`` (a file named for a key, a token, a secret or a password).

The output counts only when it looks like a secret: one token with a digit or a symbol among its letters (or
a random token); a line of words, a label or prompt (``Password:``), a path, a URL, an address, a host name, a
number, JSON or code is kept, and so is the output of a command that asks for a field that is no secret
(``--fields username``, ``-field=url``). Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import high_entropy, token_shaped
from kernel.redaction.places import Place
from kernel.redaction.recogniser import MARKER_PREFIX
from kernel.redaction.values import about_a_secret, value_is_code

# A prompt before the command ("$ ", "PS C:\> ", "jlee@mbp ~ % "), or none.
_PROMPT = r"^[^\n]{0,80}?(?<![\w-])"
# The output line: one token alone, up to the line's end (a Windows line ends in \r).
_OUTPUT = r"[^\n]{0,300}\r?\n[ \t]*([^\s]{4,2048})[ \t\r]*$"

# Commands that print a secret kept in a store, a keychain or a cluster.
_REVEALS = (
    r"op[ \t]+(?:item[ \t]+get|read)|bw[ \t]+get|rbw[ \t]+get|(?:pass|passage|gopass)[ \t]+(?:show|cat)|"
    r"gopass[ \t]+(?!-)(?!(?:insert|edit|generate|rm|mv|cp|ls|list|find|sync|init|setup|git|otp|audit)\b)"
    r"[\w@.~/-]{1,200}[ \t]*$|"
    r"lpass[ \t]+show|keepassxc-cli[ \t]+show|security[ \t]+find-(?:generic|internet)-password|secret-tool[ \t]+lookup|"
    r"keyring[ \t]+get|kwallet-query|keyctl[ \t]+(?:print|pipe)|(?:vault|bao)[ \t]+(?:kv[ \t]+get|read)|"
    r"aws[ \t]+secretsmanager[ \t]+get-secret-value|"
    r"aws[ \t]+ssm[ \t]+get-parameters?[ \t][^\n]{0,200}--with-decryption|"
    r"gcloud[ \t]+secrets[ \t]+versions[ \t]+access|az[ \t]+keyvault[ \t]+secret[ \t]+show|"
    r"(?:doppler|infisical)[ \t]+secrets[ \t]+get|berglas[ \t]+access|sops[ \t][^\n]{0,200}--extract|"
    r"get-secret[ \t][^\n]{0,200}-asplaintext|get-azkeyvaultsecret[ \t][^\n]{0,200}-asplaintext|"
    r"convertfrom-securestring[ \t][^\n]{0,200}-asplaintext|getnetworkcredential\(\)\.password|"
    r"(?:kubectl|oc|kubecolor|k)[ \t]+view-secret|"
    # a Secret's value picked out, still in base64 (a field that is no secret, .data.username, is kept)
    r"(?:kubectl|oc|kubecolor|k)[ \t]+get[ \t]+secrets?[ \t][^\n]{0,300}?(?:jsonpath|go-template|template)|"
    # other stores and password managers; a file decrypted, a password typed at a prompt that echoes it to stdout
    r"op[ \t]+get[ \t]+item|dcli[ \t]+(?:p|password)|lesspass|conjur[ \t]+variable[ \t]+(?:get|value)|"
    r"akeyless[ \t]+get-secret-value|systemd-ask-password|systemd-creds[ \t]+(?:decrypt|cat)|"
    r"(?:gpg2?|age|rage)[ \t][^\n]{0,200}(?:-d|--decrypt)(?![\w-])|ansible-vault[ \t]+(?:view|decrypt)"
)
# A value decoded (group 1: the command), counted on a line that names a secret (see _keep_decoded).
_DECODES = r"^([^\n]{0,400}?(?:base64[ \t]+(?:-d|-D|--decode)|base64decode|b64dec|frombase64string))"
_NAMES_A_SECRET = re.compile(r"(?i)secret|passw|token|credential|api[_-]?key")
_REVEAL_WORDS = (
    "op item",
    "op read",
    "bw get",
    "rbw get",
    "pass show",
    "passage show",
    "gopass",
    "pass cat",
    "lpass show",
    "keepassxc-cli",
    "find-generic-password",
    "find-internet-password",
    "secret-tool",
    "keyring get",
    "kwallet-query",
    "keyctl",
    "kv get",
    "vault read",
    "bao read",
    "get-secret-value",
    "get-parameter",
    "secrets versions access",
    "keyvault secret show",
    "secrets get",
    "berglas",
    "--extract",
    "-asplaintext",
    "getnetworkcredential",
    "view-secret",
    "get secret",
    "op get item",
    "dcli",
    "lesspass",
    "conjur",
    "akeyless",
    "systemd-ask-password",
    "systemd-creds",
    "-d",
    "--decrypt",
    "ansible-vault",
)

# Commands that print a variable or a setting; the name they are given decides (see _keep_printed).
# A name that says it holds a secret (DB_PASSWORD, apiToken, db.pass), as group 1.
_SECRET_VARIABLE = (
    r"((?:[\w.:/-]{0,60}?)(?i:password|passwd|pwd|pass|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|auth)"
    r"[\w-]{0,40})"
)
# echo and the like print a variable ($NAME, ${NAME}, $env:NAME, %NAME%), not a word of their sentence
_ECHOES = (
    r"(?:echo|printf|write-output|write-host)(?![\w-])[^\n]{0,120}?(?<![\w-])(?:\$\{?|\$env:|%)" + _SECRET_VARIABLE
)
# commands given a variable's, a setting's or a key's name
_PRINTS_A_NAME = (
    r"(?:printenv|heroku[ \t]+config:get|dokku[ \t]+config:get|"
    r"aws[ \t]+configure[ \t]+get|(?:npm|pnpm|yarn)[ \t]+config[ \t]+get|git[ \t]+config|dotenv[ \t]+get|"
    r"netlify[ \t]+env:get|"
    r"jq|yq|dasel|(?:terraform|tofu)[ \t]+output|pulumi[ \t]+(?:stack[ \t]+output|config[ \t]+get)|"
    r"consul[ \t]+kv[ \t]+get|etcdctl[ \t]+get|chamber[ \t]+read)(?![\w-])[^\n]{0,120}?(?<![\w-])"
    r"(?:\$\{?|\$env:|%|\.|\[[\"']|\b)" + _SECRET_VARIABLE
)
_PRINTS_A_NAME_WORDS = (
    "printenv",
    "config:get",
    "configure get",
    "config get",
    "git config",
    "dotenv get",
    "env:get",
    "jq",
    "yq",
    "dasel",
    "output",
    "kv get",
    "etcdctl",
    "chamber",
)

# Issued or generated: a CLI's current token, a generated key or password, a wallet's private key.
_PRINTS_A_TOKEN = (
    r"heroku[ \t]+auth:token|(?:gh|doctl|fly|flyctl)[ \t]+auth[ \t]+token|"
    r"gcloud[ \t]+auth[ \t]+(?:application-default[ \t]+)?print-(?:access|identity)-token|"
    r"az[ \t]+account[ \t]+get-access-token|aws[ \t]+ecr[ \t]+get-login-password|kubectl[ \t]+create[ \t]+token|"
    r"vault[ \t]+print[ \t]+token|npm[ \t]+token[ \t]+create|wg[ \t]+genkey|openssl[ \t]+rand|pwgen|"
    r"bitcoin-cli(?:[ \t]+-[\w=.-]{1,40}){0,4}[ \t]+dumpprivkey"
)
_PRINTS_A_TOKEN_WORDS = (
    "auth:token",
    "auth token",
    "-token",
    "get-login-password",
    "create token",
    "print token",
    "token create",
    "genkey",
    "openssl rand",
    "pwgen",
    "dumpprivkey",
)

# A file named for what it holds: master.key, *.key, token.txt, .vault_pass, credentials, secrets.txt, *.pem
_SECRET_FILE = (
    r"[^\s|;&<>]{0,200}?(?:\.key|key\.txt|token|secret|credential|passw(?:or)?d|pass(?:phrase)?\.txt|vault[_-]?pass\w{0,12}|"
    r"\.pem|id_(?:rsa|dsa|ecdsa|ed25519))[^\s|;&<>/]{0,40}"
)

# A field asked for that is no secret: --fields username, -field=url, --query name, jsonpath='{.data.host}'
_PLAIN_FIELD = re.compile(
    r"(?i)(?:--fields?|-field|--query|--attributes?|\.data|\bget[ \t]+)[ \t=.]*[\"'\[{]*(?:label=)?(?:[\w]{1,30}[_.-])?"
    r"(?:user(?:_?name)?|login|e-?mail|url|website|host(?:_?name)?|port|name|title|id|notes?|database|db|type)"
    r"(?![\w-])"
)
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
_HOST = re.compile(r"(?i)(?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24}\.?|[\d.:]{1,45}")
_FILE_NAME = re.compile(r"[\w-]{1,100}\.[A-Za-z][\w]{0,4}")
# A line of code: a call, an increment, an assignment, an arrow, or a statement's end.
_CODE_LINE = re.compile(r"\(\)|\+\+|--|[-+*/%!=<>]=|=>|->|::|[;{}]$|^@\w")
# A name given a value (DB_PASSWORD=..., token: ...): a line of a file, which the keyed rules read.
# (a variable's name: upper case, lower case words joined, or one lower-case word; base64's padding is no assignment)
_ASSIGNMENT = re.compile(
    r"(?:[A-Z_][A-Z0-9_]{1,60}|[a-z_][a-z0-9]{0,30}(?:[_.-][a-z0-9]{1,30}){1,4}|[a-z]{2,30})[=:](?=[^=])"
)
_SYMBOLS = frozenset("!#$%&*+/=?^~@,;|<>()[]{}\\'\"`")


def looks_like_a_password(value: str) -> bool:
    """One token that is a secret's: letters with a digit or a symbol, or mixed case at length, or a random token;
    not a word, a label, a path, a URL, an address, a host name, a file's name, a number or code."""
    if value_is_code(value) or value.endswith(":") or "://" in value or value[0] in "([{#" or value.startswith("-"):
        return False
    if (
        MARKER_PREFIX in value
        or _ASSIGNMENT.match(value)
        or _CODE_LINE.search(value)
        or _EMAIL.fullmatch(value)
        or _HOST.fullmatch(value)
        or _FILE_NAME.fullmatch(value)
    ):
        return False
    if token_shaped(value) or high_entropy(value):
        return True
    letters = sum(c.isalpha() for c in value)
    if letters == 0 or len(value) < 6:
        return False
    digits = sum(c.isdigit() for c in value)
    symbols = sum(c in _SYMBOLS or c in "-_.~" for c in value)
    if digits or any(c in _SYMBOLS for c in value):
        return True
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return mixed and len(value) >= 8 and symbols <= 3


def _keep_decoded(match: re.Match[str]) -> bool:
    """Keep a value decoded on a line that names no secret (base64 -d notes.b64), or not a password."""
    command = match.group(1)
    if not _NAMES_A_SECRET.search(command) or _PLAIN_FIELD.search(command):
        return True
    return not looks_like_a_password(match.group(2))


def _keep_revealed(match: re.Match[str]) -> bool:
    """Keep what is not a password, and the output of a command that asks for a plain field."""
    return _PLAIN_FIELD.search(match.group(0).split("\n", 1)[0]) is not None or not looks_like_a_password(
        match.group(1)
    )


_NAME_END = re.compile(
    r"(?i:password|passwd|pwd|passphrase|secret|token|key|auth|credentials?)$|(?:^|[_.:/-])(?i:pass)$|(?<=[a-z])Pass$"
)


def _keep_printed(match: re.Match[str]) -> bool:
    """Keep the output of ``echo $PASSWORD_FILE`` (a name about a secret) and what is not a password."""
    name = match.group(1).strip(".:/-")
    if about_a_secret(name) or not _NAME_END.search(name):
        return True
    return not looks_like_a_password(match.group(2))


def _keep_shown(match: re.Match[str]) -> bool:
    return not looks_like_a_password(match.group(1))


# Commands whose output gives a password or a secret id on a label's line.
_ISSUES_A_PASSWORD_WORDS = (
    "get-laps",
    "get-admpwd",
    "reset-password",
    "setup-passwords",
    "secret-id",
    "secret_id_accessor",
    "token create",
    "get-secret-value",
)
_TYPE_NAME = re.compile(r"(?:[A-Z]\w{0,60}\.){1,8}[A-Z]\w{0,60}")
_NO_VALUE = frozenset(("(none)", "n/a", "none", "null", "<none>", "********", "(hidden)", "[hidden]"))


def _keep_field(match: re.Match[str]) -> bool:
    """An empty field, a mask, a variable or code is no secret."""
    value = match.group(1)
    if MARKER_PREFIX in value or value.lower() in _NO_VALUE or set(value) <= {"*", "x", "X", "-", "."}:
        return True
    if _TYPE_NAME.fullmatch(value):
        return True  # System.Security.SecureString: PowerShell shows the type of a value it keeps
    return value[:1] in "$%<" or (value[:1] not in "{" and value_is_code(value))


# A line that is one token, after a line break (the gate of the rules below: a whole-text search).
_ONE_TOKEN_LINE = re.compile(r"\n[ \t]*[^\s]{4,2048}[ \t\r]*(?:\n|\Z)")

COMMAND_OUTPUT: list[Place] = [
    # a store, a keychain or a cluster revealing a secret
    Place(
        "shown-secret",
        rf"(?im){_PROMPT}(?:{_REVEALS})(?![\w-]){_OUTPUT}",
        1,
        _keep_revealed,
        text_words=_REVEAL_WORDS,
        gate=_ONE_TOKEN_LINE,
    ),
    # a value decoded on a line that names a secret: kubectl get secret ... | base64 -d, a base64decode template
    Place(
        "shown-secret",
        rf"(?im){_DECODES}{_OUTPUT}",
        2,
        _keep_decoded,
        text_words=("base64", "b64dec"),
        gate=_ONE_TOKEN_LINE,
    ),
    # a variable or a setting named for a secret, printed
    Place(
        "shown-secret",
        rf"(?im){_PROMPT}{_PRINTS_A_NAME}{_OUTPUT}",
        2,
        _keep_printed,
        text_words=_PRINTS_A_NAME_WORDS,
        gate=_ONE_TOKEN_LINE,
    ),
    Place(
        "shown-secret",
        rf"(?im){_PROMPT}{_ECHOES}{_OUTPUT}",
        2,
        _keep_printed,
        text_words=("echo", "printf", "write-output", "write-host"),
        gate=_ONE_TOKEN_LINE,
    ),
    # the contents of a secret file, shown by a command on the line above (a prompt before it, maybe)
    Place(
        "shown-secret",
        r"(?im)^[^\n]{0,60}?(?<![\w-])(?:cat|type|more|less|head|tail|bat|get-content|gc)[ \t]+"
        r"(?:-\w{1,12}[ \t]+){0,3}"
        rf"{_SECRET_FILE}[ \t]*\r?\n[ \t]*([^\s]{{4,2048}})[ \t\r]*$",
        1,
        _keep_shown,
        text_words=(
            ".key",
            "key.txt",
            "token",
            "secret",
            "credential",
            "passw",
            "pass.txt",
            "phrase.txt",
            "vault",
            ".pem",
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
        ),
        gate=_ONE_TOKEN_LINE,
    ),
    # the output of a command that issues or generates a token, a key or a password (a prompt before it)
    Place(
        "shown-secret",
        r"(?im)^[^\n]{0,60}?(?<![\w-])(?:"
        rf"{_PRINTS_A_TOKEN}"
        rf")(?![\w-]){_OUTPUT}",
        1,
        _keep_shown,
        text_words=_PRINTS_A_TOKEN_WORDS,
        gate=_ONE_TOKEN_LINE,
    ),
    # a field of the output of a command that resets, issues or reveals a password (a value on its label's line):
    # Get-LapsADPassword's "Password : ...", elasticsearch-reset-password's "New value: ...", vault's secret_id
    Place(
        "shown-secret",
        r"(?im)^[ \t]{0,8}(?:password|ms-mcs-admpwd|secret[_-]id|secretstring|secretvalue|client_token|"
        r"new[ \t]+(?:value|password)|(?:generated|initial|temporary)[ \t]+password)"
        r"(?:[ \t]*:[ \t]*|[ \t]{2,40})([^\s]{4,256})[ \t\r]*$",
        1,
        _keep_field,
        text_words=_ISSUES_A_PASSWORD_WORDS,
    ),
]
