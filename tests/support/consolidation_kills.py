"""Consolidations while the memory service is SIGKILLed, then checked the way a user would see them.

Shared by ``tests/reliability/test_consolidation_kills.py`` and the reliability suite
(``bench/reliability/data_safety.py``). Each round stores pairs of unrelated memories in a
fresh project, consolidates the pairs from 3 client threads, kills memory (``kill``) once a
first merge was answered plus a random moment, and restarts it (``restart``). Then, from the
stored state alone (merged memories are found by their ``consolidated_from`` links, so the
checks judge any implementation, with or without a merge key):

- **half-applied**: a merged memory active while one of its sources is still active;
- **lost**: a source of a consolidation sent that is no longer stored at all;
- every call the kill cut is retried, as a client told "failed" would: **refused** counts
  retries that fail, **duplicates** the extra merged memories of one set of sources.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.grpc_token import home_channel

WORDS = (
    "alembic nginx kafka redis pytest docker helm terraform grafana celery sentry postgres vault cron "
    "webpack eslint mypy poetry gunicorn uvicorn nomad consul envoy jaeger minio airflow spark flink "
    "invoice ledger payroll checkout coupon refund tenant billing quota webhook token session cache "
    "migration rollback canary shard replica index vacuum backup restore snapshot retention audit"
).split()
MERGED_TEXT = "merged: these two notes say the same"


@dataclass
class MergeKillReport:
    tried: int = 0  # consolidations sent
    cut: int = 0  # of those, answered with an error (the kill), then retried
    half_applied: int = 0
    duplicates: int = 0
    lost: int = 0
    refusals: list[str] = field(default_factory=list)


def consolidations_across_kills(
    memory_addr: str,
    home: Path,
    kill: Callable[[], object],
    restart: Callable[[], object],
    *,
    rounds: int,
    pairs_per_round: int,
    seed: int = 27,
    user: str = "tester",
    kill_within_s: tuple[float, float] = (0.0, 0.4),
) -> MergeKillReport:
    """``rounds`` kills; each lands ``kill_within_s`` (a random span) after the round's first answered merge.

    Calls carry ``home``'s internal credential, as the memory service started by its entrypoint requires."""
    rng = random.Random(seed)
    report = MergeKillReport()
    for round_ in range(rounds):
        scope = common_pb.Scope(user=user, project=f"merges-{seed}-{round_}")
        with home_channel(memory_addr, home) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            texts = [_unrelated_text(rng) for _ in range(2 * pairs_per_round)]  # no near-duplicate refresh
            ids = [
                stub.Store(pb.StoreRequest(scope=scope, collection="history", content=t), timeout=60).memory.id
                for t in texts
            ]
            pairs = [ids[i : i + 2] for i in range(0, len(ids), 2)]
            outcomes = _consolidate_until_killed(stub, scope, pairs, kill, rng.uniform(*kill_within_s))
        restart()
        with home_channel(memory_addr, home) as channel:
            _check(pb_grpc.MemoryServiceStub(channel), scope, outcomes, report)
    return report


def _check(
    stub: pb_grpc.MemoryServiceStub,
    scope: common_pb.Scope,
    outcomes: list[tuple[list[str], bool]],
    report: MergeKillReport,
) -> None:
    stored = {m.id: m for m in all_memories(stub, scope, "history")}
    report.tried += len(outcomes)
    report.lost += sum(source not in stored for pair, _ in outcomes for source in pair)
    for memory in stored.values():
        sources = merged_from(memory)
        if sources and not memory.archived and any(not stored[s].archived for s in sources if s in stored):
            report.half_applied += 1
    for pair, answered in outcomes:
        if answered:
            continue
        report.cut += 1
        try:
            stub.Consolidate(pb.ConsolidateRequest(scope=scope, source_ids=pair, content=MERGED_TEXT), timeout=60)
        except grpc.RpcError as exc:
            report.refusals.append(f"{exc.code().name}: {exc.details()}"[:160])
    merges: dict[frozenset[str], int] = {}
    for memory in all_memories(stub, scope, "history"):
        if merged_from(memory):
            key = frozenset(merged_from(memory))
            merges[key] = merges.get(key, 0) + 1
    report.duplicates += sum(count - 1 for count in merges.values())


def _unrelated_text(rng: random.Random) -> str:
    return "note: " + " ".join(rng.sample(WORDS, 9))


def merged_from(memory: pb.Memory) -> list[str]:
    linked = json.loads(memory.metadata_json or "{}").get("consolidated_from") or ""
    return [part for part in str(linked).split(",") if part]


def _consolidate_until_killed(
    stub: pb_grpc.MemoryServiceStub,
    scope: common_pb.Scope,
    pairs: list[list[str]],
    kill: Callable[[], object],
    delay_s: float,
) -> list[tuple[list[str], bool]]:
    """Consolidate ``pairs`` from 3 threads; kill memory ``delay_s`` after the first answer.
    Returns (pair, answered OK) per call sent."""
    queue = list(pairs)
    lock = threading.Lock()
    answered_one = threading.Event()
    killed = threading.Event()
    outcomes: list[tuple[list[str], bool]] = []

    def worker() -> None:
        while not killed.is_set():
            with lock:
                if not queue:
                    return
                pair = queue.pop()
            request = pb.ConsolidateRequest(scope=scope, source_ids=pair, content=MERGED_TEXT)
            try:
                stub.Consolidate(request, timeout=30)
                answered = True
                answered_one.set()
            except grpc.RpcError:
                answered = False
            with lock:
                outcomes.append((pair, answered))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    answered_one.wait(30)
    time.sleep(delay_s)
    killed.set()
    kill()
    for thread in threads:
        thread.join(60)
    return outcomes


def all_memories(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope, collection: str) -> list[pb.Memory]:
    """Every memory of ``collection`` in ``scope``, archived ones included (List pages of 100)."""
    found: list[pb.Memory] = []
    while True:
        request = pb.ListRequest(
            scope=scope, collection=collection, limit=100, offset=len(found), include_archived=True
        )
        page = stub.List(request, timeout=60).memories
        found.extend(page)
        if len(page) < 100:
            return found
