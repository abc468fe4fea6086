"""Use case: consolidation, with the assistant as the brain (the service runs no model).

- ``candidates`` lists clusters that need a decision (``domain.consolidation``):
  near-duplicates, contradictions, stale entries, each with the memories' ids,
  scores, uses and dates.
- ``consolidate`` applies the assistant's decision: one merged memory, written
  by the assistant, whose ``consolidated_from`` metadata lists the source ids;
  every source is archived (never deleted) with ``superseded_by`` naming the
  merged memory. The merged memory takes the counters (score, uses, successes)
  of its best scored source, so proven evidence is not reset, and memory_bank
  importance / confidence default to the highest among the source facts.
- ``undo`` reverses either a merge or an automatic supersede
  (``api.supersession``): the sources become active again (``restored_at`` is
  set, ``superseded_by`` cleared); a merged memory is archived with the reason
  "consolidation undone", while a superseding fact, which the user stated
  themselves, stays active and loses its ``supersedes`` link.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from kernel.privacy import redact
from services.memory.api.supersession import supersede_older_facts
from services.memory.domain import consolidation as rules
from services.memory.domain.consolidation import CandidateRules, Cluster
from services.memory.domain.errors import InvalidRequest, MemoryNotFound
from services.memory.domain.naming import (
    BOOKS,
    MEMORY_BANK,
    SCORED_COLLECTIONS,
    Scope,
    check_collection,
    check_id,
    memory_id,
    new_uid,
    split_id,
)
from services.memory.domain.ranking import RankingWeights, RankInput, learned_score
from services.memory.domain.record import MemoryRecord
from services.memory.domain.view import NormalizedMemory, view
from services.memory.domain.write_rules import (
    MAX_REASON_CHARS,
    check_bank_attributes,
    clean_content,
    clean_tags,
    new_record,
)
from services.memory.retrieval.vectors import Vectors
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore

UNDONE_REASON = "consolidation undone"


@dataclass(frozen=True)
class CandidateCluster:
    kind: str
    reason: str
    similarity: float | None
    memories: list[NormalizedMemory]


@dataclass(frozen=True)
class Merge:
    merged: NormalizedMemory
    archived: list[NormalizedMemory]


@dataclass(frozen=True)
class Undo:
    restored: list[NormalizedMemory]
    merged: NormalizedMemory


class Consolidation:
    def __init__(
        self,
        store: MemoryStore,
        vectors: Vectors,
        locks: KeyedLocks,
        *,
        max_content_chars: int,
        weights: RankingWeights,
        clock: Callable[[], datetime],
        candidate_rules: CandidateRules | None = None,
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._locks = locks
        self._max_chars = max_content_chars
        self._weights = weights
        self._clock = clock
        self._rules = candidate_rules or CandidateRules()

    def _view(self, record: MemoryRecord) -> NormalizedMemory:
        return view(record, now=self._clock(), weights=self._weights)

    async def _pool(self, scope: Scope, collections: tuple[str, ...]) -> tuple[list[MemoryRecord], np.ndarray]:
        groups = await asyncio.gather(*(self._store.active_rows(scope, c) for c in collections))
        records = [r for rows, _ in groups for r in rows]
        vectors = np.concatenate([v for _, v in groups]) if groups else np.zeros((0, 0), dtype=np.float32)
        return rules.recent_first(records, vectors, self._rules.max_rows)

    async def candidates(self, scope: Scope, kinds: Sequence[str], limit: int) -> tuple[list[CandidateCluster], int]:
        """Up to ``limit`` clusters of the chosen kinds (contradictions first), and how many memories were examined."""
        chosen, limit = rules.check_kinds(kinds), rules.check_limit(limit)
        scored, scored_vectors = await self._pool(scope, SCORED_COLLECTIONS)
        facts, fact_vectors = await self._pool(scope, (MEMORY_BANK,))
        found: list[Cluster] = []
        if rules.CONTRADICTION in chosen:
            found += rules.fact_contradictions(facts)
            found += rules.failed_contradictions(facts, fact_vectors, self._rules)
            found += rules.failed_contradictions(scored, scored_vectors, self._rules)
        if rules.DUPLICATE in chosen:
            shown = {frozenset(m.id for m in c.members) for c in found}
            for cluster in [
                *rules.duplicates(facts, fact_vectors, self._rules),
                *rules.duplicates(scored, scored_vectors, self._rules),
            ]:
                if frozenset(m.id for m in cluster.members) not in shown:  # listed as a contradiction already
                    found.append(cluster)
        if rules.STALE in chosen:
            found += rules.stale([*facts, *scored], self._clock(), self._rules)
        clusters = [
            CandidateCluster(c.kind, c.reason, c.similarity, [self._view(m) for m in c.members]) for c in found[:limit]
        ]
        return clusters, len(scored) + len(facts)

    async def _sources(self, scope: Scope, ids: list[str]) -> list[MemoryRecord]:
        sources = []
        for source_id in ids:
            check_id(source_id)
            record = await self._store.locate(scope, source_id)
            if record is None:
                raise MemoryNotFound(f"no memory {source_id!r} in this scope: copy ids from the candidate list")
            if record.archived:
                raise InvalidRequest(f"{record.id} is already archived: leave it out of source_ids")
            if record.collection == BOOKS:
                raise InvalidRequest(f"{record.id} is a book chunk; books are not consolidated")
            sources.append(record)
        return sources

    async def consolidate(
        self,
        scope: Scope,
        *,
        source_ids: Sequence[str],
        content: str,
        collection: str = "",
        tags: Sequence[str] = (),
        importance: float | None = None,
        confidence: float | None = None,
        reason: str = "",
    ) -> Merge:
        ids = rules.check_sources(source_ids)
        text = clean_content(content, self._max_chars)
        if len(reason) > MAX_REASON_CHARS:
            raise InvalidRequest(f"reason is longer than {MAX_REASON_CHARS} characters")
        requested = check_collection(collection.strip()) if collection.strip() else ""
        sources = await self._sources(scope, ids)
        target = rules.merge_target(sources, requested)
        check_bank_attributes(target, importance, confidence)
        facts = [s for s in sources if s.collection == MEMORY_BANK]
        if target == MEMORY_BANK:
            importance = (
                importance if importance is not None else max((f.importance or 0.7 for f in facts), default=0.7)
            )
            confidence = (
                confidence if confidence is not None else max((f.confidence or 0.7 for f in facts), default=0.7)
            )
        embedding = await self._vectors.vector_for(text)
        now = self._clock()
        source_tags = [t for s in sources for t in s.tags]
        record = new_record(
            memory_id=memory_id(target, new_uid()),
            collection=target,
            content=text,
            project=scope.project,
            now=now,
            tags=clean_tags(list(dict.fromkeys([*tags, *source_tags]))[:20]),
            importance=importance,
            confidence=confidence,
            initial_outcome=None,
            session_id="",
            extra={rules.CONSOLIDATED_FROM: ",".join(s.id for s in sources), "consolidation_reason": redact(reason)},
        )
        proven = [s for s in sources if s.collection in SCORED_COLLECTIONS]
        if target in SCORED_COLLECTIONS and proven:
            best = max(proven, key=lambda s: learned_score(RankInput.of(s), self._weights))
            record = replace(record, counters=best.counters)
        owner = scope.owner_of(target)
        async with self._locks.hold(f"write:{owner.user}:{owner.project}:{target}"):  # MemoryWrites' lock
            [merged] = await self._store.add(scope, [(record, embedding)])
        archived = []
        for source in sources:
            async with self._locks.hold(split_id(source.id)[1]):
                current = await self._store.locate(scope, source.id)
                if current is None or current.archived:
                    continue
                after = rules.superseded(current, merged.id, now, f"consolidated into {merged.id}")
                archived.append(await self._store.update(scope, current, after))
        if target == MEMORY_BANK:  # the merged fact may contradict facts outside the merge too
            async with self._locks.hold(f"write:{owner.user}:{owner.project}:{target}"):
                merged, _ = await supersede_older_facts(self._store, self._locks, scope, merged, now)
        return Merge(self._view(merged), [self._view(a) for a in archived])

    async def undo(self, scope: Scope, merged_id: str) -> Undo:
        merged_id = check_id(merged_id)
        async with self._locks.hold(split_id(merged_id)[1]):
            merged = await self._store.locate(scope, merged_id)
            if merged is None:
                raise MemoryNotFound(f"no memory {merged_id!r} in this scope: pass the merged memory's id")
            merge_sources = rules.linked_ids(merged.extra.get(rules.CONSOLIDATED_FROM))
            superseded_ids = rules.linked_ids(merged.extra.get(rules.SUPERSEDES))
            if not merge_sources and not superseded_ids:
                raise InvalidRequest(
                    f"{merged_id} neither merges nor supersedes other memories: pass the id that "
                    "consolidate_memories returned (or a fact whose metadata lists supersedes)"
                )
            now = self._clock()
            if merge_sources:
                if merged.archived and merged.archived_reason == UNDONE_REASON:
                    raise InvalidRequest(f"the consolidation {merged_id} was already undone")
                after = replace(merged, archived=True, archived_at=now, archived_reason=UNDONE_REASON, updated_at=now)
            else:
                after = replace(merged, updated_at=now, extra={**merged.extra, rules.SUPERSEDES: ""})
            merged = await self._store.update(scope, merged, after)
        restored = []
        for source_id in [*merge_sources, *superseded_ids]:
            async with self._locks.hold(split_id(source_id)[1]):
                current = await self._store.locate(scope, source_id)
                if current is None or not current.archived or current.extra.get(rules.SUPERSEDED_BY) != merged_id:
                    continue  # gone, restored already, or superseded by something else since
                restored.append(await self._store.update(scope, current, rules.restored(current, now)))
        return Undo([self._view(r) for r in restored], self._view(merged))
