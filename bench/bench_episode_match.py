"""The kg's known-problem match on the prompt path: EpisodeBook.lessons with many known problems.

    .venv/bin/python -m bench.bench_episode_match [--problems 500] [--phrasings 8] [--queries 2000]

Known problems get random unit vectors (384 dimensions, like all-MiniLM-L6-v2) with
up to ``--phrasings`` ways of telling each, two fixes and four failed attempts; each
query is a fresh random vector with a failure word in its prompt, so the gate passes
and the whole matrix is scored. Prints the median and p95 microseconds per call.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import numpy.typing as npt

from services.kg.episode_records import Attempt, Fix, KnownProblem
from services.kg.episodes import EpisodeBook

DIM = 384


def unit(rng: np.random.Generator, n: int) -> npt.NDArray[np.float32]:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    normed: npt.NDArray[np.float32] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return normed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=500)
    parser.add_argument("--phrasings", type=int, default=8)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    book = EpisodeBook()
    for i in range(args.problems):
        vectors = unit(rng, args.phrasings + 1)
        book.problems[f"p{i}"] = KnownProblem(
            f"p{i}",
            "proj" if i % 2 else "other",
            f"problem {i}",
            vectors[0],
            [f"sig {i}"],
            [Fix(f"fix {i}.{k}", "", 1, 0.0) for k in range(2)],
            [Attempt(f"try {i}.{k}", "SomeError: x", f"sig {i}", 1, 0.0) for k in range(4)],
            0.0,
            list(vectors[1:]),
        )
    queries = unit(rng, args.queries)
    # One near copy of a known phrasing in ten, so matches (and lesson building) happen too.
    for q in range(0, args.queries, 10):
        queries[q] = book.problems[f"p{q % args.problems}"].vector
    book.lessons(queries[0], "s", "proj", 0.0, prompt="it fails")  # builds the matrix once
    times = []
    for q in queries:
        started = time.perf_counter()
        book.lessons(q, "s", "proj", 0.0, prompt="the build fails again")
        times.append((time.perf_counter() - started) * 1e6)
    times.sort()
    print(
        f"{args.problems} known problems x {args.phrasings + 1} phrasings: lessons() median "
        f"{statistics.median(times):.0f} us, p95 {times[int(0.95 * len(times))]:.0f} us over {args.queries} prompts"
    )


if __name__ == "__main__":
    main()
