"""What a memory_bank fact is about: a deterministic (entity, attribute) -> value reading.

Pure module, no model and no LLM. ``fact_key(text)`` reads the first sentence
of a fact with a handful of patterns and returns a ``FactKey`` or None:

======================================  ====================  =============  ================
pattern                                 example               key            value
======================================  ====================  =============  ================
``X: V`` / ``X = V``                    Default branch: main  default branch main
``X's A is V``                          The user's editor     user / editor  vim
                                        is vim
``the A of|for X is V``                 The deploy target     billing /      the Frankfurt
                                        for billing is ...    deploy target  cluster
``X is <participle> <prep> V``          Billing is written    billing /      go
                                        in Go                 written in
``X is [set to|now] V``                 The staging db port   staging db     5432
                                        is 5432               port / is
``X uses|prefers|runs on|... V``        The API uses          api / uses     postgres 14
                                        Postgres 14
======================================  ====================  =============  ================

``conflict(older, newer)`` compares two keys:

- ``SUPERSEDE``: same entity and attribute, different value, and the attribute
  holds one value at a time: the ``:``/``=``, possessive, ``of``/``for``,
  participle and ``is`` forms, the ``is`` form only for a subject of two or
  more words ("the staging database port", not "the user"). A verb form
  (``uses``, ``prefers``, ...) holds several values at once ("uses vim" and
  "uses Python" are both true), so it supersedes only when the two values
  start with the same word and then differ: a new version or variant of the
  same thing ("Postgres 14" -> "Postgres 16").
- ``POSSIBLE``: same entity and attribute, different value, but not provably
  exclusive (the verb forms with different heads, ``is`` on a one-word
  subject). The write leaves both alone; the consolidation candidates list
  them for the assistant to judge.
- None: different keys or the same value.

Precision limits (why the automatic pass is narrow): no negation or tense
handling (a sentence with "not", "never", "no longer", "n't" gets no key), the
first sentence only, subjects of at most 8 words and values of at most 12 (a
longer value is prose, not a setting), no synonyms or coreference ("the
database" and "Postgres" are different entities), no units ("5432" and "port
5432" differ). ``is a`` / ``is an`` (class membership: "is a data scientist")
gets no key. A wrong SUPERSEDE archives a fact, never deletes it, and the
consolidation undo restores it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

MAX_ENTITY_WORDS = 8
MAX_VALUE_WORDS = 12
MAX_LABEL_WORDS = 6

_NEGATION = re.compile(r"\b(?:not|never|no longer|none)\b|n't\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[^\s.])[.!?;](?:\s|$)")
_DETERMINERS = ("the ", "a ", "an ", "our ", "my ", "their ", "this ", "that ")
# Labels that name a kind of remark, not a setting: "Goal: X" and "Goal: Y" can both hold.
_LABELS_TO_SKIP = frozenset(
    {
        "note",
        "notes",
        "todo",
        "fyi",
        "tip",
        "important",
        "update",
        "warning",
        "reminder",
        "goal",
        "goals",
        "preference",
        "preferences",
        "decision",
        "lesson",
        "lesson learned",
        "context",
        "idea",
        "question",
        "fact",
        "rule",
        "convention",
        "example",
    }
)
_VERBS = (
    "uses",
    "use",
    "prefers",
    "prefer",
    "runs on",
    "run on",
    "deploys to",
    "deploys with",
    "depends on",
    "targets",
    "requires",
    "likes",
)
_PARTICIPLES = frozenset(
    {"written", "built", "run", "hosted", "based", "located", "deployed", "stored", "kept", "set", "configured"}
)
_PREPOSITIONS = frozenset({"in", "on", "with", "at", "to", "by", "from", "via"})

_LABEL = re.compile(r"^(?P<key>[^:=]{1,80}?)\s*(?::|=)\s*(?P<value>\S.*)$")
_POSSESSIVE = re.compile(r"^(?P<entity>.+?)(?:'s|’s|s') (?P<attr>[\w .-]{1,40}?) (?:is|are|=) (?P<value>.+)$")
_OF_FOR = re.compile(r"^(?P<attr>[\w .-]{1,40}?) (?:of|for) (?P<entity>.+?) (?:is|are) (?P<value>.+)$")
_COPULA = re.compile(r"^(?P<entity>.+?) (?:is|are) (?:set to |now |currently )?(?P<value>.+)$")
_VERB = re.compile(r"^(?P<entity>.+?) (?P<verb>" + "|".join(re.escape(v) for v in _VERBS) + r") (?P<value>.+)$")


class Conflict(StrEnum):
    SUPERSEDE = "supersede"
    POSSIBLE = "possible"


@dataclass(frozen=True)
class FactKey:
    entity: str
    attribute: str  # "" for the ``X: V`` form, whose label is the whole key
    value: str
    single_valued: bool

    @property
    def label(self) -> str:
        """Entity and attribute in words, e.g. ``billing / deploy target``."""
        return f"{self.entity} / {self.attribute}" if self.attribute else self.entity


def _clean(text: str) -> str:
    words = text.strip().strip("\"'`").strip().rstrip(".,!?;").lower().split()
    phrase = " ".join(words)
    for article in _DETERMINERS:
        if phrase.startswith(article):
            phrase = phrase[len(article) :]
            break
    return phrase


def _words(text: str) -> int:
    return len(text.split())


def _first_sentence(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    match = _SENTENCE_END.search(line)
    return (line[: match.start() + 1] if match else line).strip().rstrip(".!?;").strip()


def _key(entity: str, attribute: str, value: str, single: bool) -> FactKey | None:
    entity, attribute, value = _clean(entity), _clean(attribute), _clean(value)
    if not entity or not value or _words(entity) > MAX_ENTITY_WORDS or _words(value) > MAX_VALUE_WORDS:
        return None
    return FactKey(entity, attribute, value, single)


@functools.lru_cache(maxsize=4096)  # a write reads every active fact (up to the 1,000-fact cap): ~30 ms uncached
def fact_key(text: str) -> FactKey | None:
    """The (entity, attribute, value) a fact states, or None when no pattern reads it (see module doc)."""
    sentence = _first_sentence(text)
    if not sentence or _NEGATION.search(sentence):
        return None
    label = _LABEL.match(sentence)
    if label:
        key = _clean(label["key"])
        if key in _LABELS_TO_SKIP or _words(key) > MAX_LABEL_WORDS or re.search(r"\b(?:is|are)\b", key):
            return None
        return _key(key, "", label["value"], True)
    possessive = _POSSESSIVE.match(sentence)
    if possessive:
        return _key(possessive["entity"], possessive["attr"], possessive["value"], True)
    of_for = _OF_FOR.match(sentence)
    if of_for and _words(_clean(of_for["attr"])) <= 3:
        return _key(of_for["entity"], of_for["attr"], of_for["value"], True)
    copula = _COPULA.match(sentence)
    if copula:
        value = copula["value"].strip()
        first, _, rest = value.partition(" ")
        if first.lower() in ("a", "an"):
            return None
        second, _, tail = rest.partition(" ")
        if first.lower() in _PARTICIPLES and second.lower() in _PREPOSITIONS and tail:
            return _key(copula["entity"], f"{first} {second}", tail, True)
        entity = _clean(copula["entity"])
        return _key(entity, "is", value, _words(entity) >= 2)
    verb = _VERB.match(sentence)
    if verb:
        head, _, particle = verb["verb"].partition(" ")
        base = head[:-1] if head.endswith("s") else head  # "runs on" and "run on" are one attribute
        return _key(verb["entity"], f"{base} {particle}".strip(), verb["value"], False)
    return None


def conflict(older: FactKey | None, newer: FactKey | None) -> Conflict | None:
    """Whether ``newer`` contradicts ``older`` (see module doc); None when it does not."""
    if older is None or newer is None:
        return None
    if (older.entity, older.attribute) != (newer.entity, newer.attribute) or older.value == newer.value:
        return None
    if older.single_valued and newer.single_valued:
        return Conflict.SUPERSEDE
    old_head, new_head = older.value.split()[0], newer.value.split()[0]
    if not older.single_valued and old_head == new_head:
        return Conflict.SUPERSEDE
    return Conflict.POSSIBLE
