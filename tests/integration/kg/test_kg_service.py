"""The kg service over real gRPC: every RPC, reflection and health from the
shared runtime, and INVALID_ARGUMENT for bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1.kg_service_pb2_grpc import KnowledgeGraphServiceStub

FIXTURE = Path(__file__).parents[2] / "unit" / "kg" / "data" / "roampal_knowledge_graph.json"


def learn(
    stub: KnowledgeGraphServiceStub,
    scope: common_pb.Scope,
    concepts: list[str],
    collection: str,
    outcome: common_pb.Outcome,
    times: int = 1,
) -> None:
    for _ in range(times):
        stub.RecordOutcome(
            pb.RecordOutcomeRequest(
                scope=scope,
                concepts=concepts,
                collections=[collection],
                doc_ids=[f"{collection}_1"],
                outcome=outcome,
                context_type="coding",
            ),
            timeout=5,
        )


def test_reflection_and_health_come_from_the_shared_runtime(kg_server: tuple[str, Path]) -> None:
    with grpc.insecure_channel(kg_server[0]) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="mnemex.kg.v1.KnowledgeGraphService"), timeout=5
        )
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = reflection.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
        )
        names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert "mnemex.kg.v1.KnowledgeGraphService" in names and "grpc.health.v1.Health" in names


def test_extract_concepts(stub: KnowledgeGraphServiceStub) -> None:
    reply = stub.ExtractConcepts(
        pb.ExtractConceptsRequest(text="Fix the KeyError in services/kg/kg_servicer.py"), timeout=5
    )
    assert {(e.name, e.type) for e in reply.entities} >= {("KeyError", "error"), ("services/kg/kg_servicer.py", "path")}
    assert reply.context_type == "debugging"
    assert "keyerror" in reply.concepts


def test_route_learns_prefers_books_and_failures_lower_it(
    stub: KnowledgeGraphServiceStub, scope: common_pb.Scope
) -> None:
    concepts = ["python", "asyncio"]
    empty = stub.Route(pb.RouteRequest(scope=scope, concepts=concepts), timeout=5)
    assert not empty.has_preference and dict(empty.weights) == {} and list(empty.recommended) == []
    learn(stub, scope, concepts, "books", common_pb.OUTCOME_WORKED, times=4)
    learn(stub, scope, concepts, "history", common_pb.OUTCOME_PARTIAL)
    learned = stub.Route(pb.RouteRequest(scope=scope, concepts=["asyncio"]), timeout=5)
    assert learned.has_preference and learned.recommended[0] == "books"
    assert learned.weights["books"] > 1.0 and learned.confidence > 0
    learn(stub, scope, concepts, "books", common_pb.OUTCOME_FAILED, times=6)
    lowered = stub.Route(pb.RouteRequest(scope=scope, concepts=["asyncio"]), timeout=5)
    assert lowered.weights["books"] < learned.weights["books"]
    assert lowered.weights["books"] < 1.0 and "books" not in lowered.recommended


def test_actions_facts_solutions_graph_and_stats(stub: KnowledgeGraphServiceStub, scope: common_pb.Scope) -> None:
    first = stub.RecordAction(
        pb.RecordActionRequest(
            scope=scope,
            context_type="coding",
            action="search_memory",
            collection="patterns",
            outcome=common_pb.OUTCOME_WORKED,
            doc_id="p1",
        ),
        timeout=5,
    )
    second = stub.RecordAction(
        pb.RecordActionRequest(
            scope=scope,
            context_type="coding",
            action="search_memory",
            collection="patterns",
            outcome=common_pb.OUTCOME_FAILED,
            doc_id="p2",
        ),
        timeout=5,
    )
    assert (first.success_rate, first.total) == (1.0, 1) and (second.success_rate, second.total) == (0.5, 2)
    indexed = stub.IndexFact(
        pb.IndexFactRequest(
            scope=scope, fact_id="mb_1", text="Alice maintains the billing service, which depends on PostgreSQL."
        ),
        timeout=5,
    )
    assert {"Alice", "PostgreSQL", "billing service"} <= {e.name for e in indexed.entities}
    facts = stub.FactsForEntities(pb.FactsForEntitiesRequest(scope=scope, entities=["postgresql", "nobody"]), timeout=5)
    assert [(f.fact_id, f.entity) for f in facts.facts] == [("mb_1", "PostgreSQL")]
    neighbours = stub.Neighbors(pb.NeighborsRequest(scope=scope, entity="billing service"), timeout=5)
    assert ("billing service", "PostgreSQL", "depends_on") in {
        (e.source, e.target, e.relation) for e in neighbours.edges
    }
    spread = stub.Traverse(pb.TraverseRequest(scope=scope, seeds=["Alice"], max_depth=2), timeout=5)
    assert "PostgreSQL" in {n.node for n in spread.nodes}
    stub.RecordOutcome(
        pb.RecordOutcomeRequest(
            scope=scope,
            problem="pytest fixture teardown hangs",
            collections=["patterns"],
            doc_ids=["p9"],
            outcome=common_pb.OUTCOME_WORKED,
        ),
        timeout=5,
    )
    solutions = stub.SolutionsFor(
        pb.SolutionsForRequest(scope=scope, problem="the pytest fixture teardown hangs again"), timeout=5
    )
    assert [s.doc_id for s in solutions.solutions] == ["p9"]
    graph = stub.Graph(pb.GraphRequest(scope=scope), timeout=5)
    kinds = {n.kind for n in graph.nodes}
    assert {"name", "library", "concept", "collection"} <= kinds
    assert "pytest" in json.loads(graph.routing_json)
    counts = stub.Stats(pb.StatsRequest(scope=scope), timeout=5).counts
    assert counts["facts"] == 1 and counts["actions"] >= 1 and counts["outcomes_recorded"] == 1


def test_recall_is_extract_route_and_facts_in_one_call(stub: KnowledgeGraphServiceStub, scope: common_pb.Scope) -> None:
    text = "Why is PostgreSQL slow in the billing service with asyncio?"
    fresh = stub.Recall(pb.RecallRequest(scope=scope, text=text), timeout=5)
    assert fresh.extraction == stub.ExtractConcepts(pb.ExtractConceptsRequest(text=text), timeout=5)
    assert not fresh.route.has_preference and list(fresh.facts) == []
    stub.IndexFact(
        pb.IndexFactRequest(scope=scope, fact_id="mb_pg", text="The billing service runs on PostgreSQL 16."), timeout=5
    )
    concepts = list(fresh.extraction.concepts)
    learn(stub, scope, concepts, "patterns", common_pb.OUTCOME_WORKED, times=4)
    learned = stub.Recall(pb.RecallRequest(scope=scope, text=text, fact_limit=3), timeout=5)
    assert learned.route == stub.Route(pb.RouteRequest(scope=scope, concepts=concepts), timeout=5)
    assert learned.route.has_preference and learned.route.recommended[0] == "patterns"
    assert "mb_pg" in {f.fact_id for f in learned.facts} and len(learned.facts) <= 3
    with pytest.raises(grpc.RpcError) as err:
        stub.Recall(pb.RecallRequest(scope=scope, text=" "), timeout=5)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_remove_docs_over_grpc(stub: KnowledgeGraphServiceStub, scope: common_pb.Scope) -> None:
    stub.IndexFact(pb.IndexFactRequest(scope=scope, fact_id="book_7", text="Chapter on Redis streams."), timeout=5)
    removed = stub.RemoveDocs(pb.RemoveDocsRequest(scope=scope, doc_ids=["book_7", "never_seen"]), timeout=5)
    assert removed.references_removed >= 1
    assert stub.FactsForEntities(pb.FactsForEntitiesRequest(scope=scope, entities=["Redis"]), timeout=5).facts == []


def test_roampal_import_and_export_round_trip(stub: KnowledgeGraphServiceStub, scope: common_pb.Scope) -> None:
    reply = stub.Import(pb.ImportRequest(scope=scope, graph_json=FIXTURE.read_text(encoding="utf-8")), timeout=5)
    assert reply.format == "roampal" and reply.nodes > 0 and reply.edges > 0
    routed = stub.Route(pb.RouteRequest(scope=scope, concepts=["python"]), timeout=5)
    assert routed.recommended[0] == "books"
    exported = stub.Export(pb.ExportRequest(scope=scope), timeout=5).graph_json
    copy = common_pb.Scope(user=scope.user, project=scope.project + "-copy")
    assert stub.Import(pb.ImportRequest(scope=copy, graph_json=exported), timeout=5).format == "mnemex"
    assert stub.Route(pb.RouteRequest(scope=copy, concepts=["python"]), timeout=5) == routed


@pytest.mark.parametrize(
    ("call", "request_factory", "fragment"),
    [
        ("Route", lambda s: pb.RouteRequest(concepts=["x"]), "scope.user is empty"),
        (
            "Route",
            lambda s: pb.RouteRequest(scope=common_pb.Scope(user="a b", project="p"), concepts=["x"]),
            "not allowed",
        ),
        ("ExtractConcepts", lambda s: pb.ExtractConceptsRequest(text="x" * 20_001), "too long"),
        ("ExtractConcepts", lambda s: pb.ExtractConceptsRequest(text="  "), "text is empty"),
        (
            "RecordOutcome",
            lambda s: pb.RecordOutcomeRequest(scope=s, concepts=["a"], collections=["books"]),
            "outcome is unspecified",
        ),
        (
            "RecordOutcome",
            lambda s: pb.RecordOutcomeRequest(scope=s, collections=["books"], outcome=common_pb.OUTCOME_WORKED),
            "nothing to learn",
        ),
        (
            "RecordAction",
            lambda s: pb.RecordActionRequest(scope=s, action="x", outcome=common_pb.OUTCOME_WORKED),
            "context_type is empty",
        ),
        ("IndexFact", lambda s: pb.IndexFactRequest(scope=s, text="hello"), "fact_id is empty"),
        ("Traverse", lambda s: pb.TraverseRequest(scope=s, seeds=["a"], decay=1.5), "decay"),
        ("Traverse", lambda s: pb.TraverseRequest(scope=s, seeds=["a"], max_depth=50), "max_depth"),
        ("FactsForEntities", lambda s: pb.FactsForEntitiesRequest(scope=s, entities=["a"], limit=5000), "limit"),
        ("Import", lambda s: pb.ImportRequest(scope=s, graph_json="{not json"), "not valid JSON"),
        ("Import", lambda s: pb.ImportRequest(scope=s, graph_json='{"nodes": []}'), "neither a mnemex export"),
        ("RemoveDocs", lambda s: pb.RemoveDocsRequest(scope=s), "doc_ids is empty"),
    ],
)
def test_bad_input_is_invalid_argument(
    stub: KnowledgeGraphServiceStub,
    scope: common_pb.Scope,
    call: str,
    request_factory: Callable[[common_pb.Scope], Message],
    fragment: str,
) -> None:
    with pytest.raises(grpc.RpcError) as err:
        getattr(stub, call)(request_factory(scope), timeout=5)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in (err.value.details() or "")


def test_unknown_entities_give_empty_results(stub: KnowledgeGraphServiceStub, scope: common_pb.Scope) -> None:
    assert stub.Neighbors(pb.NeighborsRequest(scope=scope, entity="ghost"), timeout=5).edges == []
    assert stub.Traverse(pb.TraverseRequest(scope=scope, seeds=["ghost"]), timeout=5).nodes == []
    assert stub.SolutionsFor(pb.SolutionsForRequest(scope=scope, problem="anything at all"), timeout=5).solutions == []


def test_recall_says_when_no_episode_is_known(stub: KnowledgeGraphServiceStub) -> None:
    fresh = common_pb.Scope(user="nobody-taught-yet", project="p")
    problem = "pytest fails with ModuleNotFoundError: No module named 'billing'"
    assert stub.Recall(pb.RecallRequest(scope=fresh, text=problem), timeout=5).no_episodes
    stub.RecordToolError(
        pb.RecordToolErrorRequest(
            scope=fresh, session_id="s1", command="pip install billing", output="ModuleNotFoundError: billing"
        ),
        timeout=5,
    )
    stub.RecordTurn(
        pb.RecordTurnRequest(
            scope=fresh, session_id="s1", prompt=problem, outcome=common_pb.OUTCOME_FAILED, answer="Installed billing."
        ),
        timeout=5,
    )
    other_project = common_pb.Scope(user=fresh.user, project="another")
    assert not stub.Recall(pb.RecallRequest(scope=other_project, text="anything"), timeout=5).no_episodes
