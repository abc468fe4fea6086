"""search_memory latency through the official MCP client, at 10k memories.

    .venv/bin/python -m bench.bench_search_memory [--size 10000] [--calls 200] [--data DIR]

Starts embedding, memory, kg and the gateway as separate processes (exactly
as `mnemex up` does; a fresh MNEMEX_HOME, or ``--data DIR`` to keep and reuse
a populated one), stores N memories across the collections through the
memory service (``bench.bench_get_context.populate``), then times
``search_memory(query=..., limit=10)`` one call at a time on three paths:

- MCP over stdio: ``python -m gateway.mcp.stdio`` (what ``mnemex mcp`` runs), spawned by the MCP client;
- MCP over streamable HTTP: the gateway's ``/mcp``;
- for reference, the same search over REST (``POST /api/search``), so the MCP layer's own cost shows.

The paths take turns query by query (round robin), so background load on a
shared machine hits all three alike. Each call embeds the query, searches all
five collections (dense + lexical) and renders result lines.
Target (issue 5): p50 <= 20 ms at 10k memories.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.bench_get_context import DETAILS, TOPICS, ProcessStack, populate
from bench.common import percentile

TARGET_P50_MS = 20.0
WARMUP = 15
Call = Callable[[str], Awaitable[None]]


def queries(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.choice(TOPICS)} {rng.choice(DETAILS)}" for _ in range(count)]


def mcp_call(client: Client) -> Call:
    async def call(prompt: str) -> None:
        result = await client.call_tool("search_memory", {"query": prompt, "limit": 10})
        assert not result.is_error and result.structured_content, result.content
        assert result.structured_content["memories"], "search returned nothing"

    return call


async def open_paths(stack: ProcessStack, project: Path, exits: AsyncExitStack) -> dict[str, Call]:
    rest = await exits.enter_async_context(httpx.AsyncClient(base_url=stack.url, timeout=60))

    async def rest_call(prompt: str) -> None:
        reply = await rest.post("/api/search", json={"query": prompt, "limit": 10, "cwd": str(project)})
        assert reply.status_code == 200 and reply.json()["memories"], reply.text

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gateway.mcp.stdio"],
        env={**stack.env, "MNEMEX_AUTOSTART": "0"},
        cwd=str(project),
    )
    stdio = await exits.enter_async_context(Client(params, read_timeout_seconds=60))
    http = await exits.enter_async_context(httpx2.AsyncClient(headers={"X-Mnemex-Cwd": str(project)}, timeout=60))
    remote = await exits.enter_async_context(
        Client(streamable_http_client(stack.url + "/mcp", http_client=http), read_timeout_seconds=60)
    )
    return {"REST /api/search": rest_call, "MCP stdio": mcp_call(stdio), "MCP streamable HTTP": mcp_call(remote)}


async def measure(stack: ProcessStack, project: Path, prompts: list[str]) -> dict[str, list[float]]:
    async with AsyncExitStack() as exits:
        paths = await open_paths(stack, project, exits)
        for prompt in prompts[:WARMUP]:
            for call in paths.values():
                await call(prompt)
        samples: dict[str, list[float]] = {name: [] for name in paths}
        for prompt in prompts:
            for name, call in paths.items():
                started = time.perf_counter()
                await call(prompt)
                samples[name].append((time.perf_counter() - started) * 1000)
        return samples


def prepare(data: Path, size: int) -> tuple[ProcessStack, Path, float | None]:
    """Start the stack on ``data``; populate it unless a previous run left ``size`` memories there."""
    project = data / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    home = data / "home"
    home.mkdir(exist_ok=True)
    marker = data / f"populated-{size}"
    stack = ProcessStack.create(home)
    stack.start()
    populate_s = None
    if not marker.exists():
        started = time.perf_counter()
        asyncio.run(populate(stack, str(project), size))
        populate_s = time.perf_counter() - started
        marker.write_text("ok\n")
    return stack, project, populate_s


def report(size: int, calls: int, populate_s: float | None, samples: dict[str, list[float]]) -> None:
    filled = f"populated in {populate_s:.1f} s" if populate_s is not None else "reused data"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"search_memory at {size} memories ({filled}), {calls} calls per path, round robin, "
        f"services as processes, load average {load:.1f} on {os.cpu_count()} CPUs"
    )
    print(f"{'path':<22} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'p50 vs REST':>12}")
    base = statistics.median(samples["REST /api/search"])
    for name, ms in samples.items():
        ratio = "-" if name.startswith("REST") else f"{statistics.median(ms) / base:.2f}x"
        print(
            f"{name:<22} {statistics.median(ms):>8.2f} {percentile(ms, 95):>8.2f} {statistics.fmean(ms):>8.2f} "
            f"{ratio:>12}"
        )
    for name in ("MCP stdio", "MCP streamable HTTP"):
        p50 = statistics.median(samples[name])
        verdict = "met" if p50 <= TARGET_P50_MS else "MISSED"
        print(f"target {name}: p50 <= {TARGET_P50_MS:.0f} ms: {verdict} ({p50:.2f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--data", type=Path, help="keep the populated data here and reuse it on the next run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-mcp-") as tmp:
        stack, project, populate_s = prepare(args.data or Path(tmp), args.size)
        try:
            samples = asyncio.run(measure(stack, project, queries(args.calls)))
        finally:
            stack.stop()
    report(args.size, args.calls, populate_s, samples)


if __name__ == "__main__":
    main()
