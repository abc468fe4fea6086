"""Keys of web services that name themselves by their shape or their URL (issue 36).

- webhook URLs whose path is the secret: Zapier's catch hooks (``hooks.zapier.com/hooks/catch/<id>/<key>/``),
  Microsoft Teams' incoming webhooks (``*.webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<key>/...``),
  Make's (``hook.<zone>.make.com/<key>``), IFTTT's (``maker.ifttt.com/trigger/<event>/with/key/<key>``);
- deploy hooks: Render's (``api.render.com/deploy/srv-...?key=<key>``), Netlify's build hooks
  (``api.netlify.com/build_hooks/<id>``), Vercel's (``api.vercel.com/v1/integrations/deploy/prj_.../<key>``);
- provider formats: Klaviyo's private keys (``pk_`` and 34 hex; Stripe's public ``pk_live_``/``pk_test_`` differ),
  DeepL's free keys (a UUID and ``:fx``), Mollie's keys (``live_``/``test_`` and 30 letters and digits);
- a hex secret handed to a client's constructor after its id: ``Client('AC' + sid, '<32 hex>')``;
- a custom header (``x-...:``) whose whole value is hex of no digest's size (an MD5, SHA-1 or SHA-256 is a checksum)
  and whose name does not say id, trace, hash or signature.

Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.redaction.places import Place
from kernel.redaction.values import placeholder_token


def _keep_placeholder(group: int) -> Callable[[re.Match[str]], bool]:
    return lambda match: placeholder_token(match.group(group))


def _keep_mollie(match: re.Match[str]) -> bool:
    body = match.group(1)
    upper, lower, digits = (sum(test(c) for c in body) for test in (str.isupper, str.islower, str.isdigit))
    return upper < 2 or lower < 2 or digits < 2 or placeholder_token(body)


_HEX = "[0-9a-f]"
_UUID = rf"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

# A custom header's name that says its value is an id or a checksum, not a key.
_ID_HEADER = re.compile(r"(?i)id|trace|span|request|correlation|hash|etag|sum|digest|signature|version|nonce|ray")
_DIGEST_HEX_SIZES = frozenset((32, 40, 56, 64, 96, 128))  # MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512


def _keep_header_hex(match: re.Match[str]) -> bool:
    return _ID_HEADER.search(match.group(1)) is not None or len(match.group(2)) in _DIGEST_HEX_SIZES


WEB_SERVICES: list[Place] = [
    Place(
        "custom-header-key",
        r"(?im)^[ \t]{0,8}(x-[\w-]{1,40})[ \t]{0,4}:[ \t]{0,4}([0-9a-f]{24,128})[ \t]{0,4}$",
        2,
        _keep_header_hex,
        line_words=("x-",),
    ),
    Place(
        "webhook-url",
        r"(?i)\bhooks\.zapier\.com/hooks/catch/\d{1,12}/([a-z0-9]{5,16})\b",
        1,
        _keep_placeholder(1),
        text_words=("zapier.com",),
    ),
    Place(
        "webhook-url",
        rf"(?i)\.webhook\.office\.com/webhookb2/({_UUID}@{_UUID}/IncomingWebhook/[0-9a-f]{{32}}(?:/{_UUID})?)",
        1,
        _keep_placeholder(1),
        text_words=("webhook.office.com",),
    ),
    Place(
        "webhook-url",
        r"(?i)\bhook\.(?:[a-z]{2}\d\.)?(?:make|integromat)\.com/([a-z0-9]{20,64})\b",
        1,
        _keep_placeholder(1),
        text_words=("make.com", "integromat.com"),
    ),
    Place(
        "webhook-url",
        r"(?i)\bmaker\.ifttt\.com/trigger/[\w-]{1,64}/(?:json/)?with/key/([A-Za-z0-9_-]{12,64})",
        1,
        _keep_placeholder(1),
        text_words=("ifttt.com",),
    ),
    Place(
        "deploy-hook",
        r"(?i)\bapi\.render\.com/deploy/srv-[a-z0-9]{1,40}\?key=([A-Za-z0-9_-]{6,64})",
        1,
        _keep_placeholder(1),
        text_words=("render.com",),
    ),
    Place(
        "deploy-hook",
        r"(?i)\bapi\.netlify\.com/build_hooks/([0-9a-f]{20,40})\b",
        1,
        _keep_placeholder(1),
        text_words=("netlify.com",),
    ),
    Place(
        "deploy-hook",
        r"(?i)\bapi\.vercel\.com/v1/integrations/deploy/prj_[A-Za-z0-9]{10,40}/([A-Za-z0-9]{6,40})\b",
        1,
        _keep_placeholder(1),
        text_words=("vercel.com",),
    ),
    Place("klaviyo-private-key", r"\b(pk_[0-9a-f]{34})\b", 1, _keep_placeholder(1), text_words=("pk_",)),
    Place("deepl-key", rf"\b({_UUID}:fx)\b", 1, _keep_placeholder(1), text_words=(":fx",)),
    Place("mollie-key", r"\b(?:live|test)_([A-Za-z0-9]{30})\b", 0, _keep_mollie, text_words=("live_", "test_")),
    Place(
        "client-secret-argument",
        r"\b\w{0,40}(?:Client|Translator|Auth|Api|API|Sdk|SDK)\s{0,8}\((?:[^()\n]|\([^()\n]{0,40}\)){1,160}?,\s{0,8}"
        r"[\"']([0-9a-f]{32,128})[\"']",
        1,
        _keep_placeholder(1),
        line_words=("client(", "translator(", "auth(", "api(", "sdk("),
    ),
]
