"""Query rewriting without an LLM.

Plain module (no grpc, no chromadb). ``expand_query(text)`` returns:

- ``lexical_terms``: weighted index terms for ``LexicalIndex.search_terms``:
  the question's own content terms at weight 1, synonyms / related forms at a
  lower weight, question words and filler dropped;
- ``temporal``: whether the question asks about time ("when", "what year",
  "how long ago", "last week", a month or year ...), so a caller can favour
  memories whose text or metadata carries a date;
- ``date_hint``: a (year, month) the question names, if any, e.g. "in May 2023".

``mentions_time(text)`` is the document-side counterpart of ``temporal``: a
temporal question prefers memories that say when something happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from services.memory.retrieval.text import MONTH_NAME, MONTHS, query_terms, stem

SYNONYM_WEIGHT = 0.5

_TEMPORAL_CUES = re.compile(
    r"\b(when|what (?:date|day|time|year|month|week)|which (?:year|month|day|date|week)|how long"
    r"|since when|ago|yesterday|today|tomorrow|tonight|last (?:week|month|year|night|weekend|time)"
    r"|next (?:week|month|year|weekend)|this (?:week|month|year|weekend)|before|after|during"
    r"|recently|earlier|later|first time|anniversary|birthday|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
_MONTH_YEAR = re.compile(rf"\b{MONTH_NAME}\b[\s,]*((?:19|20)\d\d)?", re.IGNORECASE)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# Relative time expressions: words that place an event against the moment it was told.
# Absolute dates are left out on purpose: a memory's own date stamp would match them all.
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME_WORDS = frozenset(
    (
        "yesterday",
        "today",
        "tonight",
        "tomorrow",
        "ago",
        "recently",
        "lately",
        "weekend",
        "weekends",
        *_WEEKDAYS,
        *(f"{day}s" for day in _WEEKDAYS),
    )
)
_TIME_LEADS = frozenset(("last", "this", "next", "past", "coming", "few", "couple"))
_TIME_UNITS = frozenset(
    "day days week weeks month months year years night morning evening summer winter spring fall autumn".split()
)
_WORD = re.compile(r"[a-z]+")


# Question scaffolding that carries no topic.
QUESTION_WORDS = frozenset(
    stem(w)
    for w in """what when where which who whom whose why how kind type sort ever likely
    would did does do happen something anything thing things time date year
    month day week""".split()
)

# Related forms, both directions; keys and values are surface words (stemmed on use).
_RELATED: dict[str, tuple[str, ...]] = {
    "kids": ("children", "child", "son", "daughter"),
    "children": ("kids", "kid", "son", "daughter"),
    "mom": ("mother",),
    "mother": ("mom",),
    "dad": ("father",),
    "father": ("dad",),
    "job": ("work", "career"),
    "work": ("job",),
    "career": ("job", "work"),
    "hobby": ("hobbies", "enjoy", "fun"),
    "hobbies": ("hobby", "enjoy", "fun"),
    "pet": ("dog", "cat"),
    "pets": ("dog", "cat"),
    "car": ("vehicle",),
    "movie": ("film",),
    "film": ("movie",),
    "book": ("novel", "read"),
    "books": ("novel", "read"),
    "read": ("book",),
    "music": ("song", "band", "concert"),
    "instrument": ("guitar", "piano", "violin", "drum"),
    "sport": ("game", "team"),
    "sports": ("game", "team"),
    "trip": ("travel", "vacation", "visit"),
    "travel": ("trip", "vacation"),
    "vacation": ("trip", "travel"),
    "bug": ("error", "fix", "crash"),
    "error": ("exception", "bug", "fail"),
    "crash": ("error", "exception"),
    "test": ("tests", "pytest"),
    "config": ("configuration", "settings"),
    "settings": ("config",),
    "install": ("setup",),
    "delete": ("remove",),
    "remove": ("delete",),
}


@dataclass(frozen=True)
class ExpandedQuery:
    original: str
    lexical_terms: dict[str, float] = field(default_factory=dict)
    temporal: bool = False
    date_hint: tuple[int, int | None] | None = None  # (year, month or None)

    @property
    def lexical_text(self) -> str:
        return " ".join(t for t, w in self.lexical_terms.items() if w >= 1.0)


def temporal_hint(text: str) -> tuple[bool, tuple[int, int | None] | None]:
    """Whether ``text`` asks about time, and any (year, month) it names."""
    temporal = bool(_TEMPORAL_CUES.search(text))
    hint: tuple[int, int | None] | None = None
    for match in _MONTH_YEAR.finditer(text):
        word, year = match.group(1).lower(), match.group(2)
        if word == "may" and not year:
            continue  # the modal verb, most likely
        if year:
            hint = (int(year), MONTHS.get(word))
            temporal = True
            break
    if hint is None:
        year_match = _YEAR.search(text)
        if year_match:
            hint = (int(year_match.group(1)), None)
    return temporal, hint


@lru_cache(maxsize=32768)
def mentions_time(text: str) -> bool:
    """Whether ``text`` places something in time relative to when it was said ("yesterday", "last Friday").

    Cached: a memory's content is checked each time it is a candidate.
    """
    words = _WORD.findall(text.lower())
    if not _TIME_WORDS.isdisjoint(words):
        return True
    return any(lead in _TIME_LEADS and unit in _TIME_UNITS for lead, unit in pairwise(words))


def expand_query(text: str) -> ExpandedQuery:
    """Weighted lexical terms plus temporal cues for ``text``."""
    own = [t for t in query_terms(text) if t not in QUESTION_WORDS]
    if not own:  # a question made only of scaffolding: keep what there was
        own = query_terms(text)
    weights: dict[str, float] = {t: 1.0 for t in own}
    for word in re.findall(r"[a-z]+", text.lower()):
        for related in _RELATED.get(word, ()):
            for term in query_terms(related):
                weights.setdefault(term, SYNONYM_WEIGHT)
    temporal, hint = temporal_hint(text)
    return ExpandedQuery(original=text, lexical_terms=weights, temporal=temporal, date_hint=hint)
