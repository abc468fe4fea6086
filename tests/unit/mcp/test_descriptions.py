"""Tool descriptions: every number follows the memory service's constants; own words only."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gateway.mcp.descriptions import SELF_AUDIT, tool_texts
from gateway.mcp.facts import Facts, current_facts
from mnemex.client_setup.clients import TOOL_NAMES
from services.memory.lifecycle import LifecycleConfig
from services.memory.outcomes import INITIAL_SCORE, SCORE_DELTA, Outcome
from services.memory.scoring import Counters, apply_outcome

DEFAULTS = tool_texts(Facts(LifecycleConfig()))


def test_every_tool_has_a_description_and_client_setup_knows_them_all() -> None:
    assert set(DEFAULTS) == set(TOOL_NAMES) and len(TOOL_NAMES) == 8
    assert all(len(text) > 200 for text in DEFAULTS.values())


def test_lifecycle_thresholds_in_the_overview_match_the_config() -> None:
    config = LifecycleConfig()
    overview = DEFAULTS["get_context_insights"]
    assert (
        f"score >= {config.promote_working_min_score:g} with >= {config.promote_working_min_uses} scored uses"
        in overview
    )
    assert (
        f"score >= {config.promote_history_min_score:g}, >= {config.promote_history_min_uses} uses "
        f"and >= {config.promote_history_min_successes:g} successes" in overview
    )
    assert f"below {config.demote_patterns_below:g} is demoted" in overview
    assert f"below {config.delete_below:g} is deleted" in overview
    assert f"unpromoted for {config.working_ttl_hours:g} hours" in overview
    assert f"kept {config.history_ttl_days:g} days" in overview


def test_deltas_and_age_weight_match_the_scoring_code() -> None:
    for name in ("get_context_insights", "score_response"):
        text = DEFAULTS[name]
        for outcome in (Outcome.WORKED, Outcome.PARTIAL, Outcome.FAILED):
            assert f"{outcome.value} {SCORE_DELTA[outcome]:+.2f}" in text
        assert "1/(1 + age_days/30)" in text
    # the formula quoted is the one the code applies: a 30-day-old memory moves at half strength
    moved = apply_outcome(Counters(score=0.5), Outcome.WORKED, age_days=30.0).score
    assert moved == pytest.approx(0.5 + SCORE_DELTA[Outcome.WORKED] / 2)


def test_initial_scores_of_record_response_match_the_code() -> None:
    text = DEFAULTS["record_response"]
    assert f"worked starts it at {INITIAL_SCORE[Outcome.WORKED]:g}" in text
    assert f"partial at {INITIAL_SCORE[Outcome.PARTIAL]:g}" in text
    assert f"failed at {INITIAL_SCORE[Outcome.FAILED]:g}" in text
    assert f"it starts at {INITIAL_SCORE[None]:g}" in text


def test_pruning_claim_is_true_for_the_real_arithmetic() -> None:
    text = DEFAULTS["score_response"]
    count = int(re.search(r"(\d+) failed scores take even a perfect memory", text).group(1))  # type: ignore[union-attr]
    counters = Counters(score=1.0)
    for _ in range(count - 1):
        counters = apply_outcome(counters, Outcome.FAILED, age_days=0.0)
    assert counters.score >= LifecycleConfig().delete_below, "one failure fewer must not be enough"
    counters = apply_outcome(counters, Outcome.FAILED, age_days=0.0)
    assert counters.score < LifecycleConfig().delete_below


def test_env_overrides_of_the_lifecycle_reach_the_descriptions() -> None:
    facts = current_facts({"MNEMEX_LIFECYCLE_WORKING_TTL_HOURS": "48", "MNEMEX_LIFECYCLE_DELETE_BELOW": "0.15"})
    assert facts.lifecycle == dataclasses.replace(LifecycleConfig(), working_ttl_hours=48.0, delete_below=0.15)
    overview = tool_texts(facts)["get_context_insights"]
    assert "unpromoted for 48 hours" in overview and "below 0.15 is deleted" in overview


def test_search_description_covers_every_mode_and_parameter() -> None:
    text = DEFAULTS["search_memory"]
    for needle in (
        "days_back=7",
        'id="patterns_ab12"',
        'query="auth", days_back=14',
        "sort_by",
        "metadata",
        "collections",
        "limit",
        "w:0.68",
        "8 uses",
        "[YY~N]",
    ):
        assert needle in text
    assert 'score the older one "failed"' in text  # verification guidance


def test_score_description_explains_related_and_finding_ids() -> None:
    text = DEFAULTS["score_response"]
    assert "leave it out: every memory injected last turn" in text
    assert "[]: none of them" in text
    assert "KNOWN CONTEXT block of the previous turn" in text
    assert '"failed" means misleading, never just unused' in text


def test_storage_discipline_and_self_audit_name_real_tools() -> None:
    assert "0.9 or more only for facts you checked" in DEFAULTS["add_to_memory_bank"]
    assert "update_memory" in SELF_AUDIT and "archive_memory" in SELF_AUDIT
    assert "delete_memory" not in " ".join(DEFAULTS.values()) + SELF_AUDIT, "no such tool"


@pytest.mark.parametrize(
    "seed_sentence",
    [
        "You are the gardener. Pull the weeds.",
        "Don't wait to be asked - good assistants remember what matters.",
        "Search your memory before responding. Returns what you know about this user/topic.",
        'Only mark a memory as "failed" if it gave bad advice that led you astray.',
        "SUPPORT INFO",
        "Roampal",
    ],
)
def test_descriptions_do_not_copy_the_seed(seed_sentence: str) -> None:
    assert seed_sentence.lower() not in " ".join(DEFAULTS.values()).lower()
