"""Backup codes, recovery keys and recovery phrases, as people keep and pass them (issue 36).

- **backup codes** written inline after their name ("github recovery codes: tht6d864 ppjgwn7b", "codes de secours
  2FA : ...", "Backup verification codes: 8394 2016, 5127 9930"), or in a table with a column that says whether
  each was used;
- **recovery keys**: BitLocker's eight groups of six digits anywhere, a grouped key after "recovery key" (FileVault,
  in other languages too);
- **recovery phrases** after a name in another language than English ("Wiederherstellungsphrase: ..."), or twelve
  to twenty-four words of BIP-0039's list (``kernel.redaction.bip39_words``) alone on a line.

The codes under a heading, one a line, are ``kernel.redaction.otp``'s; a seed phrase named in English is
``kernel.redaction.passphrases``'s. Plain data and keep checks.
"""

from __future__ import annotations

import re

from kernel.redaction.bip39_words import BIP39_ENGLISH
from kernel.redaction.places import Place

# A count after a list ("backup codes 10 remaining") is no code.
_COUNT_AFTER = re.compile(r"(?i)[ \t]*(?:remaining|left|digits?|chars?|characters?|letters?|of[ \t]+them)\b")

# --- backup codes written inline ---
_BACKUP_NOUN = (
    r"(?:recovery|backup|back-up|scratch|emergency|verification|one-time|single-use|2fa|mfa|totp)"
    r"(?:[ \t]+(?:verification|login|sign-in))?[ \t]+codes?"
    r"|codes?[ \t]+de[ \t]+(?:secours|récupération|recuperation|sauvegarde|r[eé]cup)"
    r"|c[oó]digos?[ \t]+de[ \t]+(?:respaldo|recuperaci[oó]n|seguran[cç]a|backup|emerg[eê]ncia|recupera[cç][aã]o)"
    r"|codici[ \t]+di[ \t]+(?:backup|recupero|emergenza)"
    r"|(?:backup|wiederherstellungs|notfall|ersatz|sicherungs)-?codes?"
    r"|herstelcodes?|back-?upcodes?|kody[ \t]+(?:zapasowe|odzyskiwania)|reservkoder|gendannelseskoder|varakoodit"
)
_BACKUP_CODE = r"(?=[A-Za-z0-9-]{0,30}\d)(?:\d{3,5}[ \t]\d{3,5}(?![\w-])|[A-Za-z0-9]{4,12}(?:-[A-Za-z0-9]{4,12}){0,9})"
_BACKUP_INLINE = (
    rf"(?i)(?<![\w-])(?:{_BACKUP_NOUN})"
    rf"(?:[ \t]+(?:for|from|de|für|di|do|of|on)(?:[ \t]{{1,8}}[\w.\'\u2019-]{{1,24}}){{1,3}}){{0,2}}"
    rf"(?:[ \t]+(?-i:[A-Z0-9][A-Za-z0-9]{{1,7}}))?[ \t]*(?:[:=：→]|->|\bis\b|\bare\b)?[ \t]*"
    rf"((?-i:{_BACKUP_CODE})(?:(?:[ \t]*[,;][ \t]*|[ \t]+)(?-i:{_BACKUP_CODE})){{0,15}})(?![\w-])"
)


def _keep_backup_list(match: re.Match[str]) -> bool:
    codes = re.split(r"[ \t]*[,;][ \t]*|[ \t]+(?=\D)", match.group(1))
    return _COUNT_AFTER.match(match.string, match.end(1)) is not None or not any(
        sum(c.isdigit() for c in code) >= 1 and len(code) >= 6 for code in codes
    )


# A table of backup codes: a row's number, the code, whether it was used ("| 1 | 9390902134 | no |"), under a
# header that names a code column and a used one.
_BACKUP_ROW = (
    r"^\|[ \t]*\d{1,3}[ \t]*\|[ \t]*((?=[A-Za-z0-9 -]{0,24}\d)[A-Za-z0-9]{6,12}(?:[- ][A-Za-z0-9]{4,12})?)[ \t]*\|"
    r"[ \t]*(?:no|yes|used|unused|✓|✔|✗|x|-)?[ \t]*\|[ \t]*$"
)

# --- recovery keys ---
_BITLOCKER = r"(?<![\d-])\d{6}(?:-\d{6}){7}(?![\d-])"
_RECOVERY_KEY = (
    r"(?<![\w-])(?:recovery|rescue|wiederherstellungs|herstel)[ \t-]?(?:key|schlüssel|sleutel)"
    r"|(?:cl[eé][ \t]+de[ \t]+r[eé]cup[eé]ration|clave[ \t]+de[ \t]+recuperaci[oó]n|chiave[ \t]+di[ \t]+ripristino)"
)
_KEY_GROUPS = r"(?-i:[A-Z0-9]{4,8}(?:-[A-Z0-9]{4,8}){3,9})"
_GROUPED_KEY = rf"(?i)(?:{_RECOVERY_KEY})\b[^\n:=]{{0,40}}?(?:[:=]|[ \t]is\b)[ \t]*({_KEY_GROUPS})(?![\w-])"


def _keep_grouped_key(match: re.Match[str]) -> bool:
    return not any(c.isdigit() for c in match.group(1))  # XXXX-XXXX-...: a placeholder


# --- recovery phrases ---
_PHRASE_NOUN = (
    r"(?:geheime[ \t]+)?wiederherstellungs(?:phrase|satz|wörter)|seed-?(?:phrase|wörter)|"
    r"phrase[ \t]+(?:de[ \t]+r[eé]cup[eé]ration|secr[eè]te|mn[eé]monique)|"
    r"frase[ \t]+(?:de[ \t]+recuperaci[oó]n|semilla|de[ \t]+recupera[cç][aã]o|semente|di[ \t]+recupero)|"
    r"herstel(?:zin|frase)|fraza[ \t]+(?:odzyskiwania|seed)|återställningsfras|palautuslause|"
    r"сид-?фраз\w{0,2}|фраз\w{0,2}[ \t]+восстановления|мнемоническ\w{0,4}[ \t]+фраз\w{0,2}"
)
_WORD = r"(?-i:[a-z]{3,8})"
_PHRASE_AFTER_NOUN = (
    rf"(?i)(?<![\w-])(?:{_PHRASE_NOUN})[^\n:：=]{{0,60}}?[:：=]?[ \t]*({_WORD}(?:(?:[ \t]+|,[ \t]*){_WORD}){{11,23}})"
)
_PHRASE_ALONE = rf"^[ \t]*({_WORD}(?:[ \t]+{_WORD}){{11,23}})[ \t]*$"
# Words an English sentence cannot do without; a wallet's word list holds few of them.
_SENTENCE_WORDS = frozenset(
    "the and you your with this these them they then from into should have are was but not that what which "
    "for its our has had will would can could she him her his who when where there their been were does did "
    "how why all any just some more most than too very also only out over own same such both each few other "
    "about after before because while until again further once here off under above below between through "
    "during against down let get got use used using make made see new one two its it's i'm don't can't".split()
)


def _keep_sentence(match: re.Match[str]) -> bool:
    words = re.split(r"[\s,]+", match.group(1).strip().lower())
    return sum(word in _SENTENCE_WORDS for word in words) >= 1


def _keep_lone_words(match: re.Match[str]) -> bool:
    """Keep a line of words that is not a recovery phrase: a phrase is 12 to 24 words, a multiple of three, each
    from BIP-0039's list (a list of stop words or of keywords holds others)."""
    words = match.group(1).split()
    return len(words) % 3 != 0 or not all(word in BIP39_ENGLISH for word in words)


RECOVERY: list[Place] = [
    Place(
        "backup-codes",
        _BACKUP_INLINE,
        1,
        _keep_backup_list,
        line_words=("code", "digo", "codici", "kody", "koder", "koodit"),
    ),
    Place(
        "backup-codes",
        _BACKUP_ROW,
        1,
        None,
        text_words=("used",),
        gate=re.compile(r"(?i)\|[ \t]*(?:backup[ \t]+|recovery[ \t]+)?codes?[ \t]*\|[^\n]{0,40}\bused\b"),
    ),
    Place("recovery-key", _BITLOCKER, 0, None, gate=re.compile(r"\d{6}-\d{6}-\d{6}")),
    Place(
        "recovery-key",
        _GROUPED_KEY,
        1,
        _keep_grouped_key,
        line_words=("recovery", "rescue", "wiederherstellungs", "herstel", "récupération", "recuperaci", "ripristino"),
    ),
    Place(
        "seed-phrase",
        _PHRASE_AFTER_NOUN,
        1,
        _keep_sentence,
        line_words=("wiederherstellungs", "seed", "phrase", "frase", "herstel", "fraza", "fras", "lause", "фраз"),
    ),
    Place("seed-phrase", _PHRASE_ALONE, 1, _keep_lone_words, gate=re.compile(r"(?m)^[ \t]*(?:[a-z]{3,8} ){11}")),
]
