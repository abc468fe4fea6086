"""A real memory service (real Chroma, real embeddings) shared by this package's tests.

Each test gets its own project scope, so tests do not see each other's data.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService, start_memory_service


@pytest.fixture(scope="session")
def memory_service(
    loop_thread: LoopThread, embedding_addr: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MemoryService]:
    home = tmp_path_factory.mktemp("memory-service")
    running = loop_thread.run(start_memory_service(home, embedding_addr))
    yield MemoryService(f"127.0.0.1:{running.port}", running.core, home)
    loop_thread.run(running.stop(0))


@pytest.fixture()
def stub(memory_service: MemoryService) -> Iterator[pb_grpc.MemoryServiceStub]:
    with grpc.insecure_channel(memory_service.address) as chan:
        yield pb_grpc.MemoryServiceStub(chan)


@pytest.fixture()
def scope() -> common_pb.Scope:
    return common_pb.Scope(user=f"u{uuid.uuid4().hex[:10]}", project=f"p{uuid.uuid4().hex[:10]}")
