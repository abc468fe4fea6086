"""Which fix a line of text speaks of, told by the fix's own words, and what the line says of it.

A fix is known by its vocabulary: the words of its command and of its
description (``problems.Fix``), never by the words the driver writes into its
answers (``Fix.said``, worded apart on purpose) nor by anything mnemex adds to
a line. Words are lower-cased runs of letters and digits (``pool_size=50`` is
"pool", "size", "50"), stop words, verdict words ("passes", "failed") and
one-character words dropped, cut to a crude stem ("merged", "merges", "merge" -> "merg"), and the compounds they
form as written ("pool_size", "no-cache", "np.int64").

A line is read clause by clause: it is cut at "; ", at the end of a sentence,
at " / ", at "but" and at ", and". The user's turn of an exchange ("User: ...
/ Assistant: ...") states the problem, so only the assistant's turn is read,
the way a reader takes the labels of a transcript. A clause names a fix when it holds at
least one word of that fix's vocabulary that no other candidate's vocabulary
holds, and more such words than all the other candidates together: a clear
majority. Words the candidates share ("alembic", "pytest", "cast") decide
nothing, and a clause that mixes two fixes evenly names neither.

The verdict on a recognised fix is the first success or failure cue from its
clause up to the clause of the next other fix recognised ("passes now",
"still fails", "did not help"); without one, the section the line sits under
("What worked before", "What failed before"), which is the block's structure.
What follows a cue in its clause is the outcome ("still fails", "did not
help"), so only the words before the cue name a fix; and what follows a cue and
a colon is the tool's output ("still fails: E  TimeoutError: QueuePool limit
of size 50 ..."), read for nothing, as is what follows " -> " in a failed
attempt ("pytest -p no:randomly ... -> RuntimeWarning: coroutine ...").
``content`` first strips what mnemex adds to an item line: its id tag, its
trailing annotation ("(worked once)", "(now, unproven, working)") and a
"[project ...]" label, so no verdict and no fix is read from them.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

WORKED = "worked"
FAILED = "failed"
MIN_EVIDENCE = 1  # words unique to the candidate, at least
ATTEMPT_RESULT = " -> "  # how a block prints a failed attempt: "what was tried -> what it printed"
SUCCESS_CUES = (
    "worked",
    "works now",
    "fixed",
    "passes",
    "succeeded",
    "resolved",
    "solved",
    "is gone",
    "green",
    "did it",
    "did the trick",
)
FAILURE_CUES = (
    "failed",
    "fails",
    "did not help",
    "didn't help",
    "did not work",
    "didn't work",
    "no effect",
    "made no difference",
    "no luck",
    "still",
    "same error",
)
STOP_WORDS = frozenset(
    """
    a an the and or but if then so to of in on at by for from with without into onto over under as is are was were be
    been being it its this that these those there here we our you your they them their he she his her i me my mine
    do does did done has have had not no nor only own same than too very can could should would will just now also
    again after before once all any both each few more most other some such up down out off about which who whom what
    when where why how re ve ll let lets one two use used using via per while until every already still new
    """.split()
) | frozenset(  # verdict words: what a line says of a fix, not which fix it is
    """
    pass passes passed passing fail fails failed failing work works worked working fix fixes fixed green solved
    resolved succeeded luck help helped reran rerun error
    """.split()
)
_CUES = re.compile(
    r"\b(?:" + "|".join(re.escape(c) for c in sorted((*SUCCESS_CUES, *FAILURE_CUES), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_OUTPUT = re.compile(_CUES.pattern + r"[^:;.]{0,24}:\s", re.IGNORECASE)  # "still fails: <the tool's output>"
_WORD = re.compile(r"[a-z0-9]+")
_COMPOUND = re.compile(r"[a-z0-9]+(?:[-_.:][a-z0-9]+)+")
_CLAUSE = re.compile(
    r";\s+|(?<=[a-z0-9)\]'\"`])[.!?]\s+(?=[A-Za-z`'\"(\[])|\s+/\s+|,\s+but\s+|\s+but\s+|,\s+and\s+", re.IGNORECASE
)
_ID_TAG = re.compile(r"\s*\[id:[^\]]*\]")
_PROJECT_LABEL = re.compile(r"\[project [^\]]*\]\s*")
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_BULLET = re.compile(r"^\s*[•*-]\s*")
_USER_TURN = re.compile(r"^user\W", re.IGNORECASE)
_ASSISTANT_TURN = re.compile(r"\s/\s*assistant\W+", re.IGNORECASE)


def stem(word: str) -> str:
    if len(word) > 4:
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
            word = word[:-1]  # "pinned" -> "pinn" -> "pin"
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def words(text: str) -> set[str]:
    """A text's words: simple words stemmed, and compounds as written ("no-cache", "pool_size", "np.int64")."""
    lowered = text.lower()
    simple = {stem(w) for w in _WORD.findall(lowered) if len(w) > 1 and w not in STOP_WORDS}
    return simple | set(_COMPOUND.findall(lowered))


def content(line_text: str) -> str:
    """An item line's own text: without its bullet, id tag, trailing annotation and project label."""
    text = _BULLET.sub("", line_text)
    tagged = _ID_TAG.search(text)
    text = text[: tagged.start()] if tagged else _TRAILING_NOTE.sub("", text)
    return _PROJECT_LABEL.sub("", text).strip()


def clauses(text: str) -> list[str]:
    return [part for part in _CLAUSE.split(text) if part.strip()]


def recognise(text: str, vocabularies: Mapping[K, frozenset[str]]) -> K | None:
    """The candidate that holds a clear majority of the text's distinctive words, if any."""
    said = words(text)
    owners: dict[str, list[K]] = {}
    for key, vocabulary in vocabularies.items():
        for word in said & vocabulary:
            owners.setdefault(word, []).append(key)
    evidence: dict[K, int] = {}
    for keys in owners.values():
        if len(keys) == 1:
            evidence[keys[0]] = evidence.get(keys[0], 0) + 1
    if not evidence:
        return None
    best = max(evidence, key=lambda key: evidence[key])
    others = sum(evidence.values()) - evidence[best]
    return best if evidence[best] >= MIN_EVIDENCE and evidence[best] > others else None


def answer_part(text: str) -> str:
    """An exchange's assistant turn ('' when the line is only the user's); other text as it is."""
    if not _USER_TURN.match(text):
        return text
    found = _ASSISTANT_TURN.search(text)
    return text[found.end() :] if found else ""


def cue(text: str) -> str:
    """worked / failed from the first cue in the text (whole words: "green" is not in "MissingGreenlet")."""
    found = _CUES.search(text)
    if found is None:
        return ""
    return WORKED if found.group(0).lower() in SUCCESS_CUES else FAILED


def before_cue(clause: str) -> str:
    """The clause up to its verdict cue: what follows a cue ("still fails: E  TimeoutError ...") is the
    outcome and its output, not the fix."""
    found = _CUES.search(clause)
    return clause[: found.start()] if found else clause


def verdicts(line_text: str, vocabularies: Mapping[K, frozenset[str]], section: str = "") -> dict[K, str]:
    """Candidate -> worked / failed / '' for each candidate a clause of the line is recognised as.

    A clause is recognised by its words before its cue, if it has one. A fix takes the first cue from
    its own clause up to the next clause recognised as another fix; one without takes ``section`` (the
    heading the line sits under). A fix named twice keeps its first verdict that is not ''."""
    text = answer_part(content(line_text)).split(ATTEMPT_RESULT, 1)[0]
    output = _OUTPUT.search(text)
    parts = clauses(text[: output.end()] if output else text)
    named = [(i, key) for i, key in ((i, recognise(before_cue(p), vocabularies)) for i, p in enumerate(parts)) if key]
    out: dict[K, str] = {}
    for n, (i, key) in enumerate(named):
        stop = next((j for j, other in named[n + 1 :] if other != key), len(parts))
        verdict = next((c for c in (cue(p) for p in parts[i:stop]) if c), "") or section
        if not out.get(key):
            out[key] = verdict
    return out
