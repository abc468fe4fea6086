"""Rank fusion: combine several ranked id lists into one score per id.

Plain module (no grpc, no chromadb). Reciprocal rank fusion (Cormack et al.,
2009) needs no score calibration between rankers, which is why it suits
dense cosine + BM25: ``score(d) = sum_i w_i / (k + rank_i(d))``, rank from 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

DEFAULT_RRF_K = 60


def rrf_fuse(
    rankings: list[list[str]], k: int = DEFAULT_RRF_K, weights: list[float] | None = None
) -> dict[str, float]:
    """Fused score per id (higher = better) from best-first ``rankings``.

    An id missing from a ranking gets nothing from it. A repeated id within one
    ranking counts once, at its best rank. ``weights`` (one per ranking, >= 0)
    scale each ranking's contribution; default all 1.
    """
    if k < 0:
        raise ValueError(f"rrf k must be >= 0 (got {k}); 60 is the usual choice")
    if weights is None:
        weights = [1.0] * len(rankings)
    elif len(weights) != len(rankings):
        raise ValueError(f"got {len(weights)} weights for {len(rankings)} rankings: pass one weight per ranking")
    elif any(w < 0 for w in weights):
        raise ValueError(f"rrf weights must be >= 0 (got {weights})")
    parts: dict[str, list[float]] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if weight == 0:
            continue
        seen: set[str] = set()
        for rank, doc_id in enumerate(ranking, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            parts.setdefault(doc_id, []).append(weight / (k + rank))
    # fsum is exactly rounded, so the result does not depend on the order of rankings.
    return {doc_id: math.fsum(values) for doc_id, values in parts.items()}


def ranked_ids(scores: Mapping[str, float], limit: int | None = None) -> list[str]:
    """Ids by descending score, ties broken by id so the order is deterministic."""
    ordered = sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))
    return ordered if limit is None else ordered[:limit]


def fuse_ranked(
    rankings: Sequence[Sequence[str]], k: int = DEFAULT_RRF_K, weights: list[float] | None = None, limit: int | None = None
) -> list[str]:
    """``rrf_fuse`` then ``ranked_ids``: the fused order itself."""
    return ranked_ids(rrf_fuse([list(r) for r in rankings], k=k, weights=weights), limit)
