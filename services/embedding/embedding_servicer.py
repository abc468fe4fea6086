"""gRPC servicer and entrypoint for the embedding service.

    python -m services.embedding      (MNEMEX_EMBEDDING_ADDR, MNEMEX_EMBEDDING_MODEL, MNEMEX_TOKEN)

The servicer only checks requests (embed_request_checks.py) and hands them to
the ``MicroBatcher`` (batcher.py), which encodes with the model (model.py).
"""

from __future__ import annotations

import asyncio
import logging

import grpc

from kernel import __version__
from kernel.grpc_call_policy import ErrorTable
from kernel.grpc_hosting import RpcContext, RunningService, start_service
from kernel.heap import release_free_heap
from kernel.service_main import run_service
from kernel.vectors import pack
from protos.mnemex.embedding.v1 import embedding_service_pb2 as pb
from protos.mnemex.embedding.v1 import embedding_service_pb2_grpc as pb_grpc
from services.embedding.batcher import DeadlinePassed, MicroBatcher
from services.embedding.embed_request_checks import InvalidEmbedRequest, check_texts
from services.embedding.model import Encoder
from services.embedding.settings import EmbeddingSettings

log = logging.getLogger("mnemex.embedding")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["EmbeddingService"].full_name
ERRORS: ErrorTable = {
    InvalidEmbedRequest: grpc.StatusCode.INVALID_ARGUMENT,
    DeadlinePassed: grpc.StatusCode.DEADLINE_EXCEEDED,
}


class EmbeddingServicer(pb_grpc.EmbeddingServiceServicer):
    def __init__(self, encoder: Encoder, batcher: MicroBatcher, settings: EmbeddingSettings) -> None:
        self._encoder = encoder
        self._batcher = batcher
        self._settings = settings

    async def Embed(self, request: pb.EmbedRequest, context: RpcContext) -> pb.EmbedResponse:
        texts = list(request.texts)
        check_texts(texts, max_batch=self._settings.max_batch, max_text_chars=self._settings.max_text_chars)
        vectors = await self._batcher.embed(texts, timeout=context.time_remaining())
        return pb.EmbedResponse(
            vectors=pack(vectors),
            dimension=self._encoder.dimension,
            count=len(texts),
            model_id=self._encoder.model_id,
        )

    async def Info(self, request: pb.InfoRequest, context: RpcContext) -> pb.InfoResponse:
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


async def create_server(settings: EmbeddingSettings, *, encoder: Encoder | None = None) -> RunningService[MicroBatcher]:
    """Start the embedding service; ``encoder`` defaults to the model ``settings`` names (loaded off the loop)."""
    if encoder is None:
        from services.embedding.model import load_encoder

        encoder = await asyncio.to_thread(
            load_encoder, settings.model_path, settings.device, settings.backend, settings.threads, settings.precision
        )
        release_free_heap()  # what parsing the model file freed (kernel.heap)
    batcher = MicroBatcher(
        encoder, max_batch=settings.max_batch, window_ms=settings.batch_window_ms, inline_chars=settings.inline_chars
    )
    servicer = EmbeddingServicer(encoder, batcher, settings)
    running = await start_service(
        settings,
        batcher,
        register=lambda server: pb_grpc.add_EmbeddingServiceServicer_to_server(servicer, server),
        service_names=[SERVICE_NAME],
        errors=ERRORS,
        what="the embedding service",
    )
    batcher.start()
    return running


def log_started(settings: EmbeddingSettings, running: RunningService[MicroBatcher]) -> None:
    encoder = running.core.encoder
    log.info(
        "embedding service on port %d: %s dim=%d device=%s backend=%s precision=%s",
        running.port,
        encoder.model_id,
        encoder.dimension,
        encoder.device,
        encoder.backend,
        encoder.precision,
    )


def settings_with_model() -> EmbeddingSettings:
    """The settings, once the model they name is known to be there (``ModelMissing`` says what to install)."""
    from services.embedding.packaged_model import model_directory

    settings = EmbeddingSettings.from_env()
    model_directory(settings.model_path)
    return settings


def main() -> None:
    # settings_with_model: a missing model is a setting to fix too, found before anything loads
    run_service(
        settings_with_model, create_server, log_started, env_name="MNEMEX_EMBEDDING_ADDR", what="embedding service"
    )


if __name__ == "__main__":
    main()
