"""Candidate retrieval for search, from the in-memory collection mirrors.

- Dense: each chosen collection's mirror returns its ``N`` nearest active
  memories by exact cosine (``N = max(3 * limit, 30)``), restricted to the
  time window when ``days_back`` is set.
- Lexical (hybrid mode, text query): each mirror's BM25 index returns its
  top ``N``; of the hits dense retrieval missed, the best ``N`` across all
  collections join, with their cosine taken from the mirror's vectors, so
  every candidate is ranked on the same scale.
- Each candidate carries its cosine and its lexical share (BM25 / best BM25
  of this query, ``retrieval_hybrid.lexical_shares``); the search turns them
  into one relevance with ``retrieval_hybrid.hybrid_relevance``. (Reciprocal
  rank fusion was the first design; the blend beat it on LoCoMo, see
  bench/locomo.)
- No query: every active memory of the chosen collections in the time window.
- ``boost_ids`` are always added as candidates (the kg's facts for entities).
- Embedding service down (``lexical_only``): the BM25 hits alone, ranked by
  their lexical share, so a prompt still gets keyword matches.

All collections are read in one worker-thread call: on two cores, five
Chroma queries on five threads were slower than five in a row, and the
mirrors make each collection's read about a millisecond anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from services.memory.lexical import MAX_QUERY_CHARS, MAX_QUERY_TERMS
from services.memory.naming import Scope
from services.memory.normalize import RankFacts
from services.memory.retrieval_hybrid import lexical_shares
from services.memory.retrieval_text import query_terms
from services.memory.runtime import Runtime
from services.memory.search_rules import SearchParams
from services.memory.store import StoredMemory

MIN_CANDIDATES = 30


@dataclass(slots=True)
class Candidate:
    memory: StoredMemory  # metadata may be the mirror's own dict: read it, never change it
    similarity: float | None = None
    lexical_share: float | None = None  # None: not a lexical hit (or dense-only search)
    facts: RankFacts | None = None  # parsed rank fields, when the mirror had them


def lexical_terms(query: str) -> list[str]:
    """The BM25 terms of a query, as ``LexicalIndex.search`` would take them."""
    return query_terms(query[:MAX_QUERY_CHARS])[:MAX_QUERY_TERMS]


def candidate_count(limit: int) -> int:
    return max(3 * limit, MIN_CANDIDATES)


def _read_mirrors(
    rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray | None, since_ts: float | None,
    lexical_only: bool = False,
) -> list[Candidate]:
    n = candidate_count(params.limit)
    found: dict[str, Candidate] = {}
    hits: list[tuple[str, float]] = []  # (id, bm25) of every lexical hit
    extra: list[tuple[float, Candidate]] = []  # lexical hits dense retrieval missed, with their bm25
    lexical_query = params.query if vector is not None or lexical_only else ""
    terms = lexical_terms(lexical_query) if lexical_query else []  # tokenised once for all collections
    for collection in params.collections:
        with rt.mirrors.read(scope, collection) as mirror:
            if vector is None and not lexical_only:
                for row in mirror.rows_since(since_ts):
                    found[row.id] = Candidate(StoredMemory(row.id, collection, row.document, row.metadata), facts=row.facts)
                continue
            for row, similarity in mirror.nearest(vector, n, since_ts) if vector is not None else ():
                found[row.id] = Candidate(
                    StoredMemory(row.id, collection, row.document, row.metadata), similarity, facts=row.facts
                )
            if not terms or mirror.lexical is None:
                continue
            lexical = mirror.lexical.search_terms(terms, n)
            hits.extend(lexical)
            missed = [(doc_id, score, row) for doc_id, score in lexical
                      if doc_id not in found and (row := mirror.row(doc_id)) is not None]
            cosines = mirror.similarities([doc_id for doc_id, _, _ in missed], vector) if vector is not None else None
            for i, (doc_id, score, hit) in enumerate(missed):
                cand = Candidate(
                    StoredMemory(doc_id, collection, hit.document, hit.metadata),
                    cosines[i] if cosines is not None else None,
                    facts=hit.facts,
                )
                extra.append((score, cand))
    # Of the lexical hits dense retrieval missed, the best N across all collections join.
    extra.sort(key=lambda item: -item[0])
    for _, cand in extra[:n]:
        found.setdefault(cand.memory.id, cand)
    for doc_id, share in lexical_shares(hits).items():
        if doc_id in found:
            found[doc_id].lexical_share = share
    return list(found.values())


async def gather_candidates(
    rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray | None, cutoff: datetime | None,
    lexical_only: bool = False,
) -> list[Candidate]:
    """``lexical_only``: the query could not be embedded; BM25 hits alone are the candidates."""
    since_ts = cutoff.timestamp() if cutoff is not None else None
    if rt.mirrors.all_built(scope, params.collections):
        # Warm mirrors answer in about a millisecond per collection; running that on the
        # event loop beats a thread hand-off (and the GIL would serialise it anyway).
        candidates = _read_mirrors(rt, scope, params, vector, since_ts, lexical_only)
    else:
        candidates = await rt.io(_read_mirrors, rt, scope, params, vector, since_ts, lexical_only)
    candidates.extend(await boosted(rt, scope, params, vector, {c.memory.id for c in candidates}))
    return candidates


async def boosted(
    rt: Runtime, scope: Scope, params: SearchParams, vector: np.ndarray | None, known: set[str]
) -> list[Candidate]:
    """The ``boost_ids`` that are not candidates yet, read from the store, with their cosine."""
    found: list[Candidate] = []
    for memory_id in params.boost_ids:
        if memory_id in known:
            continue
        memory = await rt.locate(scope, memory_id, embeddings=vector is not None)
        if memory is None or memory.collection not in params.collections or memory.id in known:
            continue
        similarity = None
        if vector is not None and memory.embedding is not None:
            similarity = float(np.dot(memory.embedding, vector) / (np.linalg.norm(memory.embedding) or 1.0))
        memory.embedding = None
        found.append(Candidate(memory, similarity))
        known.add(memory.id)
    return found
