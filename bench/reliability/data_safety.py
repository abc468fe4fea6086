"""Data safety: imported history vs the lifecycle sweep, kill -9 during consolidations, huge invalid
values in gRPC errors, and shard ownership on Import (issue 27, defects 1, 9, 10 and 12).

One real stack (the four processes of ``tests.support.stack``, home under ``workdir``):

- **backfill**: 300 exchanges dated a year back (with tool observations) go through
  ``POST /api/backfill``; the memory service's maintenance pass runs twice (what runs
  30 s after every start and every 15 min); every imported id is then looked up.
  ``lost`` counts the ones gone.
- **consolidation** (``tests/support/consolidation_kills.py``): 6 rounds of
  consolidations from 3 client threads; memory is SIGKILLed 0.2-1.5 s after a round's
  first answered merge and restarted on its port. ``failed`` counts half-applied
  merges after the restart (the merged memory active while a source still is),
  retries of the cut calls that fail, and duplicate merged memories of one set of
  sources; ``lost`` counts sources no longer stored.
- **huge values**: RPCs of memory and kg with an 8 MB id, title or name; ``failed``
  counts answers other than INVALID_ARGUMENT / NOT_FOUND / FAILED_PRECONDITION (a
  RESOURCE_EXHAUSTED means the message echoed the value past the 16 KB trailer
  limit) and messages over 2,000 characters.
- **shards**: an in-process memory service with ``MNEMEX_SHARD=0/2`` (sharing the
  stack's embedding service) gets Import and scoped calls for a user of shard 1;
  ``failed`` counts calls not refused with FAILED_PRECONDITION, ``lost`` rows it
  stored for that user (rows nobody could see; counted by opening the same home unsharded).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

from bench.reliability import Row

if TYPE_CHECKING:
    from protos.mnemex.memory.v1.memory_service_pb2 import RunMaintenanceResponse
    from tests.support.stack import Stack

FAMILY = "data safety"
BACKFILL_EXCHANGES = 300
CONSOLIDATION_ROUNDS = 6
PAIRS_PER_ROUND = 30
HUGE = "x" * (8 * 1024 * 1024)
ACCEPTED_REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION}


def run(workdir: Path) -> list[Row]:
    from tests.support.procstack import start_stack

    stack = start_stack(workdir / "home")
    try:
        return [_backfill_then_sweep(stack), _kill_during_consolidations(stack), *_huge_values(stack), _shards(stack)]
    finally:
        stack.stop()


# -- backfill, then the lifecycle sweep ---------------------------------------------------------
def _run_maintenance(address: str, home: Path) -> RunMaintenanceResponse:
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb
    from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
    from tests.support.grpc_token import home_channel

    with home_channel(address, home) as channel:
        return pb_grpc.MemoryServiceStub(channel).RunMaintenance(pb.RunMaintenanceRequest(), timeout=300)


def _backfill_then_sweep(stack: Stack) -> Row:
    from gateway.capabilities.backfill_service import backfill_id
    from kernel.json_values import as_object, objects_at
    from tests.support.procstack import post

    cwd = stack.home / "imported-project"
    (cwd / ".git").mkdir(parents=True, exist_ok=True)
    year_ago = datetime.now(UTC) - timedelta(days=365)
    exchanges = [
        {
            "source_id": f"old:{i}",
            "client": "claude",
            "session_id": f"old-session-{i // 20}",
            "cwd": str(cwd),
            "started_at": (year_ago + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
            "user_text": f"question {i}: how do we rotate the staging certificates?",
            "assistant_text": f"answer {i}: run make rotate-certs ENV=staging, then reload nginx",
            "tool_uses": [
                {
                    "tool_name": "Bash",
                    "tool_input": {"command": f"pytest tests/test_{i}.py"},
                    "tool_response": {"stdout": f"{i + 1} passed in 0.1s"},
                }
            ]
            if i % 10 == 0
            else [],
        }
        for i in range(BACKFILL_EXCHANGES)
    ]
    ids: list[str] = []
    refused = 0
    for start in range(0, len(exchanges), 100):
        status, reply = post(stack, "/api/backfill", {"exchanges": exchanges[start : start + 100]}, timeout=300)
        if status != 200:
            refused += 1
            continue
        for item in exchanges[start : start + 100]:
            ids.append(backfill_id("claude", str(item["source_id"])))
            if item["tool_uses"]:
                ids.append(backfill_id("claude", str(item["source_id"]), "tool:0"))
    swept = [_run_maintenance(stack.addr("memory"), stack.home) for _ in range(2)]
    missing = 0
    for memory_id in ids:
        status, reply = post(stack, "/api/search", {"id": memory_id, "cwd": str(cwd)})
        found = list(objects_at(as_object(reply), "memories")) if status == 200 else []
        if [m.get("id") for m in found] != [memory_id]:
            missing += 1
    expired = sum(s.expired + s.deleted + s.observations_compacted for s in swept)
    note = f"{len(ids)} memories imported (exchanges + observations), 2 sweeps: {expired} expired/compacted"
    if refused:
        note += f"; {refused} batches refused"
    return Row(FAMILY, "backfill 300 year-old exchanges, then sweep", len(ids), missing + refused, missing, note)


# -- kill -9 of memory during consolidations ------------------------------------------------------
def _kill_during_consolidations(stack: Stack) -> Row:
    from tests.support.consolidation_kills import consolidations_across_kills
    from tests.support.procstack import kill9, restart

    report = consolidations_across_kills(
        stack.addr("memory"),
        stack.home,
        lambda: kill9(stack, "memory"),
        lambda: restart(stack, "memory"),
        rounds=CONSOLIDATION_ROUNDS,
        pairs_per_round=PAIRS_PER_ROUND,
        kill_within_s=(0.2, 1.5),
    )
    note = (
        f"{CONSOLIDATION_ROUNDS} kills, {report.cut} calls cut by a kill and retried; {report.half_applied} "
        f"half-applied after restart, {report.duplicates} duplicate merges, {len(report.refusals)} retries refused"
    )
    if report.refusals:
        note += f" (first: {report.refusals[0]})"
    failed = report.half_applied + report.duplicates + len(report.refusals)
    return Row(FAMILY, "kill -9 of memory during consolidations", report.tried, failed, report.lost, note)


# -- huge invalid values ---------------------------------------------------------------------------
def _huge_values(stack: Stack) -> list[Row]:
    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
    from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb
    from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
    from tests.support.grpc_token import home_channel

    scope = common_pb.Scope(user="tester", project="huge")
    rows = []
    with home_channel(stack.addr("memory"), stack.home) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        memory_calls: list[Callable[[], object]] = [
            lambda: stub.Get(pb.GetRequest(scope=scope, id=HUGE), timeout=60),
            lambda: stub.Archive(pb.ArchiveRequest(scope=scope, id=HUGE), timeout=60),
            lambda: stub.Restore(pb.RestoreRequest(scope=scope, id=HUGE), timeout=60),
            lambda: stub.RemoveBook(pb.RemoveBookRequest(scope=scope, title=HUGE), timeout=60),
            lambda: stub.UndoConsolidation(pb.UndoConsolidationRequest(scope=scope, id=HUGE), timeout=60),
            lambda: stub.Consolidate(pb.ConsolidateRequest(scope=scope, source_ids=[HUGE], content="m"), timeout=60),
            lambda: stub.Store(pb.StoreRequest(scope=scope, collection=HUGE, content="a note"), timeout=60),
            lambda: stub.Update(pb.UpdateRequest(scope=scope, id=HUGE, content="new text"), timeout=60),
        ]
        rows.append(_refusals("memory: 8 MB id / title / collection", memory_calls))
    with home_channel(stack.addr("kg"), stack.home) as channel:
        kg = kg_grpc.KnowledgeGraphServiceStub(channel)
        kg_calls: list[Callable[[], object]] = [
            lambda: kg.Neighbors(kg_pb.NeighborsRequest(scope=scope, entity=HUGE), timeout=60),
            lambda: kg.Import(kg_pb.ImportRequest(scope=scope, graph_json=HUGE), timeout=60),
            lambda: kg.Route(kg_pb.RouteRequest(scope=common_pb.Scope(user=HUGE, project="p")), timeout=60),
        ]
        rows.append(_refusals("kg: 8 MB entity / graph / user", kg_calls))
    return rows


def _refusals(case: str, calls: list[Callable[[], object]]) -> Row:
    failed = 0
    seen: dict[str, int] = {}
    for call in calls:
        try:
            call()
            code, details = grpc.StatusCode.OK, ""
        except grpc.RpcError as exc:
            code, details = exc.code(), exc.details() or ""
        seen[code.name] = seen.get(code.name, 0) + 1
        if code not in ACCEPTED_REFUSALS or len(details) > 2_000:
            failed += 1
    note = ", ".join(f"{name} {count}" for name, count in sorted(seen.items()))
    return Row(FAMILY, case, len(calls), failed, 0, note)


# -- shard ownership -------------------------------------------------------------------------------
def _shards(stack: Stack) -> Row:
    from kernel.sharding import Shard, shard_of
    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb
    from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings
    from tests.support.loop_thread import LoopThread

    foreign = next(f"user{i}" for i in range(100) if shard_of(f"user{i}", 2) == 1)
    record = {
        "format": "mnemex.memory/1",
        "scope": {"user": foreign, "project": "shop"},
        "collection": "working",
        "content": "a row this shard would hide",
    }
    scope = common_pb.Scope(user=foreign, project="shop")
    loop = LoopThread()
    settings = MemorySettings(
        address="127.0.0.1:0",
        home=stack.home / "shard0",
        default_user="tester",
        embedding_addr=stack.addr("embedding"),
        maintenance_interval_s=0,
        shard=Shard(0, 2),
    )
    running = loop.run(create_server(settings))
    failed = stored = 0
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            calls: list[Callable[[], object]] = [
                lambda: stub.Import(iter([pb.ImportRequest(record_json=json.dumps(record))]), timeout=60),
                lambda: stub.Store(pb.StoreRequest(scope=scope, collection="working", content="x"), timeout=60),
                lambda: stub.Search(pb.SearchRequest(scope=scope, query="x"), timeout=60),
                lambda: list(stub.Export(pb.ExportRequest(scope=scope), timeout=60)),
            ]
            for call in calls:
                try:
                    call()
                    failed += 1
                except grpc.RpcError as exc:
                    failed += exc.code() != grpc.StatusCode.FAILED_PRECONDITION
    finally:
        loop.run(running.stop(0))
    try:  # the same home unsharded sees every user: what the shard stored for a user it does not own
        running = loop.run(create_server(replace(settings, shard=None)))
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            listed = pb_grpc.MemoryServiceStub(channel).ListScopes(pb.ListScopesRequest(), timeout=60)
            stored = sum(sum(s.counts.values()) for s in listed.scopes if s.scope.user == foreign)
        loop.run(running.stop(0))
    finally:
        loop.close()
    note = "Import, Store, Search, Export for a user of shard 1 on MNEMEX_SHARD=0/2"
    return Row(FAMILY, "shard check on every RPC, Import included", len(calls), failed, stored, note)
