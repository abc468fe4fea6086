from __future__ import annotations

import concurrent.futures
import random
from collections import Counter

import grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.memory_service import MemoryService, store

WRITERS = 8
CALLS_PER_WRITER = 5
IDS_PER_CALL = 25  # every call scores every memory: 8 writers * 5 calls * 25 outcomes = 1,000 outcomes
TOPICS = [
    "composition over inheritance",
    "linters before pushing",
    "cache TTL of five minutes",
    "structured logging",
    "feature flags for rollouts",
    "blue green deploys",
    "database migrations with alembic",
    "retry with jitter",
    "pinning numpy in CI",
    "pre-commit hooks",
    "type hints everywhere",
    "small pull requests",
    "trunk based development",
    "canary releases",
    "idempotent consumers",
    "circuit breakers",
    "readme driven development",
    "semantic versioning",
    "code owners files",
    "dependency pinning",
]


def test_eight_writers_apply_a_thousand_outcomes_and_uses_add_up(
    memory_service: MemoryService, stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    ids = [store(stub, scope, f"Team practice: {topic}", vector=b"", allow_duplicate=True).id for topic in TOPICS]
    ids += [store(stub, scope, f"User preference number {i}: {t}", "memory_bank").id for i, t in enumerate(TOPICS[:5])]
    assert len(ids) == IDS_PER_CALL
    # Outcomes that never lower a score: memories get promoted (their ids change) mid-run, none is deleted.
    choices = [common_pb.OUTCOME_WORKED, common_pb.OUTCOME_PARTIAL, common_pb.OUTCOME_UNKNOWN]

    def writer(seed: int) -> Counter[str]:
        rng = random.Random(seed)
        applied: Counter[str] = Counter()
        with grpc.insecure_channel(memory_service.address) as chan:
            client = pb_grpc.MemoryServiceStub(chan)
            for _ in range(CALLS_PER_WRITER):
                picked = rng.sample(ids, IDS_PER_CALL)  # all of them, in a random order
                reply = client.Score(
                    pb.ScoreRequest(scope=scope, memory_scores={i: rng.choice(choices) for i in picked}), timeout=60
                )
                assert not reply.not_found and len(reply.scored) == IDS_PER_CALL
                applied.update(picked)
        return applied

    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        applied = sum(pool.map(writer, range(WRITERS)), Counter())
    assert applied.total() == 1000
    final = {i: stub.Get(pb.GetRequest(scope=scope, id=i), timeout=10).memory for i in ids}
    assert {i: m.uses for i, m in final.items()} == {i: applied[i] for i in ids}
    assert sum(m.uses for m in final.values()) == 1000
    # every memory exists exactly once, wherever the lifecycle moved it
    listed = [
        m.id
        for c in ("working", "history", "patterns", "memory_bank")
        for m in stub.List(pb.ListRequest(scope=scope, collection=c, limit=100), timeout=10).memories
    ]
    assert sorted(listed) == sorted(m.id for m in final.values())
    assert any(m.collection != "working" for m in final.values() if not m.id.startswith("memory_bank"))
