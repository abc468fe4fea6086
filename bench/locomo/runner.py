"""LoCoMo through mnemex's own gRPC API: Store every turn, Search every question.

One run starts, in this process, on loopback:
- one embedding service (the real all-MiniLM-L6-v2);
- one memory service per retrieval mode asked for (default ``dense`` and
  ``hybrid``), each with its own data dir and ``MNEMEX_RETRIEVAL_MODE``-style
  ``retrieval_mode`` setting, so the baseline and the final configuration are
  measured side by side on the same data in one run.

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from bench.common import percentile
from bench.locomo.dataset import Conversation, Question
from bench.locomo.memory_text import turn_content, turn_metadata
from bench.locomo.metrics import QuestionResult, score_question
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.embedding.model import pack

COLLECTION = "history"
USER = "locomo"
SEARCH_LIMIT = 10
STORE_CONCURRENCY = 8


@dataclass
class ModeResult:
    mode: str
    results: list[QuestionResult] = field(default_factory=list)
    search_s: list[float] = field(default_factory=list)
    store_s: float = 0.0


@dataclass
class Services:
    embed_client: object
    memory_stubs: dict[str, pb_grpc.MemoryServiceStub]
    closers: list = field(default_factory=list)

    async def close(self) -> None:
        for closer in reversed(self.closers):
            await closer()


async def start_services(modes: Sequence[str], home: Path, embedding_addr: str | None = None) -> Services:
    from mnemex.grpc_runtime import channel
    from services.embedding.client import EmbeddingClient
    from services.embedding.model import SentenceTransformerEncoder
    from services.embedding.server import create_server as create_embedding_server
    from services.embedding.settings import EmbeddingSettings
    from services.memory.server import create_server as create_memory_server
    from services.memory.settings import MemorySettings

    if embedding_addr is None:
        encoder = await asyncio.to_thread(SentenceTransformerEncoder.load)
        emb_settings = EmbeddingSettings(address="127.0.0.1:0", model_path=None, device="cpu", backend="torch")
        emb_server, emb_port, batcher = await create_embedding_server(emb_settings, encoder)
        emb_addr = f"127.0.0.1:{emb_port}"

        async def stop_embedding() -> None:
            await emb_server.stop(0)
            await batcher.close()

        closers = [stop_embedding]
    else:
        emb_addr, closers = embedding_addr, []
    emb_channel = channel(emb_addr)
    services = Services(EmbeddingClient(emb_channel, timeout=120.0), {}, closers)
    services.closers.append(emb_channel.close)
    for mode in modes:
        settings = MemorySettings(
            address="127.0.0.1:0",
            home=home / mode,
            default_user=USER,
            embedding_addr=emb_addr,
            retrieval_mode=mode,
            maintenance_interval_s=0,
        )
        server, port = await create_memory_server(settings)
        chan = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        services.memory_stubs[mode] = pb_grpc.MemoryServiceStub(chan)

        async def stop_memory(server=server, chan=chan) -> None:  # type: ignore[no-untyped-def]
            await chan.close()
            await server.stop(0)
            await server.memory_core.close()  # type: ignore[attr-defined]

        services.closers.append(stop_memory)
    return services


async def store_conversation(stub: pb_grpc.MemoryServiceStub, convo: Conversation, vectors: object) -> dict[str, str]:
    """Store every turn; returns memory id -> dia_id."""
    scope = pb.Scope(user=USER, project=convo.sample_id)
    gate = asyncio.Semaphore(STORE_CONCURRENCY)
    previous = [None, *convo.turns[:-1]]

    async def store_one(index: int) -> tuple[str, str]:
        turn = convo.turns[index]
        async with gate:
            reply = await stub.Store(
                pb.StoreRequest(
                    scope=scope,
                    collection=COLLECTION,
                    content=turn_content(turn, previous[index]),
                    vector=pack(vectors[index : index + 1]),  # type: ignore[index]
                    metadata_json=turn_metadata(turn),
                    allow_duplicate=True,
                ),
                timeout=60,
            )
        return reply.memory.id, turn.dia_id

    pairs = await asyncio.gather(*(store_one(i) for i in range(len(convo.turns))))
    return dict(pairs)


async def ask(
    stub: pb_grpc.MemoryServiceStub, convo: Conversation, questions: list[Question], vectors: object, dia_of: dict[str, str]
) -> tuple[list[QuestionResult], list[float]]:
    scope = pb.Scope(user=USER, project=convo.sample_id)
    results, timings = [], []
    session_of = convo.session_of
    for index, question in enumerate(questions):
        start = time.perf_counter()
        reply = await stub.Search(
            pb.SearchRequest(
                scope=scope,
                query=question.question,
                query_vector=pack(vectors[index : index + 1]),  # type: ignore[index]
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
    modes: Sequence[str] = ("dense", "hybrid"),
    questions_per_conversation: int | None = None,
    home: Path | None = None,
    log: object = print,
    embedding_addr: str | None = None,
) -> dict[str, ModeResult]:
    with tempfile.TemporaryDirectory(prefix="mnemex-locomo-") as tmp:
        services = await start_services(modes, Path(home or tmp), embedding_addr)
        try:
            outcome = {mode: ModeResult(mode) for mode in modes}
            for convo in conversations:
                questions = [q for q in convo.questions if q.evidence][:questions_per_conversation]
                started = time.perf_counter()
                turn_vectors = await services.embed_client.embed(  # type: ignore[attr-defined]
                    [turn_content(t, p) for t, p in zip(convo.turns, [None, *convo.turns[:-1]], strict=True)]
                )
                question_vectors = await services.embed_client.embed([q.question for q in questions])  # type: ignore[attr-defined]
                embed_s = time.perf_counter() - started
                for mode, stub in services.memory_stubs.items():
                    started = time.perf_counter()
                    dia_of = await store_conversation(stub, convo, turn_vectors)
                    outcome[mode].store_s += time.perf_counter() - started
                    results, timings = await ask(stub, convo, questions, question_vectors, dia_of)
                    outcome[mode].results.extend(results)
                    outcome[mode].search_s.extend(timings)
                log(  # type: ignore[operator]
                    f"  {convo.sample_id}: {len(convo.turns)} turns, {len(questions)} questions "
                    f"(embedding {embed_s:.1f}s)"
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
