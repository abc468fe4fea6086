"""Candidate retrieval for search: dense top-N plus lexical top-N.

- Dense: each chosen collection is queried concurrently for its ``N`` nearest
  neighbours (``N = max(3 * limit, 30)``), restricted to the time window when
  ``days_back`` is set.
- Lexical (hybrid mode, text query): each collection's BM25 index returns its
  top ``N`` at the same time. Lexical-only candidates get their
  ``embedding_similarity`` from their stored embeddings, so every candidate
  is ranked on the same scale.
- Each candidate carries its cosine similarity and its lexical share (BM25 /
  best BM25 of this query, ``retrieval_hybrid.lexical_shares``); the search
  turns them into one relevance with ``retrieval_hybrid.hybrid_relevance``.
  (Reciprocal rank fusion was the first design; the blend beat it on LoCoMo,
  see bench/locomo.)
- No query: every memory of the chosen collections in the time window.
- ``boost_ids`` are always added as candidates (the kg's facts for entities).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from services.memory.naming import Scope
from services.memory.retrieval_hybrid import lexical_shares
from services.memory.runtime import Runtime
from services.memory.search_rules import SearchParams
from services.memory.store import StoredMemory

MIN_CANDIDATES = 30


@dataclass
class Candidate:
    memory: StoredMemory
    similarity: float | None = None
    lexical_share: float | None = None  # None: not a lexical hit (or dense-only search)


def candidate_count(limit: int) -> int:
    return max(3 * limit, MIN_CANDIDATES)


def _time_where(cutoff: datetime | None) -> dict[str, object] | None:
    return None if cutoff is None else {"created_ts": {"$gte": cutoff.timestamp()}}


def _similarity(memory: StoredMemory, vector: np.ndarray | None) -> float | None:
    if vector is None or memory.embedding is None:
        return None
    return float(np.dot(memory.embedding, vector) / (np.linalg.norm(memory.embedding) or 1.0))


def _dense_all(rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray, where: dict[str, object] | None) -> list[Candidate]:
    n = candidate_count(params.limit)
    return [Candidate(hit.memory, hit.similarity) for c in params.collections for hit in rt.store.query(scope, c, vector, n, where)]


def _lexical_all(rt: Runtime, scope: Scope, params: SearchParams) -> list[tuple[str, str, float]]:
    n = candidate_count(params.limit)
    return [(c, doc_id, score) for c in params.collections for doc_id, score in rt.lexical.search(scope, c, params.query, n)]


async def _dense(rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray, cutoff: datetime | None) -> list[Candidate]:
    """Nearest neighbours from every chosen collection, one worker thread for all of them.

    Measured on 2 cores: five Chroma queries on five threads are slower than
    the same five in a row on one (Chroma serialises them internally and the
    thread hand-offs add up), so the collections share a thread while the
    lexical side runs on another.
    """
    return await rt.io(_dense_all, rt, scope, params, vector, _time_where(cutoff))


async def _lexical(rt: Runtime, scope: Scope, params: SearchParams) -> list[tuple[str, str, float]]:
    """(collection, id, bm25) from every chosen collection's index."""
    return await rt.io(_lexical_all, rt, scope, params)


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
    hybrid = vector is not None and bool(params.query) and rt.lexical.enabled
    if vector is None:
        where = _time_where(cutoff)
        groups = await rt.gather(*(rt.io(rt.store.scan, scope, c, where=where) for c in params.collections))
        for group in groups:
            for memory in group:
                found[memory.id] = Candidate(memory)
    elif hybrid:
        dense, lexical = await rt.gather(_dense(rt, scope, params, vector, cutoff), _lexical(rt, scope, params))  # type: ignore[arg-type]
        for cand in dense:
            found[cand.memory.id] = cand
        missing: dict[str, list[str]] = {}
        for collection, doc_id, _ in lexical:  # type: ignore[misc]
            if doc_id not in found:
                missing.setdefault(collection, []).append(doc_id)
        for cand in await _fetch(rt, scope, missing, vector):
            found[cand.memory.id] = cand
        for doc_id, share in lexical_shares((doc_id, score) for _, doc_id, score in lexical).items():  # type: ignore[misc]
            if doc_id in found:
                found[doc_id].lexical_share = share
    else:
        for cand in await _dense(rt, scope, params, vector, cutoff):
            found[cand.memory.id] = cand
    for memory_id in params.boost_ids:
        if memory_id in found:
            continue
        memory = await rt.locate(scope, memory_id, embeddings=vector is not None)
        if memory is None or memory.collection not in params.collections or memory.id in found:
            continue
        found[memory.id] = Candidate(memory, _similarity(memory, vector))
        memory.embedding = None
    return list(found.values())
