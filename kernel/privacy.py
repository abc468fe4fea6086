"""Keep secrets and private text out of storage.

``redact(text)`` is applied by the memory service on every write path
(store, exchanges, books, updates, imports), so nothing that reaches
Chroma can carry a credential, and text between ``<private>`` and
``</private>`` is dropped before anything else sees it. Plain module.
"""

from __future__ import annotations

import functools
import re

PLACEHOLDER = "[REDACTED:{kind}]"

_PRIVATE_BLOCK = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)

# (kind, pattern). Order matters: specific formats before generic ones.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
    ),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    (
        "aws-secret",
        re.compile(r"(?i)(aws_secret_access_key|aws_secret|secret_access_key)(\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
    ),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b")),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}\b")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}\b")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+")),
    ("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("google-oauth", re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}\b")),
    ("digitalocean-token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi-token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}\b")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("shopify-token", re.compile(r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b")),
    ("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    ("twilio-key", re.compile(r"\bSK[0-9a-fA-F]{32}\b")),
    ("azure-conn", re.compile(r"(?i)(AccountKey|SharedAccessKey)=[A-Za-z0-9+/=]{20,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b")),
    ("url-password", re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,20}://[^\s:/@]{0,256}:)[^\s@/]{1,256}(@)")),
    ("bearer", re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{16,}")),
    ("basic-auth", re.compile(r"(?i)\b(authorization:\s*basic\s+)[A-Za-z0-9+/=]{8,}")),
    (
        "assignment",
        re.compile(
            r"(?i)(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{0,40}?(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|"
            r"auth[_-]?token|client[_-]?secret|private[_-]?key)[A-Za-z0-9_.-]{0,40}[\"']?)(\s{0,8}[:=]\s{0,8})"
            r"(?![A-Za-z0-9_.-]+[ \t]*(?::\s|=[^=\s]))([\"']?)([^\s\"',;()<>]{6,512})"
        ),
    ),
    (
        "xml-secret",
        re.compile(
            r"(?i)(<(?:password|passwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret)>)"
            r"([^<\s]{6,512})(</)"
        ),
    ),
]


def _replace(kind: str, match: re.Match[str]) -> str:
    marker = PLACEHOLDER.format(kind=kind)
    if kind == "url-password":
        return f"{match.group(1)}{marker}{match.group(2)}"
    if kind in ("bearer", "basic-auth", "azure-conn"):
        return f"{match.group(1)}{marker}" if kind != "azure-conn" else f"{match.group(1)}={marker}"
    if kind == "aws-secret":
        return f"{match.group(1)}{match.group(2)}{marker}"
    if kind == "assignment":
        return f"{match.group(1)}{match.group(2)}{match.group(3)}{marker}"
    if kind == "xml-secret":
        return f"{match.group(1)}{marker}{match.group(3)}"
    return marker


def strip_private(text: str) -> str:
    return _PRIVATE_BLOCK.sub("", text)


def redact(text: str) -> str:
    """Drop <private> blocks, then replace every recognised secret with a marker."""
    if not text:
        return text
    out = strip_private(text)
    for kind, pattern in _PATTERNS:
        out = pattern.sub(functools.partial(_replace, kind), out)
    return out


def contains_secret(text: str) -> bool:
    return redact(text) != strip_private(text) or _PRIVATE_BLOCK.search(text) is not None
