"""Embedding service throughput: 16 concurrent single-text callers vs one batched encode.

    .venv/bin/python -m bench.bench_embedding [--texts 512] [--callers 16] [--device cpu] [--rounds 3]

Both sides run in the same process run, side by side, alternating rounds:
- "in-process": ``encoder.encode(texts)`` in batches of 64 (the ceiling);
- "service": a real ``python -m services.embedding`` subprocess on loopback,
  hit by N concurrent callers each sending ONE text per Embed call, so any
  throughput comes from the server's micro-batching. It requires a token on
  every call: the bench gives it a fresh MNEMEX_TOKEN, so no home is touched.
Prints texts/s medians and the ratio service / in-process (target >= 0.8).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import subprocess
import sys
import time

import grpc

from bench.common import free_port, wait_until
from kernel import offline
from services.embedding.model import Encoder


def corpus(n: int) -> list[str]:
    topics = [
        "pytest fixture scope",
        "grpc deadline",
        "chroma collection",
        "hook timeout",
        "wilson score",
        "docker compose",
        "git rebase",
        "typescript generics",
        "react hooks",
        "sql index",
    ]
    return [f"note {i}: how to handle {topics[i % len(topics)]} when the build fails on step {i % 7}" for i in range(n)]


def in_process_rate(encoder: Encoder, texts: list[str]) -> float:
    start = time.perf_counter()
    for i in range(0, len(texts), 64):
        encoder.encode(texts[i : i + 64])
    return len(texts) / (time.perf_counter() - start)


async def service_rate(addr: str, token: str, texts: list[str], callers: int) -> float:
    from kernel.embedding_client import EmbeddingClient

    async with grpc.aio.insecure_channel(addr) as channel:
        client = EmbeddingClient(channel, token=token)
        await client.embed(["warm up"])
        queue: asyncio.Queue[str] = asyncio.Queue()
        for t in texts:
            queue.put_nowait(t)

        async def worker() -> None:
            while True:
                try:
                    text = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await client.embed([text])

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(callers)))
        return len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument("--callers", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="auto", help="auto, onnx or torch (both sides use the same)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    offline.apply()

    from services.embedding.model import load_encoder

    port = free_port()
    token = secrets.token_urlsafe(32)
    env = dict(
        os.environ,
        MNEMEX_TOKEN=token,
        MNEMEX_EMBEDDING_ADDR=f"127.0.0.1:{port}",
        MNEMEX_EMBEDDING_DEVICE=args.device,
        MNEMEX_EMBEDDING_BACKEND=args.backend,
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.embedding"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        encoder = load_encoder(device=args.device, backend=args.backend)
        texts = corpus(args.texts)
        encoder.encode(texts[:64])  # warm up

        def ready() -> bool:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                grpc.channel_ready_future(ch).result(timeout=1)
            return True

        if not wait_until(ready, 60):
            assert proc.stderr is not None  # started with stderr=PIPE
            raise SystemExit("embedding service did not start: " + proc.stderr.read().decode()[-2000:])
        local, remote = [], []
        for _ in range(args.rounds):
            local.append(in_process_rate(encoder, texts))
            remote.append(asyncio.run(service_rate(f"127.0.0.1:{port}", token, texts, args.callers)))
        result = {
            "device": encoder.device,
            "backend": encoder.backend,
            "texts": args.texts,
            "callers": args.callers,
            "in_process_texts_per_s": round(statistics.median(local), 1),
            "service_texts_per_s": round(statistics.median(remote), 1),
        }
        result["ratio"] = round(result["service_texts_per_s"] / result["in_process_texts_per_s"], 3)
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"device {result['device']} ({result['backend']}), {args.texts} texts, {args.callers} concurrent single-text callers, {args.rounds} rounds"
            )
            print(f"  in-process batched encode : {result['in_process_texts_per_s']:8.1f} texts/s (median)")
            print(f"  service, micro-batched    : {result['service_texts_per_s']:8.1f} texts/s (median)")
            print(f"  ratio service/in-process  : {result['ratio']:.3f}  (target >= 0.8)")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
