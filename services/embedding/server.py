"""gRPC servicer and entrypoint for the embedding service.

    mnemex-embedding    (or: python -m services.embedding.server)
"""

from __future__ import annotations

import asyncio
import logging

import grpc

from kernel import __version__, offline
from kernel.config import service_settings_or_exit
from kernel.grpc_runtime import serve_until_signal, start_server
from protos.mnemex.embedding.v1 import embedding_service_pb2 as pb
from protos.mnemex.embedding.v1 import embedding_service_pb2_grpc as pb_grpc
from services.embedding.batcher import MicroBatcher
from services.embedding.model import Encoder, pack
from services.embedding.settings import EmbeddingSettings
from services.embedding.validation import InvalidEmbedRequest, check_texts

log = logging.getLogger("mnemex.embedding")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["EmbeddingService"].full_name


class EmbeddingServicer(pb_grpc.EmbeddingServiceServicer):
    def __init__(self, encoder: Encoder, batcher: MicroBatcher, settings: EmbeddingSettings) -> None:
        self._encoder = encoder
        self._batcher = batcher
        self._settings = settings

    async def Embed(self, request: pb.EmbedRequest, context: grpc.aio.ServicerContext) -> pb.EmbedResponse:
        texts = list(request.texts)
        try:
            check_texts(texts, max_batch=self._settings.max_batch, max_text_chars=self._settings.max_text_chars)
        except InvalidEmbedRequest as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline passed before embedding began")
        try:
            vectors = await self._batcher.embed(texts, timeout=remaining)
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline passed while waiting for the model")
        return pb.EmbedResponse(
            vectors=pack(vectors),
            dimension=self._encoder.dimension,
            count=len(texts),
            model_id=self._encoder.model_id,
        )

    async def Info(self, request: pb.InfoRequest, context: grpc.aio.ServicerContext) -> pb.InfoResponse:
        return pb.InfoResponse(
            model_id=self._encoder.model_id,
            dimension=self._encoder.dimension,
            device=self._encoder.device,
            backend=self._encoder.backend,
            max_seq_length=self._encoder.max_seq_length,
            precision=self._encoder.precision,
            max_batch=self._settings.max_batch,
            max_text_chars=self._settings.max_text_chars,
            version=__version__,
        )


async def create_server(settings: EmbeddingSettings, encoder: Encoder) -> tuple[grpc.aio.Server, int, MicroBatcher]:
    batcher = MicroBatcher(
        encoder, max_batch=settings.max_batch, window_ms=settings.batch_window_ms, inline_chars=settings.inline_chars
    )
    servicer = EmbeddingServicer(encoder, batcher, settings)
    server, port, health = await start_server(
        settings.address,
        lambda s: pb_grpc.add_EmbeddingServiceServicer_to_server(servicer, s),
        [SERVICE_NAME],
        token=settings.token,
        what="the embedding service",
    )
    server.health = health  # type: ignore[attr-defined]
    batcher.start()
    return server, port, batcher


async def serve(settings: EmbeddingSettings) -> None:
    from services.embedding.model import load_encoder

    encoder = await asyncio.to_thread(
        load_encoder, settings.model_path, settings.device, settings.backend, settings.threads, settings.precision
    )
    server, port, batcher = await create_server(settings, encoder)
    log.info(
        "embedding service on port %d: %s dim=%d device=%s backend=%s precision=%s",
        port, encoder.model_id, encoder.dimension, encoder.device, encoder.backend, encoder.precision,
    )
    await serve_until_signal(server, server.health, on_stop=[batcher.close])  # type: ignore[attr-defined]


def main() -> None:
    offline.apply()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = service_settings_or_exit(  # before loading the model
        EmbeddingSettings.from_env, lambda s: s.address, "MNEMEX_EMBEDDING_ADDR", "embedding service"
    )
    asyncio.run(serve(settings))


if __name__ == "__main__":
    main()
