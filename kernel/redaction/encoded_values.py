"""A secret written as raw bytes or cut into pieces (issue 36), beside ``kernel.redaction.random_tokens``.

- **hex-encoded credentials**: a run of hex digits that decodes to text naming a secret and its value
  (``7365637265743a...`` is ``secret:...``, ``70617373776f72643d...`` is ``password=...``, as a dump or a
  protocol trace shows a payload), or as escapes one byte at a time (``\\x70\\x61\\x73\\x73...``);
- **a private key in hex, named**: 64 hex digits (``0x`` or not) on a line that says private key (a wallet's key,
  an Ethereum or Solana test account's); a hash, an address or a fingerprint said so stays;
- **a JSON Web Token in pieces**: the payload written alone (``eyJ...`` that decodes to claims), in a text that
  also holds a token's header alone ("token part 1: eyJhbGci..." then "part 2: ...").

Plain data and keep checks.
"""

from __future__ import annotations

import base64
import binascii
import re

from kernel.redaction.places import Place

# The hex of a secret's word, either case: secret, passw, token, apikey, api_key, pwd=, pass=, pass:
_HEX_GATE = re.compile(
    r"(?i)736563726574|7061737377|746f6b656e|6170696b6579|6170695f6b6579|7077643[ad]|706173733[ad]|"
    r"534543524554|5041535357|544f4b454e"
)
# ... written as escapes: \x73\x65\x63 (sec), \x70\x61\x73 (pas), \x70\x77\x64 (pwd), \x74\x6f\x6b (tok)
_ESCAPED_GATE = re.compile(r"(?i)\\x(?:73\\x65\\x63|70\\x61\\x73|70\\x77\\x64|74\\x6f\\x6b|61\\x70\\x69)")
_NAMED_SECRET = re.compile(rb"(?i)(?:secret|passw(?:or)?d|pass|pwd|token|api_?key)\s{0,2}[:=]")


def _keep_hex(match: re.Match[str]) -> bool:
    """Keep a hex run that does not decode to a secret's name followed by ':' or '='."""
    try:
        raw = binascii.unhexlify(match.group(1).replace("\\x", ""))
    except (binascii.Error, ValueError):
        return True
    return _NAMED_SECRET.search(raw) is None


# What a line says the 64 hex digits are, besides a private key: no secret.
_NOT_THE_KEY = re.compile(r"(?i)fingerprint|hash|sha-?256|digest|address|public|checksum|tx\b|transaction|block")


def _keep_named_hex_key(match: re.Match[str]) -> bool:
    value = match.group(2)
    if _NOT_THE_KEY.search(match.group(1)):
        return True
    return not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value.removeprefix("0x")))


def _keep_jwt_piece(match: re.Match[str]) -> bool:
    """Keep a header alone ({"alg": ...}) and what does not decode to a JSON object."""
    segment = match.group(1)
    try:
        decoded = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError):
        return True
    return not decoded.startswith(b"{") or b'"alg"' in decoded


ENCODED: list[Place] = [
    Place(
        "hex-encoded-secret",
        # (the look-behind inside the group stays in the regex, where it fails fast inside a long run of hex)
        r"((?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){10,512}+)(?![0-9A-Za-z])",
        1,
        _keep_hex,
        gate=_HEX_GATE,
    ),
    # the same bytes escaped one by one, as a repr() or a C string shows them: \x70\x61\x73\x73...
    Place(
        "hex-encoded-secret",
        r"((?<![\\\w])(?:\\x[0-9a-fA-F]{2}){10,512}+)",
        1,
        _keep_hex,
        gate=_ESCAPED_GATE,
    ),
    Place(
        "named-private-key",
        r"(?i)\b(?:private|priv|secret)[ _-]?key\b([^\n]{0,80}?)"
        r"(?<![0-9A-Za-z])((?:0x)?[0-9a-fA-F]{64})(?![0-9A-Za-z])",
        2,
        _keep_named_hex_key,
        line_words=("private", "priv", "secret key", "secret_key", "secret-key", "secretkey"),
    ),
    Place(
        "jwt-piece",
        r"((?<![\w.-])eyJ[A-Za-z0-9_-]{16,4096}+)(?![\w.-])",
        1,
        _keep_jwt_piece,
        text_words=("eyj",),
        gate=re.compile(r"(?<![\w.-])eyJ(?:hbGci|0eXAi|raWQi|lbmMi)[A-Za-z0-9_-]{8,}(?![\w.-])"),
    ),
]
