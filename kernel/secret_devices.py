"""Secrets in network devices' configurations and tools (issue 36), beside ``kernel.secret_places``.

- **Cisco-style configurations** (IOS, NX-OS, ASA and the many that copy them): ``username NAME [privilege N]
  password|secret [TYPE] VALUE``, ``enable password|secret [TYPE] VALUE``, ``tacacs-server key``,
  ``radius-server key``, ``key-string``, ``crypto isakmp key VALUE address ...``, ``pre-shared-key``,
  ``wpa-psk ascii``, ``snmp-server community VALUE``, an indented ``password 0|7 VALUE`` under a ``line``;
  a type 0 value is the password itself, a type 7 one is reversible, 5/8/9 are hashes (still taken: crackable);
- **strongSwan / Libreswan secrets**: ``SELECTORS : PSK "VALUE"``, ``: XAUTH``, ``: EAP``, ``: RSA file "PASS"``;
- **SNMP communities** on a tool's command line: ``snmpwalk -v2c -c VALUE HOST`` (``public`` and ``private``,
  the defaults every example uses, are kept).

Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.secret_places import Place
from kernel.secret_values import value_is_code

_VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"']{1,256})"
_DEFAULT_COMMUNITIES = frozenset(("public", "private"))


def _keep_device_value(match: re.Match[str]) -> bool:
    value = match.group(match.re.groups).strip("\"'")
    return value_is_code(value) or value.lower() in _DEFAULT_COMMUNITIES


def _keep_ipsec(match: re.Match[str]) -> bool:
    """An ipsec.secrets value is quoted, or a token: a plain word after "Mode : PSK" is prose."""
    value = match.group(1)
    return (value[0] not in "\"'" and value.rstrip(".,;:!?").isalpha()) or _keep_device_value(match)


def _keep_configured(match: re.Match[str]) -> bool:
    """Without a type digit, a plain lower-case word is prose ("username and password are required")."""
    if match.group(1) is None and match.group(2).isalpha() and match.group(2).islower():
        return True
    return _keep_device_value(match)


DEVICES: list[Place] = [
    Place(
        "device-password",
        r"(?im)^[ \t]{0,8}(?:username[ \t]+\S{1,64}(?:[ \t]+privilege[ \t]+\d{1,2})?[ \t]+(?:password|secret)|"
        r"enable[ \t]+(?:password|secret)(?:[ \t]+level[ \t]+\d{1,2})?|"
        r"(?:tacacs|radius)-server[ \t]+(?:host[ \t]+\S{1,64}[ \t]+)?key|key-string|crypto[ \t]+isakmp[ \t]+key|"
        r"pre-shared-key(?:[ \t]+(?:local|remote|address[ \t]+\S{1,64}(?:[ \t]+key)?))?|"
        r"wpa-psk[ \t]+ascii|snmp-server[ \t]+community|ppp[ \t]+chap[ \t]+password|"
        r"(?<=[ \t])(?-i:password)(?=[ \t]+[07][ \t]))[ \t]+(?:([0-9])[ \t]+)?" + _VALUE,
        2,
        _keep_configured,
        line_words=(
            "username",
            "enable",
            "-server",
            "key-string",
            "isakmp",
            "pre-shared",
            "wpa-psk",
            "chap",
            "password",
        ),
    ),
    Place(
        "ipsec-secret",
        r"(?m)(?:^|[ \t]):[ \t]*(?:PSK|XAUTH|EAP|NTLM|PIN|(?:RSA|ECDSA|P12|PKCS12)[ \t]+\S{1,200})[ \t]+" + _VALUE,
        1,
        _keep_ipsec,
        gate=re.compile(r":[ \t]*(?:PSK|XAUTH|EAP|NTLM|PIN|RSA|ECDSA|P12|PKCS12)[ \t]"),
    ),
    Place(
        "snmp-community",
        r"\bsnmp[a-z]{0,12}(?:\.exe)?\b[^\n|;&]{0,200}?[ \t]-c[ \t]*" + _VALUE,
        1,
        _keep_device_value,
        line_words=("snmp",),
    ),
]
