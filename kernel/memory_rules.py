"""The memory service's learning rules: one shape for both ends of ``GetRules``.

The memory service reports the numbers it learns by (``services.memory.domain.learning_rules``
builds ``Rules`` from its settings); the gateway reads them back to quote them in the MCP
tool descriptions (``gateway.rules``, ``gateway.mcp.facts``). Plain dataclasses, defined
once; the ``GetRulesResponse`` message carries every field under the same name, so each
end copies by field name (``services.memory.transport.admin_rpcs.rules_response``,
``gateway.rules.rules_from_proto``).
"""

from __future__ import annotations

from dataclasses import dataclass

OUTCOME_WORDS = ("worked", "partial", "unknown", "failed")  # the order the rules list outcomes in


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
