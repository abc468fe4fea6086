"""search_memory latency through the official MCP client, at 10k memories.

    .venv/bin/python -m bench.bench_search_memory [--size 10000] [--calls 200]

Starts embedding, memory, kg and the gateway as separate processes (exactly
as `mnemex up` does; fresh MNEMEX_HOME), stores N memories across the
collections through the memory service (bench.bench_get_context.populate),
then times ``search_memory(query=...)`` calls one at a time:

- MCP over stdio: ``python -m gateway.mcp.stdio`` spawned by the MCP client (``mnemex mcp``);
- MCP over streamable HTTP: the gateway's ``/mcp``;
- for reference, the same search over REST (``POST /api/search``), so the
  MCP layer's own cost shows as a ratio.

Each call embeds the query, searches all five collections (dense + lexical)
and renders result lines. Target (issue 5): p50 <= 20 ms at 10k memories.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.bench_get_context import DETAILS, TOPICS, ProcessStack, populate
from bench.common import percentile

TARGET_P50_MS = 20.0


def queries(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.choice(TOPICS)} {rng.choice(DETAILS)}" for _ in range(count)]


async def timed(call: Callable[[str], Awaitable[None]], prompts: list[str], warmup: int = 15) -> list[float]:
    for prompt in prompts[:warmup]:
        await call(prompt)
    samples = []
    for prompt in prompts:
        started = time.perf_counter()
        await call(prompt)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def via_mcp(client: Client, prompts: list[str]) -> list[float]:
    async def call(prompt: str) -> None:
        result = await client.call_tool("search_memory", {"query": prompt, "limit": 10})
        assert not result.is_error and result.structured_content["memories"], result.content

    return await timed(call, prompts)


async def mcp_stdio(stack: ProcessStack, project: Path, prompts: list[str]) -> list[float]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gateway.mcp.stdio"],
        env={**stack.env, "MNEMEX_AUTOSTART": "0"},
        cwd=str(project),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        return await via_mcp(client, prompts)


async def mcp_http(stack: ProcessStack, project: Path, prompts: list[str]) -> list[float]:
    async with httpx2.AsyncClient(headers={"X-Mnemex-Cwd": str(project)}, timeout=60) as http, Client(
        streamable_http_client(stack.url + "/mcp", http_client=http), read_timeout_seconds=60
    ) as client:
        return await via_mcp(client, prompts)


async def rest(stack: ProcessStack, project: Path, prompts: list[str]) -> list[float]:
    async with httpx.AsyncClient(base_url=stack.url, timeout=60) as http:

        async def call(prompt: str) -> None:
            reply = await http.post("/api/search", json={"query": prompt, "limit": 10, "cwd": str(project)})
            assert reply.status_code == 200 and reply.json()["memories"], reply.text

        return await timed(call, prompts)


def row(label: str, ms: list[float], base: float | None) -> str:
    p50 = statistics.median(ms)
    ratio = f"{p50 / base:>6.2f}x" if base else f"{'-':>7}"
    return f"{label:<22} {p50:>8.2f} {percentile(ms, 95):>8.2f} {statistics.fmean(ms):>8.2f} {ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    prompts = queries(args.calls)
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-mcp-") as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        (Path(tmp) / "data").mkdir()
        stack = ProcessStack.create(Path(tmp) / "data")
        stack.start()
        try:
            started = time.perf_counter()
            asyncio.run(populate(stack, str(project), args.size))
            populate_s = time.perf_counter() - started
            results = {
                "REST /api/search": asyncio.run(rest(stack, project, prompts)),
                "MCP stdio": asyncio.run(mcp_stdio(stack, project, prompts)),
                "MCP streamable HTTP": asyncio.run(mcp_http(stack, project, prompts)),
            }
        finally:
            stack.stop()
    print(
        f"search_memory at {args.size} memories (populated in {populate_s:.1f} s), "
        f"{args.calls} sequential calls each, services as processes"
    )
    print(f"{'path':<22} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'vs REST':>7}")
    base = statistics.median(results["REST /api/search"])
    for label, ms in results.items():
        print(row(label, ms, None if label.startswith("REST") else base))
    for label in ("MCP stdio", "MCP streamable HTTP"):
        p50 = statistics.median(results[label])
        verdict = "met" if p50 <= TARGET_P50_MS else "MISSED"
        print(f"target {label}: p50 <= {TARGET_P50_MS:.0f} ms: {verdict} ({p50:.2f} ms)")


if __name__ == "__main__":
    main()
