"""The gateway's async clients for the three backend services.

``Backends.connect(settings)`` opens one aio channel per service, and one per
shard where memory or kg is sharded (lazily connecting, so it never blocks);
``close()`` releases them. A sharded service's stub is a
``gateway.shard_router.ShardRouter``, which sends each call to the shard that
owns its user. Importing this module pulls in grpc and numpy but never torch
or chromadb.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gateway.shard_router import routed
from kernel.config import Settings
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_auth import client_metadata
from kernel.grpc_channel import channel
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as memory_grpc

DEFAULT_TIMEOUT = 5.0
HEALTH_TIMEOUT = 0.5
SERVICES = ("embedding", "memory", "kg")


@dataclass
class Backends:
    embedding: EmbeddingClient
    memory: memory_grpc.MemoryServiceStub
    kg: kg_grpc.KnowledgeGraphServiceStub
    metadata: tuple[tuple[str, str], ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    channels: dict[str, grpc.aio.Channel] = field(default_factory=dict)

    @classmethod
    def connect(cls, settings: Settings, timeout: float = DEFAULT_TIMEOUT) -> Backends:
        channels = {"embedding": channel(settings.embedding_addr)}
        shards: dict[str, list[grpc.aio.Channel]] = {}
        for name in ("memory", "kg"):
            shards[name] = [channel(address) for address in settings.shards_of(name)]
            for index, chan in enumerate(shards[name]):
                channels[name if index == 0 else f"{name}[{index}]"] = chan  # health reports every shard
        return cls(
            embedding=EmbeddingClient(channels["embedding"], token=settings.token, timeout=timeout),
            memory=routed("memory", [memory_grpc.MemoryServiceStub(c) for c in shards["memory"]]),
            kg=routed("kg", [kg_grpc.KnowledgeGraphServiceStub(c) for c in shards["kg"]]),
            metadata=client_metadata(settings.token),
            timeout=timeout,
            channels=channels,
        )

    async def health(self, timeout: float = HEALTH_TIMEOUT) -> dict[str, dict[str, str]]:
        """grpc.health.v1 Check on every service, concurrently, with a short deadline."""

        async def check(name: str, chan: grpc.aio.Channel) -> tuple[str, dict[str, str]]:
            stub = health_pb2_grpc.HealthStub(chan)
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
            except grpc.aio.AioRpcError as exc:
                return name, {"status": "DOWN", "detail": exc.code().name}
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            return name, {"status": status}

        results = await asyncio.gather(*(check(n, c) for n, c in self.channels.items()))
        return dict(results)

    async def close(self) -> None:
        for chan in self.channels.values():
            await chan.close()
        self.channels.clear()
