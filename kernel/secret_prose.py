"""Credentials written in prose (issue 36), beside ``kernel.secret_passphrase`` ("my password is ...").

- **a user and a password side by side**: "grafana login: admin / PW", "creds are admin / PW",
  "the credentials for the test tenant are ops@acme.dev and PW";
- **a noun, a note or a few words, a colon, a token**: "API key (prod): KEY", "the token for CI: KEY",
  "wifi: Guest / PW";
- **a password right after its noun, with no verb**: "encrypted, password PW",
  "use passphrase WORDS when gpg asks" (four words or more, one with a digit);
- **other languages**: "das Passwort ist ...", "le mot de passe est ...", "la contraseña es ...",
  "a senha é ...", "het wachtwoord is ...", "la password è ...", "пароль: ...", "密码是...";
- **app passwords**: the four groups of four letters Google and Apple give (``-p xxxx-xxxx-xxxx-xxxx``), after
  their name or alone on a line below it;
- **a noun, a few words, a colon or a verb, a value**, in any of those languages: "root pw on the new box: PW",
  "the keystore pass is PW", "creds for the test account are user@host:PW", "mdp : PW" (unless the words
  between say the value is about the password: policy, hash, length...), and "I reset it to PW" on a line
  that speaks of a login or credentials.

Without a verb or a colon the value must look like a password (letters, and digits or
symbols, in mixed case or with a symbol; or random letters whose case switches, ``FAPLaHmQGI``), so
"password reset flow", "login page / dashboard_v2" and "PostgreSQL" stay. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.secret_entropy import high_entropy
from kernel.secret_places import Place
from kernel.secret_values import value_is_code

_STOP_WORDS = frozenset(
    "a an the of to for in on at by with from is are be it this that and or not as if when then so".split()
)
_VALUE_END = r"(?=[,;.!?)]?(?:\s|$))"
_WORD_VALUE = r"[\"'`«]?([^\s\"'`«»]{4,128}?)[\"'`»]?" + _VALUE_END


# A name in one case then '=': "mode=fast", "MAX_AGE=30" is a setting; a password may hold '=' ("5o=I2@*", "Lm=4q!").
_KEY_EQUALS = re.compile(r"[a-z_][a-z0-9_.-]{2,40}=|[A-Z_][A-Z0-9_.-]{2,40}=")


def password_shaped(value: str) -> bool:
    """Letters with digits or symbols, mixed case or a symbol: ``Fae4oJckbGnqRq1``, ``cinder83!``; not a path,
    a URL, a call, a version (``dashboard_v2``, ``sha256:...``) or a plain word."""
    value = value.rstrip(".,;:!?")
    if len(value) < 6 or value_is_code(value) or re.search(r"[/:()\\]", value) or _KEY_EQUALS.match(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() and c not in "-_." for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (letters and (digits or symbols) and (mixed or symbols)) or random_letters(value)


_CASE_RUN = re.compile(r"[A-Z]+|[a-z]+")
# Words joined in camel case, an acronym before a word or at the end: HTTPSConnectionPool, JavaScript, PostgreSQL.
# (each word holds a vowel: "Vh" and "Bb" are no words)
_CAMEL_CASE = re.compile(
    r"[a-z]{0,16}(?:[A-Z]{2,6}(?=[A-Z][a-z]{2})|[AEIOUY][a-z]{1,16}|[A-Z](?=[a-z]{0,15}[aeiouy])[a-z]{1,16})*[A-Z]{0,6}"
)


def random_letters(value: str) -> bool:
    """Letters only, the case switching three times or more, not words in camel case: ``FAPLaHmQGI``,
    ``hyixLNupwY``; not ``PostgreSQL``, ``HTTPSConnectionPool``, ``iPhone``."""
    if len(value) < 8 or not value.isascii() or not value.isalpha():
        return False
    return len(_CASE_RUN.findall(value)) >= 4 and not _CAMEL_CASE.fullmatch(value)


def _keep_word(match: re.Match[str]) -> bool:
    return not password_shaped(match.group(1))


def _keep_phrase(match: re.Match[str]) -> bool:
    """One word that looks like a password, or four plain lower-case words or more, one of them with a digit."""
    words = match.group(1).split()
    if len(words) == 1:
        return not password_shaped(words[0])
    if len(words) < 4 or any(w.lower() in _STOP_WORDS for w in words):
        return True
    return not (all(re.fullmatch(r"[a-z0-9-]{2,24}", w) for w in words) and any(c.isdigit() for w in words for c in w))


def _keep_prose_token(match: re.Match[str]) -> bool:
    value = match.group(2)
    if match.group(1).lower().startswith("pass"):
        return not password_shaped(value)
    return not high_entropy(value)


# What may stand right before a password's noun that has no verb: a line's start, punctuation, or a verb of use.
_BEFORE_THE_NOUN = re.compile(
    r"(?i)(?:^|[,;(:—–-][ \t]*|(?<![\w-])(?:use|enter|type|try|with|new|temp|temporary|default|initial|one-time|"
    r"is|here's|here[ \t]+is|heres)[ \t]+(?:(?:the|a|this|my|our)[ \t]+)?|"
    r"(?<![\w-])(?:user(?:name)?|login)[ \t:=]+[\w.@+-]{1,64}[ \t]+)\Z"
)
_BEFORE_APP_PASSWORD = re.compile(r"(?i)(?:(?<![\w-])-p[ \t]+|pass(?:word)?[\"']?[ \t]*[:=][ \t]*)[\"']?\Z")
_PLACE_WORDS = r"(?:[ \t]+(?:for|on|of|to|at)[ \t]+(?:[\w.@-]{1,40}[ \t]+){0,3}?[\w.@-]{1,40})?"
_FOREIGN_NOUNS = (
    r"passwort|kennwort|mot[ \t]de[ \t]passe|contrase[ñn]a|clave|senha|wachtwoord|hasło|haslo|heslo|salasana|"
    r"lösenord|losenord|passord|adgangskode|kodeord|şifre|parol[aeă]|lozinka|geslo|jelsz[óo]|contrasenya|wagwoord|"
    r"пароль|κωδικός|סיסמה|كلمة[ \t]المرور|पासवर्ड|mật[ \t]khẩu|kata[ \t]sandi|パスワード|密码|密碼|비밀번호"
)
# A noun may carry an inflection ("lösenordet", "şifresi", "пароля", "Passworts").
_INFLECTION = r"\w{0,4}"
# a verb (a whole word), a colon or a dash; Chinese, Japanese and Korean join the value without a space
_FOREIGN_VERB_WORDS = r"ist|lautet|est|es|é|e|è|is|to|je|on|är|er|là|adalah|είναι|है"
_FOREIGN_VERBS = rf"(?:(?<=[ \t])(?:{_FOREIGN_VERB_WORDS})[ \t]+|[:：=—][ \t]*|(?:は|是|为|는|은)[ \t]*)"

# The foreign nouns' lines: the rules that read them run only there.
_FOREIGN_WORDS = (
    "passwort",
    "kennwort",
    "de passe",
    "de_passe",
    "contrase",
    "clave",
    "senha",
    "wachtwoord",
    "hasło",
    "haslo",
    "heslo",
    "salasana",
    "senord",
    "passord",
    "adgangskode",
    "kodeord",
    "lozinka",
    "geslo",
    "jelsz",
    "contrasenya",
    "wagwoord",
    "κωδικός",
    "סיסמה",
    "المرور",
    "पासवर्ड",
    "mật khẩu",
    "kata sandi",
    "ifre",
    "parol",
    "пароль",
    "パスワード",
    "密码",
    "密碼",
    "비밀번호",
)
# The English nouns (and French "mdp") as a tree of their letters: the engine rejects a position on its first one.
# (case-blind after a first letter in a class: a case-blind start would make the engine try every position)
_ENGLISH_NOUN = r"[Pp](?i:ass(?:word|wd|phrase|code)?|wd?)|[Cc](?i:red(?:s|entials?))|[Ll](?i:og[ \t-]?in)|[Mm](?i:dp)"
# A few words, a colon or a verb, a user's name maybe ("qa@acme.io:", "admin /"), then the value.
_ENGLISH_WORDS = ("pass", "pw", "cred", "login", "log in", "log-in", "mdp")
_NOUN_VALUE = (
    r"((?:[ \t]+[^\s:=]{1,24}){0,4}?)"
    r"(?:[ \t]*[:=：][ \t]*|[ \t]+(?i:is|are|was|ist|est|es|è|é|er|är|lautet|to)[ \t]*:?[ \t]*)"
    r"(?:[\w.+-]{1,64}(?:@[\w.-]{1,64})?(?:[ \t]*/[ \t]*|:))?" + _WORD_VALUE.replace("{4,128}", "{6,128}")
)
# Words (their start) between the noun and the value that make it something about the password, not the password.
_ABOUT_THE_PASSWORD = re.compile(
    r"(?i)polic|hash|algorithm|algo|length|min|max|reset|manager|field|prompt|rule|format|requirement|strength|"
    r"expir|rotation|hint|type|scheme|salt|encod|encrypt|stor|version|flow|page|url|link|form|file|path|env|"
    r"variable|var|setting|config|option|regex|pattern|complexity|history|character|chars|label|name|length|"
    r"example|sample|placeholder|default|format|prefix|attempt|count|screen|dialog|button|handler|method"
)
# Words on the line that say a credential is meant: "... invalid credentials", "the admin login", "my password".
_CREDENTIAL_ON_THE_LINE = re.compile(r"(?i)pass|pw|credential|creds|login|log in|sign in|secret|account")


def _keep_noun_value(match: re.Match[str]) -> bool:
    at = match.start()
    if at and (match.string[at - 1].isalnum() or match.string[at - 1] in "_-"):
        return True  # inside a word: "bypass", "compass"
    if any(_ABOUT_THE_PASSWORD.match(word) for word in match.group(1).split()):
        return True
    return not password_shaped(match.group(2))


def _keep_reset_value(match: re.Match[str]) -> bool:
    text = match.string
    if match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] in "_-"):
        return True  # inside a word ("upset it to")
    line = text[text.rfind("\n", 0, match.start()) + 1 : (text.find("\n", match.end()) + 1 or len(text) + 1) - 1]
    return _CREDENTIAL_ON_THE_LINE.search(line) is None or not password_shaped(match.group(1))


PROSE: list[Place] = [
    # "login: admin / Pw", "creds are admin / Pw", "credentials for the tenant are ops@acme.dev and Pw"
    Place(
        "prose-password",
        r"(?i)\b(?:log[ \t-]?ins?|creds|credentials?|user(?:name)?[ \t]*/[ \t]*pass(?:word)?|wi-?fi|wlan|vpn)"
        + _PLACE_WORDS
        + r""
        r"(?:[ \t]+(?:is|are|was|were)[ \t]+|[ \t]*[:=-][ \t]*|[ \t]+)[\"'`]?[\w.@+-]{1,64}[\"'`]?"
        r"[ \t]*(?:/|,|[ \t]and)[ \t]*" + _WORD_VALUE,
        1,
        _keep_word,
        line_words=("login", "log in", "log-in", "creds", "credential", "user", "wifi", "wi-fi", "wlan", "vpn"),
    ),
    # "log into the jump host as admin / PW", "sign in to grafana with ops:PW", "ssh in as deploy, PW": a way in, a
    # few words, "as" or "with" a user, then the password after '/', ':', ',' or "and"
    Place(
        "prose-password",
        r"(?i)\b(?:log(?:ged)?[ \t-]?(?:in(?:to)?|on)|sign(?:ed)?[ \t-]?(?:in(?:to)?|on)|ssh(?:[ \t]+in(?:to)?)?|"
        r"connect(?:ed)?|authenticate)(?:[ \t]+[^\s/:]{1,40}){0,6}?[ \t]+(?:as|with)[ \t]+[\"'`]?[\w.@+-]{1,64}[\"'`]?"
        r"(?:[ \t]*[/:,][ \t]*|[ \t]+and[ \t]+(?:password[ \t]+)?)" + _WORD_VALUE,
        1,
        _keep_word,
        line_words=("log", "sign", "ssh", "connect", "authenticate"),
    ),
    # "credentials: admin PW", "login = ops PW": a user then the password after a space, once a colon has opened them
    Place(
        "prose-password",
        r"(?i)\b(?:creds|credentials?|log[ \t-]?ins?)[ \t]*[:=][ \t]*[\"'`]?[\w.@+-]{1,64}[\"'`]?[ \t]+" + _WORD_VALUE,
        1,
        _keep_word,
        line_words=("creds", "credential", "login", "log in", "log-in"),
    ),
    # "API key (prod): KEY", "use this token for the API calls: KEY": a noun, a note or a few words, a colon, a
    # random token (or, after a password's noun, a password-shaped value)
    Place(
        "prose-token",
        r"(?i)\b(api[ \t_-]?key|access[ \t_-]?key|token|secret|pass(?:word|phrase)?)"
        r"(?:[ \t]*\([\w .-]{1,24}\)|[ \t]+(?:for|of|to|on|in)[ \t]+(?:[\w.@-]{1,30}[ \t]+){0,4}?[\w.@-]{1,30})"
        r"[ \t]*:[ \t]*[\"'`]?([A-Za-z0-9_~+/=.*!#$%&@^-]{8,256}?)[\"'`]?(?=[,;.!?)]?(?:\s|$))",
        2,
        _keep_prose_token,
        line_words=("key", "token", "secret", "pass"),
    ),
    # "encrypted, password PW", "use passphrase WORDS when ...": the regex starts at the noun (a tree of its
    # letters, fast to reject); what stands before it (a line's start, punctuation, a verb) is checked by the keep
    Place(
        "prose-password",
        r"(?i)p(?:ass(?:word|wd|phrase|code)?|wd?)[ \t]+"
        # a question's '?' ends the value ("with password PW? the hash ..."); one inside it does not
        r"[\"'`]?((?:[^\s\"'`?]|\?(?=[^\s\"'`])){3,64}(?:[ \t]+[^\s\"'`]{2,64}){0,7}?)[\"'`]?"
        r"(?=[ \t]+(?:when|to|for|if|and|on|at|so|then|because|as|while|before|after|in|or)\b|[,;.!?)]?[ \t]*$|"
        r"[,;!?)]|\.[ \t])",
        1,
        lambda match: (
            not _BEFORE_THE_NOUN.search(match.string, max(0, match.start() - 60), match.start())
            or _keep_phrase(match)
            or (match.group(0)[4:5].isspace() and " " in match.group(1))  # "pass" alone: one word only
        ),
        line_words=("pass", "pw"),
    ),
    # a password's noun, a few words, a colon or a verb, then a password-shaped value (after a user's name, maybe):
    # "root pw on the new box: PW", "the keystore pass is PW", "creds for the test account are qa@acme.io:PW",
    # "the new pwd works: PW", "la password dell'utente admin è PW", "mdp : PW"
    # (no look-behind at the start, so the engine skips to the nouns' first letters: the keep checks the boundary)
    Place("prose-password", rf"(?:{_ENGLISH_NOUN})" + _NOUN_VALUE, 2, _keep_noun_value, line_words=_ENGLISH_WORDS),
    Place("prose-password", rf"(?i)(?:{_FOREIGN_NOUNS})" + _NOUN_VALUE, 2, _keep_noun_value, line_words=_FOREIGN_WORDS),
    # "I reset it to PW but the app still says invalid credentials": a password-shaped value a credential was set to
    Place(
        "prose-password",
        r"(?i)(?:reset|changed?|set|rotated|updated)[ \t]+(?:it|that|this|them|mine)[ \t]+to[ \t]+"
        + _WORD_VALUE.replace("{4,128}", "{8,128}"),
        1,
        _keep_reset_value,
        line_words=(" it to ", " that to ", " this to ", " them to ", " mine to "),
    ),
    # other languages: "das Passwort ist X", "la contraseña es X", "пароль: X"
    Place(
        "prose-password",
        rf"(?i)(?<![\w-])(?:(?:{_FOREIGN_NOUNS}){_INFLECTION}(?:[ \t]+\w{{1,12}}){{0,5}}?(?:[ \t]*{_FOREIGN_VERBS}))"
        + _WORD_VALUE,
        1,
        _keep_word,
        line_words=_FOREIGN_WORDS,
    ),
    # an app password (four groups of four lower-case letters) after -p or a password's name, or "app password"
    Place(
        "app-password",
        r"(?<![\w-])([a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4})(?![\w-])",
        1,
        lambda match: (
            not _BEFORE_APP_PASSWORD.search(match.string, max(0, match.start() - 40), match.start())
            or value_is_code(match.group(1))
        ),
        line_words=("-p ", "-p\t", "pass"),
    ),
    Place(
        "app-password",
        r"(?i)app[ \t_-]?(?:specific[ \t_-])?password[\"']?[ \t]{0,16}[:=]?[ \t]{0,16}[\"']?"
        r"((?-i:[a-z]{4}(?:[ -][a-z]{4}){3}))(?![\w-])",
        1,
        lambda match: value_is_code(match.group(1)),
        line_words=("app password", "app-password", "app_password", "apppassword", "app specific", "app-specific"),
    ),
    # the same groups alone on a line below the words "app password" (as Google's and Apple's pages show them)
    Place(
        "app-password",
        r"(?i)app[ \t_-]?(?:specific[ \t_-]?)?password[^\n]{0,80}\r?\n(?:[ \t]*\r?\n){0,2}[ \t]*"
        r"((?-i:[a-z]{4}(?:[ -][a-z]{4}){3}))[ \t]*$",
        1,
        lambda match: value_is_code(match.group(1)),
        text_words=("app password", "app-password", "app specific", "app-specific"),
    ),
]
