"""Hybrid relevance: cosine similarity blended with normalised BM25, plus a time cue.

Plain module (no grpc, no chromadb). The memory service's search gathers
candidates from the vector store (dense top-N) and from the scope's
``LexicalIndex`` (BM25 top-N), then asks this module for one relevance value
per candidate:

    lexical_share = bm25 / best bm25 among this query's lexical hits   (0 when not a lexical hit;
                    ``lexical_ran=False`` when nothing matched: cosine alone)
    relevance     = (1 - w) * cosine + w * lexical_share                  (w = lexical_weight, 0.5)
    relevance     = (1 - b) * relevance + b * [query is temporal and the memory mentions time]
                                                                           (b = time_bonus, 0.05)

The blend is a convex combination of two scores in [0, 1], so it stays in
[0, 1] and feeds ``ranking.final_rank`` unchanged. It is written once
(``_blend``) for one candidate (``hybrid_relevance``) and for columns of
candidates (``hybrid_relevances``, the prompt path). On LoCoMo it beat RRF at
every k tried (see bench/locomo/README.md): RRF throws away how much better the
best lexical hit is than the tenth, the max-normalised BM25 score keeps it.

``mode == "dense"`` (``MNEMEX_RETRIEVAL_MODE=dense``) turns the lexical side
and the time cue off: relevance is the cosine alone, the baseline.
get-context, search_memory and the LoCoMo benchmark all reach this through the
Search RPC; there is no other ranking path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from services.memory.domain.arrays import Column, Mask
from services.memory.domain.elementwise import COLUMNS, ONE, Ops, X, clip01
from services.memory.retrieval.query_expansion import mentions_time, temporal_hint

MODES = ("dense", "hybrid")
DEFAULT_LEXICAL_WEIGHT = 0.5
DEFAULT_TIME_BONUS = 0.05
DEFAULT_NEIGHBOUR_WEIGHT = 0.5  # retrieval.session_boost
DEFAULT_SESSION_WEIGHT = 0.4


class RetrievalConfigError(ValueError):
    """A MNEMEX_RETRIEVAL_* variable is malformed; the message names it."""


@dataclass(frozen=True)
class RetrievalSettings:
    """``MNEMEX_RETRIEVAL_MODE`` / ``_LEXICAL_WEIGHT`` / ``_TIME_BONUS``, and the session context's
    ``_NEIGHBOUR_WEIGHT`` / ``_SESSION_WEIGHT``."""

    mode: str = "hybrid"
    lexical_weight: float = DEFAULT_LEXICAL_WEIGHT
    time_bonus: float = DEFAULT_TIME_BONUS
    neighbour_weight: float = DEFAULT_NEIGHBOUR_WEIGHT
    session_weight: float = DEFAULT_SESSION_WEIGHT

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise RetrievalConfigError(f"MNEMEX_RETRIEVAL_MODE={self.mode!r}: choose one of {', '.join(MODES)}")
        for name, value in (
            ("LEXICAL_WEIGHT", self.lexical_weight),
            ("TIME_BONUS", self.time_bonus),
            ("NEIGHBOUR_WEIGHT", self.neighbour_weight),
            ("SESSION_WEIGHT", self.session_weight),
        ):
            if not 0.0 <= value <= 1.0:
                raise RetrievalConfigError(f"MNEMEX_RETRIEVAL_{name}={value!r} must be within [0, 1]")

    @property
    def hybrid(self) -> bool:
        return self.mode == "hybrid"

    @property
    def session_context(self) -> bool:
        """Does a candidate's session raise its relevance (``retrieval.session_boost``)? Hybrid mode only."""
        return self.hybrid and (self.neighbour_weight > 0 or self.session_weight > 0)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RetrievalSettings:
        env = os.environ if environ is None else environ

        def unit(name: str, default: float) -> float:
            raw = env.get(name, "")
            if not raw.strip():
                return default
            try:
                return float(raw)
            except ValueError as exc:
                raise RetrievalConfigError(f"{name}={raw!r} must be a number in [0, 1]") from exc

        return cls(
            mode=(env.get("MNEMEX_RETRIEVAL_MODE") or "hybrid").strip().lower(),
            lexical_weight=unit("MNEMEX_RETRIEVAL_LEXICAL_WEIGHT", DEFAULT_LEXICAL_WEIGHT),
            time_bonus=unit("MNEMEX_RETRIEVAL_TIME_BONUS", DEFAULT_TIME_BONUS),
            neighbour_weight=unit("MNEMEX_RETRIEVAL_NEIGHBOUR_WEIGHT", DEFAULT_NEIGHBOUR_WEIGHT),
            session_weight=unit("MNEMEX_RETRIEVAL_SESSION_WEIGHT", DEFAULT_SESSION_WEIGHT),
        )


@dataclass(frozen=True)
class QueryPlan:
    """What one search needs to know about its query, computed once."""

    query: str
    temporal: bool

    @classmethod
    def of(cls, query: str) -> QueryPlan:
        return cls(query=query, temporal=temporal_hint(query)[0] if query.strip() else False)


def lexical_shares(hits: Iterable[tuple[str, float]]) -> dict[str, float]:
    """BM25 hits (from one or several indexes) -> score / best score, in (0, 1]."""
    best: dict[str, float] = {}
    for doc_id, score in hits:
        if score > best.get(doc_id, 0.0):
            best[doc_id] = score
    top = max(best.values(), default=0.0)
    if top <= 0:
        return {}
    return {doc_id: score / top for doc_id, score in best.items()}


def _blend(cosine: X, share: X, cue: X | float, temporal: bool, settings: RetrievalSettings, ops: Ops[X]) -> X:
    relevance: X = clip01(cosine, ops)
    if not settings.hybrid:
        return relevance
    w = settings.lexical_weight
    relevance = (1.0 - w) * relevance + w * clip01(share, ops)
    if temporal and settings.time_bonus > 0:
        relevance = (1.0 - settings.time_bonus) * relevance + settings.time_bonus * cue
    return relevance


def hybrid_relevance(
    similarity: float,
    lexical_share: float | None,
    plan: QueryPlan | None,
    content: str,
    settings: RetrievalSettings,
    *,
    lexical_ran: bool = True,
) -> float:
    """Relevance in [0, 1] of one candidate (see the module docstring for the formula).

    ``lexical_share`` is None (or 0.0) for a candidate that is not a lexical hit.
    Pass ``lexical_ran=False`` when the query got no lexical hits at all (or no
    lexical search ran): relevance is then the cosine alone, so a query that no
    keyword matches is not scaled down against outcome scores.
    """
    if not lexical_ran:
        return clip01(similarity, ONE)
    temporal = plan is not None and plan.temporal and settings.hybrid and settings.time_bonus > 0
    cue = 1.0 if temporal and mentions_time(content) else 0.0
    return _blend(similarity, lexical_share or 0.0, cue, temporal, settings, ONE)


def hybrid_relevances(
    cosine: Column,
    lexical_share: Column,
    mentions_time_: Mask,
    plan: QueryPlan | None,
    settings: RetrievalSettings,
) -> Column:
    """``hybrid_relevance`` of columns of candidates (``mentions_time_``: each content's time cue)."""
    temporal = plan is not None and plan.temporal
    cue = mentions_time_.astype(np.float64)  # 1.0 or 0.0: the same products as the flags themselves
    return _blend(cosine, lexical_share, cue, temporal, settings, COLUMNS)


def rank_candidates(
    candidates: Mapping[str, tuple[float, str]],
    lexical_hits: Iterable[tuple[str, float]],
    query: str,
    settings: RetrievalSettings,
) -> list[tuple[str, float]]:
    """(id, relevance) best first for ``{id: (cosine, content)}``; ties broken by id.

    A convenience for callers that rank by relevance alone (and for tests);
    the memory service instead feeds ``hybrid_relevance`` into ``final_rank``.
    """
    plan = QueryPlan.of(query)
    shares = lexical_shares(lexical_hits) if settings.hybrid else {}
    scored = [
        (doc_id, hybrid_relevance(sim, shares.get(doc_id), plan, content, settings, lexical_ran=bool(shares)))
        for doc_id, (sim, content) in candidates.items()
    ]
    return sorted(scored, key=lambda item: (-item[1], item[0]))
