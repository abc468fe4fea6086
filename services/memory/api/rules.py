"""``GetRules``: the domain's rules report as its protobuf reply."""

from __future__ import annotations

from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.api.convert import OUTCOME_TO_PB
from services.memory.domain.lifecycle import LifecycleConfig
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.rules_report import rules_report


def rules_response(lifecycle: LifecycleConfig, ranking: RankingWeights) -> pb.GetRulesResponse:
    report = rules_report(lifecycle, ranking)
    c = report.lifecycle
    return pb.GetRulesResponse(
        lifecycle=pb.LifecycleRules(
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
        outcomes=[
            pb.OutcomeRule(
                outcome=OUTCOME_TO_PB[rule.outcome],
                score_delta=rule.score_delta,
                success_credit=rule.success_credit,
                initial_score=rule.initial_score,
                history_mark=rule.history_mark,
            )
            for rule in report.outcomes
        ],
        default_initial_score=report.default_initial_score,
        age_half_weight_days=report.age_half_weight_days,
        fixed_quality_wilson_share=report.fixed_quality_wilson_share,
        fixed_quality_wilson_after_uses=report.fixed_quality_wilson_after_uses,
        failures_to_delete_from_top=report.failures_to_delete_from_top,
        failures_to_demote_from_top=report.failures_to_demote_from_top,
    )
