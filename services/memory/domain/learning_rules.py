"""The numbers the memory service learns by, as it is configured.

Clients that explain mnemex (the MCP tool descriptions) quote these numbers;
they ask the service over ``GetRules`` instead of keeping a copy, so a
service started with other ``MNEMEX_LIFECYCLE_*`` values is described as it
runs. Plain module: built from the lifecycle and ranking settings and the
outcome tables, nothing else, into the shape both ends share (``kernel.memory_rules``).
"""

from __future__ import annotations

from dataclasses import fields

from kernel.memory_rules import LifecycleRules, OutcomeRule, Rules
from services.memory.domain.lifecycle import LifecycleConfig
from services.memory.domain.outcomes import HISTORY_MARK, INITIAL_SCORE, SCORE_DELTA, SUCCESS_CREDIT, Outcome
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.scoring import AGE_HALF_WEIGHT_DAYS, Counters, apply_outcome

MAX_COUNTED_FAILURES = 100


def failures_from_top(below: float) -> int:
    """Full-weight failed scores that take a memory at score 1.0 below ``below`` (the real arithmetic)."""
    counters, count = Counters(score=1.0), 0
    while counters.score >= below and count < MAX_COUNTED_FAILURES:
        counters = apply_outcome(counters, Outcome.FAILED, age_days=0.0)
        count += 1
    return count


def rules_report(lifecycle: LifecycleConfig, ranking: RankingWeights) -> Rules:
    return Rules(
        lifecycle=LifecycleRules(**{f.name: getattr(lifecycle, f.name) for f in fields(LifecycleRules)}),
        outcomes={
            o.value: OutcomeRule(SCORE_DELTA[o], SUCCESS_CREDIT[o], INITIAL_SCORE[o], HISTORY_MARK[o]) for o in Outcome
        },
        default_initial_score=INITIAL_SCORE[None],
        age_half_weight_days=AGE_HALF_WEIGHT_DAYS,
        fixed_quality_wilson_share=ranking.fixed_quality_wilson_share,
        fixed_quality_wilson_after_uses=ranking.fixed_quality_wilson_after_uses,
        failures_to_delete_from_top=failures_from_top(lifecycle.delete_below),
        failures_to_demote_from_top=failures_from_top(lifecycle.demote_patterns_below),
    )
