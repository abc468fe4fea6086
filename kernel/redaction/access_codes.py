"""Codes people tell each other (issue 36): what opens, disarms or unlocks something, told in a sentence.

- **a code after its noun**: a door, gate, keypad, lockbox or alarm code, a PIN, a PUK, a passcode, a
  combination, a card's CVC ("Building door code is 4711#", "SIM PUK from the card: 48210937", "Il codice del
  portone è 1948", "BankID-koden är 384902"). PIN, PUK, passcode, combination and compounds such as
  ``deurcode`` say so alone; a bare "code" (codice, código, kod...) counts only on a line that names what it
  opens (a door, a locker, an alarm, a phone, 2FA...) and not after a word that makes it another code (error,
  status, zip, promo, sort...);
- **a code after the thing it opens**: "Bike lock: 6061", "garage keypad → 739164", "alarm 3390";
- **a code after a verb that opens**: "disarm with 9137", "the safe opens with 7745-19", "I set it to 865201",
  or one that keys it in on a line about a code ("so type 7981");
- **a code before what it opens**: "B52X7 at the street door", or before its noun in brackets ("6082 (card PIN)");
- **a code said again** after one already redacted ("..., I mean 4 7 2 6");
- **an unlock pattern** described ("unlock pattern: L-shape then 5-9").

Backup codes, recovery keys and phrases are ``kernel.redaction.recovery_codes``'s, a secret spelled letter by letter
``spelled_out``'s, a security question's answer ``security_answers``'s; ``code_recognisers``
compiles the four, to run after the context rules.

A code is digits (3 to 12, with ``*`` and ``#``), digits in groups ("3-1-8-5", "4 7 2 6"), a short mix of
capitals and digits, a safe's dial (R24-L11-R38) or digits spelled out ("seven seven four nine two"). A count
("4 digits", "1500 events"), a time, a factory default and a number that names a room or a locker stay.
Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.places import Place
from kernel.redaction.recogniser import Recogniser

# --- what a code is ---
_SPOKEN_DIGIT = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_VALUE = (
    r"(?:(?-i:[LR]\d{1,2}(?:[-, ][LR]\d{1,2}){2,5})"  # a safe's dial
    rf"|{_SPOKEN_DIGIT}(?:[- ]{_SPOKEN_DIGIT}){{3,11}}"  # spelled out
    r"|\d(?:[ ]\d){3,9}"  # 4 7 2 6
    r"|\d{1,4}(?:-\d{1,4}){1,5}"  # 3-1-8-5, 14-32-07
    r"|\d{3}[ ]\d{3}(?![ ]\d)"  # 482 019
    r"|[*#]?\d{3,12}[#*]?"
    r"|(?-i:(?=[A-Z]{0,6}\d)(?=\d{0,8}[A-Z])[A-Z0-9]{4,10}))"
)
_SPOKEN = re.compile(rf"(?i){_SPOKEN_DIGIT}(?:[- ]{_SPOKEN_DIGIT}){{3,11}}")
# The value ends there: not inside a longer token, a version or an address.
_END = r"(?![\w@/%°€$£-]|[.,:]\w)"
_DIGITS_ONLY = r"(?:[*#]?\d{4,12}[#*]?|\d{1,4}(?:-\d{1,4}){1,5}|\d(?:[ ]\d){3,9})"

# --- the nouns ---
# Nouns that say alone that a code follows.
_STRONG = (
    r"pin(?:[- ]?(?:code|kod|koden|nummer|number))?|puk\d?|pincode|passcode|pass[- ]code|geheimzahl|combo|"
    r"combination|combinaison|combinazione|combinaci[oó]n|combina[cç][aã]o|kombination|zahlenkombination|"
    r"kombinacja|kombinace|cvc2?|cvv2?|пин(?:-?код)?|(?:zoom[ ])?host[ -]key|(?:one-time[ -])?access[ -]code|"
    r"entry[ -]code|"
    r"(?:door|gate|entry|entrance|keypad|lockbox|alarm|disarm|duress|unlock|deur|t[üu]r|haust[üu]r|tor|zugangs|"
    r"eingangs|öffnungs|tresor|schlie(?:ß|ss)fach|toegangs|poort|digi|port|dør|dörr|ovi|alarm|garagen?|cijfer|"
    r"zahlen)(?:code|kod|kode|koodi|koden)"
)
# Nouns that need a line naming what the code opens.
_WEAK = r"codes?|codice|c[oó]digo|kod|koden|kode|koodi|kód|код|κωδικός|password|passwort"
_NOUN = rf"(?:{_STRONG}|{_WEAK})"
_STRONG_NOUN = re.compile(rf"(?i){_STRONG}")
_CODE_NOUN = re.compile(rf"(?i)(?<!\w)(?:{_STRONG}|code|pin)\b")
# What a code opens: a line that names one gives a bare "code" its sense.
_THINGS = re.compile(
    r"(?i)door|gate|entry|entrance|lobby|garage|keypad|key ?pad|key ?box|(?<![bc])(?<!dead)lock|key ?safe|"
    r"\bsafe\b|alarm|burglar|intruder|disarm|duress|installer|\bmaster\b|guest|locker|mailbox|pick-?up|collection|parcel|"
    r"packstation|phone|\bsim\b|voicemail|\bvm\b|unlock|tablet|ipad|iphone|laptop|2fa|mfa|\botp\b|totp|"
    r"authenticator|verification|sign-?in|log-?in|bankid|\bcard\b|\batm\b|bike|intercom|buzzer|nuki|yale|"
    r"schlage|ajax|verisure|securitas|simplisafe|\badt\b|porta|portone|portão|portao|puerta|portail|porte\b|"
    r"t[üu]r\b|tuer|\btor\b|deur|poort|drzwi|brama|dveře|\bovi\b|dør|dörr|kapı|двер|домофон|подъезд|alarme|"
    r"allarme|alarma|larm|hälyt|сигнализ|lucchetto|candado|cadenas|cadeado|schloss|kłódk|zámek|lås|cassaforte|"
    r"caja fuerte|coffre|cofre|tresor|kluis|sejf|сейф|armadietto|taquilla|casier|spind|schlie(?:ß|ss)fach|"
    r"szafk|handy|telefon|tel[eé]fono|telefone|téléphone|telefoon|celular|móvil|cellulare|répondeur|"
    r"segreteria|buzón|carte|karte|carta|tarjeta|cartão|\bkort\b|karty|garaje|garagem|digicode|interphone|"
    r"citofono|mobile|cell\b|storage unit|storage locker|fridge|\bshed\b|storeroom|bike room|cellar|basement|attic"
)
# A word right before "code" that makes it another code: the line's thing does not matter then.
_OTHER_CODES = re.compile(
    r"(?i)(?:error|status|exit|return|response|http|zip|postal|post|area|country|dial(?:l?ing)?|calling|iso|"
    r"language|currency|airport|iata|icao|swift|bic|sort|routing|bank|branch|tax|fiscal|product|item|article|"
    r"sku|promo|promotion|discount|coupon|voucher|gift|referral|invite|invitation|source|machine|byte|op|"
    r"colou?r|hex|qr|bar|event|reason|fault|diagnostic|trouble|obd|dtc|warning|result|exception|signal|key|scan|"
    r"char|character|unicode|ascii|locale|region|tracking|shipping|confirmation|booking|reservation|"
    r"reference|ref|order|ticket|invoice|customer|client|member|employee|student|course|class|cost|project|"
    r"tariff|medical|billing|serial|license|licence|activation|returns|returned|shows|showed|with|failed|fails|"
    r"exited|exits|crashed|displays|throws|gives|sensor|device|firmware|model|part)[ \t]*[:/-]?[ \t]*$"
)
# A word right after "code" that makes it another code (código postal, codice fiscale, code d'erreur).
_OTHER_AFTER = re.compile(
    r"(?i)[ \t]+(?:postal|postale|fiscal|fiscale|d['’]erreur|de error|di errore|de erro|de [aá]rea|de pa[ií]s|"
    r"promo|promocional|de descuento|de réduction|sconto|of conduct|review|base|snippet|block|path|name)\b"
)
# A count or an amount after the number: "4 digits", "1500 events", "30 seconds".
_UNIT_AFTER = re.compile(
    r"(?i)[ \t]*(?:digits?|chars?|characters?|letters?|bytes?|bits?|times|tries|attempts|min(?:ute)?s?|"
    r"sec(?:ond)?s?|ms|hours?|hrs?|days?|weeks?|months?|years?|people|users?|items?|entries|rows|lines|dots|"
    r"points|pixels|px|[kmg]b|euros?|dollars?|eur|usd|gbp|km|kg|events|stellig|ziffern|chiffres|cifre|"
    r"d[ií]gitos|cyfr|siffror|lines?|visitors|tickets|orders|mb|gb)\b"
)
_ISO_DATE = re.compile(r"(?:19|20)\d\d-[01]\d-[0-3]\d")
_DEFAULT_BEFORE = re.compile(r"(?i)(?:default|preset|factory|standard|werk|usine)\w{0,6}[^\n]{0,20}$")


def _spoken(value: str) -> bool:
    return _SPOKEN.fullmatch(value) is not None


def _time_or_year(value: str) -> bool:
    """A 24-hour time written without its colon (0630, 2330) or a year (1998, 2024)."""
    if len(value) != 4 or not value.isdigit():
        return False
    hours, minutes = int(value[:2]), int(value[2:])
    return (hours < 24 and minutes < 60) or value[:2] in ("19", "20")


def _value_stays(match: re.Match[str], group: int) -> bool:
    """A count, an amount, a factory default: no code."""
    value = match.group(group)
    after = match.string[match.end(group) : match.end(group) + 16]
    if _UNIT_AFTER.match(after) or _ISO_DATE.fullmatch(value):
        return True
    if _DEFAULT_BEFORE.search(match.string, max(0, match.start(group) - 40), match.start(group)):
        return True
    digits = [c for c in value if c.isdigit()]
    return len(digits) >= 3 and len(set(digits)) == 1 and digits[0] == "0"  # 0000: a lock as it ships


def _keep_after_noun(match: re.Match[str]) -> bool:
    """Keep a bare "code" on a line that names nothing it opens, a code of another kind, a count."""
    if _value_stays(match, 2):
        return True
    noun = match.group(1)
    line = match.string
    before = line[max(0, match.start() - 24) : match.start()]
    if _OTHER_CODES.search(before) and not _STRONG_NOUN.fullmatch(noun):
        return True
    if _OTHER_AFTER.match(line, match.end(1)):
        return True
    bare = not line[match.end(1) : match.start(2)].strip()
    value = match.group(2)
    if bare and len(value) == 4 and value.isdigit() and value[:2] in ("19", "20"):
        return True  # "entry code 2023": a year, said with no verb
    if bare and noun == "pin" and _THINGS.search(line) is None:
        return True  # "GPIO pin 1234", "pin 8080 is the port": a chip's pin, a port
    if _STRONG_NOUN.fullmatch(noun):
        return noun.lower().startswith("pin") and len(match.group(2)) < 4
    if _spoken(match.group(2)):
        return False  # "the code is seven seven four nine two": nobody spells an error code out digit by digit
    if noun.lower() in ("password", "passwort") and not re.fullmatch(_DIGITS_ONLY, match.group(2)):
        return True  # a password of letters is the prose rules'; a number of letters is an id
    return _THINGS.search(line) is None


# The words between a noun and its separator: a connective then a few words, or a parenthesis.
_CONNECTIVE = (
    r"for|of|to|from|on|at|in|del|della|dello|dei|do|da|dos|das|de|du|des|di|für|fürs|zum|zur|vom|van|voor|för|"
    r"til|dla|od|na|4|от|для|к|на|the|my|our|your|his|her|their|der|die|das|dem|den|la|le|el|il|lo|les|los|las|het|een"
)
_BRIDGE_WORD = r"[ \t]+(?=[\w'’/.-]{0,23}[^\W\d_])[\w'’/.-]{1,24}"  # a word with a letter in it
_BRIDGE = rf"(?:[ \t]*\([^()\n]{{1,40}}\)|[ \t]+(?:{_CONNECTIVE})(?:,?{_BRIDGE_WORD}){{0,10}})"
_SAYS = (
    r"(?:[ \t]*(?:[:=：→⇒]|->|=>|[—–-](?=[ \t]))(?:\*\*|</(?:b|strong)>)?[ \t]*"
    r"|[ \t]+(?:is|was|are|ist|lautet|è|é|es|est|er|är|on|jest|to|je|=)[ \t]+(?:now[ \t]+|still[ \t]+|just[ \t]+)?"
    r"|[ \t]+(?:(?:re|pre)?set|changed|updated|switched)[ \t]+(?:it[ \t]+)?to[ \t]+"
    r"|[ \t]+(?:changed|updated|reset|now|is[ \t]+now)[ \t]*(?:[:=：→⇒]|->|=>)[ \t]*)"
)
# Markup or a quote around the value: "code: <b>P0MVALL7</b>", "PIN **4711**", "code is `2580`".
_OPENER = r"(?:<(?:b|strong|code|kbd|tt|em|mark)>|\*\*|[`'\"“‘])?"
# One or two words naming whose code it is, then a colon: "PIN Diensthandy: 1234", "Пин-код карты: 4821".
_OWNER = r"(?:[ \t]+[^\W\d_][\w'’.-]{0,23}){1,2}[ \t]*[:=：→][ \t]*"
_AFTER_NOUN = rf"(?i)(?<!\w)({_NOUN})(?:(?:{_BRIDGE})?{_SAYS}|{_OWNER}|[ \t]+){_OPENER}({_VALUE}){_END}"

# --- the things a code opens, told with no noun for the code ---
_THING_NOUN = (
    r"(?:bike|bicycle|cable|luggage|suitcase|gym|combination|combo|smart|door|gate|front|back)?[ -]?lock|padlock|"
    r"keypad|key[ ]pad|lock[ ]?box|key[ ]?box|key[ ]?safe|safe|alarm(?:[ ](?:panel|system))?|lucchetto|candado|"
    r"cadenas|cadeado|fahrradschloss|zahlenschloss|kłódka|tresor|coffre|cassaforte|caja[ ]fuerte|sejf|kluis|"
    r"alarme|allarme|alarma|alarmanlage"
)
# A locker's number is no secret: only its combination's dial positions are ("locker: 27-04-13").
_LOCKER_NOUN = r"locker|spind|casier|armadietto|taquilla|schlie(?:ß|ss)fach|kluisje|szafka"
_DOOR_NOUN = r"(?:(?:front|back|main|side|street|building|garage|entrance|lobby|car[ ]park)[ ])?(?:door|gate)"
_AFTER_THING = (
    rf"(?i)(?<![\w-])(?:({_THING_NOUN})(?:[ \t]*\([^()\n]{{1,40}}\))?(?:{_SAYS}|[ \t]+)({_VALUE})"
    rf"|({_DOOR_NOUN})[ \t]*[:=→][ \t]*(\*?\d{{4,10}}(?-i:[A-Z])?#?|\*\d{{3,10}}#?|\d{{3,10}}#)"
    rf"|({_LOCKER_NOUN})[ \t]*[:=→][ \t]*(\d{{1,2}}(?:-\d{{1,2}}){{2,4}})){_END}"
)


def _keep_after_thing(match: re.Match[str]) -> bool:
    group = next(g for g in (2, 4, 6) if match.group(g) is not None)
    if _value_stays(match, group):
        return True
    value = match.group(group)
    if _spoken(value) or value[:1] in "LR" or group == 6:
        return False
    said = match.string[match.end(group - 1) : match.start(group)]
    bare = not said.strip()
    digits = value.strip("*#")
    if bare and (not digits.isdigit() or len(digits) < 4):
        return True  # "lock 2", "safe B2": a number, a model
    followed = _NEXT_WORD.match(match.string, match.end())
    procedure = followed is not None and followed.group(1).lower() in ("then", "within", "before")
    if (bare or "alarm" in match.group(group - 1).lower()) and _time_or_year(digits) and not procedure:
        return True  # alarm 0630: an alarm clock ("alarm 1357 then the door" is a code)
    return bare and followed is not None and followed.group(1).lower() not in _CONNECTIVES_AFTER


# After a code told with no separator, the sentence goes on ("alarm 1357 then the door"); a noun there makes the
# number a count or a model ("alarm 3390 events").
_NEXT_WORD = re.compile(r"[ \t]+(\w+)")
_CONNECTIVES_AFTER = frozenset(
    "then and to for before after within at when if or but so until once on in from by".split()
)


# --- a verb that opens, then the code ---
_OPENS = (
    rf"(?i)(?<![\w-])(disarm(?:s|ed)?|deactivate[sd]?|unlock(?:s|ed)?|open(?:s|ed)?|turn(?:s|ed)?[ \t]+off|"
    rf"switch(?:es|ed)?[ \t]+off|silence[sd]?)(?:[ \t]+(?:it|them|this|that|the[ \t]+\w{{1,20}}))?[ \t]+"
    rf"(?:with|using|via|by[ \t]+(?:entering|typing|pressing|keying[ \t]+in|punching[ \t]+in|dial(?:l?ing)))"
    rf"[ \t]+(?:the[ \t]+)?(?:code[ \t]+|pin[ \t]+)?({_VALUE}){_END}"
    rf"|(?<![\w-])(?:(?:re)?set|changed?|programm?ed?)[ \t]+(?:it|the[ \t]+(?:code|combination|combo|pin|lock|safe))"
    rf"[ \t]+to[ \t]+({_VALUE}){_END}"
    rf"|(?<![\w-])(?:type|enter|key[ \t]+in|punch[ \t]+in|tap[ \t]+in)[ \t]+((?-i:\*?\d{{4,12}}#?)){_END}"
)


def _keep_opened(match: re.Match[str]) -> bool:
    group = next(g for g in (2, 3, 4) if match.group(g) is not None)
    if group == 4 and _CODE_NOUN.search(match.string) is None and _THINGS.search(match.string) is None:
        return True  # "type 2024 as the year": no code, no thing it opens
    value = match.group(group)
    if _value_stays(match, group) or (_time_or_year(value) and (group != 4 or value[:2] in ("19", "20"))):
        return True  # "set the alarm to 0630", "enter 2024": a time, a year
    verb = (match.group(1) or "").lower()
    return not verb.startswith(("disarm", "deactivat")) and _THINGS.search(match.string) is None


# --- the code first, then what it opens ---
_BEFORE_THING = (
    r"(?:^|(?<=[.!?;:,][ \t]))((?-i:\*?\d{4,8}#?|(?=[A-Z]{0,6}\d[A-Z]{0,6}\d)(?=\d{0,7}[A-Z])[A-Z0-9]{4,8}))"
    r"[ \t]+(?:at|for|on|opens|unlocks)[ \t]+(?:the[ \t]+)?"
    r"(?:(?:front|back|main|side|street|building|garage|entrance|lobby|house|courtyard|bike|basement|cellar|"
    r"garden|yard|parking)[ \t]+)?(?:door|gate|entrance|garage|lobby|keypad|lockbox|key[ \t]safe|padlock)\b"
)


def _keep_before_thing(match: re.Match[str]) -> bool:
    """Keep a time, a year, and a number a line calls an error's or a status's."""
    before = match.string[max(0, match.start() - 40) : match.start()]
    return _time_or_year(match.group(1)) or _ERROR_WORDS.search(before) is not None


_ERROR_WORDS = re.compile(r"(?i)\b(?:error|status|exit|return|http|fault|fehler|erreur|errore)")


# --- the code first, then its noun in brackets: "6082 (card PIN for Lea)", "4471 (the gate code)" ---
_BEFORE_NOUN = (
    r"(?i)(?<![\w.,/:-])((?-i:\*?\d{4,8}#?|\d{1,2}(?:-\d{1,2}){2,4}))[ \t]*\((?:[\w'’-]{1,20}[ \t]+){0,3}?"
    rf"({_STRONG}|codes?)(?=[ \t]*(?:\)|for\b|of\b|to\b|,|;|$))"
)


def _keep_before_noun(match: re.Match[str]) -> bool:
    between = match.string[match.start() : match.start(2)]
    if _OTHER_CODES.search(between) and not _STRONG_NOUN.fullmatch(match.group(2)):
        return True  # "404 (error code)"
    if not _STRONG_NOUN.fullmatch(match.group(2)) and _THINGS.search(match.string) is None:
        return True
    return _time_or_year(match.group(1)) and match.group(2).lower().startswith("code")


# --- an unlock pattern ---
_PATTERN_NOUN = (
    r"unlock[ \t]+pattern|pattern[ \t]+(?:lock|unlock)|screen[ \t]+pattern|entsperrmuster|"
    r"sch[eé]ma[ \t]+de[ \t]+d[eé]verrouillage|patr[oó]n[ \t]+de[ \t]+desbloqueo|sequenza[ \t]+di[ \t]+sblocco|"
    r"padr[aã]o[ \t]+de[ \t]+desbloqueio|ontgrendelpatroon|wz[oó]r[ \t]+odblokowania"
)
_UNLOCK_PATTERN = (
    rf"(?i)(?<![\w-])(?:{_PATTERN_NOUN})(?:[ \t]+(?:is|ist|est|es|è|é))?[ \t]*[:=→-]?[ \t]*"
    r"([^\s,;()][^\n,;()]{2,40}?)(?=[ \t]*(?:$|[,;()]|\.(?:[ \t]|$)))"
)


def _keep_pattern_words(match: re.Match[str]) -> bool:
    value = match.group(1)
    described = re.search(r"\d|(?i:shape|zigzag|square|cross|corner|diagonal|\b[LZSNMUCVW]\b)", value)
    counted = re.search(r"(?i)\b(?:dots|points|minimum|at least|digits|characters|nodes)\b", value)
    return described is None or counted is not None


# --- a code said again after the one redacted ---
_RESTATED = (
    r"\[REDACTED:access-code\][,;]?[ \t]+(?:I mean|i\.e\.|that is|or|aka|in digits:?|sorry,?|no wait,?)[ \t]+"
    rf"({_VALUE}){_END}"
)

_CODE_WORDS = (
    "pin",
    "пин",
    "puk",
    "code",
    "codice",
    "digo",
    "kod",
    "koodi",
    "kód",
    "код",
    "κωδικός",
    "combo",
    "combina",
    "kombina",
    "cvc",
    "cvv",
    "geheimzahl",
    "host key",
    "host-key",
    "password",
    "passwort",
)
_THING_WORDS = (
    "lock",
    "keypad",
    "key pad",
    "box",
    "safe",
    "alarm",
    "lucchetto",
    "candado",
    "cadenas",
    "cadeado",
    "kłódka",
    "tresor",
    "coffre",
    "cassaforte",
    "caja fuerte",
    "sejf",
    "kluis",
    "door",
    "gate",
    "locker",
    "spind",
    "casier",
    "armadietto",
    "taquilla",
    "fach",
    "kluisje",
    "szafka",
)

CODES: list[Place] = [
    Place("access-code", _AFTER_NOUN, 2, _keep_after_noun, line_words=_CODE_WORDS),
    Place("access-code", _AFTER_THING, (2, 4, 6), _keep_after_thing, line_words=_THING_WORDS),
    Place(
        "access-code",
        _OPENS,
        (2, 3, 4),
        _keep_opened,
        line_words=(
            "disarm",
            "deactivat",
            "unlock",
            "open",
            "turn",
            "switch",
            "silence",
            "set",
            "change",
            "program",
            "type",
            "enter",
            "key in",
            "punch in",
            "tap in",
        ),
    ),
    Place(
        "access-code",
        _BEFORE_THING,
        1,
        _keep_before_thing,
        line_words=("door", "gate", "entrance", "garage", "lobby", "keypad", "lockbox", "key safe", "padlock"),
    ),
    Place("access-code", _BEFORE_NOUN, 1, _keep_before_noun, line_words=_CODE_WORDS),
    Place("access-code", _RESTATED, 1, None, gate=re.compile(r"\[REDACTED:access-code\]")),
    Place(
        "unlock-pattern",
        _UNLOCK_PATTERN,
        1,
        _keep_pattern_words,
        line_words=("pattern", "muster", "schéma", "schema", "patrón", "patron", "sequenza", "padrão", "wzór", "wzor"),
    ),
]


def code_recognisers() -> list[Recogniser]:
    """Backup codes and recovery keys (``kernel.redaction.recovery_codes``), ``CODES``, then the secrets spelled out
    (``spelled_out``) and the answers to security questions (``security_answers``), compiled as the
    context rules are (one line each; ^ and $ a line's ends), to run after them."""
    from kernel.redaction.context_rules import one_line
    from kernel.redaction.recovery_codes import RECOVERY
    from kernel.redaction.security_answers import ANSWERS
    from kernel.redaction.spelled_out import SPELLED

    return [
        Recogniser(
            place.kind,
            re.compile(one_line(place.pattern), re.MULTILINE),
            place.group if isinstance(place.group, tuple) else (place.group,),
            place.keep,
            line_words=place.line_words,
            text_words=place.text_words,
            gate=place.gate,
        )
        for place in RECOVERY + CODES + SPELLED + ANSWERS
    ]
