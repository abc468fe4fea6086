from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.memory.domain.ranking import (
    RankingWeights,
    RankInput,
    final_rank,
    final_ranks,
    learned_score,
    recency,
    trust,
)
from services.memory.domain.scoring import wilson_lower_bound

W = RankingWeights()


def item(
    *,
    collection: str = "history",
    score: float = 0.5,
    uses: int = 0,
    success_count: float = 0.0,
    age_days: float = 0.0,
    importance: float | None = None,
    confidence: float | None = None,
    relevance: float | None = 0.5,
    collection_weight: float = 1.0,
) -> RankInput:
    """A RankInput of an unremarkable history memory, but for the fields given."""
    return RankInput(
        collection=collection,
        score=score,
        uses=uses,
        success_count=success_count,
        age_days=age_days,
        importance=importance,
        confidence=confidence,
        relevance=relevance,
        collection_weight=collection_weight,
    )


def test_the_documented_formula_with_a_query() -> None:
    memory = item(score=0.8, uses=4, success_count=3.0, age_days=10.0, relevance=0.6)
    evidence = 4 / (4 + 6)
    learned = (1 - evidence) * 0.8 + evidence * wilson_lower_bound(3.0, 4)
    expected_trust = learned / 0.5 if learned < 0.5 else 1 + 0.4 * (learned - 0.5)
    expected = 0.6 * expected_trust * (0.9 + 0.1 * 0.5 ** (10 / 30))
    assert final_rank(memory) == pytest.approx(expected)


def test_without_a_query_ranks_by_learning_and_recency() -> None:
    memory = item(relevance=None, score=0.9, age_days=0.0)
    assert final_rank(memory) == pytest.approx(0.75 * 0.9 + 0.25 * 1.0)


def test_trust_is_neutral_untested_shrinks_with_harm_and_lifts_at_most_twenty_percent() -> None:
    assert trust(0.5) == 1.0
    assert trust(0.0) == 0.0 and trust(0.25) == pytest.approx(0.5)
    assert trust(1.0) == pytest.approx(1.2) and trust(0.75) == pytest.approx(1.1)


def test_more_relevant_wins_at_equal_learning() -> None:
    assert final_rank(item(relevance=0.7)) > final_rank(item(relevance=0.5))


def test_wilson_is_used_in_ranking_not_only_shown() -> None:
    # Same raw score; the memory with more proven successes ranks higher.
    proven = item(score=0.9, uses=20, success_count=19.0)
    lucky = item(score=0.9, uses=2, success_count=2.0)
    assert final_rank(proven) > final_rank(lucky)
    assert learned_score(proven) > learned_score(lucky)


def test_one_success_does_not_rank_below_untested() -> None:
    once = item(score=0.7, uses=1, success_count=1.0)
    untested = item(score=0.5, uses=0)
    assert learned_score(once) > learned_score(untested) == pytest.approx(0.5)
    assert final_rank(once) > final_rank(untested)


def test_one_failure_sinks_a_memory_below_a_much_less_similar_untested_one() -> None:
    failed = item(score=0.2, uses=1, success_count=0.0, relevance=0.75)
    neutral = item(score=0.5, uses=0, relevance=0.35)
    assert final_rank(failed) < final_rank(neutral)


def test_proven_memories_about_something_else_do_not_outrank_relevant_untested_ones() -> None:
    off_topic_proven = item(score=1.0, uses=10, success_count=10.0, relevance=0.41)
    on_topic_untested = item(relevance=0.5)
    assert final_rank(on_topic_untested) > final_rank(off_topic_proven)


def test_memory_bank_uses_importance_times_confidence_then_blends_wilson_after_three_uses() -> None:
    bank = item(collection="memory_bank", importance=0.9, confidence=0.5, uses=2, success_count=0.0)
    assert learned_score(bank) == pytest.approx(0.45)
    bank3 = dataclasses.replace(bank, uses=3, success_count=3.0)
    assert learned_score(bank3) == pytest.approx(0.8 * 0.45 + 0.2 * wilson_lower_bound(3.0, 3))
    important = dataclasses.replace(bank, importance=1.0, confidence=1.0)
    assert final_rank(important) > final_rank(bank)


def test_books_have_fixed_quality_until_used() -> None:
    assert learned_score(item(collection="books")) == pytest.approx(W.books_quality)


def test_collection_weight_multiplies_the_whole_rank() -> None:
    base = item(relevance=0.6)
    assert final_rank(dataclasses.replace(base, collection_weight=1.5)) == pytest.approx(1.5 * final_rank(base))
    assert final_rank(dataclasses.replace(base, collection_weight=0.0)) == 0.0


def test_recency_halves_every_thirty_days_and_matters_little_with_a_query() -> None:
    assert recency(0) == 1.0
    assert recency(30) == pytest.approx(0.5)
    assert recency(-5) == 1.0
    old, new = item(age_days=300.0), item(age_days=0.0)
    assert final_rank(old) / final_rank(new) == pytest.approx(0.9, abs=0.01)


def test_weights_are_frozen_and_validated() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        W.recency_share = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        RankingWeights(neutral_quality=1.0)


_unit = st.floats(0.0, 1.0)


@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["working", "history", "patterns", "memory_bank", "books"]),
            _unit,
            st.integers(0, 40),
            st.floats(0.0, 40.0),
            st.floats(0.0, 2000.0),
            _unit,
            _unit,
            st.floats(-0.2, 1.2),
            st.floats(0.0, 3.0),
        ),
        min_size=1,
        max_size=20,
    ),
    gain=st.floats(0.0, 1.0),
    share=_unit,
)
def test_the_column_formula_is_final_rank(
    rows: list[tuple[str, float, int, float, float, float, float, float, float]], gain: float, share: float
) -> None:
    """``final_ranks`` (numpy, the prompt path's estimate) agrees with ``final_rank`` row by row."""
    weights = RankingWeights(max_trust_gain=gain, recency_share=share)
    items = [
        RankInput(c, score, uses, min(success, uses), age, importance, confidence, relevance, weight)
        for c, score, uses, success, age, importance, confidence, relevance, weight in rows
    ]
    got = final_ranks(
        np.array([i.collection_weight for i in items]),
        np.array([i.relevance for i in items]),
        np.array([learned_score(i, weights) for i in items]),
        np.array([i.age_days for i in items]),
        weights,
    )
    assert got.tolist() == pytest.approx([final_rank(i, weights) for i in items], rel=1e-12, abs=1e-15)
