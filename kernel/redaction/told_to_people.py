"""A secret told to a person (issue 36): the ways people give each other a password in chat, email, notes,
minutes, tickets and handover docs, where no key names it and the prose rules' nouns are missing or misspelt.

- **a misspelt or shortened password noun**: "pasword for the test env is PW", "passwrod: PW", "pswd 4 the gym
  app → PW", "pss for staging iz PW";
- **an account's user then its password**: "netflix: dad@home.net / PW", "router: admin / PW", "jenkins
  admin/PW", "| Postman | team@co.com / PW |", "**Canva**: team@co.io — `PW`", "iCloud: gabi@icloud.com PW",
  "Hulu<TAB>kim.family<TAB>PW", "Netflix,dad@home.net,PW", "user acmeco, pass PW", "the login for the printer is
  admin, password PW"; a line that is a user (an address, admin, "user: X", quoted or a list's item) and the
  password alone on the next line;
- **an account's or a device's name then a value**: "router: PW", "kid's switch → PW", "Insta - PW",
  "1) VPN: PW", "| NAS | PW |", "facebook    PW", "hbo max is PW";
- **a wifi network's key or code**, its network named on the line or the line above: "Network is Garden,
  code PW", "Staff wifi: Acme, key PW", "WLAN: Home\\nSchlüssel: PW", "le code wifi c'est PW";
- **a value handed over in a sentence about it**: "sorry, it's PW not ...", "*edit*: it's PW now", "new one:
  PW", "Try PW (no spaces)", "Just use PW on the tablet", "log in as kevin with PW", "reset to PW", "full
  thing is PW", "capital T: PW", "same as always: PW", "here you go, PW, good luck", "~~old~~ PW", "correction:
  PW (not PX)", "the usual one but X rather than Y: PW", a value in brackets or quotes in a thread about logging
  in ("I logged in (PW)", 'you said "PW" but'), a password's noun then its value in brackets;
- **a compound noun joined by a hyphen**: "Root-Passwort für den Server ist PW", "the db-password was PW";
- **a value, then the accounts it opens**: "for everyone: PW (Disney, Netflix, Prime all the same)";
- **a password's part**: "the same as the wifi but with PART at the end", "street name + number + PART", and a
  password given in two parts on two lines ("first 6: PART\nrest: PART");
- **a generated token alone**: between tabs or alone on a line (mixed case, digits, no words), or wrapped in a
  key, lock, see-no-evil or hush emoji.

The value must look like a password (``kernel.redaction.password_shape``), and a word then a number only where a
noun or an account says a password follows; so "use Python3", "router: TP-Link AX50", "Network is down, code
review at 3", "reset to Factory2 defaults", "a fantasy password (...)" stay. Numeric codes and PINs are
``kernel.redaction.access_codes``'. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import mostly_words
from kernel.redaction.password_shape import named_with_a_number, password_shaped, weak_password_shaped
from kernel.redaction.places import Place
from kernel.redaction.values import looks_random, value_is_code

# The end of a value: a space, a line's end, closing punctuation, a table's bar, an emoji or a dash.
_END = r"(?=[,;.!?)\]]*(?:[ \t]|$|\||<|[^\x00-\x7f]))"
# A value ahead holds a digit or a symbol (so "just copy X" is not read as the value "copy").
_SHAPED = r"(?=[\"'`]?[^\s\"'`]{0,63}[\d!@#$%^&*+=~?_])"
_VALUE = r"[\"'`]?([^\s\"'`|<>]{4,64}?)[\"'`]?" + _END

# Misspelt or shortened nouns of a password (the right spellings are the prose rules').
_TYPO_NOUN = (
    r"pas+w(?:rod|ro|od|rd|d)s?|pas+owrd|paswrd|pasword|pas{3,}word|pssw(?:or)?d|psw(?:r)?d|pss|pword|p/w|passw"
)
_GIVES = r"(?:[ \t]*(?:[:=]|->|→|=>)|[ \t]+(?:is|iz|was|will[ \t]+be|=))"


def told_value(value: str) -> bool:
    """A value a person gives as a password after its noun: ``weak_password_shaped``, or letters and digits of 8
    or more that read as no word (``m4rmaladetoast``, ``1qaz2wsx3edc``); not a name with a number, not code, not
    a password manager's name (1Password)."""
    value = value.rstrip(".,;:!?")
    if value_is_code(value) or named_with_a_number(value) or _NOT_A_VALUE.match(value):
        return False
    if weak_password_shaped(value):
        return True
    letters, digits = any(c.isalpha() for c in value), any(c.isdigit() for c in value)
    if re.fullmatch(r"[0-9a-f]{8,64}|[0-9A-F]{8,64}", value):
        return False  # a hash, a hex id, a backup code
    return len(value) >= 8 and letters and digits and value.isalnum() and looks_random(value)


# A setting (ip=10.0.0.1, Id=user;...), a keyboard's keys (Ctrl+Alt+Del), a password manager, a user's address.
_NOT_A_VALUE = re.compile(
    r"(?i)[a-z_][\w.-]{0,40}=|(?:ctrl|alt|shift|cmd|win|fn|super|option)\+|1password|[\w.+-]{1,64}@[\w.-]{1,255}\Z|[a-z]{2,20}-\d{1,6}\Z|"
    r"[a-z]{2,20}\d{1,3}(?:\.\d{1,4}){1,3}\Z|(?:base|sha|utf|md|ipv|http|oauth)\d{1,3}"
)


def _keep_weak(match: re.Match[str]) -> bool:
    return not told_value(match.group(1))


# Where a login is written down: users that are no person's name, and an email address.
_LOGIN_WORDS = r"admin|administrator|root|editor|user|guest|pi|ubnt|operator|sa|postgres|elastic|support|service"
_EMAIL = r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){0,6}\.[A-Za-z]{2,24}"


def _keep_user_value(match: re.Match[str]) -> bool:
    value = match.group(1)
    if not told_value(value):
        return True
    between = match.string[match.start() : match.start(1)]
    if re.search(r"\w/[\"'`]?\Z", between):
        return not password_shaped(value)  # admin/Ke7xCypyT, not a path's admin/users2
    if re.search(r"[/|\t–—-]|</t[dh]>", between):
        return False
    if re.search(r"@[^,;]{1,255}[,;]\Z", between):
        if between[-1] in value:
            return True  # the row's next cell, not the end of a value
        return not (_generated(value) or any(not c.isalnum() and c not in "-_." for c in value))  # a CSV row
    if "@" in between:
        return not password_shaped(value)  # an address, a space, then a password: not "bob@acme.com tomorrow2"
    return not (password_shaped(value) and looks_random(value) and any(c.isdigit() for c in value))


# Accounts, services and devices people share a password for.
_ACCOUNTS = (
    r"netflix|hulu|disney\+?|hbo(?:[ \t]+max)?|max|prime(?:[ \t]+video)?|amazon|spotify|peacock|paramount\+?|"
    r"apple[ \t]+tv|youtube|crunchyroll|icloud|apple[ \t]+id|gmail|outlook|hotmail|yahoo|facebook|fb|insta(?:gram)?|"
    r"tiktok|twitter|snapchat|snap|linkedin|reddit|discord|steam|xbox|playstation|psn|ps5|switch|nintendo|"
    r"ipad|iphone|tablet|laptop|pc|computer|kindle|router|modem|nas|synology|vpn|printer|camera|"
    r"nest|ring|paypal|ebay|bank|canva|figma|notion|jira|confluence|wiki|grafana|kibana|jenkins|gitlab|zoom|"
    r"slack|dropbox|admin|root|account|sharepoint"
)
# The accounts' names as plain words, the lines those rules run on.
_ACCOUNT_WORDS = tuple(sorted({re.sub(r"\\.|[(\[?].*", "", name) for name in _ACCOUNTS.split("|")}))
# The start of a line: quoted (> ), then a list's bullet, maybe.
_LINE_HEAD = r"[ \t]*(?:>[ \t]?){0,4}(?:[-*•][ \t]+)?"
_LIST_HEAD = r"^[ \t]*(?:>[ \t]?){0,4}(?:[-*•+][ \t]+|\d{1,2}[.)][ \t]*|\|[ \t]*)?(?:\*\*|__)?"
_OWNER = (
    r"(?:(?:for[ \t]+)?(?:the|my|our|your|his|her|their|mum['’]?s|mom['’]?s|dad['’]?s|kids?['’]?s?|kids['’])[ \t]+)?"
)
_LABEL_ENDS = r"(?:\*\*|__)?(?:[ \t]*(?::|->|→|=>|–|—|-|\|)|\t|[ \t]{3,})[ \t]*"


def _keep_account_value(match: re.Match[str]) -> bool:
    return not told_value(match.group(1)) or _names_a_thing(match)


# A network named on the line or on the line above a key or a code.
_NETWORK = re.compile(r"(?i)wi-?fi|wlan|ssid|network|netzwerk|réseau|reseau|red[ \t]|rede[ \t]|livebox|fritz|hotspot")
_NETWORK_KEY = (
    r"key|code|codice|código|codigo|pass|schlüssel|schluessel|clé|cle|clave|chave|sleutel|nøkkel|nyckel|klucz|kod"
)


def _keep_network_key(match: re.Match[str]) -> bool:
    text, at = match.string, match.start()
    line_start = text.rfind("\n", 0, at) + 1
    above = text.rfind("\n", 0, max(0, line_start - 1)) + 1
    if not _NETWORK.search(text, above, match.end()):
        return True
    value = match.group(1)
    if value_is_code(value) or named_with_a_number(value):
        return True
    if weak_password_shaped(value) or (looks_random(value) and any(c.isdigit() for c in value) and len(value) >= 10):
        return False
    return not re.fullmatch(r"[a-z]{3,16}(?:-[a-z]{3,16}){1,5}(?:-\d{1,4})?", value)  # lemonade-sprinkler


# A sentence that hands a value over: a correction, an instruction, a reply.
_HANDS_OVER = (
    r"(?:it['’]s|it[ \t]+is|try|tried(?:[ \t]+like)?|use|using|just[ \t]+use|type|(?:type|key|punch)[ \t]+in|"
    r"enter|copy|paste|correction[ \t]*:|should[ \t]+be|"
    r"(?:log(?:ged|ging)?|sign(?:ed|ing)?)[ \t]*in[^\n]{0,40}?[ \t]with|"
    r"reset[ \t]+(?:it[ \t]+)?to|changed[ \t]+(?:it[ \t]+)?to|now|new(?:[ \t]+one)?[ \t]*:|"
    r"full[ \t]+(?:thing|one|password|pw)[ \t]+is|here[ \t]+you[ \t]+go,|as[ \t]+always[ \t]*:|"
    r"capital[ \t]+[A-Za-z][ \t]*:|one[ \t]*:|just|literally|"
    r"(?:instead[ \t]+of|rather[ \t]+than)[ \t]+[\w'’-]{1,30}[ \t]*:)"
)
_HANDS_OVER_WORDS = (
    "it",
    "try",
    "tried",
    "use",
    "type",
    "key",
    "punch",
    "enter",
    "copy",
    "paste",
    "correction",
    "should",
    "log",
    "sign",
    "reset",
    "changed",
    "now",
    "new",
    "full",
    "here you go",
    "always",
    "capital",
    "one",
    "just",
    "literally",
    "instead",
    "rather",
)
# A thread about logging in: the value is a password, not a name in a sentence about code.
_ABOUT_LOGGING_IN = re.compile(
    r"(?i)pass|pw|login|log(?:ged)?[ \t]+in|sign(?:ed)?[ \t]+in|account|creds|credential|wifi|wi-fi|works|worked|"
    r"typo|actually|nvm|never[ \t]+mind|oops|correction|reset|locked|unlock|2fa|same[ \t]+as|tablet|ipad|laptop|"
    r"netflix|router|enjoy|good[ \t]+luck|email|"
    r"caps|capital|lower[ \t-]?case|upper[ \t-]?case|no[ \t]+spaces|last[ \t]+char|missing|usual|old[ \t]*:|expired|"
    r"work(?:s|ed)?\b|doesn['’]t[ \t]+work"
)


def _every_class(value: str) -> bool:
    """Upper and lower case, a digit and a symbol: no word of a sentence (MeerkatMob_19, Kev1n!Home)."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and any(not c.isalnum() for c in value.rstrip(".,;:!?"))
    )


# A noun after the value that says it names a thing: "reset to Factory2 defaults", "Premium2024 plan".
_THING_AFTER = re.compile(
    r"[\"'`”)]?[ \t]+(?:(?:is|was)[ \t]+(?:the|a|an|our|their)[ \t]+(?:[\w-]{1,20}[ \t]+)?)?"
    r"(?:defaults?|settings?|mode|model|plan|tier|version|release|edition|series|theme|template|branch|name|"
    r"build|image|package|library|framework|module|class|driver|firmware|update|profile|account)\b",
    re.IGNORECASE,
)


def _names_a_thing(match: re.Match[str]) -> bool:
    return _THING_AFTER.match(match.string, match.end(1), match.end(1) + 40) is not None


def _keep_handed_over(match: re.Match[str]) -> bool:
    value = match.group(1)
    if value_is_code(value) or named_with_a_number(value) or _NOT_A_VALUE.match(value) or _names_a_thing(match):
        return True
    labelled = ":" in match.group(0)[: match.start(1) - match.start()]
    if not (password_shaped(value) or (labelled and told_value(value)) or _caps_and_digits(value)):
        return True
    said = match.group(0)[: match.start(1) - match.start()].lower()
    if re.search(r"(?:one|new)[ \t]*:", said) and told_value(value) and len(value) >= 10 and value.lower() == value:
        return False  # "the keyboard walk one: PW", "new: PW": it names which password follows
    if _every_class(value) or _generated(value) or _corrected(match):
        return False
    return not _ABOUT_LOGGING_IN.search(match.string)


def _generated(value: str) -> bool:
    """Mixed case and digits of 10 or more that read as no words (R2dQ8vXk7LmPz, not Base64Url)."""
    return (
        len(value) >= 10
        and any(c.isdigit() for c in value)
        and password_shaped(value)
        and not mostly_words(value)
        and not _WORDS_JOINED.fullmatch(value)
        and not _WORDS_THEN_NUMBER.fullmatch(value)
    )


def _corrected(match: re.Match[str]) -> bool:
    """ "it's Pelican42 not Pelican24": the value, then the wrong one it corrects (the same start)."""
    after = match.string[match.end(1) : match.end(1) + 80]
    wrong = re.match(r"[\"'`]?[ \t]*[(,]?[ \t]*not[ \t]+[\"'`]?([^\s,;)\"'`]{4,64})", after)
    return wrong is not None and wrong.group(1)[:4].lower() == match.group(1)[:4].lower()


_ABOUT_THIS_LOGIN = re.compile(
    r"(?i)pass|pw|log(?:ged|ging)?[ \t]*in|sign(?:ed|ing)?[ \t]*in|login|creds|you[ \t]+said|"
    r"(?:doesn|didn)['’]t[ \t]+work"
)


def _keep_bracketed(match: re.Match[str]) -> bool:
    value = match.group(1)
    if value_is_code(value) or named_with_a_number(value) or _NOT_A_VALUE.match(value) or not password_shaped(value):
        return True
    if _names_a_thing(match) or re.search(r"%[0-9A-Fa-f]{2}", value):
        return True  # URL-encoded: SM%3Adev
    if _MADE_UP.search(match.string, max(0, match.start() - 40), match.start()):
        return True
    if not (any(not c.isalnum() for c in value) or _generated(value)):
        return True  # words and a number in brackets: (SessionId42) is a name
    return not (any(c.isdigit() for c in value) and _ABOUT_THIS_LOGIN.search(match.string))


# "a fantasy password (...)", "a dummy password: ...": a made-up password is no secret
_MADE_UP = re.compile(
    r"(?i)(?:fantasy|fake|dummy|example|sample|made[ -]up|random|any|test)[ \t]+(?:[\w-]{1,20}[ \t]*)?\Z"
)


def _keep_bracketed_after_noun(match: re.Match[str]) -> bool:
    return _keep_weak(match) or bool(_MADE_UP.search(match.string, max(0, match.start() - 20), match.start()))


def _keep_a_part(match: re.Match[str]) -> bool:
    """Keep a part that is a plain word or number; a part with a symbol and a letter is a password's."""
    value = match.group(1)
    symbol = any(not c.isalnum() for c in value)
    return not (symbol and any(c.isalpha() for c in value)) or not re.search(
        r"(?i)pass|pw|same[ \t]+as|usual|code|pin|login", match.string
    )


# "first 6:", "first half:", then "rest:", "last 4 chars:", "second part:"
_FIRST_PART = (
    r"(?im)^[ \t]*(?:first|1st)[ \t]+(?:\d{1,2}|half|part|bit)(?:[ \t]+(?:chars?|characters?|letters?))?[ \t]*:[ \t]*"
)
_REST_PART = (
    r"[ \t]*(?:rest|the[ \t]+rest|(?:second|2nd|other)[ \t]+(?:half|part|bit)|last[ \t]+\d{1,2}"
    r"(?:[ \t]+(?:chars?|characters?|letters?))?)[ \t]*:[ \t]*"
)


def _keep_a_half(match: re.Match[str]) -> bool:
    value = match.group(1)
    return not (any(c.isalpha() for c in value) and any(not c.isalpha() for c in value)) or value_is_code(value)


def _caps_and_digits(value: str) -> bool:
    """Capitals and digits, of 8 or more (ATTICBATS2): a password only where the text is about one."""
    letters = sum(c.isalpha() for c in value)
    return len(value) >= 8 and value.isalnum() and value.isupper() and len(value) - letters in range(1, letters + 1)


_WORDS_THEN_NUMBER = re.compile(r"(?:[A-Z]?[a-z]{1,16}|[A-Z]{2,8}){1,4}\d{1,8}")
_WORDS_JOINED = re.compile(r"(?:[A-Z]?[a-z]+|[A-Z]+|\d+)(?:[-_.](?:[A-Z]?[a-z]+|[A-Z]+|\d+)){1,6}")
# The emoji people wrap a password in: a key, a lock, the monkey that sees no evil, a finger on the lips.
_SECRET_EMOJI = frozenset("\U0001f511\U0001f510\U0001f512\U0001f513\U0001f648\U0001f92b\U0001f5dd\U0001f92d")


def _keep_alone(match: re.Match[str]) -> bool:
    """Keep a token alone on its line (or between tabs) unless it reads as generated: mixed case, digits, no
    words (dupSWYiWCf9wRH, not Auth-Service2); between the same emoji, a password of words and a number will do."""
    value, text = match.group(1), match.string
    if len(value) > 24 or value.endswith("=") or _NOT_A_VALUE.match(value) or value_is_code(value):
        return True
    if text.strip() == value:
        return True  # the whole text: a field's value (a name, a tag, a model's id), not a line of a conversation
    if "-----BEGIN" in text or "base64" in text.lower() or not password_shaped(value):
        return True
    before, after = text[match.start() : match.start(1)].strip(), text[match.end(1) : match.end(1) + 2].strip()
    if before in _SECRET_EMOJI and after[:1] == before:
        return not told_value(value)
    if mostly_words(value) or _WORDS_JOINED.fullmatch(value) or _WORDS_THEN_NUMBER.fullmatch(value):
        return True
    if not looks_random(value):
        return True
    letters = sum(c.isalpha() for c in value)
    return not (any(c.isdigit() for c in value) and letters >= 4 and len(value) >= 10)


TOLD: list[Place] = [
    # "pasword for the tset env is PW", "passwrod: PW", "pswd 4 the gym app → PW", "pss for staging iz PW"
    Place(
        "told-password",
        rf"(?i)(?<![\w/-])(?:{_TYPO_NOUN})(?:[ \t]+[\w'’.+-]{{1,24}}){{0,5}}?{_GIVES}[ \t]*{_VALUE}",
        1,
        _keep_weak,
        line_words=("pas", "psw", "pss", "pword", "p/w"),
    ),
    # "netflix: dad@home.net / PW", "- router: admin / PW", "jenkins admin/PW", "Canva: team@co.io — `PW`"
    Place(
        "told-password",
        rf"(?i)(?<![\w@./-])(?:{_EMAIL}[,;]|{_EMAIL}|(?:{_LOGIN_WORDS}))(?:[ \t]*/[ \t]*|(?<=[,;])|"
        r"[ \t]+[-–—|][ \t]+|\t+|[ \t]+(?=\S{6})|"
        r"</t[dh]>[ \t]*<t[dh][^<>\n]{0,40}>)" + _VALUE,
        1,
        _keep_user_value,
        gate=re.compile(
            r"(?i)@|admin|root|editor|user|guest|\bpi\b|ubnt|operator|\bsa\b|postgres|elastic|support|service"
        ),
    ),
    # "Hulu<TAB>kim.family<TAB>PW": a table's service, user and password
    Place(
        "told-password",
        r"(?m)^[ \t]*[\w+.' -]{2,30}\t+[\w.@+-]{2,64}\t+" + _VALUE,
        1,
        _keep_account_value,
        text_words=("\t",),
    ),
    # "router: PW", "kid's switch → PW", "Insta - PW", "1) VPN: PW", "| NAS | PW |", "facebook    PW"
    Place(
        "told-password",
        rf"(?im){_LIST_HEAD}{_OWNER}(?:[\w'’+-]{{1,20}}[ \t]+){{0,2}}(?:{_ACCOUNTS})(?:[ \t]+(?:{_ACCOUNTS}))?"
        rf"{_LABEL_ENDS}{_VALUE}",
        1,
        _keep_account_value,
        line_words=_ACCOUNT_WORDS,
    ),
    # "hbo max is PW same email as always"
    Place(
        "told-password",
        rf"(?im)(?<![\w-])(?:{_ACCOUNTS})[ \t]+(?:is|=)[ \t]+{_VALUE}",
        1,
        _keep_handed_over,
        line_words=_ACCOUNT_WORDS,
    ),
    # "Network is Garden, code PW", "Staff wifi: Acme, key PW", "WLAN: Home\nSchlüssel: PW", "code wifi c'est PW"
    Place(
        "told-password",
        rf"(?i)(?<![\w-])(?:{_NETWORK_KEY})(?:[ \t]+(?:wi-?fi|wlan))?"
        r"(?:[ \t]+(?:de|du|of|for)[ \t]+(?:la|le|l'|the)?[ \t]*[\w-]{1,20})?"
        rf"(?:[ \t]*[:=]|[ \t]+(?:is|ist|est|c['’]est|es|é|è|er|är|to))?[ \t]+{_VALUE}",
        1,
        _keep_network_key,
        gate=_NETWORK,
    ),
    # "sorry, it's PW not ...", "Try PW (no spaces)", "log in as kevin with PW", "here you go, PW, good luck"
    Place(
        "told-password",
        rf"(?i)(?<![\w-])(?:{_HANDS_OVER})[ \t]+{_SHAPED}{_VALUE}",
        1,
        _keep_handed_over,
        text_words=_HANDS_OVER_WORDS,
    ),
    # "Root-Passwort für den Server ist PW", "admin-password: PW": a compound noun joined by a hyphen
    Place(
        "told-password",
        r"(?i)(?<![\w-])[\w]{1,20}-(?:passwort|kennwort|password|passwd|pw|pass|passphrase)(?![\w-])"
        r"(?:[ \t]+[\w'’.-]{1,24}){0,5}?(?:[ \t]*[:=]|[ \t]+(?:ist|is|est|es|é|lautet|was))[ \t]+" + _VALUE,
        1,
        _keep_weak,
        line_words=("-pass", "-passwort", "-kennwort", "-pw"),
    ),
    # "for everyone: PW (Disney, Netflix, Prime all the same)": a value, then the accounts it opens
    Place(
        "told-password",
        rf"(?i)[:→][ \t]*{_VALUE}[ \t]*\((?:[^()\n]{{0,40}}?[ \t,(])?(?:{_ACCOUNTS})\b",
        1,
        _keep_weak,
        text_words=(": ", "→"),
    ),
    # "the same as the wifi but with !!Zq at the end", "street name + house number + #Hb7": a password's last part
    Place(
        "told-password",
        r"(?i)(?<![\w-])(?:with|plus|add|append)[ \t]+[\"'`]?([^\s\"'`]{2,16}?)[\"'`]?[ \t]+"
        r"(?:at|on|to)[ \t]+the[ \t]+(?:end|start|front|beginning)",
        1,
        _keep_a_part,
        line_words=(" the end", " the start", " the front", " the beginning"),
    ),
    Place(
        "told-password",
        r"\+[ \t]+[\w ]{1,40}\+[ \t]+[\"'`]?([^\s\"'`+]{2,16})[\"'`]?[ \t]*$",
        1,
        _keep_a_part,
        line_words=("pw", "pass", "pin", "code"),
    ),
    # "first 6: Sp4rr0\nrest: PW": a password given in two parts, on two lines
    Place(
        "told-password",
        r"(?im)^[ \t]*(?:first|1st)[^\n:]{0,20}:[ \t]*"
        + _VALUE
        + r"[ \t]*(?=\r?\n[ \t]*(?:rest|second|2nd|last|then)\b)",
        1,
        _keep_a_half,
        text_words=("first", "1st"),
    ),
    Place(
        "told-password",
        _FIRST_PART + r"[^\n]{1,40}\r?\n" + _REST_PART + _VALUE,
        1,
        _keep_a_half,
        text_words=("first", "1st"),
    ),
    # "~~Sunshine1~~ PW": a struck-out password, then the new one
    Place(
        "told-password",
        r"~~([^~\s]{4,64})~~[ \t]*" + _VALUE,
        2,
        lambda match: not (weak_password_shaped(match.group(1)) and told_value(match.group(2))),
        text_words=("~~",),
    ),
    # "the pass is m4rmaladetoast", "pw: mickeyears4ever": after a short noun, letters and digits will do
    Place(
        "told-password",
        rf"(?i)(?<![\w/-])(?:(?:pw|pwd|pass)(?:[ \t]*[:=]|[ \t]+is)|(?:password|pw|pwd|pass)[ \t]+iz)[ \t]*{_VALUE}",
        1,
        _keep_weak,
        line_words=("pw", "pass"),
    ),
    # "user acmeco, pass PW": a user's name, then a password's noun and its value with no colon
    Place(
        "told-password",
        r"(?i)(?<![\w-])(?:user(?:name)?|login|acct|account)[ \t]+[\w.@+-]{1,64}[,;]?[ \t]+"
        r"(?:pass(?:word)?|pw|pwd)[ \t]+" + _VALUE,
        1,
        _keep_weak,
        line_words=("user", "login", "acct", "account"),
    ),
    # "the login for the printer is admin, password PW": a login's user, then a password's noun and its value
    Place(
        "told-password",
        r"(?i)(?<![\w-])(?:login|user(?:name)?|account)(?:[ \t]+[\w'’.-]{1,24}){0,5}?[ \t]+(?:is|=|:)[ \t]+"
        r"[\w.@+-]{1,64}"
        r"[,;][ \t]+(?:and[ \t]+)?(?:the[ \t]+)?(?:pass(?:word)?|pw|pwd)(?:[ \t]+is|[ \t]*:)?[ \t]+" + _VALUE,
        1,
        _keep_weak,
        line_words=("login", "user", "account"),
    ),
    # "the shared staging password (PW) until": a password's noun, its value in brackets
    Place(
        "told-password",
        r"(?i)(?<![\w-])(?:password|passwort|passphrase|passcode|pw|pwd|pass|mot[ \t]+de[ \t]+passe|contraseña|senha)"
        r"[ \t]*\([\"'`]?([^\s()\"'`]{4,64})[\"'`]?\)",
        1,
        _keep_bracketed_after_noun,
        line_words=("pass", "pw", "contraseña", "senha"),
    ),
    # "I logged in (PW) and it worked", "you said \"PW\" but that doesn't work": a bracketed or quoted value
    Place(
        "told-password",
        r"[(\"“']([^\s()\"“”'`,]{8,64})[)\"”']" + _END,
        1,
        _keep_bracketed,
        line_words=("log", "sign", "work", "pass", "pw", "try", "said"),
    ),
    # "- admin\n- PW", "dad@home.net\nPW", "> user: ops-bot\n> PW": a line that is a user (a list's item, a quoted
    # line), the next line its password alone
    Place(
        "told-password",
        rf"(?im)^{_LINE_HEAD}(?:(?:user(?:name)?|login|e-?mail|u)[ \t]*[:=][ \t]*[\w.@+-]{{2,64}}|{_EMAIL}|"
        rf"{_LOGIN_WORDS})"
        rf"[ \t]*\r?\n{_LINE_HEAD}{_VALUE}[ \t]*$",
        1,
        _keep_weak,
        gate=re.compile(
            r"(?im)^[ \t]*(?:>[ \t]?){0,4}(?:[-*•][ \t]+)?(?:\S{1,64}@|admin|root|user|guest|login|e-?mail|u[ \t]*[:=])"
        ),
    ),
    # "le mot de passe du compte est désormais PW": a password's noun, a verb and "now", in other languages
    Place(
        "told-password",
        r"(?i)(?:mot[ \t]+de[ \t]+passe|passwort|kennwort|contraseña|senha|wachtwoord|hasło|lösenord)"
        r"[^\n]{0,60}?[ \t](?:est|ist|es|é|is|är|to)[ \t]+(?:désormais|maintenant|jetzt|nun|ahora|agora|nu|now|teraz)"
        r"[ \t]+" + _VALUE,
        1,
        _keep_weak,
        line_words=("passe", "passwort", "kennwort", "contraseña", "senha", "wachtwoord", "hasło", "lösenord"),
    ),
    # a generated token alone: between the same emoji, between tabs, alone on a line
    Place(
        "told-password",
        r"(?m)(?:^(?:>[ \t]?){0,4}|\t|[\u2190-\u2bff\U0001f000-\U0001faff][ \t]?)([A-Za-z0-9!#$%&*+=?@^_~-]{10,64})"
        r"(?=[ \t]?[\u2190-\u2bff\U0001f000-\U0001faff]|\t|$)",
        1,
        _keep_alone,
        gate=re.compile(
            r"(?m)^(?:>[ \t]?){0,4}[A-Za-z0-9!#$%&*+=?@^_~-]{10,64}$|\t|[\u2190-\u2bff\U0001f000-\U0001faff]"
        ),
    ),
]
