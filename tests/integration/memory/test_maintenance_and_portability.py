from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService, start_memory_service, store


def ago(**delta: float) -> str:
    return (datetime.now(UTC) - timedelta(**delta)).isoformat(timespec="seconds")


def record(scope: common_pb.Scope, collection: str, rid: str, content: str, **meta: object) -> pb.ImportRequest:
    body = {
        "scope": {"user": scope.user, "project": scope.project},
        "collection": collection,
        "id": rid,
        "content": content,
        "metadata": meta,
    }
    return pb.ImportRequest(record_json=json.dumps(body))


def test_maintenance_expires_promotes_and_records_events(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    stale = store(
        stub,
        scope,
        "Scratch: tried three regexes for the parser",
        metadata_json=json.dumps({"created_at": ago(hours=30)}),
    )
    fresh = store(stub, scope, "Scratch: the parser now handles unicode")
    reply = stub.Import(
        iter(
            [
                record(
                    scope,
                    "working",
                    "working_" + "a" * 32,
                    "Qualified: cache keys include the locale",
                    score=0.8,
                    uses=2,
                    outcome_history="YY",  # promotion needs worked outcomes
                    created_at=ago(hours=2),
                ),
                record(
                    scope,
                    "history",
                    "history_" + "b" * 32,
                    "Forgotten: old build flags",
                    score=0.6,
                    uses=1,
                    created_at=ago(days=45),
                    last_used_at=ago(days=40),
                ),
                record(
                    scope,
                    "patterns",
                    "patterns_" + "c" * 32,
                    "Proven: always run migrations in a transaction",
                    score=0.95,
                    uses=9,
                    created_at=ago(days=200),
                ),
            ]
        ),
        timeout=60,
    )
    assert (reply.imported, reply.skipped_existing, reply.invalid) == (3, 0, 0)
    report = stub.RunMaintenance(pb.RunMaintenanceRequest(scope=scope), timeout=60)
    assert (report.expired, report.promoted, report.deleted, report.demoted) == (2, 1, 0, 0)
    remaining = {m.id for m in stub.Search(pb.SearchRequest(scope=scope, days_back=365), timeout=10).memories}
    assert stale.id not in remaining and "history_" + "b" * 32 not in remaining
    assert {fresh.id, "history_" + "a" * 32, "patterns_" + "c" * 32} <= remaining
    stats = stub.Stats(pb.StatsRequest(scope=scope), timeout=10)
    assert (stats.events["expired"], stats.events["promoted"]) == (2, 1)
    assert (stats.counts["working"], stats.counts["history"], stats.counts["patterns"]) == (1, 1, 1)
    assert stats.score_histogram["0.9"] == 1 and stats.score_histogram["0.8"] == 1 and stats.data_bytes > 0
    by_day = json.loads(stats.events_by_day_json)
    assert by_day[datetime.now(UTC).date().isoformat()] == {"expired": 2, "promoted": 1}


def test_exchange_logs_older_than_seven_days_are_pruned(
    memory_service: MemoryService, stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    memory = memory_service.memory
    stub.RecordInjection(
        pb.RecordInjectionRequest(scope=scope, session_id="old", ids=[], prompt="long ago"), timeout=10
    )
    stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="old", assistant_text="answered long ago"), timeout=30
    )
    real_clock = memory.clock.source
    memory.clock.source = lambda: real_clock() + timedelta(days=8)  # the clock seam: eight days later
    try:
        stub.RecordInjection(
            pb.RecordInjectionRequest(scope=scope, session_id="new", ids=[], prompt="today"), timeout=10
        )
        pruned = stub.RunMaintenance(pb.RunMaintenanceRequest(scope=scope), timeout=60).exchanges_pruned
    finally:
        memory.clock.source = real_clock
    assert pruned >= 1
    assert not stub.GetScoringState(
        pb.GetScoringStateRequest(scope=scope, session_id="old"), timeout=10
    ).scoring_required


def test_export_then_import_is_exact_and_idempotent(
    stub: pb_grpc.MemoryServiceStub,
    scope: common_pb.Scope,
    loop_thread: LoopThread,
    embedding_addr: str,
    tmp_path: Path,
) -> None:
    note = store(stub, scope, "History: the queue switched from RabbitMQ to NATS")
    fact = store(stub, scope, "User prefers dark mode", "memory_bank", tags=["ui"], importance=0.8)
    stub.Score(pb.ScoreRequest(scope=scope, memory_scores={note.id: common_pb.OUTCOME_WORKED}), timeout=10)
    exported = [r.record_json for r in stub.Export(pb.ExportRequest(scope=scope), timeout=60)]
    assert {json.loads(r)["id"] for r in exported} == {note.id, fact.id}
    server = loop_thread.run(start_memory_service(tmp_path, embedding_addr))
    port = server.port
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
            other = pb_grpc.MemoryServiceStub(chan)
            lines = [*exported, "not json", json.dumps({"collection": "nowhere", "content": "x"})]
            first = other.Import(iter(pb.ImportRequest(record_json=r) for r in lines), timeout=60)
            assert (first.imported, first.skipped_existing, first.invalid) == (2, 0, 2)
            again = other.Import(iter(pb.ImportRequest(record_json=r) for r in exported), timeout=60)
            assert (again.imported, again.skipped_existing) == (0, 2)
            copy = other.Get(pb.GetRequest(scope=scope, id=note.id), timeout=10).memory
            bank = other.Get(
                pb.GetRequest(scope=common_pb.Scope(user=scope.user, project="elsewhere"), id=fact.id), timeout=10
            ).memory
            hit = other.Search(pb.SearchRequest(scope=scope, query="message queue NATS", limit=1), timeout=30).memories[
                0
            ]
            scopes = other.ListScopes(pb.ListScopesRequest(), timeout=10).scopes
    finally:
        loop_thread.run(server.stop(0))
    original = stub.Get(pb.GetRequest(scope=scope, id=note.id), timeout=10).memory
    assert (copy.content, copy.uses, copy.score, copy.created_at) == (
        original.content,
        1,
        original.score,
        original.created_at,
    )
    assert list(bank.tags) == ["ui"] and bank.importance == pytest.approx(0.8)
    assert hit.id == note.id and hit.embedding_similarity > 0.4
    listed = {(s.scope.user, s.scope.project): dict(s.counts) for s in scopes}
    assert listed[(scope.user, scope.project)] == {"working": 1, "memory_bank": 1}


def test_health_and_reflection_are_served(memory_service: MemoryService) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    with grpc.insecure_channel(memory_service.address) as chan:
        status = (
            health_pb2_grpc.HealthStub(chan)
            .Check(health_pb2.HealthCheckRequest(service="mnemex.memory.v1.MemoryService"), timeout=5)
            .status
        )
        replies = reflection_pb2_grpc.ServerReflectionStub(chan).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
        )
        names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert "mnemex.memory.v1.MemoryService" in names
