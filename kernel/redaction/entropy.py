"""How random a value looks: the entropy test behind the context rules (issue 36).

A value counts as a random token only where its context already says it may be
one (a flag's value, a value named token or secret, a URL's user part), and
only when it mixes cases and digits with many distinct characters: hex digests,
git SHAs, UUIDs, words, model names and paths do not. ``token_shaped`` adds the
hex forms a provider uses (a Twilio auth token, a Sentry DSN key), for the
contexts that name a credential outright. Plain module.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

_LOWER_RUN = re.compile(r"[a-z]{7,}|(?<=[A-Z])[a-z]{6,}(?=[A-Z-])")
_PATH_SEGMENT = re.compile(r"/[a-z]{3,}")
_CONSONANTS = re.compile(r"[^aeiouy]{4,}")
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_HEX_TOKEN = re.compile(r"[0-9a-f]{24,128}|[0-9A-F]{24,128}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def unquote(value: str) -> str:
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def shannon(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def wordlike(run: str) -> bool:
    """A run of lower-case letters that reads as a word ("transformers", "sentence"), not as random letters
    ("kkpdhiq"): a quarter of it vowels, and no four consonants in a row. A random token of 40 characters holds a
    run of 6 or more lower-case letters about one time in four; counting every such run as a word missed those."""
    vowels = sum(c in "aeiouy" for c in run)
    return vowels * 4 >= len(run) and _CONSONANTS.search(run) is None


def mostly_words(value: str, share: float = 2 / 3, word: Callable[[str], bool] | None = None) -> bool:
    """``share`` of the value (two thirds unless told) is camel-case or separated words of three letters or more
    that read as words (``word`` tells which do; ``wordlike`` unless told)."""
    reads = word or wordlike
    words = sum(
        len(part) for part in _NAME_PARTS.findall(value) if len(part) >= 3 and part.isalpha() and reads(part.lower())
    )
    return words >= len(value) * share


def high_entropy(value: str, word: Callable[[str], bool] = wordlike) -> bool:
    """A random token (mixed case and digits, many distinct characters), not a hash, UUID, path or word
    (``word`` tells which runs of lower-case letters read as one)."""
    value = unquote(value)
    if len(value) < 20 or "://" in value or value[0] in "/.~$%{<":
        return False
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    if upper < 2 or lower < 2:
        return False  # hex digests, UUIDs and git SHAs are one case
    if digits < (2 if len(value) < 24 else 1 if len(value) < 32 else 0):
        return False  # a long token may hold few digits (a quarter of random 24-character ones hold one or none)
    if _PATH_SEGMENT.search(value) or any(word(run) for run in _LOWER_RUN.findall(value)):
        return False  # words or path segments: a model name, a module path
    if mostly_words(value):
        return False  # an identifier made of words: TestCaseForTheLoginFlow42
    return shannon(value) >= min(4.0, 0.8 * math.log2(len(value)))


def token_shaped(value: str) -> bool:
    """A random token, or a hex (or UUID) credential where the context names one: only for those contexts."""
    value = unquote(value)
    if high_entropy(value):
        return True
    if not (_HEX_TOKEN.fullmatch(value) or _UUID.fullmatch(value)):
        return False
    digits = sum(c.isdigit() for c in value)
    return 0 < digits < len(value) and shannon(value) >= 3.0  # not 000...0, not aaaa...a
