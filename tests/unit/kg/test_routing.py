"""Routing learns from outcomes and never invents a preference."""

from __future__ import annotations

from services.kg.keys import Outcome
from services.kg.routing import MAX_SWING, RoutingGraph


def teach(graph: RoutingGraph, concepts: list[str], collection: str, outcome: Outcome, times: int) -> None:
    for i in range(times):
        graph.record(concepts, [collection], outcome, float(i))


def test_no_preference_until_something_is_learned() -> None:
    graph = RoutingGraph()
    answer = graph.route(["python", "asyncio"])
    assert not answer.has_preference and answer.weights == {} and answer.recommended == []
    assert answer.confidence == 0.0
    teach(graph, ["rust"], "books", Outcome.WORKED, 3)
    assert not graph.route(["python"]).has_preference  # other concepts' learning does not leak
    graph.record(["python"], ["books"], Outcome.UNKNOWN, 1.0)
    assert not graph.route(["python"]).has_preference  # unknown outcomes carry no signal


def test_repeated_worked_outcomes_make_books_preferred() -> None:
    graph = RoutingGraph()
    teach(graph, ["python", "asyncio"], "books", Outcome.WORKED, 5)
    teach(graph, ["python", "asyncio"], "history", Outcome.PARTIAL, 2)
    answer = graph.route(["asyncio", "something_else"])
    assert answer.has_preference
    assert answer.recommended[0] == "books"
    assert answer.weights["books"] > answer.weights["history"] >= 1.0
    assert all(1 - MAX_SWING < w < 1 + MAX_SWING for w in answer.weights.values())


def test_failures_lower_a_preference() -> None:
    graph = RoutingGraph()
    teach(graph, ["docker"], "patterns", Outcome.WORKED, 4)
    before = graph.route(["docker"]).weights["patterns"]
    teach(graph, ["docker"], "patterns", Outcome.FAILED, 4)
    balanced = graph.route(["docker"]).weights["patterns"]
    teach(graph, ["docker"], "patterns", Outcome.FAILED, 4)
    after = graph.route(["docker"])
    assert before > balanced > after.weights["patterns"]
    assert after.weights["patterns"] < 1.0
    assert "patterns" not in after.recommended


def test_confidence_grows_with_evidence() -> None:
    graph = RoutingGraph()
    teach(graph, ["jwt"], "memory_bank", Outcome.WORKED, 1)
    low = graph.route(["jwt"]).confidence
    teach(graph, ["jwt"], "memory_bank", Outcome.WORKED, 10)
    high = graph.route(["jwt"]).confidence
    assert 0 < low < high < 1


def test_summary_and_json_round_trip() -> None:
    graph = RoutingGraph()
    teach(graph, ["pytest"], "patterns", Outcome.WORKED, 3)
    teach(graph, ["pytest"], "working", Outcome.FAILED, 2)
    assert graph.concept_summary()["pytest"]["best_collection"] == "patterns"
    copy = RoutingGraph()
    copy.load_json(graph.to_json())
    assert copy.route(["pytest"]) == graph.route(["pytest"])
    assert copy.to_json() == graph.to_json()
