"""The memory service's learning rules, as the gateway reads them from ``GetRules``.

The MCP tool descriptions quote these numbers (``gateway.mcp.facts``).
``DEFAULT_RULES`` is what a memory service with default settings reports;
the descriptions use it until the service answers (a test pins the two
together). Imports only generated protobuf modules.
"""

from __future__ import annotations

from dataclasses import dataclass

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

OUTCOME_WORDS = {
    common_pb.OUTCOME_WORKED: "worked",
    common_pb.OUTCOME_PARTIAL: "partial",
    common_pb.OUTCOME_UNKNOWN: "unknown",
    common_pb.OUTCOME_FAILED: "failed",
}


@dataclass(frozen=True)
class LifecycleRules:
    promote_working_min_score: float
    promote_working_min_uses: int
    promote_history_min_score: float
    promote_history_min_uses: int
    promote_history_min_successes: float
    demote_patterns_below: float
    delete_below: float
    working_ttl_hours: float
    history_ttl_days: float


@dataclass(frozen=True)
class OutcomeRule:
    score_delta: float
    success_credit: float
    initial_score: float  # starting score of a takeaway stored with this initial outcome
    history_mark: str


@dataclass(frozen=True)
class Rules:
    lifecycle: LifecycleRules
    outcomes: dict[str, OutcomeRule]  # worked, partial, unknown, failed, in that order
    default_initial_score: float  # a takeaway stored without an initial outcome
    age_half_weight_days: float
    fixed_quality_wilson_share: float
    fixed_quality_wilson_after_uses: int
    failures_to_delete_from_top: int
    failures_to_demote_from_top: int


def rules_from_proto(reply: mem_pb.GetRulesResponse) -> Rules:
    c = reply.lifecycle
    by_word = {
        OUTCOME_WORDS[rule.outcome]: OutcomeRule(
            rule.score_delta, rule.success_credit, rule.initial_score, rule.history_mark
        )
        for rule in reply.outcomes
        if rule.outcome in OUTCOME_WORDS
    }
    missing = set(OUTCOME_WORDS.values()) - set(by_word)
    if missing:
        raise ValueError(f"GetRules answered without rules for {', '.join(sorted(missing))}")
    return Rules(
        lifecycle=LifecycleRules(
            promote_working_min_score=c.promote_working_min_score,
            promote_working_min_uses=c.promote_working_min_uses,
            promote_history_min_score=c.promote_history_min_score,
            promote_history_min_uses=c.promote_history_min_uses,
            promote_history_min_successes=c.promote_history_min_successes,
            demote_patterns_below=c.demote_patterns_below,
            delete_below=c.delete_below,
            working_ttl_hours=c.working_ttl_hours,
            history_ttl_days=c.history_ttl_days,
        ),
        outcomes={word: by_word[word] for word in OUTCOME_WORDS.values()},
        default_initial_score=reply.default_initial_score,
        age_half_weight_days=reply.age_half_weight_days,
        fixed_quality_wilson_share=reply.fixed_quality_wilson_share,
        fixed_quality_wilson_after_uses=reply.fixed_quality_wilson_after_uses,
        failures_to_delete_from_top=reply.failures_to_delete_from_top,
        failures_to_demote_from_top=reply.failures_to_demote_from_top,
    )


DEFAULT_RULES = Rules(
    lifecycle=LifecycleRules(
        promote_working_min_score=0.7,
        promote_working_min_uses=2,
        promote_history_min_score=0.9,
        promote_history_min_uses=3,
        promote_history_min_successes=5.0,
        demote_patterns_below=0.4,
        delete_below=0.2,
        working_ttl_hours=24.0,
        history_ttl_days=30.0,
    ),
    outcomes={
        "worked": OutcomeRule(score_delta=0.20, success_credit=1.0, initial_score=0.7, history_mark="Y"),
        "partial": OutcomeRule(score_delta=0.05, success_credit=0.5, initial_score=0.55, history_mark="~"),
        "unknown": OutcomeRule(score_delta=0.0, success_credit=0.0, initial_score=0.5, history_mark="?"),
        "failed": OutcomeRule(score_delta=-0.30, success_credit=0.0, initial_score=0.2, history_mark="N"),
    },
    default_initial_score=0.5,
    age_half_weight_days=30.0,
    fixed_quality_wilson_share=0.2,
    fixed_quality_wilson_after_uses=3,
    failures_to_delete_from_top=3,
    failures_to_demote_from_top=3,
)
