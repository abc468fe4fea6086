"""A password given to a directory bind (issue 36): LDAP and Active Directory clients, in code and configuration.

- **a bind call**: ``conn.simple_bind_s(DN, PW)`` (python-ldap), ``l.Bind(DN, PW)`` (Go), ``client.bind(DN, PW, cb)``
  (ldapjs), ``ldap_bind($ds, DN, PW)`` (PHP), ``Connection(server, DN, PW)`` (ldap3), ``conn.rebind(DN, PW)``,
  ``$ldap->bind(DN, password => PW)`` (Perl);
- **an Active Directory client**: ``new DirectoryEntry(path, user, PW)``, ``new PrincipalContext(type, domain, user,
  PW)``, ``ctx.ValidateCredentials(user, PW)``;
- **JNDI's credentials**: ``env.put(Context.SECURITY_CREDENTIALS, PW)``, ``java.naming.security.credentials=PW``;
- **a bind password in a client's or a server's configuration**: ``bindpw PW`` (nslcd, pam_ldap), ``rootpw PW``
  (slapd), ``olcRootPW: PW``, ``ldap_default_authtok = PW`` (sssd), ``BindPassword PW``.

A bind call counts when its user is a DN (``cn=...,dc=...``), ``DOMAIN\\user``, ``user@domain`` or a variable named
for one (``dn``, ``bind_user``), and its password a literal that is not the last but one of several literals
(``ldap_bind($ds, DN, PW)`` is read with DN as the user); JavaScript's ``fn.bind(this, 'a', 'b')`` names no user. A
value that is code, a placeholder or a word of a sentence stays. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place
from kernel.redaction.values import keep_value

_QUOTED = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')"
# An argument before the user: a name, a dotted name, a call without arguments, or a literal (a path, a domain).
_ARG = r"(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|[\w$.\[\]>:-]{1,128}(?:\(\))?)"
_USER = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[\w$.\[\]>-]{1,128})"
_VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![#])[^\s'\"|&;<>]{1,256})"

# A user that is a directory's: a DN, DOMAIN\user, a UPN, or a variable named for a user or a DN.
_DIRECTORY_USER = re.compile(
    r"(?i)\b(?:cn|uid|ou|dc|o|samaccountname|userprincipalname)=|\\|@|^[\w$.\[\]>-]{0,60}"
    r"(?:dn|user|login|account|principal|bind|upn|sam)[\w\]]{0,60}$"
)
# Active Directory clients whose user is any name.
_AD_CLIENT = re.compile(r"(?i)directoryentry|principalcontext|validatecredentials")
_KEEP_PASSWORD = keep_value(3)


def _keep_bind(match: re.Match[str]) -> bool:
    """Keep a call whose user is no directory's (``fn.bind(this, 'a', 'b')``), and a password that is code."""
    user = match.group(2).strip("\"'")
    if not (_AD_CLIENT.search(match.group(1)) or _DIRECTORY_USER.search(user)):
        return True
    return any(c.isspace() for c in match.group(3).strip("\"'")) or _KEEP_PASSWORD(match)


DIRECTORY_BINDS: list[Place] = [
    Place(
        "bind-password",
        r"(?i)(?<![\w$])((?:simple_|sasl_)?bind(?:_s)?|rebind|ldap_(?:simple_|sasl_)?bind|validatecredentials|"
        r"connection|directoryentry|principalcontext)[ \t]*\([ \t]*(?:"
        + _ARG
        + r"[ \t]*,[ \t]*){0,3}?"
        + _USER
        + r"[ \t]*,[ \t]*(?:password[ \t]*(?:=>?|:)[ \t]*)?"
        + _QUOTED
        # the last literal given (a marker left by an earlier match is one)
        + r"[ \t]*(?:\)|,(?![ \t]*(?:[\"']|\[REDACTED:)))",
        3,
        _keep_bind,
        line_words=("bind", "validatecredentials", "connection", "directoryentry", "principalcontext"),
    ),
    Place(
        "bind-password",
        r"(?i)\b(?:security_credentials|java\.naming\.security\.credentials)[\"']?[ \t]*(?:,|=|:)[ \t]*" + _VALUE,
        1,
        keep_value(1),
        line_words=("security_credentials", "security.credentials"),
    ),
    Place(
        "bind-password",
        r"(?im)^[ \t]{0,16}(?:bindpw|rootpw|olcrootpw|ldap_default_authtok|ldap_bind_pw|bind_?password|"
        r"ldap[._]?bind[._]?pass(?:word)?)[ \t]*(?:[:=][ \t]*|[ \t]+)" + _VALUE,
        1,
        keep_value(1),
        line_words=("bindpw", "rootpw", "authtok", "bind_pw", "bindpass", "bind_pass", "bind.pass"),
    ),
]
