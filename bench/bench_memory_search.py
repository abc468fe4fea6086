"""Memory service Search RPC latency at 1k and 10k stored memories (the get-context hot path).

    .venv/bin/python -m bench.bench_memory_search [--sizes 1000 10000] [--queries 200] [--json]

What is measured, per corpus size, with a real in-process memory service on
loopback (real Chroma PersistentClient in a temp dir, real gRPC, sync client):

- ``context``: Search(query text + query_vector, limit 5, all five
  collections): exactly what the gateway's get-context sends (it embeds the
  prompt once itself), in hybrid mode (dense + BM25, with session context: working
  and history memories come in sessions of 12), hybrid without session context, and
  dense-only mode, the three taking turns query by query;
- ``search+days``: Search(query + vector, days_back 7, limit 10);
- ``timeline``: Search(days_back 2, no query), the empty-query path;
- ``state`` / ``inject``: GetScoringState and RecordInjection, the two other
  memory calls get-context makes (RecordInjection commits to SQLite with
  synchronous=FULL).

The corpus is synthetic developer notes (varied vocabulary, real MiniLM
embeddings), spread over the five collections with ages up to 60 days, and
loaded through the Import RPC. Queries are embedded before timing starts.
Target (issue 2, whole get-context): p50 <= 15 ms, p95 <= 30 ms at 10k.
``cpu ms`` is process CPU time per call (client and server share the process),
a figure that a busy machine distorts less than wall time.
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
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import grpc
import numpy as np
import numpy.typing as npt

from bench.common import percentile
from kernel import offline
from services.embedding.model import Encoder

T = TypeVar("T")

USER = "bench"
PROJECT = "search-bench"
COLLECTION_SHARES = (("working", 0.15), ("history", 0.35), ("patterns", 0.1), ("memory_bank", 0.1), ("books", 0.3))
SUBJECTS = [
    "the auth service",
    "the billing worker",
    "the React dashboard",
    "the Postgres schema",
    "the CI pipeline",
    "the Kafka consumer",
    "the Redis cache",
    "the gRPC gateway",
    "the Terraform module",
    "the mobile app",
    "the search index",
    "the payment webhook",
    "the feature flag system",
    "the logging stack",
    "the Docker image",
]
ACTIONS = [
    "fixed a race in",
    "added retries to",
    "profiled",
    "refactored",
    "documented",
    "migrated",
    "debugged a leak in",
    "wrote tests for",
    "tuned timeouts of",
    "pinned dependencies of",
    "split the config of",
    "secured",
]
DETAILS = [
    "using exponential backoff",
    "after the deploy on Friday",
    "because p95 latency doubled",
    "with a feature flag",
    "by adding an index on created_at",
    "after reading the flame graph",
    "to stop the OOM kills",
    "with pytest fixtures",
    "using structured logging",
    "behind the load balancer",
    "with a canary release",
    "by caching tokens for 5 minutes",
]


def corpus(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = [f"{a}{b}" for a in ("kv", "zen", "hex", "orb", "flux", "nova", "pix", "quark") for b in range(60)]
    return [
        f"Note {i}: {rng.choice(ACTIONS)} {rng.choice(SUBJECTS)} {rng.choice(DETAILS)}; ticket {rng.choice(words)}-{rng.randrange(1000)}."
        for i in range(n)
    ]


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        f"How did we {rng.choice(ACTIONS).split()[0]} {rng.choice(SUBJECTS)} {rng.choice(DETAILS)}?" for _ in range(n)
    ]


class Loop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[object, None, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(3600)


# Three memory services over one Chroma: the default, the default without session context, dense only.
MODES = ("hybrid", "hybrid, no session context", "dense")


def import_records(texts: list[str], vectors: npt.NDArray[np.float32], seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    records = []
    weights = [share for _, share in COLLECTION_SHARES]
    names = [name for name, _ in COLLECTION_SHARES]
    for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        collection = rng.choices(names, weights)[0]
        created = now - timedelta(days=rng.uniform(0, 60))
        meta: dict[str, object] = {"created_at": created.isoformat(timespec="seconds")}
        if collection in ("working", "history"):
            meta["session_id"] = f"session-{i // 12}"  # conversation memories come in sessions (session context)
        if collection in ("working", "history", "patterns"):
            uses = rng.randrange(0, 8)
            meta.update(
                score=round(rng.uniform(0.3, 1.0), 3), uses=uses, success_count=round(uses * rng.uniform(0.3, 1.0), 2)
            )
        if collection == "memory_bank":
            meta.update(importance=round(rng.uniform(0.4, 1.0), 2), confidence=round(rng.uniform(0.4, 1.0), 2))
        if collection == "books":
            meta.update(title=f"Runbook {i % 40}", chunk_index=i)
        records.append(
            json.dumps(
                {
                    "scope": {"user": USER, "project": PROJECT},
                    "collection": collection,
                    "content": text,
                    "metadata": meta,
                    "embedding": base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii"),
                }
            )
        )
    return records


def timed(call: Callable[[int], object], n: int, warmup: int = 10) -> tuple[list[float], float]:
    """Wall-clock samples, plus the process CPU seconds per call (client + server: one process)."""
    for i in range(warmup):
        call(i)
    samples = []
    cpu = time.process_time()
    for i in range(n):
        start = time.perf_counter()
        call(i)
        samples.append(time.perf_counter() - start)
    return samples, (time.process_time() - cpu) / n


def stats(measured: tuple[list[float], float]) -> dict[str, float]:
    samples, cpu = measured
    ms = [s * 1000 for s in samples]
    return {
        "p50": round(statistics.median(ms), 2),
        "p95": round(percentile(ms, 95), 2),
        "cpu": round(cpu * 1000, 2),
        "n": len(ms),
    }


def run_size(loop: Loop, encoder: Encoder, size: int, n_queries: int, home: Path) -> dict[str, dict[str, float]]:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb
    from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import ChromaStore

    texts = corpus(size)
    t0 = time.perf_counter()
    vectors = encoder.encode(texts)
    print(f"  embedded {size} notes in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    client = chromadb.PersistentClient(path=str(home / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))
    store = ChromaStore(client)
    servers = {}
    for mode in MODES:
        settings = MemorySettings(
            address="127.0.0.1:0",
            home=home / mode,
            default_user=USER,
            retrieval_mode="dense" if mode == "dense" else "hybrid",
            maintenance_interval_s=0,
            embedding_addr="127.0.0.1:9",
        )
        if mode == "hybrid, no session context":
            settings = replace(settings, neighbour_weight=0.0, session_weight=0.0)
        servers[mode] = loop.run(create_server(settings, chroma=store))
    channels = {mode: grpc.insecure_channel(f"127.0.0.1:{running.port}") for mode, running in servers.items()}
    stubs = {mode: pb_grpc.MemoryServiceStub(chan) for mode, chan in channels.items()}
    scope = common_pb.Scope(user=USER, project=PROJECT)
    t0 = time.perf_counter()
    reply = stubs["hybrid"].Import(
        iter(pb.ImportRequest(record_json=r) for r in import_records(texts, vectors)), timeout=3600
    )
    print(f"  imported {reply.imported} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    qs = queries(n_queries)
    qv = [np.ascontiguousarray(v, dtype="<f4").tobytes() for v in encoder.encode(qs)]
    results: dict[str, dict[str, float]] = {}
    # The modes take turns query by query, so a noisy minute on a shared machine hits them alike.
    samples: dict[str, list[float]] = {mode: [] for mode in stubs}
    cpu: dict[str, float] = dict.fromkeys(stubs, 0.0)
    for i in range(-10, n_queries):  # the first 10 rounds warm up
        for mode, stub in stubs.items():
            request = pb.SearchRequest(scope=scope, query=qs[i % len(qs)], query_vector=qv[i % len(qv)], limit=5)
            started, cpu_started = time.perf_counter(), time.process_time()
            stub.Search(request, timeout=10)
            if i >= 0:
                samples[mode].append(time.perf_counter() - started)
                cpu[mode] += time.process_time() - cpu_started
    for mode in stubs:
        results[f"context ({mode})"] = stats((samples[mode], cpu[mode] / n_queries))
    hybrid = stubs["hybrid"]
    results["search+days (hybrid)"] = stats(
        timed(
            lambda i: hybrid.Search(
                pb.SearchRequest(
                    scope=scope, query=qs[i % len(qs)], query_vector=qv[i % len(qv)], limit=10, days_back=7
                ),
                timeout=10,
            ),
            n_queries,
        )
    )
    results["timeline (days_back=2)"] = stats(
        timed(
            lambda i: hybrid.Search(pb.SearchRequest(scope=scope, days_back=2, limit=10), timeout=30),
            max(20, n_queries // 5),
            warmup=3,
        )
    )
    results["state"] = stats(
        timed(
            lambda i: hybrid.GetScoringState(
                pb.GetScoringStateRequest(scope=scope, session_id=f"s{i % 4}"), timeout=10
            ),
            n_queries,
        )
    )
    results["inject"] = stats(
        timed(
            lambda i: hybrid.RecordInjection(
                pb.RecordInjectionRequest(
                    scope=scope, session_id=f"s{i % 4}", ids=["history_x"], prompt=qs[i % len(qs)]
                ),
                timeout=10,
            ),
            n_queries,
        )
    )
    for chan in channels.values():
        chan.close()
    for running in servers.values():
        loop.run(running.stop(0))
    return results


def main() -> None:
    offline.apply()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from services.embedding.model import load_encoder

    encoder = load_encoder()
    loop = Loop()
    table: dict[int, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            print(f"size {size}:", file=sys.stderr)
            table[size] = run_size(loop, encoder, size, args.queries, Path(tmp) / str(size))
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{'memories':>8}  {'call':<24} {'p50 ms':>8} {'p95 ms':>8} {'cpu ms':>8}")
    for size, rows in table.items():
        for name, row in rows.items():
            print(f"{size:>8}  {name:<24} {row['p50']:>8.2f} {row['p95']:>8.2f} {row['cpu']:>8.2f}")
    if len(table) > 1:
        small, large = min(table), max(table)
        ratio = table[large]["context (hybrid)"]["p50"] / table[small]["context (hybrid)"]["p50"]
        print(f"context (hybrid) p50 ratio {large} / {small}: {ratio:.2f}")


if __name__ == "__main__":
    main()
