"""Supersede on conflict: a newer memory_bank fact archives the older facts it contradicts.

Runs on every memory_bank write that creates a fact (``MemoryWrites.store``).
The rule is deterministic (``domain.fact_keys``): same entity and attribute,
a different value, and an attribute that holds one value at a time; or the
same typed setting in other words (``domain.fact_slots``: a port, version,
host or path of the same subject, ``domain.fact_subjects``). Every verdict,
"possibly superseded" included, needs the same subject: service s1's port
never touches service s2's fact. A write reads only the facts that may
conflict with it, from ``usecases.fact_subject_index`` (filed by subject and
setting), not every active fact, and writes nothing to the others. The older
fact is archived, never deleted, with ``superseded_by`` naming its successor
and ``archived_reason`` saying why; the newer fact lists them in
``supersedes``. ``Consolidation.undo`` with the newer fact's id restores them.

The write-time near-duplicate refresh (cosine >= 0.95) would overwrite a
fact in place with its newest wording; when the two texts state different
values (``conflicts`` is SUPERSEDE), the write creates a new fact and
supersedes the old one instead, so the old value stays on record; when they
are about different subjects (``kept_apart``: "The s7 worker keeps its data in
/var/lib/s7" and "The s77 worker ..." embed at 0.98), it creates a new fact
and leaves the old one alone.

Supersession stays inside one scope (``domain.fact_scope``): a fact of project B
never archives project A's fact about the same attribute, and a project fact
never archives a user-wide one (nor the reverse).

A superseded value lives on in conversation memories ("we are on Postgres 14").
``mark_stale_conversations`` finds the scope's working, history and pattern
memories that state the old value (``fact_slots.asserts_old_value``) and marks
them; PrepareContext gives such a line's place to the current fact, which
notes the old value ("(was 14 until 3 Mar 2026)", domain/fact_history.py).
They are not archived: they remain a record of what was said.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from services.memory.domain.consolidation_rules import SUPERSEDES, linked_ids, superseded
from services.memory.domain.context_selection import POSSIBLY_SUPERSEDED_BY, STALE_VALUE_OF
from services.memory.domain.fact_keys import Conflict
from services.memory.domain.fact_scope import same_scope
from services.memory.domain.fact_slots import (
    about_other_subjects,
    asserts_old_value,
    conflict_terms,
    fact_conflict,
    slot,
    slot_conflict,
)
from services.memory.domain.naming import MEMORY_BANK, SCORED_COLLECTIONS, Scope, split_id
from services.memory.domain.record import MemoryRecord
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore
from services.memory.usecases.fact_subject_index import related_facts


def supersedes(older: MemoryRecord, newer_text: str) -> bool:
    """Whether a fact with ``newer_text`` supersedes ``older`` (both memory_bank)."""
    return older.collection == MEMORY_BANK and fact_conflict(older.content, newer_text) is Conflict.SUPERSEDE


def kept_apart(older: MemoryRecord, newer_text: str) -> bool:
    """Whether a memory_bank fact with ``newer_text`` must be stored beside ``older`` rather than refresh it
    in place (the write-time near-duplicate refresh): it gives ``older``'s setting another value (and
    supersedes it), or it is about another subject ("The s7 worker ..." / "The s77 worker ...", whose
    embeddings are closer than the refresh threshold)."""
    if older.collection != MEMORY_BANK:
        return False
    return supersedes(older, newer_text) or about_other_subjects(older.content, newer_text)


async def mark_stale_conversations(
    store: MemoryStore,
    locks: KeyedLocks,
    scope: Scope,
    newer: MemoryRecord,
    old_facts: list[str],
    now: datetime,
    key: str = STALE_VALUE_OF,
) -> list[str]:
    """Mark the scope's conversation memories that state a superseded value (``fact_slots.asserts_old_value``).

    They stay (an exchange is a record of what was said) and carry ``STALE_VALUE_OF`` = the newer
    fact's id; PrepareContext shows the newer fact in their place. Returns their ids."""
    marked: list[str] = []
    for collection in SCORED_COLLECTIONS:
        rows, _ = await store.active_rows(scope, collection)
        for row in rows:
            if row.extra.get(key) == newer.id:
                continue
            if not any(asserts_old_value(row.content, old, newer.content) for old in old_facts):
                continue
            async with locks.hold(split_id(row.id)[1]):
                current = await store.locate(scope, row.id)
                if current is None or current.archived:
                    continue
                extra = {**current.extra, key: newer.id}
                await store.update(scope, current, replace(current, extra=extra, updated_at=now))
                marked.append(current.id)
    return marked


async def mark_possibly_superseded(
    store: MemoryStore, locks: KeyedLocks, scope: Scope, newer: MemoryRecord, facts: list[MemoryRecord], now: datetime
) -> list[str]:
    """Older facts of the same scope that give the same typed setting another value with a partly shared
    subject (``fact_slots``: POSSIBLE; never another subject) stay active but carry
    ``POSSIBLY_SUPERSEDED_BY``, as do the turns that state their value: get-context shows them below
    the lines that hold, labelled "possibly superseded by [id:...]", and find_consolidation_candidates
    lists the pair."""
    new_slot = slot(newer.content)
    if new_slot is None:
        return []
    doubtful = [
        f
        for f in facts
        if f.id != newer.id
        and f.created_ts <= newer.created_ts
        and same_scope(f, newer)
        and slot_conflict(slot(f.content), new_slot) is Conflict.POSSIBLE
    ]
    marked: list[str] = []
    for fact in doubtful:
        async with locks.hold(split_id(fact.id)[1]):
            current = await store.locate(scope, fact.id)
            if current is None or current.archived:
                continue
            extra = {**current.extra, POSSIBLY_SUPERSEDED_BY: newer.id}
            await store.update(scope, current, replace(current, extra=extra, updated_at=now))
            marked.append(current.id)
    if doubtful:
        old = [f.content for f in doubtful]
        marked += await mark_stale_conversations(store, locks, scope, newer, old, now, POSSIBLY_SUPERSEDED_BY)
    return marked


async def supersede_older_facts(
    store: MemoryStore, locks: KeyedLocks, scope: Scope, newer: MemoryRecord, now: datetime
) -> tuple[MemoryRecord, list[str]]:
    """Archive the active facts ``newer`` supersedes; (``newer`` with its ``supersedes`` link, their ids).

    The caller holds the memory_bank write lock of the scope, so no fact is added meanwhile. Only the
    facts filed under one of ``newer``'s terms are read (``fact_subject_index``)."""
    if newer.collection != MEMORY_BANK or not conflict_terms(newer.content):
        return newer, []
    facts = await related_facts(store, scope, newer.content)
    await mark_possibly_superseded(store, locks, scope, newer, facts, now)
    older = [
        f
        for f in facts
        if f.id != newer.id
        and f.created_ts <= newer.created_ts
        and same_scope(f, newer)  # only within one project, or among user-wide facts
        and supersedes(f, newer.content)
    ]
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
    stale_texts = [f.content for f in older if f.id in done]
    await mark_stale_conversations(store, locks, scope, newer, stale_texts, now)
    links = ",".join(dict.fromkeys([*linked_ids(newer.extra.get(SUPERSEDES)), *done]))
    async with locks.hold(split_id(newer.id)[1]):
        current = await store.locate(scope, newer.id) or newer
        after = await store.update(scope, current, replace(current, extra={**current.extra, SUPERSEDES: links}))
    return after, done
