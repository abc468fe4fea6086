"""Typed relationships between entities mentioned next to each other.

For two entities that follow one another in the same sentence, the words
between them pick the relation ("A depends on B" -> depends_on). Pairs with
no cue only co-occur, which the content graph records on its own.
"""

from __future__ import annotations

import itertools
import re

from services.kg.keys import Entity, Relation

MAX_GAP_CHARS = 40
# Checked in order; the first cue found in the gap wins.
RELATION_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.I))
    for name, pattern in (
        ("configured_in", r"\b(?:configured|set|defined|declared) (?:in|via|by)\b"),
        ("deployed_on", r"\b(?:deployed|hosted|running) (?:on|to)\b|\bruns? on\b"),
        ("depends_on", r"\bdepends? on\b|\brequires?\b|\bneeds?\b"),
        ("part_of", r"\bpart of\b|\bbelongs? to\b|\binside\b|^\s*(?:in|from|of)\s*$"),
        ("works_with", r"\bworks? with\b|\btalks? to\b|\bconnects? to\b|\bintegrates? with\b"),
        ("calls", r"\bcalls?\b|\binvokes?\b"),
        ("fails_with", r"\bfails? with\b|\braises?\b|\bthrows?\b|\bcrash(?:es)? with\b"),
        ("replaced_by", r"\breplaced (?:by|with)\b|\bmigrated to\b|\bswitched to\b"),
        ("created", r"\b(?:created|wrote|authored)\b"),
        ("owns", r"\bowns?\b|\bmaintains?\b"),
        ("uses", r"\buses?\b|\busing\b|\bwith\b|\bvia\b|\bbuilt on\b|\bpowered by\b|\bon top of\b"),
    )
)
_IMPORT_GAP = re.compile(r"^\s*import\s+$")
_SENTENCE_BREAK = re.compile(r"[.!?](?:\s|$)|\n")


def relation_for_gap(gap: str) -> str | None:
    if len(gap) > MAX_GAP_CHARS or _SENTENCE_BREAK.search(gap):
        return None
    for name, pattern in RELATION_CUES:
        if pattern.search(gap):
            return name
    return None


def find_relations(text: str, mentions: list[tuple[int, int, str]], entities: dict[str, Entity]) -> list[Relation]:
    """Relations between consecutive mentions; ``mentions`` are (start, end, key)."""
    ordered = sorted(set(mentions))
    found: dict[tuple[str, str], Relation] = {}
    for (_, end_a, key_a), (start_b, _, key_b) in itertools.pairwise(ordered):
        if key_a == key_b or key_a not in entities or key_b not in entities:
            continue
        gap = text[end_a:start_b] if end_a <= start_b else ""
        if _IMPORT_GAP.match(gap):
            relation = Relation(key_b, key_a, "part_of")
        else:
            name = relation_for_gap(gap)
            if name is None:
                continue
            relation = Relation(key_a, key_b, name)
        found.setdefault((relation.source, relation.target), relation)
    return list(found.values())
