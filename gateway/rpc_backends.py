"""The backend protocols (``gateway/backends.py``) over ``Rpc``: one thin adapter per service.

Each method is one call through ``Rpc`` (auth metadata, deadline, shard of the
request's user) whose gRPC error becomes a ``BackendError`` with the status
name. ``over(rpc)`` builds the three; the composition root calls it once.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import TypeVar

import grpc
import numpy as np
import numpy.typing as npt

from gateway.backends import BackendError, Backends
from gateway.rpc import Rpc, reconnecting
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

T = TypeVar("T")


async def _answered(service: str, reply: Awaitable[T]) -> T:
    try:
        return await reply
    except grpc.aio.AioRpcError as exc:
        raise BackendError(service, exc.code().name, exc.details() or "") from None


class RpcEmbedding:
    def __init__(self, rpc: Rpc) -> None:
        self.rpc = rpc

    async def embed(self, texts: list[str], timeout: float, *, reconnect: bool = False) -> npt.NDArray[np.float32]:
        client = self.rpc.embedding
        if reconnect:
            return await _answered("embedding", reconnecting(functools.partial(client.embed, texts), timeout))
        return await _answered("embedding", client.embed(texts, timeout=timeout))


class RpcMemory:
    def __init__(self, rpc: Rpc) -> None:
        self.rpc = rpc

    async def prepare_context(
        self, request: mem_pb.PrepareContextRequest, timeout: float
    ) -> mem_pb.PrepareContextResponse:
        stub = self.rpc.memory(request.scope.user)
        return await _answered("memory", self.rpc.call(stub.PrepareContext, request, timeout, reconnect=True))

    async def get(self, request: mem_pb.GetRequest, timeout: float) -> mem_pb.Memory | None:
        try:
            reply = await self.rpc.call(self.rpc.memory(request.scope.user).Get, request, timeout)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise BackendError("memory", exc.code().name, exc.details() or "") from None
        return reply.memory


class RpcKg:
    def __init__(self, rpc: Rpc) -> None:
        self.rpc = rpc

    async def recall(self, request: kg_pb.RecallRequest, timeout: float) -> kg_pb.RecallResponse:
        stub = self.rpc.kg(request.scope.user)
        return await _answered("kg", self.rpc.call(stub.Recall, request, timeout, reconnect=True))

    async def episode_lessons(self, request: kg_pb.EpisodeLessonsRequest, timeout: float) -> list[kg_pb.EpisodeLesson]:
        stub = self.rpc.kg(request.scope.user)
        return list((await _answered("kg", self.rpc.call(stub.EpisodeLessons, request, timeout))).lessons)

    async def extract_concepts(self, text: str, timeout: float) -> kg_pb.ExtractConceptsResponse:
        request = kg_pb.ExtractConceptsRequest(text=text)
        return await _answered("kg", self.rpc.call(self.rpc.kg_any().ExtractConcepts, request, timeout))

    async def record_turn(self, request: kg_pb.RecordTurnRequest, timeout: float) -> kg_pb.RecordTurnResponse:
        return await _answered("kg", self.rpc.call(self.rpc.kg(request.scope.user).RecordTurn, request, timeout))

    async def record_outcome(self, request: kg_pb.RecordOutcomeRequest, timeout: float) -> None:
        await _answered("kg", self.rpc.call(self.rpc.kg(request.scope.user).RecordOutcome, request, timeout))

    async def record_action(self, request: kg_pb.RecordActionRequest, timeout: float) -> kg_pb.RecordActionResponse:
        return await _answered("kg", self.rpc.call(self.rpc.kg(request.scope.user).RecordAction, request, timeout))

    async def record_tool_error(self, request: kg_pb.RecordToolErrorRequest, timeout: float) -> str:
        stub = self.rpc.kg(request.scope.user)
        return (await _answered("kg", self.rpc.call(stub.RecordToolError, request, timeout))).signature


def over(rpc: Rpc) -> Backends:
    """The three backends, each calling through ``rpc``."""
    return Backends(memory=RpcMemory(rpc), kg=RpcKg(rpc), embedding=RpcEmbedding(rpc))
