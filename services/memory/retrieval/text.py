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
- Calendar dates in any common spelling ("8 May, 2023", "May 8th 2023",
  "2023-05-08", "May 2023") also yield canonical terms ``2023-05-08`` and
  ``2023-05``, so a question about "May 8, 2023" meets a memory dated "8 May, 2023".
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
_NO_SPACE_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f\uf900-\ufaff]")
_VOWEL = re.compile(r"[aeiouy]")
_HAS_YEAR = re.compile(r"(?:19|20)\d\d")

MONTHS = {  # month name or abbreviation -> its number (also ``query_expansion``'s date hints)
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
MONTH_NAME = (  # a month's name or abbreviation, as one group
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_MONTH = MONTH_NAME + r"\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_DATE_PATTERNS = (
    # 8 May, 2023 / 8th of May 2023
    (re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b,?\s*{_YEAR}\b", re.IGNORECASE), ("day", "month", "year")),
    # May 8, 2023 / May 8th 2023
    (re.compile(rf"\b{_MONTH}\s+{_DAY}\b,?\s*{_YEAR}\b", re.IGNORECASE), ("month", "day", "year")),
    # 2023-05-08 / 2023/05/08
    (re.compile(r"\b((?:19|20)\d\d)[-/](\d{1,2})[-/](\d{1,2})\b"), ("year", "month", "day")),
    # May 2023 / May, 2023
    (re.compile(rf"\b{_MONTH}\b,?\s*{_YEAR}\b", re.IGNORECASE), ("month", "year")),
)


def fold(text: str) -> str:
    """Casefold and strip combining accents."""
    lowered = text.casefold()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# Irregular forms the suffix rules cannot reach, folded to their base form.
IRREGULAR = {
    form: base
    for base, forms in {
        "go": "went gone goes going",
        "buy": "bought",
        "make": "made",
        "take": "took taken",
        "give": "gave given",
        "get": "got gotten",
        "see": "saw seen",
        "come": "came",
        "run": "ran",
        "win": "won",
        "lose": "lost",
        "begin": "began begun",
        "bring": "brought",
        "think": "thought",
        "teach": "taught",
        "catch": "caught",
        "find": "found",
        "feel": "felt",
        "keep": "kept",
        "leave": "left",
        "meet": "met",
        "pay": "paid",
        "say": "said",
        "sell": "sold",
        "tell": "told",
        "write": "wrote written",
        "read": "read",
        "eat": "ate eaten",
        "drink": "drank drunk",
        "drive": "drove driven",
        "fly": "flew flown",
        "speak": "spoke spoken",
        "swim": "swam swum",
        "sing": "sang sung",
        "draw": "drew drawn",
        "grow": "grew grown",
        "know": "knew known",
        "throw": "threw thrown",
        "build": "built",
        "send": "sent",
        "spend": "spent",
        "lend": "lent",
        "hold": "held",
        "stand": "stood",
        "understand": "understood",
        "break": "broke broken",
        "choose": "chose chosen",
        "forget": "forgot forgotten",
        "fall": "fell fallen",
        "ride": "rode ridden",
        "rise": "rose risen",
        "wear": "wore worn",
        "sleep": "slept",
        "fight": "fought",
        "child": "children",
        "person": "people",
        "man": "men",
        "woman": "women",
        "mouse": "mice",
        "foot": "feet",
        "tooth": "teeth",
    }.items()
    for form in forms.split()
}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, deterministic English suffix stemmer (not Porter; conflates inflections)."""
    irregular = IRREGULAR.get(word)
    if irregular is not None:
        word = irregular
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    w = word
    w = w.removesuffix("'s")
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
        if len(part) > 1 or part.isdigit():  # "gRPC" -> "rpc", not a one-letter "g"
            out.extend(_word_terms(part))
    return tuple(out)


def date_terms(text: str) -> list[str]:
    """Canonical ``YYYY-MM-DD`` / ``YYYY-MM`` terms for the dates written in ``text``."""
    found: list[str] = []
    taken: list[tuple[int, int]] = []
    for pattern, fields in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            parts = dict(zip(fields, match.groups(), strict=True))
            month_raw = parts["month"]
            month = int(month_raw) if month_raw.isdigit() else MONTHS.get(month_raw.lower().rstrip("."))
            if month is None or not 1 <= month <= 12:
                continue
            year = int(parts["year"])
            taken.append((match.start(), match.end()))
            day = int(parts["day"]) if "day" in parts else 0
            if day and 1 <= day <= 31:
                found.append(f"{year:04d}-{month:02d}-{day:02d}")
            found.append(f"{year:04d}-{month:02d}")
    return found


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order, with repeats (term frequency matters)."""
    out: list[str] = []
    for match in _COMPOUND.finditer(text):
        out.extend(_compound_terms(match.group()))
    if _HAS_YEAR.search(text):
        out.extend(date_terms(text))
    return out


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, first occurrence order."""
    return list(dict.fromkeys(terms(text)))
