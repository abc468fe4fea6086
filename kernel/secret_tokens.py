"""Tokens that name themselves (issue 36): ``ghp_``, ``AKIA``, ``xoxb-``, ``sk-ant-``, PEM and PuTTY key
blocks, JWTs... Matched anywhere, whatever surrounds them; ``kernel.secret_formats`` adds the provider formats
written later. Plain data.
"""

from __future__ import annotations

TOKEN_FORMATS: list[tuple[str, str]] = [
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    # A PuTTY .ppk file: the private lines and the MAC, from the header to the MAC (or the end).
    ("putty-key", r"PuTTY-User-Key-File-\d+:.*?(?:Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]+|\Z)"),
    ("age-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,70}\b"),
    # a key pair on one line (the console's credentials CSV: "AKIA...,<40-char secret>")
    (
        "aws-key-pair",
        r"\b(?:AKIA|ASIA)[A-Z0-9]{16}(?:[ \t]*[,;:|\t][ \t]*|[ \t]+(?:/[ \t]+|and[ \t]+)?)[A-Za-z0-9/+=]{40}"
        r"(?![A-Za-z0-9/+=])",
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
}
