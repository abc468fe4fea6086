"""Load: N concurrent sessions x M turns (get-context, stop, score) through the real gateway.

    .venv/bin/python -m bench.bench_load [--sessions 8] [--turns 200] [--url http://127.0.0.1:27300]

Without --url it starts the four real processes (``tests/support/stack.py``)
on free loopback ports with their default settings (get-context budget
1.5 s) in a temporary MNEMEX_HOME. Each session seeds nothing itself; 12
memory_bank facts are added first. Reports get-context p50/p95, errors
(any non-200), degraded get-context replies, and audits every acknowledged
score update against the final ``uses`` counters (lost updates).
Exit status 1 when there is any error or lost update.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from kernel import offline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--url", help="a running gateway (default: start a stack)")
    parser.add_argument(
        "--cwd",
        default=str(Path(tempfile.gettempdir()) / "mnemex-bench-load"),
        help="project directory the sessions work in (a project id; nothing is written there)",
    )
    args = parser.parse_args()
    offline.apply()
    from tests.support.load import run_load, seed_facts
    from tests.support.procstack import start_stack

    stack = None
    home = Path(tempfile.mkdtemp(prefix="mnemex-bench-load-"))
    url = args.url
    try:
        if not url:
            stack = start_stack(home / "home", MNEMEX_GET_CONTEXT_BUDGET_MS="1500")
            url = stack.gateway_url
        seed_facts(url, args.cwd)
        report = run_load(url, args.cwd, sessions=args.sessions, turns=args.turns)
    finally:
        if stack is not None:
            stack.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(report.summary())
    print(
        f"get-context under load: p50 {report.p50_ms:.1f} ms  p95 {report.p95_ms:.1f} ms  "
        f"(n={len(report.context_latencies)}, {report.requests / report.wall_seconds:.1f} requests/s overall)"
    )
    for error in report.errors[:10]:
        print("  error:", error)
    for lost in report.lost_updates[:10]:
        print("  lost:", lost)
    raise SystemExit(1 if report.errors or report.lost_updates else 0)


if __name__ == "__main__":
    main()
