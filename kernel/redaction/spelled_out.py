"""Secrets spelled out or dictated (issue 36): a password or a code told letter by letter, as one says it aloud.

- **a spelling alphabet**: four or more words of the NATO alphabet, the German one, digits said as words or
  written alone ("Kilo-echo-lima-papa-nine-three", "Anton Berta Cäsar 1 2 3"), on a line that speaks of a
  password, a code, a spelling or a letter's case. The alphabet recited in order ("Alpha Bravo Charlie Delta")
  and a call sign of two or three words stay;
- **single characters**: letters and digits one at a time ("p a s s a t 2 0 0 8") on a line that says
  it spells (letters alone, "B-A-U-E-R", are a name spelled);
- **dictation**: "capital M, then arathon2024, then exclamation mark";
- **a warning about a character**, then the value ("it's a zero not an O: L0cksmith_0ne");
- **a secret in halves** ("first half: Xq8Lz", "second half: Rt4Wm9").

Plain data and keep checks.
"""

from __future__ import annotations

import itertools
import re

from kernel.redaction.places import Place

_NATO = (
    "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey whisky x-ray xray yankee zulu"
).split()
_GERMAN = (
    "anton berta cäsar caesar dora emil friedrich gustav heinrich ida julius kaufmann ludwig martha nordpol otto "
    "paula quelle richard samuel siegfried theodor ulrich viktor wilhelm xanthippe ypsilon zacharias zeppelin "
    "ärger ökonom übermut"
).split()
_NUMBERS = (
    "zero oh one two three four five six seven eight nine niner null eins zwei drei vier fünf sechs sieben acht neun"
).split()
_LETTER_WORDS = frozenset(_NATO + _GERMAN)
_TOKEN = "|".join(sorted({w.replace("-", r"\-") for w in _NATO + _GERMAN + _NUMBERS}, key=len, reverse=True))
_SPELLING = rf"(?i)(?<![\w-])((?:{_TOKEN}|\d)(?:(-|[ \t])(?:{_TOKEN}|\d)){{3,40}})(?![\w-])"
# A line that says a secret or a spelling is being told.
_TOLD_WORDS = (
    "pass",
    "pw",
    "code",
    "pin",
    "spell",
    "buchstab",
    "épel",
    "epel",
    "deletre",
    "kennwort",
    "wachtwoord",
    "secret",
    "login",
    "it's",
    "key",
    "lowercase",
    "uppercase",
    "capital",
)
# A line that says a spelling follows: only there are single characters a secret.
_SPELLING_WORDS = ("spell", "buchstab", "épel", "epel", "deletre", "letter by letter", "one at a time", "char by char")
_TOLD = re.compile(
    r"(?i)pass|pw|code|pin\b|spell|buchstab|épel|epel|deletre|kennwort|wachtwoord|secret|login|it's\b|key|"
    r"lowercase|uppercase|capital"
)


def _alphabet_order(words: list[str]) -> bool:
    """The words are the alphabet's letters in order (Alpha Bravo Charlie...): a lesson, not a secret."""
    firsts = [w[0] for w in words]
    return all(ord(b) - ord(a) == 1 for a, b in itertools.pairwise(firsts))


def _keep_spelling(match: re.Match[str]) -> bool:
    tokens = re.split(r"[ \t]+|-(?!ray)", match.group(1))
    letters = [t.lower() for t in tokens if t.lower() in _LETTER_WORDS]
    if len(letters) < 2:
        return True  # digits said as words: the code rules judge them
    if len(letters) == len(tokens) and _alphabet_order(letters):
        return True
    return _TOLD.search(match.string) is None


_SINGLES = r"(?<!\S)([A-Za-z0-9](?:([ .-])[A-Za-z0-9])(?:\2[A-Za-z0-9]){4,40})(?!\S)"


def _keep_singles(match: re.Match[str]) -> bool:
    value = match.group(1)
    mixed = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return not mixed


_COMMON = frozenset("the rest digits numbers letters lowercase uppercase space a an it that this all".split())
_DICTATED = (
    r"(?i)(?<![\w-])(?:capital|upper[- ]?case|lower[- ]?case|small|big)[ \t]+(?:letter[ \t]+)?[A-Za-z],?[ \t]+"
    r"(?:then|followed[ \t]+by|and[ \t]+then)[ \t]+([^\s,]{3,40})"
)


def _keep_dictated(match: re.Match[str]) -> bool:
    value = match.group(1).rstrip(".!?;:")
    return value.lower() in _COMMON or (value.isalpha() and len(value) < 5)


_CHARACTER = r"(?:zero|oh|one|[0oOlI1]|(?:capital|lower-?case|small)[ \t]+[A-Za-z]|letter[ \t]+[A-Za-z]|number[ \t]+\d)"
_WARNED = (
    rf"(?i)(?<![\w-])(?:an?[ \t]+|the[ \t]+)?{_CHARACTER}[ \t]*,?[ \t]+not[ \t]+(?:an?[ \t]+|the[ \t]+)?{_CHARACTER}"
    r"[ \t]*[:—–-][ \t]*(\S{4,64})"
)


def _keep_warned(match: re.Match[str]) -> bool:
    value = match.group(1)
    return not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


_HALF = (
    r"(?i)(?<![\w-])(?:first|second|last|other|1st|2nd|3rd|third|final|remaining)[ \t]+(?:half|part|piece|bit|chunk)"
    r"[ \t]*(?:is|[:=—–-])[ \t]*((?-i:(?=[^\s]{0,40}[a-z])(?=[^\s]{0,40}[A-Z])(?=[^\s]{0,40}\d)[^\s]{4,40}))(?!\S)"
)

SPELLED: list[Place] = [
    Place("spelled-secret", _SPELLING, 1, _keep_spelling, line_words=_TOLD_WORDS),
    Place("spelled-secret", _SINGLES, 1, _keep_singles, line_words=_SPELLING_WORDS),
    Place("spelled-secret", _DICTATED, 1, _keep_dictated, line_words=("capital", "case", "small", "big")),
    Place("spelled-secret", _WARNED, 1, _keep_warned, line_words=(" not ",)),
    Place("spelled-secret", _HALF, 1, None, line_words=("half", "part", "piece", "bit", "chunk")),
]
