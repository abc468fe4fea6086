"""What a password looks like when nothing but its shape can tell (issue 36): letters with digits or symbols
(``password_shaped``), random letters whose case switches (``random_letters``), and, where a sentence says a
password follows, a word then a number (``weak_password_shaped``: ``marigold77``, not ``sha256`` or ``page12``).
Not an email, a path, a URL, a call, a setting or a version. Plain functions, asked by the prose and code rules,
and the pattern of a value in a sentence (``WORD_VALUE``, ``SHAPED_AHEAD``) the prose rules share.
"""

from __future__ import annotations

import re

from kernel.redaction.values import value_is_code

# A name in one case then '=': "mode=fast", "MAX_AGE=30" is a setting; a password may hold '=' ("5o=I2@*", "Lm=4q!").
_KEY_EQUALS = re.compile(r"[a-z_][a-z0-9_.-]{2,40}=|[A-Z_][A-Z0-9_.-]{2,40}=")
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){0,8}\.[A-Za-z]{2,24}")


def password_shaped(value: str) -> bool:
    """Letters with digits or symbols, mixed case or a symbol: ``Fae4oJckbGnqRq1``, ``cinder83!``; not a path,
    a URL, a call, a version (``dashboard_v2``, ``sha256:...``) or a plain word."""
    value = value.rstrip(".,;:!?")
    if len(value) < 6 or value_is_code(value) or re.search(r"[/:()\\]", value) or _KEY_EQUALS.match(value):
        return False
    if _EMAIL.fullmatch(value):
        return False  # "invalid password for user=ops@example.org": a user, not a password
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() and c not in "-_." for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (letters and (digits or symbols) and (mixed or symbols)) or random_letters(value)


_CASE_RUN = re.compile(r"[A-Z]+|[a-z]+")
# Words joined in camel case, an acronym before a word or at the end: HTTPSConnectionPool, JavaScript, PostgreSQL.
# (each word holds a vowel: "Vh" and "Bb" are no words)
_CAMEL_CASE = re.compile(
    r"[a-z]{0,16}(?:[A-Z]{2,6}(?=[A-Z][a-z]{2})|[AEIOUY][a-z]{1,16}|[A-Z](?=[a-z]{0,15}[aeiouy])[a-z]{1,16})*[A-Z]{0,6}"
)


def random_letters(value: str) -> bool:
    """Letters only, the case switching three times or more, not words in camel case: ``FAPLaHmQGI``,
    ``hyixLNupwY``; not ``PostgreSQL``, ``HTTPSConnectionPool``, ``iPhone``."""
    if len(value) < 8 or not value.isascii() or not value.isalpha():
        return False
    return len(_CASE_RUN.findall(value)) >= 4 and not _CAMEL_CASE.fullmatch(value)


# A word then a number, as people make up a password (marigold77, tulip8, Biscuit2019).
_WORD_THEN_NUMBER = re.compile(r"([A-Za-z][a-z]{2,23})(\d{1,8})")
# Words joined by dashes or underscores, then a number: fromage-bleu-42, tanuki_no_mori88.
_WORDS_THEN_NUMBER = re.compile(r"[A-Za-z][a-z]{1,19}(?:[-_][a-z]{2,20}){1,4}[-_]?\d{1,8}")
_LETTERS_THEN_NUMBER = re.compile(r"([A-Za-z]{2,24})v?(\d{1,8})")
# Things named with a number: an algorithm, a protocol, a platform, a product, a step, a place, a date, a field.
_NAMED_WITH_A_NUMBER = frozenset(
    """sha md base utf ip ipv win windows arm amd python py http https oauth pbkdf argon aes rsa tls ssl crc pkcs ssh
    node java jdk ubuntu debian centos rhel fedora alpine ios android macos osx gpt llama ecdsa blake des iso html css
    php vue net postgres mysql redis mongo kafka smb snmp nfs ldap krb ntlm wpa wep ike quic office excel
    page step part item line room level phase version round day week month year sprint chapter section table figure
    node worker server host pod rack slot port team group attempt try case issue ticket bug build run job stage task
    row col column cell sheet tab disk drive volume zone region area floor gate bay lane route exit unit block layer
    epoch batch shard replica instance cluster env jan feb mar apr may jun jul aug sep sept oct nov dec january
    february march april june july august september october november december mon tue wed thu fri sat sun field
    input arg param var key box text label button form entry option choice value string str token secret""".split()
)


def named_with_a_number(value: str) -> bool:
    """A thing's name then its number, in any case: ``sha256``, ``Python3``, ``OAuth2``, ``IPv6``, ``macOS14``,
    ``page12``, ``June2019``."""
    parts = _LETTERS_THEN_NUMBER.fullmatch(value.rstrip(".,;:!?"))
    return parts is not None and parts.group(1).lower() in _NAMED_WITH_A_NUMBER


def weak_password_shaped(value: str) -> bool:
    """``password_shaped``, or a word then a number (``marigold77``, ``tulip8``): only where the sentence says a
    password follows ("root pw: ...", "the password is ...", ", so ..."); never a thing named with a number
    (``sha256``, ``Python3``, ``page12``, ``june2019``)."""
    value = value.rstrip(".,;:!?")
    if named_with_a_number(value) or re.search(r"\w['’]s\Z", value):
        return False  # Python3, a possessive ("dictionary’s")
    if password_shaped(value):
        return True
    if _WORDS_THEN_NUMBER.fullmatch(value):
        return True
    return _WORD_THEN_NUMBER.fullmatch(value) is not None and len(value) >= 6


# A value in a sentence, as a pattern (its group 1), for the prose rules. Thai, Chinese, Japanese and Korean script
# and full-width forms: no password is written in them, and they join the words around a value without a space
# ("密码是 X，用完", "パスワードは X です"): they end a value as a space does.
JOINED_SCRIPTS = "\u0e00-\u0e7f\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
VALUE_END = rf"(?=[,;.!?)]?(?:\s|$)|[{JOINED_SCRIPTS}])"
# (quoted maybe, in any language's marks: "PW", « PW », „PW“, 「PW」)
WORD_VALUE = (
    rf"(?:[\"'`“‘„「『]|«[ \t]?)?([^\s\"'`«»“”‘’„{JOINED_SCRIPTS}]{{4,128}}?)(?:[\"'`”’“」』]|[ \t]?»)?" + VALUE_END
)
# A token with a digit or a symbol ahead: a comma or a connective gives a value only when one follows.
SHAPED_AHEAD = r"(?=[\"'`«]?[^\s,\"'`]{0,127}[\d!@#$%^&*+=~?])"
