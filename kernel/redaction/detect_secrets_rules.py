"""detect-secrets' plugin rules, taken as data.

The regular expressions below are the ``denylist`` of Yelp's detect-secrets
1.5.0 regex plugins (https://github.com/Yelp/detect-secrets, Apache License
2.0, Copyright (c) 2018 Yelp, Inc.), copied verbatim so that redaction does
not import the package (``import detect_secrets`` takes over a second and pulls
in ``requests``; redaction runs in every process, logs included).
``tests/unit/test_secret_recognition.py`` compares this table with the installed
package (a dev dependency, pinned), so a version bump that changes a rule
fails there until the table is refreshed with ``python -m kernel.redaction.detect_secrets_rules``.

Left out, on purpose: ``PrivateKeyDetector`` (it matches only the BEGIN line;
``kernel.redaction.self_naming_tokens`` removes the whole block), ``IPPublicDetector``
(an address is not a secret), and the keyword and high-entropy plugins
(``kernel.redaction.context_rules`` does keyword, flag and entropy work in context).
Plain module.
"""

from __future__ import annotations

import re

# (plugin class, pattern, re flags): the flags are the plugin's own (re.IGNORECASE where it sets it).
DETECT_SECRETS_VERSION = "1.5.0"
DETECT_SECRETS_RULES: tuple[tuple[str, str, int], ...] = (
    ("ArtifactoryDetector", r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)', 0),
    ("ArtifactoryDetector", r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)', 0),
    ("AWSKeyDetector", r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}", 0),
    (
        "AWSKeyDetector",
        r"aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\'\"]([0-9a-zA-Z/+]{40})[\'\"]",
        re.IGNORECASE,
    ),
    ("AzureStorageKeyDetector", r"AccountKey=[a-zA-Z0-9+\/=]{88}", 0),
    (
        "BasicAuthDetector",
        r"://[^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+:([^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+)@",
        0,
    ),
    (
        "CloudantDetector",
        r'(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)'
        r'(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([0-9a-f]{64})(?:"|\'|)',
        re.IGNORECASE,
    ),
    (
        "CloudantDetector",
        r'(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)'
        r'(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-z]{24})(?:"|\'|)',
        re.IGNORECASE,
    ),
    (
        "CloudantDetector",
        r"(?:https?\:\/\/)[\w\-]+\:([0-9a-f]{64})\@[\w\-]+\.cloudant\.com",
        re.IGNORECASE,
    ),
    ("CloudantDetector", r"(?:https?\:\/\/)[\w\-]+\:([a-z]{24})\@[\w\-]+\.cloudant\.com", re.IGNORECASE),
    ("DiscordBotTokenDetector", r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}", 0),
    ("GitHubTokenDetector", r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}", 0),
    ("GitLabTokenDetector", r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    ("GitLabTokenDetector", r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    ("GitLabTokenDetector", r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    ("GitLabTokenDetector", r"glimt-[A-Za-z0-9_\-]{25}(?!\w)", 0),
    ("GitLabTokenDetector", r"glptt-[A-Za-z0-9_\-]{40}(?!\w)", 0),
    ("GitLabTokenDetector", r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)", 0),
    ("GitLabTokenDetector", r"gloas-[A-Za-z0-9_\-]{64}(?!\w)", 0),
    (
        "IbmCloudIamDetector",
        r'(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-|)iam|ibm(?:_|-|)cloud|'
        r'ibm(?:_|-|)iam|ibm|iam|cloud|)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:"|\'|)(?:\]|)'
        r'(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-]))(?:"|\'|)',
        re.IGNORECASE,
    ),
    (
        "IbmCosHmacDetector",
        r'(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)'
        r'(?:secret[-_]?(?:access)?[-_]?key)(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)'
        r'([a-f0-9]{48}(?![a-f0-9]))(?:"|\'|)',
        re.IGNORECASE,
    ),
    ("JwtTokenDetector", r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?", 0),
    ("MailchimpDetector", r"[0-9a-z]{32}-us[0-9]{1,2}", 0),
    ("NpmDetector", r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*", 0),
    ("OpenAIDetector", r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", 0),
    ("PypiTokenDetector", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}", 0),
    ("PypiTokenDetector", r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}", 0),
    ("SendGridDetector", r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}", 0),
    ("SlackDetector", r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+", re.IGNORECASE),
    (
        "SlackDetector",
        r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+",
        re.IGNORECASE | re.VERBOSE,
    ),
    (
        "SoftlayerDetector",
        r'(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)'
        r'(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-z0-9]{64})(?:"|\'|)',
        re.IGNORECASE,
    ),
    ("SoftlayerDetector", r"(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})", re.IGNORECASE),
    ("SquareOAuthDetector", r"sq0csp-[0-9A-Za-z\\\-_]{43}", 0),
    ("StripeDetector", r"(?:r|s)k_live_[0-9a-zA-Z]{24}", 0),
    ("TelegramBotTokenDetector", r"\d{8,10}:[0-9A-Za-z_-]{35}", 0),
    ("TwilioKeyDetector", r"AC[a-z0-9]{32}", 0),
    ("TwilioKeyDetector", r"SK[a-z0-9]{32}", 0),
)
LEFT_OUT = ("PrivateKeyDetector", "IPPublicDetector")

# The keyword-shaped rules of these plugins (``cloudant_password = ...``, ``iam_api_key: ...``) are not applied:
# ``kernel.redaction.keyed_values``' keyed values already take any value of a *password/*secret/*api_key name and a
# random value of a *key/*token name, and these patterns try every position of the text. Their URL rules are.
KEYWORD_RULES = frozenset({"CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector"})


def installed_rules() -> tuple[tuple[str, str, int], ...]:
    """The same table read from the installed detect-secrets (a dev dependency): the drift check's reference."""
    import importlib
    import inspect
    import pkgutil

    import detect_secrets.plugins as plugins
    from detect_secrets.plugins.base import RegexBasedDetector

    out: list[tuple[str, str, int]] = []
    for module_info in sorted(pkgutil.iter_modules(plugins.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"detect_secrets.plugins.{module_info.name}")
        for name, cls in sorted(inspect.getmembers(module, inspect.isclass)):
            if cls.__module__ != module.__name__ or not issubclass(cls, RegexBasedDetector) or name in LEFT_OUT:
                continue
            if not isinstance(cls.denylist, (list, tuple)):  # an abstract base
                continue
            for pattern in cls.denylist:
                out.append((name, pattern.pattern, pattern.flags & (re.IGNORECASE | re.VERBOSE)))
    return tuple(out)


if __name__ == "__main__":  # prints the table for a new detect-secrets version
    for rule in installed_rules():
        print(f"    {rule!r},")
