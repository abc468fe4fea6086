"""Durability runs shared by ``test_durability.py`` (about 100 ops) and ``bench/bench_durability.py`` (1,000).

Memory: concurrent workers Store memories (unique content, explicit random
vectors, so no embedding is involved) and Score acknowledged ones with
``unknown`` (a use with its success credit, never a lifecycle move). The
service is SIGKILLed mid-stream and restarted; then

- every acknowledged Store is present exactly once (by id and by content);
- an unacknowledged one (in flight at the kill) is present at most once;
- per memory, ``acked <= uses <= acked + in-flight`` and the counters agree
  (``success_count == uses × unknown's credit``, score untouched, history all ``?``).

KG: workers IndexFact unique facts and RecordAction on a few action slots;
after the kill and restart every acknowledged fact is found for its entity,
and each slot's total counts every acknowledged action (plus at most the
in-flight ones).

Calls carry ``home``'s internal credential, as every call to a service started
by its entrypoint must, and use ``wait_for_ready``: a call issued while the
service is down waits for it, a call in flight at the kill fails (and is
counted as unacknowledged).
"""

from __future__ import annotations

import queue
import random
import struct
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as mem_grpc
from services.memory.domain.outcomes import SUCCESS_CREDIT, Outcome
from tests.support.grpc_token import home_channel

CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 300),
]
CALL_TIMEOUT = 90.0
DIM = 384


@dataclass
class Outcomes:
    acked: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    kill_at_ack: int = 0
    restart_seconds: float = 0.0
    wall_seconds: float = 0.0


def random_vector(rng: random.Random) -> bytes:
    values = [rng.gauss(0.0, 1.0) for _ in range(DIM)]
    norm = sum(v * v for v in values) ** 0.5
    return struct.pack(f"<{DIM}f", *(v / norm for v in values))


def _drive(
    ops: int,
    workers: int,
    kill_after: int,
    kill: Callable[[], object],
    restart: Callable[[], float],
    do_op: Callable[[int], bool],
    outcomes: Outcomes,
) -> None:
    """Run ``do_op(i)`` for i in range(ops) on ``workers`` threads; kill once ``kill_after`` ops are acked."""
    todo: queue.Queue[int] = queue.Queue()
    for index in range(ops):
        todo.put(index)
    lock = threading.Lock()
    killed = threading.Event()
    started = time.monotonic()

    def worker() -> None:
        while True:
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            try:
                ok = do_op(index)
            except grpc.RpcError as exc:
                with lock:
                    outcomes.failed += 1
                    outcomes.errors[exc.code().name] += 1
                continue
            with lock:
                if ok:
                    outcomes.acked += 1

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    while not killed.is_set():
        with lock:
            if outcomes.acked >= kill_after:
                outcomes.kill_at_ack = outcomes.acked
                killed.set()
        if not killed.is_set():
            if not any(t.is_alive() for t in threads):
                raise RuntimeError("all operations finished before the kill point")
            time.sleep(0.002)
    kill()
    outcomes.restart_seconds = restart()
    for thread in threads:
        thread.join(CALL_TIMEOUT * 2)
    outcomes.wall_seconds = time.monotonic() - started


# -- memory ------------------------------------------------------------------------
@dataclass
class MemoryReport:
    outcomes: Outcomes
    stores_acked: int
    scores_acked: int
    present: int
    problems: list[str]


def memory_durability(
    address: str,
    home: Path,
    kill: Callable[[], object],
    restart: Callable[[], float],
    *,
    ops: int = 100,
    workers: int = 4,
    kill_fraction: float = 0.5,
    seed: int = 7,
) -> MemoryReport:
    rng = random.Random(seed)
    scope = common_pb.Scope(user="tester", project=f"durability-{uuid.uuid4().hex[:8]}")
    channel = home_channel(address, home, CHANNEL_OPTIONS)
    stub = mem_grpc.MemoryServiceStub(channel)
    lock = threading.Lock()
    contents: dict[int, str] = {}
    acked_ids: dict[int, str] = {}  # op index -> id
    score_acked: Counter[str] = Counter()
    score_failed: Counter[str] = Counter()
    plan = ["store" if i < 8 or rng.random() < 0.55 else "score" for i in range(ops)]
    vectors = [random_vector(rng) for _ in range(ops)]
    picks = [rng.random() for _ in range(ops)]

    def do_op(index: int) -> bool:
        with lock:
            known = list(acked_ids.values())
        if plan[index] == "score" and known:
            target = known[int(picks[index] * len(known))]
            try:
                stub.Score(
                    mem_pb.ScoreRequest(scope=scope, memory_scores={target: common_pb.OUTCOME_UNKNOWN}),
                    timeout=CALL_TIMEOUT,
                    wait_for_ready=True,
                )
            except grpc.RpcError:
                with lock:
                    score_failed[target] += 1
                raise
            with lock:
                score_acked[target] += 1
            return True
        content = f"durability note {index} {uuid.uuid4().hex}: the worker retries uploads with jitter"
        with lock:
            contents[index] = content
        reply = stub.Store(
            mem_pb.StoreRequest(
                scope=scope, collection="working", content=content, vector=vectors[index], allow_duplicate=True
            ),
            timeout=CALL_TIMEOUT,
            wait_for_ready=True,
        )
        with lock:
            acked_ids[index] = reply.memory.id
        return True

    outcomes = Outcomes()
    try:
        _drive(ops, workers, int(ops * kill_fraction), kill, restart, do_op, outcomes)
        problems: list[str] = []
        stored = _list_all(stub, scope)
        by_content = Counter(m.content for m in stored)
        by_id = {m.id: m for m in stored}
        for index, memory_id in acked_ids.items():
            if memory_id not in by_id:
                problems.append(f"acknowledged store {memory_id} is missing")
            elif by_content[contents[index]] != 1:
                problems.append(f"acknowledged store {memory_id} is present {by_content[contents[index]]} times")
        acked_contents = {contents[i] for i in acked_ids}
        for content, count in by_content.items():
            if count > 1 and content not in acked_contents:
                problems.append(f"unacknowledged store present {count} times: {content[:40]}")
        for memory_id in acked_ids.values():
            memory = by_id.get(memory_id)
            if memory is None:
                continue
            low, high = score_acked[memory_id], score_acked[memory_id] + score_failed[memory_id]
            if not low <= memory.uses <= high:
                problems.append(f"{memory_id}: uses {memory.uses} outside [{low}, {high}] (acked, +in flight)")
            expected = memory.uses * SUCCESS_CREDIT[Outcome.UNKNOWN]
            if abs(memory.success_count - expected) > 1e-6:
                problems.append(f"{memory_id}: success_count {memory.success_count} != {expected} ({memory.uses} uses)")
            if abs(memory.score - 0.5) > 1e-6:
                problems.append(f"{memory_id}: score moved to {memory.score} on 'unknown' outcomes")
            history = memory.outcome_history.strip("[]")
            if set(history) - {"?"}:
                problems.append(f"{memory_id}: outcome history {memory.outcome_history!r} holds other marks")
        return MemoryReport(outcomes, len(acked_ids), sum(score_acked.values()), len(stored), problems)
    finally:
        channel.close()


def _list_all(stub: mem_grpc.MemoryServiceStub, scope: common_pb.Scope) -> list[mem_pb.Memory]:
    found: list[mem_pb.Memory] = []
    offset = 0
    while True:
        reply = stub.List(
            mem_pb.ListRequest(scope=scope, collection="working", limit=100, offset=offset, include_archived=True),
            timeout=CALL_TIMEOUT,
            wait_for_ready=True,
        )
        found.extend(reply.memories)
        offset += len(reply.memories)
        if not reply.memories or offset >= reply.total:
            return found


# -- knowledge graph -------------------------------------------------------------------
@dataclass
class KgReport:
    outcomes: Outcomes
    facts_acked: int
    actions_acked: int
    problems: list[str]


def kg_durability(
    address: str,
    home: Path,
    kill: Callable[[], object],
    restart: Callable[[], float],
    *,
    ops: int = 100,
    workers: int = 4,
    kill_fraction: float = 0.5,
    slots: int = 5,
    seed: int = 11,
) -> KgReport:
    rng = random.Random(seed)
    scope = common_pb.Scope(user="tester", project=f"durability-{uuid.uuid4().hex[:8]}")
    channel = home_channel(address, home, CHANNEL_OPTIONS)
    stub = kg_grpc.KnowledgeGraphServiceStub(channel)
    lock = threading.Lock()
    facts: dict[str, str] = {}  # fact id -> entity it mentions, acknowledged
    action_acked: Counter[str] = Counter()
    action_failed: Counter[str] = Counter()
    plan = ["fact" if rng.random() < 0.5 else "action" for _ in range(ops)]
    slot_of = [f"slot_{rng.randrange(slots)}" for _ in range(ops)]

    def do_op(index: int) -> bool:
        if plan[index] == "fact":
            fact_id = f"memory_bank_{uuid.uuid4().hex}"
            entity = f"Service{index}x"
            stub.IndexFact(
                kg_pb.IndexFactRequest(
                    scope=scope, fact_id=fact_id, text=f"{entity} is deployed by the {entity} pipeline on Fridays"
                ),
                timeout=CALL_TIMEOUT,
                wait_for_ready=True,
            )
            with lock:
                facts[fact_id] = entity
            return True
        slot = slot_of[index]
        try:
            stub.RecordAction(
                kg_pb.RecordActionRequest(
                    scope=scope,
                    context_type="coding",
                    action=slot,
                    collection="patterns",
                    outcome=common_pb.OUTCOME_WORKED,
                    doc_id=f"patterns_{index:032x}",
                ),
                timeout=CALL_TIMEOUT,
                wait_for_ready=True,
            )
        except grpc.RpcError:
            with lock:
                action_failed[slot] += 1
            raise
        with lock:
            action_acked[slot] += 1
        return True

    outcomes = Outcomes()
    try:
        _drive(ops, workers, int(ops * kill_fraction), kill, restart, do_op, outcomes)
        problems: list[str] = []
        for fact_id, entity in facts.items():
            found = stub.FactsForEntities(
                kg_pb.FactsForEntitiesRequest(scope=scope, entities=[entity], limit=50),
                timeout=CALL_TIMEOUT,
                wait_for_ready=True,
            )
            hits = [f.fact_id for f in found.facts if f.fact_id == fact_id]
            if len(hits) != 1:
                problems.append(f"acknowledged fact {fact_id} ({entity}) found {len(hits)} times")
        for index in range(slots):
            slot = f"slot_{index}"
            # One more action reads the slot's total back; subtract it again.
            reply = stub.RecordAction(
                kg_pb.RecordActionRequest(
                    scope=scope,
                    context_type="coding",
                    action=slot,
                    collection="patterns",
                    outcome=common_pb.OUTCOME_WORKED,
                    doc_id="patterns_" + "f" * 32,
                ),
                timeout=CALL_TIMEOUT,
                wait_for_ready=True,
            )
            total = reply.total - 1
            low, high = action_acked[slot], action_acked[slot] + action_failed[slot]
            if not low <= total <= high:
                problems.append(f"{slot}: total {total} outside [{low}, {high}] (acked, +in flight)")
        return KgReport(outcomes, len(facts), sum(action_acked.values()), problems)
    finally:
        channel.close()
