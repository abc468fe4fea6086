"""The generic search path: every candidate ranked, then filtered, sorted and shaped.

Every search that is not a plain prompt comes here: a time window, metadata
filters, another sort order, no query at all, or no embedding (keyword
matches alone). The three empty-query bugs of the Roampal notes cannot come
back: the no-query path is not a separate pipeline, it shares candidate
filtering (time window and metadata filters), ranking and the view with the
query path, and sorting reads the same creation time the view shows.

Candidates are ranked from their records alone and sorted; only then are
views built, until ``limit`` of them passed the time window and the filters.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from kernel.blocking_io import BlockingIO
from services.memory.domain.arrays import Vector
from services.memory.domain.filters import matches, within
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import Scope
from services.memory.domain.ranking import RankingWeights, RankInput, final_rank
from services.memory.domain.scoring import wilson_lower_bound
from services.memory.domain.search_params import SearchParams, SortBy
from services.memory.retrieval.candidates import Candidate, CandidateQuery, gather_candidates
from services.memory.retrieval.hybrid import QueryPlan, RetrievalSettings, hybrid_relevance
from services.memory.retrieval.mirror_text import MirrorTexts
from services.memory.retrieval.session_boost import Around, boost, context_factors
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.session_neighbours import Place


@dataclass(frozen=True)
class _Ranked:
    candidate: Candidate
    item: RankInput
    final: float


# The orders of ``filters.sort_memories``, read from records before the views are built.
_SORT_KEYS: dict[SortBy, Callable[[_Ranked], tuple[float | str, ...]]] = {
    SortBy.RELEVANCE: lambda r: (r.final, r.candidate.record.created_ts, r.candidate.record.id),
    SortBy.RECENCY: lambda r: (r.candidate.record.created_ts, r.final, r.candidate.record.id),
    SortBy.SCORE: lambda r: (
        r.item.score,
        wilson_lower_bound(r.item.success_count, r.item.uses),
        r.final,
        r.candidate.record.id,
    ),
}


async def rank_every_candidate(
    store: MemoryStore,
    texts: MirrorTexts,
    io: BlockingIO,
    scope: Scope,
    params: SearchParams,
    *,
    vector: Vector | None,
    plan: QueryPlan | None,
    lexical_only: bool,
    cutoff: datetime | None,
    now: datetime,
    retrieval: RetrievalSettings,
    weights: RankingWeights,
) -> list[NormalizedMemory]:
    """``lexical_only``: the query could not be embedded, its keyword matches are the candidates."""
    since_ts = cutoff.timestamp() if cutoff is not None else None
    gathered = await gather_candidates(store, texts, io, CandidateQuery(scope, params, vector, since_ts, lexical_only))
    candidates = [c for c in gathered if not c.record.archived]
    relevances: list[float | None] = []
    for cand in candidates:
        rel = None
        if vector is not None:
            similarity = cand.similarity if cand.similarity is not None else 0.0
            rel = hybrid_relevance(similarity, cand.lexical_share, plan, cand.record.content, retrieval)
        elif lexical_only:
            rel = cand.lexical_share or 0.0
        relevances.append(rel)
    if vector is not None and retrieval.session_context:
        relevances = with_session_context(store, scope, candidates, relevances, retrieval)
    scored: list[tuple[float, Candidate, float | None]] = []
    for cand, rel in zip(candidates, relevances, strict=True):
        weight = params.collection_weights.get(cand.record.collection, 1.0)
        scored.append((weight * rel if rel is not None else 0.0, cand, rel))
    # A keyword-only prompt (no embedding) stops early: final rank is at most
    # weight * relevance * max trust, so once that bound falls below the limit-th best final
    # rank found so far, no later candidate can enter the results.
    prune = lexical_only and params.sort_by is SortBy.RELEVANCE and not params.filters and cutoff is None
    if prune:
        scored.sort(key=lambda s: s[0], reverse=True)
    ceiling = 1.0 + weights.max_trust_gain
    ranked: list[_Ranked] = []
    best: list[float] = []  # min-heap of the best ``limit`` final ranks so far
    for bound, cand, rel in scored:
        if prune and len(best) >= params.limit and bound * ceiling < best[0]:
            break
        record = cand.record
        item = RankInput.of(
            record, now=now, relevance=rel, collection_weight=params.collection_weights.get(record.collection, 1.0)
        )
        final = final_rank(item, weights)
        ranked.append(_Ranked(cand, item, final))
        if prune:
            heapq.heappush(best, final)
            if len(best) > params.limit:
                heapq.heappop(best)
    ranked.sort(key=_SORT_KEYS[params.sort_by], reverse=True)
    results: list[NormalizedMemory] = []
    for row in ranked:
        shaped = view(
            row.candidate.record,
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


def with_session_context(
    store: MemoryStore,
    scope: Scope,
    candidates: list[Candidate],
    relevances: list[float | None],
    retrieval: RetrievalSettings,
) -> list[float | None]:
    """Relevances raised by session context (``session_context``), among the retrieved candidates
    (boost ids take no part, as on the prompt path)."""
    taking_part = [i for i, cand in enumerate(candidates) if not cand.boosted and relevances[i] is not None]
    places: dict[int, Place] = {}
    by_collection: dict[str, list[int]] = defaultdict(list)
    for i in taking_part:
        by_collection[candidates[i].record.collection].append(i)
    for collection, members in by_collection.items():  # one lock per collection
        with store.mirrors.read(scope, collection) as mirror:
            for i in members:
                places[i] = mirror.sessions.place_of(candidates[i].record.id)
    sessions = [places[i][0] for i in taking_part]
    around: list[Around] = [(places[i][1], places[i][2]) for i in taking_part]
    values = np.asarray([relevances[i] for i in taking_part], dtype=np.float64)
    factors = context_factors(
        [candidates[i].record.id for i in taking_part],
        values,
        sessions,
        around,
        neighbour_weight=retrieval.neighbour_weight,
        session_weight=retrieval.session_weight,
    )
    out = list(relevances)
    for i, factor in zip(taking_part, factors.tolist(), strict=True):
        out[i] = boost(float(relevances[i] or 0.0), factor)
    return out
