"""The memory service's learning rules, as the gateway reads them from ``GetRules``.

The MCP tool descriptions quote these numbers (``gateway.mcp.facts``). The rules'
shape is the kernel's (``kernel.memory_rules``), shared with the service that
sends them; ``rules_from_proto`` copies the reply into it field by field, by name.
``DEFAULT_RULES`` is what a memory service with default settings reports;
the descriptions use it until the service answers (a test pins the two
together).
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, TypeVar

from kernel.memory_rules import OUTCOME_WORDS, LifecycleRules, OutcomeRule, Rules
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Shape = TypeVar("Shape", bound="DataclassInstance")

__all__ = ["DEFAULT_RULES", "Rules", "rules_from_proto"]  # Rules: the kernel's, as the gateway modules import it

WORD_OF_OUTCOME = {
    common_pb.OUTCOME_WORKED: "worked",
    common_pb.OUTCOME_PARTIAL: "partial",
    common_pb.OUTCOME_UNKNOWN: "unknown",
    common_pb.OUTCOME_FAILED: "failed",
}


def _copy(message: object, shape: type[Shape], **given: object) -> Shape:
    """A ``shape`` (a dataclass) whose fields are read from ``message`` under the same names, but for ``given``."""
    # the fields' types are the proto's: a test pins the two together
    return shape(**{f.name: getattr(message, f.name) for f in fields(shape) if f.name not in given}, **given)


def rules_from_proto(reply: mem_pb.GetRulesResponse) -> Rules:
    by_word = {
        WORD_OF_OUTCOME[rule.outcome]: _copy(rule, OutcomeRule)
        for rule in reply.outcomes
        if rule.outcome in WORD_OF_OUTCOME
    }
    missing = set(OUTCOME_WORDS) - set(by_word)
    if missing:
        raise ValueError(f"GetRules answered without rules for {', '.join(sorted(missing))}")
    return _copy(
        reply,
        Rules,
        lifecycle=_copy(reply.lifecycle, LifecycleRules),
        outcomes={word: by_word[word] for word in OUTCOME_WORDS},
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
