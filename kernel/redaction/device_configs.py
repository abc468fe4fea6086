"""Secrets in network devices' configurations and tools (issue 36), beside ``kernel.redaction.places``.

- **Cisco-style configurations** (IOS, NX-OS, ASA and the many that copy them): ``username NAME [privilege N]
  password|secret [TYPE] VALUE``, ``enable password|secret [TYPE] VALUE``, ``tacacs-server key``,
  ``radius-server key``, ``key-string``, ``crypto isakmp key VALUE address ...``, ``pre-shared-key``,
  ``wpa-psk ascii``, ``snmp-server community VALUE``, an indented ``password 0|7 VALUE`` under a ``line``;
  a type 0 value is the password itself, a type 7 one is reversible, 5/8/9 are hashes (still taken: crackable);
- **the "set" dialects** (Junos, FortiOS, VyOS, EdgeOS, PAN-OS): ``set system root-authentication
  plain-text-password-value VALUE``, ``set psksecret VALUE``, ``set ... pre-shared-secret 'VALUE'``;
  Huawei's and H3C's ``local-user NAME password irreversible-cipher|cipher|simple VALUE``; a diff's ``+``/``-`` lines;
- **strongSwan / Libreswan secrets**: ``SELECTORS : PSK "VALUE"``, ``: XAUTH``, ``: EAP``, ``: RSA file "PASS"``;
- **SNMP communities** on a tool's command line: ``snmpwalk -v2c -c VALUE HOST`` (``public`` and ``private``,
  the defaults every example uses, are kept).

Servers' and installers' own dialects (``kernel.redaction.server_configs``) and a device's or an account's login given
as a pair (``kernel.redaction.login_pairs``: ``console: admin / PW``) follow these in ``DEVICES``.
Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.login_pairs import LOGINS
from kernel.redaction.places import Place
from kernel.redaction.server_configs import SERVER_CONFIGS
from kernel.redaction.values import value_is_code

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


def _keep_set_value(match: re.Match[str]) -> bool:
    """A plain lower-case word is a setting or prose ("set password expiry never"), not a password."""
    value = match.group(1).strip("\"'")
    return (value.isalpha() and value.islower()) or _keep_device_value(match)


DEVICES: list[Place] = [
    Place(
        "device-password",
        # (a line of a diff between two configurations starts with '+' or '-')
        r"(?im)^[+-]?[ \t]{0,8}(?:username[ \t]+\S{1,64}(?:[ \t]+privilege[ \t]+\d{1,2})?[ \t]+(?:password|secret)|"
        # Huawei's and H3C's local users: local-user NAME password irreversible-cipher|cipher|simple VALUE
        r"local-user[ \t]+\S{1,64}[ \t]+password[ \t]+(?:irreversible-cipher|cipher|simple)|"
        r"password[ \t]+(?:irreversible-cipher|cipher|simple)|"
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
            "local-user",
        ),
    ),
    # the "set" dialects (Junos, FortiOS, VyOS, EdgeOS, PAN-OS): set ... NAME VALUE, NAME ending in a secret's word
    # (plain-text-password-value, psksecret, pre-shared-secret, passwd, wpa2-pre-shared-key); FortiOS' "ENC" dropped
    Place(
        "device-password",
        r"(?im)^[+-]?[ \t]{0,16}set[ \t]+(?:[\w.:\"/-]{1,64}[ \t]+){0,12}?"
        r"(?!(?:ssh-)?public-key)[\w-]{0,40}(?:password|passwd|secret|psk|pre-shared-key|passphrase|"
        r"(?:private|pre-shared|wpa2?-pre-shared|auth)-key)(?:-value)?[ \t]+(?:ENC[ \t]+)?" + _VALUE + r"[ \t]*$",
        1,
        _keep_set_value,
        line_words=("set ",),
        gate=re.compile(r"(?i)(?:password|passwd|secret|psk|key)(?:-value)?[ \t]"),
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
    *SERVER_CONFIGS,
    *LOGINS,
]
