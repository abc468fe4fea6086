"""LoCoMo retrieval benchmark through mnemex's gRPC API.

    python -m bench.locomo [--data PATH] [--limit-conversations N] [--questions-per-conversation N]
                           [--configs baseline,hybrid] [--json] [--embedding-addr HOST:PORT]

Prints, per category and for categories 1-4 together, turn-level recall@5/@10,
any-hit@5/@10, session-hit@5 and MRR for each retrieval mode, side by side,
plus Search latency, for each configuration side by side (baseline = the
README's dense baseline; hybrid = the final configuration). See runner.py for
what is stored and asked.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable

from bench.locomo.dataset import DEFAULT_DATA
from kernel import offline

CONFIG_NAMES = ("baseline", "dense", "nocontext", "hybrid")  # runner.CONFIGS, without importing the services


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description="LoCoMo retrieval through mnemex's API")
    parser.add_argument(
        "--data", default=os.environ.get("LOCOMO_DATA", str(DEFAULT_DATA)), help="LoCoMo-format JSON file"
    )
    parser.add_argument("--limit-conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument(
        "--questions-per-conversation", type=int, default=None, help="only the first N questions of each"
    )
    parser.add_argument(
        "--configs",
        default="baseline,hybrid",
        help="comma-separated configurations: baseline (README dense baseline), dense (final content, dense only), "
        "nocontext (hybrid without session context), hybrid (final)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument(
        "--embedding-addr", default=None, help="use this running embedding service instead of starting one"
    )
    args = parser.parse_args(argv)
    args.configs = list(dict.fromkeys(c.strip() for c in args.configs.split(",") if c.strip()))
    bad = [c for c in args.configs if c not in CONFIG_NAMES]
    if bad or not args.configs:
        parser.error(f"--configs: unknown {bad}; choose from {', '.join(CONFIG_NAMES)}")
    return args


def load_average() -> str:
    try:
        return "/".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    offline.apply()
    args = parse_args(argv)
    from bench.locomo.dataset import DatasetError, load
    from bench.locomo.metrics import summarise
    from bench.locomo.report import as_json, side_by_side
    from bench.locomo.runner import latency_line, run

    try:
        conversations = load(args.data, args.limit_conversations)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    log: Callable[[str], None] = (lambda *_: None) if args.json else (lambda line: print(line, flush=True))
    log(
        f"LoCoMo: {args.data}, {len(conversations)} conversations, configurations {', '.join(args.configs)}; "
        f"load average {load_average()} on {os.cpu_count()} CPUs"
    )
    started = time.perf_counter()
    outcome = asyncio.run(
        run(conversations, args.configs, args.questions_per_conversation, log=log, embedding_addr=args.embedding_addr)
    )
    elapsed = time.perf_counter() - started
    summaries = {mode: summarise(result.results) for mode, result in outcome.items()}
    if args.json:
        latency = {
            mode: {"search_ms": [round(s * 1000, 3) for s in result.search_s], "store_s": result.store_s}
            for mode, result in outcome.items()
        }
        embedding = next(iter(outcome.values())).embedding if outcome else ""
        print(as_json(summaries, {"data": args.data, "elapsed_s": elapsed, "latency": latency, "embedding": embedding}))
        return 0
    print()
    print(side_by_side(summaries))
    print()
    for result in outcome.values():
        print(latency_line(result))
    print(f"total {elapsed:.1f}s; load average at the end {load_average()} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
