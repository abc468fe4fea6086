"""Secrets in servers' and installers' own configuration dialects (issue 36), beside ``kernel.redaction.places``
(whose directive rule takes ``NAME VALUE`` lines in general):

- **HAProxy**: ``stats auth USER:PW``, a userlist's ``user NAME insecure-password PW``;
- **GRUB**: ``password USER PW`` (and ``password_pbkdf2 USER HASH``) in a file that sets its ``superusers``;
- **PHP-FPM pools**: ``env[DB_PASSWORD] = PW``, ``php_admin_value[...]`` named for a secret;
- **Nagios and Icinga resource files**: ``$USER4$=PW`` (a path, a number or a plain word stays);
- **installer answers**: kickstart's ``rootpw [--plaintext] PW`` and ``sshpw``, a preseed or debconf selection
  of type ``password`` (``d-i passwd/root-password password PW``);
- **passwd-files with a scheme**: Dovecot's or an LDAP ``userPassword``'s ``{PLAIN}PW``, ``{SSHA}HASH``.

Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import unquote
from kernel.redaction.places import Place, keep_first_value, keep_named_value
from kernel.redaction.values import placeholder_token, value_is_code

_VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![#])[^\s\"']{1,256})"
_SCHEMES = (
    r"PLAIN|CLEARTEXT|PLAIN-TRUNC|PLAIN-MD4|PLAIN-MD5|LDAP-MD5|SHA|SSHA|SHA256|SSHA256|SHA512|SSHA512|MD5|SMD5|CRYPT|"
    r"MD5-CRYPT|SHA256-CRYPT|SHA512-CRYPT|BLF-CRYPT|ARGON2I|ARGON2ID|PBKDF2|PKCS5S2|SCRAM-SHA-1|SCRAM-SHA-256"
)


def _keep_word_or_code(match: re.Match[str]) -> bool:
    """A path, a number, a plain lower-case word (a user's name) or code is no password."""
    value = unquote(match.group(match.re.groups))
    if keep_first_value(match) or value_is_code(value) or placeholder_token(value):
        return True
    return value.isdigit() or value.startswith("/") or (value.isalpha() and value.islower())


def _keep_scheme_value(match: re.Match[str]) -> bool:
    value = match.group(1)
    return placeholder_token(value) or value_is_code(value) or len(set(value)) < 3


SERVER_CONFIGS: list[Place] = [
    Place(
        "config-password",
        r"(?im)^[ \t]{0,16}(?:stats[ \t]+auth[ \t]+[^:\s]{1,64}:|user[ \t]+\S{1,64}[ \t]+insecure-password[ \t]+)"
        + _VALUE,
        1,
        _keep_word_or_code,
        line_words=("stats", "insecure-password"),
    ),
    Place(
        "config-password",
        r"(?m)^[ \t]{0,16}password(?:_pbkdf2)?[ \t]+[A-Za-z_][\w.-]{0,31}[ \t]+" + _VALUE + r"[ \t]*$",
        1,
        _keep_word_or_code,
        text_words=("superusers",),
    ),
    Place(
        "config-password",
        r"(?m)^[ \t]{0,16}(?:env|php_value|php_admin_value)\[([\w.]{1,64})\][ \t]*=[ \t]*" + _VALUE,
        2,
        keep_named_value,
        line_words=("env[", "php_value[", "php_admin_value["),
    ),
    Place(
        "config-password",
        r"(?m)^[ \t]{0,8}\$USER\d{1,3}\$[ \t]*=[ \t]*" + _VALUE + r"[ \t]*$",
        1,
        _keep_word_or_code,
        text_words=("$user",),
    ),
    Place(
        "installer-password",
        r"(?m)^[ \t]{0,8}(?:rootpw|sshpw)(?:[ \t]+--[\w-]{1,20}(?:=\S{1,128})?){0,4}[ \t]+(?!--)"
        + _VALUE
        # (its flags may follow it; a sentence does: "rootpw is X on the old box" is prose's to judge)
        + r"(?=(?:[ \t]+--[\w-]{1,20}(?:=\S{1,128})?){0,4}[ \t]*$)",
        1,
        keep_first_value,
        line_words=("rootpw", "sshpw"),
    ),
    Place(
        "installer-password",
        r"(?m)^[ \t]{0,8}[\w.-]{1,64}[ \t]+[\w.-]{1,64}/[\w/.-]{0,128}[ \t]+password[ \t]+" + _VALUE + r"[ \t]*$",
        1,
        keep_first_value,
        line_words=(" password ",),
    ),
    Place(
        "scheme-password",
        r"(?<![\w{$])\{(?:" + _SCHEMES + r")\}([^\s:\"'<>]{4,256})",
        1,
        _keep_scheme_value,
        gate=re.compile(r"\{(?:" + _SCHEMES + r")\}[^\s:\"'<>]"),
    ),
]
