"""kill -9 of every service while writes are in flight: is any acknowledged write lost?

- memory and kg: the concurrent write mixes of ``tests/support/durability.py``
  (stores and scores; facts and actions), each service SIGKILLed mid-stream and
  restarted on its port; every acknowledged write must be there exactly once.
- embedding and gateway: stops (finished exchanges) posted through the hook
  endpoint by four writers while the service is SIGKILLed and restarted; every
  stop the gateway acknowledged (200 with an exchange id) must be found by its id
  afterwards. Writes that failed during the outage are not acknowledged, so they
  count as tried, not as lost.

Backfill and consolidation kills are in ``data_safety``.
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from bench.reliability import Row

if TYPE_CHECKING:
    from tests.support.stack import Stack

FAMILY = "kill -9 during writes"
STOPS_PER_WRITER = 60
PROJECT_CWD = "/srv/kills-project"


def _grpc_service(workdir: Path, service: str) -> Row:
    from tests.support.durability import MemoryReport, kg_durability, memory_durability
    from tests.support.procstack import kill9, restart, wait_up
    from tests.support.stack import make_stack

    home = workdir / f"home-{service}"
    home.mkdir(parents=True, exist_ok=True)
    stack = make_stack(home, MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S="0")
    try:
        stack.start(service)
        wait_up(stack, service, 120)
        run = memory_durability if service == "memory" else kg_durability
        report = run(
            stack.addr(service),
            stack.home,
            lambda: kill9(stack, service),
            lambda: restart(stack, service),
            ops=160,
            workers=6,
        )
    finally:
        stack.stop()
    outcomes = report.outcomes
    kind = "stores + scores" if isinstance(report, MemoryReport) else "facts + actions"
    note = (
        f"{outcomes.acked} acknowledged, {outcomes.failed} in flight at the kill, "
        f"restart {outcomes.restart_seconds:.1f} s; {len(report.problems)} problems"
    )
    lost = sum(1 for p in report.problems if "missing" in p or "found 0 times" in p)
    return Row(FAMILY, f"{service}: {kind}", outcomes.acked + outcomes.failed, len(report.problems), lost, note)


def _front_service(stack: Stack, service: str) -> Row:
    from tests.support.procstack import kill9, post, restart

    acked: list[str] = []
    tried = [0]
    halt = threading.Event()
    lock = threading.Lock()

    def writer(index: int) -> None:
        session = f"kills-{service}-{index}-{uuid.uuid4().hex[:6]}"
        turn = 0
        while not halt.is_set() and turn < STOPS_PER_WRITER:
            turn += 1
            body = {
                "session_id": session,
                "cwd": PROJECT_CWD,
                "user_text": f"writer {index} turn {turn}: why does the {service} test {uuid.uuid4().hex} fail?",
                "assistant_text": f"Because fixture {uuid.uuid4().hex} was reused; recreate it per test.",
            }
            try:
                status, reply = post(stack, "/api/hooks/stop", body, timeout=10)
            except OSError:
                status, reply = 0, None
            with lock:
                tried[0] += 1
                if status == 200 and isinstance(reply, dict) and reply.get("exchange_id"):
                    acked.append(str(reply["exchange_id"]))
            time.sleep(0.05 if status == 200 else 0.1)  # a person's pace, not a flood: the kill lands mid-stream

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    kill9(stack, service)
    time.sleep(1.0)
    restart_s = restart(stack, service)
    time.sleep(3.0)
    halt.set()
    for thread in threads:
        thread.join(15)
    missing = _missing(stack, acked, settle_s=180.0)
    note = f"{len(acked)} stops acknowledged, restart {restart_s:.1f} s; missing after restart: {len(missing)}"
    return Row(FAMILY, f"{service}: stops through the hook endpoint", tried[0], len(missing), len(missing), note)


def _missing(stack: Stack, ids: list[str], settle_s: float = 30.0) -> list[str]:
    """The acknowledged ids not found by id (retried for ``settle_s``: a write may still be landing)."""
    from tests.support.procstack import post

    pending = list(dict.fromkeys(ids))
    deadline = time.monotonic() + settle_s
    while pending and time.monotonic() < deadline:
        still = []
        for memory_id in pending:
            status, reply = post(stack, "/api/search", {"cwd": PROJECT_CWD, "id": memory_id})
            found = status == 200 and isinstance(reply, dict) and bool(reply.get("results") or reply.get("memories"))
            if not found:
                still.append(memory_id)
        pending = still
        if pending:
            time.sleep(1.0)
    return pending


def run(workdir: Path) -> list[Row]:
    from tests.support.procstack import start_stack

    rows = [_grpc_service(workdir, "memory"), _grpc_service(workdir, "kg")]
    stack = start_stack(workdir / "home-front")
    try:
        for service in ("embedding", "gateway"):
            rows.append(_front_service(stack, service))
            stack.wait_healthy(120)
    finally:
        stack.stop()
    return rows
