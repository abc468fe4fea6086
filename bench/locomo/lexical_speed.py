"""LexicalIndex speed at 10k and 100k memories (no services, one core).

    python -m bench.locomo.lexical_speed [--data PATH] [--sizes 10000,100000]

Documents are LoCoMo turns recombined (two random turns each, plus a
code-ish identifier) so the vocabulary is realistic; queries are the LoCoMo
questions. Prints add throughput, search p50/p95 at k=30 (what the memory
service asks for), and remove throughput.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from bench.common import percentile
from bench.locomo.dataset import DEFAULT_DATA, load
from services.memory.retrieval.lexical import LexicalIndex


def corpus(turns: list[str], size: int, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    docs = []
    for i in range(size):
        a, b = rng.choice(turns), rng.choice(turns)
        docs.append((f"m{i}", f"{a} {b} see utils/module_{i % 500}.py fn_{i % 997}"))
    return docs


def main() -> None:
    parser = argparse.ArgumentParser(description="LexicalIndex speed")
    parser.add_argument("--data", default=os.environ.get("LOCOMO_DATA", str(DEFAULT_DATA)))
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    conversations = load(args.data)
    turns = [t.text for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.questions][: args.queries]
    for size in (int(s) for s in args.sizes.split(",")):
        docs = corpus(turns, size)
        index = LexicalIndex()
        start = time.perf_counter()
        for doc_id, text in docs:
            index.add(doc_id, text)
        add_s = time.perf_counter() - start
        timings = []
        for question in questions:
            start = time.perf_counter()
            index.search(question, 30)
            timings.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        for doc_id, _ in docs[:1000]:
            index.remove(doc_id)
        remove_s = time.perf_counter() - start
        print(
            f"{size:>7d} docs: add {size / add_s:,.0f}/s  search(k=30) p50 {percentile(timings, 50):.2f} ms "
            f"p95 {percentile(timings, 95):.2f} ms (n={len(timings)})  remove {1000 / remove_s:,.0f}/s",
            flush=True,
        )


if __name__ == "__main__":
    main()
