"""LoCoMo through mnemex's own gRPC API: Store every turn, Search every question.

One run starts, in this process, on loopback:
- one embedding service (the real all-MiniLM-L6-v2);
- one memory service per configuration, each with its own data dir and its
  ``retrieval_mode`` setting (what ``MNEMEX_RETRIEVAL_MODE`` sets), so the
  baseline and the final configuration are measured side by side in one run.

Configurations (``CONFIGS``):
- ``baseline``: the README's dense baseline: ``<speaker>: <text>`` per turn,
  ``retrieval_mode=dense``;
- ``dense``: the final stored content (date, speaker, replied-to turn),
  ``retrieval_mode=dense``: what the content alone buys;
- ``hybrid``: the final stored content, ``retrieval_mode=hybrid`` (the default
  of the memory service): the final configuration.

Write path, per conversation (scope = user ``locomo``, project = sample_id):
the turn contents are embedded through the embedding service in batches
(the way the gateway embeds), then each turn is one ``Store`` RPC into the
``history`` collection with that vector. Why ``history``: it is a scoped,
per-project tier that the lifecycle keeps for 30 idle days (``working``
expires after 24 h; ``memory_bank`` is per user, so conversations would mix,
and it is capped). ``allow_duplicate`` is set because near-duplicate refresh
(cosine >= 0.95) would merge distinct turns such as two "Thanks, see you
soon!" of one session, and each turn is a separate piece of evidence.

Read path: each question is embedded through the embedding service, then
one ``Search`` RPC with the question text and its vector over all
collections, limit 10 — what get-context and search_memory send.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
import numpy as np
import numpy.typing as npt

from bench.common import percentile
from bench.locomo.dataset import Conversation, Question, Turn
from bench.locomo.memory_text import baseline_content, turn_content, turn_metadata
from bench.locomo.metrics import QuestionResult, score_question
from kernel.vectors import pack
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc

if TYPE_CHECKING:
    from kernel.embedding_client import EmbeddingClient
    from kernel.grpc_hosting import RunningService
    from services.memory.composition import MemoryUseCases

COLLECTION = "history"
USER = "locomo"
SEARCH_LIMIT = 10
STORE_CONCURRENCY = 8

ContentOf = Callable[[Turn, Turn | None], str]


@dataclass(frozen=True)
class Config:
    name: str
    retrieval_mode: str
    content: ContentOf
    session_context: bool = True  # False: MNEMEX_RETRIEVAL_NEIGHBOUR_WEIGHT / _SESSION_WEIGHT at 0


CONFIGS = {
    "baseline": Config("baseline", "dense", baseline_content),
    "dense": Config("dense", "dense", turn_content),
    "nocontext": Config("nocontext", "hybrid", turn_content, session_context=False),
    "hybrid": Config("hybrid", "hybrid", turn_content),
}
DEFAULT_CONFIGS = ("baseline", "hybrid")


@dataclass
class ModeResult:
    mode: str
    results: list[QuestionResult] = field(default_factory=list)
    search_s: list[float] = field(default_factory=list)
    store_s: float = 0.0
    embedding: str = ""  # Services.embedding: what the run's embedding service loaded


@dataclass
class Services:
    embed_client: EmbeddingClient
    memory_stubs: dict[str, pb_grpc.MemoryServiceAsyncStub]
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    embedding: str = ""  # what the embedding service says it runs (model, backend, precision, device)

    async def close(self) -> None:
        for closer in reversed(self.closers):
            await closer()


async def start_services(configs: Sequence[Config], home: Path, embedding_addr: str | None = None) -> Services:
    from kernel.embedding_client import EmbeddingClient
    from kernel.grpc_channel import channel
    from services.embedding.embedding_servicer import create_server as create_embedding_server
    from services.embedding.settings import EmbeddingSettings
    from services.memory.composition import create_server as create_memory_server
    from services.memory.retrieval.hybrid import RetrievalSettings
    from services.memory.settings import MemorySettings

    if embedding_addr is None:
        # The MNEMEX_EMBEDDING_* settings (model, backend, precision, device, threads), as the service reads them.
        emb_settings = replace(EmbeddingSettings.from_env(), address="127.0.0.1:0", token=None)
        embedding = await create_embedding_server(emb_settings)
        emb_addr = f"127.0.0.1:{embedding.port}"

        async def stop_embedding() -> None:
            await embedding.stop(0)

        closers: list[Callable[[], Awaitable[None]]] = [stop_embedding]
    else:
        emb_addr, closers = embedding_addr, []
    emb_channel = channel(emb_addr)
    client = EmbeddingClient(emb_channel, timeout=120.0)
    info = await client.info()
    services = Services(client, {}, closers, embedding_line(info))
    services.closers.append(emb_channel.close)
    retrieval = RetrievalSettings.from_env()  # MNEMEX_RETRIEVAL_* weights; the mode is the configuration's
    for config in configs:
        settings = MemorySettings(
            address="127.0.0.1:0",
            home=home / config.name,
            default_user=USER,
            embedding_addr=emb_addr,
            retrieval_mode=config.retrieval_mode,
            lexical_weight=retrieval.lexical_weight,
            time_bonus=retrieval.time_bonus,
            neighbour_weight=retrieval.neighbour_weight if config.session_context else 0.0,
            session_weight=retrieval.session_weight if config.session_context else 0.0,
            maintenance_interval_s=0,
        )
        server = await create_memory_server(settings)
        port = server.port
        chan = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        services.memory_stubs[config.name] = pb_grpc.MemoryServiceStub(chan)

        async def stop_memory(server: RunningService[MemoryUseCases] = server, chan: grpc.aio.Channel = chan) -> None:
            await chan.close()
            await server.stop(0)

        services.closers.append(stop_memory)
    return services


def embedding_line(info: object) -> str:
    """One line naming what the embedding service actually loaded."""
    return (
        f"embedding: {getattr(info, 'model_id', '?')}, backend {getattr(info, 'backend', '?')}, "
        f"precision {getattr(info, 'precision', '?') or 'fp32'}, device {getattr(info, 'device', '?')}"
    )


async def store_conversation(
    stub: pb_grpc.MemoryServiceAsyncStub, convo: Conversation, contents: list[str], vectors: npt.NDArray[np.float32]
) -> dict[str, str]:
    """Store every turn; returns memory id -> dia_id.

    Each turn carries its session (``session_id``, as a live client's exchanges do) and a
    creation time in dialogue order, one second apart and ending now (the Store calls run
    concurrently, so their arrival order is not the dialogue's).
    """
    scope = common_pb.Scope(user=USER, project=convo.sample_id)
    gate = asyncio.Semaphore(STORE_CONCURRENCY)
    start = datetime.now(UTC) - timedelta(seconds=len(convo.turns))

    async def store_one(index: int) -> tuple[str, str]:
        turn = convo.turns[index]
        created = (start + timedelta(seconds=index)).isoformat()
        async with gate:
            reply = await stub.Store(
                pb.StoreRequest(
                    scope=scope,
                    collection=COLLECTION,
                    content=contents[index],
                    vector=pack(vectors[index : index + 1]),
                    metadata_json=turn_metadata(turn, created),
                    allow_duplicate=True,
                    session_id=f"{convo.sample_id}/session-{turn.session}",
                ),
                timeout=60,
            )
        return reply.memory.id, turn.dia_id

    pairs = await asyncio.gather(*(store_one(i) for i in range(len(convo.turns))))
    return dict(pairs)


async def ask(
    stub: pb_grpc.MemoryServiceAsyncStub,
    convo: Conversation,
    questions: list[Question],
    vectors: npt.NDArray[np.float32],
    dia_of: dict[str, str],
) -> tuple[list[QuestionResult], list[float]]:
    scope = common_pb.Scope(user=USER, project=convo.sample_id)
    results, timings = [], []
    session_of = convo.session_of
    for index, question in enumerate(questions):
        start = time.perf_counter()
        reply = await stub.Search(
            pb.SearchRequest(
                scope=scope,
                query=question.question,
                query_vector=pack(vectors[index : index + 1]),
                limit=SEARCH_LIMIT,
            ),
            timeout=30,
        )
        timings.append(time.perf_counter() - start)
        ranked = [dia_of.get(m.id, "") for m in reply.memories]
        results.append(score_question(question.category, question.evidence, ranked, session_of))
    return results, timings


async def run(
    conversations: list[Conversation],
    config_names: Sequence[str] = DEFAULT_CONFIGS,
    questions_per_conversation: int | None = None,
    home: Path | None = None,
    log: Callable[[str], None] = print,
    embedding_addr: str | None = None,
) -> dict[str, ModeResult]:
    configs = [CONFIGS[name] for name in config_names]
    with tempfile.TemporaryDirectory(prefix="mnemex-locomo-") as tmp:
        services = await start_services(configs, Path(home or tmp), embedding_addr)
        embed = services.embed_client.embed
        try:
            log(services.embedding)
            outcome = {config.name: ModeResult(config.name, embedding=services.embedding) for config in configs}
            for convo in conversations:
                questions = [q for q in convo.questions if q.evidence][:questions_per_conversation]
                started = time.perf_counter()
                pairs = list(zip(convo.turns, [None, *convo.turns[:-1]], strict=True))
                contents = {c.content: [c.content(t, p) for t, p in pairs] for c in configs}
                vectors = {content_of: await embed(texts) for content_of, texts in contents.items()}
                question_vectors = await embed([q.question for q in questions])
                embed_s = time.perf_counter() - started
                for config in configs:
                    stub = services.memory_stubs[config.name]
                    started = time.perf_counter()
                    dia_of = await store_conversation(stub, convo, contents[config.content], vectors[config.content])
                    outcome[config.name].store_s += time.perf_counter() - started
                    results, timings = await ask(stub, convo, questions, question_vectors, dia_of)
                    outcome[config.name].results.extend(results)
                    outcome[config.name].search_s.extend(timings)
                log(
                    f"  {convo.sample_id}: {len(convo.turns)} turns, {len(questions)} questions (embedding {embed_s:.1f}s)"
                )
            return outcome
        finally:
            await services.close()


def latency_line(result: ModeResult) -> str:
    ms = [s * 1000 for s in result.search_s]
    if not ms:
        return f"{result.mode}: no searches"
    return (
        f"{result.mode:7s} Search p50 {percentile(ms, 50):.1f} ms  p95 {percentile(ms, 95):.1f} ms  "
        f"(n={len(ms)}); Store {result.store_s:.1f}s in all"
    )
