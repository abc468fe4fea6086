"""Credentials in web and product work (issue 36): what a browser stores, what a CMS or a shop hands out, and what
an agency writes down when it hands a site over.

- a browser's storage: ``localStorage.getItem('token') => "..."``, ``sessionStorage.setItem("refresh", "...")``;
- an application password (WordPress's six groups of four, Google's four groups of four) after its name;
- an API key given as the user of HTTP Basic with no password: ``curl -u KEY: https://shop/api`` (PrestaShop, Stripe,
  Harvest, Mailgun-style APIs), ``http -a KEY:``;
- a setter given the key: ``$mollie->setApiKey("live_...")``, ``client.set_access_token('...')``;
- a token named with more words between its name and its value: "private storefront token (do not expose): ...",
  "cPanel API token (name: deploy): ...", "global API key for acme account: ...";
- a user and a password after it: "user:owner  //  Pw"; a chat's line that is only a password, right after the
  line that gave the login ("14:02 Anna: the login is a@b.de" then "14:03 Anna: Pw");
- a staging site's basic auth told as a pair: "(basic auth: preview / Pw)", "htpasswd user : Pw", "SFTP user u / Pw";
- a password at a line's end after its short name: ``ssh host -p 2222   # password Pw``, "pw Pw" in a chat;
- a label and dot leaders: ``ADMIN PASSWORD ..... Pw``; a password told as "the word X";
- a password of one word at a sentence's end: "the staging site is password protected, password is mangotree"
  (not a word that says what it is like: "the password is required", "is hashed"; English only: the words that
  say so are English);
- a signing string told in prose: "the shared webhook signing string between Typeform and our API is X";
- a ``.pgpass`` line (host:port:database:user:password); a secret inside escaped JSON (``\\"pass\\":\\"...\\"``).

Values that refer to a secret (``$VAR``, ``<key>``, ``changeme``) and plain words of a sentence stay. Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.redaction.places import Place
from kernel.redaction.random_tokens import unlike_a_word
from kernel.redaction.values import PROSE_WORDS, looks_random, named_public, value_is_code

_SECRETISH = re.compile(r"(?i)token|refresh|auth|session|jwt|access|secret|key|pass|pwd|bearer|cred|sid")


def _plain_word(value: str) -> bool:
    """A word of a sentence, not a password: letters only, or a word of the prose list."""
    return value.isalpha() or value.lower() in PROSE_WORDS


def _keep_storage(match: re.Match[str]) -> bool:
    name = next((g for g in match.groups()[:4] if g is not None), "")
    return not _SECRETISH.search(name) or value_is_code(match.group(5))


def _keep_app_password(match: re.Match[str]) -> bool:
    value = match.group(1)
    letters = "".join(c for c in value if c.isalpha())
    mixed = any(c.isdigit() for c in value) or (any(c.isupper() for c in value) and any(c.islower() for c in value))
    if len(set(letters.lower())) <= 2 and not any(c.isdigit() for c in value):
        return True  # xxxx xxxx xxxx xxxx: the shape, shown to fill in
    return not (mixed or unlike_a_word(letters))


def _keep_random_value(group: int) -> Callable[[re.Match[str]], bool]:
    def keep(match: re.Match[str]) -> bool:
        value = match.group(group)
        return value_is_code(value) or not looks_random(value)

    return keep


# Words between a token's name and its value that say it is no secret: an id, a hash, a public key.
_NOT_SECRET_LABEL = re.compile(
    r"(?i)\b(?:id|ids|hash|sha\d{0,3}|md5|fingerprint|checksum|digest|sum|public|publishable|site|length|format)\b"
)


# The word before "key" or "token" that makes it a name for data, not a credential: a cache key, a primary key.
_DATA_KEY_BEFORE = re.compile(
    r"(?i)\b(?:cache|primary|foreign|sort|partition|idempotency|routing|object|lookup|map|dedup\w{0,8}|row|hash|"
    r"index|composite|unique|storage|s3|redis|pagination|page|cursor|continuation|sync|next)[ \t_-]{0,2}\Z"
)


def _keep_labelled(match: re.Match[str]) -> bool:
    value = match.group(2)
    if _NOT_SECRET_LABEL.search(match.group(1)) or named_public(match):
        return True
    if _DATA_KEY_BEFORE.search(match.string, max(0, match.start() - 24), match.start()):
        return True
    return value_is_code(value) or not looks_random(value) or value.isalpha()


def _keep_told_value(group: int) -> Callable[[re.Match[str]], bool]:
    def keep(match: re.Match[str]) -> bool:
        value = match.group(group).rstrip(".,;:!?")
        return not value or value_is_code(value) or _plain_word(value)

    return keep


def _keep_mixed_value(group: int) -> Callable[[re.Match[str]], bool]:
    """Keep a value with no digit (a word of a sentence) or one that refers to a secret."""

    def keep(match: re.Match[str]) -> bool:
        value = match.group(group).rstrip(".,;:!?")
        if "://" in value or not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
            return True  # a word of a sentence, a number, an address
        return value_is_code(value)

    return keep


# A word that says what a password is like, not what it is: "the password is required", "is hashed", "is mandatory".
_STATE_WORD = re.compile(
    r"(?:ed|ing|ly|able|ible|ive|ous|ful|less|ent|ant|al|ic|ary|ory|ure|ct|id|ng|ak|ple|ex|ue|ty|ise|ize|one|ere|ll)$"
    r"|^(?:wrong|empty|blank|secure|strong|weak|short|long|simple|case|same|mine|yours|ours|theirs|ok|okay|fine|good|bad|"
    r"new|old|there|here|gone|lost|now|still|also|just|only|not|never|always|too|very|what|this|that|these|those|what|"
    r"unknown|known|hidden|shown|stale|due|over|null|none|nil|true|false|set|unset|reset|free|open|off|on|protected)$"
)


def _keep_plain_password(match: re.Match[str]) -> bool:
    word = match.group(1).lower()
    return _STATE_WORD.search(word) is not None or value_is_code(word) or word in PROSE_WORDS


_QUOTE = "[\"']"
_STORAGE_NAME = r"[\"']([^\"'\n]{1,60})[\"']"

WEB_HANDOVERS: list[Place] = [
    Place(
        "browser-storage",
        r"\b(?:local|session)Storage(?:\.getItem\(\s{0,8}"
        + _STORAGE_NAME
        + r"\s{0,8}\)\s{0,8}(?:=>|->|\u2192|:|=|<)?\s{0,8}"
        r"|\.setItem\(\s{0,8}"
        + _STORAGE_NAME
        + r"\s{0,8},\s{0,8}|\[\s{0,8}"
        + _STORAGE_NAME
        + r"\s{0,8}\]\s{0,8}=\s{0,8}"
        r"|\.([A-Za-z_$][\w$]{0,60})\s{0,8}=\s{0,8})" + _QUOTE + r"([^\"'\s]{8,4096})" + _QUOTE,
        5,
        _keep_storage,
        text_words=("storage",),
    ),
    Place(
        "app-password",
        r"(?i)\bapp(?:lication)?[ _-]?passwords?\b[^\n]{0,40}?(?<![\w-])([A-Za-z0-9]{4}(?:[ -][A-Za-z0-9]{4}){3,5})"
        r"(?![\w-])",
        1,
        _keep_app_password,
        line_words=("password",),
    ),
    Place(
        "api-key-user",
        r"\b(?:curl\b[^\n]{0,200}?(?<!\S)(?:-u|--user)|https?\b[^\n]{0,200}?(?<!\S)(?:-a|--auth))[ \t=]{1,8}[\"']?"
        r"([A-Za-z0-9_.-]{16,128}):[\"']?(?=\s|$)",
        1,
        _keep_random_value(1),
        text_words=("curl", "http"),
    ),
    Place(
        "key-setter",
        r"(?i)(?:\.|->|::|\b)(?:set|with|use)_?(?:api_?key|access_?token|auth_?token|secret(?:_?key)?|token|"
        r"password|client_?secret|private_?key|key)\s{0,8}\(\s{0,8}[\"']([^\"'\s]{8,256})[\"']\s{0,8}\)",
        1,
        _keep_random_value(1),
        line_words=("key(", "token(", "secret(", "password(", "key (", "token ("),
    ),
    Place(
        "labelled-token",
        r"(?i)\b(?:token|secret|password|api[ _-]?key|key)s?\b((?:[ \t]{1,4}\([^()\n]{1,40}\)|[ \t]{1,4}[\w.@-]{1,30})"
        r"{1,5})[ \t]{0,8}[:=][ \t]{0,8}[\"'`]?([A-Za-z0-9_-]{16,256})[\"'`]?(?=[\s.,;)]|$)",
        2,
        _keep_labelled,
        line_words=("token", "secret", "password", "key"),
    ),
    Place(
        "basic-auth-pair",
        r"(?i)(?:\bbasic[ _-]?auth(?:entication)?|\bhtpasswd|\b(?:s?ftps?|ssh|cpanel|plesk|wp[ -]?admin)[ \t]{1,8}"
        r"(?:user(?:name)?|login))\b[ \t]{0,8}[(:=-]?[ \t]{0,8}(?:user(?:name)?[ \t]{0,8}[:=]?[ \t]{0,8})?"
        r"([^\s:/()]{1,80})"
        r"(?:[ \t]{1,3}/[ \t]{1,3}|[ \t]{1,3}:[ \t]{0,3}|:[ \t]{1,3})([^\s()\"'`]{4,256})",
        2,
        _keep_told_value(2),
        line_words=("basic", "htpasswd", "ftp", "ssh", "cpanel", "plesk", "admin"),
    ),
    Place(
        "password-at-end",
        r"(?i)(?<![\w./$:@-])(?:pw|pwd|passwd|password)[ \t]{0,8}[:=]?[ \t]{1,8}([^\s\"'`(\[{<][^\s\"'`]{5,127})"
        r"(?=[ \t]{0,8}$|[ \t]{1,8}(?:<<|//|#|--|\())",
        1,
        _keep_mixed_value(1),
        line_words=("pw", "passw"),
    ),
    Place(
        "password-is-word",
        r"(?i)\b(?:password|passcode|pw)[ \t]{1,4}(?:is|was)[ \t]{1,4}[\"'`]?"
        r"([a-z]{5,30})[\"'`]?(?=[ \t]{0,4}[.!]?[ \t]{0,4}$|,)",
        1,
        _keep_plain_password,
        line_words=("password", "passcode", "pw"),
    ),
    Place(
        "user-then-password",
        r"(?i)\buser(?:name)?[ \t]{0,4}[:=][ \t]{0,4}[\w.@-]{1,64}[ \t]{1,8}(?://|\||/|,|;|-{1,2}>?)[ \t]{1,8}"
        r"([^\s\"'`:=]{6,64})(?=[ \t]|$)",
        1,
        _keep_mixed_value(1),
        line_words=("user",),
    ),
    Place(
        "chat-password-line",
        r"(?i)\blog[ \t-]?in\b[^\n]{0,80}?[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{2,63}[^\n]{0,40}\n"
        r"(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]{1,4})?[\w .-]{1,40}:[ \t]{1,4}([^\s\"'`]{6,64})[ \t]{0,4}$",
        1,
        _keep_mixed_value(1),
        text_words=("login", "log in", "log-in"),
    ),
    Place(
        "dot-leader",
        r"(?i)\b(?:password|passwd|passcode|pin|secret|token|api[ _-]?key)[ \t]{0,8}\.{3,40}[ \t]{0,8}([^\s]{4,128})",
        1,
        _keep_told_value(1),
        text_words=("...",),
    ),
    Place(
        "the-word",
        r"(?i)\b(?:password|passphrase|passcode|pin)\b[^\n.]{0,60}?\bis[ \t]{1,8}the[ \t]{1,8}(?:word|phrase)[ \t]{1,8}"
        r"[\"'`\u201c]?([A-Za-z][\w-]{2,40})",
        1,
        None,
        line_words=("the word", "the phrase"),
    ),
    Place(
        "signing-string",
        r"(?i)\b(?:signing|shared|webhook|hmac)[ \t]{1,8}(?:secret|string|key|token|phrase)\b[^\n.=:]{0,80}?[ \t]"
        r"(?:is|=|:)[ \t]{1,8}[\"'`]?([^\s\"'`]{6,128})",
        1,
        _keep_told_value(1),
        line_words=("signing", "shared", "webhook", "hmac"),
    ),
    Place(
        "pgpass-line",
        r"(?<![\w.:-])[\w.*-]{1,100}:(?:\d{1,5}|\*):[\w*-]{1,63}:[\w.*@-]{1,63}:([^\s:]\S{0,255})$",
        1,
        lambda match: value_is_code(match.group(1)),
        text_words=("pgpass",),
    ),
    Place(
        "escaped-json-secret",
        r"(?i)\\\"[\w-]{0,30}(?:pass|password|passwd|pwd|secret|token|api_?key|apikey)\\\"[ \t]{0,8}:[ \t]{0,8}"
        r"\\\"([^\"\\]{4,256})\\\"",
        1,
        lambda match: value_is_code(match.group(1)),
        text_words=('\\"',),
    ),
]
