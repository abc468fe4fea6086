"""What a memory_bank fact is about: its subject, and when two facts share one.

Pure module, no model. A fact gives a setting of something: "Service s1 uses port
8001" a port of *service s1*, "The s1 dashboard is owned by team t1" the owner of
*the s1 dashboard*, "We use Postgres 14" the version of *Postgres*, "CI provider is
GitLab CI" the value of *the CI provider*. That something is the fact's subject, and
every kind of supersession (archived as superseded, or flagged "possibly
superseded") needs two facts about the same subject: service s1's port never
touches service s2's.

A subject is read as a set of words: the sentence's content words outside the value
(``fact_slots``) or the entity of a ``fact_keys`` reading, lower-cased, one spelling
per word (db -> database, plural 's' dropped), without the words that carry no
subject (articles, copulas, verbs of "setting", time words). Words are of three sorts:

- identifiers: a word with a digit (``s1``, ``t12``, ``auth-19``, ``eu-west-1``; a
  hyphenated identifier stays one word). One names one instance;
- kinds: nouns that many instances share (service, dashboard, database, team,
  cluster, ...). Alone they name no instance: "the service" is not "service s1";
- names: the rest (billing, staging, api, frontend, redis, ci, ...).

``subject_match(older, newer)``:

==============================================  ===========  ==========================================
the two subjects                                verdict      example
==============================================  ===========  ==========================================
either empty (nothing beyond the value)         None         "port 80 is open"
each has an identifier the other lacks          None         service s1 / service s2
no shared word but kinds, and not equal         None         billing service / payments service;
                                                             the database / the staging database
one holds the other                             SUPERSEDE    the API / the API database; staging db
... but the larger adds an identifier           POSSIBLE     the API / the s1 API
they share at least half of the smaller one     POSSIBLE     frontend build / build scripts
otherwise                                       None
==============================================  ===========  ==========================================

``index_terms(subject)`` are the terms a fact is filed (and looked up) under so that a
write finds every fact of a matching subject without reading the others: its names and
identifiers, or for a subject of kinds only, the whole set. Two subjects with a verdict
share a term (they share a non-kind word, or are equal).

Limits: no synonyms or coreference ("it", "the database" for "Postgres"), and two
names sharing a word still only match on it ("billing API" / "payments API" is
POSSIBLE); the kinds are a short list.
"""

from __future__ import annotations

import re

from services.memory.domain.fact_keys import Conflict

_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_JOINER = re.compile(r"[-_]")
# Words that carry no subject: articles, copulas, verbs of "setting" and time words.
STOP = frozenset(
    """a an the this that these those our my their its is are was were be been being now currently
    still new old default set to of for in on at by with from via and or as it we us they you i
    use uses used using run runs running ran listen listens listening serve serves served serving
    live lives located hosted host deploy deploys deployed deployment point points pointing moved
    move changed change switched switch upgraded upgrade updated update bumped bump pinned pin
    need needs needed require requires required version versions v port ports path paths dir
    directory folder located lives stored kept store keep under inside into onto number after before
    behind since through""".split()
)
_FOLD = {
    "db": "database",
    "dbs": "database",
    "databases": "database",
    "cfg": "config",
    "conf": "config",
    "configuration": "config",
    "env": "environment",
    "envs": "environment",
    "prod": "production",
    "stage": "staging",
    "repo": "repository",
    "svc": "service",
    "services": "service",
    "servers": "server",
    "pg": "postgres",
    "postgresql": "postgres",
    "k8s": "kubernetes",
    "venv": "virtualenv",
    "virtualenvs": "virtualenv",
    "venvs": "virtualenv",
    "apps": "app",
    "application": "app",
    "applications": "app",
    "microservice": "service",
}
# Nouns many instances share: a subject of these alone names no instance (see the module doc).
KINDS = frozenset(
    """service server database dashboard team app cluster queue bucket job worker cache instance
    container pod endpoint environment machine vm project module repository daemon site website""".split()
)


def fold(word: str) -> str:
    """One spelling per word: the variants in ``_FOLD``, then a plain plural 's' dropped."""
    word = _FOLD.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and not is_identifier(word):
        word = _FOLD.get(word[:-1], word[:-1])
    return word


def is_identifier(word: str) -> bool:
    return any(c.isdigit() for c in word)


def words(text: str) -> list[str]:
    """``text``'s words, lower-cased and folded (``STOP`` words left as they are). A hyphenated word
    stays whole when it is an identifier (``auth-19``, ``eu-west-1``), else its parts count
    (``billing-api``: billing, api)."""
    found: list[str] = []
    for token in _WORD.findall(text.lower()):
        parts = [token] if is_identifier(token) else _JOINER.split(token)
        found += (part if part in STOP else fold(part) for part in parts if part)
    return found


def subject_of(text: str, extra_stop: frozenset[str] = frozenset()) -> frozenset[str]:
    """The subject words of ``text`` (a sentence without its value, or an entity)."""
    return frozenset(w for w in words(text) if w not in STOP and w not in extra_stop and len(w) > 1)


def _identifiers(subject: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in subject if is_identifier(w))


def named_apart(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether each word set holds an identifier the other lacks (``s1`` / ``s2``): two instances."""
    return bool(_identifiers(a) - b) and bool(_identifiers(b) - a)


def subject_match(older: frozenset[str], newer: frozenset[str]) -> Conflict | None:
    """Whether two subjects are the same (SUPERSEDE), maybe the same (POSSIBLE) or not (None)."""
    if not older or not newer:
        return None
    if named_apart(older, newer):
        return None  # two instances named apart: service s1 / service s2
    shared = older & newer
    if older != newer and not (shared - KINDS):
        return None  # only a kind in common: the billing service / the payments service
    small, large = sorted((older, newer), key=len)
    if shared == small:
        return Conflict.POSSIBLE if _identifiers(large - small) else Conflict.SUPERSEDE
    if len(shared) * 2 >= len(small):
        return Conflict.POSSIBLE
    return None


def index_terms(subject: frozenset[str]) -> frozenset[str]:
    """The terms a fact with this subject is filed under, and looked up by (see the module doc)."""
    named = subject - KINDS
    if named:
        return named
    return frozenset({" ".join(sorted(subject))}) if subject else frozenset()
