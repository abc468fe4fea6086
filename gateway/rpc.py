"""The gateway's typed client of the backend services: channels, shard selection, deadlines, errors.

``Rpc(settings)`` opens its aio channels on first use (on the event loop that
serves, so it never blocks); ``Rpc.connect(settings)`` opens them at once.
``close()`` releases them; the next use opens them again.

- Shard selection: ``rpc.memory(user)`` / ``rpc.kg(user)`` is the stub of the
  shard that owns ``user`` (``kernel.sharding.shard_of``; the stub itself when
  there is one shard). ``memory_shards()`` / ``kg_shards()`` are all of them,
  for the fan-out ``ListScopes``. Calls that carry no user (``Info``,
  ``GetRules``, ``ExtractConcepts``) go to ``memory_any()`` / ``kg_any()``,
  shard 0: every shard answers them the same. ``Import`` (the memory service's
  streams records of possibly several users) cannot go to one shard of a sharded
  service: ``memory_import()`` / ``kg_import()`` refuse it with a message that says so.
- Calls: ``await rpc.unary("memory", rpc.memory(user).Search, request)`` sends
  the auth metadata with the default deadline (or ``timeout=``) and turns any
  gRPC error into a ``gateway_errors`` exception (``translate``).
  ``await rpc.call(method, request, timeout=...)`` is the same call left
  untranslated, for best-effort callers that catch ``grpc.aio.AioRpcError``.
- ``health()`` checks every channel, one per shard.

Importing this module pulls in grpc and numpy but never torch or chromadb.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gateway.gateway_errors import BackendUnavailable, GatewayError, InvalidInput, NotFound, StorageProblem
from kernel.config import Settings
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_auth import client_metadata
from kernel.grpc_channel import channel
from kernel.sharding import shard_of
from kernel.store_health import DISK_FULL, DISK_READ_ONLY
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as memory_grpc

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Msg = TypeVar("Msg", bound=Message)

DEFAULT_TIMEOUT = 5.0
HEALTH_TIMEOUT = 0.5
SERVICES = ("embedding", "memory", "kg")
_UNAVAILABLE_HINT = "start the stack with `mnemex up` (or check `mnemex status`)"

log = logging.getLogger("mnemex.gateway.rpc")


class ShardingUnsupported(InvalidInput):
    """The call cannot be routed to one shard (the edges answer it as invalid input, with this message)."""


def translate(service: str, exc: grpc.aio.AioRpcError) -> GatewayError:
    code = exc.code()
    detail = exc.details() or code.name
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.FAILED_PRECONDITION):
        return InvalidInput(detail)
    if code == grpc.StatusCode.NOT_FOUND:
        return NotFound(detail)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and detail.startswith((DISK_FULL, DISK_READ_ONLY)):
        return StorageProblem(service, detail)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return BackendUnavailable(service, f"{detail} (set the same MNEMEX_TOKEN for the gateway and services)")
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return BackendUnavailable(service, f"{code.name.lower()}: {_UNAVAILABLE_HINT}")
    if code in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
        # Never hand a traceback fragment to a user or a model; the service log has it.
        log.warning("%s returned %s: %s", service, code.name, detail)
        return BackendUnavailable(
            service, f"{code.name.lower()}: internal error in the {service} service (see its log)"
        )
    return BackendUnavailable(service, f"{code.name}: {detail}")


def _refuse_import(service: str) -> ShardingUnsupported:
    return ShardingUnsupported(
        f"Import streams records of possibly several users and cannot go to one {service} shard; "
        f"run it against each shard's own stack, or with a single {service} service"
    )


@dataclass
class Channels:
    """The open channels: one per service, one per shard of a sharded memory or kg, and their stubs."""

    embedding: EmbeddingClient
    memory: list[memory_grpc.MemoryServiceStub]
    kg: list[kg_grpc.KnowledgeGraphServiceStub]
    by_name: dict[str, grpc.aio.Channel] = field(default_factory=dict)

    @classmethod
    def open(cls, settings: Settings, timeout: float) -> Channels:
        by_name = {"embedding": channel(settings.embedding_addr)}
        shards: dict[str, list[grpc.aio.Channel]] = {}
        for name in ("memory", "kg"):
            shards[name] = [channel(address) for address in settings.shards_of(name)]
            for index, chan in enumerate(shards[name]):
                by_name[name if index == 0 else f"{name}[{index}]"] = chan  # health reports every shard
        return cls(
            embedding=EmbeddingClient(by_name["embedding"], token=settings.token, timeout=timeout),
            memory=[memory_grpc.MemoryServiceStub(c) for c in shards["memory"]],
            kg=[kg_grpc.KnowledgeGraphServiceStub(c) for c in shards["kg"]],
            by_name=by_name,
        )


class Rpc:
    """Typed calls to the embedding, memory and kg services (see the module doc)."""

    def __init__(self, settings: Settings, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.settings = settings
        self.timeout = timeout
        self.metadata: tuple[tuple[str, str], ...] = client_metadata(settings.token)
        self._channels: Channels | None = None

    @classmethod
    def connect(cls, settings: Settings, timeout: float = DEFAULT_TIMEOUT) -> Rpc:
        rpc = cls(settings, timeout)
        rpc.channels()
        return rpc

    def channels(self) -> Channels:
        if self._channels is None:
            self._channels = Channels.open(self.settings, self.timeout)
        return self._channels

    # -- shard selection -------------------------------------------------------
    @property
    def embedding(self) -> EmbeddingClient:
        return self.channels().embedding

    def memory(self, user: str) -> memory_grpc.MemoryServiceStub:
        stubs = self.channels().memory
        return stubs[0] if len(stubs) == 1 else stubs[shard_of(user, len(stubs))]

    def kg(self, user: str) -> kg_grpc.KnowledgeGraphServiceStub:
        stubs = self.channels().kg
        return stubs[0] if len(stubs) == 1 else stubs[shard_of(user, len(stubs))]

    def memory_any(self) -> memory_grpc.MemoryServiceStub:
        """For calls that carry no user: every shard answers them the same."""
        return self.channels().memory[0]

    def kg_any(self) -> kg_grpc.KnowledgeGraphServiceStub:
        return self.channels().kg[0]

    def memory_shards(self) -> list[memory_grpc.MemoryServiceStub]:
        return list(self.channels().memory)

    def kg_shards(self) -> list[kg_grpc.KnowledgeGraphServiceStub]:
        return list(self.channels().kg)

    def memory_import(self) -> memory_grpc.MemoryServiceStub:
        """The one memory service for ``Import``; refused (``ShardingUnsupported``) when it is sharded."""
        stubs = self.channels().memory
        if len(stubs) > 1:
            raise _refuse_import("memory")
        return stubs[0]

    def kg_import(self) -> kg_grpc.KnowledgeGraphServiceStub:
        stubs = self.channels().kg
        if len(stubs) > 1:
            raise _refuse_import("kg")
        return stubs[0]

    # -- calls -----------------------------------------------------------------
    async def call(
        self, method: grpc.aio.UnaryUnaryMultiCallable[Req, Resp], request: Req, timeout: float | None = None
    ) -> Resp:
        """One unary call with the auth metadata and a deadline; gRPC errors propagate as they are."""
        return await method(request, timeout=timeout or self.timeout, metadata=self.metadata)

    async def unary(
        self,
        service: str,
        method: grpc.aio.UnaryUnaryMultiCallable[Req, Resp],
        request: Req,
        timeout: float | None = None,
    ) -> Resp:
        """One unary call; any gRPC error becomes InvalidInput/NotFound/BackendUnavailable/StorageProblem."""
        try:
            return await method(request, timeout=timeout or self.timeout, metadata=self.metadata)
        except grpc.aio.AioRpcError as exc:
            raise translate(service, exc) from None

    async def translated(self, service: str, reply: Awaitable[Resp]) -> Resp:
        """Await a call made elsewhere (a stream's ``read()``), translating its gRPC error."""
        try:
            return await reply
        except grpc.aio.AioRpcError as exc:
            raise translate(service, exc) from None

    def stream(
        self, method: grpc.aio.UnaryStreamMultiCallable[Req, Resp], request: Req, timeout: float
    ) -> grpc.aio.UnaryStreamCall[Req, Resp]:
        """A server-streaming call with the auth metadata; its errors surface as it is read."""
        return method(request, timeout=timeout, metadata=self.metadata)

    async def fan_out(
        self, service: str, methods: list[grpc.aio.UnaryUnaryMultiCallable[Req, Msg]], request: Req, merged: Msg
    ) -> Msg:
        """``request`` to every shard, each reply merged into ``merged`` (repeated fields concatenate: every
        shard's scopes); a gRPC error is translated as by ``unary``."""
        replies = await self.translated(service, asyncio.gather(*(self.call(method, request) for method in methods)))
        for reply in replies:
            merged.MergeFrom(reply)
        return merged

    # -- lifecycle -------------------------------------------------------------
    async def health(self, timeout: float = HEALTH_TIMEOUT) -> dict[str, dict[str, str]]:
        """grpc.health.v1 Check on every service and shard, concurrently, with a short deadline."""

        async def check(name: str, chan: grpc.aio.Channel) -> tuple[str, dict[str, str]]:
            stub = health_pb2_grpc.HealthStub(chan)
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
            except grpc.aio.AioRpcError as exc:
                return name, {"status": "DOWN", "detail": exc.code().name}
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            return name, {"status": status}

        results = await asyncio.gather(*(check(n, c) for n, c in self.channels().by_name.items()))
        return dict(results)

    async def close(self) -> None:
        if self._channels is None:
            return
        channels, self._channels = self._channels, None
        for chan in channels.by_name.values():
            await chan.close()
