"""A secret in an incident's chat, a runbook or a support ticket (issue 36): where operators hand each other
a credential in a hurry, in the shapes their tools and habits give it, with no key that names it.

- **an answer after an arrow**: "what was the ESXi root again? -> PW", "capital K, lower e, ... -> PW";
- **typed at the wrong prompt**: a shell's history (or a terminal's lines) where a command that asks for a
  password (``mysql -u root -p``, ``su -``, ``ssh host``, ``kinit``) is followed by a line holding only a token;
- **a remote-support session**: TeamViewer, AnyDesk, RustDesk, VNC... with its id and then a password or code;
- **host, user and password joined by colons**: ``10.0.9.21:ADMIN:PW``, ``fw01.corp:admin:PW``;
- **a user's key, then a sibling key with a generated value**: ``{"u": "admin", "p": "PW"}``, a YAML mapping
  with ``login: admin`` and ``magic: PW`` below it, ``user: svc_etl`` and a line that ends in a generated token;
- **characters spelt out**: "read it back to me: k S f i 8 e r i";
- **a value disguised to slip past a filter**: "backwards so the bot doesn't grab it: PW";
- **a password named earlier in the text, then its value**: "... the iLO admin password ... it's now: PW",
  "the same thing as the warehouse wifi, i.e. PW";
- **a break-glass or emergency phrase or password**: "new break-glass phrase agreed: WORDS";
- **letters that are no word after a password's noun and its verb**, in any language: "le mot de passe du
  routeur du site de Lyon est PW" (``kernel.redaction.random_tokens.unlike_a_word``).

The value must look generated or like a password (``kernel.redaction.password_shape``); a word, a version, a
thing named with a number, a path or code stays. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.password_shape import named_with_a_number, password_shaped, weak_password_shaped
from kernel.redaction.places import Place
from kernel.redaction.prose_languages import FOREIGN_NOUNS
from kernel.redaction.random_tokens import unlike_a_word
from kernel.redaction.values import about_a_secret, value_is_code

# Words joined in camel case, maybe with a version or a number: AdminPanelV2, loginPage, TrainStation7.
_WORDS_JOINED = re.compile(r"[A-Z]?[a-z]{2,16}(?:[A-Z][a-z]{2,16}){1,4}(?:[Vv]?\d{1,4})?")


def _generated(value: str) -> bool:
    """A password a generator made: 8 characters or more, upper and lower case with a digit or a symbol (or
    random letters whose case switches), not words joined (``AdminPanelV2``) nor a thing named with a number."""
    value = value.rstrip(".,;:!?")
    if len(value) < 8 or not password_shaped(value) or named_with_a_number(value) or _WORDS_JOINED.fullmatch(value):
        return False
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    return (upper and lower) or (any(c.isdigit() for c in value) and not value.isalnum())


def _keep_not_shaped(match: re.Match[str]) -> bool:
    value = match.group(1).rstrip(".,;:!?")
    return not password_shaped(value) or _WORDS_JOINED.fullmatch(value) is not None


# A credential's word, or a question, before an arrow that gives the answer.
_ARROW_ANSWER = (
    r"(?i)(?:\?|\b(?:pass(?:word|wd|phrase)?|pw|pwd|root|admin|login|creds?|credentials|phone|spel(?:led|lt|l)|"
    r"capital|upper|lower))[^\n]{0,160}?[ \t](?:->|=>|→)[ \t]*[\"'`]?([^\s\"'`]{6,64})[\"'`]?[ \t]*$"
)

# Commands that ask for a password at a prompt; the line after them holds only what was typed.
_PROMPTING = (
    r"mysql|mariadb|mysqladmin|mysqldump|psql|su|sudo|ssh|sftp|ftp|telnet|passwd|kinit|mongo|mongosh|redis-cli|"
    r"(?:docker|podman|helm|npm|az|oc)[ \t]+login|ldapsearch|ldapmodify|ldapadd|smbclient|rdesktop|xfreerdp|runas|"
    r"net[ \t]+use|sqlplus|cqlsh|openssl|gpg|zip|7z|unzip|keytool|htpasswd|vncpasswd|ipmitool"
)
_TYPED_AT_A_PROMPT = (
    r"(?m)^[ \t]*(?:\d{1,6}\*?[ \t]+)?(?:[^\s]{1,64}[$#%>][ \t]+)?(?:sudo[ \t]+(?:-[a-zA-Z]{1,3}[ \t]+){0,3})?"
    rf"(?:{_PROMPTING})(?![\w-])[^\n]{{0,200}}\n[ \t]*(?:\d{{1,6}}\*?[ \t]+)?([^\s]{{6,64}})[ \t]*$"
)

# A remote-support tool, its session's id, then a password or a code.
_REMOTE_TOOLS = (
    "teamviewer",
    "anydesk",
    "rustdesk",
    "screenconnect",
    "splashtop",
    "vnc",
    "logmein",
    "bomgar",
    "quick assist",
    "quickassist",
    "ammyy",
    "supremo",
    "remotepc",
    "dwservice",
)
_REMOTE_TOOL_NAMES = "|".join(tool.replace(" ", r"[ \t]") for tool in _REMOTE_TOOLS)
_REMOTE_SESSION = (
    rf"(?i)\b(?:{_REMOTE_TOOL_NAMES})\b[^\n]{{0,200}}?"
    r"\b(?:password|passwort|kennwort|passcode|pass|pw|pwd|code|pin)\b[ \t]*(?:is[ \t]+|[:=\-][ \t]*)?"
    r"[\"'`]?([^\s\"'`,;]{4,64}?)[\"'`]?(?=[.,;!?)]?(?:[ \t]|$))"
)


def _keep_remote_value(match: re.Match[str]) -> bool:
    """A session's password has a digit, a symbol or both cases ("i5yhz4", "HJaASCagjaqu"); "is required" stays."""
    value = match.group(1).rstrip(".,;:!?")
    if value_is_code(value) or (value.isdigit() and len(value) < 4):
        return True
    return value.isalpha() and (value.islower() or value.isupper() or value.istitle())


# host:user:password, the way a spreadsheet or a scanner's export writes a device's access.
_HOST = r"(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][\w-]{0,62}(?:\.[\w-]{1,62}){1,6})"
_HOST_USER_PASSWORD = (
    rf"(?<![\w.:/@-]){_HOST}(?::\d{{1,5}})?:([A-Za-z][\w.@-]{{0,63}}):([^\s:'\"]{{4,128}}?)(?=[,;.]?(?:[\s'\"]|$))"
)
_VERSION = re.compile(r"v?\d{1,6}(?:\.\w{1,20}){1,5}(?:[-+.][\w.]{1,30})?")


def _keep_host_user_value(match: re.Match[str]) -> bool:
    """The third field is a password: letters with digits or a symbol, not a version (Maven's group:artifact:version),
    a number or a word."""
    value = match.group(2)
    if _VERSION.fullmatch(value) or value_is_code(value) or named_with_a_number(value):
        return True
    has_letter = any(c.isalpha() for c in value)
    return not (has_letter and (any(c.isdigit() for c in value) or password_shaped(value)))


# A user's key and its value, then another key's value on the same line (JSON, an inline mapping, a query).
_USER_KEY = r"(?:u|usr|user|username|user_name|login|uid|account)"
_USER_THEN_SIBLING = (
    rf"(?i)[\"']?{_USER_KEY}[\"']?[ \t]*[:=][ \t]*[\"']?[\w.@\\-]{{1,64}}[\"']?[ \t]*[,;&][ \t]*"
    r"[\"']?([A-Za-z_][\w-]{0,20})[\"']?[ \t]*[:=][ \t]*[\"']?([^\s\"',;&}]{8,128})"
)
# ... or in a YAML mapping: the user's key, then up to four sibling keys at the same indentation (or under a
# list's dash).
_USER_THEN_SIBLING_LINES = (
    rf"(?im)^([ \t]*)(?:-[ \t]+)?{_USER_KEY}[ \t]*:[ \t]*[^\s#]{{1,64}}[ \t]*\n"
    r"(?:\1(?:  )?[\w.-]{1,30}[ \t]*:[^\n]{0,200}\n){0,4}?"
    r"\1(?:  )?([\w.-]{1,30})[ \t]*:[ \t]*[\"']?([^\s\"'#]{8,128})[\"']?[ \t]*$"
)


# Keys and words that name an identifier, a version or a place, whose value may look generated: an etag, a trace.
_AN_IDENTIFIER = (
    r"(?:id|ids|uuid|guid|etag|nonce|trace|span|request|correlation|session|commit|rev|revision|build|tag|ref|sku|"
    r"serial|slug|sha|digest|checksum|fingerprint|thumbprint|image|host|url|path|file|region|zone)"
)
_IDENTIFIER_KEY = re.compile(rf"(?i)(?:[\w-]{{0,20}}[_-])?{_AN_IDENTIFIER}[_-]?(?:id|no|num|number)?")
_IDENTIFIER_BEFORE = re.compile(rf"(?i)\b{_AN_IDENTIFIER}(?:[ _-]?(?:id|no|num|number))?[ \t]*[:=#]?[ \t]*\Z")


def _keep_sibling(match: re.Match[str]) -> bool:
    key, value = match.group(match.re.groups - 1), match.group(match.re.groups)
    return about_a_secret(key) or _IDENTIFIER_KEY.fullmatch(key) is not None or not _generated(value)


def _keep_token_below(match: re.Match[str]) -> bool:
    """The token on the line below a user's is no identifier named right before it ("request id: ...")."""
    start = match.start(1)
    line_start = match.string.rfind("\n", 0, start) + 1
    return not _generated(match.group(1)) or _IDENTIFIER_BEFORE.search(match.string, line_start, start) is not None


# A user's line, then a line that ends in a generated token (the other half of the credential).
_USER_LINE_THEN_TOKEN = (
    rf"(?im)^[ \t]*{_USER_KEY}[ \t]*[:=][ \t]*[^\s]{{1,64}}[ \t]*\n[^\n]{{0,200}}?(?<![^\s(\[>])"
    r"([A-Za-z0-9!#$%*+\-.?@^_~]{8,64})[ \t]*$"
)

# Characters spelt out one by one after a word that says so.
_SPELT_OUT = (
    r"(?i)\b(?:read|spell|spelt|spelled|letters?|chars?|characters?|dictat\w{0,6}|slowly|phone)\b[^\n]{0,80}?"
    r"[:\-–—][ \t]*((?:[A-Za-z0-9!@#$%^&*?][ \t]){5,40}[A-Za-z0-9!@#$%^&*?])[ \t]*$"
)


def _keep_spelt(match: re.Match[str]) -> bool:
    chars = match.group(1).replace(" ", "").replace("\t", "")
    letters = any(c.isalpha() for c in chars)
    mixed = any(c.isupper() for c in chars) and any(c.islower() for c in chars)
    return not (letters and (mixed or any(c.isdigit() for c in chars)))


# Words that say the value is disguised to slip past a filter, then the value.
_DISGUISED = (
    r"(?i)\b(?:backwards?|reversed?|in[ \t]+reverse|rot-?13|scrambled|obfuscated|"
    r"so[ \t]+(?:the|a|our)[ \t]+(?:bot|scanner|filter|redactor|dlp)|the[ \t]+(?:bot|scanner|filter)[ \t]+"
    r"(?:doesn['’]?t|won['’]?t|can['’]?t|does[ \t]+not|will[ \t]+not|cannot))\b[^\n]{0,80}?[:\-–—][ \t]*"
    r"[\"'`]?([^\s\"'`]{6,128})[\"'`]?[ \t]*$"
)

# A password (or a wifi's key) named earlier in the text, then "it's now: PW", "i.e. PW".
_TOLD_LATER = (
    r"(?i)(?:\bit['’]?s[ \t]+now|\bit[ \t]+is[ \t]+now|\bnow[ \t]+it['’]?s|\bi\.e\.|\bnamely|\bviz\.)[ \t]*[:,]?[ \t]*"
    r"[\"'`]?([^\s\"'`]{6,64}?)[\"'`]?(?=[.,;!?]?(?:[ \t]|$))"
)
_NAMED_BEFORE = re.compile(
    r"(?i)pass(?:word|wd|phrase|code)?|\bpwd?\b|wi-?fi|wlan|\bpsk\b|network[ \t]key|\bcreds\b|credential"
)


# Words right after the noun that make it something about the password: "the password policy, i.e. NIST-800-63b".
_ABOUT_THE_NOUN = re.compile(
    r"(?i)[ \t]*(?:polic|manager|hash|length|rule|requirement|reset|expir|rotation|history|field|prompt|hint|"
    r"strength|complexity|format|standard|guidance|change|vault|store)"
)


def _keep_told_later(match: re.Match[str]) -> bool:
    if not weak_password_shaped(match.group(1)):
        return True
    text, start = match.string, match.start()
    nouns = list(_NAMED_BEFORE.finditer(text, max(0, start - 300), start))
    return not nouns or _ABOUT_THE_NOUN.match(text, nouns[-1].end()) is not None


# A break-glass or emergency credential, its value after a colon: one token, or a passphrase's words.
_BREAK_GLASS = (
    r"(?i)\b(?:break[ \t-]?glass|emergency|fallback|duress)[ \t]+(?:pass[ \t]?phrase|phrase|password|passwd|pw|"
    r"creds|credentials|login|account|words?|pin|code)\b[^\n:]{0,80}?:[ \t]*"
    r"((?:[^\s]{2,32}[ \t]+){0,7}[^\s]{2,32})[ \t]*$"
)
_FUNCTION_WORDS = frozenset(
    """the a an in is of to and or see ask from with on at by for not stored kept vault safe sealed envelope
    rotated printed written held managed available ticket this that it be was are check""".split()
)


def _keep_break_glass(match: re.Match[str]) -> bool:
    words = match.group(1).split()
    if len(words) == 1:
        return not password_shaped(words[0]) or value_is_code(words[0])
    if len(words) < 3:
        return True
    plain = all(w.isalpha() and w.islower() and 3 <= len(w) <= 12 for w in words)
    return not plain or any(w in _FUNCTION_WORDS for w in words)


# A password's noun, in English or another language, a few words, a verb, then letters alone: "le mot de passe du
# routeur du site de Lyon est PW"; only letters that are no word ("the password is incorrect" stays).
_LETTERS_AFTER_THE_NOUN = (
    rf"(?i)(?<![\w-])(?:password|passwd|passphrase|{FOREIGN_NOUNS})\w{{0,4}}(?:[ \t]+[^\s:=]{{1,24}}){{0,10}}?"
    r"[ \t]+(?:is|was|ist|lautet|est|es|este|é|è|e|är|er|je|jest|on|is[ \t]+now)[ \t]+[\"'`«]?([A-Za-z]{8,32})[\"'`»]?"
    r"(?=[.,;!?)]?(?:[ \t]|$))"
)


def _keep_word(match: re.Match[str]) -> bool:
    return not unlike_a_word(match.group(1))


_USER_WORDS = ("user", "usr", "login", "uid", "account", "u:", 'u":', "u':", "u=", "u =", "u :")

INCIDENTS: list[Place] = [
    # "what was the ESXi root again? -> PW"
    Place("told-password", _ARROW_ANSWER, 1, _keep_not_shaped, line_words=("->", "=>", "→")),
    # "512  mysql -u root -p\n513  PW"
    Place(
        "typed-password",
        _TYPED_AT_A_PROMPT,
        1,
        _keep_not_shaped,
        text_words=("mysql", "mariadb", "psql", "su", "ssh", "ftp", "telnet", "passwd", "kinit", "mongo", "login"),
    ),
    Place("typed-password", _TYPED_AT_A_PROMPT, 1, _keep_not_shaped, text_words=("ldap", "smbclient", "rdp", "runas")),
    # "AnyDesk 123 456 789 - unattended access password PW"
    Place("remote-session-password", _REMOTE_SESSION, 1, _keep_remote_value, line_words=_REMOTE_TOOLS),
    # "10.0.9.21:ADMIN:PW"
    Place(
        "host-user-password",
        _HOST_USER_PASSWORD,
        2,
        _keep_host_user_value,
        gate=re.compile(r"\w(?::\d{1,5})?:[A-Za-z][\w.@-]{0,63}:[^\s:]"),
    ),
    # {"u": "admin", "p": "PW"}; login: admin\nmagic: PW; user: svc\n(...) PW
    Place("sibling-password", _USER_THEN_SIBLING, 2, _keep_sibling, text_words=_USER_WORDS),
    Place("sibling-password", _USER_THEN_SIBLING_LINES, 3, _keep_sibling, text_words=_USER_WORDS),
    Place("sibling-password", _USER_LINE_THEN_TOKEN, 1, _keep_token_below, text_words=_USER_WORDS),
    # "read it back to me: k S f i 8 e r i"
    Place(
        "spelt-password",
        _SPELT_OUT,
        1,
        _keep_spelt,
        line_words=("read", "spel", "letter", "char", "dictat", "slowly", "phone"),
    ),
    # "backwards so the bot doesn't grab it: PW"
    Place(
        "disguised-password",
        _DISGUISED,
        1,
        _keep_not_shaped,
        line_words=("backward", "revers", "rot13", "rot-13", "scrambl", "obfuscat", "bot", "scanner", "filter", "dlp"),
    ),
    # "... the iLO admin password ... it's now: PW", "the same thing as the warehouse wifi, i.e. PW"
    Place(
        "told-password",
        _TOLD_LATER,
        1,
        _keep_told_later,
        line_words=("it's now", "it’s now", "it is now", "now it", "i.e.", "namely", "viz."),
    ),
    # "le mot de passe du routeur du site de Lyon est PW"
    Place(
        "told-password",
        _LETTERS_AFTER_THE_NOUN,
        1,
        _keep_word,
        line_words=("pass", "wort", "clave", "senha", "wachtwoord", "has", "heslo", "salasana", "ord", "kod", "şifre"),
    ),
    # "new break-glass phrase agreed in the meeting: WORDS"
    Place(
        "break-glass-password",
        _BREAK_GLASS,
        1,
        _keep_break_glass,
        line_words=("break", "emergency", "fallback", "duress"),
    ),
]
