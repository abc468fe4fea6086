"""A user and a password given together in shorthand (issue 36), as data people pass a database login around.

- **after a word for a login**: ``creds are loader:snowcone249``, ``login as reporting / kpivfezo!``,
  ``basic auth modelops:X``, ``user reporting / X``, ``Zugangsdaten: benutzer gast / X``, ``the creds for the
  replica: ro_user X``;
- **a user, a password and a host**: ``analyst / kiwi7850 @ dw.int:5432/sales`` (a connection dialog's shorthand);
- **a service user and its password**: ``use etl_user/October22``; **a script given a host, a user and a
  password**: ``./sync.sh dw.int ro X sales``;
- **connected as a user with a password**: ``connecting as etl with X``, ``logged in as svc using X``;
- **a list of a login's values**: ``creds <- c("bi_ro", "X")``, ``{'matlab_ro', 'X'}``,
  ``conn args=('dw.int', 5432, 'ro', 'X', 'sales')``: a user's name, then a quoted value;
- **an account set to a password**: ``resetting the Metabase admin to X``, ``set it to “X”``
  (a value with a digit in it);
- **a passphrase of plain words**: ``the ssh key passphrase is four teddy bears running``.

A password must mix letters with digits or symbols (a plain word, a name, a path, a version, a number stays), except
the passphrase, which is words to the end of the line that start with no word of a sentence about it.
Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import unquote
from kernel.redaction.places import Place
from kernel.redaction.values import placeholder_token, value_is_code

_LOGIN_WORD = (
    r"(?:creds?|credentials|login|log[ \t]in[ \t]as|logon|basic[ -]auth|user(?:name)?|benutzer(?:name)?|"
    r"zugangsdaten|anmeldedaten|utilisateur|identifiants|usuario|credenciales|utente|gebruiker|inloggegevens)"
)
_USER = r"([A-Za-z][\w.@-]{0,40})"
_PASSWORD = r"([^\s/:@'\"`,;)]{4,128})"


def _not_a_password(value: str) -> bool:
    value = unquote(value).rstrip(".,;?")
    if len(value) < 4 or value_is_code(value) or placeholder_token(value) or value.startswith(("$", "%", "{", "<")):
        return True
    if re.fullmatch(r"[\w-]{1,63}(?:\.[A-Za-z][\w-]{0,62}){1,8}", value):
        return True  # a host's name: a Kerberos principal (host/web01.corp.local@REALM), a path's end
    letters = any(c.isalpha() for c in value)
    others = any(not c.isalpha() and c not in ".-_" for c in value)  # ana.k, first-last: a name
    if not (letters and others):
        return True  # a plain word or a number
    return re.fullmatch(r"v?\d{1,4}(?:\.\d{1,4}){0,3}[a-z]{0,3}", value, re.IGNORECASE) is not None


# a path after a word that says where something is: "in the vault under prod/db1", "see infra/pg14"
_WHERE = re.compile(r"(?i)\b(?:in|under|at|from|see|to|into|on|via|path|dir)[ \t]{1,4}\Z")


# nouns that follow "login" or "user" in a sentence about a screen or a document, not a user's name
_NOT_A_USER = frozenset(
    "page pages guide screen form flow name names id ids docs doc manual agent interface input output group groups "
    "role roles list story stories experience section settings menu button field fields data table tables model "
    "models management portal endpoint api ui ux level mode type types home".split()
)
_LIST_WORDS: tuple[str, ...] = ("cred", "login", "auth", "conn", "_ro", "_rw", "_user", "_usr", "_svc", "_etl")
_LIST_WORDS += ("_admin", "_app", "_read", "_writer")


def _keep_pair(match: re.Match[str]) -> bool:
    before = match.string[max(0, match.start(1) - 12) : match.start(1)]
    if match.group(1).lower() in _NOT_A_USER or _WHERE.search(before) is not None:
        return True
    return _not_a_password(match.group(2))


def _keep_told(match: re.Match[str]) -> bool:
    """A value with letters and digits, not a version or a number, and not a name of words and dots."""
    value = match.group(1).rstrip(".!?")
    return _not_a_password(value) or not any(c.isdigit() for c in value)


_PASSPHRASE_OPENERS = frozenset(
    "the a an not no stored in on kept set required empty missing still wrong invalid incorrect same too used "
    "different optional unknown changed being saved shown written given sent".split()
)


def _keep_passphrase(match: re.Match[str]) -> bool:
    words = match.group(1).split()
    return words[0].lower() in _PASSPHRASE_OPENERS or len(set(words)) < len(words)


CONNECTION_PAIRS: list[Place] = [
    # creds are loader:snowcone249 / login as reporting / kpivfezo! / basic auth — ray:raycluster89
    Place(
        "login-pair",
        rf"(?i)\b{_LOGIN_WORD}\b[^\n]{{0,40}}?(?<![\w./@:-]){_USER}(?:[ \t]{{0,2}}/[ \t]{{0,2}}|:){_PASSWORD}"
        r"(?![^\s.,;!?)])",
        (2,),
        _keep_pair,
        line_words=(
            "cred",
            "login",
            "log in",
            "logon",
            "auth",
            "user",
            "benutzer",
            "zugangsdaten",
            "anmeldedaten",
            "identifiants",
            "usuario",
            "credenciales",
            "utente",
            "gebruiker",
            "inlog",
        ),
    ),
    # the creds for the replica: ro_user reknjyqkmy42 (a user and a password apart by a blank, after a colon)
    Place(
        "login-pair",
        rf"(?i)\b(?:creds?|credentials|login|zugangsdaten|identifiants)\b[^\n:]{{0,40}}:[ \t]{{1,4}}{_USER}[ \t]{{1,4}}"
        rf"{_PASSWORD}[ \t]*[.!]?$",
        (2,),
        _keep_pair,
        line_words=("cred", "login", "zugangsdaten", "identifiants"),
    ),
    # analyst / kiwi7850 @ dw.int:5432/sales
    Place(
        "login-pair",
        rf"(?<![\w./@:-]){_USER}[ \t]{{0,2}}/[ \t]{{0,2}}{_PASSWORD}[ \t]{{0,2}}@[ \t]{{0,2}}"
        r"[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}",
        (2,),
        _keep_pair,
        line_words=("@",),
    ),
    # use etl_user/October22 on the replica (a service user's name, a slash and its password)
    Place(
        "login-pair",
        r"\b(?i:use|try|with)[ \t]{1,4}([a-z][a-z0-9]{0,20}_[a-z0-9_]{1,20})/([^\s/:@'\"`,;)]{4,128})(?=[ \t,;]|$)",
        (2,),
        _keep_pair,
        line_words=("use ", "try ", "with "),
    ),
    # ./sync.sh dw.int ro Quokka173 sales: a script given a host, a user and a password in a row
    Place(
        "login-pair",
        r"(?<!\S)[\w./-]{0,60}\.(?:sh|py|rb|pl|R|js|ps1|bat|cmd)[ \t]{1,4}(?:-\S{1,20}[ \t]{1,4}){0,3}"
        r"(?:(?:[A-Za-z0-9-]{1,63}\.){1,8}(?:int|lan|local|corp|internal|com|net|org|io|cloud|dev|prod)|"
        r"\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?[ \t]{1,4}([A-Za-z][\w.-]{0,30})[ \t]{1,4}"
        r"([^\s/:@'\"`,;)]{4,128})(?=[ \t]|$)",
        (2,),
        _keep_pair,
        line_words=(".sh ", ".py ", ".rb ", ".pl ", ".r ", ".js ", ".ps1 ", ".bat ", ".cmd "),
    ),
    # connecting as etl with X, logged in as svc using X
    Place(
        "login-pair",
        r"(?i)\b(?:connect(?:s|ing|ed)?|log(?:s|ging|ged)?[ \t]in|sign(?:s|ing|ed)?[ \t]in|auth\w{0,12})[ \t]as"
        rf"[ \t]{_USER}[ \t](?:with|using|pw|password)[ \t]{{1,4}}{_PASSWORD}(?![^\s.,;!?)])",
        (2,),
        _keep_pair,
        line_words=(" as ",),
    ),
    # creds <- c("bi_ro", "X"), {'matlab_ro', 'X'}, conn args=('dw.int', 5432, 'ro', 'X', 'sales')
    Place(
        "login-list",
        r"(?i)(?:\b(?:creds?|credentials|login|auth|conn\w{0,10})\b[^\n]{0,40}?[(\[{][^\n]{0,80}?|[{(\[][ \t]{0,4}"
        r"(?=[\"'][a-z][\w.-]{0,30}_(?:ro|rw|user|usr|svc|etl|admin|app|readonly|reader|writer)[\"']))"
        r"[\"']([A-Za-z][\w.-]{0,30})[\"'][ \t]{0,2},[ \t]{0,2}[\"']([^\"'\n]{4,64})[\"']",
        (2,),
        _keep_pair,
        line_words=_LIST_WORDS,
    ),
    # resetting the Metabase admin to Metabase7474, changed the root login to X: an account set to a password
    Place(
        "account-set-to",
        r"(?i)\b(?:reset(?:ting)?|set(?:ting)?|chang(?:e|ed|ing)|rotat(?:e|ed|ing))\b[^\n]{0,40}?"
        r"\b(?:admin|root|login|account|superuser)\b[ \t]{1,4}to[ \t]{1,4}([^\s'\"`,;]{6,128})",
        (1,),
        _keep_told,
        line_words=("admin", "root", "login", "account", "superuser"),
    ),
    # set it to “X” (a random value in curly or straight quotes after "set it to")
    Place(
        "account-set-to",
        "(?i)\\bset[ \\t]{1,4}(?:it|this|that)[ \\t]{1,4}to[ \\t]{1,4}[\u201c\u2018\"']([^\u201d\u2019\"'\\n]{6,128})"
        "[\u201d\u2019\"']",
        (1,),
        _keep_told,
        line_words=("set it", "set this", "set that"),
    ),
    # the ssh key passphrase is four teddy bears running
    Place(
        "passphrase-words",
        r"(?i)\bpass[ -]?phrase\b[^\n.]{0,60}?\b(?:is|was|:)[ \t]{1,4}"
        r"((?-i:[a-z0-9]{2,20})(?:[ \t](?-i:[a-z0-9]{2,20})){2,6})[ \t]*[.!]?$",
        1,
        _keep_passphrase,
        line_words=("passphrase", "pass phrase", "pass-phrase"),
    ),
]
