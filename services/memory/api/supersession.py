"""Supersede on conflict: a newer memory_bank fact archives the older facts it contradicts.

Runs on every memory_bank write that creates a fact (``MemoryWrites.store``).
The rule is deterministic (``domain.fact_keys``): same entity and attribute,
a different value, and an attribute that holds one value at a time. The older
fact is archived, never deleted, with ``superseded_by`` naming its successor
and ``archived_reason`` saying why; the newer fact lists them in
``supersedes``. ``Consolidation.undo`` with the newer fact's id restores them.

The write-time near-duplicate refresh (cosine >= 0.95) would overwrite a
fact in place with its newest wording; when the two texts state different
values (``conflicts`` is SUPERSEDE), the write creates a new fact and
supersedes the old one instead, so the old value stays on record.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from services.memory.domain.consolidation import SUPERSEDES, linked_ids, superseded
from services.memory.domain.fact_keys import Conflict, conflict, fact_key
from services.memory.domain.naming import MEMORY_BANK, Scope, split_id
from services.memory.domain.record import MemoryRecord
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore


def supersedes(older: MemoryRecord, newer_text: str) -> bool:
    """Whether a fact with ``newer_text`` supersedes ``older`` (both memory_bank)."""
    return (
        older.collection == MEMORY_BANK
        and conflict(fact_key(older.content), fact_key(newer_text)) is Conflict.SUPERSEDE
    )


async def supersede_older_facts(
    store: MemoryStore, locks: KeyedLocks, scope: Scope, newer: MemoryRecord, now: datetime
) -> tuple[MemoryRecord, list[str]]:
    """Archive the active facts ``newer`` supersedes; (``newer`` with its ``supersedes`` link, their ids).

    The caller holds the memory_bank write lock of the scope, so no fact is added meanwhile."""
    if newer.collection != MEMORY_BANK or fact_key(newer.content) is None:
        return newer, []
    facts, _ = await store.active_rows(scope, MEMORY_BANK)
    older = [f for f in facts if f.id != newer.id and f.created_ts <= newer.created_ts and supersedes(f, newer.content)]
    done: list[str] = []
    for fact in older:
        async with locks.hold(split_id(fact.id)[1]):
            current = await store.locate(scope, fact.id)
            if current is None or current.archived:
                continue
            reason = f"superseded by {newer.id}: a newer fact states another value"
            await store.update(scope, current, superseded(current, newer.id, now, reason))
            done.append(current.id)
    if not done:
        return newer, []
    links = ",".join(dict.fromkeys([*linked_ids(newer.extra.get(SUPERSEDES)), *done]))
    async with locks.hold(split_id(newer.id)[1]):
        current = await store.locate(scope, newer.id) or newer
        after = await store.update(scope, current, replace(current, extra={**current.extra, SUPERSEDES: links}))
    return after, done
