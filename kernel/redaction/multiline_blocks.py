"""Secrets that span lines: ``.pgpass`` lines, Kubernetes Secret data, key bodies without a BEGIN line.

``redact_blocks`` runs after every line recogniser (``kernel.privacy``), so a
complete ``-----BEGIN ... PRIVATE KEY-----`` block is already a marker; what is
left is a body whose BEGIN line was not pasted (the base64 lines above an END
line, or a body that starts with a private key's DER or openssh-key-v1 header),
a body whose armour lines were stripped (base64 lines of PEM's width under a line that names a private
key), the values of a ``kind: Secret`` manifest's ``data:``/``stringData:`` (YAML or
JSON), the password of a ``host:port:db:user:password`` line, the literals of variables joined into a secret's
name (``continued_lines``), the content of a file named for a secret shown whole and cloud-init's chpasswd
list (``secret_files``), and the credential columns of tables (``tables``). Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.redaction.continued_lines import redact_joined_parts
from kernel.redaction.secret_files import redact_files
from kernel.redaction.tables import redact_tables
from kernel.redaction.values import value_is_code

PGPASS = re.compile(
    r"(?m)^[ \t]{0,16}(?:[A-Za-z0-9_.-]{1,253}|\*|\[[0-9a-fA-F:]{2,45}\]):(?:\d{1,5}|\*):[^\s:]{1,128}:"
    r"[^\s:]{1,128}:(\S{1,256})[ \t]*$"
)
_B64_LINE = re.compile(r"[A-Za-z0-9+/=]{16,100}")
_END_LINE = re.compile(r"-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----")
# The DER (and openssh-key-v1) headers of private keys, in base64: a body that starts this way is a key.
_KEY_MAGIC = re.compile(
    r"(?:b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{3}IBAAK|MII[A-Za-z0-9+/]{3}IBADANBg|MHcCAQEE|MIGHAgEAMBMG|"
    r"MC4CAQAwBQYDK2VwBCIEI)[A-Za-z0-9+/=]{0,100}(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/=]{16,100}){0,400}"
)
_MAGIC_WORDS = ("b3BlbnNzaC1rZXktdjE", "MII", "MHcCAQEE", "MIGHAgEAMBMG", "MC4CAQAw")
_K8S_SECRET = re.compile(r"(?m)^\s{0,8}[\"']?kind[\"']?\s*:\s*[\"']?Secret\b")
_DATA_BLOCK = re.compile(r"^(\s{0,16})(?:data|stringData):\s*$")
_DATA_ENTRY = re.compile(r"^(\s{1,32}[\w.-]{1,253}:[ \t]{1,8})(\S.{0,20000})$")
_JSON_DATA = re.compile(r"\"(?:data|stringData)\"\s*:\s*\{([^{}]{0,100000})\}")
_JSON_ENTRY = re.compile(r"(\"[\w.-]{1,253}\"\s*:\s*)\"([^\"]{1,20000})\"")


# A line above a body that says it is a private key; one that says certificate or public says it is not.
_KEY_HEADING = re.compile(r"(?i)private[ _-]?key|secret[ _-]?key|signing[ _-]?key|ssh[ _-]?key|\bkey\b")
_PEM_RUN = re.compile(r"(?m)^[ \t]*[A-Za-z0-9+/]{64}(?:[A-Za-z0-9+/]{12})?[ \t]*\r?\n[ \t]*[A-Za-z0-9+/]{64}")
_PUBLIC_HEADING = re.compile(r"(?i)certificate|public|\bcert\b|\.crt\b|\.pub\b|fingerprint")


def _headed_key_bodies(text: str, marker: str) -> str:
    """A key body with its BEGIN/END lines stripped and no DER header to know it by: three lines or more of
    base64 cut at one width (64, as PEM writes it, or 76), right under a line that names a private key."""
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        end = at
        while end < len(lines) and _B64_LINE.fullmatch(lines[end].strip()):
            end += 1
        widths = {len(line.strip()) for line in lines[at : end - 1]}
        heading = "\n".join(lines[max(0, at - 2) : at])
        if (
            end - at >= 3
            and len(widths) == 1
            and widths <= {64, 76}
            and _KEY_HEADING.search(heading)
            and not _PUBLIC_HEADING.search(heading)
        ):
            out.append(marker)
            at = end
            continue
        out.extend(lines[at : max(end, at + 1)])
        at = max(end, at + 1)
    return "\n".join(out)


def _private_key_bodies(text: str, marker: str) -> str:
    if "PRIVATE KEY" in text and "-----END" in text:
        lines = text.split("\n")
        kept: list[str] = []
        for line in lines:
            if _END_LINE.search(line):
                start = len(kept)
                while start > 0 and _B64_LINE.fullmatch(kept[start - 1].strip()):
                    start -= 1
                if start < len(kept):
                    kept[start:] = [marker]
            kept.append(line)
        text = "\n".join(kept)
    if any(word in text for word in _MAGIC_WORDS):
        text = _KEY_MAGIC.sub(marker, text)
    if "\n" in text and _PEM_RUN.search(text) and "key" in text.lower():
        text = _headed_key_bodies(text, marker)
    return text


def _k8s_secret_data(text: str, marker: str) -> str:
    out = []
    for number, document in enumerate(re.split(r"(?m)(^---[ \t]*$)", text)):
        if number % 2 or not _K8S_SECRET.search(document):  # odd parts are the separators
            out.append(document)
            continue
        document = _JSON_DATA.sub(
            lambda m: m.group(0).replace(
                m.group(1), _JSON_ENTRY.sub(lambda e: e.group(1) + '"' + marker + '"', m.group(1))
            ),
            document,
        )
        lines = document.split("\n")
        indent: int | None = None
        for number, line in enumerate(lines):
            opened = _DATA_BLOCK.match(line)
            if opened:
                indent = len(opened.group(1))
                continue
            if indent is None or not line.strip():
                continue
            if len(line) - len(line.lstrip()) <= indent:
                indent = None
                continue
            entry = _DATA_ENTRY.match(line)
            if entry and not value_is_code(entry.group(2)) and entry.group(2) not in ("|", ">", "|-", ">-"):
                lines[number] = entry.group(1) + marker
            elif not entry and not line.strip().startswith("#"):
                lines[number] = line[: len(line) - len(line.lstrip())] + marker  # a line of a | block
        out.append("\n".join(lines))
    return "".join(out)


def redact_blocks(text: str, placeholder: Callable[[str], str]) -> str:
    """``.pgpass`` passwords, Kubernetes Secret values and private key bodies without their BEGIN line."""
    if ":" in text:
        text = PGPASS.sub(
            lambda m: (
                m.group(0)
                if value_is_code(m.group(1))
                else m.group(0)[: m.start(1) - m.start()] + placeholder("pgpass") + m.group(0)[m.end(1) - m.start() :]
            ),
            text,
        )
    text = _private_key_bodies(text, placeholder("private-key"))
    if "Secret" in text:
        text = _k8s_secret_data(text, placeholder("k8s-secret"))
    text = redact_files(text, placeholder("secret-file"))
    text = redact_joined_parts(text, placeholder("split-secret"))
    return redact_tables(text, placeholder("table-secret"))
