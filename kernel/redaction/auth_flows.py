"""Secrets of authentication flows (issue 36): what a login, a key's prompt or an identity provider hands over.

- **a one-time link's token**: a password reset, an e-mail confirmation, an invitation, a magic sign-in link
  (``/reset/<token>/``, ``/confirm/<token>``, ``/join/shared_invite/<token>``, ``/verify/<token>``,
  ``?otk=<token>``, ``?login_token=<token>``, Firebase's ``oobCode``, WordPress's ``?action=rp&key=``);
  a path of words (``/verify/email-change``) stays;
- **a secret named in any language, then its value**: a session cookie, a CSRF token, a webhook's secret, a
  signing key, a private key's body, a client secret, a refresh or id token (``el token CSRF ... es <hex>``,
  ``sekret webhooka: <hex>``, ``id token 签名密钥：<key>``, ``keys -> <key>``), when the value is random;
- **a key's passphrase**: an ``ssh-add`` or ``openssl`` prompt with what was typed after it, a passphrase told in a
  sentence or given to a ``*_PASSPHRASE`` variable (``Enter passphrase for key '...': X``, ``la frase de paso de mi
  clave GPG es X Y Z``, ``パスフレーズは X``, ``GPG_PASSPHRASE: words-of-it``);
- **a password typed at a tool**: ``(I typed X)`` on a line about a password, ``su - with X``, a code-signing
  tool's password flag (``signtool sign /p X``, ``pvk2pfx /pi X``, ``certutil -p X``);
- **OAuth's own values**: a device flow's user code after "enter" (``enter HQ7K-9PLD``), a PKCE verifier, a token
  given to an abbreviated name (``MS_GRAPH_RT=...``, ``rt: ...``), a SAML response or artifact.

Ordinary text near them stays: a word after the noun ("the CSRF token is missing"), a hash labelled as one, a
passphrase rule ("passphrase: at least 12 characters"). Plain module; every quantifier is bounded.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from kernel.redaction.entropy import high_entropy, token_shaped
from kernel.redaction.recogniser import Recogniser
from kernel.redaction.values import looks_random, value_is_code

_Keep = Callable[[re.Match[str]], bool]


def _random(value: str) -> bool:
    return token_shaped(value) or high_entropy(value) or (len(value) >= 16 and looks_random(value))


def _keep_not_random(match: re.Match[str]) -> bool:
    return not _random(match.group(1))


# A letter of an alphabet that spaces its words (Latin, Greek, Cyrillic), a digit, '_' or '-': a noun ends before
# none of them; Chinese and Japanese join a noun to the next word ("パスフレーズは", "签名密钥：").
_WORD_CHAR = r"[A-Za-z0-9_\-\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"


# ---- one-time links -------------------------------------------------------------------------------------------
_LINK_PATH = (
    r"(?i)/(?:reset|reset[_-]?password|password[_-]?reset|passwordreset|confirm|confirmation|verify|verification|"
    r"activate|activation|invite|invitation|shared_invite|join|magic|magic[_-]?link|accept|unlock|set[_-]?password|"
    r"passwordless|signin|sign[_-]in|login|email[_-]?login|onboard|claim)/(?:[A-Za-z0-9_-]{1,40}/){0,2}?"
    r"([A-Za-z0-9_-]{16,256})(?=[/?#\s'\")\]>,;.]|$)"
)
_LINK_QUERY = (
    r"(?i)[?&](?:otk|ott|otc|tk|login[_-]?token|magic(?:[_-]?link)?(?:[_-]?token)?|reset[_-]?token|"
    r"confirm(?:ation)?[_-]?token|invit(?:e|ation)[_-]?token|verif(?:y|ication)[_-]?token|email[_-]?token|"
    r"signin[_-]?token|auth[_-]?token|one[_-]?time[_-]?token|token|token[_-]?hash|oob[_-]?code|key|ticket)=([A-Za-z0-9._~%-]{16,512})(?=[&#\s'\")\]>,;]|$)"
)
_LINK_WORDS = (
    "/reset",
    "reset",
    "/confirm",
    "/verif",
    "/activat",
    "/invit",
    "invite/",
    "/join/",
    "/magic",
    "/accept/",
    "/unlock/",
    "password/",
    "/signin/",
    "/sign-in/",
    "/sign_in/",
    "login/",
    "/onboard/",
    "/claim/",
    "otk=",
    "ott=",
    "otc=",
    "tk=",
    "token=",
    "ticket=",
    "oobcode=",
    "key=",
)


def _keep_link_token(match: re.Match[str]) -> bool:
    value = match.group(1)
    digits = sum(c.isdigit() for c in value)
    return digits < 2 or not _random(value.rsplit("-", 1)[-1] if len(value.rsplit("-", 1)[-1]) >= 16 else value)


# ---- a secret named in any language, then its value ------------------------------------------------------------
_NOUNS = (
    r"session[ \t]?cookie|cookie[ \t]de[ \t]sesi[oó]n|cookie[ \t]de[ \t]session|sitzungs-?cookie|session-?cookie|"
    r"csrf|xsrf|webhook|webhooka|webhooks|sekret|secret|secreto|geheimnis|segreto|"
    r"cl[ée][ \t]priv[ée]e|clave[ \t]privada|privater[ \t]schl[üu]ssel|chiave[ \t]privata|klucz[ \t]prywatny|"
    r"private[ \t]key|signing[ \t]key|signing[ \t]secret|client[ \t]secret|refresh[ \t]token|id[ \t]token|"
    r"签名密钥|密钥|私钥|秘钥|秘密鍵|署名鍵|приватный[ \t]ключ|секрет|"
    r"gateway[ \t]key|tyk|kong|apigee|api[ \t]keys?|keys"
)
_SEPARATOR = (
    r"(?:[ \t]*(?:[:：=]|->|→|=>)[ \t]*|[ \t]+(?:is|es|est|ist|è|é|jest|to|это|是|は)[ \t]+|[ \t]*(?:是|は)[ \t]*)"
)
# a secret split over messages: "first half X", "part 1: X"
_PART = (
    r"(?:(?:the[ \t]+)?(?:first|second|last|other)[ \t]+(?:half|part|bit)[ \t]*[:=]?[ \t]*"
    r"|part[ \t]?\d[ \t]?[:=]?[ \t]*)?"
)
_TOLD = (
    rf"(?i)(?<!{_WORD_CHAR})(?:{_NOUNS})(?!{_WORD_CHAR})[^\n]{{0,80}}?{_SEPARATOR}{_PART}[`'\"]?"
    r"([A-Za-z0-9+/_\-][A-Za-z0-9+/_.\-]{14,510}[A-Za-z0-9+/_\-]={0,2})(?![A-Za-z0-9+/_\-=]|\.[A-Za-z0-9])"
)
_TOLD_WORDS = (
    "cookie",
    "csrf",
    "xsrf",
    "webhook",
    "sekret",
    "secret",
    "geheimnis",
    "segreto",
    "priv",
    "signing",
    "token",
    "密钥",
    "私钥",
    "秘钥",
    "秘密鍵",
    "署名鍵",
    "ключ",
    "секрет",
    "tyk",
    "kong",
    "apigee",
    "keys",
    "gateway",
)
# Before the value, words that make it a public value of the same thing: a hash, a fingerprint, an id.
_ABOUT_PUBLIC = re.compile(
    r"(?i)\b(?:id(?![ \t]token)|ids|hash|sha\d*|md5|digest|fingerprint|checksum|signature|public|pub|commit|"
    r"kid|key[ \t]?id|name|delivery|guid|uuid|version)\b[^\n]{0,80}\Z"
)


def _encodes_text(value: str) -> bool:
    """Base64 of text (a webhook's JSON body, a message): the payload, not a key."""
    standard = value.replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(raw) >= 8 and sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in raw) * 10 >= len(raw) * 9


def _keep_told(match: re.Match[str]) -> bool:
    value = match.group(1)
    if value_is_code(value) or not _random(value) or _encodes_text(value):
        return True
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    before = match.string[max(line_start, match.start() - 40) : match.start(1)]
    return _ABOUT_PUBLIC.search(before) is not None


# ---- a key's passphrase --------------------------------------------------------------------------------------
_PASSPHRASE_NOUNS = (
    r"passphrase|pass[ \t]phrase|frase[ \t]de[ \t](?:paso|contrase[ñn]a)|frase[ \t]secreta|phrase[ \t]secr[èe]te|"
    r"phrase[ \t]de[ \t]passe|passphrase|parolfraza|парольн\w{0,4}[ \t]фраз\w{0,2}|パスフレーズ|密码短语|口令短语"
)
_PASSPHRASE_VALUE = r"([^\s'\"`<>{}$]{4,128}(?:[ \t][^\W\d_\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]{2,24}){0,5})"
_PASSPHRASE = (
    rf"(?i)(?<!{_WORD_CHAR})(?:[A-Z0-9]{{1,30}}_)?(?:{_PASSPHRASE_NOUNS})(?!{_WORD_CHAR})[^\n:：=]{{0,60}}?"
    rf"(?:[ \t]*[:：=][ \t]*[\"']?|[ \t]+(?:is|es|est|ist|è|é|jest|это)[ \t]+|[ \t]*は[ \t]*){_PASSPHRASE_VALUE}"
    r"(?=[ \t]*(?:です|だ|。|[\"',.;!?)]|$))"
)
_PASSPHRASE_WORDS = ("passphrase", "pass phrase", "frase", "phrase", "parol", "фраз", "パスフレーズ", "短语")
_NOT_A_PASSPHRASE = frozenset(
    "none empty blank null unset not no required missing wrong incorrect invalid too at least the a an in on stored "
    "saved kept set same different unknown optional needed used your my our for of from with without see ask "
    "case sensitive long short strong weak secure "
    "changeme mandatory correct protected prompted asked entered typed ignored accepted rejected expired "
    "ninguna vacía vacia requerida incorrecta la el en aucune vide requise incorrecte le dans keine leer falsch "
    "erforderlich die der im".split()
)


_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
_CODE_SIGN = re.compile(r"[${}()<>%\[\]|]|\*\*\*|\.\.\.|…")


def _keep_passphrase(match: re.Match[str]) -> bool:
    value = match.group(1).rstrip(".,;:!?")
    words = value.split()
    if _CODE_SIGN.search(value) or words[0].lower() in _NOT_A_PASSPHRASE:
        return True
    if _CJK.search(value) or re.match(r"\d{1,3}(?![\w-])|\d{1,3}[ \t]?[^\x00-\x7f]", value):
        return True  # "12文字以上で設定", "12 characters": a rule about the passphrase, in words of its script
    if "(" in value or "/" in words[0] or "." in words[0][1:-1]:
        return True  # "at least 12 characters", a path, a file: about the passphrase
    if len(words) > 1 and re.search(r"(?i)[ \t]is[ \t]+\Z", match.string[match.start() : match.start(1)]):
        return True  # English says a passphrase "is case sensitive": several words after "is" describe it
    if len(words) == 1:
        # one word: a passphrase joins words (correct-horse-battery) or mixes letters, digits and symbols
        return not (re.search(r"[-_][^\W_]", value) or (len(value) >= 6 and looks_random(value)))
    # several words: a sentence's end, each a plain word and not a function word
    return any(w.lower() in _NOT_A_PASSPHRASE for w in words)


# ---- a password typed at a tool -------------------------------------------------------------------------------
_TYPED = r"(?i)\((?:I|we)[ \t]+(?:typed|entered|used|put[ \t]+in)(?:[ \t]+in)?[ \t]+([^\s()]{6,64})\)"
_TYPED_WORDS = ("typed", "entered", "used", "put in")
_ELEVATE = (
    r"(?i)(?<![\w-])(?:su(?:[ \t]+-)?(?:[ \t]+[a-z_][a-z0-9_-]{0,31})?|sudo)[ \t]+(?:with|using|pw|pass)[ \t]+"
    r"([^\s'\"`]{6,64})"
)
_SIGNING_TOOL = (
    r"(?i)(?<![\w-])(?:signtool(?:\.exe)?|pvk2pfx(?:\.exe)?|certutil(?:\.exe)?|makecert|osslsigncode|"
    r"jsign)(?:[ \t]+[^\s]{1,200}){0,12}?[ \t]+"
    r"(?:/p|/pi|/po|-pi|-po|-p|-pass|--storepass|--keypass|/password)(?:[ \t]+|:)"
    r"[\"']?([^\s\"']{4,128})"
)
_SIGNING_WORDS = ("signtool", "pvk2pfx", "certutil", "makecert", "osslsigncode", "jsign")
_A_PASSWORD_LINE = re.compile(r"(?i)pass|pwd|kinit|ktutil|addent|sudo|\bsu\b|login|unlock")


def _keep_typed(match: re.Match[str]) -> bool:
    value = match.group(1).rstrip(".,;:!?")
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    if not _A_PASSWORD_LINE.search(match.string, line_start, match.start()):
        return True
    return value_is_code(value) or not (any(c.isdigit() for c in value) or not value.isalnum())


def _keep_elevated(match: re.Match[str]) -> bool:
    """``su - with hunter7jump``; not ``sudo with care`` (a plain word) or ``su with $PW``."""
    value = match.group(1).rstrip(".,;:!?")
    return value_is_code(value) or value.isalpha() or value.startswith(("$", "%", "<", "{", "-"))


def _keep_value_code(match: re.Match[str]) -> bool:
    value = match.group(1)
    return value_is_code(value) or value.startswith(("%", "$", "<", "{")) or value.lower() in _NOT_A_PASSPHRASE


# ---- OAuth's own values ---------------------------------------------------------------------------------------
_DEVICE_CODE = (
    r"(?i)(?<![\w-])(?:enter|type|input|use)[ \t]+(?:the[ \t]+|this[ \t]+)?(?:(?:user|device|one-time|verification)"
    r"[ \t]+)?(?:code[ \t]+)?(?-i:([A-Z0-9]{3,5}-[A-Z0-9]{3,5}(?:-[A-Z0-9]{3,5})?|[A-Z0-9]{8,9}))(?![\w-])"
)
_DEVICE_WORDS = ("device", "/activate", "devicelogin", "/link", "verification_uri", "user_code", "to authenticate")


def _keep_device_code(match: re.Match[str]) -> bool:
    """Keep a word in capitals (``enter ABCDEFGH``) and a number; GitHub's user codes are letters in two groups."""
    value = match.group(1)
    if not any(c.isalpha() for c in value):
        return True
    return "-" not in value and not any(c.isdigit() for c in value)


_PKCE = r"(?i)(?<![\w-])(?:code[_-]?)?verifier[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9._~-]{43,128})(?![\w.~-])"
_ABBREVIATED = (
    r"(?i)(?<![\w-])(?:[a-z0-9]{1,30}[_-]){0,4}(?:rt|rtok|refresh|refresh[_-]?tok|tok|tkn|idt)[\"']?[ \t]*[:=][ \t]*"
    r"[\"']?([A-Za-z0-9][A-Za-z0-9._~+/-]{19,2047}={0,2})(?![A-Za-z0-9._~+/=-])"
)
_ABBREVIATED_WORDS = ("rt", "tok", "tkn", "refresh", "idt")
_SAML = r"(?<![\w-])(?:SAMLResponse|SAMLart|wresult)[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9+/%_-]{24,16384}={0,2})"


def _rule(kind: str, pattern: str, keep: _Keep, words: tuple[str, ...]) -> Recogniser:
    return Recogniser(kind, re.compile(pattern, re.MULTILINE), (1,), keep, line_words=words)


def auth_flow_recognisers() -> list[Recogniser]:
    """The rules of this module, each run only on the lines that hold one of its words."""
    return [
        _rule("one-time-link", _LINK_PATH, _keep_link_token, _LINK_WORDS),
        _rule("one-time-link", _LINK_QUERY, _keep_link_token, _LINK_WORDS),
        _rule("saml-response", _SAML, _keep_not_random, ("samlresponse", "samlart", "wresult")),
        _rule("pkce-verifier", _PKCE, _keep_not_random, ("verifier",)),
        _rule("token-abbreviated", _ABBREVIATED, _keep_not_random, _ABBREVIATED_WORDS),
        _rule("device-code", _DEVICE_CODE, _keep_device_code, _DEVICE_WORDS),
        _rule("signing-password", _SIGNING_TOOL, _keep_value_code, _SIGNING_WORDS),
        _rule("typed-password", _TYPED, _keep_typed, _TYPED_WORDS),
        _rule("typed-password", _ELEVATE, _keep_elevated, ("su ", "sudo")),
        _rule("key-passphrase", _PASSPHRASE, _keep_passphrase, _PASSPHRASE_WORDS),
        _rule("auth-secret", _TOLD, _keep_told, _TOLD_WORDS),
    ]
