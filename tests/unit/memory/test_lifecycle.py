from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from services.memory.domain import timefmt
from services.memory.domain.lifecycle import Action, LifecycleConfig, after_outcome, sweep
from services.memory.domain.outcomes import Outcome
from services.memory.domain.scoring import Counters, apply_outcome

CFG = LifecycleConfig()


def moment(text: str) -> datetime:
    parsed = timefmt.parse(text)
    assert parsed is not None
    return parsed


NOW = moment("2025-06-01T12:00:00+00:00")
assert NOW is not None


def test_defaults_match_the_spec() -> None:
    assert (CFG.promote_working_min_score, CFG.promote_working_min_uses) == (0.7, 2)
    assert (CFG.promote_history_min_score, CFG.promote_history_min_uses, CFG.promote_history_min_successes) == (
        0.9,
        3,
        5,
    )
    assert (CFG.demote_patterns_below, CFG.delete_below) == (0.4, 0.2)
    assert (CFG.working_ttl_hours, CFG.history_ttl_days, CFG.exchange_log_ttl_days) == (24, 30, 7)


@pytest.mark.parametrize(
    ("score", "uses", "action"),
    [
        (0.7, 2, Action.PROMOTE),
        (0.69, 5, Action.NONE),
        (0.9, 1, Action.NONE),
        (0.19, 3, Action.DELETE),
        (0.2, 1, Action.NONE),
    ],
)
def test_working_thresholds(score: float, uses: int, action: Action) -> None:
    transition = after_outcome("working", Counters(score=score, uses=uses, history="Y" * min(uses, 2)), CFG)
    assert transition.action is action
    if action is Action.PROMOTE:
        assert transition.target == "history"


@pytest.mark.parametrize(
    ("score", "uses", "successes", "action"),
    [
        (0.9, 3, 5.0, Action.PROMOTE),
        (0.9, 3, 4.5, Action.NONE),
        (0.9, 2, 5.0, Action.NONE),
        (0.89, 9, 9.0, Action.NONE),
        (0.1, 9, 0.0, Action.DELETE),
    ],
)
def test_history_thresholds(score: float, uses: int, successes: float, action: Action) -> None:
    marks = "Y" * min(uses, 5)
    transition = after_outcome("history", Counters(score=score, uses=uses, success_count=successes, history=marks), CFG)
    assert transition.action is action
    if action is Action.PROMOTE:
        assert transition.target == "patterns"


def test_a_thanked_for_exchange_shown_again_and_again_never_reaches_patterns() -> None:
    # The measured defect: a thank-you exchange scored worked twice, then shown on many
    # later turns and scored unknown each time (not used), climbed to patterns: unknown
    # was a use worth a quarter of a success. Unknown earns nothing now, and promotion
    # asks for worked outcomes.
    counters, collection = Counters(score=0.5), "working"
    for outcome in [Outcome.WORKED, Outcome.WORKED] + [Outcome.UNKNOWN] * 20:
        counters = apply_outcome(counters, outcome, age_days=0.0)
        transition = after_outcome(collection, counters, CFG)
        if transition.action is Action.PROMOTE:
            assert transition.target is not None
            collection = transition.target
    assert collection != "patterns"
    assert counters.success_count == 2.0


def test_promotion_needs_worked_outcomes_not_just_score_and_uses() -> None:
    unjudged = Counters(score=0.95, uses=9, success_count=6.0, history="~~~~??????")
    assert after_outcome("history", unjudged, CFG).action is Action.NONE
    assert after_outcome("working", Counters(score=0.8, uses=3, history="~~?"), CFG).action is Action.NONE
    proven = Counters(score=0.95, uses=9, success_count=6.0, history="YYY~~?????")
    assert after_outcome("history", proven, CFG).target == "patterns"


def test_patterns_demote_below_point_four_before_any_deletion() -> None:
    assert after_outcome("patterns", Counters(score=0.4, uses=9), CFG).action is Action.NONE
    collapsed = after_outcome("patterns", Counters(score=0.05, uses=9), CFG)
    assert (collapsed.action, collapsed.target) == (Action.DEMOTE, "history")


@pytest.mark.parametrize("collection", ["memory_bank", "books"])
def test_memory_bank_and_books_are_never_touched(collection: str) -> None:
    for score in (0.0, 0.1, 1.0):
        assert after_outcome(collection, Counters(score=score, uses=50, success_count=50), CFG).action is Action.NONE
        old = NOW - timedelta(days=900)
        assert sweep(collection, Counters(score=score), expiry_clock=old, now=NOW, config=CFG).action is Action.NONE


def test_working_expires_after_a_day_unpromoted() -> None:
    fresh = sweep("working", Counters(), expiry_clock=NOW - timedelta(hours=23), now=NOW, config=CFG)
    stale = sweep("working", Counters(), expiry_clock=NOW - timedelta(hours=25), now=NOW, config=CFG)
    assert fresh.action is Action.NONE and stale.action is Action.EXPIRE


def test_promotion_wins_over_expiry() -> None:
    qualified = Counters(score=0.8, uses=2, history="YY")
    transition = sweep("working", qualified, expiry_clock=NOW - timedelta(hours=48), now=NOW, config=CFG)
    assert transition.action is Action.PROMOTE


def test_history_expires_after_thirty_days_and_patterns_never() -> None:
    old = NOW - timedelta(days=31)
    assert sweep("history", Counters(), expiry_clock=old, now=NOW, config=CFG).action is Action.EXPIRE
    assert (
        sweep("history", Counters(), expiry_clock=NOW - timedelta(days=29), now=NOW, config=CFG).action is Action.NONE
    )
    assert sweep("patterns", Counters(score=0.9), expiry_clock=old, now=NOW, config=CFG).action is Action.NONE


def test_config_is_one_frozen_object_with_checked_thresholds() -> None:
    custom = LifecycleConfig(working_ttl_hours=48)
    assert (
        sweep("working", Counters(), expiry_clock=NOW - timedelta(hours=30), now=NOW, config=custom).action
        is Action.NONE
    )
    with pytest.raises(ValueError):
        LifecycleConfig(delete_below=0.5, demote_patterns_below=0.4)
    with pytest.raises(AttributeError):
        CFG.delete_below = 0.1  # type: ignore[misc]
