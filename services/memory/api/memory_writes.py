"""Use cases that write one memory: store (with near-duplicate refresh), update, archive.

A memory_bank store also supersedes the older facts it contradicts (``api.supersession``).

Every text is redacted (``kernel.privacy.redact``) before it is embedded or
stored. A write is acknowledged only after the store call returned. Writers
of one memory hold its uid lock; stores into one collection hold that
collection's lock, so two near-duplicates arriving together cannot both be
created.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from kernel.privacy import redact
from services.memory.api.supersession import supersede_older_facts, supersedes
from services.memory.domain.dedup import Neighbour, decide, dedup_pool, merge_tags, refreshed
from services.memory.domain.errors import InvalidRequest, LimitReached, MemoryNotFound
from services.memory.domain.naming import MEMORY_BANK, Scope, check_collection, check_id, memory_id, new_uid, split_id
from services.memory.domain.observations import with_observation_importance
from services.memory.domain.outcomes import Outcome
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.record import MemoryRecord
from services.memory.domain.view import NormalizedMemory, view
from services.memory.domain.write_rules import (
    MAX_REASON_CHARS,
    check_bank_attributes,
    check_unit,
    clean_content,
    clean_tags,
    new_record,
    parse_extra_metadata,
)
from services.memory.retrieval.vectors import Vectors
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore


@dataclass(frozen=True)
class StoreResult:
    memory: NormalizedMemory
    deduplicated: bool
    superseded: tuple[str, ...] = ()  # memory_bank facts this one archived (``api.supersession``)


@dataclass(frozen=True)
class WriteLimits:
    max_content_chars: int
    dedup_threshold: float
    memory_bank_cap: int


class MemoryWrites:
    def __init__(
        self,
        store: MemoryStore,
        vectors: Vectors,
        locks: KeyedLocks,
        *,
        limits: WriteLimits,
        weights: RankingWeights,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._locks = locks
        self._limits = limits
        self._weights = weights
        self._clock = clock

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
    ) -> StoreResult:
        check_collection(collection)
        text = clean_content(content, self._limits.max_content_chars)
        clean = clean_tags(tags)
        check_bank_attributes(collection, importance, confidence)
        extra = with_observation_importance(parse_extra_metadata(metadata_json), text)
        embedding = await self._vectors.vector_for(text, vector)
        owner = scope.owner_of(collection)
        async with self._locks.hold(f"write:{owner.user}:{owner.project}:{collection}"):
            if not allow_duplicate:
                decision = decide(
                    collection, await self._nearest(scope, collection, embedding), self._limits.dedup_threshold
                )
                if decision.refresh is not None:
                    done = await self._refresh(
                        scope, decision.refresh.id, text, embedding, clean, importance, confidence
                    )
                    if done is not None:
                        return StoreResult(self._view(done), True)
            if collection == MEMORY_BANK:
                await self._check_bank_cap(scope)
            record = new_record(
                memory_id=memory_id(collection, new_uid()),
                collection=collection,
                content=text,
                project=scope.project,
                now=self._clock(),
                tags=clean,
                importance=importance,
                confidence=confidence,
                initial_outcome=initial_outcome,
                session_id=session_id,
                extra=extra,
                kind=kind,
            )
            [stored] = await self._store.add(scope, [(record, embedding)])
            stored, superseded = await supersede_older_facts(self._store, self._locks, scope, stored, self._clock())
            return StoreResult(self._view(stored), False, tuple(superseded))

    async def _nearest(self, scope: Scope, collection: str, vector: np.ndarray) -> list[Neighbour]:
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
        active = sum(1 for r in await self._store.scan(scope, MEMORY_BANK, content=False) if not r.archived)
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
        embedding: np.ndarray,
        tags: list[str],
        importance: float | None,
        confidence: float | None,
    ) -> MemoryRecord | None:
        _, uid = split_id(existing_id)
        async with self._locks.hold(uid):
            current = await self._store.locate(scope, existing_id)
            if current is None or current.archived or supersedes(current, text):
                return None  # a fact with another value is a new fact that supersedes this one
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
            current = await self._store.locate(scope, memory_id_)
            if current is None:
                raise MemoryNotFound(
                    f"no memory {memory_id_!r} in this scope: check the id (search_memory shows [id:...])"
                )
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

    async def archive(self, scope: Scope, memory_id_: str, reason: str) -> NormalizedMemory:
        memory_id_ = check_id(memory_id_)
        if len(reason) > MAX_REASON_CHARS:
            raise InvalidRequest(f"reason is longer than {MAX_REASON_CHARS} characters")
        _, uid = split_id(memory_id_)
        async with self._locks.hold(uid):
            current = await self._store.locate(scope, memory_id_)
            if current is None:
                raise MemoryNotFound(
                    f"no memory {memory_id_!r} in this scope: check the id (search_memory shows [id:...])"
                )
            if current.archived:
                return self._view(current)
            now = self._clock()
            after = replace(
                current, archived=True, archived_at=now, archived_reason=redact(reason.strip()), updated_at=now
            )
            return self._view(await self._store.update(scope, current, after))
