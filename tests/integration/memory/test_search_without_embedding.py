"""With the embedding service down, a text search answers from keyword matches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import numpy as np
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import start_memory_service

NOTES = [
    "The billing export runs from cron at 02:00 and writes parquet files",
    "Use pytest fixtures with yield for teardown in the gateway tests",
    "Chroma collections are named per user and project",
]


@pytest.fixture()
def dead_embedding_stub(
    loop_thread: LoopThread, encoder: Encoder, tmp_path: Path
) -> Iterator[tuple[pb_grpc.MemoryServiceStub, common_pb.Scope]]:
    # Port 9 (discard) is closed on loopback: every embed call is refused at once.
    server = loop_thread.run(start_memory_service(tmp_path, "127.0.0.1:9"))
    port = server.port
    with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
        stub = pb_grpc.MemoryServiceStub(chan)
        scope = common_pb.Scope(user="tester", project="lexical-fallback")
        for note, vector in zip(NOTES, encoder.encode(NOTES), strict=True):
            stub.Store(
                pb.StoreRequest(
                    scope=scope, collection="history", content=note, vector=np.asarray(vector, dtype="<f4").tobytes()
                ),
                timeout=30,
            )
        yield stub, scope
    loop_thread.run(server.stop(0))


def test_keyword_matches_come_back_when_the_query_cannot_be_embedded(
    dead_embedding_stub: tuple[pb_grpc.MemoryServiceStub, common_pb.Scope],
) -> None:
    stub, scope = dead_embedding_stub
    reply = stub.Search(pb.SearchRequest(scope=scope, query="when does the billing export run?", limit=5), timeout=10)
    assert reply.memories, "no keyword fallback"
    assert reply.memories[0].content == NOTES[0]
    assert all("billing" in m.content or "export" in m.content for m in reply.memories)
    nothing = stub.Search(pb.SearchRequest(scope=scope, query="kubernetes ingress", limit=5), timeout=10)
    assert list(nothing.memories) == []


def test_storing_without_a_vector_still_reports_the_embedding_outage(
    dead_embedding_stub: tuple[pb_grpc.MemoryServiceStub, common_pb.Scope],
) -> None:
    stub, scope = dead_embedding_stub
    with pytest.raises(grpc.RpcError) as err:
        stub.Store(pb.StoreRequest(scope=scope, collection="history", content="needs a vector"), timeout=10)
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
