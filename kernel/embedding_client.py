"""Async client for the embedding service, for its peers (memory, the gateway, benchmarks).

It lives in the kernel, not in ``services/embedding``, because services and the
gateway reach a peer only through its protos and the kernel: never by
importing another service's package (tests/unit/test_architecture.py).
"""

from __future__ import annotations

import grpc
import numpy as np
import numpy.typing as npt

from kernel.grpc_auth import client_metadata
from kernel.vectors import unpack
from protos.mnemex.embedding.v1 import embedding_service_pb2 as pb
from protos.mnemex.embedding.v1 import embedding_service_pb2_grpc as pb_grpc

MAX_TEXTS_PER_CALL = 128


class EmbeddingClient:
    def __init__(self, channel: grpc.aio.Channel, token: str | None = None, timeout: float = 10.0) -> None:
        self._stub = pb_grpc.EmbeddingServiceStub(channel)
        self._metadata = client_metadata(token)
        self._timeout = timeout

    async def embed(
        self, texts: list[str], timeout: float | None = None, wait_for_ready: bool = False
    ) -> npt.NDArray[np.float32]:
        """(len(texts), dim) float32 unit vectors. Batches of >128 are split.

        ``wait_for_ready``: wait (within ``timeout``) for a reconnecting channel
        instead of failing at once with UNAVAILABLE."""
        rows: list[npt.NDArray[np.float32]] = []
        for start in range(0, len(texts), MAX_TEXTS_PER_CALL):
            reply: pb.EmbedResponse = await self._stub.Embed(
                pb.EmbedRequest(texts=texts[start : start + MAX_TEXTS_PER_CALL]),
                timeout=timeout or self._timeout,
                metadata=self._metadata,
                wait_for_ready=wait_for_ready,
            )
            rows.append(unpack(reply.vectors, reply.dimension))
        if len(rows) == 1:
            return rows[0]
        joined: npt.NDArray[np.float32] = np.concatenate(rows)
        return joined

    async def embed_one(self, text: str, timeout: float | None = None) -> npt.NDArray[np.float32]:
        row: npt.NDArray[np.float32] = (await self.embed([text], timeout))[0]
        return row

    async def info(self, timeout: float | None = None) -> pb.InfoResponse:
        reply: pb.InfoResponse = await self._stub.Info(
            pb.InfoRequest(), timeout=timeout or self._timeout, metadata=self._metadata
        )
        return reply
