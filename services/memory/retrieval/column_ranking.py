"""The prompt path of search: a query vector, relevance order, no filters, no time window.

Every prompt takes this path, so it avoids per-candidate Python work. The candidate
set is the one ``candidates`` defines (each collection's dense top N, the best N
lexical hits dense retrieval missed, the boost ids), but it is held as columns:

1. per collection, under its mirror's lock: the dense top N with exact cosines (one
   product with every row, or the ANN index's candidates re-scored exactly in a large
   collection, ``CollectionMirror.top_slots``), the BM25 hits, and for those slots the mirror's rank columns
   (learned score, recency anchor, mentions-time flag);
2. relevance (``hybrid.hybrid_relevances``), raised by each candidate's session
   context (``session_context``), and then ``ranking.final_ranks`` for
   all candidates at once, in numpy: the same formulas as one candidate's;
3. rows are read and ranked exactly (``hybrid_relevance``, ``final_rank``), best
   estimate first, until no estimate left can reach the limit-th best exact rank.

The estimate is the ranking formula itself, so step 3 usually reads ``limit`` rows
and a few more; it only orders and bounds the exact work, and a test holds the
results equal to the generic path's, which ranks every candidate.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from kernel.context_choice import RankParts
from services.memory.domain.arrays import Column, Mask, Vector
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import Scope
from services.memory.domain.ranking import RankingWeights, RankInput, final_rank, final_ranks
from services.memory.domain.search_params import SearchParams
from services.memory.domain.timefmt import SECONDS_PER_DAY
from services.memory.retrieval.candidates import Candidate, boosted, candidate_count, lexical_hits, lexical_terms
from services.memory.retrieval.hybrid import QueryPlan, RetrievalSettings, hybrid_relevance, hybrid_relevances
from services.memory.retrieval.mirror_text import MirrorText, MirrorTexts
from services.memory.retrieval.session_boost import Around, boost, context_factors
from services.memory.storage.collection_mirror import CollectionMirror
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.session_neighbours import NOWHERE

# Relative slack on the estimate before it may stop the exact work: numpy and Python
# round the same formula a few ulps apart.
_SLACK = 1e-9


@dataclass(slots=True)
class _Pool:
    """One collection's candidates, as columns (dense top N first, then lexical hits it missed)."""

    collection: str
    ids: list[str]
    cosine: Column
    bm25: Column  # 0 where not a lexical hit
    learned: Column
    fresh: Column  # recency anchor, max(created, last used); -inf: unknown
    cue: Mask
    dense: int  # the first ``dense`` entries are the dense top N
    sessions: list[str | None]  # each candidate's session ([] when session context is off)
    around: list[Around]  # its neighbours in that session


def _pool(
    mirror: CollectionMirror,
    text: MirrorText,
    vector: Vector,
    terms: list[str],
    n: int,
    with_sessions: bool,
    project: str | None,
) -> tuple[_Pool, list[float]]:
    """The collection's candidates and the BM25 score of each of its lexical hits (with ``project``:
    only rows that hold there)."""
    # exact cosines (through the ANN index when large)
    top, top_cosines = mirror.top_slots(vector, n, project=project)
    hits = lexical_hits(mirror, text, terms, n, project)
    missed: list[int] = []
    bm25 = np.zeros(len(top) + len(hits), dtype=np.float64)
    position = {slot: i for i, slot in enumerate(top.tolist())} if hits else {}  # dense rank of each top slot
    for doc_id, score in hits:
        slot = mirror.slot_of(doc_id)
        if slot is None:
            continue
        if slot in position:
            bm25[position[slot]] = score
        else:
            bm25[len(top) + len(missed)] = score
            missed.append(slot)
    cosine = top_cosines
    slots = top
    if missed:
        extra = np.asarray(missed, dtype=np.intp)
        slots, cosine = np.concatenate([top, extra]), np.concatenate([top_cosines, mirror.cosines(extra, vector)])
    ids, learned, fresh = mirror.rank_columns(slots)
    cue = text.cue_column(ids)
    sessions: list[str | None] = []
    around: list[Around] = []
    if with_sessions and len(mirror.sessions):  # a collection without sessions takes no part
        places, nowhere = mirror.sessions.places, NOWHERE
        for session, before, after in [places.get(memory_id, nowhere) for memory_id in ids]:
            sessions.append(session)
            around.append((before, after))
    pool = _Pool(
        mirror.collection,
        ids,
        cosine.astype(np.float64),
        bm25[: len(slots)],
        learned,
        fresh,
        cue,
        len(top),
        sessions,
        around,
    )
    return pool, [score for _, score in hits]


Kind = TypeVar("Kind", np.float64, np.bool_)


def _cosine(pool: _Pool) -> Column:
    return pool.cosine


def _bm25(pool: _Pool) -> Column:
    return pool.bm25


def _learned(pool: _Pool) -> Column:
    return pool.learned


def _fresh(pool: _Pool) -> Column:
    return pool.fresh


def _cue(pool: _Pool) -> Mask:
    return pool.cue


def _choose_extras(pools: list[_Pool], n: int) -> list[Mask]:
    """Per pool, a mask of its candidates: the dense ones, plus the best ``n`` missed hits of all pools."""
    extras = [(-float(pool.bm25[i]), p, i) for p, pool in enumerate(pools) for i in range(pool.dense, len(pool.ids))]
    extras.sort(key=lambda item: item[0])  # stable: collection order, then hit order, among equal scores
    keep = [np.arange(len(pool.ids)) < pool.dense for pool in pools]
    for _, p, i in extras[:n]:
        keep[p][i] = True
    return keep


async def rank_columns(
    store: MemoryStore,
    texts: MirrorTexts,
    scope: Scope,
    params: SearchParams,
    vector: Vector,
    plan: QueryPlan | None,
    *,
    now: datetime,
    retrieval: RetrievalSettings,
    weights: RankingWeights,
) -> list[NormalizedMemory]:
    """The top ``params.limit`` memories for a prompt (mirrors of every chosen collection built)."""
    now_ts = now.timestamp()
    n = candidate_count(params.limit)
    terms = lexical_terms(params.query) if params.query else []
    mirrors = store.mirrors
    pools: list[_Pool] = []
    best_bm25 = 0.0
    for collection in params.collections:
        with mirrors.read(scope, collection) as mirror:
            pool, scores = _pool(
                mirror, texts.synced(mirror), vector, terms, n, retrieval.session_context, params.fact_project
            )
        pools.append(pool)
        best_bm25 = max([best_bm25, *scores])
    if not pools:
        return []
    keep = _choose_extras(pools, n)

    # Columns of every candidate, then the estimate of its final rank.
    owner = np.concatenate([np.full(int(k.sum()), p) for p, k in enumerate(keep)])
    index = np.concatenate([np.flatnonzero(k) for k in keep])

    def column(part: Callable[[_Pool], npt.NDArray[Kind]]) -> npt.NDArray[Kind]:
        return np.concatenate([part(pool)[k] for pool, k in zip(pools, keep, strict=True)])

    cosine, bm25, learned, fresh = (column(c) for c in (_cosine, _bm25, _learned, _fresh))
    cue = column(_cue)
    share = bm25 / best_bm25 if best_bm25 > 0 else np.zeros_like(bm25)
    relevance = hybrid_relevances(cosine, share, cue, plan, retrieval)
    context = np.ones(len(relevance))
    # Only candidates of collections with sessions can lend or gain context, so only they take part.
    taking = [j for j, p in enumerate(owner.tolist()) if pools[p].sessions]
    if taking:
        pairs = [(int(owner[j]), int(index[j])) for j in taking]
        context[taking] = context_factors(
            [pools[p].ids[i] for p, i in pairs],
            relevance[taking],
            [pools[p].sessions[i] for p, i in pairs],
            [pools[p].around[i] for p, i in pairs],
            neighbour_weight=retrieval.neighbour_weight,
            session_weight=retrieval.session_weight,
        )
        relevance = boost(relevance, context)
    collection_weight = np.asarray([params.collection_weights.get(pool.collection, 1.0) for pool in pools])[owner]
    age = np.where(np.isfinite(fresh), (now_ts - fresh) / SECONDS_PER_DAY, 0.0)
    estimate = final_ranks(collection_weight, relevance, learned, age, weights)

    ranked: list[tuple[float, float, str, Candidate]] = []
    best: list[float] = []  # min-heap of the best ``limit`` exact final ranks so far
    # (lexical share, session context factor, relevance, kg-linked) of each admitted candidate: the
    # parts already at hand, kept so the results returned can say what made their rank
    parts: dict[str, tuple[float, float, float, bool]] = {}

    def admit(cand: Candidate, relevance_: float, factor: float = 1.0, linked: bool = False) -> None:
        record = cand.record
        item = RankInput.of(
            record,
            now=now,
            relevance=relevance_,
            collection_weight=params.collection_weights.get(record.collection, 1.0),
        )
        final = final_rank(item, weights)
        ranked.append((final, record.created_ts, record.id, cand))
        parts[record.id] = (cand.lexical_share or 0.0, factor, relevance_, linked)
        heapq.heappush(best, final)
        if len(best) > params.limit:
            heapq.heappop(best)

    known: set[str] = set()
    if params.boost_ids:
        known = {pools[p].ids[i] for p, i in zip(owner.tolist(), index.tolist(), strict=True)}
    for cand in await boosted(store, scope, params, vector, known):
        if not cand.record.archived:
            sim = cand.similarity if cand.similarity is not None else 0.0
            admit(cand, hybrid_relevance(sim, None, plan, cand.record.content, retrieval), linked=True)
    for j in np.argsort(-estimate, kind="stable").tolist():
        if len(best) >= params.limit and estimate[j] * (1.0 + _SLACK) + _SLACK < best[0]:
            break
        pool = pools[int(owner[j])]
        memory_id = pool.ids[int(index[j])]
        with mirrors.read(scope, pool.collection) as mirror:
            record = mirror.row(memory_id)
        if record is None or record.archived:  # removed or archived since the scan
            continue
        similarity = float(cosine[j])
        lexical_share = float(share[j]) if bm25[j] > 0 else None
        relevance_ = hybrid_relevance(similarity, lexical_share, plan, record.content, retrieval)
        factor = float(context[j])
        admit(Candidate(record, similarity, lexical_share), boost(relevance_, factor), factor)
    ranked.sort(key=lambda r: (r[0], r[1], r[2]), reverse=True)
    out: list[NormalizedMemory] = []
    for final, _, _, cand in ranked[: params.limit]:
        shaped = view(cand.record, now=now, similarity=cand.similarity, final_rank_score=final, weights=weights)
        lexical, factor, relevance_, linked = parts[cand.record.id]
        why = RankParts(
            dense=cand.similarity if cand.similarity is not None else 0.0,
            lexical=lexical,
            session_context=factor,
            relevance=relevance_,
            kg_weight=params.collection_weights.get(cand.record.collection, 1.0),
            kg_linked=linked,
            learned=shaped.learned_score,
            final=final,
        )
        out.append(replace(shaped, rank_parts=why))
    return out
