"""Candidate retrieval for the generic search path, from the in-memory collection mirrors.

- Dense: each chosen collection's mirror returns its ``N`` nearest active
  memories by exact cosine (``N = max(3 * limit, 60)``), restricted to the
  time window when ``days_back`` is set. In a large collection the mirror takes
  its candidates from an ANN index and re-scores them exactly
  (``CollectionMirror.top_slots``), so the cosines are exact either way.
- Lexical (hybrid mode, text query): each mirror's BM25 index returns its
  top ``N``; of the hits dense retrieval missed, the best ``N`` across all
  collections join, with their cosine taken from the mirror's vectors, so
  every candidate is ranked on the same scale.
- Each candidate carries its cosine and its lexical share (BM25 / best BM25
  of this query, ``hybrid.lexical_shares``); the search turns them
  into one relevance with ``hybrid.hybrid_relevance``. (Reciprocal
  rank fusion was the first design; the blend beat it on LoCoMo, see
  bench/locomo.)
- No query: every active memory of the chosen collections in the time window.
- ``boost_ids`` are always added as candidates (the kg's facts for entities).
- ``fact_project`` (get-context): only facts that hold in that project are
  candidates, dense (the mirror masks the others out of its product), lexical
  (hits of other projects' facts skipped, more asked for until ``N`` hold) and
  boosted alike, so a project's own facts compete among themselves.
- Embedding service down (``lexical_only``): the BM25 hits alone, ranked by
  their lexical share, so a prompt still gets keyword matches.

All collections are read in one worker-thread call: on two cores, five
Chroma queries on five threads were slower than five in a row, and the
mirrors make each collection's read about a millisecond anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernel.blocking_io import BlockingIO
from services.memory.domain.arrays import Vector
from services.memory.domain.fact_scope import holds_in
from services.memory.domain.naming import Scope
from services.memory.domain.record import MemoryRecord
from services.memory.domain.search_params import SearchParams
from services.memory.retrieval.hybrid import lexical_shares
from services.memory.retrieval.lexical import MAX_QUERY_CHARS, MAX_QUERY_TERMS
from services.memory.retrieval.mirror_text import MirrorText, MirrorTexts
from services.memory.retrieval.text import query_terms
from services.memory.storage.collection_mirror import CollectionMirror
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.mirror_registry import Mirrors

MIN_CANDIDATES = 60


@dataclass(slots=True)
class Candidate:
    record: MemoryRecord
    similarity: float | None = None
    lexical_share: float | None = None  # None: not a lexical hit (or dense-only search)
    boosted: bool = False  # added as a boost id (the kg's facts), not retrieved by the query


def lexical_terms(query: str) -> list[str]:
    """The BM25 terms of a query, as ``LexicalIndex.search`` would take them."""
    return query_terms(query[:MAX_QUERY_CHARS])[:MAX_QUERY_TERMS]


def candidate_count(limit: int) -> int:
    return max(3 * limit, MIN_CANDIDATES)


def lexical_hits(
    mirror: CollectionMirror, text: MirrorText, terms: list[str], n: int, project: str | None
) -> list[tuple[str, float]]:
    """The best ``n`` BM25 hits (id, score) of the mirror's text; with ``project``, only rows that hold
    there (asking the index for more while other projects' facts take the places)."""
    held = mirror.holding_in(project)
    if held is None:
        return text.search_terms(terms, n)
    k = n
    while True:
        hits = text.search_terms(terms, k)
        kept = [(doc_id, score) for doc_id, score in hits if (slot := mirror.slot_of(doc_id)) is None or held[slot]]
        if len(kept) >= n or len(hits) < k:
            return kept[:n]
        k *= 4


@dataclass(frozen=True)
class CandidateQuery:
    """What one search asks of the mirrors. ``lexical_only``: the query could not be embedded, so BM25 hits
    alone are the candidates."""

    scope: Scope
    params: SearchParams
    vector: Vector | None
    since_ts: float | None
    lexical_only: bool = False


def _read_mirrors(mirrors: Mirrors, texts: MirrorTexts, query: CandidateQuery) -> list[Candidate]:
    params, vector, since_ts, lexical_only = query.params, query.vector, query.since_ts, query.lexical_only
    project = params.fact_project
    n = candidate_count(params.limit)
    found: dict[str, Candidate] = {}
    hits: list[tuple[str, float]] = []  # (id, bm25) of every lexical hit
    extra: list[tuple[float, Candidate]] = []  # lexical hits dense retrieval missed, with their bm25
    lexical_query = params.query if vector is not None or lexical_only else ""
    terms = lexical_terms(lexical_query) if lexical_query else []  # tokenised once for all collections
    for collection in params.collections:
        with mirrors.read(query.scope, collection) as mirror:
            if vector is None and not lexical_only:
                for record in mirror.rows_since(since_ts):
                    if project is None or holds_in(record, project):
                        found[record.id] = Candidate(record)
                continue
            for record, similarity in mirror.nearest(vector, n, since_ts, project) if vector is not None else ():
                found[record.id] = Candidate(record, similarity)
            if not terms or not texts.lexical:
                continue
            lexical = lexical_hits(mirror, texts.synced(mirror), terms, n, project)
            hits.extend(lexical)
            missed = [
                (doc_id, score, row)
                for doc_id, score in lexical
                if doc_id not in found and (row := mirror.row(doc_id)) is not None
            ]
            cosines = mirror.similarities([doc_id for doc_id, _, _ in missed], vector) if vector is not None else None
            for i, (_, score, hit) in enumerate(missed):
                extra.append((score, Candidate(hit, cosines[i] if cosines is not None else None)))
    # Of the lexical hits dense retrieval missed, the best N across all collections join.
    extra.sort(key=lambda item: -item[0])
    for _, cand in extra[:n]:
        found.setdefault(cand.record.id, cand)
    for doc_id, share in lexical_shares(hits).items():
        if doc_id in found:
            found[doc_id].lexical_share = share
    return list(found.values())


async def gather_candidates(
    store: MemoryStore, texts: MirrorTexts, io: BlockingIO, query: CandidateQuery
) -> list[Candidate]:
    """The dense and lexical candidates of every collection searched, plus the boosted ids not among them."""
    mirrors = store.mirrors
    scope, params, vector = query.scope, query.params, query.vector
    if mirrors.all_built(scope, params.collections):
        # Warm mirrors answer in about a millisecond per collection; running that on the
        # event loop beats a thread hand-off (and the GIL would serialise it anyway).
        candidates = _read_mirrors(mirrors, texts, query)
    else:
        candidates = await io.run(_read_mirrors, mirrors, texts, query)
    candidates.extend(await boosted(store, scope, params, vector, {c.record.id for c in candidates}))
    return candidates


async def boosted(
    store: MemoryStore, scope: Scope, params: SearchParams, vector: Vector | None, known: set[str]
) -> list[Candidate]:
    """The ``boost_ids`` that are not candidates yet, read from the store, with their cosine."""
    found: list[Candidate] = []
    for memory_id in params.boost_ids:
        if memory_id in known:
            continue
        if vector is None:
            record = await store.locate(scope, memory_id)
            embedding = None
        else:
            located = await store.locate_with_vector(scope, memory_id)
            record, embedding = located if located is not None else (None, None)
        if record is None or record.collection not in params.collections or record.id in known:
            continue
        if params.fact_project is not None and not holds_in(record, params.fact_project):
            continue
        similarity = None
        if vector is not None and embedding is not None:
            similarity = float(np.dot(embedding, vector) / (np.linalg.norm(embedding) or 1.0))
        found.append(Candidate(record, similarity, boosted=True))
        known.add(record.id)
    return found
