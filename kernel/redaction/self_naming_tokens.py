"""Tokens that name themselves (issue 36): ``ghp_``, ``AKIA``, ``xoxb-``, ``sk-ant-``, PEM and PuTTY key
blocks (OpenVPN's static keys too), JWTs... Matched anywhere, whatever surrounds them; ``provider_formats``
adds the provider formats written later. A known prefix with its body cut short (one part of a token split in two)
or spaced out ("sk_live_ 0FRl f35U dgj3...", to slip past a scanner) is a token too (``TOKEN_PIECES``); so is a
key that a label beside it names (a FileVault or a device's recovery key, six groups of four; a service account's
``private_key_id``; an app password of sixteen letters after its name). Plain data.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place
from kernel.redaction.values import looks_random, value_is_code

TOKEN_FORMATS: list[tuple[str, str]] = [
    (
        "private-key",
        # (and OpenVPN's static key, a tls-auth or tls-crypt block: "-----BEGIN OpenVPN Static key V1-----")
        r"-----BEGIN (?:(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V\d)-----.*?"
        r"(?:-----END (?:(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V\d)-----|\Z)",
    ),
    # A PuTTY .ppk file: the private lines and the MAC, from the header to the MAC (or the end).
    ("putty-key", r"PuTTY-User-Key-File-\d+:.*?(?:Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]+|\Z)"),
    ("age-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,70}\b"),
    # a key pair side by side (the console's credentials CSV: "AKIA...,<40-char secret>"), quoted maybe, and a
    # list or a call's arguments may go on to the next line after the comma ('"AKIA...",\n    "<secret>"')
    (
        "aws-key-pair",
        r"\b(?:AKIA|ASIA)[A-Z0-9]{16}[\"']?(?:[ \t]*[,;:|\t][ \t]*(?:\r?\n[ \t]{0,40})?|[ \t]+(?:/[ \t]+|and[ \t]+)?)"
        r"[\"']?[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])",
    ),
    ("aws-access-key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    ("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|imt|soat|ffct|oas)-[A-Za-z0-9_-]{20,}"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox(?:e\.xox)?[a-z]-[A-Za-z0-9-]{10,}"),
    ("slack-webhook", r"\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    ("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("google-oauth", r"\bya29\.[0-9A-Za-z_-]{20,}|\bGOCSPX-[A-Za-z0-9_-]{20,}"),
    ("digitalocean-token", r"\bdo[por]_v1_[a-f0-9]{64}\b"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("shopify-token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b"),
    ("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}"),
    ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{60,}"),
    ("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    ("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}"),
    ("terraform-token", r"(?<=[A-Za-z0-9]{14}\.)atlasv1\.[A-Za-z0-9_=-]{50,}"),
    ("pulumi-token", r"\bpul-[a-f0-9]{40}\b"),
    ("telegram-bot-token", r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
    # a password hash in crypt(3) or a framework's format: crackable offline, so as secret as the password
    # (bcrypt, Apache's apr1, md5-crypt, sha256/512-crypt, yescrypt, argon2, Django's pbkdf2, LDAP's {SSHA})
    # (every alternative starts with a literal, so the engine skips to the '$', 'p', 's', 'b' and '{' of a text)
    (
        "password-hash",
        r"\$(?:2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}|(?:apr1|1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|"
        r"[56]\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}|"
        r"y\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{43}|"
        r"argon2(?:id|i|d)\$v=\d{1,3}\$m=\d{1,8},t=\d{1,4},p=\d{1,3}\$[A-Za-z0-9+/]{8,128}\$[A-Za-z0-9+/]{16,256})|"
        r"(?:pbkdf2_sha(?:1|256|512)|scrypt|bcrypt_sha256)\$[^\s$]{1,64}\$[^\s$]{1,64}\$?[A-Za-z0-9+/=]{16,256}|"
        r"\{(?:SSHA|SHA|SMD5|SSHA256|SSHA512|CRYPT)\}[A-Za-z0-9+/=$.]{20,256}",
    ),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
]

# Formats whose prefix is long and distinctive enough to be a token even inside a word ("buildnpm_...",
# a session id made of a key); the others ("sk-", "key-", "hf_", "SK") only count at a word's start.
ANYWHERE = frozenset(
    "aws-key-pair aws-access-key github-token gitlab-token anthropic-key slack-token google-api-key google-oauth "
    "digitalocean-token npm-token pypi-token shopify-token sendgrid-key atlassian-token linear-key doppler-token "
    "age-key jwt".split()
)


# The literal every match holds, for patterns whose start is no literal (they would try every position).
TEXT_WORDS: dict[str, tuple[str, ...]] = {
    "url-password": ("://",),
    "telegram-bot-token": (":aa",),
    "terraform-token": ("atlasv1",),
    "stripe-key": ("_live_", "_test_", "whsec_"),
    "password-hash": (
        "$2a$",
        "$2b$",
        "$2y$",
        "$2x$",
        "$2$",
        "$1$",
        "$apr1$",
        "$5$",
        "$6$",
        "$y$",
        "$argon2",
        "pbkdf2_",
        "scrypt$",
        "bcrypt_",
        "{ssha",
        "{sha",
        "{smd5",
        "{crypt",
    ),
}


# Prefixes distinctive enough that what follows them is a token even when it is too short for the whole format.
_PREFIXES = (
    r"gh[pousr]_|github_pat_|gl(?:pat|ptt|dt|rt)-|sk_(?:live|test)_|rk_(?:live|test)_|sk-(?:ant|proj)-|xox[abpre]-|xapp-|hf_|npm_|"
    r"pypi-|do[por]_v1_|shp(?:at|ss|ca|pa)_|AKIA|AIza|ya29\.|glsa_|lin_api_|hv[sbr]\.|ATATT3|whsec_"
)


# The prefixes in lower case: a text holding none of them is skipped with a substring test.
_PREFIX_WORDS = (
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "glptt-",
    "gldt-",
    "glrt-",
    "sk_live_",
    "rk_live_",
    "sk_test_",
    "rk_test_",
    "sk-ant-",
    "sk-proj-",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxr-",
    "xoxe-",
    "xapp-",
    "hf_",
    "npm_",
    "pypi-",
    "dop_v1_",
    "doo_v1_",
    "dor_v1_",
    "shpat_",
    "shpss_",
    "shpca_",
    "shppa_",
    "akia",
    "aiza",
    "ya29.",
    "glsa_",
    "lin_api_",
    "hvs.",
    "hvb.",
    "hvr.",
    "atatt3",
    "whsec_",
)


def _not_mixed_key(match: re.Match[str]) -> bool:
    """A recovery key holds letters and digits both (a serial of letters, or of digits, is a part number)."""
    value = match.group(1)
    return not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def _not_a_token(match: re.Match[str]) -> bool:
    """Keep a prefix followed by too little, by words or by a placeholder ("ghp_ tokens", "sk_live_xxxx")."""
    body = re.sub(r"[ \t]", "", match.group(2))
    return len(body) < 10 or value_is_code(body) or not looks_random(body)


TOKEN_PIECES: list[Place] = [
    Place(
        "token-piece",
        # the prefix, a body joined to it, then parts after single spaces (each with a digit, so words stay)
        rf"(?<![A-Za-z0-9_])((?:{_PREFIXES})"
        r"([A-Za-z0-9_-]{0,64}(?:[ \t](?=[A-Za-z_-]{0,63}\d)[A-Za-z0-9_-]{3,64}){0,12}))",
        1,
        _not_a_token,
        line_words=_PREFIX_WORDS,
    ),
    # a recovery key beside its label: FileVault's personal recovery key (six groups of four), a device's
    Place(
        "recovery-key",
        r"(?<![\w-])([A-Z0-9]{4}(?:-[A-Z0-9]{4}){5})(?![\w-])",
        1,
        _not_mixed_key,
        line_words=("recovery", "filevault", "escrow"),
    ),
    # a service account's key id (Google Cloud's JSON key file): it names the private key beside it
    Place(
        "private-key-id",
        r"[\"']private_key_id[\"'][ \t]*:[ \t]*[\"']([0-9a-f]{40})[\"']",
        1,
        None,
        text_words=("private_key_id",),
    ),
    # an app password beside its name (Google's sixteen letters, in fours maybe; Apple's xxxx-xxxx-xxxx-xxxx)
    Place(
        "app-password",
        r"(?i:app(?:lication)?[ \t-]?(?:specific[ \t-]?)?passw(?:or)?d)[^\n]{0,60}?[:=][ \t]{0,4}[\"'`]?"
        r"([a-z]{4}(?:[ -]?[a-z]{4}){3})(?![\w-])",
        1,
        lambda match: len(set(match.group(1).replace(" ", "").replace("-", ""))) < 6,
        line_words=("app password", "app-password", "app-specific", "application password", "app specific"),
    ),
]
