"""Search through the ANN index (threshold forced low) answers exactly as the exact scan does.

Two real memory services share one real Chroma store: one queries its mirrors through the
faiss index from 200 rows on, the other always scans. Memories are real developer notes
with real MiniLM embeddings (embedded by the memory service through the embedding service
on import). Archives, content updates (new vectors) and a rebuild of the mirrors (what a
restart does) must leave both services returning the same memories in the same order.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import numpy as np
import pytest

from kernel.grpc_hosting import RunningService
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder
from services.memory.composition import MemoryUseCases
from services.memory.domain.naming import Scope
from tests.support.loop_thread import LoopThread

SUBJECTS = [
    "the auth service", "the billing worker", "the React dashboard", "the Postgres schema", "the CI pipeline",
    "the Kafka consumer", "the Redis cache", "the gRPC gateway", "the Terraform module", "the mobile app",
    "the search index", "the payment webhook", "the feature flags", "the logging stack", "the Docker image",
    "the CLI parser", "the cron scheduler", "the S3 uploader", "the email sender", "the rate limiter",
]  # fmt: skip
ACTIONS = [
    "fixed a race in", "added retries to", "profiled", "refactored", "documented", "migrated", "found a leak in",
    "wrote tests for", "tuned timeouts of", "pinned dependencies of", "split the config of", "secured",
    "moved to async", "added metrics to", "removed dead code from", "sped up the build of", "cut the memory of",
    "rewrote the docs of", "added tracing to", "reviewed",
]  # fmt: skip
QUERIES = [
    "why was the billing worker slow?", "tests for the parser", "memory leak in a service", "docker layers",
    "how do we retry failed payments", "kafka consumer lag", "redis eviction", "terraform state", "auth tokens",
    "tracing the gateway", "dashboard rendering", "email delivery failures", "rate limits per user",
]  # fmt: skip
MIN_ROWS = 200


@dataclass
class Side:
    stub: pb_grpc.MemoryServiceStub
    core: MemoryUseCases

    def rebuild_mirrors(self) -> None:
        """What a restart does: mirrors (and their ANN index) built again from Chroma on the next read."""
        self.core.store.mirrors = self.core.store.fresh_mirrors()


@pytest.fixture(scope="module")
def sides(
    loop_thread: LoopThread, embedding_addr: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Side]]:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from kernel.embedding_client import EmbeddingClient
    from kernel.grpc_channel import channel
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import ChromaStore

    home = tmp_path_factory.mktemp("ann-search")
    client = chromadb.PersistentClient(path=str(home / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))
    store = ChromaStore(client)

    async def start(name: str, min_rows: int) -> RunningService[MemoryUseCases]:
        settings = MemorySettings(
            address="127.0.0.1:0",
            home=home / name,
            default_user="tester",
            embedding_addr=embedding_addr,
            maintenance_interval_s=0,
            ann_min_rows=min_rows,
        )
        embedder = EmbeddingClient(channel(embedding_addr))  # an aio channel: made on the service's loop
        return await create_server(settings, chroma=store, embedder=embedder)

    running = {name: loop_thread.run(start(name, min_rows)) for name, min_rows in (("ann", MIN_ROWS), ("exact", 0))}
    channels = {name: grpc.insecure_channel(f"127.0.0.1:{r.port}") for name, r in running.items()}
    yield {name: Side(pb_grpc.MemoryServiceStub(channels[name]), r.core) for name, r in running.items()}
    for chan in channels.values():
        chan.close()
    for r in running.values():
        loop_thread.run(r.stop(0))


def populate(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> int:
    notes = [f"We {action} {subject}." for subject in SUBJECTS for action in ACTIONS]
    lines = [
        json.dumps(
            {
                "scope": {"user": scope.user, "project": scope.project},
                "collection": "history",
                "id": f"history_n{i}",
                "content": text,
                "metadata": {"created_at": "2026-01-01T00:00:00+00:00", "score": 0.5},
            }
        )
        for i, text in enumerate(notes)
    ]
    reply = stub.Import(iter(pb.ImportRequest(record_json=line) for line in lines), timeout=120)
    assert reply.imported == len(notes)
    return len(notes)


def search(side: Side, scope: common_pb.Scope, query: str, vector: bytes) -> list[str]:
    request = pb.SearchRequest(scope=scope, query=query, query_vector=vector, limit=10)
    return [m.id for m in side.stub.Search(request, timeout=30).memories]


def indexed_rows(side: Side, scope: common_pb.Scope) -> int:
    with side.core.store.mirrors.read(Scope(scope.user, scope.project), "history") as mirror:
        index = mirror.ann_index
        assert index is not None, "the search did not go through the ANN index"
        return len(index)


def test_ann_search_matches_exact_through_writes_and_a_rebuild(sides: dict[str, Side], encoder: Encoder) -> None:
    ann, exact = sides["ann"], sides["exact"]
    scope = common_pb.Scope(user=f"u{uuid.uuid4().hex[:8]}", project=f"p{uuid.uuid4().hex[:8]}")
    rows = populate(ann.stub, scope)
    vectors = [np.ascontiguousarray(v, dtype="<f4").tobytes() for v in encoder.encode(QUERIES)]

    def same_answers() -> list[list[str]]:
        exact.rebuild_mirrors()  # the exact side did not see the ann side's writes
        results = []
        for query, vector in zip(QUERIES, vectors, strict=True):
            got = search(ann, scope, query, vector)
            assert got == search(exact, scope, query, vector), query
            assert len(got) == 10
            results.append(got)
        return results

    first = same_answers()
    assert indexed_rows(ann, scope) == rows
    # Archive the top hit of every query, give one memory new content (a new vector), restore one.
    archived = sorted({ids[0] for ids in first})
    for memory_id in archived:
        ann.stub.Archive(pb.ArchiveRequest(scope=scope, id=memory_id, reason="test"), timeout=30)
    restored = archived.pop()
    ann.stub.Restore(pb.RestoreRequest(scope=scope, id=restored), timeout=30)
    changed = next(memory_id for memory_id in first[1] if memory_id not in archived and memory_id != restored)
    new_text = "Grafana dashboards for the Kafka consumer lag alerts"
    ann.stub.Update(pb.UpdateRequest(scope=scope, id=changed, content=new_text), timeout=30)
    new_vector = np.ascontiguousarray(encoder.encode([new_text])[0], dtype="<f4").tobytes()

    second = same_answers()
    assert indexed_rows(ann, scope) == rows - len(archived)
    assert not set(archived) & {memory_id for ids in second for memory_id in ids}
    assert search(ann, scope, new_text, new_vector)[0] == changed

    ann.rebuild_mirrors()  # a restart: the index is rebuilt from Chroma's rows on the first search
    assert same_answers() == second
    assert indexed_rows(ann, scope) == rows - len(archived)
