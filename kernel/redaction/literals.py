"""A literal secret that code reaches through something else (issue 36), beside ``kernel.redaction.source_code``.

- **a credential object's constructor**: the password or secret key is its second argument
  (``new NetworkCredential(user, PW, domain)``, ``new BasicAWSCredentials(ID, KEY)``,
  ``new UsernamePasswordCredentials(user, PW)``, ``new PasswordAuthentication(user, "PW".toCharArray())``),
  the arguments on one line or several;
- **the fallback of an environment lookup**: ``os.getenv("API_TOKEN", "...")``, ``ENV.fetch("DB_PW", "...")``,
  ``process.env.SECRET || "..."``, ``System.getenv("X") ?: "..."``, a shell's ``${DB_PW:-...}`` (the literal is the
  secret when the variable is unset);
- **a literal given to a decoding or wrapping call** on a name that says secret: ``app.secret_key =
  bytes.fromhex("...")``, ``KEY = base64.b64decode("...")``, ``password: SecretStr("...")``,
  ``password: String::from("...")``.

A value that is code or a placeholder (``""``, ``"changeme"``, ``"<your key>"``) is kept; a name about a secret
(``PASSWORD_MIN_LENGTH``) too. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import unquote
from kernel.redaction.places import NAME_CHARS, SECRET_NAME, Place, keep_named_value
from kernel.redaction.values import value_is_code

_QUOTED = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')"
# One argument before the secret: a literal, a name, a call's dotted name, or a marker left by an earlier rule.
_FIRST_ARG = r"(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'|[\w$.\[\]>:-]{1,128}(?:\(\))?)"
# Space that may break the line inside a call's parentheses.
_GAP = r"[ \t]*(?:\r?\n[ \t]{0,40})?"

# Classes whose constructor takes (user or key id, secret): .NET, Java (Apache HttpClient, java.net, Spring), AWS SDKs.
_CREDENTIAL_CLASSES = (
    r"NetworkCredential|UsernamePasswordCredentials?|PasswordAuthentication|UsernamePasswordAuthenticationToken|"
    r"BasicAWSCredentials|AwsBasicCredentials\.create|BasicSessionCredentials|AwsSessionCredentials\.create|"
    r"SimpleCredentials|PasswordCredential|BasicCredentials|PlainCredentials|UserCredentials|"
    r"BasicUserPrincipal|HttpAuthenticationCredentials|StaticCredentials"
)
_CLASS_WORDS = ("credential", "passwordauthentication", "authenticationtoken", "principal")


def _keep_second(match: re.Match[str]) -> bool:
    return value_is_code(match.group(1)[1:-1])


# Where a program reads a variable, with its name in group 1 (a secret's name).
_SECRET_VARIABLE = rf"({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}){NAME_CHARS}{{0,60}})"
# A variable an environment lookup reads: a secret's name, or one whose last word is a password's short name (DB_PW,
# SMTP_PASS), which a lookup's fallback gives away too.
_ENV_VARIABLE = rf"({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}|pass|pw){NAME_CHARS}{{0,60}})"
_SHORT_PASSWORD_NAME = re.compile(r"(?i)(?:^|[_.-])(?:pw|pass)\Z")


def _keep_env_fallback(match: re.Match[str]) -> bool:
    if _SHORT_PASSWORD_NAME.search(match.group(1)):
        value = unquote(match.group(2))
        return not value or value_is_code(value)
    return keep_named_value(match)


# A name a decoded secret is kept under: a secret's, or a key's, a salt's (SIGNING_KEY, hmac_salt).
_WRAPPED_NAME = rf"({NAME_CHARS}{{0,60}}(?i:{SECRET_NAME}|pass|key|salt|pepper){NAME_CHARS}{{0,60}})"
_LOOKUP_CALL = r"(?:getenv|Getenv|environ\.get|env\.get|ENV\.fetch|env|GetEnvironmentVariable|Deno\.env\.get)"

# An encoding's name or a mode given to the call (raw.decode("utf-8"), s.getBytes("UTF-8")): no literal secret.
_ENCODING = re.compile(
    r"(?i)utf-?(?:8|16|32)(?:-sig)?|ascii|us-ascii|latin-?1|iso-?8859-?\d{1,2}|cp\d{3,4}|"
    r"base64|hex|binary|rot13|strict|ignore|replace|surrogateescape|backslashreplace"
)


def _keep_wrapped(match: re.Match[str]) -> bool:
    return _ENCODING.fullmatch(match.group(2)[1:-1]) is not None or keep_named_value(match)


LITERALS: list[Place] = [
    Place(
        "credential-object",
        rf"\b(?:{_CREDENTIAL_CLASSES})[ \t]*\({_GAP}{_FIRST_ARG}[ \t]*,{_GAP}{_QUOTED}",
        1,
        _keep_second,
        text_words=_CLASS_WORDS,
    ),
    # os.getenv("API_TOKEN", "..."), ENV.fetch("DB_PASSWORD") { "..." }, getenv("X") or "...", getenv("X") ?: "..."
    Place(
        "env-fallback",
        rf"\b{_LOOKUP_CALL}[ \t]*[(\[][ \t]*[\"']{_ENV_VARIABLE}[\"'][ \t]*(?:[)\]][ \t]*(?:\|\||\?\?|\?:|\bor\b|"
        rf"\{{)|,)[ \t]*{_QUOTED}",
        2,
        _keep_env_fallback,
        line_words=("env", "environ"),
    ),
    # process.env.API_SECRET || "...", import.meta.env.VITE_TOKEN ?? "...", ENV.DB_PASSWORD || '...'
    Place(
        "env-fallback",
        rf"\b(?:env|ENV)\.{_ENV_VARIABLE}[ \t]*(?:\|\||\?\?|\?:)[ \t]*{_QUOTED}",
        2,
        _keep_env_fallback,
        line_words=("env.",),
    ),
    # a shell's or compose file's default for an unset variable: ${DB_PW:-...}, ${API_TOKEN:=...}, ${SECRET-...}
    Place(
        "env-fallback",
        rf"\$\{{(\w{{0,60}}(?i:{SECRET_NAME}|pass|pw)\w{{0,60}}):?[-=]((?:\"[^\"\n]{{1,256}}\"|'[^'\n]{{1,256}}'|[^}}\s\"'$]{{1,256}}))\}}",
        2,
        _keep_env_fallback,
        line_words=("${",),
    ),
    # app.secret_key = bytes.fromhex("..."), SIGNING_KEY = base64.b64decode('...'), password: SecretStr("...")
    Place(
        "wrapped-secret",
        # (two look-behinds: a one-class one would be moved into the keep check, and every position tried)
        rf"(?<!\w)(?<![.:/-]){_WRAPPED_NAME}[\"']?[ \t]*(?::=|=|:)[ \t]*(?:new[ \t]+)?"
        # (a call around it: new String(...), Encoding.UTF8.GetString(...))
        r"(?:[\w.]{1,60}\([ \t]*){0,2}(?:[\w.]{0,40}(?:\(\))?(?:\.|::)){0,3}"
        r"(?:fromhex|unhexlify|a2b_hex|b64decode|urlsafe_b64decode|standard_b64decode|a2b_base64|decodebytes|"
        r"DecodeString|atob|FromBase64String|decode64|strict_decode64|urlsafe_decode64|base64_decode|hex2bin|"
        r"SecretStr|SecretBytes|Secret|from|encode|decode|getBytes)[ \t]*\([ \t]*b?" + _QUOTED,
        2,
        _keep_wrapped,
        line_words=(
            "fromhex",
            "unhexlify",
            "a2b_",
            "b64decode",
            "decodebytes",
            "decodestring",
            "atob",
            "secretstr",
            "secretbytes",
            "secret(",
            "from(",
            "encode(",
            "decode(",
            "getbytes",
            "frombase64string",
            "decode64",
            "hex2bin",
        ),
    ),
]
