"""Secrets in HTTP headers and cookies (issue 36), beside ``kernel.redaction.places``.

- **vendor headers**: an ``X-...`` header whose value is a random token
  (``X-JFrog-Art-Api: ...``, ``X-Postmark-Server-Token: ...``), or whose name says
  credential (api, key, token, auth, secret, team, session) with a token-shaped value;
  also in the ``name=value`` lists of ``OTEL_EXPORTER_OTLP_HEADERS``;
- **cookies**: the pairs of a ``Cookie:``/``Set-Cookie:`` line (or ``--cookie``) named
  for a session or a credential, or whose value is a random token (a Django
  ``sessionid``, a Rails ``_session``, a ``remember_token``);
- **HTML-escaped JSON**: ``&quot;password&quot;:&quot;...&quot;``, as a page's
  embedded state or an escaped log shows it.

- **a session cookie anywhere** (``connect.sid=s%3A...``, ``PHPSESSID=...``, ``JSESSIONID``, ``ASP.NET_SessionId``,
  ``ASPSESSIONID...``, Drupal's ``SSESS<hex>`` in a log, a console's ``document.cookie`` or a note), named in code
  (``cookies={"sessionid": ...}``, ``setcookie("PHPSESSID", ...)``), as a browser's developer tools show it
  (``Name: _app_session`` then ``Value: ...``, or a row of their cookies table), and in a cookie jar's lines;
- **an API client's export** (Postman, Insomnia): the ``"value"`` inside an ``"auth"`` object, of a pair named for a
  secret (``{"key": "apiKey", "value": ...}``, ``{"name": "DB_PASSWORD", "value": ...}``) or typed ``"secret"``;
- **Basic credentials encoded by hand**: ``echo -n user:PW | base64``, ``btoa("user:PW")``,
  ``base64.b64encode(b":PAT")``.

Header and cookie values must look like tokens: request ids, trace ids and plain
settings (``X-Request-Id: <uuid>``, ``theme=dark``) stay. Plain data and keep checks.
"""

from __future__ import annotations

import re
import urllib.parse

from kernel.redaction.entropy import high_entropy, token_shaped
from kernel.redaction.places import NAME_CHARS, SECRET_NAME, Place, keep_named_value
from kernel.redaction.values import about_a_secret, keep_value, looks_random, value_is_code

_CREDENTIAL_NAME = re.compile(r"(?i)api|key|token|auth|secret|pass|sig|session|sess|sid|team|cred|license|jwt|remember")
_ABOUT = re.compile(r"(?i)(?:^|[-_])(?:id|ids|request|trace|span|correlation|version|type|length|expires?|ttl)$")
# A request's signature (X-Hub-Signature-256: sha256=<hex>, X-Slack-Signature: v0=<hex>, X-Shopify-Hmac-Sha256:
# <base64>): a digest of one payload, proof of the secret but not the secret itself.
_SIGNATURE_NAME = re.compile(r"(?i)signature|hmac|digest")
_SIGNATURE_VALUE = re.compile(
    r"(?:[a-z]{1,6}\d{0,3}=)?(?:[0-9a-f]{32,128}|[0-9A-F]{32,128}|[A-Za-z0-9+/]{27,86}={0,2})"
)


def a_request_signature(name: str, value: str) -> bool:
    """``value`` is a digest of one request's payload, under a header named for a signature."""
    return _SIGNATURE_NAME.search(name) is not None and _SIGNATURE_VALUE.fullmatch(value) is not None


def _keep_header(match: re.Match[str]) -> bool:
    """Keep ``X-Request-Id: <uuid>`` and ``X-Api-Version: 2024-01-01``; not ``X-JFrog-Art-Api: <token>``."""
    name, value = match.group(1), match.group(2)
    if value_is_code(value) or _ABOUT.search(name):
        return True
    if a_request_signature(name, value):
        return True
    if high_entropy(value):
        return False
    return not (_CREDENTIAL_NAME.search(name[2:]) and (token_shaped(value) or looks_random(value)))


def _keep_cookie(match: re.Match[str]) -> bool:
    """Keep ``theme=dark`` and ``_ga=GA1.2.1234.5678``; not ``sessionid=<random>``."""
    name, value = match.group(1), match.group(2)
    if value_is_code(value) or not looks_random(value) or re.fullmatch(r"[\d.]+|GA\d[\d.]+", value):
        return True
    return not (high_entropy(value) or token_shaped(value) or _CREDENTIAL_NAME.search(name))


def _keep_not_token(match: re.Match[str]) -> bool:
    return not token_shaped(match.group(1))


def _keep_session(match: re.Match[str]) -> bool:
    """Keep a session cookie's value that is not random: ``sid=none``, ``session=expired``; a signed Express
    cookie (``s%3A<id>.<signature>``) is read decoded."""
    value = urllib.parse.unquote(match.group(2)).removeprefix("s:")
    if match.group(1).lower().startswith("aspsessionid") and re.fullmatch(r"[A-Z]{20,32}", value):
        return False  # classic ASP's session id: capital letters only
    if value_is_code(value) or not looks_random(value):
        return True
    if re.fullmatch(r"[a-z0-9]{20,128}|[A-Z0-9]{20,128}", value) and sum(c.isdigit() for c in value) >= 4:
        return False  # PHP's and Java's session ids are one case
    return not (high_entropy(value) or token_shaped(value) or high_entropy(value.split(".")[0]))


# A session cookie's name: connect.sid, laravel_session, sessionid, PHPSESSID, JSESSIONID, ASP.NET_SessionId,
# ASPSESSIONIDQACTDBRS (classic ASP), SSESS<32 hex> (Drupal).
_SESSION_COOKIE = (
    r"(?:[\w.-]{0,30}[._-])?(?:sid|sessid|session(?:[_-]?id)?|sess)|[a-z]{1,12}sess(?:ion)?id|aspsessionid\w{1,12}|"
    r"s?sess[0-9a-f]{32}"
)
# A cookie's name that says it holds a session or a credential: _shop_session, connect.sid, remember_token, jwt.
_SESSION_NAME = r"[\w.-]{0,60}(?:sid|sess|session|token|auth|remember|jwt|login)[\w.-]{0,30}"
_SESSION_WORDS = ("sid", "sess", "token", "auth", "remember", "jwt", "login")
_TOKEN = r"([A-Za-z0-9._~+/=-]{16,512})(?![A-Za-z0-9._~+/=-])"
_QUOTE = r"&(?:quot|#34|#x22);"

HEADERS: list[Place] = [
    Place(
        "header-token",
        r"(?<![\w-])([xX]-[A-Za-z0-9-]{1,60})[\"']?[ \t]*[:=][ \t]*[\"']?" + _TOKEN,
        2,
        _keep_header,
        line_words=("x-",),
    ),
    Place(
        "cookie",
        r"(?i)(?:\bcookie[\"']?[ \t]*[:=][ \t]*[\"']?|--cookie[ \t]+[\"']?|-b[ \t]+[\"']|;[ \t]*)"
        r"([A-Za-z0-9_.-]{1,60})=([^;\s'\"]{16,512})",
        2,
        _keep_cookie,
        line_words=("cookie", "-b "),
    ),
    Place(
        "assignment",
        rf"(?i){_QUOTE}({NAME_CHARS}{{0,40}}{SECRET_NAME}{NAME_CHARS}{{0,40}}){_QUOTE}[ \t]*:[ \t]*{_QUOTE}"
        rf"((?:(?!{_QUOTE})[^\n]){{1,256}}){_QUOTE}",
        2,
        keep_named_value,
        text_words=("&quot;", "&#34;", "&#x22;"),
    ),
]


def _keep_encoded(match: re.Match[str]) -> bool:
    """Keep ``echo -n "$USER:$TOKEN" | base64``, ``btoa(user + ":" + pw)`` and ``echo 12:30 | base64``: no literal
    password."""
    value = match.group(2)
    return len(value) < 6 or value_is_code(value) or value[:1] in "${<%" or value.startswith("//")


def _keep_pair(match: re.Match[str]) -> bool:
    """A pair about a secret (``PASSWORD_MIN_LENGTH``) or whose value is a template (``{{API_KEY}}``); a key's or a
    token's value only when it looks like one (a random value may start with '-')."""
    name, value = match.group(1), match.group(2).strip('"')
    if about_a_secret(name) or _template(value):
        return True
    if re.search(r"(?i)pass|pwd|pw\b|secret|private", name):
        return False
    return not (token_shaped(value) or (len(value) >= 16 and looks_random(value)))


def _keep_typed_secret(match: re.Match[str]) -> bool:
    return _template(match.group(1))


def _template(value: str) -> bool:
    return not value or value[:1] in "{$<%" or value_is_code(value)


# "Authorization: <scheme> TOKEN" for the schemes that are not Bearer or Basic (kernel.redaction.command_lines has
# those), and Okta's "SSWS TOKEN"
AUTHORIZATION: list[Place] = [
    # an API client's export (Postman, Insomnia): the "value" inside an "auth" object ({"key":"value","value":"..."})
    Place(
        "auth-value",
        r"(?i)\"(?:auth|apikey|api_key|bearer|basic|oauth2|credentials?)\"[ \t]*:[ \t]*[\[{][^\n]{0,400}?"
        r"\"value\"[ \t]*:[ \t]*\"([^\"\n]{8,512})\"",
        1,
        _keep_not_token,
        line_words=('"value"',),
    ),
    # a session cookie outside a Cookie: header, as a log, a console or a note shows it: connect.sid=s%3A...,
    # PHPSESSID=..., sessionid=..., laravel_session=...
    Place(
        "session-cookie",
        rf"(?i)(?<![\w.-])({_SESSION_COOKIE})[ \t]*=[ \t]*([^;\s&'\"<>,]{{16,512}})",
        2,
        _keep_session,
        line_words=("sid=", "sess=", "sessid=", "session=", "sessionid=", "session_id=", "session-id=", "aspsessionid"),
        gate=re.compile(r"=[ \t]*[^;\s&'\"<>,]{16}"),
    ),
    # the same named in code: cookies={"sessionid": "..."}, setcookie("PHPSESSID", "..."), {"name": "JSESSIONID",
    # "value": "..."} (a browser driver's add_cookie)
    Place(
        "session-cookie",
        rf"(?i)[\"']({_SESSION_COOKIE})[\"'][ \t]*(?:[:,]|=>)[ \t]*(?:[\"']value[\"'][ \t]*[:=][ \t]*)?"
        r"[\"']([^;\s&'\"<>,]{16,512})[\"']",
        2,
        _keep_session,
        line_words=("sid", "sess"),
    ),
    # a cookie as a browser's developer tools show it: "Name: _app_session" then "Value: ..." on the next line, or
    # a row of the cookies table copied with its tabs (name, value, domain, ...)
    Place(
        "session-cookie",
        rf"(?i)\bname[ \t]*[:=\t][ \t]*({_SESSION_NAME})[ \t]*\r?\n[ \t]*value[ \t]*[:=\t][ \t]*([^\s;]{{16,4096}})",
        2,
        _keep_session,
        text_words=("value",),
        gate=re.compile(r"(?i)\bname[ \t]*[:=\t]"),
    ),
    Place(
        "session-cookie",
        rf"(?im)^({_SESSION_NAME})\t([^\s;]{{16,4096}})\t",
        2,
        _keep_session,
        line_words=_SESSION_WORDS,
        gate=re.compile(r"\t[^\s;]{16}"),
    ),
    # a cookie jar (curl -c, wget --save-cookies, a browser's export): domain, flag, path, secure, expiry, name, value
    Place(
        "session-cookie",
        r"(?m)^(?:#HttpOnly_)?[\w.-]{1,253}\t(?:TRUE|FALSE)\t[^\t\n]{1,200}\t(?:TRUE|FALSE)\t\d{1,12}\t"
        r"([^\t\n]{1,128})\t([^\t\n]{8,4096})$",
        2,
        lambda match: _keep_cookie(match) and _keep_session(match),
        text_words=("\ttrue\t", "\tfalse\t"),
    ),
    Place(
        "authorization",
        r"(?i)\bauthorization[\"']?(?:\s*[:=]\s*[\"']?|[ \t]+[\"'])"
        r"(?:(?:token|ssws|key|apikey|api-key|sharedkey|hmac)\s*=?\s*|"
        r"(?!bearer|basic)[A-Za-z][A-Za-z0-9_-]{1,30}[ \t]+(?:[a-z]{1,20}=)?)?"
        r"([A-Za-z0-9._~+/=:-]{16,512})",
        1,
        keep_value(1),
        text_words=("authorization",),
    ),
    Place("okta-token", r"\bSSWS\s+([A-Za-z0-9_-]{30,})", 1, None, text_words=("ssws",)),
    # Basic credentials encoded by hand: echo -n :PAT | base64 (Azure DevOps), printf '%s' 'user:pw' | base64
    Place(
        "basic-auth",
        r"\b(?:echo[ \t]+(?:-[neE]{1,3}[ \t]+)?|printf[ \t]+(?:[\"']%s[\"'][ \t]+)?)[\"']?([^\s\"':|]{0,128}):"
        r"([^\s\"'|]{1,256})[\"']?[ \t]*\|[ \t]*(?:base64|openssl[ \t]+(?:base64|enc[ \t]+-base64)|b64)",
        2,
        _keep_encoded,
        line_words=("base64", "b64"),
    ),
    # ... and in code: btoa("user:pw"), base64.b64encode(b":PAT"), Buffer.from(`user:pw`).toString("base64"),
    # Base64.strict_encode64("user:pw"), Convert.ToBase64String(Encoding.UTF8.GetBytes("user:pw"))
    Place(
        "basic-auth",
        r"\b(?:btoa|b64encode|urlsafe_b64encode|encode64|strict_encode64|encodeToString|ToBase64String|Buffer\.from|"
        r"base64_encode|EncodeToString|StdEncoding\.EncodeToString)[ \t]*\((?:[\w.]{1,40}\([ \t]*){0,2}"
        r"(?:b|\[\]byte\()?[\"'`]([^\s\"'`:$]{0,128}):([^\"'`\n$]{1,256})[\"'`]",
        2,
        _keep_encoded,
        line_words=("btoa", "encode", "base64", "buffer.from"),
    ),
    # an API client's environment (Postman, Insomnia) or any list of name/value pairs: {"key": "apiKey", "value":
    # "..."}, {"name": "DB_PASSWORD", "value": "..."}, {"ParameterKey": "DbPassword", "ParameterValue": "..."}
    Place(
        "named-pair",
        r"(?i)\"(?:key|name|parameterkey|variable)\"[ \t]*:[ \t]*\""
        rf"({NAME_CHARS}{{0,60}}(?:{SECRET_NAME}|pass|pw|key){NAME_CHARS}{{0,60}})\"[ \t]*,[ \t]*"
        r"\"(?:value|parametervalue|currentvalue|current_value|initial_value)\"[ \t]*:[ \t]*(\"[^\"\n]{1,512}\")",
        2,
        _keep_pair,
        line_words=('"value"', 'value"'),
    ),
    # ... where the pair says it is a secret: {"key": "k", "value": "...", "type": "secret"}
    Place(
        "named-pair",
        r"\"value\"[ \t]*:[ \t]*\"([^\"\n]{1,512})\"[ \t]*,[ \t]*\"type\"[ \t]*:[ \t]*\"secret\"",
        1,
        _keep_typed_secret,
        line_words=('"secret"',),
    ),
]
