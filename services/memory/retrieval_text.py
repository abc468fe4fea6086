"""Text -> index terms for lexical retrieval.

Plain module (no grpc, no chromadb). One function matters: ``terms(text)``.
It is used for documents and queries alike, so both sides agree.

- Lowercase (casefold) and accent folding ("Café" -> "cafe"), unicode-aware.
- Code identifiers keep their whole form and also split into parts:
  ``getUserName`` -> ``getusername get user name``;
  ``services/memory/lexical.py`` -> the whole path plus ``servic memory lexical py``.
- English stopwords are dropped (parts of identifiers too, but never the whole identifier).
- A light suffix stemmer folds plurals and -ing/-ed/-ly forms together.
- Scripts written without spaces (CJK, kana, hangul, thai) become character bigrams.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

MAX_TOKEN_CHARS = 64

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into
    is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only
    or other ought our ours ourselves out over own same shan't she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while
    who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves s t d ll m re ve also just will shall may might must would yes yeah oh
    hey hi hello ok okay really aren couldn didn doesn don hadn hasn haven isn mustn shan shouldn
    wasn weren won wouldn
    """.split()
)

# A compound token: word characters joined by identifier punctuation.
_COMPOUND = re.compile(r"[^\W_]+(?:['’][^\W_]+)*(?:[_./\\:\-#@]+[^\W_]+(?:['’][^\W_]+)*)*", re.UNICODE)
_PART_SPLIT = re.compile(r"[_./\\:\-#@'’]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NO_SPACE_SCRIPT = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f\uf900-\ufaff]"
)
_VOWEL = re.compile(r"[aeiouy]")


def fold(text: str) -> str:
    """Casefold and strip combining accents."""
    lowered = text.casefold()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, deterministic English suffix stemmer (not Porter; conflates inflections)."""
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    w = word
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    for suffix in ("ingly", "edly", "ing", "ed", "ly"):
        if w.endswith(suffix):
            base = w[: -len(suffix)]
            if len(base) >= 3 and _VOWEL.search(base):
                if base.endswith("i") and suffix in ("ed", "ly"):
                    base = base[:-1] + "y"
                elif len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                    base = base[:-1]
                w = base
            break
    if w.endswith("y") and len(w) > 3 and w[-2] not in "aeiou":
        w = w[:-1] + "i"
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _no_space_terms(token: str) -> list[str]:
    """Split a token at script boundaries; no-space-script runs become bigrams."""
    out: list[str] = []
    run = ""
    other = ""
    for ch in token:
        if _NO_SPACE_SCRIPT.match(ch):
            if other:
                out.extend(_word_terms(other))
                other = ""
            run += ch
        else:
            if run:
                out.extend(_bigrams(run))
                run = ""
            other += ch
    if run:
        out.extend(_bigrams(run))
    if other:
        out.extend(_word_terms(other))
    return out


def _word_terms(raw: str) -> list[str]:
    word = fold(raw)
    if word in STOPWORDS:
        return []
    return [stem(word)]


_CONTRACTION = re.compile(r"['’](?:s|t|re|ve|ll|d|m)$", re.IGNORECASE)


@lru_cache(maxsize=131072)
def _compound_terms(raw: str) -> tuple[str, ...]:
    raw = raw[:MAX_TOKEN_CHARS]
    if _NO_SPACE_SCRIPT.search(raw):
        return tuple(_no_space_terms(raw))
    if raw.lower() in STOPWORDS or raw.replace("’", "'").lower() in STOPWORDS:
        return ()
    raw = _CONTRACTION.sub("", raw)  # "Caroline's" -> "Caroline", "doesn't" -> "doesn"
    pieces = [p for p in _PART_SPLIT.split(raw) if p]
    parts: list[str] = []
    for piece in pieces:
        parts.extend((_CAMEL.findall(piece) or [piece]) if piece.isascii() else [piece])
    if len(parts) <= 1:
        return tuple(_word_terms(raw))
    out = [fold(raw)]
    for part in parts:
        out.extend(_word_terms(part))
    return tuple(out)


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order, with repeats (term frequency matters)."""
    out: list[str] = []
    for match in _COMPOUND.finditer(text):
        out.extend(_compound_terms(match.group()))
    return out


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, first occurrence order."""
    return list(dict.fromkeys(terms(text)))
