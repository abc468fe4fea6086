"""Credentials in developer tools' own files (issue 36), beside ``kernel.redaction.places``.

- **Apple property lists**: a ``<key>`` named for a secret and the ``<string>`` below it (``Info.plist``'s
  ``<key>RevenueCatAPIKey</key>`` then ``<string>...</string>``), on one line or two;
- **host-to-token maps**: composer's ``auth.json`` (``"github-oauth": {"github.com": "..."}``, ``gitlab-token``,
  ``gitlab-oauth``, ``bitbucket-oauth``, ``bearer``), where a host names the token it maps to;
- **NATS credentials**: an nkey seed (``S`` then the key's type, ``U``ser, ``A``ccount, ``O``perator, ``N`` server,
  ``C``luster, ``X`` curve, then base32), and the body of any armoured block that says it is a seed or a secret
  (``-----BEGIN USER NKEY SEED-----``): its first line.

A value that is code or a template is kept; a host's value must look like a token. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import token_shaped
from kernel.redaction.places import SECRET_NAME, Place, keep_named_value
from kernel.redaction.values import looks_random, value_is_code


def _keep_host_value(match: re.Match[str]) -> bool:
    value = match.group(2)
    return value_is_code(value) or not (token_shaped(value) or (len(value) >= 20 and looks_random(value)))


def _keep_seed(match: re.Match[str]) -> bool:
    """A seed mixes letters and digits; a constant in capitals (``SUCCESS_...``) does not."""
    value: str = match.group(1)
    return sum(c.isdigit() for c in value) < 3 or sum(c.isalpha() for c in value) < 20


# composer's auth.json sections that map a host to its token
_HOST_TOKEN_SECTIONS = ("github-oauth", "gitlab-token", "gitlab-oauth", "bitbucket-oauth", '"bearer"')

TOOL_FILES: list[Place] = [
    # <key>RevenueCatAPIKey</key> <string>...</string>, the string on the same line or the next
    Place(
        "plist-secret",
        rf"<key>([^<\n]{{0,80}}(?i:{SECRET_NAME}|key)[^<\n]{{0,40}})</key>[ \t]*(?:\r?\n[ \t]{{0,40}})?"
        r"<string>([^<\n]{1,512})</string>",
        2,
        keep_named_value,
        text_words=("<key>",),
    ),
    # "github-oauth": {"github.com": "..."}: a host's token in composer's auth.json
    Place(
        "host-token",
        r"\"([A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,6})\"[ \t]*:[ \t]*\"([^\"\n]{8,512})\"",
        2,
        _keep_host_value,
        text_words=_HOST_TOKEN_SECTIONS,
    ),
    # an nkey seed: SU..., SA..., SO... (58 characters of base32)
    Place(
        "nkey-seed",
        r"((?<![A-Za-z0-9])S[UAONCXP][A-Z0-9]{54,56}+)(?![A-Za-z0-9])",
        1,
        _keep_seed,
        gate=re.compile(r"S[UAONCXP][A-Z0-9]{54}"),
    ),
    # the body of an armoured block that says it holds a seed or a secret: -----BEGIN USER NKEY SEED-----
    Place(
        "armoured-secret",
        r"-{3,6}BEGIN[ \t][A-Z0-9 ]{0,40}(?:SEED|SECRET)[A-Z ]{0,20}-{3,6}[ \t]*\r?\n([A-Za-z0-9+/=_-]{16,512})",
        1,
        None,
        text_words=(" seed-", " secret-", "seed---", "secret---"),
    ),
]
