"""A device's, a console's or an account's login given as a pair (issue 36), the way operations notes write it:

- **user / password** after the thing it opens and a colon, or after a word that says login: ``Moxa MGate web
  console: admin / PW``, ``APC card on UPS-2: apc / PW``, ``the HMI login for operators is op / PW``,
  ``login me / PW``, ``GoDaddy account: 449120345 / PW``;
- **a user then a password word**: ``user CORP\\svc_scan  pass PW``, ``jumpadmin, pw PW``, ``system manager ID
  7654321, PIN 5015767``, ``station login: contractor1 with PW``;
- **log in as a user, then the password later in the sentence**: ``log in as admin, the one we set is PW``;
- **a device's or a role's password word, then the value**: ``BMC PWD VQOTXEELCW``, ``group password PW``.

The password must look like one (a digit or a symbol among letters, or letters of mixed case not a word's): pairs of
words stay (``TCP / UDP``, ``read / write``, ``Login options: Google / GitHub``). Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.command_output import looks_like_a_password
from kernel.redaction.places import Place
from kernel.redaction.recogniser import MARKER_PREFIX
from kernel.redaction.values import value_is_code

_USER = r"[A-Za-z0-9_.@\\-]{1,64}"
_PASSWORD = r"([^\s/,;()\"'`<>]{4,128}?)[.,;:!?]?(?=[ \t]*(?:[(,;]|$|\b(?:and|but|for|on|since|until|from)\b))"
_LOGIN_WORDS = (
    r"log[ \t-]?in|logon|sign[ \t-]?in|console|web[ \t-]?ui|gui|credentials?|creds|account|default|station|panel|"
    r"interface|portal|admin"
)
# Words of mixed case that are names: JavaScript, GitHub, iPhone, macOS, eBay, HTTPS
_CAMEL_WORD = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+|[a-z]{1,2}[A-Z][A-Za-z]{1,20}|[A-Z]{2,}[a-z]{0,3}s?")
# an identifier or a file's name: dashboard_v2, page-2, report.pdf
_NAME = re.compile(r"[a-z]{2,30}(?:[_-][a-z0-9]{1,30}){1,4}|[\w-]{1,60}\.[a-z]{2,4}")
# "login USER / PW": the login is named right before the pair, so a password of plain letters counts too
_LOGIN_THEN_PAIR = re.compile(r"(?i)\blog[ \t-]?in[ \t]+\S{1,64}[ \t]+/[ \t]+[a-z]{6,}\Z")


def _shape(text: str) -> str:
    """The kinds of characters a value is made of, each run as one: 1024x768 -> 9a9, Team-2 -> Aa-9."""
    kinds = ("9" if c.isdigit() else "a" if c.islower() else "A" if c.isupper() else c for c in text)
    out: list[str] = []
    for kind in kinds:
        if not out or out[-1] != kind:
            out.append(kind)
    return "".join(out)


def _keep_slash_pair(match: re.Match[str]) -> bool:
    """Two values of one shape either side of the slash are alternatives (1024x768 / 800x600, user01 / group02)."""
    before = match.string[match.start() : match.start(1)].rstrip(" \t/").split()
    if before and _shape(before[-1]) == _shape(match.group(1)) not in ("a", "A", "Aa"):
        return True
    return _keep_pair(match)


def _keep_pair(match: re.Match[str]) -> bool:
    """Keep a value that is code, a marker already, or does not look like a password (a word, JavaScript)."""
    value = match.group(1)
    if MARKER_PREFIX in value or value_is_code(value) or _CAMEL_WORD.fullmatch(value) or _NAME.fullmatch(value):
        return True
    if _LOGIN_THEN_PAIR.search(match.string, match.start(), match.end(1)):
        return False
    return not looks_like_a_password(value)


def _keep_device_password(match: re.Match[str]) -> bool:
    """After a device's password word, capitals alone count too (a label's VQOTXEELCW); words do not."""
    value = match.group(1)
    if len(value) >= 8 and value.isalpha() and value.isupper():
        return False
    return _keep_pair(match)


LOGINS: list[Place] = [
    # USER / PASSWORD after a colon, "is" or a login word on the same line
    Place(
        "login-pair",
        rf"(?i)(?:(?:{_LOGIN_WORDS})\b[^\n/]{{0,40}}?(?:[ \t]|:)|:[ \t]|\bis[ \t])[ \t]{{0,4}}{_USER}[ \t]{{1,4}}/"
        rf"[ \t]{{1,4}}(?-i:{_PASSWORD})",
        1,
        _keep_slash_pair,
        line_words=(" / ",),
    ),
    # a user, then a password's word and the password: "user X pass Y", "X, pw Y", "ID 7654321, PIN 5015767"
    Place(
        "login-pair",
        rf"(?i)(?:\b(?:user(?:name)?|login|id|account)[ \t:=]{{1,4}}|:[ \t]{{1,4}}){_USER}[ \t]{{0,4}},?[ \t]{{1,8}}"
        rf"(?:and[ \t]+)?(?:pass(?:word)?|pw|pwd|pin|with)[ \t:=]{{1,4}}(?-i:{_PASSWORD})",
        1,
        _keep_pair,
        line_words=("pass", "pw", "pin", "with"),
    ),
    # a device's or a role's password word, then the value: "BMC PWD VQOTX...", "group password PW", "iLO pass PW"
    Place(
        "login-pair",
        r"(?i)\b(?:bmc|ipmi|ilo|idrac|imm|xcc|kvm|ups|nas|nvr|dvr|pdu|plc|hmi|console|enable|group|device|station|"
        r"switch|router|firewall|printer|camera)[ \t]+(?:pwd|pw|pass|password|passcode)[ \t]{0,4}[:=]?[ \t]{1,4}"
        rf"(?-i:{_PASSWORD})",
        1,
        _keep_device_password,
        line_words=("pw", "pass"),
    ),
    # "log in as USER, ... is PW": the account named, then its password later in the sentence
    Place(
        "login-pair",
        rf"(?i)\b(?:log|sign)[ \t-]?(?:in|on)[ \t]+as[ \t]+{_USER}\b[^\n]{{0,80}}?(?:\bis|\bwith|:)[ \t]{{1,4}}"
        rf"(?-i:{_PASSWORD})",
        1,
        _keep_pair,
        line_words=(" as ",),
    ),
]
