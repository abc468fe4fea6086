"""Secrets recognised by where they stand (issue 36).

``kernel.secret_patterns`` holds the self-naming formats and keyed values;
``kernel.secret_rules`` holds detect-secrets' rules; ``kernel.secret_formats``
the provider formats neither covers. This module adds what no format can say:

- **command lines**: a password handed to a tool (``sqlcmd -P``, ``ldapsearch -w``,
  ``openssl -passin pass:``, ``gpg --passphrase``, ``az login -p``, ``echo PW | sudo -S``,
  ``net user NAME PW``, ...), any ``--*password``/``--*token`` flag, and any flag whose
  value is a high-entropy token;
- **code and config**: ``auth=("user", "pw")``, ``HTTPBasicAuth(...)``, ``.login("u", "pw")``,
  PHP ``define('DB_PASSWORD', ...)``, ``*_pass:`` keys, ``Authorization:`` schemes;
- **prose**: "my password is purple monkey dishwasher" (several words), "changed my
  password to ...".

Entropy is used only in those contexts (a flag's value, a value named token/secret),
so hashes, UUIDs and ids in ordinary text stay as they are. Every pattern stays on
one line and every quantifier is bounded. ``kernel.secret_blocks`` handles what
spans lines. Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.secret_code import CODE
from kernel.secret_entropy import high_entropy, unquote
from kernel.secret_formats import FORMAT_GATES, FORMATS
from kernel.secret_headers import HEADERS
from kernel.secret_patterns import Recogniser, literal_gate, value_is_code
from kernel.secret_places import PLACES, Place
from kernel.secret_prose import PROSE
from kernel.secret_tools import TOOLS

# -- context rules ---------------------------------------------------------------------------------
# A value on a command line: quoted, or bare up to a shell separator (a bare value never starts with '#').
VALUE = r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![#])[^\s'\"|&;<>]{1,256})"
_ARGS = r"[^\n|;&]{0,200}?"


def _tool(tools: str, flag: str) -> str:
    """``flag`` and its value, after one of ``tools`` on the same command."""
    return rf"(?<![\w/.-])(?:{tools})(?:\.exe)?(?![\w-]){_ARGS}\s{flag}{VALUE}"


_unquote = unquote


_NOT_A_PASSWORD = re.compile(r"(?i)(?:env|file|fd|stdin|prompt):.*|-.*|stdin|prompt|\*|''|\"\"")


def _keep_value(group: int) -> Callable[[re.Match[str]], bool]:
    """Keep a match whose value (``group``) refers to a secret instead of being one: $VAR, env:X, -, a call."""

    def keep(match: re.Match[str]) -> bool:
        value = _unquote(match.group(group) or "")
        return not value or bool(_NOT_A_PASSWORD.fullmatch(value)) or value_is_code(value)

    return keep


def _keep_low_entropy(group: int) -> Callable[[re.Match[str]], bool]:
    return lambda match: not high_entropy(match.group(group) or "")


_SECRET_FLAG_WORDS = (
    r"password|passwd|passphrase|pass|pwd|secret|secret-?key|token|api-?key|apikey|auth-?key|authkey|"
    r"access-?key|private-?key|client-?secret|requirepass|masterauth|masterpass"
)
_WEAK_FLAG = re.compile(r"(?i)token|key")


_KEEP_SECOND = _keep_value(2)
_KEEP_THIRD = _keep_value(3)


def _keep_flag(match: re.Match[str]) -> bool:
    value = _unquote(match.group(2) or "")
    if _KEEP_SECOND(match):
        return True
    # --max-token 5, --key id_rsa.pub: a token or key flag keeps counts and file names
    return bool(_WEAK_FLAG.search(match.group(1))) and (value.isdigit() or bool(re.search(r"\.\w{2,4}$", value)))


# Words that say the words after "my password is" describe it instead of being it.
_PREDICATES = frozenset(
    """a an the to of in on at by with from for and or not never no none only too very be been being it its this that
    these those than as if when after before every each all still now also just same different stored hashed saved
    kept checked required optional wrong incorrect invalid correct expired empty blank missing weak strong long short
    sensitive case-sensitive unknown new old fine ok okay set unset there here gone good bad secure insecure mandatory
    visible hidden encrypted plaintext plain right valid changed reset rotated managed needed used shown sent what
    where how why who which something anything nothing characters chars digits letters words somewhere written
    generated random unique locked disabled enabled protected about around under over into""".split()
)


def _keep_prose_words(match: re.Match[str]) -> bool:
    """Keep "my password is too short", "the password is hashed with argon2"; not "my password is purple monkey"."""
    quoted, token, phrase = match.group(2), match.group(3), match.group(4)
    if quoted or token:
        return value_is_code(_unquote(quoted or token))  # a quoted value, or a word with digits or symbols
    words = phrase.split()
    lowered = [w.lower().strip(".,;:!?") for w in words]
    if any(w in _PREDICATES for w in lowered[1:]):
        return True
    first = lowered[0]
    if first in _PREDICATES:
        # "is correct", "is wrong again": words about the password; "correct horse battery staple" is one (an
        # adjective, then three or more words none of which describes anything)
        return not (first in _ADJECTIVES and len(words) >= 4)
    if len(first) > 4 and (first.endswith(("ed", "ing", "ly"))):
        return True  # "is hashed ...", "is expiring", "is usually ..."
    # "the password is Foo": one plain word is left to the prose rule; a phrase of words is a passphrase
    return match.group(1).lower() == "the" and len(words) == 1


_ADJECTIVES = frozenset(
    "wrong incorrect invalid correct weak strong long short new old fine good bad secure insecure right valid".split()
)
_KEEP_PASS_VALUES = frozenset("ok fail failed passed skip skipped true false yes no none null on off".split())


def _keep_pass_key(match: re.Match[str]) -> bool:
    value = _unquote(match.group(3))
    return value.isdigit() or value.lower() in _KEEP_PASS_VALUES or _KEEP_THIRD(match)


_CLOSE = r"(?=[,;!?()\]]|\.(?:\s|$)|\s+(?:and|but|so|because|which|please|don't|do\s+not|ok)\b|\n|$)"
# a quoted value; a word holding a digit or a symbol (the password, whatever follows); or plain words to the
# clause's end (a passphrase, or words about the password: the keep check tells which)
_PROSE_VALUE = (
    r"(?:(\"[^\"\n]{1,128}\"|'[^'\n]{1,128}')|(?=[^\s]{0,127}[0-9!@#$%^&*_+=~])([^\s\"'`]{3,128}?)(?=[,;.!?)]?(?:\s|$))|"
    rf"([^\s,.;!?()\"'][^,;!?()\"'\n]{{0,127}}?){_CLOSE})"
)
_SECRET_NOUN = r"(?:password|passphrase|pass\s?phrase|passcode|pin(?:\s+code)?)"

# (kind, pattern, secret group, keep, line words): every pattern stays on one line.
CONTEXT: list[tuple[str, str, int | tuple[int, ...], Callable[[re.Match[str]], bool] | None, tuple[str, ...]]] = [
    (
        "cli-password",
        _tool(r"sqlcmd|bcp|osql|isql|ipmitool|zip|unzip|zipcloak", r"-P\s*"),
        1,
        _keep_value(1),
        ("sqlcmd", "bcp", "osql", "isql", "ipmitool", "zip"),
    ),
    ("cli-password", _tool(r"7z|7za|7zz|7zr|rar|unrar|winrar", r"-p(?=[^\s-])"), 1, _keep_value(1), ("7z", "rar")),
    ("cli-password", _tool(r"ldap[a-z]{0,12}", r"-w\s*"), 1, _keep_value(1), ("ldap",)),
    (
        "cli-password",
        _tool(
            r"psexec|psexec64|paexec|rdesktop|winexe|mongo|mongosh|mongodump|mongorestore|mongoimport|mongoexport",
            r"-p\s*",
        ),
        1,
        _keep_value(1),
        ("psexec", "paexec", "rdesktop", "winexe", "mongo"),
    ),
    (
        "cli-password",
        _tool(
            r"az\s+login|oc\s+login|cf\s+login|argocd\s+login|influx|heroku\s+login|vault\s+login",
            r"(?:-p|-password|--password)(?:\s+|=)",
        ),
        1,
        _keep_value(1),
        ("login", "influx"),
    ),
    ("cli-password", _tool(r"ssh-keygen", r"-[NP]\s*"), 1, _keep_value(1), ("ssh-keygen",)),
    ("cli-password", _tool(r"openssl", r"-k\s+"), 1, _keep_value(1), ("openssl",)),
    (
        "cli-password",
        _tool(r"smbclient|rpcclient|smbmap|smbget|smbcacls|crackmapexec|nxc|netexec", r"-U\s*[^%\s'\"]{1,128}%"),
        1,
        _keep_value(1),
        ("smb", "rpcclient", "crackmapexec", "nxc", "netexec"),
    ),
    (
        "cli-password",
        _tool(r"xfreerdp|wfreerdp|sdl-freerdp|freerdp|wmic|cmdkey", r"/p(?:ass(?:word)?)?:"),
        1,
        _keep_value(1),
        ("freerdp", "wmic", "cmdkey"),
    ),
    (
        "cli-password",
        r"(?<=\s)-(?:passin|passout|pass|password|passphrase|storepass|keypass|srcstorepass|deststorepass|"
        r"srckeypass|destkeypass|kspass|keystorepass|truststorepass)(?:\s+|=|:)(?:pass:)?" + VALUE,
        1,
        _keep_value(1),
        ("-pass", "storepass", "keypass", "kspass"),
    ),
    (
        "cli-password",
        r"\brabbitmqctl\s+(?:-\S{1,40}\s+){0,4}(?:add_user|change_password)\s+\S{1,128}\s+" + VALUE,
        1,
        _keep_value(1),
        ("rabbitmqctl",),
    ),
    (
        "cli-password",
        r"\bhtpasswd\s+-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}(?:\s+-[a-zA-Z]{1,4}){0,3}\s+\S{1,256}\s+[^\s'\"]{1,128}\s+" + VALUE,
        1,
        _keep_value(1),
        ("htpasswd",),
    ),
    (
        "cli-password",
        r"(?i)\bnet\s+user\s+(?!/)[^\s/]{1,64}\s+(?![/*])" + VALUE,
        1,
        _keep_value(1),
        ("net",),
    ),
    (
        "cli-password",
        r"(?i)\bnet\s+use\s+(?:[A-Z]:\s+|\*\s+)?\\\\\S{1,256}\s+(?![/*])" + VALUE,
        1,
        _keep_value(1),
        ("net",),
    ),
    (
        "piped-password",
        r"\b(?:echo|printf)\s+(?:-[a-z]{1,3}\s+)?(?:'%s\\n'\s+)?" + VALUE + r"\s*\|\s*"
        r"(?:sudo\b[^|\n]{0,80}?\s-[a-zA-Z]{0,4}S\b|[^|\n]{0,200}?--password-stdin\b|[^|\n]{0,40}?\bchpasswd\b|"
        r"passwd\b[^|\n]{0,60}--stdin|[^|\n]{0,80}?\bsecrets?\s+(?:put|set|create)\b)",
        1,
        _keep_value(1),
        ("echo", "printf"),
    ),
    (
        "cli-password",
        r"(?i)\bConvertTo-SecureString\s+(?:-String\s+)?" + VALUE + r"\s+-AsPlainText",
        1,
        _keep_value(1),
        ("convertto-securestring",),
    ),
    (
        "cli-flag",
        rf"(?i)(?<![\w-])--(?!no-)((?:[a-z0-9]{{1,20}}-){{0,3}}(?:{_SECRET_FLAG_WORDS}))(?:\s+|=)" + VALUE,
        2,
        _keep_flag,
        ("--",),
    ),
    # any flag whose value is a random token
    (
        "cli-token",
        r"(?<![\w-])--?[A-Za-z][\w-]{0,30}(?:\s+|=)[\"']?([A-Za-z0-9+/_~.=-]{20,256})(?![\w+/~=.-])",
        1,
        _keep_low_entropy(1),
        ("-",),
    ),
    # requests' auth=("user", "pw"), HTTPBasicAuth("user", "pw"), smtp.login("user", "pw")
    (
        "auth-call",
        r"(?:\bauth\s*=\s*[(\[]|\b(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|BasicAuth|DigestAuth)\s*\(|"
        r"\.(?:login|authenticate|basic_auth|with_basic_auth|set_credentials)\s*\()\s*"
        r"(?:\"[^\"\n]{0,128}\"|'[^'\n]{0,128}'|[\w.\[\]'\"]{1,128})\s*,\s*(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        _keep_value(1),
        ("auth=", "auth =", "auth(", "auth (", "login(", "login (", "authenticate(", "credentials("),
    ),
    (
        "define-secret",
        r"(?i)\bdefine\s*\(\s*['\"]\w{0,40}(?:password|passwd|pass|secret|key|salt|token|auth)\w{0,40}['\"]\s*,\s*"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')",
        1,
        _keep_value(1),
        ("define",),
    ),
    (
        "assignment",
        r"(?i)(?<![a-z])(pass)([\"']?\s{0,8}(?:=>|=|:)\s{0,8})"
        r"(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|(?![$%{<\[])[^\s\"'`<>,;]{1,256})",
        3,
        _keep_pass_key,
        ("pass",),
    ),
    (
        "authorization",
        r"(?i)\bauthorization[\"']?(?:\s*[:=]\s*[\"']?|[ \t]+[\"'])"
        r"(?:(?:token|ssws|key|apikey|api-key|sharedkey|hmac)\s*=?\s*|"
        r"(?!bearer|basic)[A-Za-z][A-Za-z0-9_-]{1,30}[ \t]+(?:[a-z]{1,20}=)?)?"
        r"([A-Za-z0-9._~+/=:-]{16,512})",
        1,
        _keep_value(1),
        ("authorization",),
    ),
    ("okta-token", r"\bSSWS\s+([A-Za-z0-9_-]{30,})", 1, None, ("ssws",)),
    # a token named in prose or config with a random value: "grafana token glsa_...", "secret: Xy7..."
    (
        "named-token",
        r"(?i)\b(?:token|secret|password|passcode|credential|key|pat|personal\s+access\s+token|app\s?password)s?"
        r"(?:\s+(?:value|string))?(?:\s+(?:is|was|for\s+[\w.@-]{1,40}))?\s{0,4}[:=]?\s{0,4}[\"'`]?"
        r"([A-Za-z0-9+/_~.=-]{20,256})",
        1,
        _keep_low_entropy(1),
        ("token", "secret", "pass", "credential", "key", "pat ", "pat:", "pat="),
    ),
    (
        "prose-password",
        rf"(?i)\b(my|our|your|his|her|their|the)\s+(?:[a-z0-9-]{{1,20}}\s+){{0,2}}?{_SECRET_NOUN}"
        r"(?:\s+(?:for|to|on|of)\s+(?:the\s+|my\s+|our\s+)?[\w.@-]{1,40}(?:\s+[\w.@-]{1,40})?)?\s+"
        r"(?:is|was|is\s+now|has\s+been|is\s+set\s+to|was\s+set\s+to|was\s+changed\s+to|became)\s*:?\s+" + _PROSE_VALUE,
        (2, 3, 4),
        _keep_prose_words,
        ("pass", "pin ", "pin\t"),
    ),
    (
        "prose-password",
        rf"(?i)\b(?:changed|set|reset|updated|switched)\s+(my|our|your|his|her|their|the)\s+"
        rf"(?:[a-z0-9-]{{1,20}}\s+){{0,2}}?{_SECRET_NOUN}\s+to\s+" + _PROSE_VALUE,
        (2, 3, 4),
        _keep_prose_words,
        ("pass", "pin ", "pin\t"),
    ),
]


_LEADING = re.compile(r"^(\(\?i\))?(\\b|\(\?<!\[[^\]]{1,20}\]\))")


def _guarded(
    pattern: str, keep: Callable[[re.Match[str]], bool] | None
) -> tuple[str, Callable[[re.Match[str]], bool] | None]:
    """``pattern`` without its leading boundary (``\\b`` or a one-class look-behind), and a keep check that
    does the boundary's work on each match: the regex engine can then skip to the positions where the
    pattern's first characters are, instead of trying the boundary at every position."""
    leading = _LEADING.match(pattern)
    if not leading or leading.group(1):
        return pattern, keep  # a case-blind pattern gets no literal skip anyway: its \\b prunes positions
    before = re.compile(r"\w" if leading.group(2) == r"\b" else leading.group(2)[4:-1])
    body = pattern[leading.end() :]

    def guarded(match: re.Match[str]) -> bool:
        at = match.start()
        if at and before.match(match.string, at - 1):
            return True  # inside a word: not this pattern's match
        return keep(match) if keep is not None else False

    return body, guarded


def one_line(pattern: str) -> str:
    """``pattern`` with each ``\\s`` outside a character class made ``[ \\t]``: a flag and its value, a key and
    its value, are on one line (``--with-token`` at a line's end does not take the next line's first word)."""
    out, in_class, at = [], False, 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            pair = pattern[at : at + 2]
            out.append("[ \\t]" if pair == "\\s" and not in_class else pair)
            at += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class and pattern[at - 1] not in "[^":
            in_class = False
        out.append(char)
        at += 1
    return "".join(out)


def context_recognisers() -> list[Recogniser]:
    """The provider formats, then the context rules (each gated on its words)."""
    out = []
    for kind, pattern in FORMATS:
        body, keep = _guarded(pattern, None)
        gate = FORMAT_GATES.get(kind) or literal_gate(body)
        out.append(Recogniser(kind, re.compile(body), keep=keep, text_words=gate))
    places = [Place(kind, pattern, group, keep, words) for kind, pattern, group, keep, words in CONTEXT]
    places += PLACES + CODE + HEADERS + PROSE + TOOLS
    for place in places:
        # a rule that spans lines writes its line break out (\n), which one_line leaves as it is
        body, keep = _guarded(one_line(place.pattern), place.keep)
        groups = place.group if isinstance(place.group, tuple) else (place.group,)
        out.append(
            Recogniser(
                place.kind,
                re.compile(body),
                groups,
                keep,
                line_words=place.line_words,
                text_words=place.text_words,
                gate=place.gate,
            )
        )
    return out
