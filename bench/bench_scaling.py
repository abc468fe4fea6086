"""Scale-out, measured: embedding with 1 and 2 replicas, and the gateway with 1 and 2 replicas.

    .venv/bin/python -m bench.bench_scaling [--seconds 10] [--callers 16]

1. Embedding: two embedding services on loopback. ``--callers`` concurrent
   callers send one prompt-sized text per call through the kernel's channel
   (what the gateway and memory use), first to replica 0 alone, then to both
   as one ``ipv4:`` list (gRPC round-robin, with the retry policy): texts/s and
   the ratio. Each replica gets ``MNEMEX_EMBEDDING_THREADS`` (default: its own
   share of the cores, 1 on a 2-core machine).
2. Gateway: a whole stack plus a second gateway over the same backends;
   ``--callers`` concurrent HTTP clients post get-context, first all to one
   gateway, then split between the two: requests/s and the ratio.

On one small machine every replica competes for the same cores, so a ratio
near 1 says the replicas add no overhead, not that they add capacity; on
separate machines (or a GPU replica) the capacity adds. The printout says how
many CPUs ran it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.bench_get_context import ROOT, ProcessStack
from bench.common import free_port, wait_until
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_channel import channel
from kernel.internal_token import ensure_token

PROMPTS = [
    f"why does the {topic} step of the deploy fail after the {n}th retry on staging?"
    for n in range(50)
    for topic in ("cache", "queue", "schema", "auth", "billing")
]


def start_embedding(home: Path, port: int, threads: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "MNEMEX_HOME": str(home),
        "MNEMEX_EMBEDDING_ADDR": f"127.0.0.1:{port}",
        "MNEMEX_EMBEDDING_THREADS": str(threads),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("MNEMEX_TOKEN", None)
    log = open(home / f"embedding-{port}.log", "ab")  # noqa: SIM115 - lives as long as the process
    return subprocess.Popen([sys.executable, "-m", "services.embedding"], env=env, cwd=ROOT, stdout=log, stderr=log)


async def embed_rate(address: str, token: str, callers: int, seconds: float) -> float:
    client = EmbeddingClient(channel(address), token=token, timeout=30)
    for _ in range(200):  # until every replica behind the address answers
        try:
            await asyncio.gather(*(client.embed([p]) for p in PROMPTS[:8]))
            break
        except Exception:
            await asyncio.sleep(0.25)
    done = 0
    stop = time.monotonic() + seconds

    async def caller(offset: int) -> None:
        nonlocal done
        index = offset
        while time.monotonic() < stop:
            await client.embed([PROMPTS[index % len(PROMPTS)]])
            index += callers
            done += 1

    began = time.monotonic()
    await asyncio.gather(*(caller(i) for i in range(callers)))
    return done / (time.monotonic() - began)


def embedding_scaling(root: Path, callers: int, seconds: float, threads: int) -> tuple[float, float]:
    ports = [free_port(), free_port()]
    token = ensure_token(root)  # made before the replicas start, as the supervisor does: both read it
    procs = [start_embedding(root, port, threads) for port in ports]
    try:
        one = asyncio.run(embed_rate(f"127.0.0.1:{ports[0]}", token, callers, seconds))
        two = asyncio.run(embed_rate("ipv4:" + ",".join(f"127.0.0.1:{p}" for p in ports), token, callers, seconds))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(15)
    return one, two


async def gateway_rate(urls: list[str], project: str, callers: int, seconds: float) -> float:
    done = 0
    stop = time.monotonic() + seconds
    async with httpx.AsyncClient(timeout=30) as http:

        async def caller(number: int) -> None:
            nonlocal done
            url = urls[number % len(urls)]
            turn = 0
            while time.monotonic() < stop:
                turn += 1
                body = {
                    "session_id": f"scale-{number}",
                    "prompt": PROMPTS[(number + turn) % len(PROMPTS)],
                    "cwd": project,
                }
                reply = await http.post(f"{url}/api/hooks/get-context", json=body)
                reply.raise_for_status()
                done += 1

        began = time.monotonic()
        await asyncio.gather(*(caller(i) for i in range(callers)))
        return done / (time.monotonic() - began)


def gateway_scaling(root: Path, callers: int, seconds: float) -> tuple[float, float]:
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    (root / "data").mkdir()
    stack = ProcessStack.create(root / "data")
    stack.start()
    second_port = free_port()
    env = {**stack.env, "MNEMEX_GATEWAY_ADDR": f"127.0.0.1:{second_port}"}
    log = open(root / "gateway2.log", "ab")  # noqa: SIM115 - lives as long as the process
    second = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, cwd=ROOT, stdout=log, stderr=log)
    try:
        urls = [stack.url, f"http://127.0.0.1:{second_port}"]
        if not wait_until(lambda: httpx.get(urls[1] + "/api/health", timeout=2).status_code == 200, timeout=60):
            raise RuntimeError(f"the second gateway did not start; see {root / 'gateway2.log'}")
        with httpx.Client(base_url=stack.url, timeout=30) as http:
            for n in range(200):
                http.post("/api/memory-bank/add", json={"content": f"fact {n}: {PROMPTS[n]}", "cwd": str(project)})
        asyncio.run(gateway_rate(urls[:1], str(project), callers, 2.0))  # warm both paths
        one = asyncio.run(gateway_rate(urls[:1], str(project), callers, seconds))
        two = asyncio.run(gateway_rate(urls, str(project), callers, seconds))
    finally:
        second.terminate()
        second.wait(15)
        stack.stop()
    return one, two


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--callers", type=int, default=16)
    parser.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; {args.callers} concurrent callers; {args.seconds:.0f} s per measurement")
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-scaling-") as tmp:
        one, two = embedding_scaling(Path(tmp), args.callers, args.seconds, args.threads)
    print(
        f"embedding ({args.threads} onnxruntime thread(s) per replica): 1 replica {one:.1f} texts/s, "
        f"2 replicas {two:.1f} texts/s, ratio {two / one:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-scaling-") as tmp:
        one, two = gateway_scaling(Path(tmp), args.callers, args.seconds)
    print(
        f"gateway get-context: 1 gateway {one:.1f} requests/s, 2 gateways {two:.1f} requests/s, ratio {two / one:.2f}"
    )


if __name__ == "__main__":
    main()
