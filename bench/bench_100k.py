"""get-context and search at 100k memories in one project: ANN index against exact scan (issue 19, "Up").

    .venv/bin/python -m bench.bench_100k [--rows 100000] [--queries 300] [--one-collection]

The memory service runs in its own process (``create_server`` from services.memory.composition on
127.0.0.1:0, real Chroma PersistentClient in a temp home), so its resident memory is its own. The
corpus is 100k real docstring paragraphs with real MiniLM vectors (``bench.docstring_corpus``;
embedded once, then cached in the temp dir), spread over the five collections with the shares the
10k benchmarks use (or all in ``history`` with ``--one-collection``), loaded through the Import
RPC with their vectors. Queries are 1000 held-out paragraphs, never stored, and their vectors.

Phases, on one data directory:

1. ANN service (``MNEMEX_MEMORY_ANN_MIN_ROWS`` default): populate; the first search (builds the index);
2. exact service (``ann_min_rows=0``), a restart on the same data: first search (mirrors from Chroma);
3. ANN service again, a restart: first search (mirrors and index rebuilt);
4. the two services side by side, requests alternating: get-context's Search (query text + query
   vector, limit 5, all collections, as the gateway sends it) and Search limit 10 for recall@10.

recall@10 is |ANN top 10 ∩ exact top 10| / 10 over the same queries; the target is >= 0.99.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
import numpy as np
import numpy.typing as npt

from bench.bench_memory_search import COLLECTION_SHARES
from bench.common import percentile
from bench.docstring_corpus import corpus
from kernel import offline

if TYPE_CHECKING:
    from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub

USER = "bench"
PROJECT = "big-project"


def records(texts: list[str], vectors: npt.NDArray[np.float32], one_collection: bool, seed: int = 3) -> Iterator[str]:
    rng = random.Random(seed)
    names = [name for name, _ in COLLECTION_SHARES]
    shares = [share for _, share in COLLECTION_SHARES]
    now = datetime.now(UTC)
    for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        collection = "history" if one_collection else rng.choices(names, shares)[0]
        meta: dict[str, object] = {
            "created_at": (now - timedelta(days=rng.uniform(0, 60))).isoformat(timespec="seconds")
        }
        if collection in ("working", "history", "patterns"):
            uses = rng.randrange(0, 8)
            meta.update(score=round(rng.uniform(0.3, 1.0), 3), uses=uses, success_count=round(uses * 0.6, 2))
        if collection == "memory_bank":
            meta.update(importance=round(rng.uniform(0.4, 1.0), 2), confidence=round(rng.uniform(0.4, 1.0), 2))
        if collection == "books":
            meta.update(title=f"Manual {i % 40}", chunk_index=i)
        body = {
            "scope": {"user": USER, "project": PROJECT},
            "collection": collection,
            "id": f"{collection}_c{i}",
            "content": text,
            "metadata": meta,
            "embedding": base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii"),
        }
        yield json.dumps(body)


class Service:
    """The memory service in a child process (``--serve``), on a free loopback port."""

    def __init__(self, home: Path, ann_min_rows: int | None) -> None:
        command = [sys.executable, "-m", "bench.bench_100k", "--serve", str(home)]
        if ann_min_rows is not None:
            command += ["--ann-min-rows", str(ann_min_rows)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("port "):
            raise SystemExit(f"memory service did not start: {line!r}")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{int(line.split()[1])}")
        from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc

        self.stub = pb_grpc.MemoryServiceStub(self.channel)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.channel.close()
        assert self.process.stdin is not None
        self.process.stdin.close()  # the child stops when its stdin closes
        self.process.wait(60)


def serve(home: Path, ann_min_rows: int | None) -> None:
    import asyncio

    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings

    offline.apply()
    settings = MemorySettings(
        address="127.0.0.1:0",
        home=home,
        default_user=USER,
        maintenance_interval_s=0,
        embedding_addr="127.0.0.1:9",  # never called: every request carries its vector
    )
    if ann_min_rows is not None:
        settings = replace(settings, ann_min_rows=ann_min_rows)

    async def run() -> None:
        running = await create_server(settings)
        print(f"port {running.port}", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await running.stop(0)

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--one-collection", action="store_true", help="every memory in history")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--ann-min-rows", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.ann_min_rows)
        return
    offline.apply()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb
    from services.memory.storage.ann_index import DEFAULT_MIN_ROWS

    texts, vectors, query_texts, query_vectors = corpus(args.rows, max(1000, args.queries))
    queries = [
        (t, np.ascontiguousarray(v, dtype="<f4").tobytes()) for t, v in zip(query_texts, query_vectors, strict=True)
    ]
    queries = queries[: args.queries]
    scope = common_pb.Scope(user=USER, project=PROJECT)
    layout = "all in history" if args.one_collection else "spread over the five collections"
    print(f"{args.rows} memories ({layout}), {len(queries)} held-out queries; ANN from {DEFAULT_MIN_ROWS} rows")

    def search(stub: MemoryServiceStub, i: int, limit: int) -> list[str]:
        text, vector = queries[i % len(queries)]
        reply = stub.Search(pb.SearchRequest(scope=scope, query=text, query_vector=vector, limit=limit), timeout=120)
        return [m.id for m in reply.memories]

    def first_search(service: Service) -> float:
        start = time.perf_counter()
        search(service.stub, 0, 5)
        return time.perf_counter() - start

    with tempfile.TemporaryDirectory(prefix="mnemex-100k-") as tmp:
        home = Path(tmp)
        ann = Service(home, None)
        start = time.perf_counter()
        lines = records(texts, vectors, args.one_collection)
        reply = ann.stub.Import((pb.ImportRequest(record_json=line) for line in lines), timeout=7200)
        populate = time.perf_counter() - start
        print(f"populate: {reply.imported} imported in {populate:.1f} s ({reply.imported / populate:.0f}/s)")
        print(f"ANN service, first search after populate (builds the index): {first_search(ann):.2f} s")
        ann.stop()
        exact = Service(home, 0)
        print(
            f"exact service started on the same data, first search (mirrors from Chroma): {first_search(exact):.2f} s"
        )
        ann = Service(home, None)
        print(f"ANN service restarted, first search (mirrors + index rebuilt): {first_search(ann):.2f} s")
        for i in range(20):  # warm both
            search(ann.stub, i, 5)
            search(exact.stub, i, 5)
        samples: dict[str, list[float]] = {"ann": [], "exact": []}
        for i in range(len(queries)):
            for name, service in (("ann", ann), ("exact", exact)) if i % 2 else (("exact", exact), ("ann", ann)):
                started = time.perf_counter()
                search(service.stub, i, 5)
                samples[name].append((time.perf_counter() - started) * 1000)
        overlap = [len(set(search(ann.stub, i, 10)) & set(search(exact.stub, i, 10))) / 10 for i in range(len(queries))]
        print("get-context Search (query + vector, limit 5, all collections), requests alternating:")
        for name, ms in samples.items():
            print(f"  {name:>5}: p50 {statistics.median(ms):.2f} ms  p95 {percentile(ms, 95):.2f} ms  (n={len(ms)})")
        recall = statistics.mean(overlap)
        print(
            f"recall@10 of the ANN service against the exact one (Search limit 10, same {len(queries)} queries): "
            f"{recall:.4f}; queries below 1.0: {sum(1 for o in overlap if o < 1)}"
        )
        print(f"memory service RSS: ANN {ann.rss_mb():.0f} MB, exact {exact.rss_mb():.0f} MB")
        ann.stop()
        exact.stop()
    p95 = percentile(samples["ann"], 95)
    print(
        f"targets: get-context p95 <= 30 ms ({'met' if p95 <= 30 else 'MISSED'}: {p95:.2f}), "
        f"recall@10 >= 0.99 ({'met' if recall >= 0.99 else 'MISSED'}: {recall:.4f})"
    )
    from bench.bench_get_context import machine_speed_ms

    print(
        f"machine speed: in-process fp32 encode of one 20-token prompt p50 {machine_speed_ms():.2f} ms (about 4.6 quiet)"
    )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
