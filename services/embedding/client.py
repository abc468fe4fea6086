"""Async client for the embedding service, used by memory and the gateway."""

from __future__ import annotations

import grpc
import numpy as np

from kernel.grpc_runtime import client_metadata
from protos.mnemex.embedding.v1 import embedding_service_pb2 as pb
from protos.mnemex.embedding.v1 import embedding_service_pb2_grpc as pb_grpc
from services.embedding.model import unpack


class EmbeddingClient:
    def __init__(self, channel: grpc.aio.Channel, token: str | None = None, timeout: float = 10.0) -> None:
        self._stub = pb_grpc.EmbeddingServiceStub(channel)
        self._metadata = client_metadata(token)
        self._timeout = timeout

    async def embed(self, texts: list[str], timeout: float | None = None, wait_for_ready: bool = False) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors. Batches of >128 are split.

        ``wait_for_ready``: wait (within ``timeout``) for a reconnecting channel
        instead of failing at once with UNAVAILABLE."""
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), 128):
            reply = await self._stub.Embed(
                pb.EmbedRequest(texts=texts[start : start + 128]),
                timeout=timeout or self._timeout,
                metadata=self._metadata,
                wait_for_ready=wait_for_ready,
            )
            rows.append(unpack(reply.vectors, reply.dimension))
        return np.concatenate(rows) if len(rows) != 1 else rows[0]

    async def embed_one(self, text: str, timeout: float | None = None) -> np.ndarray:
        return (await self.embed([text], timeout))[0]

    async def info(self, timeout: float | None = None) -> pb.InfoResponse:
        return await self._stub.Info(pb.InfoRequest(), timeout=timeout or self._timeout, metadata=self._metadata)
