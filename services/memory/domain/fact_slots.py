"""Typed settings in a fact, read whatever the wording: a port, a version, a host, a path.

Pure module, no model. ``fact_keys`` reads a fact's grammar ("X is V", "X uses
V"), so "The staging database port is 5432" and "Staging DB now listens on
port 6543" get different keys and were never seen as one setting changing.
This module reads the *value* instead: it finds one typed value in the first
sentence and calls the rest of the sentence's content words its subject.

==========  ================================  ======================================
kind        found as                          example -> (subject, value)
==========  ================================  ======================================
port        ``port 5432``, ``:8080``           staging db listens on port 6543 ->
                                              ({staging, database}, 6543)
version     a product name and a number       the API runs on Postgres 16 ->
            (``Python 3.12``, ``node v20``)   ({api} + product postgres, 16)
host        a dotted host name or IPv4        the registry is registry.acme.io ->
                                              ({registry}, registry.acme.io)
path        ``/abs/path``, ``~/x``, ``./x``    the venv lives in ~/envs/billing ->
                                              ({venv}, ~/envs/billing)
==========  ================================  ======================================

``slot_conflict(older, newer)``: same kind (and for versions the same
product), different values, and the same subject (``fact_subjects.subject_match``):
one subject inside the other is ``SUPERSEDE`` (the same setting in other words),
a partly shared one ``POSSIBLE`` (left to the assistant), and two instances told
apart (service s1 / service s2, the billing / the payments service) nothing. A
fact with no subject words beyond the value is too vague to decide anything.

``conflict_terms(text)`` files a fact for supersession's index
(``usecases.fact_subject_index``): a write looks up only the facts that share a
term with it, never every fact.

Limits: one value per fact (the first found, in the order of the table), a
few spelling variants folded (db -> database, cfg -> config, ...), no
coreference ("it"), no negation (a sentence with "not" / "no longer" is read
by nobody, as in ``fact_keys``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from services.memory.domain.fact_keys import Conflict, conflict, fact_key
from services.memory.domain.fact_subjects import (
    STOP,
    fold,
    index_terms,
    named_apart,
    subject_match,
    subject_of,
    words,
)

_NEGATION = re.compile(r"\b(?:not|never|no longer|none)\b|n't\b", re.IGNORECASE)
_PORT = re.compile(
    r"\bport\s*(?:is\s+|=\s*|:\s*|number\s+)?(\d{2,5})\b|(?<![\w.])[\w-]*:(\d{2,5})\b"
    r"|\b(?:listen(?:s|ing)?|serv(?:es|ing)|binds?|bound)\s+(?:on|to)\s+(\d{2,5})\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"\b([A-Za-z][A-Za-z+#-]{1,30})\s+v?(\d+(?:\.\d+){0,3})\b(?![.:/]\w)")
_HOST = re.compile(
    r"\b((?:\d{1,3}\.){3}\d{1,3}|(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|cloud|internal|local|app|co|ai))\b"
)
_PATH = re.compile(r"(?:(?<=\s)|^)((?:~|\.{1,2})?/[\w.@~-]+(?:/[\w.@~-]+)*/?)")
_SENTENCE_END = re.compile(r"(?<=[^\s.])[.!?;](?:\s|$)")
# Words before a number that name no product ("port 80", "step 3", "issue 12").
_NOT_PRODUCTS = frozenset({"port", "step", "issue", "version", "v", "line", "page", "pr", "ticket", "at", "on", "is"})


@dataclass(frozen=True)
class Slot:
    kind: str  # port, version, host or path
    value: str
    subject: frozenset[str]
    product: str = ""  # versions: what the number is a version of


def _first_sentence(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    match = _SENTENCE_END.search(line)
    return (line[: match.start() + 1] if match else line).strip()


def _subject(sentence: str, value_span: tuple[int, int], extra_stop: frozenset[str] = frozenset()) -> frozenset[str]:
    return subject_of(sentence[: value_span[0]] + " " + sentence[value_span[1] :], extra_stop)


@functools.lru_cache(maxsize=4096)
def slot(text: str) -> Slot | None:
    """The typed value a fact states, with its subject words; None when it has none (see module doc)."""
    sentence = _first_sentence(text)
    if not sentence or _NEGATION.search(sentence):
        return None
    port = _PORT.search(sentence)
    if port:
        value = port.group(1) or port.group(2) or port.group(3)
        return Slot("port", value, _subject(sentence, port.span()))
    for version in _VERSION.finditer(sentence):
        product = fold(version.group(1).lower())
        if product in _NOT_PRODUCTS or product in STOP:
            continue
        subject = _subject(sentence, version.span(), frozenset({product}))
        return Slot("version", version.group(2), subject, product)
    host = _HOST.search(sentence.lower())
    if host:
        return Slot("host", host.group(1), _subject(sentence, host.span()))
    path = _PATH.search(sentence)
    if path:
        return Slot("path", path.group(1).rstrip("/"), _subject(sentence, path.span(1)))
    return None


def slot_conflict(older: Slot | None, newer: Slot | None) -> Conflict | None:
    """Whether ``newer`` states another value of the setting ``older`` states (see module doc)."""
    if older is None or newer is None or older.kind != newer.kind or older.value == newer.value:
        return None
    if older.product != newer.product:
        return None
    return subject_match(older.subject, newer.subject)


def _subject_of_fact(text: str) -> frozenset[str]:
    """What a fact is about: its typed setting's subject, else its ``fact_keys`` entity; empty when unread."""
    typed = slot(text)
    if typed is not None:
        return typed.subject
    key = fact_key(text)
    return subject_of(key.entity) if key is not None else frozenset()


def about_other_subjects(older_text: str, newer_text: str) -> bool:
    """Whether two facts are about different subjects, however close their wording: read subjects that
    do not match (``fact_subjects.subject_match``: "The s7 worker keeps its data in /var/lib/s7" and
    "The s77 worker ..."), or, when either is not read, first sentences that each name an identifier
    the other lacks ("Service s2 runs in region ap-south-1" / "Service s12 runs in ...")."""
    older, newer = _subject_of_fact(older_text), _subject_of_fact(newer_text)
    if older and newer:
        return subject_match(older, newer) is None
    return named_apart(frozenset(words(_first_sentence(older_text))), frozenset(words(_first_sentence(newer_text))))


@functools.lru_cache(maxsize=4096)
def conflict_terms(text: str) -> frozenset[str]:
    """The terms under which a fact that may conflict with ``text`` is filed: the ``fact_keys``
    entity and attribute, and the typed setting's kind, product and subject terms
    (``fact_subjects.index_terms``). Two facts with a ``fact_conflict`` share one."""
    terms: set[str] = set()
    key = fact_key(text)
    if key is not None:
        terms.add(f"key:{key.entity}/{key.attribute}")
    typed = slot(text)
    if typed is not None:
        terms.update(f"{typed.kind}:{typed.product}:{term}" for term in index_terms(typed.subject))
    return frozenset(terms)


def fact_conflict(older_text: str, newer_text: str) -> Conflict | None:
    """Whether a fact with ``newer_text`` contradicts one with ``older_text``, by grammar
    (``fact_keys``: same entity and attribute) or by typed value (same setting in other words)."""
    verdicts = (conflict(fact_key(older_text), fact_key(newer_text)), slot_conflict(slot(older_text), slot(newer_text)))
    if Conflict.SUPERSEDE in verdicts:
        return Conflict.SUPERSEDE
    return Conflict.POSSIBLE if Conflict.POSSIBLE in verdicts else None


def _value_of(text: str) -> tuple[str, frozenset[str]] | None:
    """(the value a fact states, the words naming what it is the value of)."""
    typed = slot(text)
    if typed is not None:
        return typed.value, typed.subject | ({typed.product} if typed.product else frozenset())
    key = fact_key(text)
    if key is None:
        return None
    named = frozenset(w for w in words(f"{key.entity} {key.attribute}") if w not in STOP)
    return key.value, named


def _mentions(text: str, value: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w]|\.\d)", text) is not None


def asserts_old_value(memory_text: str, old_fact: str, new_fact: str) -> bool:
    """Whether a conversation memory states the value ``old_fact`` gave, which ``new_fact`` replaced.

    It must name the old value and something of what it is the value of, and must not name
    the new value (an exchange about the upgrade itself, "from 14 to 16", is not stale)."""
    old, new = _value_of(old_fact), _value_of(new_fact)
    if old is None or new is None or not old[0] or old[0] == new[0]:
        return False
    lowered = memory_text.lower()
    if not _mentions(lowered, old[0]) or _mentions(lowered, new[0]):
        return False
    return bool(old[1] & set(words(lowered)))
