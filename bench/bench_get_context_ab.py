"""get-context A/B: two front ends over one memory + kg stack, requests alternating.

    .venv/bin/python -m bench.bench_get_context_ab --b-env MNEMEX_EMBEDDING_PRECISION=fp32
    .venv/bin/python -m bench.bench_get_context_ab --b-root ../old-checkout   # code against code
    .venv/bin/python -m bench.bench_get_context_ab --b-root ../old-checkout --learned 100

Side A is this checkout's embedding service and gateway; side B is another
embedding service and gateway, started with ``--b-env`` variables and/or from
another checkout (``--b-root``). Both gateways use the same memory and kg
services (this checkout's), populated once with N memories, so the only
difference is what runs in front of them. Requests go A, B, A, B... through
the hook's own client, so a slow minute on this shared machine hits both
sides alike; the ratio of medians is the figure to read, not either absolute.

``--learned N`` first teaches the kg N of the timed prompts as problems (two
memories that worked, two that failed, through kg RecordOutcome), so a checkout
that reads lessons on get-context pays for them on most requests.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from bench.bench_get_context import (
    DETAILS,
    MODULES,
    ROOT,
    TOPICS,
    ProcessStack,
    hook_poster,
    populate,
    temporary_stack,
)
from bench.common import free_port, percentile, wait_until


def start_side_b(stack: ProcessStack, extra_env: dict[str, str], root: Path) -> ProcessStack:
    """An embedding service and a gateway beside ``stack``, sharing its memory and kg."""
    side = ProcessStack(stack.home / "b", dict(stack.env))
    side.home.mkdir()
    side.env.update(extra_env)
    side.env.update(
        MNEMEX_GATEWAY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_EMBEDDING_ADDR=f"127.0.0.1:{free_port()}",
        PYTHONPATH=str(root),
    )
    for name in ("embedding", "gateway"):
        log = open(side.home / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        side.procs[name] = subprocess.Popen(
            [sys.executable, "-m", MODULES[name]], env=side.env, cwd=root, stdout=log, stderr=subprocess.STDOUT
        )

    def healthy() -> bool:
        return bool(httpx.get(side.url + "/api/health", timeout=2).json().get("status") == "ok")

    if not wait_until(healthy, timeout=180, interval=0.2):
        raise RuntimeError("side B did not become healthy; see logs in " + str(side.home))
    return side


def prompts_for(queries: int) -> list[str]:
    rng = random.Random(2)
    return [f"how did we handle {rng.choice(TOPICS)} last time? {rng.choice(DETAILS)}" for _ in range(queries)]


async def teach_problems(stack: ProcessStack, cwd: str, prompts: list[str]) -> int:
    """Each prompt becomes a learned problem: its top two memories worked for it, the next two failed."""
    from gateway.rpc import Rpc
    from kernel import projects
    from kernel.config import Settings
    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
    from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

    settings = Settings.from_env(stack.env)
    backends = Rpc.connect(settings, timeout=60)
    scope = common_pb.Scope(user=settings.user, project=projects.resolve(cwd, settings.home))
    taught = 0
    for prompt in dict.fromkeys(prompts):
        vector = (await backends.embedding.embed([prompt]))[0]
        found = await backends.memory(scope.user).Search(
            mem_pb.SearchRequest(scope=scope, query=prompt, query_vector=vector.astype("<f4").tobytes(), limit=4),
            timeout=60,
        )
        ids = [m.id for m in found.memories]
        for doc_ids, outcome in ((ids[:2], common_pb.OUTCOME_WORKED), (ids[2:4], common_pb.OUTCOME_FAILED)):
            await backends.kg(scope.user).RecordOutcome(
                kg_pb.RecordOutcomeRequest(scope=scope, doc_ids=doc_ids, outcome=outcome, problem=prompt), timeout=60
            )
        taught += 1
    await backends.close()
    return taught


def alternate(a: ProcessStack, b: ProcessStack, cwd: str, queries: int) -> tuple[list[float], list[float]]:
    prompts = prompts_for(queries)
    post_a, post_b = hook_poster(a), hook_poster(b)
    for i, prompt in enumerate(prompts[:10]):  # warm-up
        post_a({"session_id": f"warm-a{i}", "prompt": prompt, "cwd": cwd})
        post_b({"session_id": f"warm-b{i}", "prompt": prompt, "cwd": cwd})
    times: tuple[list[float], list[float]] = ([], [])
    for i, prompt in enumerate(prompts):
        order = ((0, post_a), (1, post_b)) if i % 2 == 0 else ((1, post_b), (0, post_a))
        for side, post in order:
            started = time.perf_counter()
            reply = post({"session_id": f"ab{side}-{i % 7}", "prompt": prompt, "cwd": cwd})
            times[side].append((time.perf_counter() - started) * 1000)
            assert reply["memories"], reply
    return times


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--b-env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--b-root", type=Path, default=ROOT, help="checkout that side B runs from")
    parser.add_argument("--learned", type=int, default=0, help="teach the kg this many of the prompts as problems")
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.b_env)
    label_b = " ".join(args.b_env + ([f"root={args.b_root}"] if args.b_root != ROOT else [])) or "same as A"
    with temporary_stack("mnemex-ab-") as (stack, project):
        asyncio.run(populate(stack, str(project), args.size))
        taught = asyncio.run(teach_problems(stack, str(project), prompts_for(args.queries)[: args.learned]))
        side_b = start_side_b(stack, extra, args.b_root.resolve())
        try:
            a, b = alternate(stack, side_b, str(project), args.queries)
        finally:
            side_b.stop()
    print(
        f"get-context A/B at {args.size} memories, {args.queries} alternating requests per side"
        + (f", {taught} prompts learned as problems in the kg" if taught else "")
    )
    for name, samples in (("A (this checkout)", a), (f"B ({label_b})", b)):
        print(f"  {name:40s} p50 {statistics.median(samples):6.2f}  p95 {percentile(samples, 95):6.2f} ms")
    print(f"  p50 ratio A/B {statistics.median(a) / statistics.median(b):.3f}")


if __name__ == "__main__":
    main()
