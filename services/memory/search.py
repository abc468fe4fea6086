"""Search and read paths: every result is scored, filtered, sorted and normalized.

The three empty-query bugs of the Roampal notes cannot come back here because
the no-query path is not a separate pipeline: it shares candidate filtering
(time window and metadata filters), ranking and normalization with the query
path, and sorting always reads the normalized ``created_at``.

A prompt (a query vector, relevance order, no filters, no time window) goes to
``prompt_search``, which ranks the same candidates with the same formula from
columns; a test holds its results equal to this module's generic path.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from services.memory import prompt_search
from services.memory.errors import EmbeddingUnavailable, MemoryNotFound
from services.memory.naming import Scope, check_collection, check_id
from services.memory.normalize import (
    NormalizedMemory,
    as_bool,
    normalize,
    rank_facts,
    rank_input,
)
from services.memory.ranking import RankInput, final_rank
from services.memory.retrieval_hybrid import QueryPlan, hybrid_relevance
from services.memory.retrieve import Candidate, gather_candidates
from services.memory.runtime import Runtime, vector_from_bytes
from services.memory.scoring import wilson_lower_bound
from services.memory.search_rules import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    SearchParams,
    SortBy,
    matches,
    sort_memories,
    within,
)
from services.memory.store import StoredMemory

MAX_LIST_OFFSET = 1_000_000
log = logging.getLogger("mnemex.memory.search")


def _build_mirrors(rt: Runtime, scope: Scope, collections: tuple[str, ...]) -> None:
    for collection in collections:
        rt.mirrors.warm(scope, collection)


def normalized(rt: Runtime, memory: StoredMemory) -> NormalizedMemory:
    return normalize(memory.id, memory.collection, memory.document, memory.metadata, now=rt.now(), weights=rt.settings.ranking)


async def search(rt: Runtime, scope: Scope, params: SearchParams, query_vector: bytes = b"") -> list[NormalizedMemory]:
    now = rt.now()
    if params.memory_id:
        memory = await rt.locate(scope, params.memory_id)
        if memory is None or as_bool(memory.metadata.get("archived", False)):
            return []
        return [normalized(rt, memory)]
    vector = None
    lexical_only = False
    if query_vector:
        vector = vector_from_bytes(query_vector, rt.settings.vector_dim)
    elif params.query:
        try:
            vector = await rt.vector_for(params.query)
        except EmbeddingUnavailable as exc:
            if not rt.settings.retrieval.hybrid:
                raise
            log.warning("search: %s; answering from keyword matches alone", exc)
            lexical_only = True
    cutoff = now - timedelta(days=params.days_back) if params.days_back else None
    retrieval = rt.settings.retrieval
    plan = QueryPlan.of(params.query) if params.query and retrieval.hybrid else None
    # The prompt path (a query, relevance order, no filters) ranks in columns, see prompt_search.
    prune = (vector is not None or lexical_only) and params.sort_by is SortBy.RELEVANCE and not params.filters and cutoff is None
    if prune and vector is not None:
        if not rt.mirrors.all_built(scope, params.collections):
            await rt.io(_build_mirrors, rt, scope, params.collections)
        return await prompt_search.search(rt, scope, params, vector, plan)
    candidates = await gather_candidates(rt, scope, params, vector, cutoff, lexical_only)
    weights = rt.settings.ranking
    # Rank candidates from their metadata alone, sort, then normalize only
    # until ``limit`` results passed the time window and the filters.
    scored: list[tuple[float, Candidate, float | None]] = []
    for cand in candidates:
        memory = cand.memory
        if as_bool(memory.metadata.get("archived", False)):
            continue
        rel = None
        if vector is not None:
            similarity = cand.similarity if cand.similarity is not None else 0.0
            rel = hybrid_relevance(similarity, cand.lexical_share, plan, memory.document, retrieval)
        elif lexical_only:
            rel = cand.lexical_share or 0.0
        weight = params.collection_weights.get(memory.collection, 1.0)
        scored.append((weight * rel if rel is not None else 0.0, cand, rel))
    # A keyword-only prompt (no embedding) stops early: final rank is at most
    # weight * relevance * max trust, so once that bound falls below the limit-th best final
    # rank found so far, no later candidate can enter the results.
    if prune:
        scored.sort(key=lambda s: s[0], reverse=True)
    ceiling = 1.0 + weights.max_trust_gain
    ranked: list[_Ranked] = []
    best: list[float] = []  # min-heap of the best ``limit`` final ranks so far
    for bound, cand, rel in scored:
        if prune and len(best) >= params.limit and bound * ceiling < best[0]:
            break
        memory = cand.memory
        facts = cand.facts if cand.facts is not None else rank_facts(memory.collection, memory.metadata)
        item = rank_input(
            memory.collection,
            memory.metadata,
            now=now,
            relevance=rel,
            collection_weight=params.collection_weights.get(memory.collection, 1.0),
            facts=facts,
        )
        final = final_rank(item, weights)
        ranked.append(_Ranked(cand, item, final, facts.created_ts))
        if prune:
            heapq.heappush(best, final)
            if len(best) > params.limit:
                heapq.heappop(best)
    ranked.sort(key=_SORT_KEYS[params.sort_by], reverse=True)
    results: list[NormalizedMemory] = []
    for row in ranked:
        memory = row.candidate.memory
        shaped = normalize(
            memory.id,
            memory.collection,
            memory.document,
            memory.metadata,
            now=now,
            similarity=row.candidate.similarity,
            final_rank_score=row.final,
            weights=weights,
        )
        if within(shaped, cutoff) and matches(shaped, params.filters):
            results.append(shaped)
            if len(results) == params.limit:
                break
    return results


@dataclass(frozen=True)
class _Ranked:
    candidate: Candidate
    item: RankInput
    final: float
    created_ts: float


# The same orders as ``search_rules.sort_memories``, read from metadata before normalizing.
_SORT_KEYS: dict[SortBy, Callable[[_Ranked], tuple[float | str, ...]]] = {
    SortBy.RELEVANCE: lambda r: (r.final, r.created_ts, r.candidate.memory.id),
    SortBy.RECENCY: lambda r: (r.created_ts, r.final, r.candidate.memory.id),
    SortBy.SCORE: lambda r: (r.item.score, wilson_lower_bound(r.item.success_count, r.item.uses), r.final, r.candidate.memory.id),
}


async def get_memory(rt: Runtime, scope: Scope, memory_id: str) -> NormalizedMemory:
    memory_id = check_id(memory_id)
    memory = await rt.locate(scope, memory_id)
    if memory is None:
        raise MemoryNotFound(f"no memory {memory_id!r} in this scope: check the id, or search with days_back to browse")
    return normalized(rt, memory)


async def list_memories(
    rt: Runtime,
    scope: Scope,
    collection: str,
    *,
    limit: int,
    offset: int,
    include_archived: bool,
    sort_by: str,
) -> tuple[list[NormalizedMemory], int]:
    from services.memory.errors import InvalidRequest

    check_collection(collection)
    limit = limit or DEFAULT_LIMIT
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit={limit} is out of range: use 1-{MAX_LIMIT}")
    if offset > MAX_LIST_OFFSET:
        raise InvalidRequest(f"offset={offset} is too large (max {MAX_LIST_OFFSET})")
    try:
        order = SortBy(sort_by) if sort_by else SortBy.RECENCY
    except ValueError:
        raise InvalidRequest(f"sort_by={sort_by!r} is unknown: use relevance, recency or score") from None
    now = rt.now()
    rows = await rt.io(rt.store.scan, scope, collection)
    items = []
    for row in rows:
        if not include_archived and as_bool(row.metadata.get("archived", False)):
            continue
        rank = final_rank(rank_input(collection, row.metadata, now=now), rt.settings.ranking)
        items.append(
            normalize(row.id, collection, row.document, row.metadata, now=now, final_rank_score=rank, weights=rt.settings.ranking)
        )
    ordered = sort_memories(items, order)
    return ordered[offset : offset + limit], len(ordered)
