"""Roampal's knowledge_graph.json imports into the same routing answers as
the same outcomes recorded natively."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.kg.graphs import ScopeGraphs
from services.kg.keys import Outcome
from services.kg.roampal import convert, looks_like_roampal

FIXTURE = Path(__file__).parent / "data" / "roampal_knowledge_graph.json"


@pytest.fixture(scope="module")
def roampal() -> dict[str, Any]:
    """Roampal's export, read as JSON: its values stay untyped."""
    export: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return export


@pytest.fixture(scope="module")
def imported(roampal: dict[str, Any]) -> ScopeGraphs:
    graphs = ScopeGraphs()
    assert looks_like_roampal(roampal)
    graphs.load_json(convert(roampal))
    return graphs


def native_equivalent(roampal: dict[str, Any]) -> ScopeGraphs:
    """Record, outcome by outcome, what each Roampal counter says happened."""
    graphs = ScopeGraphs()
    for concept, pattern in roampal["routing_patterns"].items():
        for collection, stats in pattern["collections_used"].items():
            unknown = stats["total"] - stats["successes"] - stats["failures"]
            for outcome, times in (
                (Outcome.WORKED, stats["successes"]),
                (Outcome.FAILED, stats["failures"]),
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
    roampal: dict[str, Any], imported: ScopeGraphs, concepts: list[str]
) -> None:
    assert imported.routing.route(concepts) == native_equivalent(roampal).routing.route(concepts)


def test_recommendation_agrees_with_roampal_best_collection(roampal: dict[str, Any], imported: ScopeGraphs) -> None:
    for concept, pattern in roampal["routing_patterns"].items():
        answer = imported.routing.route([concept])
        assert answer.has_preference
        if pattern["success_rate"] > 0.5:
            assert answer.recommended[0] == pattern["best_collection"], concept
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
