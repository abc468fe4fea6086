"""Use case: consolidation, with the assistant as the brain (the service runs no model).

- ``candidates`` lists clusters that need a decision (``domain.consolidation_rules``):
  near-duplicates, contradictions, stale entries, each with the memories' ids,
  scores, uses and dates.
- ``consolidate`` applies the assistant's decision: one merged memory, written
  by the assistant, whose ``consolidated_from`` metadata lists the source ids;
  every source is archived (never deleted) with ``superseded_by`` naming the
  merged memory. The merged memory takes the counters (score, uses, successes)
  of its best scored source, so proven evidence is not reset, and memory_bank
  importance / confidence default to the highest among the source facts.
- A consolidation is idempotent and crash-safe. The merged memory's id is the consolidation key of
  its sources (``domain.consolidation_key``): the same sources again return the merge
  already made, archiving any source the first call did not reach, so a retry
  never makes a second merged memory. Before its first write a consolidation records
  its intent (``storage.consolidation_journal``); ``recover``, run before the service
  serves, finishes every consolidation a crash interrupted.
- ``undo`` reverses either a consolidation or an automatic supersede
  (``usecases.supersession``): the sources become active again (``restored_at`` is
  set, ``superseded_by`` cleared); a merged memory is archived with the reason
  "consolidation undone", while a superseding fact, which the user stated
  themselves, stays active and loses its ``supersedes`` link.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from kernel.privacy import redact
from services.memory.domain import consolidation_rules as rules
from services.memory.domain.arrays import Vector
from services.memory.domain.consolidation_key import MAX_ATTEMPTS, consolidation_uid, same_sources
from services.memory.domain.consolidation_rules import CandidateRules, Cluster
from services.memory.domain.memory_errors import InvalidRequest, MemoryNotFound
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import (
    BOOKS,
    MEMORY_BANK,
    SCORED_COLLECTIONS,
    WORKING,
    Scope,
    check_collection,
    check_id,
    memory_id,
    split_id,
)
from services.memory.domain.ranking import RankingWeights, RankInput, learned_score
from services.memory.domain.record import MemoryRecord
from services.memory.domain.write_rules import (
    MAX_REASON_CHARS,
    check_bank_attributes,
    clean_content,
    clean_tags,
    new_record,
)
from services.memory.storage.consolidation_journal import ConsolidationIntent, ConsolidationJournal
from services.memory.usecases.content_writes import ContentWrites
from services.memory.usecases.supersession import supersede_older_facts

UNDONE_REASON = "consolidation undone"


@dataclass(frozen=True)
class CandidateCluster:
    kind: str
    reason: str
    similarity: float | None
    memories: list[NormalizedMemory]


@dataclass(frozen=True)
class Consolidated:
    merged: NormalizedMemory
    archived: list[NormalizedMemory]


@dataclass(frozen=True)
class Undo:
    restored: list[NormalizedMemory]
    merged: NormalizedMemory


class Consolidation:
    def __init__(
        self,
        writes: ContentWrites,
        *,
        max_content_chars: int,
        weights: RankingWeights,
        candidate_rules: CandidateRules | None = None,
        journal: ConsolidationJournal | None = None,
    ) -> None:
        self._journal = journal  # intents of merges in progress (None: no crash recovery, as in unit tests)
        self._store, self._vectors, self._locks, self._clock = writes.store, writes.vectors, writes.locks, writes.clock
        self._max_chars = max_content_chars
        self._weights = weights
        self._rules = candidate_rules or CandidateRules()

    def _view(self, record: MemoryRecord) -> NormalizedMemory:
        return view(record, now=self._clock(), weights=self._weights)

    async def _pool(self, scope: Scope, collections: tuple[str, ...]) -> tuple[list[MemoryRecord], Vector]:
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
    ) -> Consolidated:
        """Merge ``source_ids`` into one memory; the same sources again return the merge already made."""
        ids = rules.check_sources(source_ids)
        text = clean_content(content, self._max_chars)
        if len(reason) > MAX_REASON_CHARS:
            raise InvalidRequest(f"reason is longer than {MAX_REASON_CHARS} characters")
        requested = check_collection(collection.strip()) if collection.strip() else ""
        uids = [split_id(check_id(i))[1] for i in ids]
        async with self._locks.hold(f"merge:{scope.user}:{scope.project}:{consolidation_uid(uids)}"):
            attempt, earlier = await self._earlier_consolidation(scope, uids)
            if earlier is not None:  # a retry: finish what the first call may have left undone
                recorded = rules.linked_ids(earlier.extra.get(rules.CONSOLIDATED_FROM))
                return await self._complete(scope, earlier, recorded)
            sources = await self._sources(scope, ids)
            record, embedding = await self._merged_record(
                scope, sources, consolidation_uid(uids, attempt), text, requested, tags, importance, confidence, reason
            )
            intent = ConsolidationIntent(scope.user, scope.project, record.id, tuple(s.id for s in sources))
            if self._journal is not None:
                await asyncio.to_thread(self._journal.begin, intent)
            owner = scope.owner_of(record.collection)
            async with self._locks.hold(f"write:{owner.user}:{owner.project}:{record.collection}"):  # MemoryWrites'
                [merged] = await self._store.add(scope, [(record, embedding)])
            merge = await self._complete(scope, merged, [s.id for s in sources])
            if self._journal is not None:
                await asyncio.to_thread(self._journal.finish, record.id)
            return merge

    async def _earlier_consolidation(self, scope: Scope, uids: list[str]) -> tuple[int, MemoryRecord | None]:
        """(attempt, merged memory) of a merge of exactly these sources that was not undone; else the
        first free attempt and None."""
        for attempt in range(MAX_ATTEMPTS):
            # any collection: the merge may have been promoted or demoted since
            found = await self._store.locate(scope, memory_id(WORKING, consolidation_uid(uids, attempt)))
            if found is None:
                return attempt, None
            recorded = [split_id(i)[1] for i in rules.linked_ids(found.extra.get(rules.CONSOLIDATED_FROM))]
            if not same_sources(recorded, uids):
                continue  # another memory holds this uid (odds ~1e-15): take the next
            if found.archived and found.archived_reason == UNDONE_REASON:
                continue  # merged once and undone: merging again makes a new memory
            return attempt, found
        raise InvalidRequest(
            f"these sources were merged and undone {MAX_ATTEMPTS} times: store the merged text with "
            "record_memory and archive the sources instead"
        )

    async def _merged_record(
        self,
        scope: Scope,
        sources: list[MemoryRecord],
        uid: str,
        text: str,
        requested: str,
        tags: Sequence[str],
        importance: float | None,
        confidence: float | None,
        reason: str,
    ) -> tuple[MemoryRecord, Vector]:
        target = rules.consolidation_target(sources, requested)
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
        source_tags = [t for s in sources for t in s.tags]
        record = new_record(
            memory_id=memory_id(target, uid),
            collection=target,
            content=text,
            project=scope.project,
            now=self._clock(),
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
        return record, embedding

    async def _complete(self, scope: Scope, merged: MemoryRecord, source_ids: Sequence[str]) -> Consolidated:
        """Archive every source of ``merged`` still active (when ``merged`` is); the merge as answered."""
        now = self._clock()
        archived = []
        for source_id in source_ids:
            async with self._locks.hold(split_id(source_id)[1]):
                current = await self._store.locate(scope, source_id)
                if current is None:
                    continue
                if current.archived:
                    if current.extra.get(rules.SUPERSEDED_BY) == merged.id:
                        archived.append(current)  # archived by this merge already (a retry)
                    continue
                if merged.archived:
                    continue  # the merge was retired since: leave its sources as they are
                after = rules.superseded(current, merged.id, now, f"consolidated into {merged.id}")
                archived.append(await self._store.update(scope, current, after))
        if merged.collection == MEMORY_BANK and not merged.archived:  # may contradict facts outside the merge
            owner = scope.owner_of(MEMORY_BANK)
            async with self._locks.hold(f"write:{owner.user}:{owner.project}:{MEMORY_BANK}"):
                merged, _ = await supersede_older_facts(self._store, self._locks, scope, merged, now)
        return Consolidated(self._view(merged), [self._view(a) for a in archived])

    async def recover(self) -> int:
        """Finish the merges a crash interrupted (see ``storage.consolidation_journal``); how many there were.

        A merged memory that was written gets its remaining sources archived (rolled forward);
        one that was not leaves the sources as they were (nothing to roll back)."""
        if self._journal is None:
            return 0
        intents = await asyncio.to_thread(self._journal.pending)
        for intent in intents:
            scope = Scope(intent.user, intent.project)
            merged = await self._store.locate(scope, intent.merged_id)
            if merged is not None:
                await self._complete(scope, merged, intent.source_ids)
            await asyncio.to_thread(self._journal.finish, intent.merged_id)
        return len(intents)

    async def undo(self, scope: Scope, merged_id: str) -> Undo:
        merged_id = check_id(merged_id)
        async with self._locks.hold(split_id(merged_id)[1]):
            merged = await self._store.locate(scope, merged_id)
            if merged is None:
                raise MemoryNotFound(f"no memory {merged_id!r} in this scope: pass the merged memory's id")
            consolidated_sources = rules.linked_ids(merged.extra.get(rules.CONSOLIDATED_FROM))
            superseded_ids = rules.linked_ids(merged.extra.get(rules.SUPERSEDES))
            if not consolidated_sources and not superseded_ids:
                raise InvalidRequest(
                    f"{merged_id} neither merges nor supersedes other memories: pass the id that "
                    "consolidate_memories returned (or a fact whose metadata lists supersedes)"
                )
            now = self._clock()
            if consolidated_sources:
                if merged.archived and merged.archived_reason == UNDONE_REASON:
                    raise InvalidRequest(f"the consolidation {merged_id} was already undone")
                after = replace(merged, archived=True, archived_at=now, archived_reason=UNDONE_REASON, updated_at=now)
            else:
                after = replace(merged, updated_at=now, extra={**merged.extra, rules.SUPERSEDES: ""})
            merged = await self._store.update(scope, merged, after)
        restored = []
        for source_id in [*consolidated_sources, *superseded_ids]:
            async with self._locks.hold(split_id(source_id)[1]):
                current = await self._store.locate(scope, source_id)
                if current is None or not current.archived or current.extra.get(rules.SUPERSEDED_BY) != merged_id:
                    continue  # gone, restored already, or superseded by something else since
                restored.append(await self._store.update(scope, current, rules.restored(current, now)))
        return Undo([self._view(r) for r in restored], self._view(merged))
