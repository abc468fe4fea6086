"""Candidate retrieval for search: dense top-N plus lexical top-N, fused.

- Dense: each chosen collection is queried concurrently for its ``N`` nearest
  neighbours (``N = max(3 * limit, 30)``), restricted to the time window when
  ``days_back`` is set.
- Lexical (hybrid mode, text query): each collection's BM25 index returns its
  top ``N``. Lexical-only candidates get their ``embedding_similarity`` from
  their stored embeddings, so every candidate is ranked on the same scale.
- Fusion: one dense ranking (by cosine, across collections) and one lexical
  ranking (by BM25) are combined with reciprocal rank fusion; the fused score
  is divided by its best possible value (first in both lists), giving a
  ``fused`` value in [0, 1] that ``ranking.relevance`` blends with similarity.
- No query: every memory of the chosen collections in the time window.
- ``boost_ids`` are always added as candidates (the kg's facts for entities).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from services.memory.fusion import rrf_fuse
from services.memory.naming import Scope
from services.memory.runtime import Runtime
from services.memory.search_rules import SearchParams
from services.memory.store import StoredMemory

RRF_K = 60
MIN_CANDIDATES = 30


@dataclass
class Candidate:
    memory: StoredMemory
    similarity: float | None = None
    fused: float | None = None


def candidate_count(limit: int) -> int:
    return max(3 * limit, MIN_CANDIDATES)


def _time_where(cutoff: datetime | None) -> dict[str, object] | None:
    return None if cutoff is None else {"created_ts": {"$gte": cutoff.timestamp()}}


async def _dense(rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray, cutoff: datetime | None) -> list[Candidate]:
    n = candidate_count(params.limit)
    where = _time_where(cutoff)
    groups = await rt.gather(*(rt.io(rt.store.query, scope, c, vector, n, where) for c in params.collections))
    return [Candidate(hit.memory, hit.similarity) for group in groups for hit in group]


async def _lexical(rt: Runtime, scope: Scope, params: SearchParams) -> list[tuple[str, str, float]]:
    n = candidate_count(params.limit)
    groups = await rt.gather(*(rt.io(rt.lexical.search, scope, c, params.query, n) for c in params.collections))
    return [(c, doc_id, score) for c, group in zip(params.collections, groups, strict=True) for doc_id, score in group]


async def _fetch(rt: Runtime, scope: Scope, wanted: dict[str, list[str]], vector: np.ndarray | None) -> list[Candidate]:
    """Stored memories by collection -> ids, with similarity to ``vector`` when given."""
    groups = await rt.gather(
        *(rt.io(rt.store.get, scope, c, ids, embeddings=vector is not None) for c, ids in wanted.items() if ids)
    )
    out = []
    for group in groups:
        for memory in group:
            out.append(Candidate(memory, _similarity(memory, vector)))
            memory.embedding = None
    return out


async def gather_candidates(
    rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray | None, cutoff: datetime | None
) -> list[Candidate]:
    found: dict[str, Candidate] = {}
    if vector is None:
        where = _time_where(cutoff)
        groups = await rt.gather(*(rt.io(rt.store.scan, scope, c, where=where) for c in params.collections))
        for group in groups:
            for memory in group:
                found[memory.id] = Candidate(memory)
    else:
        dense_job = _dense(rt, scope, params, vector, cutoff)
        if params.query and rt.lexical.enabled:
            dense, lexical = await rt.gather(dense_job, _lexical(rt, scope, params))  # type: ignore[arg-type]
        else:
            dense, lexical = await dense_job, []
        for cand in dense:
            found[cand.memory.id] = cand
        if lexical:
            missing: dict[str, list[str]] = {}
            for collection, doc_id, _ in lexical:
                if doc_id not in found:
                    missing.setdefault(collection, []).append(doc_id)
            for cand in await _fetch(rt, scope, missing, vector):
                found[cand.memory.id] = cand
            dense_rank = [c.memory.id for c in sorted(dense, key=lambda c: -(c.similarity or 0.0))]
            lexical_rank = [doc_id for _, doc_id, _ in sorted(lexical, key=lambda item: -item[2])]
            fused = rrf_fuse([dense_rank, lexical_rank], k=RRF_K)
            best = 2.0 / (RRF_K + 1)
            for doc_id, value in fused.items():
                if doc_id in found:
                    found[doc_id].fused = value / best
            for cand in found.values():
                if cand.fused is None:
                    cand.fused = 0.0
    for memory_id in params.boost_ids:
        if memory_id in found:
            continue
        memory = await rt.locate(scope, memory_id, embeddings=vector is not None)
        if memory is None or memory.collection not in params.collections or memory.id in found:
            continue
        boosted = Candidate(memory, _similarity(memory, vector))
        memory.embedding = None
        if vector is not None and params.query and rt.lexical.enabled:
            boosted.fused = 0.0
        found[memory.id] = boosted
    return list(found.values())


def _similarity(memory: StoredMemory, vector: np.ndarray | None) -> float | None:
    if vector is None or memory.embedding is None:
        return None
    return float(np.dot(memory.embedding, vector) / (np.linalg.norm(memory.embedding) or 1.0))
