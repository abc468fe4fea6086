"""The memory service's prompt call in-process: PrepareContext.prepare (services.memory.usecases) at N memories.

    .venv/bin/python -m bench.bench_prepare_context [--size 10000] [--queries 900]
    .venv/bin/python -m bench.bench_prepare_context --root ../other-checkout   # that checkout's services

No gRPC and no embedding on the clock: the corpus and prompts of bench_get_context,
vectors from the real model computed before timing (and cached in the temp dir of
one run), a real Chroma PersistentClient, then one prepare_context per prompt
(search + scoring state + deferred injection record) exactly as the servicer
calls it. Prints wall time and the calling thread's CPU time per call; the CPU
time is the steadier of the two on a shared machine, and runs of two checkouts
alternated by hand compare well on it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=900)
    parser.add_argument("--root", type=Path, default=None, help="import services.memory from this checkout")
    args = parser.parse_args()
    if args.root is not None:
        sys.path.insert(0, str(args.root.resolve()))
    asyncio.run(run(args.size, args.queries))


async def run(size: int, queries: int) -> None:
    import chromadb
    import numpy as np
    import numpy.typing as npt
    from chromadb.config import Settings as ChromaSettings

    from bench.bench_get_context import DETAILS, TOPICS, corpus
    from kernel import offline
    from services.embedding.model import load_encoder
    from services.memory.composition import MemoryUseCases
    from services.memory.domain.search_params import build_search_params
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import ChromaStore

    offline.apply()
    encoder = load_encoder()
    items = corpus(size, random.Random(1))
    rng = random.Random(2)
    prompts = [f"how did we handle {rng.choice(TOPICS)} last time? {rng.choice(DETAILS)}" for _ in range(queries)]
    print(f"embedding {size} memories and {queries} prompts (not timed)...", flush=True)
    vectors = encoder.encode([text for _, text in items])
    prompt_vectors = [encoder.encode([p])[0].astype("<f4").tobytes() for p in prompts]

    class NoEmbedder:  # every call below passes its vector
        async def embed(self, texts: list[str], timeout: float | None = None) -> npt.NDArray[np.float32]:
            raise AssertionError("the benchmark passes vectors explicitly")

    with tempfile.TemporaryDirectory(prefix="mnemex-bench-prepare-") as tmp:
        home = Path(tmp)
        client = chromadb.PersistentClient(str(home / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))
        core = MemoryUseCases(MemorySettings(home=home, maintenance_interval_s=0), ChromaStore(client), NoEmbedder())

        async def records() -> AsyncIterator[str]:
            for (collection, text), vector in zip(items, vectors, strict=True):
                yield json.dumps(
                    {
                        "format": "mnemex.memory/1",
                        "scope": {"user": "bench", "project": "" if collection == "memory_bank" else "project"},
                        "collection": collection,
                        "content": text,
                        "metadata": {"title": "Bench Handbook"} if collection == "books" else {},
                        "embedding": base64.b64encode(vector.astype("<f4").tobytes()).decode(),
                        "dim": int(vector.shape[0]),
                    }
                )

        await core.portability.import_records(records())
        scope = core.scope("bench", "project")

        async def once(i: int) -> None:
            params = build_search_params(query=prompts[i], has_vector=True, limit=5)
            found = (await core.prepare.select(scope, f"s{i % 7}", params, prompt_vectors[i], prompts[i])).memories
            assert found

        for i in range(min(30, queries)):  # warm-up: mirrors built, caches filled
            await once(i)
        wall, cpu = [], []
        for i in range(queries):
            started, thread_started = time.perf_counter(), time.thread_time()
            await once(i)
            cpu.append((time.thread_time() - thread_started) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
        await core.close()
    print(
        f"prepare_context at {size} memories, {queries} calls: wall p50 {statistics.median(wall):.2f} "
        f"p95 {float(np.percentile(wall, 95)):.2f} ms; thread CPU p50 {statistics.median(cpu):.2f} ms"
    )


if __name__ == "__main__":
    main()
