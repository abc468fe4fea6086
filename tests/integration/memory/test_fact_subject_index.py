"""Supersession by subject on the real write path: no cross-subject marks, and an index instead of a scan.

Issue 35, item 7: facts about different services ("Service s1 uses port 8001", "Service s2 uses
port 8002") marked each other "possibly superseded", one Chroma update each, and every add read
every active fact, so an add grew from 86 ms to seconds. Here: the memory service over gRPC with
the real embedding model; the write use case over a real Chroma with a counting store subclass;
and a restart over a PersistentClient, whose index is rebuilt from the store.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import chromadb
from chromadb.config import Settings as ChromaSettings

from kernel.blocking_io import BlockingIO
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from services.memory.composition import MemoryUseCases
from services.memory.domain import timefmt
from services.memory.domain.arrays import Vector
from services.memory.domain.naming import MEMORY_BANK, Scope
from services.memory.domain.ranking import DEFAULT_WEIGHTS, RankingWeights
from services.memory.domain.record import MemoryRecord
from services.memory.retrieval.embedding_calls import Vectors
from services.memory.settings import MemorySettings
from services.memory.storage.chroma_store import ChromaStore, MetadataFilter
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore
from services.memory.usecases.content_writes import ContentWrites
from services.memory.usecases.memory_writes import MemoryWrites, WriteLimits
from tests.support.memory_core import HashEmbedder

MARKS = ("possibly_superseded_by", "superseded_by", "stale_value_superseded_by")
TWO_SERVICES = [
    "Service s1 uses port 8001",
    "Service s2 uses port 8002",
    "The s1 dashboard is owned by team t1",
    "The s2 dashboard is owned by team t2",
    "Service s1 runs on Python 3.11",
    "Service s2 runs on Python 3.12",
    "The s1 cache host is cache1.acme.internal",
    "The s2 cache host is cache2.acme.internal",
]


def fact(stub: MemoryServiceStub, scope: common_pb.Scope, text: str) -> pb.StoreResponse:
    request = pb.StoreRequest(scope=scope, collection=MEMORY_BANK, content=text)
    reply: pb.StoreResponse = stub.Store(request, timeout=30)
    return reply


def marks_on(stub: MemoryServiceStub, scope: common_pb.Scope, memory_id: str) -> dict[str, str]:
    stored = stub.Get(pb.GetRequest(scope=scope, id=memory_id), timeout=10).memory
    metadata = json.loads(stored.metadata_json or "{}")
    return {key: metadata[key] for key in MARKS if metadata.get(key)} | ({"archived": "yes"} if stored.archived else {})


def test_facts_about_two_services_never_mark_each_other(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    replies = [fact(stub, scope, text) for text in TWO_SERVICES]
    assert [list(r.superseded_ids) for r in replies] == [[]] * len(TWO_SERVICES)
    ids = [r.memory.id for r in replies]
    assert len(set(ids)) == len(TWO_SERVICES)  # none refreshed another in place
    assert {i: marks_on(stub, scope, i) for i in ids} == {i: {} for i in ids}
    moved = fact(stub, scope, "Service s1 now listens on port 9001")  # a genuine change of s1's port
    assert list(moved.superseded_ids) == [ids[0]]
    assert marks_on(stub, scope, ids[1]) == {}  # s2's port is not s1's


def test_a_near_duplicate_wording_about_another_service_is_a_new_fact(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    first = fact(stub, scope, "The s7 worker keeps its data in /var/lib/s7")
    second = fact(stub, scope, "The s77 worker keeps its data in /var/lib/s77")  # cosine 0.98 to the first
    assert not second.deduplicated and second.memory.id != first.memory.id
    kept = stub.Get(pb.GetRequest(scope=scope, id=first.memory.id), timeout=10).memory
    assert kept.content == "The s7 worker keeps its data in /var/lib/s7" and not kept.archived


class CountingStore(MemoryStore):
    """The real store, counting the reads of whole collections and the updates, per collection."""

    def __init__(self, chroma: ChromaStore, io: BlockingIO, *, dim: int, weights: RankingWeights) -> None:
        super().__init__(chroma, io, dim=dim, weights=weights)
        self.calls: Counter[tuple[str, str]] = Counter()

    async def active_rows(self, scope: Scope, collection: str) -> tuple[list[MemoryRecord], Vector]:
        self.calls["active_rows", collection] += 1
        return await super().active_rows(scope, collection)

    async def scan(
        self, scope: Scope, collection: str, *, content: bool = True, where: MetadataFilter | None = None
    ) -> list[MemoryRecord]:
        self.calls["scan", collection] += 1
        return await super().scan(scope, collection, content=content, where=where)

    async def update(
        self, scope: Scope, before: MemoryRecord, after: MemoryRecord, embedding: Vector | None = None
    ) -> MemoryRecord:
        self.calls["update", before.collection] += 1
        return await super().update(scope, before, after, embedding)


def test_an_add_reads_the_index_not_every_fact_and_writes_nothing_to_other_subjects(tmp_path: Path) -> None:
    async def main() -> None:
        client = chromadb.PersistentClient(
            str(tmp_path / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
        )
        io = BlockingIO(2)
        store = CountingStore(ChromaStore(client), io, dim=384, weights=DEFAULT_WEIGHTS)
        vectors = Vectors(HashEmbedder(), dim=384, max_chars=2000, timeout_s=10)
        writes = MemoryWrites(
            ContentWrites(store, vectors, KeyedLocks(), timefmt.now),
            limits=WriteLimits(max_content_chars=4000, dedup_threshold=0.95, memory_bank_cap=1000),
            weights=DEFAULT_WEIGHTS,
        )
        scope = Scope("u", "p")
        ids = {}
        for n in range(40):
            for text in (f"Service s{n} uses port {8000 + n}", f"The s{n} dashboard is owned by team t{n % 4}"):
                result = await writes.store(scope, collection=MEMORY_BANK, content=text)
                assert result.superseded == ()
                ids[text] = result.memory.id
        assert store.calls["active_rows", MEMORY_BANK] == 0  # no read of every fact (it was one per add)
        assert store.calls["scan", MEMORY_BANK] == 0  # the cap counts from the index too
        assert store.calls["update", MEMORY_BANK] == 0  # nothing written to another service's fact
        changed = await writes.store(scope, collection=MEMORY_BANK, content="Service s3 now listens on port 9003")
        assert changed.superseded == (ids["Service s3 uses port 8003"],)
        assert store.calls["update", MEMORY_BANK] == 2  # the old fact archived, the new one linked to it
        assert store.calls["active_rows", MEMORY_BANK] == 0
        io.close()

    asyncio.run(main())


def test_the_index_follows_archives_and_rewordings_and_is_rebuilt_on_restart(tmp_path: Path) -> None:
    def core() -> MemoryUseCases:
        client = chromadb.PersistentClient(
            str(tmp_path / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
        )
        settings = MemorySettings(home=tmp_path, maintenance_interval_s=0)
        return MemoryUseCases(settings, ChromaStore(client), HashEmbedder())

    async def add(memory: MemoryUseCases, text: str) -> tuple[str, tuple[str, ...]]:
        result = await memory.writes.store(memory.scope("u", "p"), collection=MEMORY_BANK, content=text)
        return result.memory.id, result.superseded

    async def main() -> None:
        first = core()
        scope = first.scope("u", "p")
        s1, _ = await add(first, "Service s1 uses port 8001")
        s2, _ = await add(first, "Service s2 uses port 8002")
        s3, _ = await add(first, "Service s3 uses port 8003")
        await first.writes.archive(scope, s2, "retired")
        await first.writes.update(
            scope,
            s3,
            content="Service s4 uses port 8004",  # reworded: now about s4
            tags=[],
            replace_tags=False,
            importance=None,
            confidence=None,
        )
        assert (await add(first, "Service s2 now listens on port 9002"))[1] == ()  # archived: left alone
        await first.close()
        second = core()  # a restart: the index is rebuilt from the store
        assert (await add(second, "Service s1 now listens on port 9001"))[1] == (s1,)
        assert (await add(second, "Service s3 now listens on port 9003"))[1] == ()  # no s3 fact any more
        assert (await add(second, "Service s4 now listens on port 9004"))[1] == (s3,)
        await second.close()

    asyncio.run(main())


def test_a_lifecycle_sweep_after_facts_about_many_services_keeps_every_one(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    """Facts the user told are kept: supersession by subject archives only the one s1 port the user
    changed, and a maintenance sweep afterwards moves, expires or archives none of the others."""
    ids = [fact(stub, scope, text).memory.id for text in TWO_SERVICES]
    changed = fact(stub, scope, "Service s1 now listens on port 9001")
    stub.RunMaintenance(pb.RunMaintenanceRequest(scope=scope), timeout=60)
    kept = [
        i
        for i in [*ids[1:], changed.memory.id]
        if not stub.Get(pb.GetRequest(scope=scope, id=i), timeout=10).memory.archived
    ]
    assert kept == [*ids[1:], changed.memory.id]
