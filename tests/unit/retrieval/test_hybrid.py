"""Hybrid relevance: cosine blended with max-normalised BM25, plus the time cue."""

from __future__ import annotations

import pytest

from services.memory.retrieval.hybrid import (
    QueryPlan,
    RetrievalConfigError,
    RetrievalSettings,
    hybrid_relevance,
    lexical_shares,
    rank_candidates,
)

HYBRID = RetrievalSettings()
DENSE = RetrievalSettings(mode="dense")


def test_lexical_shares_divide_by_best_and_keep_best_duplicate() -> None:
    shares = lexical_shares([("a", 4.0), ("b", 2.0), ("a", 1.0), ("c", 0.0)])
    assert shares == {"a": 1.0, "b": 0.5}
    assert lexical_shares([]) == {}


def test_blend_formula_and_bounds() -> None:
    assert hybrid_relevance(0.6, 1.0, None, "", HYBRID) == pytest.approx(0.8)
    assert hybrid_relevance(0.6, 0.0, None, "", HYBRID) == pytest.approx(0.3)
    assert hybrid_relevance(0.6, None, None, "", HYBRID) == pytest.approx(0.3)  # not a lexical hit
    assert hybrid_relevance(0.6, None, None, "", HYBRID, lexical_ran=False) == pytest.approx(0.6)
    assert hybrid_relevance(1.7, 3.0, None, "", HYBRID) == 1.0
    assert hybrid_relevance(-0.2, 0.0, None, "", HYBRID) == 0.0


def test_dense_mode_is_cosine_alone() -> None:
    plan = QueryPlan.of("When did we deploy?")
    assert hybrid_relevance(0.42, 1.0, plan, "deployed yesterday", DENSE) == pytest.approx(0.42)


def test_time_cue_only_for_temporal_queries() -> None:
    temporal = QueryPlan.of("When did Caroline go to the support group?")
    plain = QueryPlan.of("What did Caroline research?")
    assert temporal.temporal and not plain.temporal
    with_cue = hybrid_relevance(0.5, 0.5, temporal, "I went there yesterday", HYBRID)
    without_cue = hybrid_relevance(0.5, 0.5, temporal, "I went there", HYBRID)
    assert with_cue > without_cue
    assert hybrid_relevance(0.5, 0.5, plain, "I went there yesterday", HYBRID) == pytest.approx(0.5)


def test_lexical_hit_outranks_slightly_closer_dense_hit() -> None:
    candidates = {"dense-only": (0.55, "we talked about the weather"), "keyword": (0.45, "the LGBTQ support group")}
    ranked = rank_candidates(candidates, [("keyword", 7.5)], "LGBTQ support group", HYBRID)
    assert [doc for doc, _ in ranked] == ["keyword", "dense-only"]
    dense_ranked = rank_candidates(candidates, [("keyword", 7.5)], "LGBTQ support group", DENSE)
    assert [doc for doc, _ in dense_ranked] == ["dense-only", "keyword"]


def test_settings_from_env_and_errors() -> None:
    assert RetrievalSettings.from_env({}) == RetrievalSettings()
    got = RetrievalSettings.from_env({"MNEMEX_RETRIEVAL_MODE": "Dense", "MNEMEX_RETRIEVAL_LEXICAL_WEIGHT": "0.3"})
    assert got.mode == "dense" and got.lexical_weight == 0.3 and not got.hybrid
    with pytest.raises(RetrievalConfigError, match="MNEMEX_RETRIEVAL_MODE"):
        RetrievalSettings.from_env({"MNEMEX_RETRIEVAL_MODE": "bm25"})
    with pytest.raises(RetrievalConfigError, match="MNEMEX_RETRIEVAL_TIME_BONUS"):
        RetrievalSettings.from_env({"MNEMEX_RETRIEVAL_TIME_BONUS": "lots"})
    with pytest.raises(RetrievalConfigError, match="within"):
        RetrievalSettings(lexical_weight=1.5)
