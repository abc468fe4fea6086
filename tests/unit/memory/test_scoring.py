from __future__ import annotations

import math

import pytest

from services.memory.domain.outcomes import SCORE_DELTA, Outcome
from services.memory.domain.scoring import (
    Counters,
    age_weight,
    apply_outcome,
    format_history,
    wilson_lower_bound,
)


def test_deltas_match_the_spec() -> None:
    assert SCORE_DELTA == {Outcome.WORKED: 0.20, Outcome.PARTIAL: 0.05, Outcome.UNKNOWN: 0.0, Outcome.FAILED: -0.30}


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [(Outcome.WORKED, 0.7), (Outcome.PARTIAL, 0.55), (Outcome.UNKNOWN, 0.5), (Outcome.FAILED, 0.2)],
)
def test_fresh_memory_moves_by_the_full_delta(outcome: Outcome, expected: float) -> None:
    after = apply_outcome(Counters(score=0.5), outcome, age_days=0.0)
    assert after.score == pytest.approx(expected)
    assert after.uses == 1
    assert after.last_outcome == outcome.value


def test_age_weight_halves_the_delta_after_thirty_days() -> None:
    assert age_weight(0) == 1.0
    assert age_weight(30) == pytest.approx(0.5)
    assert age_weight(60) == pytest.approx(1 / 3)
    after = apply_outcome(Counters(score=0.5), Outcome.WORKED, age_days=30)
    assert after.score == pytest.approx(0.6)


def test_score_is_clamped_to_unit_interval() -> None:
    assert apply_outcome(Counters(score=0.95), Outcome.WORKED, 0).score == 1.0
    assert apply_outcome(Counters(score=0.1), Outcome.FAILED, 0).score == 0.0


def test_success_count_credits_per_outcome() -> None:
    counters = Counters()
    for outcome in (Outcome.WORKED, Outcome.PARTIAL, Outcome.UNKNOWN, Outcome.FAILED):
        counters = apply_outcome(counters, outcome, 0)
    assert counters.uses == 4
    assert counters.success_count == pytest.approx(1.0 + 0.5 + 0.0 + 0.0)  # unknown is not a success
    assert counters.history == "Y~?N"


def test_unknown_never_moves_the_score_but_lowers_wilson_below_untested() -> None:
    counters = Counters(score=0.6)
    for _ in range(6):
        counters = apply_outcome(counters, Outcome.UNKNOWN, 0)
    assert counters.score == 0.6
    assert wilson_lower_bound(counters.success_count, counters.uses) < 0.5


def test_fixed_score_collections_count_uses_without_moving_score() -> None:
    after = apply_outcome(Counters(score=1.0), Outcome.FAILED, 0, moves_score=False)
    assert after.score == 1.0 and after.uses == 1 and after.success_count == 0.0


def test_wilson_known_values() -> None:
    assert wilson_lower_bound(0, 0) == 0.5
    assert wilson_lower_bound(1, 1) == pytest.approx(0.2065, abs=1e-4)
    assert wilson_lower_bound(5, 5) == pytest.approx(0.5655, abs=1e-4)
    assert wilson_lower_bound(0, 10) == pytest.approx(0.0, abs=1e-12)
    # p = 0.8, n = 100 -> 0.7112 (standard table value)
    assert wilson_lower_bound(80, 100) == pytest.approx(0.7112, abs=1e-3)


def test_wilson_grows_with_evidence_at_equal_rate() -> None:
    values = [wilson_lower_bound(0.9 * n, n) for n in (5, 20, 100)]
    assert values == sorted(values)
    assert all(not math.isnan(v) for v in values)


def test_wilson_clamps_success_beyond_uses() -> None:
    assert wilson_lower_bound(10, 5) == wilson_lower_bound(5, 5)


def test_history_keeps_ten_and_formats_last_three() -> None:
    counters = Counters()
    for _ in range(12):
        counters = apply_outcome(counters, Outcome.WORKED, 0)
    counters = apply_outcome(counters, Outcome.PARTIAL, 0)
    counters = apply_outcome(counters, Outcome.FAILED, 0)
    assert len(counters.history) == 10
    assert format_history(counters.history) == "[Y~N]"
    assert format_history("") == ""
