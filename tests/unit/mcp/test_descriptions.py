"""Tool descriptions: every number follows the rules the memory service reports; own words only.

The gateway reads the rules over ``GetRules`` (``gateway.rules``); these tests
build the same reply from the memory service's own code (``rules_response``)
and check the text against the constants the service computes with.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from gateway.mcp.descriptions import SELF_AUDIT, tool_texts
from gateway.mcp.facts import DEFAULT_FACTS, Facts, FactsCache
from gateway.rules import DEFAULT_RULES, Rules, rules_from_proto
from mnemex.client_setup.client_entries import TOOL_NAMES
from services.memory.domain.lifecycle import LifecycleConfig
from services.memory.domain.outcomes import INITIAL_SCORE, SCORE_DELTA, Outcome
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.scoring import Counters, apply_outcome
from services.memory.settings import MemorySettings
from services.memory.transport.admin_rpcs import rules_response

DEFAULTS = tool_texts(DEFAULT_FACTS)


def reported(settings: MemorySettings) -> Rules:
    """What a memory service with these settings answers to GetRules, as the gateway parses it."""
    return rules_from_proto(rules_response(settings.lifecycle, settings.ranking))


def test_the_fallback_rules_are_what_a_default_memory_service_reports() -> None:
    assert reported(MemorySettings()) == DEFAULT_RULES
    assert rules_from_proto(rules_response(LifecycleConfig(), RankingWeights())) == DEFAULT_RULES


def test_every_tool_has_a_description_and_client_setup_knows_them_all() -> None:
    assert set(DEFAULTS) == set(TOOL_NAMES) and len(TOOL_NAMES) == 13
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
    claim = re.search(r"(\d+) failed scores take even a perfect memory", text)
    assert claim is not None
    count = int(claim.group(1))
    counters = Counters(score=1.0)
    for _ in range(count - 1):
        counters = apply_outcome(counters, Outcome.FAILED, age_days=0.0)
    assert counters.score >= LifecycleConfig().delete_below, "one failure fewer must not be enough"
    counters = apply_outcome(counters, Outcome.FAILED, age_days=0.0)
    assert counters.score < LifecycleConfig().delete_below


def test_a_memory_service_configured_differently_is_what_the_descriptions_quote() -> None:
    settings = MemorySettings.from_env(
        {"MNEMEX_LIFECYCLE_WORKING_TTL_HOURS": "48", "MNEMEX_LIFECYCLE_DELETE_BELOW": "0.15"}
    )
    overview = tool_texts(Facts(reported(settings)))["get_context_insights"]
    assert "unpromoted for 48 hours" in overview and "below 0.15 is deleted" in overview
    assert "unpromoted for 24 hours" in DEFAULTS["get_context_insights"]


def test_the_cache_quotes_the_defaults_while_the_memory_service_cannot_answer_then_asks_again() -> None:
    custom = reported(MemorySettings.from_env({"MNEMEX_LIFECYCLE_HISTORY_TTL_DAYS": "45"}))
    answers: list[Rules | Exception] = [ConnectionError("memory service down"), custom]
    asked = 0

    async def fetch() -> Rules:
        nonlocal asked
        asked += 1
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def main() -> list[Facts]:
        cache = FactsCache(fetch, timeout=1.0, retry_after=0.0)
        return [await cache.get(), await cache.get(), await cache.get()]

    down, up, kept = asyncio.run(main())
    assert down is DEFAULT_FACTS
    assert up.rules == custom and kept is up and asked == 2  # fetched again after a failure, then kept
    assert "kept 45 days" in tool_texts(up)["get_context_insights"]


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
    assert "leave it out: every memory shown last turn (injected, or returned by search_memory" in text
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
