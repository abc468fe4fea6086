"""Normalised keys and the small value types every kg module shares.

Concept keys are lower case with ``_`` between words, the same shape
Roampal's n-gram concepts have ("auth_bug"), so imported routing data lines
up with what the extractor produces. Entity keys keep spaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

_SPACES = re.compile(r"\s+")


class Outcome(StrEnum):
    WORKED = "worked"
    PARTIAL = "partial"
    UNKNOWN = "unknown"
    FAILED = "failed"


COLLECTIONS = ("books", "working", "history", "patterns", "memory_bank")


def entity_key(name: str) -> str:
    """Case-folded, whitespace-collapsed: "Claude  Code" -> "claude code"."""
    return _SPACES.sub(" ", name.strip()).casefold()


def concept_key(name: str) -> str:
    """Lower case, words joined by "_": "Connection Pool" -> "connection_pool"."""
    return _SPACES.sub("_", name.strip()).casefold()


def signature_words(keys: list[str] | set[str]) -> frozenset[str]:
    """The single words inside concept keys, for fuzzy problem matching."""
    words: set[str] = set()
    for key in keys:
        words.update(part for part in re.split(r"[_\s]+", key) if part)
    return frozenset(words)


@dataclass(frozen=True)
class Entity:
    name: str
    type: str

    @property
    def key(self) -> str:
        return entity_key(self.name)


@dataclass(frozen=True)
class Relation:
    source: str  # entity key
    target: str  # entity key
    relation: str


@dataclass(frozen=True)
class Extraction:
    concepts: list[str]
    entities: list[Entity]
    context_type: str
    relations: list[Relation]
