"""The prompt path's search alone (Searcher.search, the column path) at N synthetic memories, thread CPU per call.

    .venv/bin/python -m bench.bench_prompt_path_cpu [--size 10000] [--queries 400]
    PYTHONPATH=<other checkout> .venv/bin/python -m bench.bench_prompt_path_cpu   # that checkout's services

No model: random unit vectors and random word texts, stored through the real
MemoryStore into an in-memory Chroma, so a run takes seconds and two checkouts
can be alternated many times (bench_prepare_context embeds a real corpus first,
minutes per run on a shared machine). A third of the memories get a scored use
at a random time after their creation, so recency (which decays from the last
use) differs from age. Prints the calling thread's CPU time per search.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from services.memory.domain.record import MemoryRecord

WORDS = "alpha beta gamma delta kafka redis deploy rollback cache auth token retry schema migration lint".split()


async def run(size: int, queries: int) -> None:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    import services.memory.domain.ranking as ranking
    from services.memory.composition import MemoryUseCases
    from services.memory.domain.naming import memory_id, new_uid
    from services.memory.domain.search_params import build_search_params
    from services.memory.domain.write_rules import new_record
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import ChromaStore

    print(f"services from {Path(ranking.__file__).parents[3]}", file=sys.stderr)
    rng = np.random.default_rng(3)

    class NoEmbedder:  # every call passes its vector
        async def embed(self, texts: list[str], timeout: float | None = None) -> npt.NDArray[np.float32]:
            raise AssertionError("the benchmark passes vectors explicitly")

    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-cpu-") as tmp:
        client = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
        core = MemoryUseCases(
            MemorySettings(home=Path(tmp), maintenance_interval_s=0), ChromaStore(client), NoEmbedder()
        )
        scope = core.scope("bench", "project")
        base = rng.standard_normal((size, 384)).astype(np.float32)
        base /= np.linalg.norm(base, axis=1, keepdims=True)
        collections = ["working", "history", "patterns", "memory_bank", "books"]
        items: list[tuple[MemoryRecord, npt.NDArray[np.float32]]] = []
        for i in range(size):
            collection = collections[i % 5]
            created = now - timedelta(days=float(rng.uniform(0, 120)))
            record = new_record(
                memory_id=memory_id(collection, new_uid()),
                collection=collection,
                content=" ".join(rng.choice(WORDS, 8)) + f" item{i}",
                project="project",
                now=created,
                tags=(),
                importance=None,
                confidence=None,
                initial_outcome=None,
                session_id="",
                extra={},
            )
            if i % 3 == 0:
                record = replace(record, last_used_at=created + (now - created) * float(rng.uniform()))
            items.append((record, base[i]))
        for start in range(0, size, 1000):
            await core.store.add(scope, items[start : start + 1000])
        prompts = []
        for _ in range(queries):
            vector = base[rng.integers(size)] + 0.5 * rng.standard_normal(384).astype(np.float32)
            prompts.append((" ".join(rng.choice(WORDS, 4)), (vector / np.linalg.norm(vector)).astype("<f4").tobytes()))

        async def once(i: int) -> None:
            query, vector = prompts[i]
            assert await core.searcher.search(scope, build_search_params(query=query, has_vector=True, limit=5), vector)

        for i in range(min(30, queries)):  # warm-up
            await once(i)
        cpu = []
        for i in range(queries):
            started = time.thread_time()
            await once(i)
            cpu.append((time.thread_time() - started) * 1000)
        await core.close()
    print(
        f"prompt-path search at {size} memories, {queries} calls: thread CPU p50 {statistics.median(cpu):.3f} "
        f"p95 {float(np.percentile(cpu, 95)):.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=400)
    args = parser.parse_args()
    asyncio.run(run(args.size, args.queries))


if __name__ == "__main__":
    main()
