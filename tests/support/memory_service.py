"""A real memory service (real Chroma, real embeddings) started in-process, and a store helper.

``tests/integration/memory/conftest.py`` shares one per session; a test that needs its own
(other settings, a home it damages) calls ``start_memory_service`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack

from kernel.grpc_hosting import RunningService
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.memory.composition import MemoryUseCases

if TYPE_CHECKING:
    from kernel.sharding import Shard
    from services.memory.domain.lifecycle import LifecycleConfig


class SettingsOverrides(TypedDict, total=False):
    """The MemorySettings fields a test sets beside the defaults below."""

    memory_bank_cap: int
    lifecycle: LifecycleConfig
    shard: Shard


class StoreFields(TypedDict, total=False):
    """StoreRequest fields beside scope, collection and content."""

    vector: bytes
    tags: list[str]
    importance: float
    confidence: float
    metadata_json: str
    allow_duplicate: bool
    session_id: str
    user_wide: bool


@dataclass
class MemoryService:
    address: str
    memory: MemoryUseCases
    home: Path


async def start_memory_service(
    home: Path,
    embedding_addr: str,
    **overrides: Unpack[SettingsOverrides],
) -> RunningService[MemoryUseCases]:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from kernel.embedding_client import EmbeddingClient
    from kernel.grpc_channel import channel
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import ChromaStore

    settings = MemorySettings(
        address="127.0.0.1:0",
        home=home,
        default_user="tester",
        embedding_addr=embedding_addr,
        maintenance_interval_s=0,
        **overrides,
    )
    client = chromadb.PersistentClient(path=str(home / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))
    return await create_server(settings, chroma=ChromaStore(client), embedder=EmbeddingClient(channel(embedding_addr)))


def store(
    stub: pb_grpc.MemoryServiceStub,
    scope: common_pb.Scope,
    content: str,
    collection: str = "working",
    **kw: Unpack[StoreFields],
) -> pb.Memory:
    reply = stub.Store(pb.StoreRequest(scope=scope, collection=collection, content=content, **kw), timeout=30)
    return reply.memory
