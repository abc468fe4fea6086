"""One run of the scenario on one gateway: every problem taught, then the part's recurrences and near-misses.

1. Every problem of the data set, of both parts (the more problems in the same vocabulary, the harder the
   recognition), is solved once in its own session, in an order the seed shuffles (``HookClient.solve``).
2. Each recurrence of the part is a new session whose prompt is the recurrence report's text.
3. ``near_misses`` reports of the part that are in no pair, drawn with the seed, likewise.
Between 1 and 2 the run waits until the kg's count of known problems is steady (the last episode's
background learning has landed); that count is read again at the end.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from bench.duplicate_reports.client import HookClient, Record
from bench.duplicate_reports.dataset import Problem, Report, in_part

SETTLE_SECONDS = 10.0  # at most, for the last episode's background learning to reach the kg


async def settled_count(client: HookClient) -> int:
    """The kg's known problems once two reads half a second apart agree."""
    deadline = time.monotonic() + SETTLE_SECONDS
    last = await client.kg_problems()
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        now = await client.kg_problems()
        if now == last:
            break
        last = now
    return last


async def play(
    url: str,
    project: Path,
    problems: tuple[Problem, ...],
    part: str,
    near_misses: list[Report],
    seed: int,
    label: str,
) -> Record:
    record = Record(label, seed)
    order = list(problems)
    random.Random(seed).shuffle(order)
    async with HookClient(url, project, record) as client:
        started = time.perf_counter()
        for turn, problem in enumerate(order):
            await client.solve(problem, turn)
        await settled_count(client)  # so the last episode is known before the first probe
        record.seconds["episodes"] = time.perf_counter() - started
        started = time.perf_counter()
        for problem in in_part(problems, part):
            for report in problem.recurrences:
                await client.probe("recurrence", report, problem.key)
        for report in near_misses:
            await client.probe("near_miss", report)
        record.seconds["probes"] = time.perf_counter() - started
        record.kg_problems = await client.kg_problems()
    return record
