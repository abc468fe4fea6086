"""Secrets in a file shown whole (issue 36), one of the spanning rules ``kernel.redaction.multiline_blocks`` applies:

- **a file named for a secret, shown with its content**: a ``cat``/``type``/``Get-Content`` of it, or a comment
  that names it (``# /etc/ldap.secret``), then its lines: rsync's ``user:password`` secrets file, a bind password
  alone, a PSK's hex, OpenVPN's ``auth-user-pass`` file (the user on the first line, the password on the second);
  a file is named for a secret by its last segment (``rsyncd.secrets``, ``ldap.secret``, ``zabbix_agentd.psk``,
  ``.smbcred``, ``auth.txt``); source and markup files (``tokenizer.py``) are read by the other rules;
- **cloud-init's chpasswd list**: ``chpasswd:`` then ``list: |`` and its ``user:password`` lines.

Plain module.
"""

from __future__ import annotations

import re

from kernel.redaction.recogniser import MARKER_PREFIX
from kernel.redaction.values import value_is_code

_SHOWN = re.compile(
    r"^[ \t]{0,8}(?:(?:[$#%>]|PS[^>\n]{0,40}>)[ \t]{0,4})?(?:sudo[ \t]+)?(?:cat|type|more|less|head|tail|bat|"
    r"Get-Content|gc)[ \t]+(?:-\S{1,10}[ \t]+){0,2}(\S{1,256})[ \t]*$|"
    r"^[ \t]{0,8}(?:#|//|;|--)[ \t]{0,4}((?:/|~/|[A-Za-z]:\\)\S{1,256})[ \t]*$"
)
_SECRET_FILE = re.compile(
    r"(?i)secret|passw|\.pass$|psk|cred|token|api[_-]?key|^auth(?:[_-]?user[_-]?pass)?(?:\.txt|\.conf)?$|"
    r"^login\.(?:txt|conf)$|htpasswd|\.netrc$"
)
_SOURCE_FILE = re.compile(
    r"(?i)\.(?:py|js|mjs|ts|tsx|jsx|go|rs|java|kt|rb|php|md|rst|html?|css|c|h|cc|cpp|cs|json|ya?ml|toml|xml|sh|ps1|"
    r"log|lock|cfg|ini|j2|tpl|tf)$"
)
# user:password, after a host maybe (postfix's sasl_passwd: "[smtp.example.com]:587 user@example.com:PW"); a
# NAME=VALUE line is the keyed rules' to judge (DB_HOST=db01 in secrets.env is no secret)
_PAIR = re.compile(r"^([ \t]{0,16}(?:\S{1,128}[ \t]+)?[\w.@+-]{1,64}:)(\S{1,256})[ \t]*$")
_ALONE = re.compile(r"^[ \t]{0,16}([^\s\[\]{}()<>=]{6,256})[ \t]*$")
_CHPASSWD_LIST = re.compile(r"^([ \t]{0,40})list:[ \t]*[|>]?[-+]?[ \t]*$")
_CHPASSWD_ENTRY = re.compile(r"^([ \t]{1,60}-?[ \t]{0,4}[\"']?[\w.-]{1,32}:)([^\s\"']{1,256})([\"']?)[ \t]*$")


def _secret_value(value: str) -> bool:
    return MARKER_PREFIX not in value and not value_is_code(value) and not (value.isalpha() and value.islower())


def _shown_file(lines: list[str], at: int, marker: str) -> int:
    """Redact the content shown under line ``at`` (a file named for a secret); the index of the line after it."""
    end = at + 1
    while end < len(lines) and end - at <= 20 and lines[end].strip() and not _SHOWN.match(lines[end]):
        if lines[end].lstrip().startswith(("$ ", "# ", "PS ")):
            break
        end += 1
    body = lines[at + 1 : end]
    alone = [_ALONE.match(line) for line in body]
    for number, line in enumerate(body):
        pair = _PAIR.match(line)
        if pair and len(pair.group(2)) >= 6 and _secret_value(pair.group(2)):
            body[number] = pair.group(1) + marker
            continue
        found = alone[number]
        first_of_two = len(body) == 2 and number == 0 and all(alone)  # auth-user-pass: the user, then the password
        if found and not first_of_two and ":" not in found.group(1) and _secret_value(found.group(1)):
            body[number] = line.replace(found.group(1), marker)
    lines[at + 1 : end] = body
    return end


def redact_files(text: str, marker: str) -> str:
    """The content of files named for a secret that a text shows, and cloud-init's chpasswd list."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    at = 0
    while at < len(lines):
        shown = _SHOWN.match(lines[at])
        if shown:
            path = (shown.group(1) or shown.group(2)).strip("\"'")
            name = re.split(r"[/\\]", path)[-1]
            if _SECRET_FILE.search(name) and not _SOURCE_FILE.search(name):
                at = _shown_file(lines, at, marker)
                continue
        at += 1
    if "chpasswd" in text:
        _chpasswd_lists(lines, marker)
    return "\n".join(lines)


def _chpasswd_lists(lines: list[str], marker: str) -> None:
    for at, line in enumerate(lines):
        if "chpasswd" not in line:
            continue
        for number in range(at + 1, min(len(lines), at + 8)):
            opened = _CHPASSWD_LIST.match(lines[number])
            if not opened:
                continue
            for entry_at in range(number + 1, min(len(lines), number + 40)):
                entry = _CHPASSWD_ENTRY.match(lines[entry_at])
                if not entry or len(entry.group(1)) - len(entry.group(1).lstrip()) <= len(opened.group(1)):
                    break
                if _secret_value(entry.group(2)) and entry.group(2).upper() not in ("RANDOM", "R"):
                    lines[entry_at] = entry.group(1) + marker + entry.group(3)
            break
