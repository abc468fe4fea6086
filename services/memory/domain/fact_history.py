"""What a fact replaced: the value a superseded fact gave and until when, as a note on the fact.

Pure module. A superseded fact is archived, never shown on a line of its own;
the fact that replaced it lists it in ``supersedes`` (``usecases.supersession``).
``with_previous`` puts the old value and the moment it changed on the current
fact's metadata (``was_value``, ``was_until``: ISO), and the gateway renders
them as "(was 14 until 3 Mar 2026)" on the fact's line.

The old value is what changed, read the way supersession read it: the typed
value (``fact_slots``: port, version, host, path), else the value of the
grammar's (entity, attribute) (``fact_keys``), else the old sentence's words
the new one lacks, cut to a few words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.memory.domain import timefmt
from services.memory.domain.consolidation_rules import SUPERSEDES, linked_ids
from services.memory.domain.fact_keys import fact_key
from services.memory.domain.fact_slots import slot
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import MEMORY_BANK
from services.memory.domain.record import MemoryRecord

WAS_VALUE = "was_value"
WAS_UNTIL = "was_until"
MAX_LOOKUPS = 3  # superseded facts read for one fact's note, the latest links first
MAX_VALUE_WORDS = 6
MAX_VALUE_CHARS = 60


def superseded_ids(memory: NormalizedMemory) -> list[str]:
    """The facts ``memory`` replaced, the latest first (at most ``MAX_LOOKUPS``)."""
    if memory.collection != MEMORY_BANK:
        return []
    return list(reversed(linked_ids(memory.metadata.get(SUPERSEDES))))[:MAX_LOOKUPS]


def previous_value(old_text: str, new_text: str) -> str:
    """The value ``old_text`` gave that ``new_text`` replaced ('' when the two texts say the same)."""
    old_slot, new_slot = slot(old_text), slot(new_text)
    if old_slot and new_slot and old_slot.kind == new_slot.kind and old_slot.value != new_slot.value:
        return old_slot.value
    old_key, new_key = fact_key(old_text), fact_key(new_text)
    if old_key is not None and new_key is not None and old_key.value != new_key.value:
        return _short(old_key.value)
    new_words = {w.lower().strip(".,;:!?") for w in new_text.split()}
    changed = [w.strip(".,;:!?") for w in old_text.split() if w.lower().strip(".,;:!?") not in new_words]
    return _short(" ".join(w for w in changed if w))


def _short(value: str) -> str:
    words = value.split()
    text = " ".join(words[:MAX_VALUE_WORDS]) + (" …" if len(words) > MAX_VALUE_WORDS else "")
    return text[:MAX_VALUE_CHARS]


def with_previous(memory: NormalizedMemory, older: Sequence[MemoryRecord]) -> NormalizedMemory:
    """``memory`` noting the value of the first fact in ``older`` (``superseded_ids``' order: the latest
    first) it still supersedes, and when that value stopped holding (when it was archived, else when
    ``memory`` was stated); ``memory`` itself when none tells (an undo restored them)."""
    latest = next((r for r in older if r.archived and r.collection == MEMORY_BANK), None)
    if latest is None:
        return memory
    value = previous_value(latest.content, memory.content)
    if not value:
        return memory
    until = latest.archived_at or timefmt.parse(memory.created_at)
    note = {WAS_VALUE: value, WAS_UNTIL: timefmt.to_iso(until) if until else ""}
    return replace(memory, metadata={**memory.metadata, **note})
