"""A password written as a sentence (issue 36): "my password is purple monkey dishwasher" (several plain
words), "the wifi password is Fae4oJck!", "our pw is ...", "my wifi key is ...", "the passphrase was set to ...",
"I changed my password to ...", "asks for a passphrase: it's ...". The words after the verb are the
password unless they describe it ("is too short", "is hashed with argon2", "is correct"). Beside
``kernel.redaction.prose`` (the forms with no verb, and other languages). Also a wallet's recovery words after
their name ("seed phrase: ...", "mnemonic = '...'"). Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.entropy import unquote
from kernel.redaction.places import Place
from kernel.redaction.values import value_is_code

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
        return value_is_code(unquote(quoted or token))  # a quoted value, or a word with digits or symbols
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


_CLOSE = r"(?=[,;!?()\]]|\.(?:\s|$)|\s+(?:and|but|so|because|which|please|don't|do\s+not|ok)\b|\n|$)"
# a quoted value; a word holding a digit or a symbol (the password, whatever follows); or plain words to the
# clause's end (a passphrase, or words about the password: the keep check tells which)
_PROSE_VALUE = (
    r"(?:(\"[^\"\n]{1,128}\"|'[^'\n]{1,128}')|(?=[^\s]{0,127}[0-9!@#$%^&*_+=~])([^\s\"'`]{3,128}?)(?=[,;.!?)]?(?:\s|$))|"
    rf"([^\s,.;!?()\"'][^,;!?()\"'\n]{{0,127}}?){_CLOSE})"
)
_SECRET_NOUN = (
    r"(?:password|passwd|pw|passphrase|pass\s?phrase|passcode|pin(?:\s+code)?|wi-?fi\s+(?:key|code)|network\s+key)"
)

_NOUN_WORDS = ("pass", "pw", "pin ", "pin\t", "wifi", "wi-fi", "network key")

PASSPHRASES: list[Place] = [
    Place(
        "prose-password",
        rf"(?i)\b(my|our|your|his|her|their|the)\s+(?:[a-z0-9-]{{1,20}}\s+){{0,2}}?{_SECRET_NOUN}"
        r"(?:\s+(?:for|to|on|of)\s+(?:the\s+|my\s+|our\s+)?[\w.@-]{1,40}(?:\s+[\w.@-]{1,40})?)?\s+"
        r"(?:is\s+set\s+to|was\s+set\s+to|was\s+changed\s+to|is\s+now|has\s+been|is|was|became)\s*:?\s+" + _PROSE_VALUE,
        (2, 3, 4),
        _keep_prose_words,
        text_words=_NOUN_WORDS,
    ),
    Place(
        "prose-password",
        rf"(?i)\b(?:changed|set|reset|updated|switched)\s+(my|our|your|his|her|their|the)\s+"
        rf"(?:[a-z0-9-]{{1,20}}\s+){{0,2}}?{_SECRET_NOUN}\s+to\s+" + _PROSE_VALUE,
        (2, 3, 4),
        _keep_prose_words,
        text_words=_NOUN_WORDS,
    ),
]

# a question or a label about a password, then "it's" and the value: "asks for a passphrase: it's blue whale 23662",
# "the wifi password? it is Gravel#Moon8" (group 1 takes the noun: one plain word after it is a value too)
PASSPHRASES.append(
    Place(
        "prose-password",
        rf"(?i)\b({_SECRET_NOUN})\b[ \t]*[:?\u2014-][ \t]*(?:it's|it\u2019s|it[ \t]+is|that's|that[ \t]+is)[ \t]+"
        + _PROSE_VALUE,
        (2, 3, 4),
        _keep_prose_words,
        text_words=_NOUN_WORDS,
    )
)


def _keep_after_user(match: re.Match[str]) -> bool:
    """After a user's name, "and it's" may say anything ("it's expired", "it's locked"): a lone plain word stays."""
    phrase = match.group(4)
    if phrase is not None and len(phrase.split()) == 1 and phrase.strip(".,;:!?").isalpha():
        return True
    return _keep_prose_words(match)


# a login's user, then "and it's" or "and the password is" and the value: "the staging login is admin and it's
# marigold-tuesday", "user is ops and the pw is tiger-lily-91"
PASSPHRASES.append(
    Place(
        "prose-password",
        r"(?i)\b(login|user(?:name)?|account)[ \t]+(?:is|was|=|:)[ \t]+[\w.@+-]{1,64},?[ \t]+and[ \t]+"
        rf"(?:it's|it\u2019s|it[ \t]+is|(?:the[ \t]+)?{_SECRET_NOUN}(?:'s|[ \t]+is|[ \t]+was|[ \t]*:))[ \t]+"
        + _PROSE_VALUE,
        (2, 3, 4),
        _keep_after_user,
        line_words=("login", "user", "account"),
    )
)


# Words of a sentence, not of a wallet's word list (BIP-39 holds none of them).
_SENTENCE_WORDS = frozenset(
    "the and you your with this these them they then from into should have are was but not".split()
)


def _keep_sentence(match: re.Match[str]) -> bool:
    return any(word in _SENTENCE_WORDS for word in re.split(r"[\s,]+", match.group(1).lower()))


# A wallet's recovery words (12 to 24 lower-case words) after a name that says so: "seed phrase: ...",
# "recovery phrase for the wallet is ...", "mnemonic = '...'".
PASSPHRASES.append(
    Place(
        "seed-phrase",
        r"(?i)(?:(?:seed|recovery|mnemonic|backup|secret|wallet)[ _-]?(?:phrase|words|seed)|mnemonic)\b"
        r"[^\n:：=]{0,80}?(?:[:：=]|[ \t](?:is|are|was))?[ \t]*[\"'`]?\n?[ \t]*"
        r"((?-i:[a-z]{3,8})(?:(?:[ \t]+|,[ \t]*)(?-i:[a-z]{3,8})){11,23})",
        1,
        _keep_sentence,
        text_words=("phrase", "words", "mnemonic", "seed", "recovery"),
    )
)
