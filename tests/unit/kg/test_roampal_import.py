"""Roampal's knowledge_graph.json imports into the same routing answers as
the same outcomes recorded natively."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.json_values import JSONObject, as_object, float_at, int_at, object_at, parse_object, str_at
from services.kg.graphs import ScopeGraphs
from services.kg.keys import Outcome
from services.kg.roampal import convert, looks_like_roampal

FIXTURE = Path(__file__).parent / "data" / "roampal_knowledge_graph.json"


@pytest.fixture(scope="module")
def roampal() -> JSONObject:
    """Roampal's export, read as JSON."""
    return parse_object(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def imported(roampal: JSONObject) -> ScopeGraphs:
    graphs = ScopeGraphs()
    assert looks_like_roampal(roampal)
    graphs.load_json(convert(roampal))
    return graphs


def native_equivalent(roampal: JSONObject) -> ScopeGraphs:
    """Record, outcome by outcome, what each Roampal counter says happened."""
    graphs = ScopeGraphs()
    for concept, pattern in object_at(roampal, "routing_patterns").items():
        for collection, counters in object_at(as_object(pattern), "collections_used").items():
            stats = as_object(counters)
            successes, failures = int_at(stats, "successes"), int_at(stats, "failures")
            unknown = int_at(stats, "total") - successes - failures
            for outcome, times in (
                (Outcome.WORKED, successes),
                (Outcome.FAILED, failures),
                (Outcome.UNKNOWN, unknown),
            ):
                for _ in range(times):
                    graphs.routing.record([concept], [collection], outcome, 0.0)
    return graphs


@pytest.mark.parametrize(
    "concepts",
    [
        ["python"],
        ["docker_compose"],
        ["user_preferences"],
        ["flaky"],
        ["python", "flaky"],
        ["python", "docker_compose"],
    ],
)
def test_imported_routing_equals_natively_learned(
    roampal: JSONObject, imported: ScopeGraphs, concepts: list[str]
) -> None:
    assert imported.routing.route(concepts) == native_equivalent(roampal).routing.route(concepts)


def test_recommendation_agrees_with_roampal_best_collection(roampal: JSONObject, imported: ScopeGraphs) -> None:
    for concept, pattern in object_at(roampal, "routing_patterns").items():
        answer = imported.routing.route([concept])
        assert answer.has_preference
        verdict = as_object(pattern)
        if float_at(verdict, "success_rate") > 0.5:
            assert answer.recommended[0] == str_at(verdict, "best_collection"), concept
    # "flaky" only ever failed on history; Roampal's best_collection there is a
    # default, and mnemex says history is worse than neutral instead.
    flaky = imported.routing.route(["flaky"])
    assert flaky.recommended == [] and flaky.weights["history"] < 1.0


def test_other_sections_carry_over(imported: ScopeGraphs) -> None:
    assert imported.failures.reasons("flaky") == [("retried without a seed", 1), ("stale fixture advice", 1)]
    solutions = imported.problems.solutions(["docker", "compose", "volume"], 5)
    assert solutions[0]["doc_id"] == "patterns_a12"
    assert solutions[0]["success_rate"] == 0.75  # 3 worked, 1 failed from solution_patterns
    stats = imported.actions.stats("coding", "search_memory", "patterns")
    assert stats is not None and stats["worked"] == 9 and stats["partial"] == 2 and stats["total"] == 12
    assert {"patterns_a12", "books_chunk_7", "history_9f1"} <= imported.referenced_doc_ids()


def test_unknown_layout_is_not_taken_for_roampal() -> None:
    assert not looks_like_roampal({"nodes": [], "edges": []})
    assert not looks_like_roampal({"format": "mnemex-kg", "routing_patterns": {}})
