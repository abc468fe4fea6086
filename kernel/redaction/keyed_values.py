"""A value given to a name that says it is secret (issue 36): ``DB_PASSWORD=...``, ``"api_key": "..."``,
``password = correct horse battery``, ``GITHUB_TOKEN=<40 hex>``, ``<password>...</password>``, ``pass: ...``,
and prose ("the db password is P@ss...", "grafana token glsa_..."); a name ending in ``_pass`` or ``_pw``; an
account named as the key of its password in a data bag (``{"id": "mysql", "root": "PW"}``).

A strong name (password, secret, api key) takes any value, short ones included; a weak one (token, key, auth,
cookie) only a random-looking one. A value that is code (``password=None``, ``password: str``, ``$DB_PASSWORD``,
``settings.SECRET_KEY``, ``getpass()``) is left alone, so notes about code survive (``kernel.redaction.values``).
Plain module.
"""

from __future__ import annotations

import base64
import binascii
import re

from kernel.redaction.command_output import looks_like_a_password
from kernel.redaction.entropy import unquote
from kernel.redaction.http_headers import a_request_signature
from kernel.redaction.places import CALL_IN_VALUE, Place
from kernel.redaction.recogniser import MARKER_PREFIX, Recogniser, inside_a_word
from kernel.redaction.values import (
    about_a_secret,
    keep_low_entropy,
    keep_value,
    looks_random,
    named_public,
    names_a_password_manager,
    value_is_code,
)

# A name that says its value is secret: any value at all is redacted (short ones included).
_STRONG_KEYS = (
    r"password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|"
    r"session[_-]?token|id[_-]?token|client[_-]?secret|private[_-]?key|secret[_-]?key|access[_-]?key|"
    r"client[_-]?key[_-]?data|connection[_-]?string|conn[_-]?str|_auth\b"
)
# A name that often holds a secret, but also counts (max_tokens) or paths: only random-looking values.
_WEAK_KEYS = r"token|key|sig|signature|credentials?|auth|cookie|license|(?<![a-z])pat(?![a-z])"
_KEY_CHARS = r"[A-Za-z0-9_.-]"


def _key(words: str) -> str:
    """A name holding one of ``words`` (DB_PASSWORD, --api-key, "client_secret"), with its closing quote."""
    return rf"(?<![A-Za-z0-9_.-]){_KEY_CHARS}{{0,40}}?(?:{words}){_KEY_CHARS}{{0,40}}(?:\\{{0,7}}[\"'])?"


# (a colon before backslashes and a quote: JSON inside a JSON string, escaped once or more)
_SEPARATOR = r"[ \t]{0,8}(?::=|=>|=(?!=)|:(?![:/\\])|:(?=\\{1,7}\"))"
_VALUE_START = r"(?!\[REDACTED:)(?![$%{<])"
_BARE = r"[^\s\"'`<>]{1,512}"


def _quoted(least: int) -> str:
    """A quoted value, four groups: '...', "...", `...`, and \\"...\\" (inside a JSON or repr() string, escaped once
    or more: JSON in a JSON string)."""
    n = f"{{{least},512}}"
    return rf"'([^'\n]{n})'|\"([^\"\n]{n})\"|`([^`\n]{n})`|\\{{1,7}}\"([^\"\\\n]{n})\\{{1,7}}\""


_QUOTED = _quoted(1)
# More words of the same value after "key: " or "key = " (not after "KEY=", the shell's env prefix).
_MORE_WORDS = r"(?:[ \t]+(?![A-Za-z0-9_.-]{1,60}[ \t]*[:=])(?!#|//|\||&&|;)[^\s\"'`<>]{1,128}){0,8}"

STRONG_SPACED = re.compile(
    rf"(?i)({_key(_STRONG_KEYS)})([ \t]{{0,8}}(?::=|=>|=|:)[ \t]{{1,8}}){_VALUE_START}"
    rf"(?:{_QUOTED}|({_BARE}{_MORE_WORDS}))"
)
STRONG_TIGHT = re.compile(rf"(?i)({_key(_STRONG_KEYS)})({_SEPARATOR}){_VALUE_START}(?:{_QUOTED}|({_BARE}))")
WEAK = re.compile(
    rf"(?i)({_key(_WEAK_KEYS)})({_SEPARATOR}[ \t]{{0,8}}){_VALUE_START}"
    rf"(?:{_quoted(16)}|([^\s\"'`<>,;()\\]{{16,512}}))"
)
XML_SECRET = re.compile(rf"(?i)<((?:{_STRONG_KEYS}|token))>([^<\n]{{1,512}})</")
PROSE = re.compile(  # starts at a word's start: checked by the recogniser (see inside_a_word)
    # the nouns share their first letters (p...): written as a tree, the engine rejects a position sooner
    r"(?i)(?:p(?:ass(?:word|wd|phrase|code|\s?code)|in|wd?)|secret|api\s?key|token)"
    r"(?:[ \t]+(?:for|on|of|to|at|in)[ \t]+(?:[\w.@-]{1,40}[ \t]+){0,3}?[\w.@-]{1,40})?"
    r"\s+(?:is\s+now|was\s+changed\s+to|is\s+set\s+to|set\s+to|changed\s+to|reset\s+to|is|was|è|é|ist|est|es|är|er|lautet)"
    r"\s+[\"'`]?([^\s\"'`]{3,256})"
)


def _keyed_value(match: re.Match[str]) -> str:
    return next((g for g in match.groups()[2:] if g is not None), "")


# A Go or Kubernetes type named in a log ("failed to list *v1.Secret: ..."): a kind of object, not a key.
_TYPE_NAME = re.compile(r"[a-z]+\d*\.[A-Z][a-z]+")


# The first word of a value that says where the secret is instead of giving it: "password: see startup banner".
_REFERRING_WORDS = frozenset(
    """see check refer ask contact look read in from stored kept provided given sent set not same as via available
    found shown printed logged displayed generated managed use using taken loaded fetched retrieved pulled injected
    mounted rotated supplied passed""".split()
)


# Variables joined by an operator: "a + b", "$a . $b", "head || tail".
_JOINED_NAMES = re.compile(r"\$?[A-Za-z_]\w{0,40}(?:[ \t]+(?:\+|\.\.?|\|\|)[ \t]+\$?[A-Za-z_]\w{0,40}){1,5}[ \t]*;?")


def _keep_strong(match: re.Match[str]) -> bool:
    name = match.group(1)
    text, start = match.string, match.start()
    if _TYPE_NAME.fullmatch(name) and text[start - 1 : start] in ("*", "]"):
        return True
    value = _keyed_value(match)
    if MARKER_PREFIX in value or _JOINED_NAMES.fullmatch(value):
        return True  # the secret in it is redacted already, or variables joined (continued_lines's to judge)
    if _shell_message(match, value):
        return True  # ${DB_PASSWORD:?must be set}: the shell's message when it is missing, or its alternative
    if _PSQL_VARIABLE.fullmatch(match.group(2)) and re.fullmatch(r"[A-Za-z_]\w{0,60}", value):
        return True  # WITH PASSWORD :'pw': psql's variable (\set pw ...) put in as a literal
    words = value.split()
    if len(words) >= 2 and words[0].lower() in _REFERRING_WORDS:
        return True  # "password: see startup banner", "secret: stored in vault"
    if _not_a_keyed_value(match, value):
        return True
    return about_a_secret(name) or named_public(match) or value_is_code(value)


# A shell's parameter expansion: ${DB_PASS:?message} (the error when it is unset), ${DB_PASS:+alternative}.
_EXPANSION_OPENED = re.compile(r"\$\{[A-Za-z0-9_]{0,60}\Z")
# psql's separator before a variable: a space, then ':' right before the variable's quote.
_PSQL_VARIABLE = re.compile(r"[ \t]{1,8}:")


def _shell_message(match: re.Match[str], value: str) -> bool:
    """The value is the message or the alternative of a shell's ``${NAME:?...}`` or ``${NAME:+...}``."""
    start = match.start()
    return value[:1] in "?+" and _EXPANSION_OPENED.search(match.string, max(0, start - 64), start) is not None


# Where a name is a part of a resource's name, not a key: "arn:aws:secretsmanager:...:secret:prod/db", "urn:...".
_RESOURCE_NAME = re.compile(r"(?i)(?:^|[\s\"'(])(?:arn|urn):[^\s\"']{0,200}\Z")
# The segments of a name joined by colons before the key (what an ARN rescanned after its start shows).
_COLON_PATH = re.compile(r"(?:[\w.-]{1,64}:){2}\Z")
# A word of prose ("carol's notebook"), not a password.
_POSSESSIVE = re.compile(r"[^\W\d_]{1,40}[\u2019'](?:s|d|ll|re|ve|t)")
# A file's name ("passwords_help.xhtml: Typos", a commit subject): what follows is about the file.
_FILE_NAME = re.compile(
    r"(?i)[\w-]\.(?:x?html?|js|ts|py|rb|go|java|json|ya?ml|toml|xml|txt|md|rst|dtd|ftl|properties|css)"
)


def _not_a_keyed_value(match: re.Match[str], value: str) -> bool:
    """A match that gives no value to a key: Go's ``password :=`` (the value would be "="), an opening bracket, a name
    inside an ARN,
    a file name and a word after it, a word of prose ("the secret: alice's memory")."""
    if not value.strip("=:>([{"):
        return True  # Go's ":=", or a value opened on this line and given below ("API_KEY = (")
    text, start, end = match.string, match.start(), match.end()
    if _RESOURCE_NAME.search(text, max(0, start - 200), start) or _COLON_PATH.search(text, max(0, start - 200), start):
        return True
    plain_word = value.isalpha()
    if plain_word and _FILE_NAME.search(match.group(1)):
        return True
    if _POSSESSIVE.fullmatch(value.split()[0]):
        return True
    return plain_word and text[end : end + 1] in ("'", "’") and text[end + 1 : end + 2].isalpha()


# A template or a regular expression ("{hex}:{hex}", "(?:...)", "%(name)s"): a value built by code, not a token.
_TEMPLATE = re.compile(r"\{[\w.]*\}|\(\?|%\(\w+\)s")


def _keep_weak(match: re.Match[str]) -> bool:
    value = _keyed_value(match)
    if match.string.startswith("(", match.end()):
        return True  # token_bytes = base64.b64decode(payload): a function's name, called
    if about_a_secret(match.group(1)) or named_public(match) or value_is_code(value) or not looks_random(value):
        return True
    if a_request_signature(match.group(1), value):
        return True  # X-Hub-Signature-256: sha256=<hex>: one payload's digest
    return _TEMPLATE.search(value) is not None or _public_pem_in_base64(value)


# A PEM block of something public: a certificate, a public key, a request, a revocation list.
_PUBLIC_PEM = re.compile(
    r"-----BEGIN (?:TRUSTED |X509 )?(?:CERTIFICATE|PUBLIC KEY|CRL|X509 CRL|NEW CERTIFICATE REQUEST|"
    r"CERTIFICATE REQUEST|PGP PUBLIC KEY BLOCK|SSH2 PUBLIC KEY|RSA PUBLIC KEY|DH PARAMETERS|EC PARAMETERS)"
)


def _public_pem_in_base64(value: str) -> bool:
    """A PEM block of a public thing still in base64 (kubeconfig's ``certificate-authority-data: LS0tLS1CRUdJTi...``);
    a private key's (``client-key-data``) is no such block."""
    head = value[:64]
    try:
        decoded = base64.b64decode(head[: len(head) // 4 * 4], validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    return _PUBLIC_PEM.match(decoded) is not None


# A sentence's end between the noun and the verb: "a spider pin on her bag. Is Spider-Man ..." asks a question.
_SENTENCE_END = re.compile(r"\w[.!?]\s")


def _keep_prose(match: re.Match[str]) -> bool:
    if _SENTENCE_END.search(match.string, match.start(), match.start(1)):
        return True
    value = match.group(1).rstrip(".,;:)]}!?")
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    return value_is_code(value) or not (has_digit or has_symbol) or not any(c.isalpha() for c in value)


_KEEP_LOW_ENTROPY = keep_low_entropy(1)
_KEEP_PASS_VALUES = frozenset("ok fail failed passed skip skipped true false yes no none null on off".split())
_KEEP_THIRD = keep_value(3)


def _keep_pass_key(match: re.Match[str]) -> bool:
    value = unquote(match.group(3))
    if MARKER_PREFIX in value or CALL_IN_VALUE.search(value):
        return True  # the secret in it is redacted already, or code (conn.get_pass(host).strip())
    if _shell_message(match, value):
        return True  # ${DB_PASS:?DB_PASS must be set}
    return value.isdigit() or value.lower() in _KEEP_PASS_VALUES or _KEEP_THIRD(match)


# Context rules (compiled by ``kernel.redaction.context_rules``): a key named only "pass", and a token named in prose or
# config with a random value ("grafana token glsa_...", "secret: Xy7...").
NAMED_VALUES: list[Place] = [
    Place(
        "assignment",
        r"(?i)(?<![a-z])(pass)([\"']?\s{0,8}(?:=>|=|:)\s{0,8})"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![$%{<\[])[^\s\"'`<>,;]{1,256})",
        3,
        _keep_pass_key,
        text_words=("pass",),
    ),
    Place(
        "named-token",
        r"(?i)\b(?:token|secret|password|passcode|credential|key|pat|personal\s+access\s+token|app\s?password)s?"
        r"(?:\s+(?:value|string))?(?:\s+(?:is|was|for\s+[\w.@-]{1,40}))?\s{0,4}[:=]?\s{0,4}[\"'`]?"
        r"([A-Za-z0-9+/_~.=-]{20,256})",
        1,
        lambda match: _KEEP_LOW_ENTROPY(match) or named_public(match),  # "public key: ..." (wg show) is public
        text_words=("token", "secret", "pass", "credential", "key", "pat ", "pat:", "pat="),
    ),
]


def _keep_dotenv(match: re.Match[str]) -> bool:
    value = match.group(2)
    return about_a_secret(match.group(1)) or value_is_code(value) or value.lower() in _KEEP_PASS_VALUES


# The start of a word ending in "Pass" (KeePass, LastPass): the rule below matches from "Pass" on.
_WORD_START = re.compile(r"[A-Za-z0-9]{0,20}\Z")


def _keep_pass_suffix(match: re.Match[str]) -> bool:
    if _keep_pass_key(match) or about_a_secret(match.group(1)):
        return True
    start = match.start()
    head = _WORD_START.search(match.string, max(0, start - 20), start)
    return head is not None and names_a_password_manager(head.group(0) + match.group(1))  # "KeePass: Infra/NAS"


# A dotenv line whose name says password or secret: the value is everything after the first '=', whatever its first
# character ("MAIL_PASSWORD==x...", "DB_PASS=%q..." start with what the keyed rules take for syntax).
NAMED_VALUES.append(
    Place(
        "assignment",
        r"(?m)^[ \t]*(?:export[ \t]+)?([A-Z][A-Z0-9_]{0,60}(?:PASSWORD|PASSWD|PWD|PASS|PASSPHRASE|SECRET|SECRET_KEY|"
        r"API_?KEY|PRIVATE_KEY))=([=%{<#~?@*][^\s\"'`]{0,255})[ \t]*$",
        2,
        _keep_dotenv,
        line_words=("pass", "pwd", "secret", "key"),
    )
)
# A name whose last word is "pass", joined in camel case or by a separator: keystorePass="...", SMTP_PASS=..., db.pass:
# (not bypass, compass, passenger: "Pass" after a lower-case letter or a digit, or "pass" after a separator)
NAMED_VALUES.append(
    Place(
        "assignment",
        r"((?:(?<=[a-z0-9])Pass|(?<=[_.-])(?:pass|Pass|PASS))(?![\w.-]))([\"']?[ \t]{0,8}(?:=>|=|:)[ \t]{0,8})"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![$%{<\[])[^\s\"'`<>,;]{1,256})",
        3,
        _keep_pass_suffix,
        line_words=("pass",),
    )
)


def keyed_recognisers() -> list[Recogniser]:
    """The keyed values, strong names first, then the prose forms; they run after every other recogniser."""
    value_groups = (3, 4, 5, 6, 7)
    strong = ("pass", "pwd", "secret", "key", "token", "conn", "_auth")
    weak = ("token", "key", "sig", "cred", "auth", "cookie", "license", "pat")
    return [
        Recogniser("assignment", STRONG_SPACED, value_groups, _keep_strong, strong),
        Recogniser("assignment", STRONG_TIGHT, value_groups, _keep_strong, strong),
        Recogniser("keyed-token", WEAK, value_groups, _keep_weak, weak),
        Recogniser("xml-secret", XML_SECRET, (2,), lambda m: value_is_code(m.group(2))),
        Recogniser(
            "prose",
            PROSE,
            (1,),
            lambda m: inside_a_word(m) or _keep_prose(m),
            text_words=("pass", "pin", "pw", "secret", "api", "token"),
        ),
    ]


# A name whose last word is "pw" after a separator: root_pw=..., admin-pw: ..., smtp.pw = ... (a kernel's or a
# bootloader's argument, a device's setting); not a word that ends in pw (a bare "pw" is the prose rules')
NAMED_VALUES.append(
    Place(
        "assignment",
        r"((?<=[A-Za-z0-9][_.-])(?:pw|PW|Pw))(?![\w.-])([\"']?[ \t]{0,8}(?:=|:)[ \t]{0,8})"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![$%{<\[])[^\s\"'`<>,;]{1,256})",
        3,
        lambda match: _keep_pass_suffix(match) or (match.group(3).isalpha() and match.group(3).islower()),
        line_words=("pw",),
    )
)
_LOWER_IDENTIFIER = re.compile(r"[a-z][a-z0-9]{0,30}(?:[-_.][a-z0-9]{1,30}){1,6}")  # linux-x86_64, en_us.utf-8
# A data bag's or a vault item's account named as the key of its password (Chef: {"id": "mysql", "root": "PW"}): only
# in a JSON object with an "id", and only a value that looks like a password ("admin": "true" and paths stay)
NAMED_VALUES.append(
    Place(
        "account-password",
        r"[\"'](?:root|admin|administrator|sa|postgres|sys|system|superuser|sysadmin|replication|repl)[\"'][ \t]*:"
        r"[ \t]*[\"']([^\"'\s]{6,128})[\"']",
        1,
        lambda match: (
            value_is_code(match.group(1))
            or not looks_like_a_password(match.group(1))
            or _LOWER_IDENTIFIER.fullmatch(match.group(1)) is not None
        ),
        text_words=('"id"', "'id'"),
    )
)
