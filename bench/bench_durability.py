"""Durability: kill -9 the memory and kg services in the middle of 1,000 concurrent writes each.

    .venv/bin/python -m bench.bench_durability [--ops 1000] [--workers 8] [--kills 1]

Starts ``python -m services.memory`` and ``python -m services.kg`` as real
processes (memory gets explicit vectors, so no embedding service is
needed), drives the write mix of ``tests/support/durability.py`` and
SIGKILLs each service ``--kills`` times at evenly spaced points, restarting
it on the same port. Then checks every acknowledged write is present exactly
once and every counter adds up. Prints the counts and restart times; exit
status 1 on any problem.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from kernel import offline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--kills", type=int, default=1, help="kills per service, spread over the run")
    args = parser.parse_args()
    offline.apply()
    from tests.support.durability import (
        MemoryReport,
        kg_durability,
        memory_durability,
    )
    from tests.support.procstack import kill9, restart, wait_up
    from tests.support.stack import make_stack

    home = Path(tempfile.mkdtemp(prefix="mnemex-bench-durability-"))
    stack = make_stack(home, MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S="0")
    failed = False
    try:
        for service, run in (("memory", memory_durability), ("kg", kg_durability)):
            stack.start(service)
            wait_up(stack, service, 120)
            problems: list[str] = []
            restarts: list[float] = []
            acked = inflight = 0
            started = time.monotonic()
            ops_per_kill = args.ops // args.kills
            for round_number in range(args.kills):

                def kill(name: str = service) -> object:
                    return kill9(stack, name)

                def revive(name: str = service) -> float:
                    return restart(stack, name)

                report = run(
                    stack.addr(service),
                    stack.home,
                    kill,
                    revive,
                    ops=ops_per_kill,
                    workers=args.workers,
                    seed=round_number + 1,
                )
                problems += report.problems
                restarts.append(report.outcomes.restart_seconds)
                acked += report.outcomes.acked
                inflight += report.outcomes.failed
                if isinstance(report, MemoryReport):
                    detail = f"stores {report.stores_acked}, scores {report.scores_acked}, present {report.present}"
                else:
                    detail = f"facts {report.facts_acked}, actions {report.actions_acked}"
                print(
                    f"{service} round {round_number + 1}: {report.outcomes.acked} acknowledged, "
                    f"{report.outcomes.failed} in flight at the kill ({dict(report.outcomes.errors)}), "
                    f"killed after {report.outcomes.kill_at_ack} acks; {detail}"
                )
            print(
                f"{service}: {acked + inflight} writes, {acked} acknowledged and checked, {inflight} in flight; "
                f"{args.kills} kill(s), restart median {statistics.median(restarts):.2f} s; "
                f"{len(problems)} problems; {time.monotonic() - started:.1f} s"
            )
            for problem in problems[:20]:
                print("  problem:", problem)
            failed |= bool(problems)
    finally:
        stack.stop()
        shutil.rmtree(home, ignore_errors=True)
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
