"""Credentials written in prose (issue 36), beside ``kernel.redaction.passphrases`` ("my password is ...").

- **a user and a password side by side**: "grafana login: admin / PW", "creds are admin / PW",
  "the credentials for the test tenant are ops@acme.dev and PW", "u/p: admin/PW", "u: admin p: PW",
  "Zugangsdaten: admin / PW", "identifiants : admin / PW";
- **a noun, a note or a few words, a colon, a token**: "API key (prod): KEY", "the token for CI: KEY",
  "wifi: Guest / PW";
- **a password right after its noun, with no verb**: "encrypted, password PW",
  "use passphrase WORDS when gpg asks" (four words or more, one with a digit);
- **other languages**: "das Passwort ist ...", "le mot de passe est ...", "la contraseña es ...",
  "a senha é ...", "het wachtwoord is ...", "la password è ...", "пароль: ...", "parola este ...",
  "كلمة المرور هي ...", "הסיסמה היא ...", and Chinese, Japanese, Korean and Thai, whose nouns join the words
  before them and whose values end at the next character of those scripts ("数据库密码是 PW，",
  "本番DBのパスワードは PW です", "비밀번호를 PW로", "รหัสผ่านคือ PW"), unless they state a rule ("12文字以上");
  and with no verb at all ("账号 admin 密码 PW", "मेरा पासवर्ड PW है", "пароль от роутера PW");
- **app passwords**: the four groups of four letters Google and Apple give (``-p xxxx-xxxx-xxxx-xxxx``), after
  their name or alone on a line below it;
- **a noun, a few words, a colon or a verb, a value**, in any of those languages: "root pw on the new box: PW",
  "the keystore pass is PW", "creds for the test account are user@host:PW", "mdp : PW", "Password for the zip
  with the customer export: PW", a compound noun ("storepass is PW", "rootpw: PW"), a wifi or network key;
  or a comma or a connective that gives the value after a clause ("the same password as staging, PW, ...",
  "the router password is my dog's name and the year, so PW, all lower case", "the login is admin and it's
  PW"), unless the words between say the value is about the password (policy, hash, length...) or name
  another field ("password for user=ops@example.org"); and "I reset it to PW" on a line that speaks of a
  login or credentials;
- **the value first**: "PW is the password", "use PW as the wifi key", "PW, that's the password", "PW (the wifi
  password)", the noun closing its clause ("X is the password hash" stays);
- **the answer on the line below**: "what's the wifi password?\\nPW", "wifi password:\\nPW".

The value must look like a password (``kernel.redaction.password_shape``: letters, and digits or symbols, in
mixed case or with a symbol; or random letters whose case switches, ``FAPLaHmQGI``), so "password reset flow",
"login page / dashboard_v2" and "PostgreSQL" stay; right after a password's noun and a colon or a verb, or
after a connective, a word then a number will do ("root pw: tulip8"). Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import high_entropy
from kernel.redaction.password_shape import (
    SHAPED_AHEAD,
    WORD_VALUE,
    named_with_a_number,
    password_shaped,
    weak_password_shaped,
)
from kernel.redaction.places import Place
from kernel.redaction.prose_languages import FOREIGN_NOUNS, FOREIGN_WORDS, LANGUAGES, joins_words
from kernel.redaction.values import value_is_code

_STOP_WORDS = frozenset(
    "a an the of to for in on at by with from is are be it this that and or not as if when then so".split()
)


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
    r"is|here's|here[ \t]+is|heres|and|also|plus|btw)[ \t]+(?:(?:the|a|this|my|our)[ \t]+)?|"
    r"(?<![\w-])(?:user(?:name)?|login|wi-?fi|ssid|network)[ \t:=]+[\w.@+-]{1,64}[ \t]+)\Z"
)
_BEFORE_APP_PASSWORD = re.compile(r"(?i)(?:(?<![\w-])-p[ \t]+|pass(?:word)?[\"']?[ \t]*[:=][ \t]*)[\"']?\Z")
_PLACE_WORDS = r"(?:[ \t]+(?:for|on|of|to|at)[ \t]+(?:[\w.@-]{1,40}[ \t]+){0,3}?[\w.@-]{1,40})?"
# The English nouns (and French "mdp") as a tree of their letters: the engine rejects a position on its first one.
# (case-blind after a first letter in a class: a case-blind start would make the engine try every position)
_ENGLISH_NOUN = (
    r"[Pp](?i:ass(?:words?|wds?|phrases?|codes?|w)?|wd?s?|sw|in|/w)|[Cc](?i:red(?:s|entials?))|[Ll](?i:og[ \t-]?in)|"
    r"[Mm](?i:dp)|"
    r"[Ww](?i:i-?fi|lan|pa2?)[ \t]+(?i:key|code)|[Nn](?i:etwork[ \t]+key)"
)
_ENGLISH_WORDS = (
    "pass",
    "p/w",
    "pw",
    "psw",
    "pin",
    "cred",
    "login",
    "log in",
    "log-in",
    "mdp",
    "wifi",
    "wi-fi",
    "wlan",
    "wpa",
    "network key",
)
# Words that give the value after a clause about the password: "..., so biscuit2019", "... and it's marigold77".
_CONNECTIVES = r"so|i\.e\.|ie|namely|aka|that['’]s|that[ \t]+is|it['’]s|it[ \t]+is|which[ \t]+is"
# A few words; a colon, an arrow, a dash, a verb, a comma (after the noun's own words: "the same password as
# staging, PW") or a connective; a user's name maybe ("qa@acme.io:", "admin /"); then the value.
_NOUN_VALUE = (
    r"((?:[ \t]+[^\s:=]{1,24}){0,10}?)"
    r"([ \t]*(?:->|=>|→|は|是|为|는|은)[ \t]*|(?:\*\*|__)?[ \t]*[:=：](?:\*\*|__)?[ \t]*|[ \t]+[-–—][ \t]+|['’]s[ \t]+|"
    r"[ \t]+(?i:is|are|was|be|been|ist|est|es|è|é|er|är|lautet|to)(?![\w-])"
    r"(?:[ \t]+(?i:now|just|literally|still|simply|actually|currently|always))?[ \t]*:?[ \t]*|"
    rf",[ \t]+{SHAPED_AHEAD}|,?[ \t]+(?i:{_CONNECTIVES})[ \t]+{SHAPED_AHEAD})"
    r"(?:[\w.+-]{1,64}(?:@[\w.-]{1,64})?(?:[ \t]*/[ \t]*|:))?" + WORD_VALUE.replace("{4,128}", "{6,128}")
)
# Words (their start) between the noun and the value that make it something about the password, not the password.
_ABOUT_THE_PASSWORD = re.compile(
    r"(?i)polic|hash|algorithm|algo|length|min|max|reset|manager|field|prompt|rule|format|requirement|strength|"
    r"expir|rotation|hint|type|scheme|salt|encod|encrypt|stor|version|flow|page|url|link|form|file|path|env|"
    r"variable|var|setting|config|option|regex|pattern|complexity|history|character|chars|label|name|length|"
    r"example|sample|placeholder|default|format|prefix|attempt|count|screen|dialog|button|handler|method"
)
# The same after the verb ("the password is hashed, so ...", "the pw is too short, i.e. ..."): a name may be what
# the password is made of ("my dog's name and the year, so ...").
_ABOUT_IN_THE_PREDICATE = re.compile(
    r"(?i)polic|hash|algorithm|length|long|short|min|max|reset|manag|field|prompt|rule|format|requir|strength|"
    r"expir|rotat|hint|salt|encod|encrypt|stor|complex|charact|chars|digit|letter|symbol|weak|strong|wrong|invalid|"
    r"incorrect|example|e\.g|sample|placeholder|pattern|regex|generat"
)
_SET = re.compile(r"(?i)(?:re)?set|chang|updat|rotat")
# The words that end a noun's phrase and open what is said of it.
_VERB_WORDS = frozenset("is are was were and but has had have will should must would can".split())
# After a comma or a connective the value closes its clause: "..., so biscuit2019, all lower case", "and it's
# marigold77 but with a capital M"; not "so user42 retried".
_CLAUSE_END = re.compile(
    r"[ \t]*(?:[,;.!?)(—–-]|$|(?:but|and|though|although|all|if|for|without|with|from|on|in|at|now|again|too|or)\b)"
)
# The words that say whose password a comma then gives: "the same password as staging, PW", "the root password on
# the NAS, PW".
_WHOSE = frozenset("as for on of from to in at with".split())
# What a name before '=' holds when it is not the password: "for user=ops@example.org", "login ok uid=alice7".
_OTHER_FIELDS = frozenset("user username usr email mail login uid id account host ip addr address name from to".split())
# A password's noun at the end of a word of its own: storepass, keypass, rootpw, adminpassword, dbpasswd.
_COMPOUND_PREFIX = re.compile(
    r"(?i)(?<![\w-])(?:store|key|root|admin|db|master|bind|sudo|vnc|smtp|ftp|ssh|mysql|redis|ldap|mail|wifi|app|"
    r"user|my|sys|svc|vpn|default|initial|temp|new|old)\Z"
)
_BARE_PASS = re.compile(r"(?i)(?:pass|pin)(?![\w-])")  # a verb, a pin in a map or a version
_NOT_A_PASSWORD_NOUN = re.compile(r"(?i)cred|log")  # a login or credentials: a user's name may follow them


# Words on the line that say a credential is meant: "... invalid credentials", "the admin login", "my password".
_CREDENTIAL_ON_THE_LINE = re.compile(r"(?i)pass|pw|credential|creds|login|log in|sign in|secret|account")


def _inside_a_word(match: re.Match[str]) -> bool:
    """The noun is the end of another word ("bypass", "compass"), not of a compound (``storepass``) nor after a
    CJK word ("数据库密码")."""
    text, at = match.string, match.start()
    if not at or not (text[at - 1].isalnum() or text[at - 1] in "_-"):
        return False
    if joins_words(text[at]) or joins_words(text[at - 1]):
        return False  # "数据库密码", "DBのPWは"
    return _COMPOUND_PREFIX.search(text, max(0, at - 12), at) is None


def _keep_noun_value(match: re.Match[str]) -> bool:
    if _inside_a_word(match):
        return True
    words = match.group(1).split()
    if any(word[-1] in ".!?" or "\\n" in word for word in words):
        return True  # the value is in another sentence, or on another line ("...\\nsuffix dc=..." in a repr)
    if words and words[-1][:1] in "[{" and not any(c in words[-1] for c in "]}"):
        return True  # "Login failed [user: admin] [Source: ...]": a field opened after the noun takes the colon
    verb_at = next((n for n, word in enumerate(words) if word.lower() in _VERB_WORDS), len(words))
    if any(_ABOUT_THE_PASSWORD.match(word) for word in words[:verb_at]):
        return True
    set_to = match.group(2).strip().lower() == "to"  # "has been reset to X": what the password now is
    if any(_ABOUT_IN_THE_PREDICATE.match(word) and not (set_to and _SET.match(word)) for word in words[verb_at:]):
        return True
    raw = match.group(2).strip(" \t*_")  # "**Password:** PW": the emphasis aside
    separator, value = raw.strip(":：,").strip().lower(), match.group(3)
    if words and (match.group(2).startswith("=") or (separator == "=" and words[-1].lower() in _OTHER_FIELDS)):
        return True  # "password for user=ops@example.org", "... dc=example": the value is the last word's
    if separator in ("'s", "’s") and (words or _NOT_A_PASSWORD_NOUN.match(match.group(0))):
        return True  # "a server's configuration**:", "the credential's constructor": no password's "is"
    connective = re.fullmatch(_CONNECTIVES, separator) is not None
    if _BARE_PASS.match(match.group(0)) and not re.fullmatch(r"(?i)[:=：]|(?:is|are|was)[ \t]*:?", raw):
        return True  # "forward pass through Conv1d, BatchNorm1d", "pin it to Python3.11": mostly verbs
    if (raw == "," or connective) and (not words or not _CLAUSE_END.match(match.string, match.end())):
        return True  # "password, Token-2 and API keys": a list; "so user42 retried": no clause of its own
    if raw == "," and not any(word.lower() in _WHOSE for word in words):
        return True  # "the password as staging, PW": the words say whose; "password grants, OAuth2-style": a list
    if named_with_a_number(value):
        return True  # "login with GitHub, i.e. OAuth2.", "the password is hashed by python3"
    # a word then a number is a password after a password's noun and a colon or a verb, or after a connective
    set_to = set_to and any(_SET.match(word) for word in words[verb_at:])
    strict = raw == "," or (separator == "to" and not set_to) or _NOT_A_PASSWORD_NOUN.match(match.group(0)) is not None
    return not (weak_password_shaped(value) if connective or not strict else password_shaped(value))


# The value before its noun: "Gravel#Moon8 is the password", "use hunter22 as the wifi key", the noun closing the
# clause ("is the password hash", "as the password manager" stay).
_VALUE_BEFORE_THE_NOUN = (
    r"(?i)(?<![^\s\"'`(])[\"'`]?([^\s\"'`]{6,64}?)[\"'`]?"
    r"(?:[ \t]+(?i:is|was|as|for)[ \t]+|,?[ \t]+(?i:that['’]s|that[ \t]+is|which[ \t]+is)[ \t]+|"
    r"(?:[ \t]+(?i:btw|fyi|by[ \t]+the[ \t]+way))?[ \t]+\([ \t]*)"
    r"(?i:(?:the|my|our|your|his|her|their|its|a|new)[ \t]+)?(?:[\w-]{1,20}[ \t]+){0,3}?"
    r"(?i:pass(?:word|wd|phrase|code)?|pwd?|wi-?fi[ \t]+key|network[ \t]+key)"
    r"(?=[ \t]*(?:[,;.!?)]|$|(?i:for|to|on|of|at|in|here|there|now|too|again|then|btw|right|and|but)\b))"
)


def _keep_value_before(match: re.Match[str]) -> bool:
    return not weak_password_shaped(match.group(1))


def _keep_answer(match: re.Match[str]) -> bool:
    """The line below a question or a label about a password holds one token: a password's shape ("hunter22" will
    do), not a masked or a named value, and the noun is no part of a word ("bypass:")."""
    if _ASKS_WHAT_FOR.search(match.group(0).split("\n", 1)[0]):
        return True  # "what is the password for?": a use, not a password
    return _inside_a_word(match) or not weak_password_shaped(match.group(1))


_ASKS_WHAT_FOR = re.compile(r"(?i)(?<![\w-])(?:for|to|of|about|with|from|used|needed|required)[ \t]*[?:：][ \t]*\Z")


def _keep_a_number(match: re.Match[str]) -> bool:
    """A code's number, not a year ("PIN since 2019") nor a count of tries before it ("PIN entry failed 3 times")."""
    value = match.group(1)
    return (len(set(value)) == 1 and len(value) > 6) or (len(value) == 4 and value.startswith(("19", "20")))


def _keep_reset_value(match: re.Match[str]) -> bool:
    text = match.string
    if match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] in "_-"):
        return True  # inside a word ("upset it to")
    line = text[text.rfind("\n", 0, match.start()) + 1 : (text.find("\n", match.end()) + 1 or len(text) + 1) - 1]
    return _CREDENTIAL_ON_THE_LINE.search(line) is None or not password_shaped(match.group(1))


# The lines the user-and-password rule reads: its nouns, in English and in other languages.
_CREDENTIAL_WORDS: tuple[str, ...] = ("login", "log in", "log-in", "creds", "credential", "user", "wifi", "wi-fi")
_CREDENTIAL_WORDS += ("wlan", "vpn", "u/p", "daten", "identifiants", "credencia", "credenzia", "gegevens", "logowania")
_CREDENTIAL_WORDS += ("данные", "доступ")

PROSE: list[Place] = [
    # "login: admin / Pw", "creds are admin / Pw", "credentials for the tenant are ops@acme.dev and Pw"
    Place(
        "prose-password",
        r"(?i)\b(?:log[ \t-]?ins?|creds|credentials?|user(?:name)?[ \t]*/[ \t]*pass(?:word)?|u/pw?|wi-?fi|wlan|vpn|"
        # ... and in other languages
        r"zugangsdaten|anmeldedaten|identifiants|credenciales|credenziali|credenciais|inloggegevens|"
        r"dane[ \t]logowania|учетные[ \t]данные|доступы?)" + _PLACE_WORDS + r""
        r"(?:[ \t]+(?:is|are|was|were)[ \t]+|[ \t]*[:=-][ \t]*|[ \t]+)[\"'`]?[\w.@+-]{1,64}[\"'`]?"
        r"[ \t]*(?:/|,|[ \t]and)[ \t]*" + WORD_VALUE,
        1,
        _keep_word,
        line_words=_CREDENTIAL_WORDS,
    ),
    # "log into the jump host as admin / PW", "sign in to grafana with ops:PW", "ssh in as deploy, PW": a way in, a
    # few words, "as" or "with" a user, then the password after '/', ':', ',' or "and"
    Place(
        "prose-password",
        r"(?i)\b(?:log(?:ged)?[ \t-]?(?:in(?:to)?|on)|sign(?:ed)?[ \t-]?(?:in(?:to)?|on)|ssh(?:[ \t]+in(?:to)?)?|"
        r"connect(?:ed)?|authenticate)(?:[ \t]+[^\s/:]{1,40}){0,6}?[ \t]+(?:as|with)[ \t]+[\"'`]?[\w.@+-]{1,64}[\"'`]?"
        r"(?:[ \t]*[/:,][ \t]*|[ \t]+and[ \t]+(?:password[ \t]+)?)" + WORD_VALUE,
        1,
        _keep_word,
        line_words=("log", "sign", "ssh", "connect", "authenticate"),
    ),
    # "credentials: admin PW", "login = ops PW": a user then the password after a space, once a colon has opened them
    Place(
        "prose-password",
        r"(?i)\b(?:creds|credentials?|log[ \t-]?ins?)[ \t]*[:=][ \t]*[\"'`]?[\w.@+-]{1,64}[\"'`]?[ \t]+" + WORD_VALUE,
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
        # a question's '?' ends the value ("with password PW? the hash ..."), and a bracket's ')' ("(password PW)");
        # one inside it does not
        r"[\"'`]?((?:[^\s\"'`?)]|[?)](?=[^\s\"'`])){3,64}(?:[ \t]+[^\s\"'`]{2,64}){0,7}?)[\"'`]?"
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
    Place("prose-password", rf"(?:{_ENGLISH_NOUN})" + _NOUN_VALUE, 3, _keep_noun_value, line_words=_ENGLISH_WORDS),
    Place("prose-password", rf"(?i)(?:{FOREIGN_NOUNS})" + _NOUN_VALUE, 3, _keep_noun_value, line_words=FOREIGN_WORDS),
    # "I reset it to PW but the app still says invalid credentials": a password-shaped value a credential was set to
    Place(
        "prose-password",
        r"(?i)(?:reset|changed?|set|rotated|updated)[ \t]+(?:it|that|this|them|mine)[ \t]+to[ \t]+"
        + WORD_VALUE.replace("{4,128}", "{8,128}"),
        1,
        _keep_reset_value,
        line_words=(" it to ", " that to ", " this to ", " them to ", " mine to "),
    ),
    *LANGUAGES,
    # a question or a label about a password that ends its line, the value alone on the line below (a chat's reply,
    # a note): "what's the wifi password?\nPW", "> root pw?\n\nit's PW", "wifi password:\nPW"
    Place(
        "prose-password",
        r"(?im)(?:pass(?:words?|wd|phrase|code)?|pwd?|wi-?fi[ \t]+key|network[ \t]+key)[^\n?:：]{0,40}[?:：][ \t]*\r?\n"
        r"(?:[ \t]*>?[ \t]*\r?\n){0,2}[ \t]*>?[ \t]*(?:it['’]?s[ \t]+)?[\"'`]?([^\s\"'`]{6,64}?)[\"'`]?[.!]?[ \t]*$",
        1,
        _keep_answer,
        text_words=("pass", "pw", "wifi key", "wi-fi key", "network key"),
    ),
    # "u: admin p: PW", "user=ops pw=PW": a user's name then a password's letter or noun
    Place(
        "prose-password",
        r"(?i)(?<![\w-])(?:u|usr|user(?:name)?|login)[ \t]*[:=][ \t]*[\w.@+-]{1,64}[,;]?[ \t]+"
        r"(?:p|pw|pwd|pass(?:word)?)[ \t]*[:=][ \t]*" + WORD_VALUE,
        1,
        lambda match: not weak_password_shaped(match.group(1)),
        line_words=("u:", "u=", "usr", "user", "login"),
    ),
    # a number that opens something, after its noun and a colon or a verb: "PIN: 4829", "the door code is 4417",
    # "SIM PIN is 1234, PUK 87654321", "the alarm code for the office is 9921" (not a year, a version or a count;
    # "pin" alone takes no value after a space: "GPIO pin 1234" is a chip's)
    Place(
        "prose-password",
        r"(?i)(?<![\w-])(?:(?:sim[ \t])?pin(?:[ \t]?code)?|passcode|puk|"
        r"(?:door|alarm|gate|lock|unlock|safe|entry)[ \t]code)"
        r"(?:[ \t]+(?:for|of|to|on|at)[ \t]+(?:[\w-]{1,20}[ \t]+){0,3}?[\w-]{1,20})?"
        r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|was|are)[ \t]+(?:now[ \t]+)?|(?<!pin)[ \t]+)"
        r"[\"'`]?(\d{4,12})[\"'`]?(?![\w/:%-]|[.,]\d)",
        1,
        _keep_a_number,
        line_words=("pin", "passcode", "puk", " code"),
    ),
    # "Gravel#Moon8 is the password", "use hunter22 as the wifi key"
    Place(
        "prose-password",
        _VALUE_BEFORE_THE_NOUN,
        1,
        _keep_value_before,
        line_words=("pass", "pw", "wifi key", "wi-fi key", "network key"),
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
