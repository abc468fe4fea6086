"""Use cases that write one memory: store (with near-duplicate refresh), update, archive.

A memory_bank store also supersedes the older facts it contradicts (``usecases.supersession``).

Every text is redacted (``kernel.privacy.redact``) before it is embedded or
stored. A write is acknowledged only after the store call returned. Writers
of one memory hold its uid lock. Stores into one collection of one scope go
through that collection's ``BatchQueue`` (which holds the collection's lock
per batch): the stores queued meanwhile are deduplicated one after the other
and the new ones written with one store call, so many clients sharing a
project do not each wait for everyone's commit. Two near-duplicates in one
batch cannot both be created: the later one is decided only after the earlier
ones were stored. memory_bank stores (cap, supersession) run one at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from kernel.privacy import redact
from services.memory.domain.arrays import Vector
from services.memory.domain.dedup import Neighbour, decide, dedup_pool, merge_tags, refreshed
from services.memory.domain.fact_scope import FACT_SCOPE, same_scope, scope_value
from services.memory.domain.memory_errors import InvalidRequest, LimitReached, MemoryNotFound
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import MEMORY_BANK, Scope, check_collection, check_id, memory_id, new_uid, split_id
from services.memory.domain.observation_rules import with_observation_importance
from services.memory.domain.outcomes import Outcome
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.record import MemoryRecord, Scalar
from services.memory.domain.write_rules import (
    MAX_REASON_CHARS,
    check_bank_attributes,
    check_unit,
    clean_content,
    clean_tags,
    new_record,
    parse_extra_metadata,
)
from services.memory.usecases.batch_queue import BatchQueue
from services.memory.usecases.content_writes import ContentWrites
from services.memory.usecases.fact_subject_index import active_fact_count
from services.memory.usecases.supersession import kept_apart, supersede_older_facts

T = TypeVar("T")


@dataclass(frozen=True)
class StoreResult:
    memory: NormalizedMemory
    deduplicated: bool
    superseded: tuple[str, ...] = ()  # memory_bank facts this one archived (``usecases.supersession``)


@dataclass(frozen=True)
class PendingStore:
    """A validated, embedded store waiting for its collection's batch."""

    scope: Scope
    collection: str
    text: str
    embedding: Vector
    tags: list[str]
    importance: float | None
    confidence: float | None
    extra: dict[str, Scalar]
    initial_outcome: Outcome | None
    allow_duplicate: bool
    session_id: str
    kind: str
    memory_id: str = ""  # the id a new memory gets (empty: a fresh one)


@dataclass(frozen=True)
class WriteLimits:
    max_content_chars: int
    dedup_threshold: float
    memory_bank_cap: int


class MemoryWrites:
    def __init__(self, writes: ContentWrites, *, limits: WriteLimits, weights: RankingWeights) -> None:
        self._store, self._vectors, self._locks, self._clock = writes.store, writes.vectors, writes.locks, writes.clock
        self._limits = limits
        self._weights = weights
        self.batches: BatchQueue[PendingStore, StoreResult] = BatchQueue(writes.locks, self._store_batch)

    def check_content(self, content: str) -> str:
        """``content`` as ``store`` would keep it (redacted, stripped); InvalidRequest when empty or too long."""
        return clean_content(content, self._limits.max_content_chars)

    def _view(self, record: MemoryRecord) -> NormalizedMemory:
        return view(record, now=self._clock(), weights=self._weights)

    async def store(
        self,
        scope: Scope,
        *,
        collection: str,
        content: str,
        vector: bytes = b"",
        tags: Sequence[str] = (),
        importance: float | None = None,
        confidence: float | None = None,
        metadata_json: str = "",
        initial_outcome: Outcome | None = None,
        allow_duplicate: bool = False,
        session_id: str = "",
        kind: str = "",
        user_wide: bool = False,
        memory_id_: str = "",
    ) -> StoreResult:
        """``memory_id_``: the id the memory gets if it is new (an exchange acknowledged before it was stored)."""
        check_collection(collection)
        text = clean_content(content, self._limits.max_content_chars)
        clean = clean_tags(tags)
        check_bank_attributes(collection, importance, confidence)
        extra = with_observation_importance(parse_extra_metadata(metadata_json), text)
        if collection == MEMORY_BANK:  # the scope of a fact (domain.fact_scope)
            extra[FACT_SCOPE] = scope_value(user_wide)
        embedding = await self._vectors.vector_for(text, vector)
        pending = PendingStore(
            scope,
            collection,
            text,
            embedding,
            clean,
            importance,
            confidence,
            extra,
            initial_outcome,
            allow_duplicate,
            session_id,
            kind,
            memory_id_,
        )
        owner = scope.owner_of(collection)
        return await self.batches.submit(f"write:{owner.user}:{owner.project}:{collection}", pending)

    async def _store_batch(self, items: list[PendingStore]) -> list[StoreResult | BaseException]:
        """One batch of one collection's stores (``BatchQueue`` holds the collection's lock meanwhile)."""
        if items[0].collection == MEMORY_BANK:
            return [await _outcome(self._store_one(item)) for item in items]
        results: list[StoreResult | BaseException | None] = [None] * len(items)
        found = await self._nearest_of_batch(items)
        waiting: list[tuple[int, MemoryRecord, Vector]] = []  # new memories not stored yet
        stale = False  # some of this batch's memories were stored after ``found`` was read
        for index, item in enumerate(items):
            neighbours = found[index]
            if not item.allow_duplicate:
                if waiting and self._near_any(item.embedding, [e for _, _, e in waiting]):
                    await self._add_waiting(items, waiting, results)  # decide against them once they are stored
                    waiting = []
                    stale = True
                if stale:
                    [neighbours] = await self._nearest_of_batch([item])
                if isinstance(neighbours, BaseException):
                    results[index] = neighbours
                    continue
                refreshed = await _outcome(self._refresh_nearest(item, neighbours))
                if refreshed is not None:
                    results[index] = refreshed
                    continue
            waiting.append((index, self._new_record(item), item.embedding))
        await self._add_waiting(items, waiting, results)
        return [r if r is not None else RuntimeError("store not processed") for r in results]

    async def _nearest_of_batch(self, items: list[PendingStore]) -> list[list[Neighbour] | BaseException]:
        """Each item's nearest active memories in its dedup pool, read from the mirrors, one call per collection."""
        found: list[list[Neighbour] | BaseException] = [[] for _ in items]
        by_scope: dict[Scope, list[int]] = {}
        for index, item in enumerate(items):
            by_scope.setdefault(item.scope, []).append(index)
        for scope, indexes in by_scope.items():
            vectors = [items[i].embedding for i in indexes]
            for collection in dedup_pool(items[indexes[0]].collection):
                groups = await _outcome(self._store.nearest_active(scope, collection, vectors, 2))
                for position, index in enumerate(indexes):
                    if isinstance(groups, BaseException):
                        found[index] = groups
                        continue
                    known = found[index]
                    if not isinstance(known, BaseException):
                        known += [Neighbour(r.id, r.collection, s, r.archived) for r, s in groups[position]]
        return found

    def _near_any(self, embedding: Vector, others: list[Vector]) -> bool:
        matrix = np.stack(others)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(embedding) or 1.0)
        similarity = (matrix @ embedding) / np.where(norms == 0, 1.0, norms)
        return bool(np.max(similarity) >= self._limits.dedup_threshold)

    async def _refresh_nearest(self, item: PendingStore, neighbours: list[Neighbour]) -> StoreResult | None:
        decision = decide(item.collection, neighbours, self._limits.dedup_threshold)
        if decision.refresh is None:
            return None
        done = await self._refresh(
            item.scope,
            decision.refresh.id,
            item.text,
            item.embedding,
            item.tags,
            item.importance,
            item.confidence,
            extra=item.extra,
        )
        return StoreResult(self._view(done), True) if done is not None else None

    async def _add_waiting(
        self,
        items: list[PendingStore],
        waiting: list[tuple[int, MemoryRecord, Vector]],
        results: list[StoreResult | BaseException | None],
    ) -> None:
        """One store call per scope for the batch's new memories; each writer gets its memory or the error."""
        by_scope: dict[Scope, list[tuple[int, MemoryRecord, Vector]]] = {}
        for entry in waiting:
            by_scope.setdefault(items[entry[0]].scope, []).append(entry)
        for scope, group in by_scope.items():
            try:
                stored = await self._store.add(scope, [(record, embedding) for _, record, embedding in group])
            except Exception as exc:
                for index, _, _ in group:
                    results[index] = exc
                continue
            for (index, _, _), record in zip(group, stored, strict=True):
                results[index] = StoreResult(self._view(record), False)

    def _new_record(self, item: PendingStore) -> MemoryRecord:
        return new_record(
            memory_id=item.memory_id or memory_id(item.collection, new_uid()),
            collection=item.collection,
            content=item.text,
            project=item.scope.project,
            now=self._clock(),
            tags=item.tags,
            importance=item.importance,
            confidence=item.confidence,
            initial_outcome=item.initial_outcome,
            session_id=item.session_id,
            extra=item.extra,
            kind=item.kind,
        )

    async def _store_one(self, item: PendingStore) -> StoreResult:
        """A store on its own: dedup, the memory_bank cap, the add, and the facts it supersedes."""
        if not item.allow_duplicate:
            refreshed = await self._refresh_nearest(
                item, await self._nearest(item.scope, item.collection, item.embedding)
            )
            if refreshed is not None:
                return refreshed
        if item.collection == MEMORY_BANK:
            await self._check_bank_cap(item.scope)
        [stored] = await self._store.add(item.scope, [(self._new_record(item), item.embedding)])
        stored, superseded = await supersede_older_facts(self._store, self._locks, item.scope, stored, self._clock())
        return StoreResult(self._view(stored), False, tuple(superseded))

    async def _nearest(self, scope: Scope, collection: str, vector: Vector) -> list[Neighbour]:
        groups = await asyncio.gather(*(self._store.nearest(scope, c, vector, 2) for c in dedup_pool(collection)))
        return [
            Neighbour(record.id, record.collection, similarity, record.archived)
            for group in groups
            for record, similarity in group
        ]

    async def _check_bank_cap(self, scope: Scope) -> None:
        cap = self._limits.memory_bank_cap
        if cap <= 0:
            return
        active = await active_fact_count(self._store, scope)  # from the index, not a read of every fact
        if active >= cap:
            raise LimitReached(
                f"memory_bank already holds {active} active facts (cap {cap}): archive outdated "
                "facts, or raise MNEMEX_MEMORY_BANK_CAP"
            )

    async def _refresh(
        self,
        scope: Scope,
        existing_id: str,
        text: str,
        embedding: Vector,
        tags: list[str],
        importance: float | None,
        confidence: float | None,
        *,
        extra: dict[str, Scalar] | None = None,
    ) -> MemoryRecord | None:
        _, uid = split_id(existing_id)
        async with self._locks.hold(uid):
            current = await self._store.locate(scope, existing_id)
            if current is None or current.archived or kept_apart(current, text):
                return None  # another value (a new fact that supersedes this one) or another subject
            if extra is not None and not same_scope(current, replace(current, project=scope.project, extra=extra)):
                return None  # the same words in another scope (domain.fact_scope) are that scope's own fact
            after = refreshed(
                current, content=text, now=self._clock(), new_tags=tags, importance=importance, confidence=confidence
            )
            return await self._store.update(scope, current, after, embedding)

    async def update(
        self,
        scope: Scope,
        memory_id_: str,
        *,
        content: str | None,
        tags: Sequence[str],
        replace_tags: bool,
        importance: float | None,
        confidence: float | None,
    ) -> NormalizedMemory:
        memory_id_ = check_id(memory_id_)
        new_tags = clean_tags(tags)
        check_unit("importance", importance)
        check_unit("confidence", confidence)
        if content is None and not new_tags and not replace_tags and importance is None and confidence is None:
            raise InvalidRequest(
                "nothing to update: pass content, tags (with replace_tags to overwrite), importance or confidence"
            )
        text = clean_content(content, self._limits.max_content_chars) if content is not None else None
        embedding = await self._vectors.vector_for(text) if text is not None else None
        _, uid = split_id(memory_id_)
        async with self._locks.hold(uid):
            current = await self._located(scope, memory_id_)
            check_bank_attributes(current.collection, importance, confidence)
            after = replace(current, updated_at=self._clock())
            if replace_tags or new_tags:
                after = replace(after, tags=tuple(new_tags if replace_tags else merge_tags(current.tags, new_tags)))
            if importance is not None:
                after = replace(after, importance=importance)
            if confidence is not None:
                after = replace(after, confidence=confidence)
            if text is not None:
                after = replace(after, content=text)
            return self._view(await self._store.update(scope, current, after, embedding))

    async def _located(self, scope: Scope, memory_id_: str) -> MemoryRecord:
        current = await self._store.locate(scope, memory_id_)
        if current is None:
            raise MemoryNotFound(f"no memory {memory_id_!r} in this scope: check the id (search_memory shows [id:...])")
        return current

    async def archive(self, scope: Scope, memory_id_: str, reason: str) -> NormalizedMemory:
        memory_id_ = check_id(memory_id_)
        if len(reason) > MAX_REASON_CHARS:
            raise InvalidRequest(f"reason is longer than {MAX_REASON_CHARS} characters")
        _, uid = split_id(memory_id_)
        async with self._locks.hold(uid):
            current = await self._located(scope, memory_id_)
            if current.archived:
                return self._view(current)
            now = self._clock()
            after = replace(
                current, archived=True, archived_at=now, archived_reason=redact(reason.strip()), updated_at=now
            )
            return self._view(await self._store.update(scope, current, after))


async def _outcome(work: Awaitable[T]) -> T | BaseException:
    """``work``'s result, or the exception it raised (one writer's failure is that writer's alone)."""
    try:
        return await work
    except Exception as exc:
        return exc
